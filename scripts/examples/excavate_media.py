"""Plots, frame strip and animation of an excavate.py run (matplotlib, Pillow, OSMesa).

Reads the run's excavate.json and excavate.npz (figures, time series, snapshots of the arm and the
grains), renders the snapshots in the scene rebuilt by scripts/examples/franka_scene.py, and writes
into the run's folder:
  excavate.png   grains in the scoop and their mass, granular force on the scoop, joint torques
                 with and without sand over the lift and hold, torque difference against J^T m g
  mass.png       the scooped mass over time (the README's plot)
  strip.png      frames at the end of the phases
  excavate.gif   the run (when it was run with --gif)
matplotlib is pinned in scripts/versions.sh (MJGRANULAR_BENCH_PY_PACKAGES); scripts/excavate.sh
installs it.

  .venv/bin/python scripts/examples/excavate_media.py out/excavate      # again, from a finished run
"""

import argparse
import json
import os

os.environ.setdefault("MUJOCO_GL", "osmesa")
if os.environ["MUJOCO_GL"] == "osmesa":
  os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import franka_scene  # noqa: E402
import mjgranular  # noqa: E402

PHASE_COLOURS = {"settle": "#eeeeee", "approach": "#f7f7f7", "penetrate": "#fde9d9",
                 "drag": "#fcd5b4", "curl": "#e4dfec", "lift": "#dbeef3", "hold": "#c5e0b3",
                 "dump": "#f2f2f2", "pour": "#e7e6e6"}


def _phase_times(phases, name):
  for k in range(1, len(phases)):
    if phases[k][1] == name:
      return phases[k - 1][0], phases[k][0]
  raise KeyError(name)


def _phases(ax, phases, t0, t1=float("inf")):
  """Shades each phase of the run between t0 and t1 behind a plot, labelled at the top."""
  for k in range(1, len(phases)):
    a, b, name = max(phases[k - 1][0], t0), min(phases[k][0], t1), phases[k][1]
    if b <= a:
      continue
    ax.axvspan(a, b, color=PHASE_COLOURS.get(name, "#ffffff"), zorder=0, lw=0)
    ax.text(0.5 * (a + b), 1.0, name, transform=ax.get_xaxis_transform(),
            ha="center", va="bottom", fontsize=7, rotation=30)


def _plots(out, summary, runs):
  import matplotlib
  matplotlib.use("Agg")
  import matplotlib.pyplot as plt

  phases = summary["phases"]
  t = runs["dig_t"]
  t0 = _phase_times(phases, "approach")[0]
  sel = t >= t0
  mass = runs["dig_mass"] * 1e3
  wrench = runs["dig_wrench"]
  qfrc = runs["dig_qfrc"]
  te = runs["empty_t"]
  qe = runs["empty_qfrc"]
  title = (f"Franka excavation, {summary['grains']:,} grains, "
           f"{summary['speed_x_realtime']:.4f}x real time on {summary['cpus']} cpus")

  # the scooped mass alone, for the README
  fig, ax = plt.subplots(figsize=(6.4, 3.0), dpi=100)
  _phases(ax, phases, t0)
  ax.plot(t[sel], mass[sel], color="#1f4e79")
  ax.set_xlabel("time [s]")
  ax.set_ylabel("sand in the scoop [g]")
  ax.set_xlim(t0, t[-1])
  fig.tight_layout()
  fig.savefig(os.path.join(out, "mass.png"))
  plt.close(fig)

  fig, axes = plt.subplots(2, 2, figsize=(12, 7.5), dpi=90)
  ax = axes[0, 0]
  _phases(ax, phases, t0)
  ax.plot(t[sel], mass[sel], color="#1f4e79")
  ax.set_ylabel("sand in the scoop [g]")
  ax.set_xlabel("time [s]")
  ax = axes[0, 1]
  _phases(ax, phases, t0)
  for k, (label, colour) in enumerate((("Fx", "#c00000"), ("Fy", "#70ad47"), ("Fz", "#1f4e79"))):
    ax.plot(t[sel], wrench[sel, k], color=colour, lw=0.8, label=label)
  ax.plot(t[sel], -mass[sel] * 1e-3 * 9.81, color="k", ls="--", lw=1, label="-m g (in scoop)")
  ax.set_ylabel("granular force on the scoop [N]")
  ax.set_xlabel("time [s]")
  ax.legend(fontsize=8, loc="lower left")
  ax = axes[1, 0]
  lift, hold = _phase_times(phases, "lift")[0], _phase_times(phases, "hold")[1]
  near = (t >= lift - 0.05) & (t <= hold)
  _phases(ax, phases, lift - 0.05, hold)
  for j, colour in ((1, "#c00000"), (3, "#1f4e79"), (5, "#70ad47")):
    ax.plot(t[near], qfrc[near, j], color=colour, lw=1, label=f"joint {j + 1}, sand")
    ax.plot(te, qe[:, j], color=colour, lw=1, ls="--", label=f"joint {j + 1}, empty")
  ax.set_xlim(lift - 0.05, hold)
  ax.set_ylabel("joint torque [N m]")
  ax.set_xlabel("time [s]")
  ax.legend(fontsize=7, ncol=3, loc="best")
  ax = axes[1, 1]
  joints = np.arange(1, 8)
  width = 0.2
  for k, (name, shade) in enumerate((("lift", 0.55), ("hold", 0.0))):
    c = summary["coupling"][name]
    ax.bar(joints + (2 * k - 1.5) * width, c["measured_nm"], width, color=str(shade + 0.2),
           label=f"{name}: full - empty")
    ax.bar(joints + (2 * k - 0.5) * width, c["expected_nm"], width, color=str(shade + 0.2),
           hatch="///", edgecolor="w", label=f"{name}: J^T m g ({c['relative_error'] * 100:.0f}%)")
  ax.axhline(0, color="k", lw=0.5)
  ax.set_xticks(joints)
  ax.set_xlabel("joint")
  ax.set_ylabel("torque of the carried sand [N m]")
  ax.legend(fontsize=8)
  fig.suptitle(title)
  fig.tight_layout()
  fig.savefig(os.path.join(out, "excavate.png"))
  plt.close(fig)


