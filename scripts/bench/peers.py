#!/usr/bin/env python3
"""mjgranular against LIGGGHTS and LAMMPS on one settling scene, plus mjgranular's scaling.

Called by scripts/bench.sh (which installs the peers and builds bench_settle); writes
out/bench/peers.md, out/bench/*.png and out/bench/results.json.

The scene: N grains of diameter 10 mm and density 2500 kg/m^3 settle under gravity in an
open-topped square box sized so that the settled bed is about 0.1 m deep. One initial grain set
(uniformly random positions, no two grains touching, at rest) is written once per N and read by
every code. Each code runs the same simulated time; the wall time of the time loop alone is
compared (LAMMPS/LIGGGHTS 'Loop time', mjgranular around grn_advance), and each code's final
state is measured the same way (bed height, packing fraction in the bed core, residual speeds),
so the comparison is of equal work. mjgranular runs twice: its projected Jacobi model at its own
substep, and its DEM model at the peers' timestep with LIGGGHTS' contact law (peer_law.py).
"""

import argparse
import json
import math
import os
import re
import resource
import subprocess
import sys
import time

import numpy as np

import peer_law

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---- the scene --------------------------------------------------------------------------------

RADIUS = 0.005           # grain radius [m] (mjgranular's default)
DENSITY = 2500.0         # grain density [kg/m^3] (mjgranular's default)
FRICTION = 0.5           # coulomb coefficient, grain-grain and grain-wall (mjgranular's default)
GRAVITY = 9.81           # [m/s^2]
BED_DEPTH = 0.10         # settled bed depth the box is sized for [m]
BED_PACKING = 0.60       # packing fraction assumed when sizing the box
INIT_PACKING = 0.30      # packing fraction of the random initial grains (below 0.38, where
                         # random sequential addition jams)

# ---- the peers' contact model (hertz-mindlin with tangential history) ----------------------------

YOUNG = 5e6              # young's modulus [Pa]: the soft value of the liggghts examples
POISSON = 0.3
RESTITUTION = 0.3        # normal coefficient of restitution (of a head-on impact: mjgranular's
                         # dem damping; liggghts is given the e_L of the same damping, peer_law.py)
PEER_DT = 1e-4           # peers' timestep [s] (see rayleigh_time; ~16% of it), and mjgranular dem's
SKIN = 0.0025            # neighbour list skin [m] (a quarter diameter)
WALL_YOUNG_FACTOR = 1000.0  # liggghts' walls are atom type 2 with this many times the grains' E
                         # (same poisson, friction, restitution): a grain on a wall then has
                         # E* = E / (1 - nu^2) / 1.001, as against mjgranular's rigid walls
DEM_LAW = "hertz"        # mjgranular dem's law: hertz-mindlin with tangential history
ROLLING = 0.0            # rolling resistance of mjgranular dem: none, as the peers' input has none
                         # (liggghts' rolling_friction off)
TORSIONAL = 0.0          # torsional resistance of mjgranular dem: none (no liggghts counterpart)

# the runs of the settling scene: mjgranular's models, then the peers (key: display name)
CODE_NAMES = {"mjgranular": "mjgranular PJ", "mjgranular-dem": "mjgranular DEM",
              "liggghts": "LIGGGHTS", "lammps": "LAMMPS"}
MODEL_CODES = {"pj": "mjgranular", "dem": "mjgranular-dem"}

SEED = 20240611


def grain_volume():
  return 4.0 / 3.0 * math.pi * RADIUS ** 3


def grain_mass():
  return DENSITY * grain_volume()


def rayleigh_time():
  """rayleigh wave time of a grain, the usual dem timestep scale [s]."""
  shear = YOUNG / (2 * (1 + POISSON))
  return math.pi * RADIUS * math.sqrt(DENSITY / shear) / (0.1631 * POISSON + 0.8766)


def hertz_time(speed):
  """duration of a hertz impact of two grains at relative speed [s]."""
  e_eff = YOUNG / (2 * (1 - POISSON ** 2))
  r_eff, m_eff = RADIUS / 2, grain_mass() / 2
  return 2.87 * (m_eff ** 2 / (r_eff * e_eff ** 2 * speed)) ** 0.2


def box_width(n):
  """side of the square box for n grains [m]."""
  return math.sqrt(n * grain_volume() / (BED_PACKING * BED_DEPTH))


def write_lammps_data(path, pos, w, height):
  """a read_data file for atom_style sphere (lammps) / granular (liggghts):
  id type diameter density x y z. the grains are type 1; type 2 is liggghts' walls' material."""
  n = len(pos)
  with open(path, "w") as f:
    f.write("mjgranular settling benchmark: %d grains\n\n%d atoms\n2 atom types\n\n" % (n, n))
    f.write("%.9g %.9g xlo xhi\n%.9g %.9g ylo yhi\n0 %.9g zlo zhi\n\nAtoms\n\n"
            % (-w / 2, w / 2, -w / 2, w / 2, height))
    ids = np.arange(1, n + 1)
    rows = np.column_stack([ids, np.ones(n), np.full(n, 2 * RADIUS), np.full(n, DENSITY), pos])
    np.savetxt(f, rows, fmt=["%d", "%d", "%.6g", "%.6g", "%.9g", "%.9g", "%.9g"])


# ---- sanity figures -----------------------------------------------------------------------------

def sanity(pos, vel, w):
  """bed height (mean of the column tops over the core), packing fraction in the bed core (grain
  centres counted in a box over the middle half of the width and the middle half of the height),
  largest and mean residual speed."""
  d = 2 * RADIUS
  core = 0.25 * w
  inner = (np.abs(pos[:, 0]) < 0.5 * w - 3 * d) & (np.abs(pos[:, 1]) < 0.5 * w - 3 * d)
  # column tops on a 3-diameter grid away from the walls
  cx = np.floor((pos[inner, 0] + 0.5 * w) / (3 * d)).astype(int)
  cy = np.floor((pos[inner, 1] + 0.5 * w) / (3 * d)).astype(int)
  key = cx * 100000 + cy
  order = np.argsort(key)
  ks, zs = key[order], pos[inner, 2][order]
  starts = np.r_[0, np.nonzero(np.diff(ks))[0] + 1]
  tops = np.maximum.reduceat(zs, starts) + RADIUS
  height = float(np.median(tops))
  zlo, zhi = 0.25 * height, 0.75 * height
  in_core = ((np.abs(pos[:, 0]) < core) & (np.abs(pos[:, 1]) < core) &
             (pos[:, 2] > zlo) & (pos[:, 2] < zhi))
  packing = float(in_core.sum() * grain_volume() / ((2 * core) ** 2 * (zhi - zlo)))
  speed = np.linalg.norm(vel, axis=1)
  return {"bed_height": height, "packing": packing, "vmax": float(speed.max()),
          "vmean": float(speed.mean()), "core_grains": int(in_core.sum())}


# ---- running things -----------------------------------------------------------------------------

def load():
  """the 1, 5, 15 minute load averages."""
  return list(os.getloadavg())


def children_cpu():
  """user + system cpu seconds of the finished child processes so far (theirs included)."""
  ru = resource.getrusage(resource.RUSAGE_CHILDREN)
  return ru.ru_utime + ru.ru_stime


def run(cmd, env, cwd, timeout, log):
  """run a command; (return code, seconds, stdout). stderr goes to the log; the command's cpu
  seconds are left in run.cpu."""
  t0 = time.monotonic()
  run.cpu = -children_cpu()
  with open(log, "a") as err:
    err.write("$ %s\n" % " ".join(cmd))
    err.flush()
    try:
      p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=err, text=True,
                         timeout=timeout)
      run.cpu += children_cpu()
      return p.returncode, time.monotonic() - t0, p.stdout
    except subprocess.TimeoutExpired as e:
      return 124, time.monotonic() - t0, e.stdout or ""


def json_lines(text):
  out = []
  for line in text.splitlines():
    line = line.strip()
    if line.startswith("{"):
      out.append(json.loads(line))
  return out


