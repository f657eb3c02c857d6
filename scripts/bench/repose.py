#!/usr/bin/env python3
"""Angle of repose of a heap from a lifted cylinder: mjgranular against LIGGGHTS, side by side.

    .venv/bin/python scripts/bench/repose.py                 # mu_r 0, 0.1, 0.3, both codes
    .venv/bin/python scripts/bench/repose.py --quick         # 1000 grains, faster lift (smoke test)
    .venv/bin/python scripts/bench/repose.py --codes mjgranular \
        --plugin build/plugin/libmjgranular.so
    .venv/bin/python scripts/bench/repose.py --shapes sphere,cube,cross --threads 1

Writes OUT/repose.md (also printed), OUT/repose.json and OUT/repose.png (OUT: --out,
default out/repose); LIGGGHTS' inputs, logs and dumps go to OUT/work.

--shapes: the same release and measurement for grains of other shapes, mjgranular only
(OUT/repose_shapes.md and .json, default OUT out/repose_shapes): 1000 grains (--grains) of the
volume of a sphere of radius 5 mm (grain_shapes.py: spheres, cubes, 3D crosses), friction 0.5,
rolling friction 0 (a clump resists rolling by its shape, so the shape is the only difference),
mesh grains rigid clumps of at most 8 spheres (CLUMP_SPHERES), in a cylinder of radius 6
diameters. One initial set for every shape, no two centres closer than twice the largest reach
of a mesh from its centre (7 mm), the meshes turned at random. A mesh grain's radius in the state
is its bounding radius, so z + r would put every mesh grain's top where a corner pointing up
would be; the tops are measured instead from each grain's mesh as the plugin draws it
(grain_shapes.tops), and the angle of z + r is kept as a cross-check.

The scene, the same in both codes: 3500 grains of radius 5 mm and density 2500 kg/m^3 (1000 with
--quick), Coulomb friction 0.5 between grains and between grains and every wall, rolling
friction mu_r between grains and on the floor, no torsional friction, gravity 9.81 m/s^2. One
initial grain set (random sequential addition at packing 0.33 inside a vertical cylinder of
radius 7 diameters standing on a flat floor, seeded, at rest) is written once and read by both
codes. The grains fall into the cylinder and settle there (a column about 2.8 cylinder radii
tall); once at rest the cylinder is lifted at --lift-speed (default 0.025 m/s) until its
bottom is a diameter above the highest grain, then removed: the grains flow out under its
rising rim and build the heap. The cylinder is a 32-sided tube with flat inner faces at the
cylinder radius in both codes: in LIGGGHTS a mesh wall (`fix mesh/surface` of an stl written
here, `fix wall/gran ... mesh`, lifted by `fix move/mesh ... linear`), in mjgranular a body of
32 boxes on a vertical slide joint whose velocity is set (terrain coupling one-way: the grains
see the tube's velocity, so it drags them by friction as the moving mesh does). With
--lift-speed 0 the cylinder is removed at once instead (LIGGGHTS: `unfix` of a `zcylinder`
primitive wall; mjgranular: the tube jumps 5 m up): a column collapse, which spreads further
and leaves a much lower angle. The run goes on until the heap is at rest, the same test in
both: every grain above the floor layer (centre higher than 2 radii) slower than 1 cm/s,
checked every 0.05 s after a minimum time (else a time limit ends the run, and the report says
so). The floor layer is left out because a sphere that rolls off the heap onto a flat floor
without rolling resistance never stops (rolling dissipates nothing).

The angle, measured identically on each code's final positions (heap_profile below):
- heap axis: the horizontal centroid of the grains above the floor layer;
- profile: grains binned by the horizontal distance of their centre from the axis, bins one
  radius wide; each bin's height is its highest grain top (z + r);
- heap radius R: walking out from the axis, the outer edge of the last bin (without a gap)
  whose top stands higher than 3 radii, i.e. more than one grain layer (rolled-out grains lie
  one layer deep and so do not count);
- heap height H: the highest bin top within R;
- the slope: a least-squares line through the bins within R whose tops lie between 0.2 H and
  0.8 H, outside the last bin that stands above 0.8 H (clear of the apex, of a flat top that a
  column which did not fully slump keeps, and of the toe); angle = atan(-slope), fit
  residual = RMS distance of the bin tops from the line.
Also kept in the json, as cross-checks: the angle of the line through the bins between 0.2 R
and 0.8 R (the same as the above on a clean cone, wrong on a flat-topped heap) and the cone
angle atan(H / R).

Expected: real sand heaps at about 20-25 degrees without added rolling resistance, and the
angle rises with rolling friction (towards 30-35 degrees at mu_r 0.3); both codes should
follow that. Caveat for mu_r 0: sand's angular grains resist rolling by their shape, ideal
spheres do not, and on this flat floor LIGGGHTS' spheres with mu_r 0 form no heap at all (the
bottom grains roll out and the column spreads to one or two layers, as DEM studies of sandpiles
without rolling friction report), so mjgranular's rotating spheres should spread there too.
Grains that cannot rotate act as if the rolling resistance were infinite, so mjgranular before
grain rotation heaps too steeply whatever mu_r (measured: 61.9 degrees at 0.025 m/s, 56.8 at
0.05 m/s; the column keeps a flat top).

The angle depends on the release, so compare the codes at one lift speed. LIGGGHTS, measured
here (3500 grains, 2 ranks), angle at mu_r 0.1 / 0.3: lifted at 0.025 m/s 23.1 / 34.5 degrees
(the default; about 11 s simulated, 3 minutes wall on 2 busy cores), at 0.05 m/s 17.0 / 30.4,
removed at once 7.4 / 14.5; at mu_r 0 no heap at any of the three. Whether lifting slower
than 0.025 m/s steepens it further is not measured: the default is a compromise with run time.

LIGGGHTS: Hertz-Mindlin with tangential history (`pair_style gran model hertz tangential
history`), E = 5e6 Pa, Poisson 0.3, restitution 0.3, timestep 1e-4 s (16% of the Rayleigh
time, checked by `fix check/timestep/gran`): the conventions of scripts/bench/peers.py, whose
constants and read_data writer (peer_scene.py) and process runner (peer_runs.py) are imported.
For mu_r > 0 it adds `rolling_friction epsd2` with `coefficientRollingFriction` mu_r to the
pair style and to both walls: the elastic-plastic spring-dashpot model (Iwashita and Oda)
whose rolling torque is a spring on the relative rolling angle capped at mu_r |F_n| r_eff, so
it holds a heap statically, the rolling analogue of the Coulomb stick-slip that mjgranular's
bounded rolling moment is; `cdt` (a constant torque opposing the rolling direction) cannot
hold a static torque and chatters at rest. epsd2 has no viscous rolling damping and no torsion
(torsionTorque off by default), like mjgranular with torsional_friction 0. r_eff is r_i r_j /
(r_i + r_j) between grains and r on a wall, as in mjgranular, so the floor's roll friction in
metres is mu_r r.

mjgranular: the MuJoCo plugin from Python, opt.timestep 2e-3 s, granular substep 5e-4 s, 10
Jacobi iterations, CPU backend; the floor a plane geom with friction "0.5 0 mu_r*r" (slide,
spin [m], roll [m]), the terrain keys friction 0.5, rolling_friction mu_r,
torsional_friction 0. The initial grains are written into plugin_state by hand (config key
`count` gives an empty bed of that capacity).
"""

