"""The page of peers.py (peers.md) and its plots, from results.json alone, and the versions and
GPU recorded with the results.

Kept apart from the runs so that the page can be rewritten, or its wording changed, from the
results of an earlier run (peers.py --report-only).
"""

import os
import re
import subprocess

import numpy as np

import peer_law
from peer_scene import (BED_DEPTH, BED_PACKING, CODE_NAMES, DENSITY, FRICTION, GRAVITY,
                        INIT_PACKING, MODEL_CODES, PEER_DT, POISSON, RADIUS, RESTITUTION, ROLLING,
                        SKIN, TORSIONAL, WALL_YOUNG_FACTOR, YOUNG, hertz_time, rayleigh_time)

# ---- report -------------------------------------------------------------------------------------

def fit_slope(x, y):
  """slope and intercept of log y against log x."""
  k, c = np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)
  return float(k), float(c)


def _save(fig, out, name, made):
  """lays the figure out, writes it to out/name, closes it and records the file in made."""
  import matplotlib.pyplot as plt
  fig.tight_layout()
  path = os.path.join(out, name)
  fig.savefig(path, dpi=120)
  plt.close(fig)
  made.append(path)


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
    _save(fig, out, "peers.png", made)
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
    _save(fig, out, "scaling_grains.png", made)
  bod = res["bodies"]
  if len(bod) >= 2:
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    ax.plot([r["bodies"] for r in bod], [r["wall_per_sim_s"] for r in bod], "o-")
    ax.set_xlabel("gears in the gear tower")
    ax.set_ylabel("wall time per simulated second [s]")
    ax.set_title("mjgranular CPU, %d grains, %d threads" % (bod[0]["grains"], bod[0]["threads"]))
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    _save(fig, out, "scaling_bodies.png", made)
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
    _save(fig, out, "hash_size.png", made)
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


# ---- versions -----------------------------------------------------------------------------------

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
