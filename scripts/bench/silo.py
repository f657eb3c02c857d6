#!/usr/bin/env python3
"""Silo discharge by grain shape (the seed's Fig. 5 in 3D): spheres, cubes and 3D crosses of one
volume through one orifice, mjgranular through MuJoCo.

    .venv/bin/python scripts/bench/silo.py [--shapes sphere,cube,cross] [--orifice 4] \
        [--plugin build/plugin/libmjgranular.so]

Writes OUT/silo.md (also printed), OUT/silo.json and OUT/silo.png (OUT: --out, default out/silo).

The scene: a flat-bottomed square silo (--width inner diameters wide, walls of box geoms) whose
floor is 16 box geoms around a regular 16-gon orifice (--orifice: the diameter of the circle of
the same area, in diameters d of the grains' volume sphere), closed by a plate flush with the
floor: a box on a horizontal slide (coupling one-way, as repose.py's tube). --grains grains of
one shape (grain_shapes.py: the volume of a sphere of radius 5 mm, density 2500 kg/m^3,
friction 0.5 between grains and on every wall, rolling and torsional friction 0; mesh grains
clumps of at most --clump-spheres spheres) start at rest on a jittered cubic lattice spaced by
the meshes' reach, the same positions for every shape, turned at random, and settle on the plate
until every grain is slower than 2 cm/s (at least 1 s). The bulk density is measured then: the
grains' mass with centres in the core (2 d from the walls, from 1 d above the floor to 2 d below
the 90th percentile of the centres' heights) over its volume. The plate then jumps 1 m aside.
Every 0.02 s the grains whose centres have fallen a diameter below the floor count as
discharged; the run ends when all are out, when none has left for 1.5 s, or at --tmax. The flow
rate is the slope of the discharged mass against time while 10% to 60% of what left in the end
had left (the orifice fed from above, before a crater forms). A run that stops with 3 or more
grains over the orifice (centres within the orifice's radius of its axis, less than 3 d above
the floor; one grain lying at the rim is no arch) stopped on an arch: clogged; one that stops
with the orifice clear has drained to the dead zones its grains' slope leaves on the flat floor.

Beverloo's law, W = C rho_b sqrt(g) (D - k d)^2.5 with C 0.58 and k 1.4 to 1.5 (3D, circular
orifice), is evaluated with the measured bulk density and D the equal-area diameter. The silo
is narrower than the law assumes (wider than 2.5 D, but not than D + 30 d; Mankoc et al.,
Granular Matter 2007, doi:10.1007/s10035-007-0062-2) and filled to under its width (the
pressure at the floor saturates above about 1.2 widths, ibid.): a bench of a size one core runs
in minutes, not a calibration.
"""

import argparse
import json
import math
import os
import subprocess
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository

import grain_shapes  # (meshes of one volume, the initial grains' writer)
from peer_scene import DENSITY, FRICTION, GRAVITY, RADIUS

D = 2 * RADIUS           # the volume sphere's diameter [m]
SIDES = 16               # of the orifice polygon
FLOOR_T = D              # floor thickness [m]
RECORD = 0.02            # discharge record interval [s]
STALL = 1.5              # no grain out for this long [s]: the flow has stopped
V_REST = 0.02            # settled: every grain slower than this [m/s]
SETTLE = (1.0, 3.0)      # settling time min / max [s]
ARCH = 3                 # grains over the orifice that a stop must leave to count as a clog
BEVERLOO_C = 0.58
BEVERLOO_K = (1.4, 1.5)


def orifice_apothem(a):
  """the 16-gon's inscribed radius [m] for an equal-area diameter of a.orifice d."""
  area = math.pi / 4 * (a.orifice * D) ** 2
  return math.sqrt(area / (SIDES * math.tan(math.pi / SIDES)))


