"""Soak: the Franka excavation on the quick bed, digging over and over for a wall time.

The bed settles once with the scoop waiting above the box, as in scripts/examples/excavate.py; then
cycle after cycle the arm digs excavate.py's path (approach, penetrate, drag, curl, lift, hold,
dump, pour) from the surface as it is at the cycle's start, and returns to the waiting pose. Watched
at every step:
- NaN events: steps after which qpos, qvel or a grain's position or velocity is not finite, or
  MuJoCo reset the data (its time went back); MuJoCo's warnings (bad qpos / qvel / qacc) and
  every mju_warning (the plugin's included) are counted too;
- grains lost: grains that crossed a wall below its top within one step (through it, not over
  it), went through the floor or are not finite; apart from them, the grains spilled over the
  walls (outside the box's footprint); and the total mass of all grains (density x volume of
  each radius in plugin_state), start against now;
- penetration: how deep a grain overlaps the floor, the box walls (the world's planes and boxes,
  closed forms) or the scoop (its mesh: exact distance to the triangles, inside by the winding
  number), radius minus the signed distance of its centre;
- memory: the process's resident set (VmRSS) after each cycle and its peak (VmHWM), and the growth
  after the first cycle (least squares over the cycles, per hour).
The report is rewritten after every cycle (an interrupted run leaves the last one) and printed at
the end.

  .venv/bin/python scripts/examples/soak.py --minutes 60 --report out/soak/report.txt
  scripts/soak.sh --minutes 3                  # sets up and builds first
"""

import argparse
import math
import os
import time

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import excavate  # noqa: E402
import franka_scene  # noqa: E402
import mjgranular  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository
RETURN = 0.6    # time to go back from the pour to the waiting pose [s]


def status_kb(field):
  """A field of /proc/self/status in kB (VmRSS, VmHWM)."""
  with open("/proc/self/status") as f:
    for line in f:
      if line.startswith(field + ":"):
        return int(line.split()[1])
  return 0


def return_path(t0, pose):
  """From `pose` (x, z, pitch) at t0 back to the waiting pose over RETURN seconds, then held."""
  path = excavate.Path(None, t0 + RETURN)
  path.knots = [(t0, "return", pose), (t0 + RETURN, "return", excavate.WAIT)]
  return path


