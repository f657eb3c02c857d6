"""Scripted excavation with the Franka Panda: approach, penetrate, drag, lift, hold, dump.

Builds the scene of scripts/examples/franka_scene.py, lets the bed settle while the scoop waits high
above the sand box, then drives the scoop along a Cartesian path (the middle of the bucket, and its
pitch) by differential inverse kinematics: each step the joint velocity command is the damped least
squares solution of the path's velocity plus a feedback on the pose error, sent to the joint
velocity actuators. Over time it records the grains in the scoop (centres inside the bucket's
inner volume grown by a grain radius through its open front and top, in the bucket's frame) and their mass, the granular wrench on the scoop (sensor
"scoop_wrench"), the joint torques (`qfrc_actuator`: the motor torques, gravity compensation
included) and the speed.

Two-way coupling check: from the state at the start of the lift it replays the lift and the hold
with the same controller in the same scene without sand (the "empty" bed), and compares the joint
torque difference, full minus empty, with the torque that holds the carried grains' weight,
J(c)^T m g (m, c: mass and centre of the grains in the scoop; J: the scoop's translation Jacobian
at c), averaged over the lift and over the hold. It compares it too with the weight of all the
grains the scoop carries (`carried`: also those heaped over its rim and stuck to its outside,
which cohesive soil adds).

  .venv/bin/python scripts/examples/excavate.py                  # 51,156 grains: 4 s simulated
  .venv/bin/python scripts/examples/excavate.py --quick          # 5,460 grains, for CI
  .venv/bin/python scripts/examples/excavate.py --quick --soil cohesive   # with adhesion
Writes into --out (out/excavate; out/excavate_cohesive for cohesive soil): excavate.json
(figures), excavate.npz (time series, snapshots of the arm and the grains), then
(scripts/examples/excavate_media.py) excavate.png and mass.png (plots), strip.png (frames),
excavate.gif (with --gif).
"""

import argparse
import json
import math
import os
import sys
import time

# run as a script, its offscreen rendering takes osmesa unless told otherwise; --no-media renders
# nothing and needs no gl at all (a gpu machine may have no osmesa). imported (the tests), it sets
# nothing: the importer's subprocesses would inherit it
if __name__ == "__main__" and "--no-media" not in sys.argv:
  os.environ.setdefault("MUJOCO_GL", "osmesa")
  if os.environ["MUJOCO_GL"] == "osmesa":
    os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import franka_scene  # noqa: E402
import make_scoop  # noqa: E402
import mjgranular  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository
P = franka_scene.PREFIX

# the bucket's inner volume, bucket frame (scripts/examples/make_scoop.py's franka preset)
LENGTH, WIDTH, HEIGHT, WALL, HEEL, _ = make_scoop.PRESETS["franka"][2]

# the dig, as targets for the middle of the bucket (site "centre") and its pitch [deg] (positive:
# cutting edge down), reached at the end of each phase, moving at constant speed through it:
# x [m] in the world (the Panda's base at the origin, both beds span 0.38 .. 0.70 m), z [m] above
# the settled surface (None: the dig depth), pitch [deg]
WAIT = (0.45, 0.50, 0.0)         # x, absolute z, pitch: high above the box while the bed settles
PHASES = (                       # name, duration [s], x, z, pitch
    ("approach", 0.5, 0.45, 0.07, 25.0),
    ("penetrate", 0.35, 0.48, None, 20.0),
    ("drag", 0.8, 0.61, None, 8.0),
    ("curl", 0.6, 0.63, 0.06, -25.0),
    ("lift", 0.5, 0.63, 0.16, -25.0),
    ("hold", 0.4, 0.63, 0.16, -25.0),
    ("dump", 0.5, 0.58, 0.18, 50.0),
    ("pour", 0.3, 0.58, 0.18, 50.0),
)
DIG_DEPTH = 0.035                # bucket bottom below the surface while dragging [m]
FLOOR_CLEARANCE = 0.012          # lowest point of the bucket above the box floor [m]

