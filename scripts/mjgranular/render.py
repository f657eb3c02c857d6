"""Renders a granular scene offscreen to PNG frames and an mp4 video.

Loads the mjgranular plugin, compiles the model (optionally with the
grain colouring of every terrain instance replaced), steps it for the given simulated time and
renders a frame every 1/fps seconds of simulated time from the given camera. Frames go to
OUT/frame_00000.png ..., the video to OUT/video.mp4 (H.264 through the ffmpeg binary that the
imageio-ffmpeg wheel ships). Prints the time spent simulating and rendering per frame.

  python -m mjgranular.render scoop --seconds 2 --fps 30 --size 640x480 \\
      --camera overview --color speed --key push --out out/scoop

MODEL is an MJCF file or the name of a scene of the package (mjgranular.scenes()).

OpenGL: --gl, else $MUJOCO_GL, else egl where a GPU device node exists and osmesa (software, no
display needed) elsewhere.
"""

import argparse
import glob
import os
import sys
import time

from mjgranular.scenes import configured


def parse_args(argv=None):
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("model", help="MJCF file, or a scene's name (sandbox, scoop, ...)")
  p.add_argument("--seconds", type=float, default=2.0, help="simulated time [s] (default 2)")
  p.add_argument("--fps", type=float, default=30.0, help="frames per simulated second (30)")
  p.add_argument("--size", default="640x480", help="WIDTHxHEIGHT in pixels (640x480)")
  p.add_argument("--camera", default="", help="camera name or id; default: the free camera")
  p.add_argument("--out", default="out/render", help="output folder (out/render)")
  p.add_argument("--color", choices=("height", "speed", "fixed"),
                 help="grain colouring of every terrain instance (default: the model's)")
  p.add_argument("--color-range", nargs=2, type=float, metavar=("LO", "HI"),
                 help="values at the ends of the colour ramp [m or m/s] (default: automatic)")
  p.add_argument("--key", default="", help="keyframe to start from (name or id)")
  p.add_argument("--no-video", action="store_true", help="write PNG frames only")
  p.add_argument("--gl", choices=("egl", "osmesa", "glfw"), help="OpenGL backend")
  p.add_argument("--plugin", help="libmjgranular.so (default: $MJGRANULAR_PLUGIN, else the "
                 "package's)")
  args = p.parse_args(argv)
  try:
    args.width, args.height = (int(v) for v in args.size.lower().split("x"))
  except ValueError:
    p.error(f"--size {args.size!r}: expected WIDTHxHEIGHT, e.g. 640x480")
  if args.width < 16 or args.height < 16:
    p.error(f"--size {args.size!r}: at least 16x16")
  if not args.no_video and (args.width % 2 or args.height % 2):
    p.error(f"--size {args.size!r}: the video needs an even width and height")
  if args.seconds < 0 or args.fps <= 0:
    p.error("--seconds must be >= 0 and --fps > 0")
  return args


def model_path(mjgranular, model):
  """An MJCF file as given, else the package's scene of that name."""
  return model if os.path.isfile(model) else mjgranular.scene(model)


def choose_gl(requested):
  """The OpenGL backend; must be set before mujoco is imported."""
  gl = requested or os.environ.get("MUJOCO_GL")
  if not gl:
    gpu = os.path.exists("/dev/nvidia0") or glob.glob("/dev/dri/renderD*")
    gl = "egl" if gpu else "osmesa"
  os.environ["MUJOCO_GL"] = gl
  if gl in ("egl", "osmesa"):
    os.environ["PYOPENGL_PLATFORM"] = gl
  return gl


def compile_model(mujoco, path, color, color_range):
  """The model at path, with the grain colouring of every terrain instance replaced when given."""
  config = {}
  if color:
    config["color"] = color
  if color_range:
    config["color_range"] = f"{color_range[0]!r} {color_range[1]!r}"
  return configured(path, config) if config else mujoco.MjModel.from_xml_path(path)