class Penetration:
  """Deepest overlap of the grains with the world's planes and boxes and with the scoop's mesh."""

  def __init__(self, model, scoop_geom):
    self.m = model
    world = np.flatnonzero(model.geom_bodyid == 0)
    self.planes = [g for g in world if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_PLANE]
    self.boxes = [g for g in world if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX]
    self.scoop = scoop_geom
    mesh = model.geom_dataid[scoop_geom]
    vadr, vnum = model.mesh_vertadr[mesh], model.mesh_vertnum[mesh]
    fadr, fnum = model.mesh_faceadr[mesh], model.mesh_facenum[mesh]
    verts = model.mesh_vert[vadr:vadr + vnum].astype(float)  # in the geom's frame
    self.lo, self.hi = verts.min(axis=0), verts.max(axis=0)
    # per triangle (T), what the distances below need of its corners alone
    corners = verts[model.mesh_face[fadr:fadr + fnum]]
    self.a, self.b, self.c = (corners[:, k] for k in range(3))
    self.cross = np.cross(self.b - self.a, self.c - self.a)
    self.normal = self.cross / np.linalg.norm(self.cross, axis=1, keepdims=True)
    self.edges = []   # per edge: start, direction, the in-plane normal pointing into the triangle
    for u, v in ((self.a, self.b), (self.b, self.c), (self.c, self.a)):
      self.edges.append((u, v - u, np.cross(self.normal, v - u)))
    self.det = np.einsum("tk,tk->t", self.a, np.cross(self.b, self.c))

  def __call__(self, d, pos, radii):
    """{"floor", "walls", "scoop"}: the deepest overlap [m] (negative: a gap) this step."""
    floor = -np.inf
    for g in self.planes:
      normal = d.geom_xmat[g].reshape(3, 3)[:, 2]
      floor = max(floor, float(np.max(radii - (pos - d.geom_xpos[g]) @ normal)))
    walls = -np.inf
    for g in self.boxes:
      local = (pos - d.geom_xpos[g]) @ d.geom_xmat[g].reshape(3, 3)
      q = np.abs(local) - self.m.geom_size[g]
      signed = np.linalg.norm(np.maximum(q, 0), axis=1) + np.minimum(q.max(axis=1), 0)
      walls = max(walls, float(np.max(radii - signed)))
    return {"floor": floor, "walls": walls, "scoop": self.into_scoop(d, pos, radii)}

  def into_scoop(self, d, pos, radii):
    g = self.scoop
    local = (pos - d.geom_xpos[g]) @ d.geom_xmat[g].reshape(3, 3)
    reach = radii.max()
    near = np.all((local > self.lo - reach) & (local < self.hi + reach), axis=1)
    if not near.any():
      return -np.inf
    p, r = local[near], radii[near]
    # every point against every triangle (points x triangles), each term affine in the point
    # or its square, so as matrix products
    pp = np.einsum("gk,gk->g", p, p)[:, None]
    corner = lambda x: (p @ x.T, np.einsum("tk,tk->t", x, x))   # p . x, |x|^2

    # unsigned distance: to the plane where the foot of the perpendicular lies inside the
    # triangle, else to the nearest edge
    height = np.einsum("tk,tk->t", self.a, self.normal) - p @ self.normal.T
    inside = np.ones(height.shape, bool)
    for u, e, into in self.edges:
      inside &= p @ into.T >= np.einsum("tk,tk->t", u, into)
    dist2 = np.where(inside, height ** 2, np.inf)
    for u, e, _ in self.edges:
      pu, uu = corner(u)
      along = p @ e.T - np.einsum("tk,tk->t", u, e)           # (p - u) . e
      ee = np.einsum("tk,tk->t", e, e)
      t = np.clip(along / ee, 0, 1)
      dist2 = np.minimum(dist2, pp - 2 * pu + uu - 2 * t * along + t * t * ee)
    dist = np.sqrt(np.maximum(dist2.min(axis=1), 0))

    # inside the closed mesh where the winding number (the triangles' solid angles, after Van
    # Oosterom and Strackee, over 4 pi) is about 1, outside where it is about 0
    (pa, aa), (pb, bb), (pc, cc) = corner(self.a), corner(self.b), corner(self.c)
    la, lb, lc = (np.sqrt(np.maximum(pp - 2 * px + xx, 0)) for px, xx in
                  ((pa, aa), (pb, bb), (pc, cc)))
    dot = lambda x, y, px, py: np.einsum("tk,tk->t", x, y) - px - py + pp   # (x - p) . (y - p)
    ab, bc, ca = (dot(self.a, self.b, pa, pb), dot(self.b, self.c, pb, pc),
                  dot(self.c, self.a, pc, pa))
    det = self.det - p @ self.cross.T                          # (a - p) . ((b - p) x (c - p))
    angle = np.arctan2(det, la * lb * lc + ab * lc + bc * la + ca * lb)
    winding = np.abs(angle.sum(axis=1)) / (2 * math.pi)
    return float(np.max(r - np.where(winding > 0.5, -dist, dist)))