# differential inverse kinematics
POSE_GAIN = 20.0                 # feedback on position and orientation errors [1/s]
DAMPING = 0.02                   # damped least squares regularisation
POSTURE_GAIN = 5.0               # null-space pull to the reference posture [1/s]
POSTURE = np.array([0.0, 0.2, 0.0, -2.2, 0.0, 2.4, -2.35])


def pitch_matrix(deg):
  """Bucket orientation: x forward (+x world) tilted down by `deg`, y to the left, z up."""
  a = math.radians(deg)
  c, s = math.cos(a), math.sin(a)
  return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


class Path:
  """Piecewise linear path of the bucket's middle and pitch over the phases."""

  def __init__(self, surface=None, start=0.0):
    """The waiting pose until `start`, then (once the surface is known) the dig."""
    wait = WAIT
    self.knots = [(0.0, "settle", wait), (start, "settle", wait)]
    self.end = start
    if surface is None:
      return
    # as deep as DIG_DEPTH, keeping the cutting edge off the floor
    self.depth = min(DIG_DEPTH, surface - FLOOR_CLEARANCE - 0.5 * LENGTH * math.sin(math.radians(20)))
    z_dig = surface - self.depth + 0.5 * HEIGHT
    t = start
    for name, duration, x, z, pitch in PHASES:
      t += duration
      self.knots.append((t, name, (x, z_dig if z is None else surface + z, pitch)))
    self.end = t

  def phase_times(self, name):
    """(start, end) of a phase."""
    for k in range(1, len(self.knots)):
      if self.knots[k][1] == name:
        return self.knots[k - 1][0], self.knots[k][0]
    raise KeyError(name)

  def __call__(self, t):
    """(phase, position, pitch [deg], velocity, pitch rate [deg/s]) at time t."""
    for k in range(1, len(self.knots)):
      t1, name, b = self.knots[k]
      if t < t1 or k == len(self.knots) - 1:
        t0, _, a = self.knots[k - 1]
        u = min(max((t - t0) / (t1 - t0), 0.0), 1.0) if t1 > t0 else 1.0
        a, b = np.array(a), np.array(b)
        pose = a + u * (b - a)
        rate = (b - a) / (t1 - t0) if t1 > t0 and t < t1 else np.zeros(3)
        return name, np.array([pose[0], 0.0, pose[1]]), pose[2], \
            np.array([rate[0], 0.0, rate[1]]), rate[2]


class Controller:
  """Joint velocity commands that move a site along a path (damped least squares IK)."""

  def __init__(self, model, site):
    self.m = model
    self.site = model.site(site).id
    self.dofs = [model.joint(j).dofadr[0] for j in franka_scene.JOINTS]
    self.qadr = [model.joint(j).qposadr[0] for j in franka_scene.JOINTS]
    self.jacp = np.zeros((3, model.nv))
    self.jacr = np.zeros((3, model.nv))

  def velocity(self, d, pos, rot, vel, angvel):
    """Joint velocities that move the site toward (pos, rot) with the given twist."""
    mujoco.mj_jacSite(self.m, d, self.jacp, self.jacr, self.site)
    jac = np.vstack([self.jacp[:, self.dofs], self.jacr[:, self.dofs]])
    err_rot = np.zeros(3)
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, (rot @ d.site_xmat[self.site].reshape(3, 3).T).ravel())
    mujoco.mju_quat2Vel(err_rot, quat, 1.0)
    twist = np.concatenate([vel + POSE_GAIN * (pos - d.site_xpos[self.site]),
                            angvel + POSE_GAIN * err_rot])
    jjt = jac @ jac.T + DAMPING ** 2 * np.eye(6)
    qdot = jac.T @ np.linalg.solve(jjt, twist)
    null = np.eye(7) - jac.T @ np.linalg.solve(jjt, jac)
    return qdot + null @ (POSTURE_GAIN * (POSTURE - d.qpos[self.qadr]))

  def place(self, d, pos, rot, iterations=300):
    """Moves the arm (qpos, no dynamics) from the reference posture to the pose: the start of a
    run. Returns the distance left to the target position [m]."""
    ranges = self.m.jnt_range[[self.m.joint(j).id for j in franka_scene.JOINTS]]
    d.qpos[self.qadr] = POSTURE
    for _ in range(iterations):
      mujoco.mj_kinematics(self.m, d)
      mujoco.mj_comPos(self.m, d)
      qdot = self.velocity(d, pos, rot, np.zeros(3), np.zeros(3))
      d.qpos[self.qadr] = np.clip(d.qpos[self.qadr] + 0.05 * qdot, ranges[:, 0], ranges[:, 1])
    mujoco.mj_forward(self.m, d)
    return float(np.linalg.norm(pos - d.site_xpos[self.site]))

  def command(self, d, path):
    _, pos, pitch, vel, rate = path(d.time)
    qdot = self.velocity(d, pos, pitch_matrix(pitch), vel,
                         np.array([0.0, math.radians(rate), 0.0]))
    np.clip(qdot, self.m.actuator_ctrlrange[:, 0], self.m.actuator_ctrlrange[:, 1], out=d.ctrl)


