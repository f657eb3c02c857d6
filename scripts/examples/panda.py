"""Where the Franka Emika Panda comes from: MuJoCo Menagerie's arm, without its hand, as an MjSpec.

The Panda's MJCF and meshes are never copied into this repository; scripts/setup.sh installs the
pinned PyPI packages that hold them (scripts/versions.sh) and this module finds them:

1. `mujoco-menagerie` (Google DeepMind's package of MuJoCo Menagerie). Its wheel holds only a
   registry: the first use downloads the robot's archive from the Menagerie's GitHub release into
   a cache (~/.cache/mujoco_menagerie, or $MENAGERIE_CACHE_DIR; $MENAGERIE_ROOT may name a
   Menagerie checkout instead). Used when the Panda is in that cache or checkout.
2. `gym-hil` (Hugging Face), installed without its dependencies, whose wheel ships a copy of the
   Menagerie Panda: the same meshes (assets/franka_emika_panda/meshes) and the same kinematic
   tree, joints and inertias as Menagerie's panda_nohand.xml, with a Robotiq 2F-85 gripper on the
   flange and torque motors. This module removes the gripper and the motors. Used on machines
   that reach PyPI but not GitHub (this project's developer machines and CI).

Either way the arm is link0 .. link7 with hinges joint1 .. joint7 and a body `attachment` at the
flange (site `attachment_site`), with no actuators, sensors or keyframes: the scene adds its own.

  python3 scripts/examples/panda.py            # says which source is used, compiles the arm
  python3 scripts/examples/panda.py --fetch    # first tries to download the Menagerie archive
"""

import argparse
import importlib.metadata
import importlib.util
import pathlib
import sys

import mujoco

MENAGERIE_NAME = "franka_emika_panda"
MENAGERIE_ENTRY = "panda_nohand"
GYM_HIL_GRIPPER = "base_mount"  # root body of gym-hil's Robotiq 2F-85, on the flange
FLANGE_BODY = "attachment"


def _menagerie_robot():
  try:
    import mujoco_menagerie
  except ImportError:
    return None, None
  return mujoco_menagerie, mujoco_menagerie.get(MENAGERIE_NAME)


def _menagerie_available():
  mm, robot = _menagerie_robot()
  if robot is None:
    return False
  cache = mm.Cache()
  if cache.root is not None:
    return (cache.root / MENAGERIE_NAME).is_dir()
  return cache.is_cached(robot)


def _gym_hil_assets():
  found = importlib.util.find_spec("gym_hil")  # locates the package without importing it
  if found is None or not found.submodule_search_locations:
    return None
  assets = pathlib.Path(list(found.submodule_search_locations)[0]) / "assets"
  return assets if (assets / "panda.xml").is_file() else None


def _strip(spec):
  """Removes everything but the arm's bodies, joints, geoms, meshes and materials."""
  for kind in ("actuators", "sensors", "keys", "tendons", "equalities", "excludes", "cameras"):
    for element in list(getattr(spec, kind)):
      spec.delete(element)


def _from_gym_hil(assets):
  spec = mujoco.MjSpec.from_file(str(assets / "panda.xml"))
  _strip(spec)                                   # the gripper's tendon and equalities first
  spec.delete(spec.body(GYM_HIL_GRIPPER))        # then the gripper's bodies
  used = {g.meshname for g in spec.geoms}
  for mesh in list(spec.meshes):                 # and its meshes
    if mesh.name not in used:
      spec.delete(mesh)
  return spec


def arm():
  """(spec, source): the Panda without hand as a fresh MjSpec, and a line naming its source."""
  if _menagerie_available():
    mm, robot = _menagerie_robot()
    spec = robot.spec(MENAGERIE_ENTRY)
    _strip(spec)
    return spec, (f"mujoco-menagerie {mm.__version__} ({MENAGERIE_NAME}/{MENAGERIE_ENTRY}.xml, "
                  f"menagerie commit {mm.commit()[:12]})")
  assets = _gym_hil_assets()
  if assets is not None:
    version = importlib.metadata.version("gym-hil")
    return _from_gym_hil(assets), (f"gym-hil {version}'s copy of the Menagerie Panda "
                                   f"({assets / 'franka_emika_panda'}), gripper removed")
  raise FileNotFoundError(
      "no Panda model: run scripts/setup.sh (installs mujoco-menagerie and gym-hil, pinned in "
      "scripts/versions.sh)")


def fetch():
  """Tries to put the Menagerie Panda into mujoco-menagerie's cache; True when it is there."""
  mm, robot = _menagerie_robot()
  if robot is None:
    return False
  if _menagerie_available():
    return True
  try:
    robot.path(progress=None)
  except mm.MenagerieError as e:
    print(f"panda: the Menagerie archive cannot be fetched ({e})")
    return False
  return True


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--fetch", action="store_true",
                 help="first try to download the Menagerie archive into its cache")
  args = p.parse_args()
  if args.fetch:
    fetch()
  try:
    spec, source = arm()
  except FileNotFoundError as e:
    sys.exit(f"panda: {e}")
  model = spec.compile()
  print(f"panda: {source}: {model.nbody - 1} bodies, {model.njnt} joints, "
        f"{model.nmesh} meshes, mass {sum(model.body_mass):.2f} kg")


if __name__ == "__main__":
  main()
