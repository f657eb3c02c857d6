"""Spheres, cubes and gravel side by side: the README's picture of grain shapes (OSMesa, Pillow).

models/gravel.xml three times, its terrain's grains changed through mujoco.MjSpec: spheres of
5 mm radius, cubes of 8 mm side (a cube mesh added to the spec) and the scene's own stones; each
bed as many grains as the fill box holds (mjgranular.fill_count), the steel cube and the wooden
ball dropped on it, one frame at --time from the camera "overview".

  .venv/bin/python scripts/examples/shapes_media.py --out scripts/media/shapes.png
The README's picture is what this command writes.
"""

import argparse
import os
import time

os.environ.setdefault("MUJOCO_GL", "osmesa")
if os.environ["MUJOCO_GL"] == "osmesa":
  os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import mujoco  # noqa: E402

import mjgranular  # noqa: E402
from cohesive_media import side_by_side  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository
GRAVEL = os.path.join(ROOT, "models", "gravel.xml")
HALF = 0.004  # half the side of the cubes [m]

# the beds: label, the terrain keys set over the scene's
BEDS = (
    ("spheres, radius 5 mm", {"shape": "sphere", "radius": "0.005"}),
    ("cubes, 8 mm", {"shape": "cube"}),
    ("gravel: three rock meshes", {}),
)


def bed(keys):
  """The gravel scene with these terrain keys, as many grains as its fill box holds."""
  spec = mujoco.MjSpec.from_file(GRAVEL)
  corners = [(x, y, z) for x in (-HALF, HALF) for y in (-HALF, HALF) for z in (-HALF, HALF)]
  spec.add_mesh(name="cube", uservert=[c for corner in corners for c in corner])
  config = dict(spec.plugins[0].config, **keys)
  spec.plugins[0].config = dict(config, count="1", fill="")
  count = mjgranular.fill_count(spec.compile(), 0, [float(v) for v in config["fill"].split()])
  spec.plugins[0].config = dict(config, count=str(count))
  return spec.compile()


def frame(label, keys, seconds, width, height):
  """(label with the grain count, pixels) of one bed after `seconds`."""
  m = bed(keys)
  d = mujoco.MjData(m)
  g = mjgranular.grains(m, d)
  start = time.perf_counter()
  while d.time < seconds - 1e-9:
    mujoco.mj_step(m, d)
  wall = time.perf_counter() - start
  mujoco.mj_forward(m, d)
  with mujoco.Renderer(m, height, width, max_geom=m.ngeom + g.capacity + 1000) as renderer:
    renderer.update_scene(d, camera="overview")
    pixels = renderer.render().copy()
  print(f"shapes_media: {label}: {g.count} grains, {seconds:g} s in {wall:.0f} s wall",
        flush=True)
  return f"{label}: {g.count} grains\nt = {seconds:g} s", pixels


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--time", type=float, default=1.5, help="simulated time [s] (1.5)")
  p.add_argument("--width", type=int, default=640)
  p.add_argument("--height", type=int, default=480)
  p.add_argument("--out", default=os.path.join(ROOT, "out", "shapes.png"))
  args = p.parse_args()
  mjgranular.load_plugin()
  tiles = [frame(label, keys, args.time, args.width, args.height) for label, keys in BEDS]
  side_by_side(tiles, args.out)


if __name__ == "__main__":
  main()