def in_bucket(model, d, pos, radius):
  """Mask of the grains in the bucket: centres inside its inner volume grown by a grain radius
  through the open front and top (a grain that overlaps the inner volume is in the bucket)."""
  site = model.site(P + "bucket").id
  local = (pos - d.site_xpos[site]) @ d.site_xmat[site].reshape(3, 3)
  x, y, z = local[:, 0], local[:, 1], local[:, 2]
  inside = ((x > WALL) & (x < LENGTH + radius) & (np.abs(y) < 0.5 * WIDTH - WALL) &
            (z > WALL) & (z < HEIGHT + radius))
  heel = (x < HEEL) & (z < HEEL)   # the rounded heel: inside the inner arc
  arc = np.hypot(x - HEEL, z - HEEL) < HEEL - WALL
  return inside & (~heel | arc)


def carried(model, d, pos, surface, margin=0.02, heap=0.1):
  """Mask of the grains the scoop carries once lifted: centres within `margin` of the bucket's
  box (and up to `heap` over its rim) and 3 cm above the settled surface: the grains in the
  bucket, heaped over its rim and stuck to its outside (cohesive soil)."""
  site = model.site(P + "bucket").id
  local = (pos - d.site_xpos[site]) @ d.site_xmat[site].reshape(3, 3)
  x, y, z = local[:, 0], local[:, 1], local[:, 2]
  return ((x > -margin) & (x < LENGTH + margin) & (np.abs(y) < 0.5 * WIDTH + margin) &
          (z > -margin) & (z < HEIGHT + heap) & (pos[:, 2] > surface + 0.03))


def weight_torque(model, d, mass, centre):
  """Joint torques that hold `mass` at `centre` carried by the scoop: J(c)^T m g."""
  jacp = np.zeros((3, model.nv))
  mujoco.mj_jac(model, d, jacp, None, centre, model.body(franka_scene.SCOOP).id)
  return jacp.T @ (-mass * model.opt.gravity)


def bed_surface(pos, box, radius):
  """Height of the settled surface [m]: 90th percentile of the grain tops in the box's middle."""
  x0, x1, y0, y1 = box
  mid = ((pos[:, 0] > x0 + 0.04) & (pos[:, 0] < x1 - 0.04) &
         (pos[:, 1] > y0 + 0.03) & (pos[:, 1] < y1 - 0.03))
  return float(np.percentile(pos[mid, 2], 90)) + radius


def parse_args():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--quick", action="store_true", help="the quick bed (5,460 grains), for CI")
  p.add_argument("--soil", choices=sorted(franka_scene.SOILS), default="dry",
                 help="dry sand, or cohesive soil (scripts/examples/franka_scene.py's SOILS) (dry)")
  p.add_argument("--settle", type=float, default=0.5, help="settling time of the bed [s] (0.5)")
  p.add_argument("--out", help="output folder (out/excavate, or out/excavate_SOIL)")
  p.add_argument("--no-media", action="store_true", help="no plots, frames or video")
  p.add_argument("--gif", action="store_true", help="also write an animated GIF")
  p.add_argument("--width", type=int, default=640, help="frame width [px] (640)")
  p.add_argument("--height", type=int, default=480, help="frame height [px] (480)")
  args = p.parse_args()
  if args.out is None:
    suffix = "" if args.soil == "dry" else f"_{args.soil}"
    args.out = os.path.join(ROOT, "out", "excavate" + suffix)
  return args


