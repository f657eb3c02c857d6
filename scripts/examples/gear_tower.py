"""The helical gear tower: a scaling benchmark for many grains and many bodies (GranularGym III-B).

A tall tube (models/assets/tower.obj) holds a stack of helical gears (models/assets/gear.obj) on
horizontal axles, two per layer side by side, each layer turned 90 degrees from the one below,
above a plate with a round orifice (models/assets/plate.obj; all three from
scripts/examples/make_gear_tower.py). Every gear spins at its own speed, drawn uniformly from
[-max_speed, max_speed] by a seeded generator and held by a velocity servo (a general actuator
whose affine bias gives the torque kv (speed - qvel), so the scene runs with no controller)
through a drive of large inertia (joint armature: a motor's rotor seen through its gearbox), so
the pile's torque hardly changes its speed within a step.
The grains start as a block above the gears, fall onto them and pile up on the plate around them,
draining through the orifice; a vertical cyclic boundary (`cyclic_z`) joins the bottom of the
column to its top, so grains leaving the bottom come back in at the top with the same velocity
and rain onto the pile again. The orifice is a choice of this scene, not of GranularGym's: it
keeps the flow rate and the grain speeds bounded (an open tube lets the grains fall through the
gears faster with every turn round the column; in a trial they passed 12 m/s within 3 s).

This script writes the scene's MJCF for a gear count and a grain count, and runs it to measure
its speed:

  python3 scripts/examples/gear_tower.py --write models/gear_tower.xml       # the committed scene
  .venv/bin/python scripts/examples/gear_tower.py --gears 16 --grains 50000 --warmup 1 --seconds 0.5
  .venv/bin/python scripts/examples/gear_tower.py --gears 2 --grains 300 --seconds 0.02   # CI size

A run prints simulated time, wall time, speed as a multiple of real time and particle-substeps
per second (PSS), and where the grains are (mean and largest speed, count kept). The MJCF is
written next to models/ (its mesh paths are relative to it) unless --write names a file.
"""

import argparse
import json
import math
import os
import random
import tempfile
import time

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository
MODELS = os.path.join(ROOT, "models")

# the meshes as scripts/examples/make_gear_tower.py writes them by default
BORE = 0.12          # tube inner radius [m]
TUBE_HEIGHT = 1.0    # tube height before scaling [m]
GEAR_TIP = 0.042     # gear tip radius [m]

# the stack, heights above the bottom of the cyclic range
PLATE_TOP = 0.06     # top of the orifice plate [m]
BOTTOM = 0.118       # lowest axle: two grain diameters between the gears and the plate [m]
LAYER_PITCH = 0.06   # height between gear layers [m]
GEAR_OFFSET = 0.058  # distance of a gear's axle from the tower axis [m]
SPACING = 2.2        # initial lattice spacing [radii] (the plugin's default)
TIMESTEP = 0.002     # mujoco step [s]
SUBSTEP = 5e-4       # granular substep [s]: 4 per step


def lattice_side(radius):
  """Lattice sites along one side of the square fill box inscribed in the bore, and its half
  width (the box clears the bore by a grain radius at its corners)."""
  half = (BORE - 2 * radius) / math.sqrt(2)
  sites = int(math.floor((2 * half - 2 * radius) / (SPACING * radius) + 1e-9)) + 1
  return sites, half


def layout(gears, grains, radius):
  """Heights of the scene for a gear count and a grain count (rounded up to whole lattice
  layers): the gears' axle positions and orientations, the fill box, the cyclic range."""
  layers = (gears + 1) // 2
  axles = []
  for k in range(gears):
    layer, side = divmod(k, 2)
    z = BOTTOM + layer * LAYER_PITCH
    sign = 1 if side == 0 else -1
    if layer % 2 == 0:   # axle along y, gears side by side along x
      axles.append(((sign * GEAR_OFFSET, 0.0, z), "y"))
    else:                # axle along x, side by side along y
      axles.append(((0.0, sign * GEAR_OFFSET, z), "x"))
  top_of_gears = BOTTOM + max(layers - 1, 0) * LAYER_PITCH + GEAR_TIP if gears else PLATE_TOP
  sites, half = lattice_side(radius)
  levels = max(1, math.ceil(grains / (sites * sites)))
  fill_lo = top_of_gears + 2 * radius
  fill_hi = fill_lo + 2 * radius + (levels - 1) * SPACING * radius + 1e-6
  cyclic_hi = fill_hi + 0.03
  return {
      "axles": axles,
      "fill": (-half, -half, fill_lo, half, half, fill_hi),
      "grains": sites * sites * levels,
      "cyclic": (0.0, cyclic_hi),
  }