import argparse
import json
import math
import os
import re
import subprocess
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository

import grain_shapes  # (meshes of one volume, their tops)
import peer_runs  # (the process runner)
import peer_scene  # (the peers' model constants, read_data writer)
from peer_scene import (DENSITY, FRICTION, GRAVITY, PEER_DT, POISSON, RADIUS,  # noqa
                        RESTITUTION, SKIN, YOUNG)

SEED = 20251019
INIT_PACKING = 0.33      # random sequential addition (jams near 0.38)
COLUMN_PACKING = 0.60    # assumed settled packing, to size the cylinder's wall
WALL_SIDES = 32          # boxes of mjgranular's polygonal tube
WALL_THICK = 2 * RADIUS  # [m]
LIFT_SPEED = 0.025       # the cylinder's lifting speed [m/s] (default; 0: removed at once)
LIFT = 5.0               # how far the tube jumps up when removed at once [m]
V_REST = 0.01            # at rest: grains above the floor layer slower than this [m/s]
Z_FLOOR_LAYER = 2 * RADIUS  # centres below this are the floor layer (left out of the rest test)
CHECK = 0.05             # rest test interval [s]
BOX = 1.0                # liggghts' domain is +-BOX in x and y [m]; grains leaving it are lost

SIZES = {  # grains, cylinder radius [diameters]; times [s]: fill min/max, heap min/max
  "full": dict(n=3500, rc_d=7, fill=(0.5, 1.5), heap=(0.6, 4.0)),
  "quick": dict(n=1000, rc_d=5, fill=(0.4, 1.0), heap=(0.5, 2.0)),
  # the initial set spaced by the meshes' reach is 2.7 times as tall: longer to fill
  "shapes": dict(n=1000, rc_d=6, fill=(0.8, 2.0), heap=(0.6, 4.0)),
}
CLUMP_SPHERES = 8        # spheres per mesh grain (--shapes)


def grain_volume():
  return 4.0 / 3.0 * math.pi * RADIUS ** 3


def scene(size, n=None, reach=RADIUS):
  """the cylinder and the initial grain set's extent for this size (a key of SIZES), the
  initial grains kept reach [m] (their bounding radius) apart from each other and the wall."""
  s = dict(SIZES[size])
  if n:
    s["n"] = n
  rc = s.pop("rc_d") * 2 * RADIUS
  inner = rc - 1.05 * reach  # initial centres stay this close to the axis (no wall contact)
  top = 1.05 * reach + s["n"] * (reach / RADIUS) ** 3 * grain_volume() / (
    INIT_PACKING * math.pi * inner ** 2)
  s.update(rc=rc, inner=inner, top=top, wall_h=top + 4 * RADIUS, reach=reach,
           column_h=s["n"] * grain_volume() / (COLUMN_PACKING * math.pi * rc ** 2))
  return s


def initial_grains(sc, seed):
  """random sequential addition of sc['n'] grains in the cylinder (no two touching), seeded."""
  rng = np.random.default_rng(seed)
  d = 2 * sc["reach"]
  cells = {}
  pos = np.empty((sc["n"], 3))
  for i in range(sc["n"]):
    for _ in range(100000):
      # uniform in the disc, uniform in height
      rho = sc["inner"] * math.sqrt(rng.random())
      phi = 2 * math.pi * rng.random()
      p = np.array([rho * math.cos(phi), rho * math.sin(phi),
                    rng.uniform(1.05 * sc["reach"], sc["top"])])
      c = tuple(np.floor(p / d).astype(int))
      near = [j for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1)
              for j in cells.get((c[0] + dx, c[1] + dy, c[2] + dz), ())]
      if not near or np.min(np.sum((pos[near] - p) ** 2, axis=1)) > (1.02 * d) ** 2:
        break
    else:
      raise RuntimeError("random sequential addition jammed at grain %d" % i)
    pos[i] = p
    cells.setdefault(c, []).append(i)
  return pos


# ---- the angle ----------------------------------------------------------------------------------

def line_fit(x, y):
  """least-squares line: slope, intercept, rms residual."""
  slope, icpt = np.polyfit(x, y, 1)
  return float(slope), float(icpt), float(np.sqrt(np.mean((y - slope * x - icpt) ** 2)))