class Run:
  """One simulation of the scene along the path, with its time series."""

  def __init__(self, model, data, controller, path):
    self.m, self.d, self.ctrl, self.path = model, data, controller, path
    self.rows = {k: [] for k in ("t", "phase", "qfrc", "wall")}

  def step(self):
    """One controlled mj_step; returns its wall time [s]."""
    self.ctrl.command(self.d, self.path)
    start = time.perf_counter()
    mujoco.mj_step(self.m, self.d)
    wall = time.perf_counter() - start
    self.rows["t"].append(self.d.time)
    self.rows["phase"].append(self.path(self.d.time - 1e-9)[0])
    self.rows["qfrc"].append(self.d.qfrc_actuator[self.ctrl.dofs].copy())
    self.rows["wall"].append(wall)
    return wall


class Dig(Run):
  """The run with sand: also the grains in the scoop, their weight's torque, the wrench."""

  def __init__(self, model, data, controller, path, masses, radius):
    super().__init__(model, data, controller, path)
    self.radius = radius
    self.grains = mjgranular.grains(model, data)
    self.scoop = model.body(franka_scene.SCOOP).id
    self.masses = masses               # each grain's mass [kg] (its type's)
    self.surface = math.inf            # the settled surface, once known (nothing carried before)
    for k in ("count", "mass", "centre", "weight_torque", "wrench", "carried", "carried_mass",
              "carried_torque"):
      self.rows[k] = []

  def step(self):
    wall = super().step()
    m, d = self.m, self.d
    mujoco.mj_kinematics(m, d)       # the end-of-step pose, where the grains now are
    mujoco.mj_comPos(m, d)
    pos = self.grains.positions
    inside = in_bucket(m, d, pos, self.radius)
    count = int(inside.sum())
    mass = float(self.masses[inside].sum())
    centre = (np.average(pos[inside], axis=0, weights=self.masses[inside]) if count
              else d.xipos[self.scoop].copy())
    self.rows["count"].append(count)
    self.rows["mass"].append(mass)
    self.rows["centre"].append(centre)
    self.rows["weight_torque"].append(weight_torque(m, d, mass, centre)[self.ctrl.dofs])
    self.rows["wrench"].append(self.grains.wrenches[self.scoop].copy())
    held = carried(m, d, pos, self.surface)
    held_mass = float(self.masses[held].sum())
    self.rows["carried"].append(int(held.sum()))
    self.rows["carried_mass"].append(held_mass)
    self.rows["carried_torque"].append(
        weight_torque(m, d, held_mass, np.average(pos[held], axis=0, weights=self.masses[held])
                      if held.any() else centre)[self.ctrl.dofs])
    return wall


def window(path, name, skip):
  """(start, end) of a phase less `skip` seconds at its start: the part to average over."""
  t0, t1 = path.phase_times(name)
  return t0 + skip, t1


def mean_over(rows, key, span):
  t = np.array(rows["t"])
  sel = (t > span[0]) & (t <= span[1])
  return np.array(rows[key])[sel].mean(axis=0)