def mjcf(a, kind, wall_h):
  """floor boxes, each in the half-plane outside one side of the orifice, reaching past the silo's
  corners; four walls; the plate in the orifice on a slide along x; an empty terrain of grains of
  kind (grain_shapes.split) under contact model a.model (pj at a 5e-4 s substep, or dem at its
  defaults and default substep)."""
  shape, fields = grain_shapes.split(kind)
  w, ap = a.width * D, orifice_apothem(a)
  fr = 'friction="%g 0 0"' % FRICTION
  geoms = []
  for k in range(SIDES):
    phi = 2 * math.pi * k / SIDES
    rr = ap + 0.5 * w
    geoms.append('<geom type="box" size="%.9g %.9g %.9g" pos="%.9g %.9g %.9g" euler="0 0 %.9g" '
                 '%s/>' % (0.5 * w, w, 0.5 * FLOOR_T, rr * math.cos(phi), rr * math.sin(phi),
                           -0.5 * FLOOR_T, math.degrees(phi), fr))
  for k in range(4):
    phi = 0.5 * math.pi * k
    rr = 0.5 * w + RADIUS
    geoms.append('<geom type="box" size="%.9g %.9g %.9g" pos="%.9g %.9g %.9g" euler="0 0 %.9g" '
                 '%s/>' % (RADIUS, 0.5 * w + 2 * RADIUS, 0.5 * wall_h, rr * math.cos(phi),
                           rr * math.sin(phi), 0.5 * wall_h, math.degrees(phi), fr))
  keys = [("count", a.grains), ("radius", RADIUS), ("density", DENSITY), ("friction", FRICTION),
          ("rolling_friction", 0), ("torsional_friction", 0), ("model", a.model),
          ("coupling", "one-way"), ("backend", "cpu")]
  keys += [("timestep", 5e-4)] if a.model == "pj" else []
  keys += grain_shapes.config(shape, a.clump_spheres, fields)
  return """<mujoco model="silo">
  <option timestep="0.002" gravity="0 0 -%g"/>
  <asset>%s</asset>
  <extension>
    <plugin plugin="mjgranular.terrain">
      <instance name="grains">
%s
      </instance>
    </plugin>
  </extension>
  <worldbody>
    <plugin instance="grains"/>
    %s
    <body name="plate" gravcomp="1">
      <joint name="open" type="slide" axis="1 0 0"/>
      <geom type="box" size="%.9g %.9g %.9g" pos="0 0 %.9g" %s contype="2" conaffinity="2"/>
    </body>
  </worldbody>
</mujoco>
""" % (GRAVITY, grain_shapes.asset(shape),
       "\n".join('        <config key="%s" value="%s"/>' % kv for kv in keys),
       "\n    ".join(geoms), ap + D, ap + D, 0.5 * FLOOR_T, -0.5 * FLOOR_T, fr)


def initial_grains(a, reach):
  """a jittered cubic lattice 2.1 reach apart in the silo, from the floor up, seeded."""
  s = 2.1 * reach
  span = a.width * D - 2.1 * reach
  m = int(span / s) + 1
  rng = np.random.default_rng(a.seed)
  layers = math.ceil(a.grains / m ** 2)
  ii, jj, kk = np.meshgrid(np.arange(m), np.arange(m), np.arange(layers), indexing="ij")
  pos = np.column_stack([(ii.ravel() - 0.5 * (m - 1)) * s, (jj.ravel() - 0.5 * (m - 1)) * s,
                         1.05 * reach + kk.ravel() * s])
  pos = pos[np.argsort(pos[:, 2], kind="stable")][:a.grains]
  return pos + rng.uniform(-0.025, 0.025, pos.shape) * s


def run(a, shape, pos0):
  import mujoco
  import mjgranular
  mjgranular.load_plugin()
  wall_h = pos0[:, 2].max() + 3 * D
  m = mujoco.MjModel.from_xml_string(mjcf(a, shape, wall_h))
  d = mujoco.MjData(m)
  g = mjgranular.grains(m, d)
  grain_shapes.place(g, pos0, grain_shapes.split(shape)[0], np.random.default_rng(a.seed))
  n, mass = len(pos0), DENSITY * grain_shapes.VOLUME
  w0, c0 = time.perf_counter(), time.process_time()

  def advance(seconds):
    for _ in range(max(1, round(seconds / m.opt.timestep))):
      mujoco.mj_step(m, d)
    if not np.isfinite(g.positions).all():
      raise FloatingPointError("non-finite grains at t = %g s" % d.time)

  def progress(what):
    # a line every --progress simulated seconds: a run of an hour shows how far it got
    if a.progress > 0 and d.time + 1e-9 >= progress.next:
      print("silo:   t %.2f s, %s, %.0f s wall" % (d.time, what, time.perf_counter() - w0),
            flush=True)
      progress.next = d.time + a.progress
  progress.next = a.progress

  # settle on the closed plate
  while d.time < SETTLE[1] - 1e-9:
    advance(0.05)
    v = np.sqrt((g.velocities ** 2).sum(axis=1)).max()
    progress("settling, fastest grain %.3g m/s" % v)
    if d.time >= SETTLE[0] - 1e-9 and v < V_REST:
      break
  p = np.array(g.positions)
  z90 = float(np.percentile(p[:, 2], 90))
  half = 0.5 * a.width * D - 2 * D
  core = (np.abs(p[:, 0]) < half) & (np.abs(p[:, 1]) < half) & (p[:, 2] > D) & \
         (p[:, 2] < z90 - 2 * D)
  bulk = core.sum() * mass / ((2 * half) ** 2 * (z90 - 3 * D))
  opened = d.time

  # open, then record the grains out
  d.qpos[0] = 1.0
  below = -FLOOR_T - D
  t, out = [0.0], [0]
  last = 0.0
  while d.time - opened < a.tmax - 1e-9:
    advance(RECORD)
    k = int((g.positions[:, 2] < below).sum())
    t.append(d.time - opened)
    out.append(k)
    if k > out[-2]:
      last = t[-1]
    progress("%.1f%% out" % (100.0 * k / n))
    if k == n or t[-1] - last >= STALL:
      break
  p = np.array(g.positions)
  inside = p[:, 2] >= below
  over = inside & (np.hypot(p[:, 0], p[:, 1]) < orifice_apothem(a)) & (p[:, 2] < 3 * D)
  frac = np.array(out) / n
  return {"shape": shape, "n": n, "bulk_density": float(bulk), "packing": float(bulk / DENSITY),
          "core_grains": int(core.sum()), "settle_time": opened, "time": t,
          "fraction": frac.tolist(), "discharged": float(frac[-1]), "last_out": last,
          "stopped": bool(frac[-1] < 1 and t[-1] - last >= STALL),
          "over_orifice": int(over.sum()), "left": int(inside.sum()), "sim_time": d.time,
          "wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0,
          "load_1min": os.getloadavg()[0], "bound_radius": float(g.radii.max())}