def gear_speeds(gears, max_speed, seed):
  rng = random.Random(seed)
  return [rng.uniform(-max_speed, max_speed) for _ in range(gears)]


def overview_camera(height):
  """MJCF of a camera looking at the middle of a column of this height, slightly from above, far
  enough back to see all of it."""
  back = (2 / 3, -2 / 3, 1 / 3)                  # unit vector from the target to the camera
  distance = max(0.6, 1.6 * height)
  pos = (distance * back[0], distance * back[1], 0.5 * height + distance * back[2])
  x_axis = (1 / math.sqrt(2), 1 / math.sqrt(2), 0)
  y_axis = (-1 / (3 * math.sqrt(2)), 1 / (3 * math.sqrt(2)), 4 / (3 * math.sqrt(2)))  # back x x
  v = lambda a: " ".join(f"{c:.4g}" for c in a)
  return (f'<camera name="overview" pos="{v(pos)}" xyaxes="{v(x_axis)} {v(y_axis)}" '
          f'fovy="40"/>')


def scene_xml(gears=8, grains=20000, radius=0.004, max_speed=2 * math.pi, seed=0,
              backend="auto"):
  """MJCF text of the gear tower (mesh files relative to models/)."""
  if gears < 0 or grains < 1:
    raise ValueError("need gears >= 0 and grains >= 1")
  lay = layout(gears, grains, radius)
  zlo, zhi = lay["cyclic"]
  # the tube reaches past both ends of the cyclic range by several grain diameters
  tube_lo, tube_hi = zlo - 0.04, zhi + 0.04
  fill = " ".join(f"{v:.6g}" for v in lay["fill"])
  speeds = gear_speeds(gears, max_speed, seed)
  kv = 200.0      # servo gain [N m s / rad]
  armature = 1.0  # drive inertia at the axle [kg m^2], about 1300 times the gear's own
  bodies, actuators = [], []
  for k, ((x, y, z), axis) in enumerate(lay["axles"]):
    euler = "-90 0 0" if axis == "y" else "0 90 0"  # the mesh's z axis onto the axle
    bodies.append(
        f'    <body name="gear{k}" pos="{x:.6g} {y:.6g} {z:.6g}" euler="{euler}">\n'
        f'      <joint name="gear{k}" type="hinge" axis="0 0 1" armature="{armature:g}"/>\n'
        f'      <geom name="gear{k}" type="mesh" mesh="gear" material="steel"/>\n'
        f'    </body>')
    actuators.append(
        f'    <general name="gear{k}" joint="gear{k}" gainprm="0" biastype="affine" '
        f'biasprm="{kv * speeds[k]:.6g} 0 {-kv:g}"/>  <!-- {speeds[k]:+.3f} rad/s -->')
  speed_list = ", ".join(f"{s:+.2f}" for s in speeds) or "none"
  return f"""<!-- gear tower: {gears} helical gears spinning in a tube of inner radius {BORE} m above a
     plate with an orifice, {lay['grains']} grains of radius {radius} m falling through them and
     draining through the orifice; the bottom of the column (z = {zlo:g}) is joined to its top
     (z = {zhi:.4g}) by the cyclic boundary. Written by scripts/examples/gear_tower.py (do not edit;
     run it with other --gears / --grains for other sizes). Needs the mjgranular plugin library.
     Gear speeds [rad/s], seed {seed}: {speed_list} -->
<mujoco model="gear_tower">
  <option timestep="{TIMESTEP:g}" integrator="implicitfast"/>

  <visual>
    <global offwidth="960" offheight="1280" azimuth="120" elevation="-15"/>
    <quality numslices="12" numstacks="8" shadowsize="4096"/>
    <headlight ambient="0.35 0.35 0.35" diffuse="0.6 0.6 0.6"/>
    <map znear="0.01"/>
  </visual>

  <asset>
    <material name="glass" rgba="0.6 0.7 0.8 0.15"/>
    <material name="steel" rgba="0.5 0.55 0.65 1" specular="0.6"/>
    <mesh name="gear" file="assets/gear.obj"/>
    <mesh name="tower" file="assets/tower.obj" scale="1 1 {(tube_hi - tube_lo) / TUBE_HEIGHT:.6g}"/>
    <mesh name="plate" file="assets/plate.obj"/>
  </asset>

  <extension>
    <plugin plugin="mjgranular.terrain">
      <instance name="sand">
        <config key="fill"     value="{fill}"/>
        <config key="radius"   value="{radius:g}"/>
        <config key="density"  value="2500"/>
        <config key="friction" value="0.5"/>
        <config key="timestep" value="{SUBSTEP:g}"/>
        <config key="cyclic_z" value="{zlo:g} {zhi:.6g}"/>
        <config key="seed"     value="{seed}"/>
        <config key="backend"  value="{backend}"/>
      </instance>
    </plugin>
  </extension>

  <default>
    <!-- the grains feel every geom below; mujoco collides none of them with another -->
    <geom contype="2" conaffinity="0" density="7800"/>
  </default>

  <worldbody>
    <plugin instance="sand"/>
    <light pos="0.6 -0.6 {zhi + 0.6:.3g}" dir="-0.5 0.5 -1" diffuse="0.7 0.7 0.7"/>
    <geom name="tower" type="mesh" mesh="tower" pos="0 0 {tube_lo:.6g}" material="glass"/>
    <geom name="plate" type="mesh" mesh="plate" pos="0 0 {PLATE_TOP:g}" material="steel"/>
{chr(10).join(bodies)}
    {overview_camera(zhi)}
  </worldbody>

  <actuator>
{chr(10).join(actuators)}
  </actuator>
</mujoco>
"""


