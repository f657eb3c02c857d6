"""Running the codes of peers.py and reading back what they did: bench_settle for mjgranular's
models and the parts that time mjgranular alone, mpirun with an input script for LIGGGHTS and
LAMMPS, and the load average and CPU seconds of each run.

Every run becomes a row of results.json, from which peer_report.py writes the page: a report can
be redone without running anything (peers.py --report-only), and a run of some parts only keeps
the other parts' rows. repose.py runs LIGGGHTS through run() too.
"""

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
from peer_scene import (BED_DEPTH, DEM_LAW, FRICTION, GRAVITY, INIT_PACKING, MODEL_CODES,
                        PEER_DT, POISSON, RADIUS, RESTITUTION, ROLLING, SEED, SKIN, TORSIONAL,
                        WALL_YOUNG_FACTOR, YOUNG, box_width, grain_volume, sanity,
                        write_lammps_data)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

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