def clogged(r):
  """whether a run stopped on an arch over the orifice."""
  return r["stopped"] and r["over_orifice"] >= ARCH


def flow_rate(r):
  """the slope of the discharged mass [kg/s] while 10% to 60% of what left in the end had left
  (the steady part: the orifice fed from above, no crater yet), and that window [s]; None when
  under a fifth of the grains left (too few for a rate) or under 3 records fall in it."""
  t, frac = np.array(r["time"]), np.array(r["fraction"])
  win = (frac >= 0.1 * frac[-1]) & (frac <= 0.6 * frac[-1]) & (frac > 0)
  if frac[-1] < 0.2 or win.sum() < 3:
    return None, None
  mass = r["n"] * DENSITY * grain_shapes.VOLUME
  return float(np.polyfit(t[win], frac[win] * mass, 1)[0]), [float(t[win].min()),
                                                              float(t[win].max())]


def beverloo(a, rho_b):
  """Beverloo's mass flow rate [kg/s] at k = each of BEVERLOO_K."""
  return [BEVERLOO_C * rho_b * math.sqrt(GRAVITY) * ((a.orifice - k) * D) ** 2.5
          for k in BEVERLOO_K]


def fmt(v, f="%.3g"):
  return "-" if v is None else f % v


def report(res, out):
  a = argparse.Namespace(**res["args"])
  L = ["# Silo discharge by grain shape (mjgranular)\n",
       "Written by `scripts/bench/silo.py` on %s. A square silo %g d wide, a 16-gon orifice of "
       "equal-area diameter D = %g d in its flat floor, d = %g mm (the grains' volume sphere), "
       "%d grains, density %g kg/m^3, friction %g, rolling friction 0; mesh grains clumps of at "
       "most %d spheres (SHAPE:cem: meeting each other by their contact fields); model %s. Flow "
       "rate: slope of the discharged mass from 10%% to 60%% of what left in the end.\n"
       % (res["date"], a.width, a.orifice, 1000 * D, a.grains, DENSITY, FRICTION,
          a.clump_spheres, getattr(a, "model", "pj")),
       "| shape | settled [s] | bulk density [kg/m^3] (packing) | flow rate [kg/s] | [grains/s] "
       "| over [s] | discharged | flow stopped at [s] | left over the orifice | clogged | "
       "simulated [s] | wall [s] | load |",
       "|---|---:|---|---:|---:|---|---:|---|---:|---|---:|---:|---:|"]
  mass = DENSITY * grain_shapes.VOLUME
  for r in res["runs"]:
    if r.get("failed"):
      L.append("| %s | failed: %s |" % (r["shape"], r["why"]))
      continue
    rate, win = flow_rate(r)
    L.append("| %s | %.2f | %.0f (%.3f) | %s | %s | %s | %.1f%% | %s | %d | %s | %.2f | %.0f | "
             "%.1f |"
             % (r["shape"], r["settle_time"], r["bulk_density"], r["packing"], fmt(rate),
                fmt(rate and rate / mass, "%.0f"),
                "%.2f - %.2f" % tuple(win) if win else "-", 100 * r["discharged"],
                "%.2f" % r["last_out"] if r["stopped"] else "no (ran %.2f)" % r["time"][-1],
                r["over_orifice"], "yes" if clogged(r) else "no",
                r["sim_time"], r["wall_s"], r["load_1min"]))
  for r in res["runs"]:
    rate = None if r.get("failed") else flow_rate(r)[0]
    if rate:
      b = beverloo(a, r["bulk_density"])
      L.append("\n- %s: Beverloo at the measured bulk density, C %g, k %s: %s kg/s; measured / "
               "Beverloo %s." % (r["shape"], BEVERLOO_C, " / ".join("%g" % k for k in BEVERLOO_K),
                                 " / ".join("%.3g" % x for x in b),
                                 " / ".join("%.2f" % (rate / x) for x in b)))
  v = res["versions"]
  L.append("\nmjgranular %s, mujoco %s, 1 OpenMP thread; seed %d.\n"
           % (v.get("git"), v.get("mujoco"), res["seed"]))
  text = "\n".join(L)
  with open(os.path.join(out, "silo.md"), "w") as f:
    f.write(text)
  return text