def coupling_check(dig, empty, path):
  """Torque difference full - empty against J^T m g, over the lift and over the hold."""
  result = {}
  for name, skip in (("lift", 0.15), ("hold", 0.15)):
    span = window(path, name, skip)
    measured = mean_over(dig.rows, "qfrc", span) - mean_over(empty.rows, "qfrc", span)
    expected = mean_over(dig.rows, "weight_torque", span)
    error = float(np.linalg.norm(measured - expected) / max(np.linalg.norm(expected), 1e-12))
    held = mean_over(dig.rows, "carried_torque", span)
    held_error = float(np.linalg.norm(measured - held) / max(np.linalg.norm(held), 1e-12))
    result[name] = {
        "window_s": [round(span[0], 4), round(span[1], 4)],
        "grains": float(mean_over(dig.rows, "count", span)),
        "mass_kg": float(mean_over(dig.rows, "mass", span)),
        "wrench_fz_n": float(mean_over(dig.rows, "wrench", span)[2]),
        "measured_nm": [round(float(v), 4) for v in measured],
        "expected_nm": [round(float(v), 4) for v in expected],
        "relative_error": round(error, 4),
        "carried_grains": float(mean_over(dig.rows, "carried", span)),
        "carried_mass_kg": float(mean_over(dig.rows, "carried_mass", span)),
        "carried_nm": [round(float(v), 4) for v in held],
        "carried_relative_error": round(held_error, 4),
    }
  return result


