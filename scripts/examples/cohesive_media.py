"""Dry sand against cohesive soil, side by side: the README's pictures (OSMesa, Pillow).

  cut     models/cohesive_cut.xml at keyframe "cut", one frame at --time with the model's adhesion
          and one with adhesion 0 (set in the config before compiling): the bank that stands and
          is cut, against the sand that ran out from under the gate
  franka  the scoop lifted and held, from two runs of scripts/examples/excavate.py (dry and --soil
          cohesive): their snapshot "hold" in the scene scripts/examples/excavate_media.py rebuilds,
          seen from above the bucket's open side

  .venv/bin/python scripts/examples/cohesive_media.py cut --out scripts/media/cohesive_cut.png
  .venv/bin/python scripts/examples/excavate.py --quick --no-media
  .venv/bin/python scripts/examples/excavate.py --quick --soil cohesive --no-media
  .venv/bin/python scripts/examples/cohesive_media.py franka out/excavate out/excavate_cohesive \\
      --out scripts/media/cohesive_franka.png
The README's pictures are what these commands write.

PNGs are written with a 256-colour palette to keep them small.
"""

import argparse
import json
import os
import time

os.environ.setdefault("MUJOCO_GL", "osmesa")
if os.environ["MUJOCO_GL"] == "osmesa":
  os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import excavate_media  # noqa: E402
import mjgranular  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository
CUT = os.path.join(ROOT, "models", "cohesive_cut.xml")


def side_by_side(tiles, path):
  """Writes the (label, pixels) tiles in a row as one palette PNG."""
  from PIL import Image, ImageDraw
  h, w = tiles[0][1].shape[:2]
  row = Image.new("RGB", (w * len(tiles), h), "white")
  for k, (label, pixels) in enumerate(tiles):
    tile = Image.fromarray(pixels)
    draw = ImageDraw.Draw(tile)
    lines = label.split("\n")
    draw.rectangle((0, 0, 12 + 6 * max(len(line) for line in lines), 10 + 13 * len(lines)),
                   fill=(0, 0, 0))
    for j, line in enumerate(lines):
      draw.text((8, 6 + 13 * j), line, fill=(255, 255, 255))
    row.paste(tile, (k * w, 0))
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  row.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
  print(f"cohesive_media: wrote {path} ({os.path.getsize(path) / 1e3:.0f} kB)")


def cut_frame(adhesion, seconds, camera, width, height):
  """(pixels, adhesion [Pa], wall [s]): models/cohesive_cut.xml from keyframe "cut" after
  `seconds`, with its own adhesion when `adhesion` is None."""
  if adhesion is None:
    adhesion = float(mjgranular.terrain_config(CUT)["adhesion"])
  m = mjgranular.configured(CUT, {"adhesion": adhesion})
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, m.key("cut").id)
  g = mjgranular.grains(m, d)
  start = time.perf_counter()
  while d.time < seconds - 1e-9:
    mujoco.mj_step(m, d)
  wall = time.perf_counter() - start
  mujoco.mj_forward(m, d)
  with mujoco.Renderer(m, height, width, max_geom=m.ngeom + g.capacity + 1000) as renderer:
    renderer.update_scene(d, camera=camera)
    pixels = renderer.render().copy()
  print(f"cohesive_media: cut, adhesion {adhesion:g} Pa: {g.count} grains, "
        f"{seconds:g} s in {wall:.0f} s wall ({seconds / wall:.3f}x real time)", flush=True)
  return pixels, adhesion, wall


def cut(args):
  mjgranular.load_plugin()
  tiles = []
  for adhesion in (0, None):
    pixels, value, _ = cut_frame(adhesion, args.time, args.camera, args.width, args.height)
    soil = f"cohesive, adhesion {value:g} Pa" if value > 0 else "dry, adhesion 0"
    tiles.append((f"{soil}\nt = {args.time:g} s", pixels))
  side_by_side(tiles, args.out)


def held(folder, width, height, label="hold"):
  """(pixels, summary): the snapshot `label` of an excavate.py run, drawn as excavate_media does
  but from above the bucket's open side, looking into it."""
  with open(os.path.join(folder, "excavate.json")) as f:
    summary = json.load(f)
  runs = dict(np.load(os.path.join(folder, "excavate.npz")))
  k = list(runs["shot_label"]).index(label)
  one = {f"shot_{key}": runs[f"shot_{key}"][k:k + 1] for key in ("time", "qpos", "grains")}
  m, d, grains, _ = excavate_media._scene(summary)
  camera = mujoco.MjvCamera()
  camera.lookat[:] = (0.62, 0.0, 0.19)
  camera.distance, camera.azimuth, camera.elevation = 0.55, 132.0, -30.0
  pixels = excavate_media._render((m, d, grains, camera), one, "shot", width, height)[0]
  return pixels, summary


def franka(args):
  tiles = []
  for folder in (args.dry, args.cohesive):
    pixels, s = held(folder, args.width, args.height)
    hold = s["coupling"]["hold"]
    carried = hold.get("carried_grains", hold["grains"])
    tiles.append((f"{s.get('soil', 'dry')}: {hold['grains']:.0f} grains in the bucket, "
                  f"{carried:.0f} carried ({carried * s['grain_mass_kg'] * 1e3:.0f} g)", pixels))
  side_by_side(tiles, args.out)


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  sub = p.add_subparsers(dest="what", required=True)
  c = sub.add_parser("cut", help="models/cohesive_cut.xml, dry against cohesive")
  c.add_argument("--time", type=float, default=2.4, help="simulated time of the frame [s] (2.4)")
  c.add_argument("--camera", default="side", help="camera (side)")
  c.add_argument("--out", default=os.path.join(ROOT, "out", "cohesive_cut.png"))
  f = sub.add_parser("franka", help="two excavate.py runs, dry against cohesive")
  f.add_argument("dry", help="folder of the dry run")
  f.add_argument("cohesive", help="folder of the cohesive run")
  f.add_argument("--out", default=os.path.join(ROOT, "out", "cohesive_franka.png"))
  for q, height in ((c, 300), (f, 360)):
    q.add_argument("--width", type=int, default=480, help="tile width [px] (480)")
    q.add_argument("--height", type=int, default=height, help=f"tile height [px] ({height})")
  args = p.parse_args()
  cut(args) if args.what == "cut" else franka(args)


if __name__ == "__main__":
  main()
