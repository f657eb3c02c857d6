"""Runs a granular scene headless through the mjgranular plugin and renders its final state.

Loads the package's scene "sandbox" (models/sandbox.xml; `import mujoco` has loaded the plugin),
steps it for a few simulated seconds while printing a progress bar (simulated time, grains, speed
as a multiple of real time), then renders the final state offscreen (OSMesa unless MUJOCO_GL
says otherwise) to a PNG file and prints its path.

  .venv/bin/python scripts/examples/demo.py --seconds 2 --out out/sandbox.png
"""

import argparse
import os
import sys
import time

# offscreen rendering without a display; must be chosen before mujoco is imported
os.environ.setdefault("MUJOCO_GL", "osmesa")
if os.environ["MUJOCO_GL"] == "osmesa":
  os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")

# openmp threads that sleep at barriers instead of spinning: on a machine with other work running,
# spinning threads stall each other (5x slower on 2 busy cores); on an idle one it costs a few %.
# read by libgomp when the plugin loads it
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import mjgranular  # noqa: E402  (the plugin_state layout, once)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository


def parse_args():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--seconds", type=float, default=2.0, help="simulated time [s] (default 2)")
  p.add_argument("--model", default="sandbox", help="MJCF file or a scene's name (sandbox)")
  p.add_argument("--out", default=os.path.join(ROOT, "out", "sandbox.png"), help="PNG to write")
  p.add_argument("--camera", default="overview", help="camera name in the model")
  p.add_argument("--width", type=int, default=1280)
  p.add_argument("--height", type=int, default=960)
  return p.parse_args()


def grains(m, d):
  """Positions and velocities (n x 3) of the first granular instance, as views of plugin_state."""
  g = mjgranular.grains(m, d)
  return g.positions, g.velocities


def bar(done, total, width=30):
  filled = int(width * done / total) if total else width
  return "[" + "#" * filled + "." * (width - filled) + "]"


def main():
  args = parse_args()
  if not os.path.isfile(args.model):
    args.model = mjgranular.scene(args.model)

  # the plugin (loaded by `import mujoco` already; this says what is missing, if anything)
  mjgranular.load_plugin()
  m = mujoco.MjModel.from_xml_path(args.model)
  d = mujoco.MjData(m)
  if m.nplugin < 1:
    sys.exit(f"demo: {args.model} declares no granular terrain")
  n = len(grains(m, d)[0])
  substeps = mjgranular.substeps(m, mjgranular.timestep(m))
  nstep = max(1, round(args.seconds / m.opt.timestep))
  print(f"demo: {os.path.relpath(args.model, ROOT)}: {n} grains, mujoco {mujoco.__version__}, "
        f"step {m.opt.timestep:g} s in {substeps} granular substeps, "
        f"{args.seconds:g} s simulated, {os.cpu_count()} cpus, "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'all')}")

  # headless run with a progress bar
  tty = sys.stdout.isatty()
  every = max(1, nstep // 200) if tty else max(1, nstep // 10)
  start = time.perf_counter()
  for k in range(1, nstep + 1):
    mujoco.mj_step(m, d)
    if k % every == 0 or k == nstep:
      wall = time.perf_counter() - start
      speed = d.time / wall if wall > 0 else 0.0
      eta = (nstep - k) * wall / k
      line = (f"{bar(k, nstep)} t = {d.time:6.3f} / {nstep * m.opt.timestep:.3f} s   "
              f"grains {n}   speed {speed:.4f}x real time   eta {eta:5.0f} s")
      print(("\r" + line) if tty else line, end="" if tty else "\n", flush=True)
  if tty:
    print()
  wall = time.perf_counter() - start

  # what happened to the bed
  pos, vel = grains(m, d)
  speed = d.time / wall
  pss = n * substeps * nstep / wall
  print(f"demo: {d.time:.3f} s simulated in {wall:.1f} s wall: {speed:.4f}x real time, "
        f"{pss / 1e6:.2f} M particle-substeps/s")
  print(f"demo: bed top {pos[:, 2].max() * 1000:.1f} mm, mean height "
        f"{pos[:, 2].mean() * 1000:.1f} mm, max grain speed {np.abs(vel).max():.3f} m/s, "
        f"finite: {bool(np.isfinite(pos).all())}")

  # the final state as a picture
  os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
  t0 = time.perf_counter()
  max_geom = n + m.ngeom + 1000
  with mujoco.Renderer(m, args.height, args.width, max_geom=max_geom) as renderer:
    renderer.update_scene(d, camera=args.camera if args.camera else -1)
    pixels = renderer.render()
  from PIL import Image  # pinned with mujoco by scripts/setup.sh
  Image.fromarray(pixels).save(args.out)
  print(f"demo: rendered {args.width}x{args.height} ({os.environ['MUJOCO_GL']}) in "
        f"{time.perf_counter() - t0:.1f} s")
  print(f"demo: picture: {os.path.abspath(args.out)}")


if __name__ == "__main__":
  main()