def grain_capacity(mjgranular, m, d):
  """Grains all terrain instances can hold (the scene needs a geom for each)."""
  total = 0
  for i in range(m.nplugin):
    try:
      total += mjgranular.grains(m, d, i).capacity
    except ValueError:  # a sensor plugin: no grains
      pass
  return total


def camera_arg(camera):
  if not camera:
    return -1
  return int(camera) if camera.lstrip("-").isdigit() else camera


def main(argv=None):
  args = parse_args(argv)
  gl = choose_gl(args.gl)
  # openmp threads that sleep at barriers (other work on the machine); read when the plugin loads
  os.environ.setdefault("OMP_WAIT_POLICY", "passive")
  if args.plugin:  # the copy `import mujoco` loads
    os.environ["MJGRANULAR_PLUGIN"] = os.path.abspath(args.plugin)
  import mujoco  # noqa: E402 (after MUJOCO_GL)
  import numpy as np  # noqa: E402
  from PIL import Image  # noqa: E402

  import mjgranular  # noqa: E402

  mjgranular.load_plugin()
  args.model = model_path(mjgranular, args.model)
  m = compile_model(mujoco, args.model, args.color, args.color_range)
  d = mujoco.MjData(m)
  if args.key:
    key = int(args.key) if args.key.isdigit() else mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY,
                                                                     args.key)
    if not 0 <= key < m.nkey:
      sys.exit(f"render: no keyframe {args.key!r} in {args.model}")
    mujoco.mj_resetDataKeyframe(m, d, key)
  mujoco.mj_forward(m, d)

  # offscreen buffer and scene large enough for the frame and every grain
  m.vis.global_.offwidth = max(m.vis.global_.offwidth, args.width)
  m.vis.global_.offheight = max(m.vis.global_.offheight, args.height)
  max_geom = m.ngeom + grain_capacity(mjgranular, m, d) + 1000
  os.makedirs(args.out, exist_ok=True)
  nframe = int(round(args.seconds * args.fps)) + 1
  print(f"render: {args.model}: {nframe} frames {args.width}x{args.height} at {args.fps:g} fps, "
        f"{args.seconds:g} s simulated, gl {gl}, grains drawn up to {max_geom - m.ngeom - 1000}")

  video = None
  if not args.no_video:
    import imageio_ffmpeg  # noqa: E402 (pinned in scripts/versions.sh)
    video_path = os.path.join(args.out, "video.mp4")
    video = imageio_ffmpeg.write_frames(video_path, (args.width, args.height), fps=args.fps,
                                        codec="libx264", pix_fmt_out="yuv420p", quality=7,
                                        macro_block_size=2, ffmpeg_log_level="error")
    video.send(None)

  sim_wall = render_wall = 0.0
  frames = []
  camera = camera_arg(args.camera)
  with mujoco.Renderer(m, args.height, args.width, max_geom=max_geom) as renderer:
    for k in range(nframe):
      # simulate up to this frame's time
      t0 = time.perf_counter()
      while d.time < k / args.fps - 0.5 * m.opt.timestep:
        mujoco.mj_step(m, d)
      t1 = time.perf_counter()

      # draw and save it
      renderer.update_scene(d, camera=camera)
      pixels = renderer.render()
      path = os.path.join(args.out, f"frame_{k:05d}.png")
      Image.fromarray(pixels).save(path)
      if video is not None:
        video.send(np.ascontiguousarray(pixels))
      t2 = time.perf_counter()
      sim_wall += t1 - t0
      render_wall += t2 - t1
      frames.append(path)
  if video is not None:
    video.close()

  print(f"render: per frame {1000 * sim_wall / nframe:.0f} ms simulating, "
        f"{1000 * render_wall / nframe:.0f} ms rendering and writing")
  print(f"render: frames {frames[0]} .. {frames[-1]}")
  if video is not None:
    print(f"render: video {video_path}")
  return frames


if __name__ == "__main__":
  main()