def heap_profile(pos, top=None):
  """the heap's radial profile and the angle fitted to its slope (method in the docstring);
  top: each grain's highest point [m] (default z + r)."""
  r = RADIUS
  body = pos[:, 2] > Z_FLOOR_LAYER
  centre = pos[body, :2].mean(axis=0)
  rho = np.hypot(pos[:, 0] - centre[0], pos[:, 1] - centre[1])
  top = pos[:, 2] + r if top is None else top
  nb = int(rho.max() / r) + 1
  tops = np.full(nb, np.nan)
  np.fmax.at(tops, (rho / r).astype(int), top)
  edges = np.arange(nb + 1) * r
  mids = 0.5 * (edges[:-1] + edges[1:])
  # heap radius: last bin, contiguous from the axis, holding more than one grain layer
  last = 0
  while last < nb and tops[last] > 3 * r:
    last += 1
  big_r = edges[last]
  heap = np.arange(nb) < last
  big_h = float(np.max(tops[heap])) if last else float("nan")
  # the slope: bins of the heap outside the last one above 0.8 of its height and above 0.2 of
  # it (clear of the apex, a flat top and the toe; a dip at the axis, where a bin holds few
  # grains, is not slope); the radius window 0.2 R .. 0.8 R is kept as a cross-check
  idx = np.arange(nb)
  crest = idx[heap & (tops > 0.8 * big_h)].max() if last else 0
  sel = heap & (idx > crest) & (tops >= 0.2 * big_h)
  by_r = heap & (mids >= 0.2 * big_r) & (mids <= 0.8 * big_r)
  out = {"centre": centre.tolist(), "heap_radius": big_r, "heap_height": big_h,
         "bin_mid": mids.tolist(),
         "bin_top": [None if not np.isfinite(t) else float(t) for t in tops],
         "fit_bins": int(sel.sum()), "outside": int((rho > big_r).sum()),
         "max_top": float(top.max()), "spread_r90": float(np.percentile(rho, 90)),
         "cone_angle": math.degrees(math.atan2(big_h, big_r)) if last else None,
         "angle": None, "residual": None, "slope": None, "intercept": None,
         "angle_radius_window": None, "residual_radius_window": None}
  if sel.sum() >= 3:
    slope, icpt, res = line_fit(mids[sel], tops[sel])
    out.update(angle=math.degrees(math.atan(-slope)), slope=slope, intercept=icpt, residual=res,
               fit_range=[float(mids[sel].min()), float(mids[sel].max())])
  if by_r.sum() >= 3:
    slope, _, res = line_fit(mids[by_r], tops[by_r])
    out.update(angle_radius_window=math.degrees(math.atan(-slope)), residual_radius_window=res)
  return out


def final_file(work, code, mu_r, shape=None):
  """where a run's final grain positions are kept (n x 3, .npy; --shapes: n x 4, the tops last)."""
  tag = "_" + shape.replace(":", "-") if shape else ""
  return os.path.join(work, "%s_mu%g%s_final.npy" % ("mjg" if code == "mjgranular" else "lig",
                                                     mu_r, tag))


# ---- liggghts ------------------------------------------------------------------------------------

def liggghts_model(mu_r):
  """the contact model words of pair_style gran and fix wall/gran."""
  return "model hertz tangential history" + (" rolling_friction epsd2" if mu_r > 0 else "")


def write_tube_stl(path, sc):
  """the cylinder as an ascii stl for liggghts' mesh wall: the same 32-sided tube as mjgranular's
  boxes (flat faces at rc from the axis), from z = 0 to the wall's top, in rows about a
  diameter and a half tall so no triangle is a long sliver."""
  n = WALL_SIDES
  rv = sc["rc"] / math.cos(math.pi / n)  # vertices, so the faces stand at rc
  rows = max(1, math.ceil(sc["wall_h"] / (3 * RADIUS)))
  zs = np.linspace(0, sc["wall_h"], rows + 1)
  with open(path, "w") as f:
    f.write("solid tube\n")
    for k in range(n):
      a0, a1 = 2 * math.pi * (k - 0.5) / n, 2 * math.pi * (k + 0.5) / n
      p0 = (rv * math.cos(a0), rv * math.sin(a0))
      p1 = (rv * math.cos(a1), rv * math.sin(a1))
      nx, ny = -math.cos(2 * math.pi * k / n), -math.sin(2 * math.pi * k / n)  # inward
      for z0, z1 in zip(zs[:-1], zs[1:]):
        for tri in (((p0, z0), (p1, z0), (p1, z1)), ((p0, z0), (p1, z1), (p0, z1))):
          f.write(" facet normal %.9g %.9g 0\n  outer loop\n" % (nx, ny))
          for (x, y), z in tri:
            f.write("   vertex %.9g %.9g %.9g\n" % (x, y, z))
          f.write("  endloop\n endfacet\n")
    f.write("endsolid tube\n")


def liggghts_input(sc, mu_r, tag, lift_speed):
  model = liggghts_model(mu_r)
  chunk = int(round(CHECK / PEER_DT))

  def until_rest(name, tmin, tmax):
    # run tmin, then chunks until the rest test passes or tmax is reached
    return ["run %d" % round(tmin / PEER_DT),
            "variable %s loop %d" % (name, max(1, math.ceil((tmax - tmin) / CHECK))),
            "label %s_loop" % name,
            'if "${vtop} < %g" then "jump SELF %s_done"' % (V_REST, name),
            "run %d" % chunk,
            "next %s" % name,
            "jump SELF %s_loop" % name,
            "label %s_done" % name]

  dump = "write_dump all custom %s_%%s.dump id x y z vx vy vz modify sort id" % tag
  lines = [
    "atom_style granular", "atom_modify map array", "boundary f f f", "newton off",
    "communicate single vel yes", "units si",
    "read_data %s_init.data" % tag,
    "neighbor %g bin" % SKIN, "neigh_modify delay 0",
    "fix m1 all property/global youngsModulus peratomtype %g" % YOUNG,
    "fix m2 all property/global poissonsRatio peratomtype %g" % POISSON,
    "fix m3 all property/global coefficientRestitution peratomtypepair 1 %g" % RESTITUTION,
    "fix m4 all property/global coefficientFriction peratomtypepair 1 %g" % FRICTION]
  if mu_r > 0:
    lines.append("fix m5 all property/global coefficientRollingFriction peratomtypepair 1 %g"
                 % mu_r)
  lines += [
    "pair_style gran %s" % model, "pair_coeff * *",
    "timestep %g" % PEER_DT,
    "fix grav all gravity %g vector 0 0 -1" % GRAVITY,
    "fix floor all wall/gran %s primitive type 1 zplane 0" % model]
  if lift_speed > 0:
    # a mesh tube that can move (primitive cylinders are infinite and fixed)
    lines += ["fix tube all mesh/surface file tube.stl type 1",
              "fix cyl all wall/gran %s mesh n_meshes 1 meshes tube" % model]
  else:
    lines += ["fix cyl all wall/gran %s primitive type 1 zcylinder %.9g 0 0" % (model, sc["rc"])]
  lines += [
    "fix integ all nve/sphere",
    "fix ts all check/timestep/gran %d 0.2 0.2" % chunk,
    # the rest test: largest speed of the grains above the floor layer
    "variable spd atom (z>%g)*sqrt(vx*vx+vy*vy+vz*vz)" % Z_FLOOR_LAYER,
    "compute vtop all reduce max v_spd",
    "compute ztop all reduce max z",
    "variable vtop equal c_vtop",
    "variable ztop equal c_ztop",
    "thermo_style custom step atoms ke c_vtop c_ztop f_ts[1] f_ts[2] f_ts[3]",
    "thermo %d" % chunk, "thermo_modify lost ignore norm no"]
  lines += until_rest("fill", *sc["fill"])
  lines += [dump % "column", "variable now equal step", 'print "release at step ${now}"']
  if lift_speed > 0:
    # lift until the tube's bottom is a diameter above the highest grain top
    lines += ["variable nlift equal ceil((${ztop}+%g)/%g/%g)" % (3 * RADIUS, lift_speed, PEER_DT),
              "fix lift all move/mesh mesh tube linear 0 0 %g" % lift_speed,
              "run ${nlift}",
              "unfix lift"]
  lines += ["unfix cyl"]
  lines += until_rest("heap", *sc["heap"])
  lines += [dump % "final"]
  return "\n".join(lines) + "\n"


