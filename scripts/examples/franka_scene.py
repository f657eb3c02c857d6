"""Composes the Franka excavation scene with MuJoCo's model editing API (mujoco.MjSpec).

Three parts, none of them a copy of another: the stage (models/franka_excavation.xml: sand box,
terrain plugin, cameras), the Panda from MuJoCo Menagerie (scripts/examples/panda.py: the arm
without its hand, from the pinned package that holds it), and the scoop (models/franka_scoop.xml,
its mesh written by scripts/examples/make_scoop.py). This module
- welds the scoop to the Panda's flange (body "attachment") and the Panda to the stage's frame
  "panda_base", prefixing the Panda's names with "panda/" (body "panda/scoop", joints
  "panda/joint1" .. "panda/joint7", sites "panda/tip" and "panda/bucket");
- compensates the arm's and the scoop's weight through the actuators (gravcomp and
  actuatorgravcomp, as a real Panda's controller does), so that `qfrc_actuator` is the whole motor
  torque and what the grains add shows up in it;
- gives each joint a velocity actuator "panda/joint1" .. "panda/joint7" (ctrl: joint velocity
  [rad/s], within the Panda's velocity limits; force within its torque limits);
- couples only the scoop with the sand (`bodies`) and adds the wrench sensor "scoop_wrench";
- picks the bed: "full" (the stage's 50 x 50 cm box, 51,156 grains), "quick" (a 26 x 16 cm box of
  5,460 grains along the dig path, for CI) or "empty" (no grains: the same robot in an empty box,
  the reference for what the grains add);
- picks the soil: "dry" (the stage's sand as it is) or "cohesive" (the same grains with
  adhesion, in the default contact model): SOILS, the one place that says which terrain keys
  each soil sets.

  python3 scripts/examples/franka_scene.py --bed quick      # compiles it, prints a summary
  python3 scripts/examples/franka_scene.py --bed full --xml out/franka_excavation.xml  # the MJCF
"""

import argparse
import os

import mujoco

import panda  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository
STAGE = os.path.join(ROOT, "models", "franka_excavation.xml")
TOOL = os.path.join(ROOT, "models", "franka_scoop.xml")
PREFIX = "panda/"
SCOOP = PREFIX + "scoop"
JOINTS = [f"{PREFIX}joint{i}" for i in range(1, 8)]

# the Panda's joint velocity [rad/s] and torque [N m] limits (Franka's datasheet), and the gains
# [N m s/rad] of the velocity servos that stand in for its joint velocity interface
VELOCITY_LIMIT = (2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61)
TORQUE_LIMIT = (87, 87, 87, 87, 12, 12, 12)
KV = (400, 400, 400, 400, 100, 100, 100)

# beds: sand box inside faces (x0, x1, y0, y1) [m], wall height [m], fill box top [m]
BEDS = {
    "full": ((0.30, 0.80, -0.25, 0.25), 0.15, 0.352),   # 42 x 42 x 29 lattice sites
    "quick": ((0.38, 0.72, -0.08, 0.08), 0.10, 0.184),  # 28 x 13 x 15
    "empty": ((0.30, 0.80, -0.25, 0.25), 0.15, None),
}

# soils: the terrain config keys each sets over the stage's (plugin/README.md, "Config keys").
# cohesive: a touching contact pulls with up to adhesion x pi r^2 (40 mN for these 4 mm grains,
# 6 times a grain's weight) and resists sliding with that much more; the value of
# models/cohesive_cut.xml, whose 8 cm bank stands with a vertical face from 500 Pa. gravel: the
# stones of models/gravel.xml (ROCKS), 8 to 16 mm, each a clump of 8 spheres
ROCKS = ("rock_a", "rock_b", "rock_c")
SOILS = {
    "dry": {},
    "cohesive": {"adhesion": "800"},
    "gravel": {"shape": " ".join(ROCKS), "clump_spheres": "8", "density": "2650",
               "friction": "0.6", "spacing": "2.2"},
}


