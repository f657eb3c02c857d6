#!/usr/bin/env python3
"""Beds of cubes with contact fields against clumps, what they cost and how they pack: 1 cm cubes
(models/assets/cube.xml) poured into a walled box 10 cm wide, model dem, stepped through MuJoCo
with shape_model clump at 4, 8 and 16 spheres and with shape_model cem (models/assets/cube.cem;
the cubes' 8 fitted spheres meet the floor and the walls).

    .venv/bin/python scripts/bench/cem_beds.py [--grains 400] [--settle 0.5] [--time 0.02]

Each variant runs in a process of its own (one thread): the bed is filled by the lattice (a
jittered lattice of turned cubes), settled for --settle simulated seconds untimed, then --time
seconds are timed. Printed per variant: grains, solver spheres per grain, substeps, wall time
per substep, particle-substeps per second per grain (PSS), the process's peak resident memory,
the grains' largest speed at the end, and the bed's core packing fraction: the share of points
(a uniform lattice, 2 mm apart) inside some cube's mesh, in the core 2 side lengths from the
walls and the floor and below the surface's mean height less 2 sides (the surface: the highest
mesh vertex in each 1 cm column).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

import grain_shapes  # (the meshes as drawn)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUBE_XML = os.path.join(ROOT, "models", "assets", "cube.xml")
CUBE_FIELDS = os.path.join(ROOT, "models", "assets", "cube.cem")
HALF = 0.005     # the cube's half side [m]
BOX = 0.05       # half the box's width [m]


def mjcf(variant, grains, top=None):
  """the scene; without top an empty terrain of count grains (to size the fill box)."""
  import re
  with open(CUBE_XML) as f:
    asset = re.search(r"<asset>.*</asset>", f.read(), re.S).group(0)
  spheres = 8 if variant == "cem" else int(variant)
  fill = [("fill", "%g %g 0.002 %g %g %g" % (-BOX, -BOX, BOX, BOX, top))] if top else []
  keys = fill + [("count", grains),
          ("shape", "cube"), ("clump_spheres", spheres), ("model", "dem"), ("backend", "cpu"),
          ("rolling_friction", 0), ("torsional_friction", 0), ("coupling", "one-way")]
  if variant == "cem":
    keys += [("shape_model", "cem"), ("cem_fields", CUBE_FIELDS)]
  walls = "".join(
    '<geom type="box" pos="%g %g 0.1" size="%g %g 0.1"/>' % (x, y, sx, sy)
    for x, y, sx, sy in ((BOX + 0.005, 0, 0.005, BOX + 0.01), (-BOX - 0.005, 0, 0.005, BOX + 0.01),
                         (0, BOX + 0.005, BOX + 0.01, 0.005), (0, -BOX - 0.005, BOX + 0.01, 0.005)))
  return """<mujoco><option timestep="0.002"/>%s
  <extension><plugin plugin="mjgranular.terrain"><instance name="bed">%s</instance></plugin>
  </extension><worldbody><plugin instance="bed"/><geom type="plane" size="1 1 0.1"/>%s
  </worldbody></mujoco>""" % (asset, "".join('<config key="%s" value="%s"/>' % kv for kv in keys),
                              walls)


def run(variant, grains, settle, timed):
  import mujoco
  import mjgranular  # noqa: F401 (registers the plugin)
  # the fill box as tall as the grains need: the lattice's count grows with its top
  empty = mujoco.MjModel.from_xml_string(mjcf(variant, grains))
  top = 0.01
  while mjgranular.fill_count(empty, 0, (-BOX, -BOX, 0.002, BOX, BOX, top + 0.001)) <= grains:
    top += 0.001
  m = mujoco.MjModel.from_xml_string(mjcf(variant, grains, top))
  d = mujoco.MjData(m)
  nsub = int(round(m.opt.timestep / mjgranular.timestep(m)))
  for _ in range(int(round(settle / m.opt.timestep))):
    mujoco.mj_step(m, d)
  steps = int(round(timed / m.opt.timestep))
  t0 = time.perf_counter()
  for _ in range(steps):
    mujoco.mj_step(m, d)
  wall = time.perf_counter() - t0
  g = mjgranular.grains(m, d)
  n = len(g.positions)
  sub = steps * max(nsub, 1)
  return {"variant": variant, "grains": n, "spheres": 9 if variant == "cem" else int(variant),
          "substeps": sub, "ms_per_substep": 1e3 * wall / sub, "pss": n * sub / wall,
          "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
          "speed": float(np.linalg.norm(np.asarray(g.velocities), axis=1).max()),
          "packing": core_packing(m, d, n)}


def core_packing(m, d, n, spacing=0.002):
  """the share of lattice points in the bed's core of n cubes inside a cube (the cube:
  |x|_inf < HALF in its mesh frame)."""
  pos, mat, _ = grain_shapes.mesh_poses(m, d, n)
  corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * HALF
  tops = (pos[:, None, 2] + np.einsum("nij,kj->nki", mat, corners)[:, :, 2]).max(axis=1)
  cells = np.floor((pos[:, :2] + BOX) / 0.01).astype(int)
  surface = {}
  for c, top in zip(map(tuple, cells), tops):
    surface[c] = max(surface.get(c, 0.0), top)
  height = float(np.mean(list(surface.values())))
  margin = 4 * HALF
  axis = np.arange(-BOX + margin, BOX - margin, spacing)
  zs = np.arange(margin, height - margin, spacing)
  if len(zs) == 0:
    return float("nan")
  pts = np.stack(np.meshgrid(axis, axis, zs, indexing="ij"), -1).reshape(-1, 3)
  inside = np.zeros(len(pts), bool)
  for p, r in zip(pos, mat):
    near = np.abs(pts - p).max(axis=1) < 2 * HALF
    local = (pts[near] - p) @ r
    inside[np.flatnonzero(near)[np.abs(local).max(axis=1) < HALF]] = True
  return float(inside.mean())


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--grains", type=int, default=400)
  ap.add_argument("--settle", type=float, default=0.5)
  ap.add_argument("--time", type=float, default=0.02)
  ap.add_argument("--variants", default="4,8,16,cem")
  ap.add_argument("--one", help=argparse.SUPPRESS)
  a = ap.parse_args()
  if a.one:
    print(json.dumps(run(a.one, a.grains, a.settle, a.time)))
    return
  env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
  print("| shape model | grains | solver spheres per grain | substeps | ms per substep | PSS per "
        "grain | peak memory MB | largest speed m/s | core packing |\n"
        "|---|---|---|---|---|---|---|---|---|")
  for v in a.variants.split(","):
    out = subprocess.run([sys.executable, __file__, "--one", v, "--grains", str(a.grains),
                          "--settle", str(a.settle), "--time", str(a.time)], env=env,
                         check=True, capture_output=True, text=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    name = "cem" if v == "cem" else "clump %s" % v
    print("| %s | %d | %d | %d | %.3g | %.3g | %.0f | %.2g | %.3f |" % (
      name, r["grains"], r["spheres"], r["substeps"], r["ms_per_substep"], r["pss"], r["rss_mb"],
      r["speed"], r["packing"]))
    sys.stdout.flush()


if __name__ == "__main__":
  main()