class Soak:
  """The run's tallies."""

  def __init__(self, args, model, data, grains, density, box, wall_top):
    self.args, self.m, self.d, self.g = args, model, data, grains
    self.density, self.box, self.wall_top = density, box, wall_top
    self.inside = self.in_footprint()
    self.tunnelled = np.zeros(grains.count, bool)  # left the footprint below the walls' top
    self.steps, self.cycles, self.nan_steps, self.resets, self.warnings = 0, 0, 0, 0, []
    self.mass0 = self.total_mass()
    self.count0 = grains.count
    self.settle_spilled = 0       # spilled while the bed settled, before the first dig
    self.check_wall = 0.0         # wall time of the checks after the steps [s]
    self.worst = {k: (-np.inf, None) for k in ("floor", "walls", "scoop")}
    self.rss = []                 # (wall s, kB) after each cycle
    self.rss_start = status_kb("VmRSS")
    self.carried = []             # the most grains in the scoop during each cycle's hold
    self.start = time.perf_counter()

  def total_mass(self, mask=None):
    r = self.g.radii if mask is None else self.g.radii[mask]
    return float(self.density * 4 / 3 * math.pi * np.sum(r.astype(float) ** 3))

  def in_footprint(self):
    pos = self.g.positions
    x0, x1, y0, y1 = self.box
    with np.errstate(invalid="ignore"):
      return (pos[:, 0] >= x0) & (pos[:, 0] <= x1) & (pos[:, 1] >= y0) & (pos[:, 1] <= y1)

  def lost(self):
    """Masks of the grains lost: through a wall, through the floor, not finite."""
    pos = self.g.positions
    with np.errstate(invalid="ignore"):
      return {"through a wall": self.tunnelled, "through the floor": pos[:, 2] < 0,
              "not finite": ~np.all(np.isfinite(pos), axis=1)}

  def spilled(self):
    """Mask of the grains outside the box's footprint that are not lost: over the walls."""
    return ~self.in_footprint() & ~np.logical_or.reduce(list(self.lost().values()))

  def after_step(self, time_before, phase, penetration):
    start = time.perf_counter()
    self.check(time_before, phase, penetration)
    self.check_wall += time.perf_counter() - start

  def check(self, time_before, phase, penetration):
    d, g = self.d, self.g
    self.steps += 1
    if d.time < time_before:
      self.resets += 1
    finite = (np.all(np.isfinite(d.qpos)) and np.all(np.isfinite(d.qvel)) and
              np.all(np.isfinite(g.positions)) and np.all(np.isfinite(g.velocities)))
    if not finite:
      self.nan_steps += 1
      return
    inside = self.in_footprint()
    self.tunnelled |= self.inside & ~inside & (g.positions[:, 2] < self.wall_top)
    self.inside = inside
    for k, v in penetration(d, g.positions, g.radii).items():
      if v > self.worst[k][0]:
        self.worst[k] = (v, (d.time, self.cycles, phase))

  def after_cycle(self, carried):
    self.cycles += 1
    self.carried.append(carried)
    self.rss.append((time.perf_counter() - self.start, status_kb("VmRSS")))

  def rss_growth(self):
    """RSS growth after the first cycle [MB per hour], least squares; None with < 3 cycles."""
    if len(self.rss) < 3:
      return None
    t, kb = np.array(self.rss[1:], float).T
    return float(np.polyfit(t / 3600, kb / 1024, 1)[0])

  def report(self):
    d, wall = self.d, time.perf_counter() - self.start
    lost = self.lost()
    lost_any = np.logical_or.reduce(list(lost.values()))
    spilled = self.spilled()
    pos = self.g.positions[spilled]
    x0, x1, y0, y1 = self.box
    sides = {"x < box": pos[:, 0] < x0, "x > box": pos[:, 0] > x1, "y < box": pos[:, 1] < y0,
             "y > box": pos[:, 1] > y1}
    mass_now = self.total_mass()
    warn = [f"{w} x{d.warning[getattr(mujoco.mjtWarning, w)].number}"
            for w in ("mjWARN_BADQPOS", "mjWARN_BADQVEL", "mjWARN_BADQACC")
            if d.warning[getattr(mujoco.mjtWarning, w)].number]
    lines = [
        f"soak: Franka excavation, quick bed, {self.count0} grains, OMP_NUM_THREADS="
        f"{os.environ.get('OMP_NUM_THREADS', 'unset')}, {os.cpu_count()} cpus, "
        f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"wall time          {wall:.0f} s of {self.args.minutes * 60:.0f} s asked",
        f"simulated          {d.time:.2f} s in {self.steps} steps "
        f"({d.time / wall:.4f}x real time), {self.cycles} dig cycles completed; the checks "
        f"after each step took {100 * self.check_wall / wall:.0f}% of the wall time",
        f"grains carried     the most in the scoop during each cycle's hold: min "
        f"{min(self.carried, default=0)}, max {max(self.carried, default=0)}, last "
        f"{self.carried[-1] if self.carried else 0}",
        f"grains lost        {int(lost_any.sum())} ({self.total_mass(lost_any) * 1e3:.3f} g): "
        + ", ".join(f"{k} {int(v.sum())}" for k, v in lost.items()),
        f"grains spilled     {int(spilled.sum())} ({self.total_mass(spilled) * 1e3:.3f} g) over "
        f"the walls, out of the box's footprint ("
        + (", ".join(f"{k} {int(v.sum())}" for k, v in sides.items() if v.any()) or "none")
        + f"); {self.settle_spilled} while the bed settled",
        f"grain mass         {self.mass0 * 1e3:.6f} g at the start, {mass_now * 1e3:.6f} g now "
        f"(relative change {(mass_now - self.mass0) / self.mass0:.1e}); count {self.count0} -> "
        f"{self.g.count}",
        f"NaN events         {self.nan_steps} steps with a non-finite state, {self.resets} resets; "
        f"MuJoCo warnings: {', '.join(warn) or 'none'}; "
        f"mju_warning messages: {len(self.warnings)}",
    ]
    for msg in self.warnings[:5]:
      lines.append(f"  warning: {msg.strip()}")
    growth = self.rss_growth()
    first = f"{self.rss[0][1] / 1024:.1f} MB" if self.rss else "n/a"
    lines.append(
        f"memory             RSS {self.rss_start / 1024:.1f} MB at the start, {first} after "
        f"the first cycle, {status_kb('VmRSS') / 1024:.1f} MB now, peak (VmHWM) "
        f"{status_kb('VmHWM') / 1024:.1f} MB; growth after the first cycle "
        f"{'n/a (fewer than 3 cycles)' if growth is None else f'{growth:+.2f} MB/h'}")
    radius = float(self.g.radii.max())
    for k, (v, when) in self.worst.items():
      where = f"at t = {when[0]:.3f} s, cycle {when[1] + 1}, {when[2]}" if when else "never"
      lines.append(f"worst penetration  {k:6s} {v * 1e3:+.3f} mm ({v / radius:+.3f} radii) {where}")
    return "\n".join(lines) + "\n"

  def write(self):
    text = self.report()
    if self.args.report:
      os.makedirs(os.path.dirname(os.path.abspath(self.args.report)), exist_ok=True)
      tmp = self.args.report + ".tmp"
      with open(tmp, "w") as f:
        f.write(text)
      os.replace(tmp, self.args.report)
    return text


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--minutes", type=float, default=60, help="wall time to dig for [min] (60)")
  p.add_argument("--settle", type=float, default=0.5, help="settling time of the bed [s] (0.5)")
  p.add_argument("--report", default=os.path.join(ROOT, "out", "soak", "report.txt"),
                 help="report file, rewritten after every cycle (out/soak/report.txt)")
  args = p.parse_args()

  mjgranular.load_plugin()
  spec, source = franka_scene.build("quick")
  config = spec.plugins[0].config
  density = float(config["density"])
  model = spec.compile()
  data = mujoco.MjData(model)
  grains = mjgranular.grains(model, data)
  box, wall_top, _ = franka_scene.BEDS["quick"]
  radius = float(grains.radii.max())
  penetration = Penetration(model, model.geom(franka_scene.SCOOP).id)
  soak = Soak(args, model, data, grains, density, box, wall_top)
  mujoco.set_mju_user_warning(lambda msg: (soak.warnings.append(msg),
                                           print(f"soak: warning: {msg}", flush=True)))
  print(f"soak: {grains.count} grains, step {model.opt.timestep * 1e3:g} ms; Panda: {source}; "
        f"{args.minutes:g} min", flush=True)

  controller = excavate.Controller(model, franka_scene.PREFIX + "centre")
  path = excavate.Path(None, args.settle)
  _, pos, pitch, _, _ = path(0.0)
  controller.place(data, pos, excavate.pitch_matrix(pitch))

  def run(path):
    """Steps along path to its end, or until the wall time is up: (the most grains in the scoop
    during its hold, whether it reached the end)."""
    carried = 0
    while data.time < path.end - 1e-9:
      if time.perf_counter() > end:
        return carried, False
      phase = path(data.time)[0]
      controller.command(data, path)
      before = data.time
      mujoco.mj_step(model, data)
      mujoco.mj_kinematics(model, data)   # the end-of-step pose, where the grains now are
      soak.after_step(before, phase, penetration)
      if phase == "hold":
        carried = max(carried, int(excavate.in_bucket(model, data, grains.positions,
                                                      radius).sum()))
    return carried, True

  end = soak.start + 60 * args.minutes
  run(path)   # the bed settles
  soak.settle_spilled = int(soak.spilled().sum())
  while time.perf_counter() < end:
    surface = excavate.bed_surface(grains.positions, box, radius)
    dig = excavate.Path(surface, data.time)
    carried, done = run(dig)
    if not (done and run(return_path(data.time, dig.knots[-1][2]))[1]):
      break
    soak.after_cycle(carried)
    soak.write()
    print(f"soak: cycle {soak.cycles}: t = {data.time:.2f} s, {soak.steps} steps, {carried} "
          f"grains carried, {int(soak.spilled().sum())} spilled, RSS "
          f"{status_kb('VmRSS') / 1024:.1f} MB",
          flush=True)
  print(soak.write(), end="", flush=True)


if __name__ == "__main__":
  main()