def run(xml, seconds, warmup=0.0, as_json=False):
  """Load the scene, step it for `warmup` seconds untimed, then time `seconds` of it; print
  speed and grain statistics (as one JSON object with as_json)."""
  import mujoco
  import numpy as np
  import mjgranular
  mjgranular.load_plugin()
  # the meshes are relative to models/: load from a file there
  with tempfile.NamedTemporaryFile("w", suffix=".xml", dir=MODELS, delete=False) as f:
    f.write(xml)
    path = f.name
  try:
    t0 = time.perf_counter()
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    load = time.perf_counter() - t0
  finally:
    os.unlink(path)
  g = mjgranular.grains(m, d)
  n0 = g.count
  nsub = mjgranular.substeps(m, SUBSTEP)
  mujoco.mj_step(m, d, nstep=max(0, round(warmup / m.opt.timestep)))
  steps = max(1, round(seconds / m.opt.timestep))
  t0 = time.perf_counter()
  for _ in range(steps):
    mujoco.mj_step(m, d)
  wall = time.perf_counter() - t0
  sim = steps * m.opt.timestep
  speed = np.linalg.norm(g.velocities, axis=1)
  gear_speed = [float(d.qvel[m.jnt_dofadr[j]]) for j in range(m.njnt)]
  if as_json:
    print(json.dumps({"gears": m.nbody - 1, "grains": n0, "kept": g.count, "steps": steps,
                      "substeps": nsub * steps, "sim_time": sim, "warmup": warmup,
                      "load_s": load, "wall_s": wall, "wall_per_sim_s": wall / sim,
                      "pss": n0 * nsub * steps / wall, "vmean": float(speed.mean()),
                      "vmax": float(speed.max())}))
    return m, d
  print(f"gear tower: {m.nbody - 1} gears, {n0} grains, {steps} steps of {m.opt.timestep} s "
        f"({nsub} substeps each) after {warmup:g} s; load {load:.2f} s")
  print(f"  simulated {sim:.3f} s in {wall:.2f} s wall: {sim / wall:.4f} x real time, "
        f"{n0 * nsub * steps / wall:.3e} PSS")
  print(f"  grains kept {g.count} of {n0}; speed mean {speed.mean():.3f} max {speed.max():.3f} m/s;"
        f" z in [{g.positions[:, 2].min():.3f}, {g.positions[:, 2].max():.3f}] m")
  if gear_speed:
    print("  gear speeds [rad/s]: " + " ".join(f"{w:+.2f}" for w in gear_speed))
  return m, d


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--gears", type=int, default=8, help="number of gears (8)")
  p.add_argument("--grains", type=int, default=20000,
                 help="grains, rounded up to whole lattice layers (20000)")
  p.add_argument("--radius", type=float, default=0.004, help="grain radius [m] (0.004)")
  p.add_argument("--max-speed", type=float, default=2 * math.pi,
                 help="gear speeds are uniform in [-max, max] [rad/s] (2 pi)")
  p.add_argument("--seed", type=int, default=0, help="seed of the gear speeds and the bed (0)")
  p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cuda"))
  p.add_argument("--write", metavar="FILE", help="write the MJCF to FILE instead of running it")
  p.add_argument("--seconds", type=float, default=0.1, help="simulated time of a run [s] (0.1)")
  p.add_argument("--warmup", type=float, default=0.0,
                 help="simulated time before the timed part [s] (0)")
  p.add_argument("--json", action="store_true",
                 help="print the measurement as one JSON object (for scripts/bench.sh)")
  args = p.parse_args()
  xml = scene_xml(args.gears, args.grains, args.radius, args.max_speed, args.seed, args.backend)
  if args.write:
    with open(args.write, "w") as f:
      f.write(xml)
    print(f"gear_tower: wrote {args.write}")
    return
  run(xml, args.seconds, args.warmup, args.json)


if __name__ == "__main__":
  main()
