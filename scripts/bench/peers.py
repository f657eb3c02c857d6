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

The scene and its measures are peer_scene.py, running the codes peer_runs.py, the page and
its plots peer_report.py; this file is the command line.
"""

import argparse
import json
import os
import subprocess
import sys
import time

from peer_report import cuda_info, fmt_load, plots, report, versions
from peer_runs import Bench, load
from peer_scene import MODEL_CODES


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
  try:
    made = plots(b.results, out)
  except ImportError as e:
    # run by hand without scripts/bench.sh, which installs it: the tables still make the page
    b.say("plots skipped: %s (scripts/bench.sh installs matplotlib)" % e)
    made = []
  text = report(b.results, out, made)
  b.say("done in %.0f s: %s, %s" % (time.monotonic() - t0, os.path.join(out, "peers.md"),
                                    ", ".join(made)))
  print(text)
  return 0


if __name__ == "__main__":
  sys.exit(main())