def run_liggghts(sc, pos0, mu_r, a, work):
  tag = "mu%g" % mu_r
  base = os.path.join(work, tag)
  # room above for the lifted tube (mesh elements may not leave the domain)
  peer_scene.write_lammps_data(base + "_init.data", pos0, 2 * BOX, 2 * sc["wall_h"] + 0.1)
  with open(base + ".in", "w") as f:
    f.write(liggghts_input(sc, mu_r, tag, a.lift_speed))
  write_tube_stl(os.path.join(work, "tube.stl"), sc)
  for ext in ("_column.dump", "_final.dump", ".log"):
    if os.path.exists(base + ext):
      os.remove(base + ext)
  env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
             OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
  cmd = ["mpirun", "-np", str(a.threads), "--bind-to", "none", "--mca", "mpi_yield_when_idle",
         "1", "liggghts", "-in", tag + ".in", "-log", tag + ".log",
         # a screen file, not none: the stl reader prints to the screen unchecked
         "-screen", tag + ".screen",
         "-echo", "none"]
  rc, secs, _ = peer_runs.run(cmd, env, work, a.timeout, os.path.join(work, "liggghts.log"))
  cpu = peer_runs.run.cpu
  log = open(base + ".log").read() if os.path.exists(base + ".log") else ""
  loops = re.findall(r"Loop time of ([0-9.eE+-]+) on (\d+) procs for (\d+) steps", log)
  if rc != 0 or not os.path.exists(base + "_final.dump"):
    err = re.findall(r"ERROR.*", log)
    return {"code": "liggghts", "mu_r": mu_r, "failed": True,
            "why": (err[0] if err else "exit %d" % rc) + " (see %s.log)" % base}
  # thermo rows: step atoms ke vtop ztop dt/rayleigh dt/hertz move/skin
  th = [list(map(float, x)) for x in re.findall(
    r"^\s*(\d+)\s+(\d+)" + 6 * r"\s+(\S+)" + r"\s*$", log, re.M)]
  col = np.loadtxt(base + "_column.dump", skiprows=9)
  fin = np.loadtxt(base + "_final.dump", skiprows=9)
  steps = sum(int(s) for _, _, s in loops)
  release = re.search(r"^release at step (\d+)", log, re.M)
  row = {"code": "liggghts", "mu_r": mu_r, "n": len(pos0), "grains_end": len(fin),
         "threads": int(loops[0][1]), "parallel": "%s MPI ranks" % loops[0][1],
         "sim_time": steps * PEER_DT,
         "release_time": int(release.group(1)) * PEER_DT if release else None,
         "wall_s": secs, "loop_s": sum(float(t) for t, _, _ in loops), "cpu_s": cpu,
         "vtop_end": th[-1][3] if th else None,
         "column_height": float(col[:, 3].max() + RADIUS),
         "model": "pair_style gran %s" % liggghts_model(mu_r), "lift_speed": a.lift_speed}
  if th:
    row.update(dt_fraction_rayleigh=max(t[5] for t in th), dt_fraction_hertz=max(t[6] for t in th),
               skin_fraction=max(t[7] for t in th))
  row["profile"] = heap_profile(fin[:, 1:4])
  np.save(final_file(work, "liggghts", mu_r), fin[:, 1:4])
  return row



# ---- mjgranular ----------------------------------------------------------------------------------

def mjcf(sc, mu_r, kind="sphere", model="pj"):
  """the scene: a floor plane, a tube of boxes on a vertical slide, an empty terrain of n grains'
  capacity, every grain of kind (grain_shapes.split), contact model model (pj at a 5e-4 s
  substep, or dem at its defaults and default substep). The tube is the only body and moves
  kinematically (coupling one-way: the grains see its velocity, it feels nothing; gravcomp holds
  it up), as liggghts' moving mesh."""
  shape, fields = grain_shapes.split(kind)
  roll = mu_r * RADIUS  # a geom's roll friction is a length: mu_r times r_eff = r on a wall
  fr = 'friction="%g 0 %.9g"' % (FRICTION, roll)
  half_t = 0.5 * WALL_THICK
  # boxes' inner faces at rc; long enough that neighbours overlap at the corners
  half_w = (sc["rc"] + WALL_THICK) * math.tan(math.pi / WALL_SIDES) + 0.5 * RADIUS
  boxes = []
  for k in range(WALL_SIDES):
    phi = 2 * math.pi * k / WALL_SIDES
    rr = sc["rc"] + half_t
    boxes.append('      <geom type="box" size="%.9g %.9g %.9g" pos="%.9g %.9g %.9g" '
                 'euler="0 0 %.9g" %s contype="2" conaffinity="2"/>'
                 % (half_t, half_w, 0.5 * sc["wall_h"], rr * math.cos(phi), rr * math.sin(phi),
                    0.5 * sc["wall_h"], math.degrees(phi), fr))
  keys = [("count", sc["n"]), ("radius", RADIUS), ("density", DENSITY), ("friction", FRICTION),
          ("rolling_friction", mu_r), ("torsional_friction", 0), ("model", model),
          ("coupling", "one-way"), ("backend", "cpu")]
  keys += [("timestep", 5e-4)] if model == "pj" else []
  keys += grain_shapes.config(shape, CLUMP_SPHERES, fields)
  return """<mujoco model="repose">
  <option timestep="0.002" gravity="0 0 -%g"/>
  <asset>%s</asset>
  <extension>
    <plugin plugin="mjgranular.terrain">
      <instance name="sand">
%s
      </instance>
    </plugin>
  </extension>
  <worldbody>
    <plugin instance="sand"/>
    <geom name="floor" type="plane" size="2 2 0.1" %s contype="1" conaffinity="1"/>
    <body name="tube" gravcomp="1">
      <joint name="lift" type="slide" axis="0 0 1"/>
%s
    </body>
  </worldbody>
</mujoco>
""" % (GRAVITY, grain_shapes.asset(shape),
       "\n".join('        <config key="%s" value="%s"/>' % (k, v) for k, v in keys), fr,
       "\n".join(boxes))