class Bench:
  def __init__(self, args):
    self.a = args
    self.out = os.path.abspath(args.out)
    self.work = os.path.join(self.out, "work")
    os.makedirs(self.work, exist_ok=True)
    self.log = os.path.join(self.out, "bench.log")
    if not args.parts_given:
      open(self.log, "w").close()
    self.exe = os.path.abspath(args.exe)
    self.threads = args.threads
    # waiting threads and ranks sleep or yield (a shared machine), or with --spin all poll
    base = dict(os.environ, OMP_WAIT_POLICY="active" if args.spin else "passive")
    self.env_mjg = dict(base, OMP_NUM_THREADS=str(self.threads), OMP_PROC_BIND="false")
    self.env_mpi = dict(base, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
                        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    self.mpirun = ["mpirun", "-np", str(self.threads), "--bind-to", "none",
                   "--mca", "mpi_yield_when_idle", "0" if args.spin else "1"]
    self.results = {"settle": [], "scaling": [], "hash": [], "loops": [], "skin": [],
                    "bodies": [], "gpu": [], "law": {}, "load": {}, "meta": {}}
    # a run of some parts only keeps the other parts' results from the last run
    saved = os.path.join(self.out, "results.json")
    if args.parts_given and os.path.exists(saved):
      self.results.update(json.load(open(saved)))
      for part in args.parts:
        self.results[part] = []
      if "settle" in args.parts:
        self.results["gpu"] = []

  def say(self, text):
    print("bench: " + text, flush=True)

  # -- the settling scene in each code --

  def scene(self, n, data=True):
    """the initial grains of the scene with n grains, written for all three codes."""
    w = box_width(n)
    top = 2 * RADIUS + n * grain_volume() / (INIT_PACKING * (w - 2 * RADIUS) ** 2)
    height = max(2.0 * top, 2.5 * BED_DEPTH)
    tag = os.path.join(self.work, "n%d" % n)
    cmd = [self.exe, "init", "--grains", str(n), "--out", tag + "_init.f32", "--width",
           "%.9g" % w, "--height", "%.9g" % top, "--seed", str(SEED)]
    rc, _, _ = run(cmd, self.env_mjg, self.work, self.a.timeout, self.log)
    if rc != 0:
      raise RuntimeError("bench_settle init failed for %d grains (see bench.log)" % n)
    if data:
      pos = np.fromfile(tag + "_init.f32", dtype=np.float32).reshape(-1, 3).astype(np.float64)
      write_lammps_data(tag + "_init.data", pos, w, height)
    fall = top - BED_DEPTH
    return {"n": n, "width": w, "height": height, "top": top,
            "impact_speed": math.sqrt(2 * GRAVITY * max(fall, 1e-3)), "tag": tag}

  def dem_material(self):
    """bench_settle's options for mjgranular's dem model with the peers' material."""
    return ["--model", "dem", "--law", DEM_LAW, "--youngs", "%g" % YOUNG,
            "--poisson", "%g" % POISSON, "--restitution", "%g" % RESTITUTION,
            "--friction", "%g" % FRICTION, "--rolling", "%g" % ROLLING,
            "--torsional", "%g" % TORSIONAL]

  def law(self):
    """mjgranular's dem law for the peers' material (bench_settle law: its damping ratio and time
    scale) and the restitution that gives LIGGGHTS the same damping; kept in results['law']."""
    rc, _, text = run([self.exe, "law"] + self.dem_material(), self.env_mjg, self.work,
                      self.a.timeout, self.log)
    rows = json_lines(text)
    if rc != 0 or not rows:
      raise RuntimeError("bench_settle law failed (see bench.log)")
    law = rows[0]
    law["liggghts_restitution"] = peer_law.liggghts_restitution(law["damping_ratio"])
    law["wall_young_factor"] = WALL_YOUNG_FACTOR
    self.results["law"] = law
    return law

  def mjgranular(self, sc, t_sim, backend="cpu", iterations=0, dt=0, model="pj"):
    """the scene in mjgranular: its projected jacobi model at its defaults (or the iterations and
    substep given), or its dem model with the peers' material at the peers' timestep."""
    code = MODEL_CODES[model]
    out = sc["tag"] + "_%s_%s.f32" % (code, backend)
    cmd = [self.exe, "settle", "--in", sc["tag"] + "_init.f32", "--out", out,
           "--width", "%.9g" % sc["width"], "--time", "%g" % t_sim, "--backend", backend]
    if model == "dem":
      cmd += self.dem_material()
      dt = dt or PEER_DT
    if iterations:
      cmd += ["--iterations", str(iterations)]
    if dt:
      cmd += ["--dt", "%g" % dt]
    rc, secs, text = run(cmd, self.env_mjg, self.work, self.a.timeout, self.log)
    rows = json_lines(text)
    if rc != 0 or not rows or "unavailable" in rows[0]:
      return {"code": code, "model": model, "backend": backend, "n": sc["n"], "failed": True,
              "why": rows[0].get("unavailable") if rows else "exit %d (see bench.log)" % rc}
    r = rows[0]
    final = np.fromfile(out, dtype=np.float32).reshape(-1, 6).astype(np.float64)
    if model == "dem":
      contact = ("DEM %s-Mindlin with history, E %g Pa, Poisson %g, restitution %g (damping ratio "
                 "%.4f), rolling %g, torsional %g" % (r["law"].capitalize(), r["youngs"],
                                                      r["poisson"], r["restitution"],
                                                      r["damping_ratio"], r["rolling_friction"],
                                                      r["torsional_friction"]))
    else:
      contact = ("projected Jacobi, %d iterations, baumgarte 0.2, rolling %g, torsional %g"
                 % (r["iterations"], r["rolling_friction"], r["torsional_friction"]))
    row = {"code": code, "model": model, "backend": r["backend"], "n": sc["n"],
           "threads": r["threads"], "parallel": "%d OpenMP threads" % r["threads"], "dt": r["dt"],
           "steps": r["substeps"], "sim_time": r["sim_time"], "wall_s": r["wall_s"],
           "process_s": secs, "cpu_s": run.cpu, "memory_mib": r["memory_bytes"] / 2 ** 20,
           "rolling_friction": r["rolling_friction"],
           "torsional_friction": r["torsional_friction"], "contact": contact}
    row.update(sanity(final[:, :3], final[:, 3:], sc["width"]))
    return row

  def peer_input(self, code, sc, steps):
    """the input script of liggghts or lammps for the scene."""
    w2 = 0.5 * sc["width"]
    # the ranks split the box across x and y only: split along z (the default for a box taller than
    # wide, as at 10k grains) one rank gets the whole bed and the other nothing
    common_head = ["units si", "atom_modify map array", "boundary f f f", "newton off",
                   "processors * * 1"]
    if code == "liggghts":
      # mjgranular dem's law (peer_law.py): the restitution of the same damping, the normal
      # force never pulling (limitForce, last on a wall's line), walls of their own stiff
      # material (type 2; hard_particles allows its E above 1e9 Pa)
      model = "model %s tangential history" % DEM_LAW
      limit = "limitForce on"
      e_l = self.results["law"]["liggghts_restitution"]
      pair2 = lambda v: "peratomtypepair 2 " + " ".join(["%.9g" % v] * 4)
      lines = ["atom_style granular"] + common_head + [
        "communicate single vel yes",
        "read_data %s_init.data" % os.path.basename(sc["tag"]),
        "neighbor %g bin" % SKIN, "neigh_modify delay 0",
        "hard_particles yes",
        "fix m1 all property/global youngsModulus peratomtype %g %g"
        % (YOUNG, WALL_YOUNG_FACTOR * YOUNG),
        "fix m2 all property/global poissonsRatio peratomtype %g %g" % (POISSON, POISSON),
        "fix m3 all property/global coefficientRestitution " + pair2(e_l),
        "fix m4 all property/global coefficientFriction " + pair2(FRICTION),
        "pair_style gran %s %s" % (model, limit), "pair_coeff * *",
        "timestep %g" % PEER_DT,
        "fix grav all gravity %g vector 0 0 -1" % GRAVITY,
        "fix wx1 all wall/gran %s primitive type 2 xplane %.9g %s" % (model, -w2, limit),
        "fix wx2 all wall/gran %s primitive type 2 xplane %.9g %s" % (model, w2, limit),
        "fix wy1 all wall/gran %s primitive type 2 yplane %.9g %s" % (model, -w2, limit),
        "fix wy2 all wall/gran %s primitive type 2 yplane %.9g %s" % (model, w2, limit),
        "fix wz all wall/gran %s primitive type 2 zplane 0 %s" % (model, limit),
        "fix integ all nve/sphere",
        "fix ts all check/timestep/gran %d 0.2 0.2" % max(steps // 4, 1),
        "thermo_style custom step atoms ke f_ts[1] f_ts[2] f_ts[3]",
        "thermo %d" % max(steps // 4, 1),
      ]
    else:
      model = ("granular hertz/material %g %g %g tangential mindlin NULL 1.0 %g damping tsuji"
               % (YOUNG, RESTITUTION, POISSON, FRICTION))
      lines = ["atom_style sphere"] + common_head + [
        "comm_modify vel yes",
        "read_data %s_init.data" % os.path.basename(sc["tag"]),
        "neighbor %g bin" % SKIN, "neigh_modify delay 0",
        "pair_style granular",
        "pair_coeff * * " + model.split(" ", 1)[1],
        "timestep %g" % PEER_DT,
        "fix grav all gravity %g vector 0 0 -1" % GRAVITY,
        "fix wx all wall/gran %s xplane %.9g %.9g" % (model, -w2, w2),
        "fix wy all wall/gran %s yplane %.9g %.9g" % (model, -w2, w2),
        "fix wz all wall/gran %s zplane 0 NULL" % model,
        "fix integ all nve/sphere",
        "thermo_style custom step atoms ke",
        "thermo %d" % max(steps // 4, 1),
      ]
    lines += ["run %d" % steps,
              "write_dump all custom %s_%s.dump id x y z vx vy vz modify sort id"
              % (os.path.basename(sc["tag"]), code)]
    return "\n".join(lines) + "\n"

  def peer(self, code, sc, t_sim):
    steps = int(math.ceil(t_sim / PEER_DT - 1e-6))
    base = "%s_%s" % (sc["tag"], code)
    with open(base + ".in", "w") as f:
      f.write(self.peer_input(code, sc, steps))
    if os.path.exists(base + ".dump"):
      os.remove(base + ".dump")
    exe = "liggghts" if code == "liggghts" else "lmp"
    cmd = self.mpirun + [exe, "-in", base + ".in", "-log", base + ".log", "-screen", "none"]
    if code == "liggghts":
      cmd += ["-echo", "none"]
    rc, secs, _ = run(cmd, self.env_mpi, self.work, self.a.timeout, self.log)
    logtext = open(base + ".log").read() if os.path.exists(base + ".log") else ""
    m = re.search(r"Loop time of ([0-9.eE+-]+) on (\d+) procs for (\d+) steps", logtext)
    if rc != 0 or not m or not os.path.exists(base + ".dump"):
      err = re.findall(r"ERROR.*", logtext)
      return {"code": code, "n": sc["n"], "failed": True,
              "why": (err[0] if err else "exit %d" % rc) + " (see %s.log)" % base}
    data = np.loadtxt(base + ".dump", skiprows=9)
    if code == "liggghts":
      contact = ("Hertz-Mindlin with history, E %g Pa (walls %gx), Poisson %g, coefficient"
                 "Restitution %.4f (damping ratio %.4f, a head-on rebound of %g), limitForce on"
                 % (YOUNG, WALL_YOUNG_FACTOR, POISSON, self.results["law"]["liggghts_restitution"],
                    self.results["law"]["damping_ratio"], RESTITUTION))
    else:
      contact = "Hertz-Mindlin with history, E %g Pa, Poisson %g, e %g (tsuji)" % (
        YOUNG, POISSON, RESTITUTION)
    row = {"code": code, "backend": "cpu", "n": sc["n"], "threads": int(m.group(2)),
           "parallel": "%s MPI ranks x 1 thread" % m.group(2), "dt": PEER_DT,
           "steps": int(m.group(3)), "sim_time": int(m.group(3)) * PEER_DT,
           "wall_s": float(m.group(1)), "process_s": secs, "cpu_s": run.cpu, "contact": contact}
    if code == "liggghts":
      # fraction of the rayleigh and hertz times the timestep is, from check/timestep/gran
      fr = re.findall(r"^\s*\d+\s+\d+\s+\S+\s+(\S+)\s+(\S+)\s+(\S+)\s*$", logtext, re.M)
      if fr:
        row["dt_fraction_rayleigh"] = max(float(x[0]) for x in fr)
        row["dt_fraction_hertz"] = max(float(x[1]) for x in fr)
        row["skin_fraction"] = max(float(x[2]) for x in fr)
    row.update(sanity(data[:, 1:4], data[:, 4:7], sc["width"]))
    return row

  def settle(self):
    a = self.a
    self.results["load"]["settle_before"] = load()
    law = self.law()
    self.say("dem law: %s, damping ratio %.4f for restitution %g; LIGGGHTS given %.4f"
             % (law["law"], law["damping_ratio"], law["restitution"],
                law["liggghts_restitution"]))
    for n, t_sim in zip(a.sizes, a.times):
      sc = self.scene(n)
      self.say("settling scene: %d grains, box %.3f m, initial top %.3f m, %g s simulated"
               % (n, sc["width"], sc["top"], t_sim))
      codes = ([MODEL_CODES[m] for m in a.models] +
               [c for c in ("liggghts", "lammps") if c in a.peers])
      models = {c: m for m, c in MODEL_CODES.items()}
      for code in codes:
        l0 = load()[0]
        if code in models:
          row = self.mjgranular(sc, t_sim, model=models[code])
        else:
          row = self.peer(code, sc, t_sim)
        row["load_1min"] = l0
        row["load_after"] = load()[0]
        row["scene"] = {k: v for k, v in sc.items() if k != "tag"}
        self.results["settle"].append(row)
        self.say("  %-10s %s" % (code, "failed: " + row["why"] if row.get("failed") else
                                 "%.1f s wall, %.1f s per simulated s, height %.3f m, phi %.3f"
                                 % (row["wall_s"], row["wall_s"] / row["sim_time"],
                                    row["bed_height"], row["packing"])))
      for model in a.models if a.gpu else []:
        row = self.mjgranular(sc, t_sim, backend="cuda", model=model)
        self.results["gpu"].append(row)
      self.save()
    self.results["load"]["settle_after"] = load()

  # -- scaling with n and with the number of bodies --

  def scaling(self):
    a = self.a
    self.results["load"]["scaling_before"] = load()
    for n in a.scale_sizes:
      sc = self.scene(n, data=False)
      self.say("scaling: %d grains, %g s simulated" % (n, a.scale_time))
      row = self.mjgranular(sc, a.scale_time)
      row["load_1min"] = load()[0]
      self.results["scaling"].append(row)
      self.save()
      if row.get("failed"):
        self.say("  failed: " + row["why"])
        break
    self.results["load"]["scaling_after"] = load()

  def series(self, grains, t_sim, settings):
    """the settling scene of this many grains run once per entry of settings (keyword arguments
    of mjgranular, also stored in its row); stops at the first failure."""
    sc = self.scene(grains, data=False)
    rows = []
    for kw in settings:
      row = self.mjgranular(sc, t_sim, **kw)
      if row.get("failed"):
        self.say("  failed: " + row["why"])
        break
      row.update(kw, load_1min=load()[0])
      rows.append(row)
    return rows

  def breakdown(self):
    """mjgranular's cost per grain-substep split into the fixed part (prediction, neighbour
    lists, collision, pairs, integration) and the part per jacobi iteration, by runs at 1, 10 and 20
    iterations of the settling scene."""
    a = self.a
    self.say("breakdown: %d grains, %g s simulated at 1, 10, 20 iterations"
             % (a.break_grains, a.break_time))
    rows = self.series(a.break_grains, a.break_time, [{"iterations": k} for k in (1, 10, 20)])
    if len(rows) == 3:
      self.results["breakdown"] = rows
      self.save()

  def substep(self):
    """the settling scene at larger substeps than the default (10 iterations each), with the
    same sanity figures: what a coarser substep buys and what it changes."""
    a = self.a
    self.say("substep: %d grains, %g s simulated at substeps %s"
             % (a.substep_grains, a.substep_time, a.substeps))
    self.results["substep"] = self.series(a.substep_grains, a.substep_time,
                                          [{"dt": dt} for dt in a.substeps])
    self.save()

  def driver_rows(self, args, label):
    rc, _, text = run([self.exe] + args, self.env_mjg, self.work, self.a.timeout, self.log)
    rows = json_lines(text)
    if rc != 0:
      self.say("%s: exit %d (see bench.log)" % (label, rc))
      self.results.setdefault("errors", []).append("%s: bench_settle exit %d" % (label, rc))
    return [r for r in rows if "unavailable" not in r]

  def bodies(self):
    """seeds' fig. 9 (left): the gear tower (scripts/examples/gear_tower.py, plugin and mujoco
    stepping included) with each count of gears, one timed run per count after an untimed
    warm-up."""
    a = self.a
    self.say("bodies: gear tower of %d grains with %s gears, %g s timed after %g s each"
             % (a.body_grains, a.body_counts, a.body_time, a.body_settle))
    self.results["load"]["bodies_before"] = load()
    rows = []
    for k in a.body_counts.split(","):
      script = os.path.join(ROOT, "scripts", "examples", "gear_tower.py")
      cmd = [sys.executable, script, "--gears", k, "--grains", str(a.body_grains),
             "--warmup", "%g" % a.body_settle, "--seconds", "%g" % a.body_time,
             "--backend", "cpu", "--json"]
      rc, _, text = run(cmd, self.env_mjg, ROOT, self.a.timeout, self.log)
      got = json_lines(text)
      if rc != 0 or not got:
        self.say("gear tower, %s gears: exit %d (see bench.log)" % (k, rc))
        self.results.setdefault("errors", []).append("gear tower %s gears: exit %d" % (k, rc))
        break
      row = dict(got[0], bodies=got[0]["gears"], threads=self.threads, load_1min=load()[0])
      rows.append(row)
    self.results["bodies"] = rows
    self.save()

  def hash(self):
    self.column("hash", ["--factors", self.a.hash_factors],
                "hash table, factors %s" % self.a.hash_factors)

  def column(self, part, args, label):
    """the settled column of each hash_sizes count timed by bench_settle mode part."""
    a = self.a
    self.results["load"][part + "_before"] = load()
    for n in a.hash_sizes:
      self.say("%s: column of %d grains" % (label, n))
      self.results[part] += self.driver_rows(
        [part, "--grains", str(n)] + args +
        ["--substeps", str(a.hash_substeps), "--repeat", str(a.hash_repeat),
         "--settle", "%g" % a.hash_settle], part)
      self.save()
    self.results["load"][part + "_after"] = load()

  def loops(self):
    self.column("loops", [], "one loop against split passes")

  def skin(self):
    self.column("skin", ["--skins", self.a.skins], "neighbour-list skins %s" % self.a.skins)

  def save(self):
    with open(os.path.join(self.out, "results.json"), "w") as f:
      json.dump(self.results, f, indent=1)


# ---- report -------------------------------------------------------------------------------------

def fit_slope(x, y):
  """slope and intercept of log y against log x."""
  k, c = np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)
  return float(k), float(c)


def plots(res, out):
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt
  made = []
  settle = [r for r in res["settle"] if not r.get("failed")]
  if settle:
    fig, ax = plt.subplots(figsize=(7, 4.5))
    sizes = sorted({r["n"] for r in settle})
    codes = [c for c in CODE_NAMES if any(r["code"] == c for r in settle)]
    width = 0.8 / len(codes)
    for k, c in enumerate(codes):
      ys = []
      for n in sizes:
        m = [r for r in settle if r["code"] == c and r["n"] == n]
        ys.append(m[0]["wall_s"] / m[0]["sim_time"] if m else np.nan)
      xs = np.arange(len(sizes)) + (k - (len(codes) - 1) / 2) * width
      ax.bar(xs, ys, width, label=CODE_NAMES[c])
      for x, y in zip(xs, ys):
        if np.isfinite(y):
          ax.text(x, y, "%.0f" % y, ha="center", va="bottom", fontsize=8)
    ax.set_xticks(np.arange(len(sizes)))
    ax.set_xticklabels(["%dk" % (n // 1000) if n >= 1000 else str(n) for n in sizes])
    ax.set_yscale("log")
    ax.set_xlabel("grains")
    ax.set_ylabel("wall time per simulated second [s]  (lower is better)")
    ax.set_title("settling scene, %d threads each, CPU" % settle[0]["threads"])
    ax.legend()
    fig.tight_layout()
    path = os.path.join(out, "peers.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    made.append(path)
  scal = [r for r in res["scaling"] if not r.get("failed")]
  if len(scal) >= 2:
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    x = [r["n"] for r in scal]
    y = [r["wall_s"] / r["sim_time"] for r in scal]
    k, c = fit_slope(x, y)
    ax.loglog(x, y, "o", label="pour, first %g s" % scal[0]["sim_time"])
    xx = np.geomspace(min(x), max(x), 50)
    ax.loglog(xx, np.exp(c) * xx ** k, "-", label="fit: slope %.2f" % k)
    pts = [r for r in settle if r["code"] == "mjgranular"]
    if pts:
      ts = sorted({r["sim_time"] for r in pts})
      ax.loglog([r["n"] for r in pts], [r["wall_s"] / r["sim_time"] for r in pts], "s",
                label="settling scene, %s s" % "-".join("%g" % t for t in sorted({ts[0], ts[-1]})))
    ax.set_xlabel("grains")
    ax.set_ylabel("wall time per simulated second [s]")
    ax.set_title("mjgranular CPU, %d threads" % scal[0]["threads"])
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = os.path.join(out, "scaling_grains.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    made.append(path)
  bod = res["bodies"]
  if len(bod) >= 2:
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    ax.plot([r["bodies"] for r in bod], [r["wall_per_sim_s"] for r in bod], "o-")
    ax.set_xlabel("gears in the gear tower")
    ax.set_ylabel("wall time per simulated second [s]")
    ax.set_title("mjgranular CPU, %d grains, %d threads" % (bod[0]["grains"], bod[0]["threads"]))
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    path = os.path.join(out, "scaling_bodies.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    made.append(path)
  hs = res["hash"]
  if hs:
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for n in sorted({r["grains"] for r in hs}):
      rows = sorted([r for r in hs if r["grains"] == n], key=lambda r: r["hash_factor"])
      ax.semilogx([r["hash_size"] for r in rows], [r["pss"] for r in rows], "o-",
                  label="%d grains" % n)
      ax.axvline(n, color=ax.lines[-1].get_color(), ls=":", lw=0.8)
    ax.set_xlabel("hash table size (buckets); dotted: grain count")
    ax.set_ylabel("particle-substeps per second")
    ax.set_title("settled column, mjgranular CPU")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path = os.path.join(out, "hash_size.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    made.append(path)
  return made


def fmt_load(v):
  return "%.2f / %.2f / %.2f" % tuple(v) if v else "?"


def per_sim(r, key):
  """a run's wall or cpu seconds (key wall_s, cpu_s) per simulated second."""
  return r.get(key, float("nan")) / r["sim_time"]


def faster(r, ref):
  """how many times faster run r is than run ref, wall and cpu, as 'w.wwx / c.ccx'."""
  return "%.2fx / %.2fx" % (per_sim(ref, "wall_s") / per_sim(r, "wall_s"),
                            per_sim(ref, "cpu_s") / per_sim(r, "cpu_s"))


def runs_by_n(settle, code):
  """the successful runs of one code, by grain count."""
  return {r["n"]: r for r in settle if r["code"] == code and not r.get("failed")}


def settle_report(res, meta):
  """the settling scene: set-up, every code's run, the issue 7 target."""
  L = []
  wait = "active" if meta.get("spin") else "passive"
  settle = res["settle"]
  law = res.get("law") or {}
  sc = settle[0]["scene"]
  t_r = rayleigh_time()
  imp = max(r["scene"]["impact_speed"] for r in settle)
  L.append("## Settling scene\n")
  L.append(
    "N grains, diameter %g mm, density %g kg/m^3, friction %g (grain-grain and wall), gravity "
    "%g m/s^2, in an open-topped square box of side sqrt(N V / (%.2f x %.2f m)) (a settled bed "
    "about %g m deep; %.3f m for %d grains). Initial state, one per N, read by every code: "
    "grains at rest at uniformly random positions, none touching (random sequential addition, "
    "`bench_settle init`), at packing fraction %.2f from the floor up to %.3f m, so the top "
    "grains fall about %.2f m (impact up to %.1f m/s) and the bed forms after about 0.15 s. "
    "Simulated time per N the same for every code (%s; the bed is nearly at rest by 0.5 s; "
    "a run shorter than that compares beds still settling, at equal time); the "
    "wall time is that of the time loop alone (LAMMPS/LIGGGHTS `Loop time`; "
    "mjgranular around `grn_advance`), set-up and file input excluded.\n"
    % (2000 * RADIUS, DENSITY, FRICTION, GRAVITY, BED_PACKING, BED_DEPTH, BED_DEPTH,
       sc["width"], settle[0]["n"], INIT_PACKING, sc["top"], sc["top"] - BED_DEPTH, imp,
       ", ".join("%g s at %d grains" % t for t in sorted(
         {(r["sim_time"], r["n"]) for r in settle if not r.get("failed")}, key=lambda t: t[1]))))
  pj = [r for r in settle if r["code"] == "mjgranular" and "rolling_friction" in r]
  L.append(
    "- **mjgranular PJ**: projected Jacobi at its defaults (substep 5e-4 s, 10 iterations, "
    "Baumgarte 0.2, contact margin 0.1 r, neighbour-list skin 0.5 r, hash table 2N%s), CPU "
    "backend, OpenMP threads (`OMP_NUM_THREADS`, `OMP_WAIT_POLICY=%s`); hard contact, grains "
    "spin; driver `scripts/bench/bench_settle.c` (calls of 10 substeps).\n"
    % (", rolling resistance %g, torsional %g" % (pj[0]["rolling_friction"],
                                                  pj[0]["torsional_friction"]) if pj else "",
       wait))
  if law:
    L.append(
      "- **mjgranular DEM** (`grnParams.model` `grnMODEL_DEM`, law `grnLAW_HERTZ`): "
      "Hertz-Mindlin with tangential history at the peers' timestep %g s, E = %g Pa, Poisson "
      "%g, restitution %g (damping ratio zeta = %.4f, `grn_dem_damping_ratio`), friction %g, "
      "rolling %g and torsional %g resistance (the peers have none), the same five rigid "
      "planes, neighbour-list skin 0.5 r (%g m, as the peers'), float32; otherwise as PJ.\n"
      % (PEER_DT, law["youngs"], law["poisson"], law["restitution"], law["damping_ratio"],
         FRICTION, ROLLING, TORSIONAL, 0.5 * RADIUS))
  L.append(
    "- **LIGGGHTS** (`pair_style gran model hertz tangential history limitForce on`, "
    "`fix wall/gran ... primitive type 2` planes, `limitForce on`) and **LAMMPS** "
    "(`pair_style granular hertz/material ... tangential mindlin NULL 1.0 mu damping tsuji`, "
    "`fix wall/gran granular` planes, GRANULAR package): Hertz-Mindlin with tangential history, "
    "Young's modulus E = %g Pa (the soft value of the LIGGGHTS examples), Poisson %g, friction "
    "%g, no rolling resistance, spinning spheres (`fix nve/sphere`), neighbour skin %g m "
    "checked every step. LIGGGHTS is given mjgranular DEM's law (next section): %s. LAMMPS "
    "keeps restitution %g through its Tsuji damping. Parallel as %d MPI ranks of one thread "
    "each (`mpirun -np %d --mca mpi_yield_when_idle %d`; neither Debian build has the OpenMP "
    "package), the box split across x and y only (`processors * * 1`).\n"
    "- **Peer timestep**: Rayleigh time T_R = pi r sqrt(rho/G) / (0.1631 nu + 0.8766) = "
    "%.3g s; dt = %g s = %.0f%% of T_R (DEM practice: 10-30%%). The Hertz contact time at the "
    "largest impact speed %.1f m/s is %.3g s = %.0f dt. mjgranular PJ's substep is %.0fx the "
    "peers' timestep.\n"
    % (YOUNG, POISSON, FRICTION, SKIN,
       "coefficientRestitution %.4f, the walls an atom type of E = %g x %g Pa"
       % (law["liggghts_restitution"], WALL_YOUNG_FACTOR, YOUNG) if law else
       "(not recorded)", RESTITUTION, meta["threads"], meta["threads"],
       0 if meta.get("spin") else 1, t_r, PEER_DT, 100 * PEER_DT / t_r, imp, hertz_time(imp),
       hertz_time(imp) / PEER_DT, 5e-4 / PEER_DT))
  lig = runs_by_n(settle, "liggghts")
  chk = [r for r in lig.values() if "dt_fraction_rayleigh" in r]
  if chk:
    L.append("- LIGGGHTS' own `fix check/timestep/gran` reported dt at most %.0f%% of the "
             "Rayleigh time and %.0f%% of its Hertz time (full grain mass, twice the top "
             "speed), and grains moving at most %.0f%% of the neighbour skin per step.\n"
             % (100 * max(r["dt_fraction_rayleigh"] for r in chk),
                100 * max(r["dt_fraction_hertz"] for r in chk),
                100 * max(r["skin_fraction"] for r in chk)))
  L.append("")
  L.append("| grains | code | parallel | timestep [s] | simulated [s] | steps | wall [s] | "
           "**wall per simulated s [s]** | particle-steps / s | CPU s per simulated s | "
           "faster than LIGGGHTS (wall / CPU) | bed height [m] | core packing | "
           "max / mean speed at end [m/s] | load (1 min) before / after |")
  L.append("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
  for r in settle:
    name = CODE_NAMES.get(r["code"], r["code"])
    if r.get("failed"):
      L.append("| %d | %s | | | | | | failed: %s | | | | | | | |" % (r["n"], name, r["why"]))
      continue
    ratio = faster(r, lig[r["n"]]) if r["code"] in MODEL_CODES.values() and r["n"] in lig else ""
    L.append("| %d | %s | %s | %g | %g | %d | %.1f | **%.1f** | %.3g | %.1f | %s | %.3f | "
             "%.3f | %.2g / %.2g | %.1f / %.1f |"
             % (r["n"], name, r["parallel"], r["dt"], r["sim_time"], r["steps"], r["wall_s"],
                per_sim(r, "wall_s"), r["n"] * r["steps"] / r["wall_s"], per_sim(r, "cpu_s"),
                ratio, r["bed_height"], r["packing"], r["vmax"], r["vmean"], r["load_1min"],
                r.get("load_after", float("nan"))))
  for g in res["gpu"]:
    name = CODE_NAMES.get(g["code"], g["code"])
    if g.get("failed"):
      L.append("| %d | %s | CUDA | | | | | %s | | | | | | | |" % (g["n"], name, g["why"]))
    else:
      L.append("| %d | %s | CUDA | %g | %g | %d | %.1f | **%.2f** | %.3g | | | %.3f | "
               "%.3f | %.2g / %.2g | |"
               % (g["n"], name, g["dt"], g["sim_time"], g["steps"], g["wall_s"],
                  per_sim(g, "wall_s"), g["n"] * g["steps"] / g["wall_s"], g["bed_height"],
                  g["packing"], g["vmax"], g["vmean"]))
  if not res["gpu"]:
    L.append("| | mjgranular | CUDA | | | | | %s | | | | | | | |" % meta["gpu"])
  L.append("")
  L.append("*CPU s per simulated s*: user + system time of the whole process (set-up and file "
           "input included) over the simulated time, summed over threads or ranks: less "
           "sensitive than wall time to other load on the machine, which takes the cores away "
           "without charging them. Idle MPI ranks poll, so it overstates the peers a little.\n")
  L.append("Particle-steps per second count each code's own steps (mjgranular PJ: substeps of "
           "5e-4 s with 10 Jacobi iterations each; mjgranular DEM and the peers: force "
           "evaluations at 1e-4 s). *Bed height*: median over 3-diameter columns (away from the "
           "walls) of the highest grain top. *Core packing*: grain centres in a box over the "
           "middle half of the width and the middle half of the bed height, times the grain "
           "volume, over the box volume.\n")
  mjg = runs_by_n(settle, "mjgranular")
  ratios = {n: per_sim(lig[n], "wall_s") / per_sim(mjg[n], "wall_s") for n in mjg if n in lig}
  if ratios:
    L.append("**Target** (issue 7): at equal threads and N, mjgranular simulates a second of "
             "this scene at least 10x faster than LIGGGHTS on the CPU. Measured speed-up of "
             "mjgranular PJ over LIGGGHTS: %s. **%s**\n"
             % ("; ".join("%d grains: %.2fx" % (n, f) for n, f in sorted(ratios.items())),
                "Holds." if min(ratios.values()) >= 10 else "Does not hold on this machine."))
  return L


def dem_report(res):
  """mjgranular's dem model against LIGGGHTS with the same law at the same timestep: speed and
  the beds they make, and the issue 13 target."""
  settle, law = res["settle"], res.get("law") or {}
  lig, dem = runs_by_n(settle, "liggghts"), runs_by_n(settle, "mjgranular-dem")
  pj = runs_by_n(settle, "mjgranular")
  both = sorted(n for n in dem if n in lig)
  if not both or not law:
    return []
  L = ["## DEM against DEM: the same law at the same timestep\n"]
  L.append(
    "mjgranular's DEM model and LIGGGHTS run the same contact law (`scripts/bench/peer_law.py`): "
    "Hertz normal spring 4/3 E* sqrt(R* d) d and tangential stiffness 8 G* sqrt(R* d) from "
    "E = %g Pa and Poisson %g, each with a dashpot 2 zeta sqrt(S m*) on the current tangent "
    "stiffness S; the normal force never pulls (LIGGGHTS `limitForce on`); Coulomb friction %g "
    "with tangential history; no rolling resistance (LIGGGHTS' `rolling_friction` off; "
    "mjgranular `rolling_friction` 0) and no torsional resistance (mjgranular "
    "`torsional_friction` 0; LIGGGHTS has none). mjgranular takes zeta = %.4f, whose head-on "
    "impact rebounds with exactly e = %g; LIGGGHTS's zeta is sqrt(5/6) |beta(e_L)|, "
    "beta(e) = ln e / sqrt(ln^2 e + pi^2), so it is given **e_L = %.4f** (given %g itself it would "
    "damp with zeta %.4f). Walls: mjgranular's are rigid (E* of a grain on a wall = E / (1 - "
    "nu^2)); LIGGGHTS' are atom type 2 with E = %g x %g Pa and the same Poisson, friction and "
    "restitution, so its grain-wall E* is 0.1%% lower. Both at dt = %g s, %d threads or ranks.\n"
    % (law["youngs"], law["poisson"], FRICTION, law["damping_ratio"], law["restitution"],
       law["liggghts_restitution"], law["restitution"],
       peer_law.liggghts_damping_ratio(law["restitution"]), WALL_YOUNG_FACTOR, YOUNG, PEER_DT,
       res["meta"]["threads"]))
  L.append("| grains | code | timestep [s] | simulated [s] | wall s per simulated s | "
           "CPU s per simulated s | faster than LIGGGHTS (wall / CPU) | bed height [m] | "
           "against LIGGGHTS | core packing | against LIGGGHTS | max / mean speed at end [m/s] "
           "| load (1 min) before / after |")
  L.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
  held, close = [], []
  for n in both:
    ref = lig[n]
    for r in [ref, dem[n]] + ([pj[n]] if n in pj else []):
      dh = r["bed_height"] / ref["bed_height"] - 1
      dp = r["packing"] / ref["packing"] - 1
      same = r is ref
      L.append("| %d | %s | %g | %g | %.1f | %.1f | %s | %.4f | %s | %.4f | %s | %.2g / %.2g | "
               "%.1f / %.1f |"
               % (n, CODE_NAMES[r["code"]], r["dt"], r["sim_time"], per_sim(r, "wall_s"),
                  per_sim(r, "cpu_s"), "" if same else faster(r, ref), r["bed_height"],
                  "" if same else "%+.2f%%" % (100 * dh), r["packing"],
                  "" if same else "%+.2f%%" % (100 * dp), r["vmax"], r["vmean"],
                  r["load_1min"], r.get("load_after", float("nan"))))
    d = dem[n]
    held.append(per_sim(d, "wall_s") < per_sim(ref, "wall_s"))
    close.append(abs(d["bed_height"] / ref["bed_height"] - 1) <= 0.01 and
                 abs(d["packing"] / ref["packing"] - 1) <= 0.01)
  L.append("")
  L.append("Beds within 1%% of LIGGGHTS' (height and core packing): %s. What still differs "
           "between the two laws and codes (from LIGGGHTS-PUBLIC 3.8's `normal_model_hertz.h`, "
           "`tangential_model_history.h`): LIGGGHTS caps only the tangential spring at mu Fn and "
           "drops the tangential dashpot while sliding, mjgranular caps spring and dashpot "
           "together; LIGGGHTS projects the stored shear onto the new tangent plane (shortening "
           "it), mjgranular turns it (keeping its length); velocity Verlet against symplectic "
           "Euler; double against float32; LIGGGHTS' walls 0.1%% softer; LIGGGHTS re-sorts its "
           "atoms in memory every 1000 steps.\n"
           % ("; ".join("%d grains: %s" % (n, "yes" if c else "**no**")
                        for n, c in zip(both, close))))
  L.append("**Target** (issue 13): mjgranular's DEM faster than LIGGGHTS at every N, same law, "
           "same timestep, same threads. **%s**\n"
           % ("Holds at every N measured." if all(held) else
              "Does not hold at %s grains on this machine."
              % ", ".join("%d" % n for n, h in zip(both, held) if not h)))
  return L


def report(res, out, made):
  meta = res["meta"]
  L = []
  L.append("# mjgranular against LIGGGHTS and LAMMPS\n")
  L.append("Written by `scripts/bench.sh%s` on %s. Machine: %d CPU cores (%s), %s; "
           "**%d threads for every code**. GPU: **%s**.\n"
           % ((" --quick" if meta["quick"] else "") + (" --spin" if meta.get("spin") else ""),
              meta["date"], meta["cpus"], meta["cpu_model"],
              meta["memory"], meta["threads"], meta["gpu"]))
  if meta.get("rerun"):
    L.append("Part of this page was measured again: %s.\n" % meta["rerun"])
  peak = max((v[0] for v in res["load"].values() if v), default=0.0)
  shared = ("The machine was shared while this ran: load above the core count slows every code, "
            "and the OpenMP/MPI barriers most." if peak > meta["cpus"] + 0.5 else
            "The 1-minute load stayed within the core count (%.1f at most, the benchmark's own "
            "threads included): nothing else of note ran." % peak)
  L.append("Load average (1 / 5 / 15 min, from `uptime`): at start %s; %s. %s\n"
           % (fmt_load(res["load"].get("start")),
              "; ".join("%s %s" % (k.replace("_", " "), fmt_load(v))
                        for k, v in res["load"].items() if k != "start"), shared))
  L.append("Versions: %s.\n" % "; ".join(meta["versions"]))

  # ---- settling scene ----
  if res["settle"]:
    L += settle_report(res, meta)
    L += dem_report(res)

  # ---- scaling ----
  scal = [r for r in res["scaling"] if not r.get("failed")]
  if scal:
    L.append("## Scaling with the number of grains (mjgranular, CPU)\n")
    L.append("The same scene and initial state, simulated for only the first %g s of the pour "
             "(few contacts yet, so cheaper per substep than the settled figures above; the "
             "slope is the point). %d threads.\n" % (scal[0]["sim_time"], scal[0]["threads"]))
    L.append("| grains | substeps | wall [s] | wall per simulated s [s] | particle-substeps / s | "
             "solver memory [MiB] | load (1 min) |")
    L.append("|---:|---:|---:|---:|---:|---:|---:|")
    for r in scal:
      L.append("| %d | %d | %.2f | %.2f | %.3g | %.0f | %.1f |"
               % (r["n"], r["steps"], r["wall_s"], r["wall_s"] / r["sim_time"],
                  r["n"] * r["steps"] / r["wall_s"], r["memory_mib"], r["load_1min"]))
    fails = [r for r in res["scaling"] if r.get("failed")]
    for r in fails:
      L.append("| %d | failed: %s | | | | | |" % (r["n"], r["why"]))
    if len(scal) >= 2:
      k, _ = fit_slope([r["n"] for r in scal], [r["wall_s"] / r["sim_time"] for r in scal])
      L.append("\nLog-log fit: wall time per simulated second ~ N^**%.2f** (1 is linear).\n" % k)
  brk = res.get("breakdown", [])
  if len(brk) >= 2:
    n = brk[0]["n"]
    it = np.array([r["iterations"] for r in brk], float)
    us = np.array([1e6 * r["wall_s"] / (r["n"] * r["steps"]) for r in brk])
    slope, fixed = np.polyfit(it, us, 1)
    L.append("## Where mjgranular's time goes\n")
    L.append("The settling scene at %d grains for %g s, run at 1, 10 and 20 Jacobi iterations "
             "(%d threads), wall time per grain per substep:\n"
             % (n, brk[0]["sim_time"], brk[0]["threads"]))
    L.append("| iterations | wall [s] | us per grain-substep | core packing at end | "
             "load (1 min) |")
    L.append("|---:|---:|---:|---:|---:|")
    for r, u in zip(brk, us):
      L.append("| %d | %.1f | %.2f | %.3f | %.1f |" % (r["iterations"], r["wall_s"], u,
                                                     r["packing"], r["load_1min"]))
    L.append("")
    line = ("Linear fit: **%.2f us** per grain-substep for prediction, neighbour lists, "
            "collision, pairs and integration, plus **%.2f us** per grain per Jacobi iteration "
            "(%.2f us at the default 10)." % (fixed, slope, fixed + 10 * slope))
    peer = [r for r in res["settle"] if r["code"] == "liggghts" and r["n"] == n
            and not r.get("failed")]
    if peer:
      pu = 1e6 * peer[0]["wall_s"] / (peer[0]["n"] * peer[0]["steps"])
      line += (" LIGGGHTS at the same N took %.2f us per grain-step (its neighbour list is rebuilt "
               "only when a grain has moved half the skin, not every step), %.2f us per 5e-4 s of "
               "simulated time; a 10x lead needs mjgranular at %.2f us per grain-substep."
               % (pu, 5 * pu, 0.5 * pu))
    L.append(line + "\n")
  sub = res.get("substep", [])
  if sub:
    n = sub[0]["n"]
    lig_n = [r for r in res["settle"] if r["code"] == "liggghts" and r["n"] == n
             and not r.get("failed")]
    L.append("## Larger substeps (mjgranular, CPU)\n")
    L.append("Not the comparison of the target (that is at mjgranular's default substep, above): "
             "the settling scene at %d grains for %g s with larger substeps, 10 Jacobi iterations "
             "each, and the same sanity figures, to show what a coarser substep buys and what it "
             "changes. 2e-3 s is MuJoCo's default timestep (one substep per step). LIGGGHTS at "
             "this N (from the table above, %s):\n"
             % (n, sub[0]["sim_time"], "%.2f s per simulated s, bed %.3f m, packing %.3f"
                % (lig_n[0]["wall_s"] / lig_n[0]["sim_time"], lig_n[0]["bed_height"],
                   lig_n[0]["packing"]) if lig_n else "not run"))
    L.append("| substep [s] | wall per simulated s [s] | faster than LIGGGHTS | bed height [m] | "
             "core packing | max / mean speed at end [m/s] | load (1 min) |")
    L.append("|---:|---:|---:|---:|---:|---|---:|")
    default = [r for r in res["settle"] if r["code"] == "mjgranular" and r["n"] == n
               and r["sim_time"] == sub[0]["sim_time"] and not r.get("failed")]
    for r in default[:1] + sub:
      w = r["wall_s"] / r["sim_time"]
      f = ("%.2fx" % ((lig_n[0]["wall_s"] / lig_n[0]["sim_time"]) / w)
           if lig_n and lig_n[0]["sim_time"] == r["sim_time"] else "")
      L.append("| %g | %.2f | %s | %.3f | %.3f | %.2g / %.2g | %.1f |"
               % (r["dt"], w, f, r["bed_height"], r["packing"], r["vmax"], r["vmean"],
                  r["load_1min"]))
    L.append("")
  bod = res["bodies"]
  if bod:
    L.append("## Scaling with the number of bodies (mjgranular, CPU)\n")
    L.append("The seeds' Fig. 9 (left) on their own scene: the gear tower "
             "(`scripts/examples/gear_tower.py`, "
             "as `models/gear_tower.xml` but with k gears): helical gears spinning on velocity "
             "servos, two per layer, in a tube above an orifice plate, about %d grains of radius "
             "4 mm falling through them round a vertical cyclic boundary, the gears two-way "
             "coupled. Whole `mj_step`s are timed (MuJoCo, the plugin's state transfer and the "
             "solver), %g s after an untimed %g s, 2 ms steps of 4 substeps, one run per k.\n"
             % (bod[0]["grains"], bod[0]["sim_time"], bod[0]["warmup"]))
    L.append("| gears | grains | wall per simulated s [s] | particle-substeps / s | "
             "relative to none | load (1 min) |")
    L.append("|---:|---:|---:|---:|---:|---:|")
    w0 = bod[0]["wall_per_sim_s"]
    for r in bod:
      L.append("| %d | %d | %.2f | %.3g | %.2f | %.1f |"
               % (r["bodies"], r["grains"], r["wall_per_sim_s"], r["pss"],
                  r["wall_per_sim_s"] / w0, r["load_1min"]))
    L.append("")
    L.append("Each grain tests every shape's bounding sphere each substep, a gear's distance grid "
             "is read by the grains near it, and the gears stir more grains into motion and "
             "contact; the tower is taller with more gears, so the grains fall further.\n")

  # ---- seeds' figures ----
  hs = res["hash"]
  if hs:
    L.append("## Seeds' Fig. 3: speed against hash table size\n")
    L.append("A square column four times as tall as wide, poured from a loose lattice and settled "
             "(untimed, substep 1 ms), "
             "then timed for %d substeps at the defaults for each table size "
             "(`grnParams.hash_size`, buckets; the default is 2N), the fastest of %d timings. "
             "Particle-substeps per second (x real time in brackets):\n"
             % (hs[0]["substeps"], hs[0].get("repeat", 1)))
    sizes = sorted({r["grains"] for r in hs})
    factors = sorted({r["hash_factor"] for r in hs})
    L.append("| table size | " + " | ".join("%d grains" % n for n in sizes) + " |")
    L.append("|---:|" + "---:|" * len(sizes))
    for f in factors:
      cells = []
      for n in sizes:
        m = [r for r in hs if r["grains"] == n and r["hash_factor"] == f]
        if m:
          best = max(r["pss"] for r in hs if r["grains"] == n)
          cell = "%.3g (%.3gx)" % (m[0]["pss"], 1 / m[0]["wall_per_sim_s"])
          cells.append("**%s**" % cell if m[0]["pss"] == best else cell)
        else:
          cells.append("")
      L.append("| %gN%s | %s |" % (f, " (default)" if f == 2 else "", " | ".join(cells)))
    L.append("")
    col = {n: [r for r in hs if r["grains"] == n][0] for n in sizes}
    L.append("Columns: " + "; ".join("%d grains %.2f m tall, %.1f contacts per grain"
                                     % (n, col[n]["column_height"], col[n]["contacts_per_grain"])
                                     for n in sizes) + ". Bold: fastest per column. The hash is "
             "built only when the neighbour lists are (a grain has moved half the skin), so "
             "its size matters less here than in the seeds' solver, which hashes every "
             "substep.\n")
  if res.get("errors"):
    L.append("**Failures** (see bench.log): %s.\n" % "; ".join(res["errors"]))
  lp = res.get("loops", [])
  if lp:
    L.append("## Seeds' Fig. 6: one loop against split collide / resolve\n")
    L.append("The settled column of the table above, timed for %d substeps at the defaults, the "
             "fastest of %d timings, with each Jacobi iteration done two ways "
             "(`grnParams.one_loop`):\n\n"
             "- **split** (the default; the seeds' TWOLOOPSSPLIT): the narrowphase finds every "
             "grain's contacts once per substep and numbers the grain-grain ones as pairs; each "
             "iteration is two passes, every pair solved once (the partner takes the exact "
             "negative), then every grain sums its pairs' and shape contacts' impulses.\n"
             "- **one loop** (the seeds' ONELOOP): each iteration is one pass in which every "
             "grain finds its contacts again (distance tests over its neighbour list) and solves "
             "each from its own side, contact frame included.\n\n"
             "Both give the same grains bit for bit (`SolverCpu.OneLoopGivesTheSameResultsAs"
             "SplitPasses`), so the table compares speed alone.\n"
             % (lp[0]["substeps"], lp[0].get("repeat", 1)))
    L.append("| grains | split: particle-substeps / s | one loop: particle-substeps / s | "
             "split faster by |")
    L.append("|---:|---:|---:|---:|")
    for n in sorted({r["grains"] for r in lp}):
      sp = [r for r in lp if r["grains"] == n and r["one_loop"] == 0]
      ol = [r for r in lp if r["grains"] == n and r["one_loop"] == 1]
      if sp and ol:
        L.append("| %d | %.3g | %.3g | %.2fx |" % (n, sp[0]["pss"], ol[0]["pss"],
                                                  sp[0]["pss"] / ol[0]["pss"]))
    L.append("")
  sk = res.get("skin", [])
  if sk:
    L.append("## Neighbour-list skin\n")
    L.append("The same column, timed at each skin (`grnParams.skin`, radii; the lists are "
             "rebuilt from the hash when a grain has moved 0.49 skin; 0 rebuilds every "
             "substep). The contacts, and so the results, are the same at every skin "
             "(`GrnCollide.SkinDoesNotChangeResults`). Particle-substeps per second:\n")
    sizes = sorted({r["grains"] for r in sk})
    L.append("| skin [r] | " + " | ".join("%d grains" % n for n in sizes) + " |")
    L.append("|---:|" + "---:|" * len(sizes))
    for v in sorted({r["skin"] for r in sk}):
      cells = []
      for n in sizes:
        m = [r for r in sk if r["grains"] == n and r["skin"] == v]
        cells.append("%.3g" % m[0]["pss"] if m else "")
      L.append("| %g%s | %s |" % (v, " (default)" if v == 0.5 else "", " | ".join(cells)))
    L.append("")
  if made:
    L.append("## Plots\n")
    for p in made:
      L.append("- `%s`" % os.path.basename(p))
    L.append("")
  text = "\n".join(L)
  with open(os.path.join(out, "peers.md"), "w") as f:
    f.write(text)
  return text


# ---- main ---------------------------------------------------------------------------------------

def versions(cwd):
  """versions of the peers and of this checkout (the peers run in cwd: they write logs there)."""
  v = []
  try:
    head = subprocess.run(["lmp", "-h"], capture_output=True, text=True, timeout=60,
                          cwd=cwd).stdout
    m = re.search(r"Large-scale Atomic/Molecular Massively Parallel Simulator - (.*)", head)
    v.append("LAMMPS %s" % (m.group(1).strip() if m else "?"))
  except (OSError, subprocess.SubprocessError):
    v.append("LAMMPS not found")
  try:
    head = subprocess.run(["liggghts", "-h"], input="", capture_output=True, text=True,
                          timeout=60, cwd=cwd).stdout
    m = re.search(r"LIGGGHTS \(Version ([^,)]*)", head)
    v.append("LIGGGHTS %s" % (m.group(1) if m else "?"))
  except (OSError, subprocess.SubprocessError):
    v.append("LIGGGHTS not found")
  try:
    pkg = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}, ", "liggghts",
                          "lammps"], capture_output=True, text=True).stdout
    v.append("Debian packages %s" % pkg.strip(", "))
  except OSError:
    pass
  v.append("mjgranular %s" % subprocess.run(["git", "describe", "--always", "--dirty"],
                                            capture_output=True, text=True,
                                            cwd=os.path.dirname(os.path.abspath(__file__))
                                            ).stdout.strip())
  return v


def cuda_info(exe):
  p = subprocess.run([exe], capture_output=True, text=True)
  m = re.search(r"cuda: (.*)", p.stderr)
  return m.group(1).strip() if m else "unknown"


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--exe", required=True, help="bench_settle executable")
  ap.add_argument("--out", default="out/bench")
  ap.add_argument("--quick", action="store_true", help="small N, short times (development, CI)")
  ap.add_argument("--threads", type=int, default=os.cpu_count())
  ap.add_argument("--peers", default="liggghts,lammps", help="comma list, or 'none'")
  ap.add_argument("--models", default="pj,dem",
                  help="mjgranular's models in the settling scene: pj (its default, at its own "
                       "substep), dem (LIGGGHTS' law at the peers' timestep); comma list")
  ap.add_argument("--only", default="settle,scaling,breakdown,substep,bodies,hash,loops,skin",
                  help="parts to run: settle, scaling, breakdown, substep, bodies, hash, loops, "
                       "skin")
  ap.add_argument("--report-only", action="store_true", help="redo table and plots from json")
  ap.add_argument("--spin", action="store_true",
                  help="waiting OpenMP threads and MPI ranks poll instead of sleeping or yielding "
                       "(faster for every code on an otherwise idle machine)")
  ap.add_argument("--timeout", type=float, default=1800, help="per run [s]")
  ap.add_argument("--sizes", dest="sizes_arg", help="settling-scene grain counts (comma list)")
  ap.add_argument("--time", dest="time_arg", type=float, help="settling-scene simulated time [s]")
  ap.add_argument("--scale-sizes", dest="scale_arg", help="scaling grain counts (comma list)")
  a = ap.parse_args()
  a.peers = [] if a.peers == "none" else a.peers.split(",")
  a.models = [m for m in a.models.split(",") if m]
  if any(m not in MODEL_CODES for m in a.models):
    ap.error("--models: pj and/or dem")
  parts = a.only.split(",")
  a.parts, a.parts_given = parts, "--only" in sys.argv
  if a.quick:
    a.sizes, a.times = [2000, 5000], [0.1, 0.1]
    a.break_grains, a.break_time = 2000, 0.05
    a.substep_grains, a.substep_time, a.substeps = 2000, 0.1, [1e-3, 2e-3]
    a.scale_sizes, a.scale_time = [2000, 5000, 10000, 20000], 0.02
    a.body_grains, a.body_counts, a.body_time, a.body_settle = 1000, "0,2", 0.02, 0.02
    a.hash_sizes, a.hash_factors, a.hash_substeps, a.hash_settle = [2000], "0.5,1,2,4,8", 20, 0.1
    a.hash_repeat = 2
    a.skins = "0,0.5,1"
  else:
    a.sizes, a.times = [10000, 50000, 100000], [1.0, 0.5, 0.5]
    a.break_grains, a.break_time = 10000, 0.3
    a.substep_grains, a.substep_time, a.substeps = 10000, 1.0, [1e-3, 2e-3]
    a.scale_sizes, a.scale_time = [10000, 30000, 100000, 300000, 1000000], 0.02
    a.body_grains, a.body_counts, a.body_time, a.body_settle = 10000, "0,2,4,8,16", 0.1, 0.3
    a.hash_sizes, a.hash_factors, a.hash_substeps, a.hash_settle = ([10000, 30000],
                                                                    "0.5,1,2,4,8", 40, 0.6)
    a.hash_repeat = 3
    a.skins = "0,0.25,0.5,1,2"
  if a.sizes_arg:
    a.sizes = [int(float(x)) for x in a.sizes_arg.split(",")]
    a.times = (a.times + [a.times[-1]] * len(a.sizes))[:len(a.sizes)]
  if a.time_arg:
    a.times = [a.time_arg] * len(a.sizes)
  if a.scale_arg:
    a.scale_sizes = [int(float(x)) for x in a.scale_arg.split(",")]
  out = os.path.abspath(a.out)
  os.makedirs(out, exist_ok=True)
  if a.report_only:
    res = json.load(open(os.path.join(out, "results.json")))
    print(report(res, out, plots(res, out)))
    return 0

  b = Bench(a)
  info = cuda_info(b.exe)
  a.gpu = not info.startswith("no ") and "not compiled" not in info and "unavailable" not in info
  cpu_model = "?"
  try:
    for line in open("/proc/cpuinfo"):
      if line.startswith("model name"):
        cpu_model = line.split(":", 1)[1].strip()
        break
  except OSError:
    pass
  mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
  old_meta = b.results["meta"]
  b.results["meta"] = {
    "quick": a.quick, "date": time.strftime("%Y-%m-%d %H:%M %Z"), "cpus": os.cpu_count(),
    "cpu_model": cpu_model, "memory": "%.0f GiB memory" % mem, "threads": a.threads,
    "spin": a.spin,
    "gpu": info if a.gpu else "no GPU (%s)" % info, "versions": versions(b.work),
    "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()}
  if a.parts_given and old_meta:
    old_meta["rerun"] = "%s rerun on %s, load %s" % (a.only, b.results["meta"]["date"],
                                                     fmt_load(load()))
    b.results["meta"] = old_meta
  else:
    b.results["load"]["start"] = load()
  b.say("%d threads; load %s; GPU: %s" % (a.threads, fmt_load(load()), b.results["meta"]["gpu"]))
  t0 = time.monotonic()
  if "settle" in parts:
    b.settle()
  if "scaling" in parts:
    b.scaling()
  if "breakdown" in parts:
    b.breakdown()
  if "substep" in parts:
    b.substep()
  if "bodies" in parts:
    b.bodies()
  if "hash" in parts:
    b.hash()
  if "loops" in parts:
    b.loops()
  if "skin" in parts:
    b.skin()
  b.results["load"]["end"] = load()
  b.results["meta"]["total_s"] = time.monotonic() - t0
  b.save()
  made = plots(b.results, out)
  text = report(b.results, out, made)
  b.say("done in %.0f s: %s, %s" % (time.monotonic() - t0, os.path.join(out, "peers.md"),
                                    ", ".join(made)))
  print(text)
  return 0


if __name__ == "__main__":
  sys.exit(main())
