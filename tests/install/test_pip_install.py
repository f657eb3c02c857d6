"""`pip install` of the repository into a fresh virtual environment: the wheel builds the plugin
(CMake through scikit-build-core, CUDA where nvcc is found) and ships it inside the package with
the scenes, and `import mujoco` alone then makes mjgranular.terrain available.

Slow (a full compile of the plugin, the pinned mujoco fetched from PyPI or pip's cache), so it is
apart from tests/python: .ci/run runs it once,
  .venv/bin/python -m pytest -q -p no:cacheprovider tests/install
"""

import json
import os
import pathlib
import subprocess
import sys
import time
import venv

ROOT = pathlib.Path(__file__).resolve().parents[2]

# in the fresh venv, by scene name only: no path, no load_plugin call
CHECK = """
import json, sys
import mujoco, mjgranular
m = mujoco.MjModel.from_xml_path(mjgranular.scene("sandbox"))
d = mujoco.MjData(m)
mujoco.mj_step(m, d)
g = mjgranular.grains(m, d)
scoop = mujoco.MjModel.from_xml_path(mjgranular.scene("scoop"))  # a mesh from models/assets
print(json.dumps({"loaded": str(mjgranular.loader._loaded), "package": mjgranular.__file__,
                  "prefix": sys.prefix, "grains": g.count, "nplugin": m.nplugin,
                  "scoop_meshes": scoop.nmesh}))
"""


def clean_env():
  """This process's environment without what points at the checkout's build."""
  env = dict(os.environ, OMP_WAIT_POLICY="passive", PIP_DISABLE_PIP_VERSION_CHECK="1")
  # as scripts/build.sh: as many compile jobs as cores (ninja alone would start two more)
  env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count()))
  for key in ("MJGRANULAR_PLUGIN", "PYTHONPATH", "VIRTUAL_ENV"):
    env.pop(key, None)
  return env


def test_pip_install_into_a_fresh_venv_loads_a_scene_by_name(tmp_path):
  venv.create(tmp_path / "venv", with_pip=True)
  py = tmp_path / "venv" / "bin" / "python"
  env = clean_env()
  t0 = time.perf_counter()
  install = subprocess.run([str(py), "-m", "pip", "install", str(ROOT)], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=3600)
  took = time.perf_counter() - t0
  assert install.returncode == 0, install.stdout[-4000:] + install.stderr[-4000:]
  print(f"[ measure ] pip install {ROOT} into a fresh venv: {took:.0f} s", file=sys.stderr)

  run = subprocess.run([str(py), "-c", CHECK], env=env, cwd=tmp_path, capture_output=True,
                       text=True, timeout=600)
  assert run.returncode == 0, run.stderr
  got = json.loads(run.stdout.strip().splitlines()[-1])
  site = pathlib.Path(got["package"]).parent
  # the package and its library are the venv's copies, not the checkout's
  assert pathlib.Path(got["prefix"]) == tmp_path / "venv"
  assert site.is_relative_to(tmp_path / "venv")
  assert pathlib.Path(got["loaded"]) == site / "libmjgranular.so"
  assert got["nplugin"] == 1 and got["grains"] > 20000
  assert got["scoop_meshes"] >= 1
  # the scenes and their meshes are package data; no test or benchmark program came along
  assert (site / "models" / "sandbox.xml").is_file()
  assert (site / "models" / "assets" / "scoop.obj").is_file()
  assert not any(p.name.endswith("_tests") or p.name.startswith("bench_")
                 for p in (tmp_path / "venv").rglob("*"))