def run_mjgranular(sc, pos0, mu_r, a, work, shape=None):
  import mujoco
  import mjgranular
  mjgranular.load_plugin()  # --plugin: main set MJGRANULAR_PLUGIN
  key = {"code": "mjgranular", "mu_r": mu_r}
  if shape:
    key["shape"] = shape
  try:
    m = mujoco.MjModel.from_xml_string(mjcf(sc, mu_r, shape or "sphere", a.model))
  except ValueError as e:
    return dict(key, failed=True, why=" / ".join(str(e).strip().splitlines()))
  d = mujoco.MjData(m)
  g = mjgranular.grains(m, d)
  # the shared initial grains, at rest, written into the empty bed
  grain_shapes.place(g, pos0, grain_shapes.split(shape or "sphere")[0],
                     np.random.default_rng(a.seed))
  every = max(1, round(CHECK / m.opt.timestep))

  def vtop():
    p, v = g.positions, g.velocities
    up = p[:, 2] > Z_FLOOR_LAYER
    return float(np.sqrt((v[up] ** 2).sum(axis=1)).max()) if up.any() else 0.0

  def until_rest(tmin, tmax):
    t0 = d.time
    while True:
      for _ in range(every):
        mujoco.mj_step(m, d)
      if not np.isfinite(g.positions).all():
        raise FloatingPointError("non-finite grains at t = %g s" % d.time)
      if (d.time - t0 >= tmin - 1e-9 and vtop() < V_REST) or d.time - t0 >= tmax - 1e-9:
        return

  w0, c0 = time.perf_counter(), time.process_time()
  try:
    until_rest(*sc["fill"])
    release = d.time
    column_h = float(g.positions[:, 2].max() + max(RADIUS, g.radii.max()))
    np.save(final_file(work, "mjgranular", mu_r, shape).replace("_final", "_column"),
            np.array(g.positions))
    if a.lift_speed > 0:
      # lift until the tube's bottom is a diameter above the highest grain top (as liggghts)
      steps = math.ceil((column_h + 2 * RADIUS) / a.lift_speed / m.opt.timestep)
      for _ in range(steps):
        d.qvel[0] = a.lift_speed
        mujoco.mj_step(m, d)
    d.qvel[0] = 0
    d.qpos[0] += LIFT  # the tube leaves at once, as liggghts' unfix
    until_rest(*sc["heap"])
  except FloatingPointError as e:
    return dict(key, failed=True, why=str(e))
  wall, cpu = time.perf_counter() - w0, time.process_time() - c0
  fin = np.array(g.positions)
  row = dict(key)
  if shape:
    # tops of the meshes; the profile of z + the bounding radius kept as a cross-check
    top = grain_shapes.tops(m, d, g)
    np.save(final_file(work, "mjgranular", mu_r, shape), np.column_stack([fin, top]))
    row.update(profile_bound=heap_profile(fin, fin[:, 2] + np.array(g.radii)),
               bound_radius=float(g.radii.max()), clump_spheres=CLUMP_SPHERES)
  else:
    top = None
    np.save(final_file(work, "mjgranular", mu_r), fin)
  return dict(row, **{"n": len(pos0), "grains_end": g.count,
          "threads": a.threads, "parallel": "%d OpenMP threads" % a.threads,
          "sim_time": d.time, "release_time": release, "wall_s": wall, "loop_s": wall,
          "cpu_s": cpu, "vtop_end": vtop(), "column_height": column_h,
          "lift_speed": a.lift_speed,
          "plugin": str(mjgranular.load_plugin()),
          "model": "%s, rolling_friction %g, torsional_friction 0, floor roll %g m"
                   % ("projected Jacobi, substep 5e-4 s, 10 iterations" if a.model == "pj" else
                      "dem (hertz, its default E, nu, restitution), substep %.3g s"
                      % mjgranular.timestep(m), mu_r, mu_r * RADIUS),
          "profile": heap_profile(fin, top)})


# ---- report -------------------------------------------------------------------------------------

def fmt(v, f="%.1f"):
  return "-" if v is None else f % v