def _sand_box(spec, bed, soil):
  """Moves the walls to the bed's box and fills it (or empties it) with the soil."""
  (x0, x1, y0, y1), height, top = BEDS[bed]
  cx, cy, hx, hy, t = 0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.5 * (x1 - x0), 0.5 * (y1 - y0), 0.01
  walls = {"wall_near": ((x0 - t, cy), (t, hy + t)), "wall_far": ((x1 + t, cy), (t, hy + t)),
           "wall_left": ((cx, y1 + t), (hx, t)), "wall_right": ((cx, y0 - t), (hx, t))}
  for name, ((x, y), (sx, sy)) in walls.items():
    geom = spec.geom(name)
    geom.pos = [x, y, 0.5 * height]
    geom.size = [sx, sy, 0.5 * height]
  config = dict(spec.plugins[0].config)
  if top is None:
    del config["fill"]
    config["count"] = "1"       # capacity without grains: the plugin runs on an empty bed
  else:
    config["fill"] = f"{x0} {y0} 0.004  {x1} {y1} {top}"
  config["bodies"] = SCOOP
  config.update(SOILS[soil])
  if "shape" in config:
    for rock in ROCKS:
      spec.add_mesh(name=rock, file=os.path.join(ROOT, "models", "assets", rock + ".obj"))
    if top is not None:
      config["count"] = str(_fill_count(spec, config))
  spec.plugins[0].config = config


def _fill_count(spec, config):
  """Grains the fill box holds: mesh grains' size is known only to a compiled model, so compile
  the terrain once empty (no fill) and ask it."""
  import mjgranular
  probe = dict(config, count="1")
  fill = [float(v) for v in probe.pop("fill").split()]
  spec.plugins[0].config = probe
  return mjgranular.fill_count(spec.compile(), 0, fill)


def _actuate(spec):
  """Gravity compensation through the motors and a velocity servo on every joint."""
  for body in spec.bodies:
    if body.name.startswith(PREFIX):
      body.gravcomp = 1
  for i, name in enumerate(JOINTS):
    spec.joint(name).actgravcomp = True
    act = spec.add_actuator(name=name, target=name, trntype=mujoco.mjtTrn.mjTRN_JOINT)
    act.set_to_velocity(kv=KV[i])
    act.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
    act.ctrlrange = [-VELOCITY_LIMIT[i], VELOCITY_LIMIT[i]]
    act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
    act.forcerange = [-TORQUE_LIMIT[i], TORQUE_LIMIT[i]]


def build(bed="full", soil="dry"):
  """(spec, source): the composed scene with the given bed and soil, and the line naming the
  Panda's source (scripts/examples/panda.py)."""
  if bed not in BEDS:
    raise ValueError(f"bed '{bed}': must be one of {', '.join(BEDS)}")
  if soil not in SOILS:
    raise ValueError(f"soil '{soil}': must be one of {', '.join(SOILS)}")
  stage = mujoco.MjSpec.from_file(STAGE)
  arm, source = panda.arm()
  tool = mujoco.MjSpec.from_file(TOOL)
  stage.frame("panda_base").attach_body(arm.body("link0"), PREFIX, "")
  flange = stage.body(PREFIX + panda.FLANGE_BODY)
  flange.add_frame().attach_body(tool.body("scoop"), PREFIX, "")
  _actuate(stage)
  _sand_box(stage, bed, soil)
  # the scoop's granular wrench as a sensor: an instance of the wrench plugin, then its sensor
  instance = stage.add_plugin(name="scoop_wrench", plugin_name="mjgranular.wrench", active=True)
  instance.config = {"body": SCOOP}
  wrench = stage.add_sensor(name="scoop_wrench", type=mujoco.mjtSensor.mjSENS_PLUGIN)
  plugin = wrench.plugin
  plugin.name = "scoop_wrench"
  plugin.active = True
  wrench.plugin = plugin
  return stage, source


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--bed", choices=sorted(BEDS), default="quick")
  p.add_argument("--soil", choices=sorted(SOILS), default="dry")
  p.add_argument("--xml", help="also write the composed MJCF here (meshes by absolute path)")
  args = p.parse_args()
  import mjgranular
  mjgranular.load_plugin()
  spec, source = build(args.bed, args.soil)
  model = spec.compile()
  data = mujoco.MjData(model)
  grains = mjgranular.grains(model, data)
  print(f"franka_scene: bed {args.bed}, soil {args.soil}: {grains.count} grains; Panda: {source}")
  print(f"franka_scene: {model.nbody} bodies, {model.nu} actuators, {model.nsensor} sensors, "
        f"scoop mass {model.body_mass[model.body(SCOOP).id]:.2f} kg")
  if args.xml:
    os.makedirs(os.path.dirname(os.path.abspath(args.xml)), exist_ok=True)
    with open(args.xml, "w") as f:
      f.write(spec.to_xml())
    print(f"franka_scene: wrote {args.xml}")


if __name__ == "__main__":
  main()