def _scene(summary):
  """The run's scene rebuilt with its bed: model, data, its grains, the camera to render from."""
  mjgranular.load_plugin()
  spec, _ = franka_scene.build(summary["bed"], summary.get("soil", "dry"))
  m = spec.compile()
  d = mujoco.MjData(m)
  return m, d, mjgranular.grains(m, d), "overview" if summary["bed"] == "full" else "side"


def _render(scene, runs, prefix, width, height):
  """The snapshots `prefix`_* of the run as images, in the rebuilt scene (only positions are set,
  so one scene serves every set of snapshots)."""
  if len(runs[f"{prefix}_time"]) == 0:
    return []
  m, d, grains, camera = scene
  images = []
  with mujoco.Renderer(m, height, width, max_geom=grains.count + m.ngeom + 2000) as renderer:
    for qpos, pos in zip(runs[f"{prefix}_qpos"], runs[f"{prefix}_grains"]):
      d.qpos[:] = qpos
      grains.positions[:] = pos
      mujoco.mj_forward(m, d)
      renderer.update_scene(d, camera=camera)
      images.append(renderer.render().copy())
  return images


def _strip(out, labels, times, images):
  from PIL import Image, ImageDraw
  if not images:
    return
  frames = list(zip(labels, times, images))
  h, w = frames[0][2].shape[:2]
  strip = Image.new("RGB", (w * len(frames), h), "white")
  for k, (label, t, pixels) in enumerate(frames):
    tile = Image.fromarray(pixels)
    ImageDraw.Draw(tile).text((8, 8), f"{label}  t = {t:.2f} s", fill=(255, 255, 255))
    strip.paste(tile, (k * w, 0))
  strip.save(os.path.join(out, "strip.png"))


def _gif(out, gif):
  from PIL import Image
  if not gif:
    return
  images = [Image.fromarray(p).quantize(colors=128) for p in gif]
  images[0].save(os.path.join(out, "excavate.gif"), save_all=True, append_images=images[1:],
                 duration=66, loop=0)


def write(out, width=640, height=480):
  """All the media of the run in folder `out`."""
  with open(os.path.join(out, "excavate.json")) as f:
    summary = json.load(f)
  runs = dict(np.load(os.path.join(out, "excavate.npz")))
  _plots(out, summary, runs)
  # the scene (the arm and a whole bed) is compiled once, and only when there are frames to draw
  scene = _scene(summary) if len(runs["shot_time"]) or len(runs["movie_time"]) else None
  _strip(out, runs["shot_label"], runs["shot_time"],
         _render(scene, runs, "shot", width, height))
  _gif(out, _render(scene, runs, "movie", width // 2, height // 2))
  print(f"excavate_media: wrote the plots and frames into {out}")


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("out", help="folder of an excavate.py run")
  p.add_argument("--width", type=int, default=640, help="frame width [px] (640)")
  p.add_argument("--height", type=int, default=480, help="frame height [px] (480)")
  args = p.parse_args()
  write(args.out, args.width, args.height)


if __name__ == "__main__":
  main()