def report(res, out):
  rows = [r for r in res["runs"]]
  sc = res["scene"]
  L = ["# Angle of repose: mjgranular against LIGGGHTS\n",
       "Written by `scripts/bench/repose.py%s` on %s. %d grains of radius %g mm, "
       "density %g kg/m^3, "
       "sliding friction %g (grain-grain, floor, cylinder), rolling friction mu_r between grains "
       "and on the floor, no torsional friction. Column: a cylinder of radius %.0f mm filled "
       "from a shared random loose set and let settle (column about %.0f mm tall), then %s; "
       "the heap runs until every grain above the floor layer is slower than %g m/s "
       "(checked every %g s). Angle: highest grain top per radial bin (one radius wide) about "
       "the heap's axis; heap radius R: the last bin, contiguous from the axis, over 3 radii "
       "high; heap height H: the highest top within R; line fitted through the bins within R "
       "whose tops lie between 0.2 H and 0.8 H, outside the last bin above 0.8 H; "
       "angle = atan(-slope); residual = RMS of the "
       "bins about the line. Cross-check: the line through the bins between 0.2 R and 0.8 R "
       "(equal on a clean cone, off on a flat-topped heap).\n"
       % (" --quick" if res["quick"] else "", res["date"], sc["n"], 1000 * RADIUS, DENSITY,
          FRICTION, 1000 * sc["rc"], 1000 * sc["column_h"],
          "lifted at %g m/s" % res["lift_speed"] if res["lift_speed"] > 0 else
          "removed at once", V_REST, CHECK),
       "| mu_r | angle mjgranular [deg] | angle LIGGGHTS [deg] | difference [deg] | "
       "fit residual mjg / LIG [mm] | cross-check 0.2-0.8 R mjg / LIG [deg] | "
       "heap radius mjg / LIG [mm] | grains | simulated mjg / LIG [s] | wall mjg / LIG [s] |",
       "|---:|---:|---:|---:|---|---|---|---:|---|---|"]
  by = {(r["code"], r["mu_r"]): r for r in rows}
  for mu in sorted({r["mu_r"] for r in rows}):
    mj, lg = by.get(("mjgranular", mu)), by.get(("liggghts", mu))

    def get(r, *keys):
      if r is None or r.get("failed"):
        return None
      v = r
      for k in keys:
        v = v.get(k) if v is not None else None
      return v
    am, al = get(mj, "profile", "angle"), get(lg, "profile", "angle")
    diff = am - al if am is not None and al is not None else None

    def angle(r, a):
      # a run without a heap (the grains spread flat) says so
      if a is None and get(r, "profile") is not None:
        return "no heap (top %.0f mm)" % (1000 * r["profile"]["max_top"])
      return fmt(a)
    rm = get(mj, "profile", "residual")
    rl = get(lg, "profile", "residual")
    L.append("| %g | %s | %s | %s | %s / %s | %s / %s | %s / %s | %s | %s / %s | %s / %s |"
             % (mu, angle(mj, am), angle(lg, al), fmt(diff, "%+.1f"),
                fmt(rm and 1000 * rm), fmt(rl and 1000 * rl),
                fmt(get(mj, "profile", "angle_radius_window")),
                fmt(get(lg, "profile", "angle_radius_window")),
                fmt(get(mj, "profile", "heap_radius") and 1000 * mj["profile"]["heap_radius"],
                    "%.0f"),
                fmt(get(lg, "profile", "heap_radius") and 1000 * lg["profile"]["heap_radius"],
                    "%.0f"),
                sc["n"], fmt(get(mj, "sim_time"), "%.2f"), fmt(get(lg, "sim_time"), "%.2f"),
                fmt(get(mj, "wall_s")), fmt(get(lg, "wall_s"))))
  L.append("")
  for r in rows:
    if r.get("failed"):
      L.append("- %s, mu_r %g: **failed**: %s" % (r["code"], r["mu_r"], r["why"]))
  L.append("- mjgranular: %s; CPU backend, %s; plugin `%s`."
           % (next((r["model"].split(", rolling")[0] for r in rows
                    if r["code"] == "mjgranular" and not r.get("failed")), "not run"),
              next((r["parallel"] for r in rows if r["code"] == "mjgranular"
                    and not r.get("failed")), "-"),
              next((r["plugin"] for r in rows if r["code"] == "mjgranular"
                    and not r.get("failed")), "-")))
  lig = [r for r in rows if r["code"] == "liggghts" and not r.get("failed")]
  if lig:
    models = {}
    for r in sorted(lig, key=lambda r: r["mu_r"]):
      models.setdefault(r["model"], []).append("%g" % r["mu_r"])
    L.append("- LIGGGHTS: %s; the same model in the `fix wall/gran` of the floor (a `zplane`) "
             "and of the cylinder (a mesh tube lifted by `fix move/mesh`, or a `zcylinder` when "
             "removed at once); `coefficientRollingFriction` mu_r; E %g Pa, Poisson %g, "
             "restitution %g, friction %g, timestep %g s (check/timestep/gran: at most %.0f%% of "
             "the Rayleigh time, %.0f%% of the Hertz time); %s."
             % ("; ".join("mu_r %s: `%s`" % (", ".join(mu), m) for m, mu in models.items()),
                YOUNG, POISSON, RESTITUTION, FRICTION,
                PEER_DT, 100 * max(r.get("dt_fraction_rayleigh", 0) for r in lig),
                100 * max(r.get("dt_fraction_hertz", 0) for r in lig), lig[0]["parallel"]))
  for r in rows:
    if not r.get("failed"):
      p = r["profile"]
      heap = ("heap height %.0f mm, radius %.0f mm (cone angle atan(H/R) %s deg), %d grains "
              "outside it, %d fitted bins" % (1000 * p["heap_height"], 1000 * p["heap_radius"],
                                              fmt(p["cone_angle"]), p["outside"], p["fit_bins"])
              if p["heap_radius"] > 0 else
              "**no heap**: the grains spread flat (highest top %.0f mm, 90%% of them within "
              "%.0f mm of the axis)" % (1000 * p["max_top"], 1000 * p["spread_r90"]))
      lost = r["n"] - r.get("grains_end", r["n"])
      L.append("- %s, mu_r %g: released at %.2f s, ended at %.2f s with the fastest grain above "
               "the floor layer at %.3g m/s%s; %s%s; wall %.1f s, CPU %.1f s."
               % (r["code"], r["mu_r"], r["release_time"] or 0, r["sim_time"], r["vtop_end"],
                  "" if r["vtop_end"] < V_REST else " (**not at rest**: the time limit ended it)",
                  heap, "; %d grains rolled out of the %g m domain" % (lost, BOX) if lost else "",
                  r["wall_s"], r["cpu_s"]))
  v = res.get("versions", {})
  L.append("- Versions: mjgranular %s, mujoco %s, LIGGGHTS (Debian) %s; seed %d."
           % (v.get("git"), v.get("mujoco"), v.get("liggghts"), res["seed"]))
  L.append("\n![angle and profiles](repose.png)\n")
  text = "\n".join(L) + "\n"
  with open(os.path.join(out, "repose.md"), "w") as f:
    f.write(text)
  return text