def main():
  args = parse_args()
  mjgranular.load_plugin()
  bed = "quick" if args.quick else "full"
  spec, source = franka_scene.build(bed, args.soil)
  config = spec.plugins[0].config
  box = franka_scene.BEDS[bed][0]
  model = spec.compile()
  data = mujoco.MjData(model)
  grains = mjgranular.grains(model, data)
  # each grain's mass and the largest grain's radius (mesh grains: their bounding spheres')
  masses = mjgranular.grain_types(model, data)[2][grains.types.astype(int)]
  radius = float(grains.radii.max())
  grain_mass = float(masses.mean())
  nsub = mjgranular.substeps(model, float(config["timestep"]))
  print(f"excavate: bed {bed}, soil {args.soil}: {grains.count} grains of "
        f"{grain_mass * 1e3:.3f} g (mean), step {model.opt.timestep * 1e3:g} ms in {nsub} granular "
        f"substeps; Panda: {source}", flush=True)

  # start: the scoop high above the box while the bed settles
  controller = Controller(model, P + "centre")
  path = Path(None, args.settle)
  _, pos, pitch, _, _ = path(0.0)
  miss = controller.place(data, pos, pitch_matrix(pitch))
  print(f"excavate: start pose reached within {miss * 1e3:.2f} mm", flush=True)
  dig = Dig(model, data, controller, path, masses, radius)
  # snapshots of the arm and the grains to render afterwards (excavate_media.py)
  shots = {"label": [], "time": [], "qpos": [], "grains": []}
  movie = {"time": [], "qpos": [], "grains": []}

  def shoot(label, into=shots):
    if label is not None:
      into["label"].append(label)
    into["time"].append(data.time)
    into["qpos"].append(data.qpos.copy())
    into["grains"].append(grains.positions.astype(np.float32))

  def report(run):
    wall = sum(run.rows["wall"])
    print(f"excavate: t = {data.time:5.2f} s  {run.rows['phase'][-1]:9s}  "
          f"in scoop {run.rows['count'][-1]:5d} ({run.rows['mass'][-1] * 1e3:6.1f} g)  "
          f"speed {data.time / wall:.4f}x real time", flush=True)

  while data.time < args.settle - 1e-9:
    dig.step()
    if len(dig.rows["t"]) % 50 == 0:
      report(dig)
  surface = bed_surface(grains.positions, box, radius)
  dig.surface = surface
  shoot("settled")
  fastest = np.linalg.norm(grains.velocities, axis=1).max()
  print(f"excavate: bed settled: surface at {surface * 1e3:.1f} mm, fastest grain "
        f"{fastest:.3f} m/s", flush=True)

  # the dig
  path = Path(surface, data.time)
  dig.path = path
  lift_start = path.phase_times("lift")[0]
  snapshot = None
  while data.time < path.end - 1e-9:
    phase = path(data.time)[0]
    if snapshot is None and data.time >= lift_start - 1e-9:
      snapshot = (data.time, data.qpos.copy(), data.qvel.copy(), data.ctrl.copy())
    dig.step()
    if len(dig.rows["t"]) % 50 == 0:
      report(dig)
    new_phase = path(data.time)[0]
    if new_phase != phase and phase in ("penetrate", "drag", "hold", "pour"):
      shoot(phase)
    if args.gif and len(dig.rows["t"]) % 33 == 0:
      shoot(None, movie)
  shoot(phase)
  report(dig)

  # the same lift and hold without sand
  empty_spec, _ = franka_scene.build("empty")
  empty_model = empty_spec.compile()
  empty_data = mujoco.MjData(empty_model)
  empty_data.time, empty_data.qpos[:], empty_data.qvel[:], empty_data.ctrl[:] = snapshot
  mujoco.mj_forward(empty_model, empty_data)
  empty = Run(empty_model, empty_data, Controller(empty_model, P + "centre"), path)
  hold_end = path.phase_times("hold")[1]
  while empty_data.time < hold_end - 1e-9:
    empty.step()
  check = coupling_check(dig, empty, path)

  # figures
  wall = float(np.sum(dig.rows["wall"]))
  steps = len(dig.rows["t"])
  dig_start, dig_end = path.phase_times("approach")[0], path.end
  t = np.array(dig.rows["t"])
  dig_wall = float(np.sum(np.array(dig.rows["wall"])[t > dig_start]))
  summary = {
      "bed": bed, "soil": args.soil, "grains": grains.count, "grain_mass_kg": grain_mass,
      "panda": source,
      "timestep_s": model.opt.timestep, "substeps": nsub, "surface_m": surface,
      "dig_depth_m": path.depth, "simulated_s": data.time, "wall_s": wall,
      "speed_x_realtime": data.time / wall,
      "pss": grains.count * nsub * steps / wall,
      "dig_speed_x_realtime": (dig_end - dig_start) / dig_wall,
      "in_scoop_after_lift": int(np.array(dig.rows["count"])[t <= path.phase_times("hold")[1]][-1]),
      "mass_in_scoop_after_lift_kg":
          float(np.array(dig.rows["mass"])[t <= path.phase_times("hold")[1]][-1]),
      "max_in_scoop": int(max(dig.rows["count"])),
      "coupling": check,
      "cpus": os.cpu_count(),
      "phases": [[t, name] for t, name, _ in path.knots],
  }
  os.makedirs(args.out, exist_ok=True)
  with open(os.path.join(args.out, "excavate.json"), "w") as f:
    json.dump(summary, f, indent=1)
  np.savez_compressed(os.path.join(args.out, "excavate.npz"),
                      **{f"dig_{k}": np.array(v) for k, v in dig.rows.items()},
                      **{f"empty_{k}": np.array(v) for k, v in empty.rows.items()},
                      **{f"shot_{k}": np.array(v) for k, v in shots.items()},
                      **{f"movie_{k}": np.array(v) for k, v in movie.items()})
  print(f"excavate: {data.time:.2f} s simulated in {wall:.0f} s wall: "
        f"{summary['speed_x_realtime']:.4f}x real time, {summary['pss'] / 1e6:.2f} M PSS")
  print(f"excavate: grains in the scoop after the lift: {summary['in_scoop_after_lift']} "
        f"({summary['mass_in_scoop_after_lift_kg'] * 1e3:.0f} g)")
  for name, c in check.items():
    print(f"excavate: {name}: {c['grains']:.0f} grains ({c['mass_kg'] * 1e3:.0f} g), granular "
          f"force z {c['wrench_fz_n']:+.2f} N vs weight {-c['mass_kg'] * 9.81:+.2f} N; joint torque "
          f"full - empty {c['measured_nm']} vs J^T m g {c['expected_nm']} N m: "
          f"off by {c['relative_error'] * 100:.1f}%; against all {c['carried_grains']:.0f} "
          f"grains carried ({c['carried_mass_kg'] * 1e3:.0f} g): "
          f"{c['carried_nm']} N m, off by {c['carried_relative_error'] * 100:.1f}%")
  print(f"excavate: wrote {args.out}", flush=True)
  if not args.no_media:
    import excavate_media
    excavate_media.write(args.out, args.width, args.height)


if __name__ == "__main__":
  main()
