"""The gear tower scene (scripts/examples/gear_tower.py, models/gear_tower.xml) at CI size (CPU):
the committed scene and meshes are what the scripts write, and a small tower loads and runs with
its gears at their drawn speeds and every grain kept inside the cyclic column.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import math
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

import mujoco

ROOT = pathlib.Path(__file__).resolve().parents[2]
import gear_tower
import mjgranular


def test_committed_scene_is_what_the_script_writes():
  assert (ROOT / "models" / "gear_tower.xml").read_text() == gear_tower.scene_xml()


def test_committed_meshes_are_what_the_script_writes():
  # the script also checks each mesh is closed, consistently oriented and of positive volume
  script = ROOT / "scripts" / "examples" / "make_gear_tower.py"
  run = subprocess.run([sys.executable, str(script), "--check"],
                       capture_output=True, text=True)
  assert run.returncode == 0, run.stdout + run.stderr


def test_layout_counts_gears_and_grains():
  for gears, grains in ((0, 1), (3, 1000), (16, 50000)):
    lay = gear_tower.layout(gears, grains, 0.004)
    assert len(lay["axles"]) == gears
    assert grains <= lay["grains"] < grains + 400  # whole lattice layers of 18 x 18
    zlo, zhi = lay["cyclic"]
    fill = lay["fill"]
    assert zlo <= fill[2] and fill[5] <= zhi
    # the block starts above every gear; gears clear the plate and one another
    top = max((z for (_, _, z), _ in lay["axles"]), default=0) + gear_tower.GEAR_TIP
    assert fill[2] > top
    for (x, y, z), _ in lay["axles"]:
      assert z - gear_tower.GEAR_TIP > gear_tower.PLATE_TOP
      assert np.hypot(x, y) + gear_tower.GEAR_TIP < gear_tower.BORE


def test_small_tower_runs():
  mjgranular.load_plugin()
  xml = gear_tower.scene_xml(gears=2, grains=300, backend="cpu")
  with tempfile.NamedTemporaryFile("w", suffix=".xml", dir=gear_tower.MODELS, delete=False) as f:
    f.write(xml)
  try:
    m = mujoco.MjModel.from_xml_path(f.name)
  finally:
    os.unlink(f.name)
  d = mujoco.MjData(m)
  g = mjgranular.grains(m, d)
  n = g.count
  assert n == gear_tower.layout(2, 300, 0.004)["grains"]
  zlo, zhi = gear_tower.layout(2, 300, 0.004)["cyclic"]
  z0 = g.positions[:, 2].mean()
  mujoco.mj_step(m, d, nstep=100)  # 0.2 s
  assert g.count == n
  assert np.all(np.isfinite(g.positions))
  assert zlo <= g.positions[:, 2].min() and g.positions[:, 2].max() <= zhi
  assert g.positions[:, 2].mean() < z0 - 0.05  # the block fell onto the gears
  # the servos hold each gear at its drawn speed while grains strike it
  speeds = gear_tower.gear_speeds(2, 2 * math.pi, 0)
  np.testing.assert_allclose(d.qvel, speeds, rtol=0.05)
  assert np.any(g.wrenches[1:, :] != 0)  # the grains touched the gears