def report_shapes(res, out):
  """the --shapes table: one row per shape."""
  sc = res["scene"]
  L = ["# Angle of repose by grain shape (mjgranular)\n",
       "Written by `scripts/bench/repose.py --shapes` on %s. %d grains of one volume (a sphere "
       "of radius %g mm), density %g kg/m^3, friction %g, rolling and torsional friction 0; "
       "mesh grains clumps of at most %d spheres (SHAPE:cem: meeting each other by their contact "
       "fields). Model: %s. Column: a cylinder of radius %.0f mm filled "
       "from one random loose set (no two centres closer than twice the meshes' reach, %.1f mm), "
       "lifted at %g m/s. "
       "Angle as repose.md's, the tops of mesh grains their meshes' highest vertices; "
       "cross-check: the same with z + the bounding radius as a mesh grain's top.\n"
       % (res["date"], sc["n"], 1000 * RADIUS, DENSITY, FRICTION, CLUMP_SPHERES,
          next((r["model"].split(", rolling")[0] for r in res["runs"] if "model" in r), "-"),
          1000 * sc["rc"],
          1000 * sc["reach"], res["lift_speed"]),
       "| shape | angle [deg] | fit residual [mm] | cross-check 0.2-0.8 R [deg] | "
       "angle, tops z + bound [deg] | heap H / R [mm] | grains outside R | at rest | "
       "simulated [s] | wall [s] | load |",
       "|---|---:|---:|---:|---:|---|---:|---|---:|---:|---:|"]
  for r in res["runs"]:
    if r.get("failed"):
      L.append("| %s | failed: %s |" % (r["shape"], r["why"]))
      continue
    p = r["profile"]
    angle = (fmt(p["angle"]) if p["angle"] is not None
             else "no heap (top %.0f mm)" % (1000 * p["max_top"]))
    pb = r.get("profile_bound", {})
    L.append("| %s | %s | %s | %s | %s | %.0f / %.0f | %d | %s | %.2f | %.0f | %.1f |"
             % (r["shape"], angle, fmt(p["residual"] and 1000 * p["residual"]),
                fmt(p["angle_radius_window"]), fmt(pb.get("angle")),
                1000 * p["heap_height"], 1000 * p["heap_radius"], p["outside"],
                "yes" if r["vtop_end"] < V_REST else "no (%.2g m/s)" % r["vtop_end"],
                r["sim_time"], r["wall_s"], r["load_1min"]))
  v = res.get("versions", {})
  L.append("\nmjgranular %s, mujoco %s, %s; seed %d.\n"
           % (v.get("git"), v.get("mujoco"), next((r["parallel"] for r in res["runs"]
                                                   if "parallel" in r), "-"), res["seed"]))
  text = "\n".join(L)
  with open(os.path.join(out, "repose_shapes.md"), "w") as f:
    f.write(text)
  return text


def run_shapes(a, shapes):
  """--shapes: heaps of each shape from one initial set, mjgranular only."""
  out = os.path.abspath(a.out)
  work = os.path.join(out, "work")
  os.makedirs(work, exist_ok=True)
  saved = os.path.join(out, "repose_shapes.json")
  if a.report_only:
    res = json.load(open(saved))
    for r in res["runs"]:
      if not r.get("failed"):
        fin = np.load(final_file(work, "mjgranular", 0, r["shape"]))
        r["profile"] = heap_profile(fin[:, :3], fin[:, 3])
  else:
    # one initial set for every shape, spaced by the largest reach
    sc = scene("shapes", a.grains, max(grain_shapes.reach(s) for s in grain_shapes.SHAPES))
    pos0 = initial_grains(sc, a.seed)
    res = {"date": time.strftime("%Y-%m-%d %H:%M"), "seed": a.seed, "lift_speed": a.lift_speed,
           "scene": sc, "versions": versions(["mjgranular"], a), "runs": []}
    for shape in shapes:
      print("repose: %s, %d grains ..." % (shape, sc["n"]), flush=True)
      row = run_mjgranular(sc, pos0, 0.0, a, work, shape)
      row["load_1min"] = os.getloadavg()[0]
      res["runs"].append(row)
      print("repose:   %s" % ("failed: " + row["why"] if row.get("failed") else
                            "angle %s, %.1f s wall" % (fmt(row["profile"]["angle"]),
                                                       row["wall_s"])), flush=True)
      with open(saved, "w") as f:
        json.dump(res, f, indent=1)
  with open(saved, "w") as f:
    json.dump(res, f, indent=1)
  print(report_shapes(res, out))


def plot(res, out):
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  rows = [r for r in res["runs"] if not r.get("failed")]
  fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 5.2), gridspec_kw={"width_ratios": [1, 1.6]})
  colours = {"mjgranular": "tab:blue", "liggghts": "tab:orange"}
  for code in ("mjgranular", "liggghts"):
    rs = sorted([r for r in rows if r["code"] == code], key=lambda r: r["mu_r"])
    ok = [r for r in rs if r["profile"]["angle"] is not None]
    if ok:
      ax.plot([r["mu_r"] for r in ok], [r["profile"]["angle"] for r in ok], "o-",
              color=colours[code], label=code)
    flat = [r for r in rs if r["profile"]["angle"] is None]
    if flat:  # no heap formed: drawn at 0
      ax.plot([r["mu_r"] for r in flat], [0] * len(flat), "x", ms=9, color=colours[code],
              label="%s: no heap" % code)
  ax.axhspan(20, 25, color="0.85", label="real sand, mu_r 0")
  ax.set_xlabel("rolling friction mu_r")
  ax.set_ylabel("angle of repose [deg]")
  ax.set_ylim(-2, 70)
  ax.grid(True, alpha=0.3)
  ax.legend(fontsize=8)
  styles = ["-", "--", ":", "-."]
  mus = sorted({r["mu_r"] for r in rows})
  xmax = 0.3
  for r in rows:
    p = r["profile"]
    x = np.array(p["bin_mid"])
    y = np.array([np.nan if t is None else t for t in p["bin_top"]])
    ls = styles[mus.index(r["mu_r"]) % len(styles)]
    label = ("%.1f deg" % p["angle"]) if p["angle"] is not None else "no heap"
    bx.plot(1000 * x, 1000 * y, ls, color=colours[r["code"]], lw=1,
            label="%s, mu_r %g: %s" % (r["code"], r["mu_r"], label))
    xmax = max(xmax, 1.5 * p["heap_radius"])
    if p["angle"] is not None:
      xx = np.array(p["fit_range"])
      bx.plot(1000 * xx, 1000 * (p["slope"] * xx + p["intercept"]), "-", color="k", lw=0.8)
  bx.set_xlim(0, 1000 * xmax)
  bx.set_xlabel("distance from the heap axis [mm]")
  bx.set_ylabel("highest grain top [mm]")
  bx.set_ylim(bottom=0)
  bx.set_aspect("equal")
  bx.grid(True, alpha=0.3)
  if rows:
    bx.legend(fontsize=7)
  bx.set_title("heap profiles (black: fitted lines)", fontsize=10)
  fig.tight_layout()
  path = os.path.join(out, "repose.png")
  fig.savefig(path, dpi=120)
  plt.close(fig)
  return path