def plot(res, out):
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  fig, ax = plt.subplots(figsize=(6.5, 4.5))
  for r in res["runs"]:
    if not r.get("failed"):
      ax.plot(r["time"], r["fraction"], label="%s%s" % (
        r["shape"], " (clogged)" if clogged(r) else " (drained)" if r["stopped"] else ""))
  ax.set_xlabel("time since opening [s]")
  ax.set_ylabel("discharged fraction")
  ax.set_ylim(0, 1.02)
  ax.grid(True, alpha=0.3)
  ax.legend(fontsize=8)
  ax.set_title("orifice %g d, %d grains" % (res["args"]["orifice"], res["args"]["grains"]),
               fontsize=10)
  fig.tight_layout()
  fig.savefig(os.path.join(out, "silo.png"), dpi=120)
  plt.close(fig)


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--shapes", default=",".join(grain_shapes.SHAPES),
                  help="comma list (a mesh shape:cem: meeting by its contact fields)")
  ap.add_argument("--model", default="pj", choices=("pj", "dem"),
                  help="the contact model (dem at its defaults; cem needs it)")
  ap.add_argument("--grains", type=int, default=1500)
  ap.add_argument("--orifice", type=float, default=4.0, help="equal-area diameter [d]")
  ap.add_argument("--width", type=float, default=12.0, help="silo inner width [d]")
  ap.add_argument("--clump-spheres", type=int, default=8)
  ap.add_argument("--tmax", type=float, default=15.0, help="longest discharge [s]")
  ap.add_argument("--seed", type=int, default=20251124)
  ap.add_argument("--threads", type=int, default=1,
                  help="openmp threads of the solver (the tables above: 1)")
  ap.add_argument("--progress", type=float, default=0.5,
                  help="a progress line every this many simulated seconds (0: none)")
  ap.add_argument("--out", default=os.path.join(ROOT, "out", "silo"))
  ap.add_argument("--plugin", help="plugin library (default: $MJGRANULAR_PLUGIN, else the build's)")
  ap.add_argument("--report-only", action="store_true", help="table and plot from OUT/silo.json")
  a = ap.parse_args()
  shapes = [s for s in a.shapes.split(",") if s]
  for s in shapes:
    try:
      grain_shapes.split(s)
    except ValueError as e:
      ap.error(str(e))
  if a.threads < 1:
    ap.error("--threads must be >= 1")
  os.environ["OMP_NUM_THREADS"] = str(a.threads)  # before the plugin's openmp runtime loads
  os.environ.setdefault("OMP_WAIT_POLICY", "passive")
  if a.plugin:
    os.environ["MJGRANULAR_PLUGIN"] = os.path.abspath(a.plugin)
  out = os.path.abspath(a.out)
  os.makedirs(out, exist_ok=True)
  saved = os.path.join(out, "silo.json")
  if a.report_only:
    res = json.load(open(saved))
  else:
    import mujoco
    git = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    args = {k: v for k, v in vars(a).items()
            if k not in ("out", "plugin", "report_only", "progress")}
    res = {"date": time.strftime("%Y-%m-%d %H:%M"), "seed": a.seed, "args": args,
           "versions": {"git": git, "mujoco": mujoco.__version__}, "runs": []}
    # the same start for every shape, spaced by the largest reach
    pos0 = initial_grains(a, max(grain_shapes.reach(s) for s in grain_shapes.SHAPES))
    for shape in shapes:
      print("silo: %s, %d grains ..." % (shape, a.grains), flush=True)
      try:
        row = run(a, shape, pos0)
      except (ValueError, FloatingPointError) as e:
        row = {"shape": shape, "failed": True, "why": " / ".join(str(e).strip().splitlines())}
      res["runs"].append(row)
      if not row.get("failed"):
        print("silo:   %.1f%% out, rate %s kg/s, %.0f s wall"
              % (100 * row["discharged"], fmt(flow_rate(row)[0]), row["wall_s"]), flush=True)
      with open(saved, "w") as f:
        json.dump(res, f, indent=1)
  try:
    plot(res, out)
  except ImportError as e:
    print("silo: plot skipped: %s (scripts/bench.sh installs matplotlib)" % e, flush=True)
  print(report(res, out))


if __name__ == "__main__":
  main()
