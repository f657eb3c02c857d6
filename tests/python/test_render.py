"""`python -m mjgranular.render` offscreen (OSMesa unless MUJOCO_GL says otherwise): it writes PNG
frames and an mp4, the grains show in the picture (a bed against the same scene with an empty
bed), and the colouring option reaches the plugin (a bed at rest is sand-coloured by height,
cold blue by speed).

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image


# a grey floor seen from above, a bed of a few hundred grains filling the middle of the view;
# {bed} is the terrain's config
SCENE = """
<mujoco>
  <visual><global offwidth="160" offheight="120"/></visual>
  <extension>
    <plugin plugin="mjgranular.terrain">
      <instance name="sand">{bed}<config key="radius" value="0.005"/>
        <config key="backend" value="cpu"/></instance>
    </plugin>
  </extension>
  <worldbody>
    <plugin instance="sand"/>
    <light pos="0 0 1" dir="0 0 -1"/>
    <geom type="plane" size="0.3 0.3 0.05" rgba="0.5 0.5 0.5 1"/>
    <camera name="top" pos="0 0 0.25"/>
  </worldbody>
</mujoco>
"""
BED = '<config key="fill" value="-0.05 -0.05 0.005  0.05 0.05 0.03"/>'
EMPTY = '<config key="count" value="10"/>'


def render(tmp_path, name, bed, *args):
  """Runs mjgranular.render on the scene with the given bed; the folder it wrote."""
  model = tmp_path / f"{name}.xml"
  model.write_text(SCENE.format(bed=bed))
  out = tmp_path / name
  env = dict(os.environ)
  env.setdefault("MUJOCO_GL", "osmesa")
  cmd = [sys.executable, "-m", "mjgranular.render", str(model), "--seconds", "0.02", "--fps", "50",
         "--size", "160x120", "--camera", "top", "--out", str(out), *args]
  result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
  assert result.returncode == 0, result.stdout + result.stderr
  return out


def first_frame(out):
  return np.asarray(Image.open(out / "frame_00000.png").convert("RGB")).astype(float)


@pytest.fixture(scope="module")
def renders(tmp_path_factory):
  tmp = tmp_path_factory.mktemp("render")
  return {
    "empty": render(tmp, "empty", EMPTY, "--no-video"),
    "height": render(tmp, "height", BED),
    "speed": render(tmp, "speed", BED, "--color", "speed", "--no-video"),
  }


def test_frames_and_video(renders):
  out = renders["height"]
  frames = sorted(out.glob("frame_*.png"))
  assert [f.name for f in frames] == ["frame_00000.png", "frame_00001.png"]
  assert Image.open(frames[0]).size == (160, 120)
  video = (out / "video.mp4").read_bytes()
  assert len(video) > 1000 and video[4:8] == b"ftyp"  # an mp4 container
  # PNG frames only when asked
  assert not (renders["empty"] / "video.mp4").exists()


def test_grains_show(renders):
  bed, empty = first_frame(renders["height"]), first_frame(renders["empty"])
  assert empty.std() < bed.std()  # the empty scene is a plain floor
  changed = np.abs(bed - empty).sum(axis=2) > 30
  # the bed covers a good part of the view, and it is sand: more red than blue
  assert changed.mean() > 0.1, f"only {changed.mean():.3f} of the pixels show grains"
  grains = bed[changed]
  assert grains[:, 0].mean() > grains[:, 2].mean() + 20


def test_colour_option_reaches_the_plugin(renders):
  # at t = 0 the bed is at rest: the speed colouring draws it at the cold (blue) end
  empty, speed = first_frame(renders["empty"]), first_frame(renders["speed"])
  changed = np.abs(speed - empty).sum(axis=2) > 30
  assert changed.mean() > 0.1
  grains = speed[changed]
  assert grains[:, 2].mean() > grains[:, 0].mean() + 20