def versions(codes, a):
  v = {"mujoco": None, "liggghts": None, "git": None}
  try:
    v["git"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip()
  except OSError:
    pass
  if "mjgranular" in codes:
    import mujoco
    v["mujoco"] = mujoco.__version__
  if "liggghts" in codes:
    q = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "liggghts"], capture_output=True,
                       text=True)
    v["liggghts"] = q.stdout.strip() or None
  return v


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--quick", action="store_true", help="1000 grains, faster lift, shorter runs")
  ap.add_argument("--mu-r", default="0,0.1,0.3", help="rolling friction values (comma list)")
  ap.add_argument("--codes", default="mjgranular,liggghts", help="comma list")
  ap.add_argument("--shapes", help="instead: heaps of these grain shapes of one volume, "
                  "mjgranular only, rolling friction 0 (comma list of %s, a mesh shape:cem "
                  "meeting by its contact fields; out/repose_shapes)" % ",".join(grain_shapes.SHAPES))
  ap.add_argument("--model", default="pj", choices=("pj", "dem"),
                  help="--shapes: the contact model (dem at its defaults; cem needs it)")
  ap.add_argument("--out", help="output folder (default out/repose, --shapes out/repose_shapes)")
  ap.add_argument("--plugin", help="plugin library (default: $MJGRANULAR_PLUGIN, else the build's)")
  ap.add_argument("--threads", type=int, default=2, help="OpenMP threads / MPI ranks")
  ap.add_argument("--grains", type=int, help="grain count (default 3500, --quick 1000)")
  ap.add_argument("--lift-speed", type=float,
                  help="speed the cylinder is lifted at [m/s]; 0: removed at once (default "
                       "%g, --quick %g)" % (LIFT_SPEED, 2 * LIFT_SPEED))
  ap.add_argument("--seed", type=int, default=SEED)
  ap.add_argument("--timeout", type=float, default=900, help="per LIGGGHTS run [s]")
  ap.add_argument("--report-only", action="store_true",
                  help="measure the saved final grains of OUT again; rewrite table and plot")
  a = ap.parse_args()
  if a.lift_speed is None:
    a.lift_speed = 2 * LIFT_SPEED if a.quick else LIFT_SPEED
  if a.out is None:
    a.out = os.path.join(ROOT, "out", "repose_shapes" if a.shapes else "repose")
  codes = [c for c in a.codes.split(",") if c]
  for c in codes:
    if c not in ("mjgranular", "liggghts"):
      ap.error("unknown code %r" % c)
  mus = [float(x) for x in a.mu_r.split(",") if x]
  # before the plugin (and its openmp runtime) loads
  os.environ["OMP_NUM_THREADS"] = str(a.threads)
  os.environ.setdefault("OMP_WAIT_POLICY", "passive")
  if a.plugin:  # the copy `import mujoco` loads
    os.environ["MJGRANULAR_PLUGIN"] = os.path.abspath(a.plugin)
  if a.shapes:
    shapes = [s for s in a.shapes.split(",") if s]
    for s in shapes:
      try:
        grain_shapes.split(s)
      except ValueError as e:
        ap.error(str(e))
    run_shapes(a, shapes)
    return
  out = os.path.abspath(a.out)
  work = os.path.join(out, "work")
  os.makedirs(work, exist_ok=True)
  saved = os.path.join(out, "repose.json")
  if a.report_only:
    res = json.load(open(saved))
    res.setdefault("lift_speed", next((r["lift_speed"] for r in res["runs"] if "lift_speed" in r),
                                      LIFT_SPEED))
    for r in res["runs"]:
      if not r.get("failed"):
        r["profile"] = heap_profile(np.load(final_file(work, r["code"], r["mu_r"])))
    with open(saved, "w") as f:
      json.dump(res, f, indent=1)
    plot(res, out)
    print(report(res, out))
    return

  sc = scene("quick" if a.quick else "full", a.grains)
  pos0 = initial_grains(sc, a.seed)
  np.save(os.path.join(work, "initial.npy"), pos0)
  res = {"quick": a.quick, "date": time.strftime("%Y-%m-%d %H:%M"), "seed": a.seed,
         "lift_speed": a.lift_speed, "rayleigh_time": peer_scene.rayleigh_time(),
         "scene": sc, "versions": versions(codes, a), "runs": []}
  # runs of codes or mu_r not asked for now are kept from the last run of the same scene
  if os.path.exists(saved):
    old = json.load(open(saved))
    if (old.get("scene") == json.loads(json.dumps(sc)) and old.get("seed") == a.seed
        and old.get("lift_speed") == a.lift_speed):
      res["runs"] = [r for r in old["runs"] if not (r["code"] in codes and r["mu_r"] in mus)]
      # the versions of the codes not run now are those of the kept runs
      res["versions"] = dict(old.get("versions", {}),
                             **{k: v for k, v in res["versions"].items() if v})
  for mu in mus:
    for code in codes:
      print("repose: %s, mu_r %g, %d grains ..." % (code, mu, sc["n"]), flush=True)
      run = run_mjgranular if code == "mjgranular" else run_liggghts
      row = run(sc, pos0, mu, a, work)
      row["load_1min"] = os.getloadavg()[0]
      res["runs"].append(row)
      if row.get("failed"):
        print("repose:   failed: " + row["why"], flush=True)
      else:
        p = row["profile"]
        print("repose:   %s, %.2f s simulated, %.1f s wall"
              % ("%.1f deg (residual %.1f mm)" % (p["angle"], 1000 * p["residual"])
                 if p["angle"] is not None else "no heap (top %.0f mm)" % (1000 * p["max_top"]),
                 row["sim_time"], row["wall_s"]), flush=True)
      res["runs"].sort(key=lambda r: (r["mu_r"], r["code"]))
      with open(saved, "w") as f:
        json.dump(res, f, indent=1)
  plot(res, out)
  print(report(res, out))


if __name__ == "__main__":
  main()
