"""The mjgranular package as pip installs it: the scenes as package data, the pins pyproject.toml
repeats from scripts/versions.sh, the modules `python -m` runs.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import pathlib
import re
import subprocess
import sys
import tomllib

import pytest

import mujoco
import mjgranular

ROOT = pathlib.Path(__file__).resolve().parents[2]


def versions_sh():
  """The assignments of scripts/versions.sh, by name."""
  text = (ROOT / "scripts" / "versions.sh").read_text()
  return {k: v.strip('"') for k, v in re.findall(r"^(\w+)=(.*)$", text, flags=re.M)}


def test_pyproject_pins_are_versions_sh_pins():
  pinned = versions_sh()
  project = tomllib.loads((ROOT / "pyproject.toml").read_text())
  mujoco_pin = f"mujoco=={pinned['MJGRANULAR_MUJOCO_VERSION']}"
  assert mujoco_pin in project["project"]["dependencies"]
  assert mujoco_pin in project["build-system"]["requires"]
  for pin in pinned["MJGRANULAR_BUILD_PY_PACKAGES"].split():
    assert pin in project["build-system"]["requires"]
  # the process runs the mujoco the plugin was built against
  assert mujoco.__version__ == pinned["MJGRANULAR_MUJOCO_VERSION"]


def test_scene_by_name_is_a_model_file_that_loads():
  names = mjgranular.scenes()
  assert {"sandbox", "bulldozer", "scoop", "gear_tower"} <= set(names)
  path = pathlib.Path(mjgranular.scene("sandbox"))
  assert path.name == "sandbox.xml" and path.is_file()
  assert path.parent == mjgranular.models_dir()
  # a scene with a mesh: the assets come along, relative to the scene file
  m = mujoco.MjModel.from_xml_path(mjgranular.scene("scoop"))
  assert m.nmesh >= 1 and m.nplugin >= 1


def test_unknown_scene_is_refused_naming_the_known_ones():
  with pytest.raises(ValueError) as err:
    mjgranular.scene("beach")
  said = str(err.value)
  assert "'beach'" in said
  for name in mjgranular.scenes():
    assert name in said


@pytest.mark.parametrize("module, option", [("mjgranular.render", "--color"),
                                            ("mjgranular.viewer", "--plugin"),
                                            ("mjgranular.envs.bulldozer", "--grains"),
                                            ("mjgranular.cem", "accuracy")])
def test_python_m_modules_answer_help(module, option):
  run = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True,
                       timeout=120)
  assert run.returncode == 0, run.stderr
  assert run.stdout.startswith("usage:") and option in run.stdout
