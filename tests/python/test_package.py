"""The mjgranular package as pip installs it: the scenes as package data, the pins pyproject.toml
repeats from scripts/versions.sh and why mujoco's is 4.0.1, the modules `python -m` runs.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import pathlib
import re
import subprocess
import sys
import tomllib

import numpy as np
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
  package, version = pinned["MJGRANULAR_MUJOCO_PACKAGE"], pinned["MJGRANULAR_MUJOCO_VERSION"]
  assert f"{package}[rendering]=={version}" in project["project"]["dependencies"]
  assert f"{package}=={version}" in project["build-system"]["requires"]
  for pin in pinned["MJGRANULAR_BUILD_PY_PACKAGES"].split():
    assert pin in project["build-system"]["requires"]
  # the process runs the mujoco the plugin was built against
  assert mujoco.__version__ == pinned["MJGRANULAR_MUJOCO_VERSION"]


def branched_trees_xml(jacobian, seed=1):
  """Four free boxes, each the root of a random tree of spheres on hinge, slide and ball joints
  (nv 110 for seed 1), dropped on a plane and on each other."""
  rng = np.random.default_rng(seed)

  def subtree(depth, children):
    xml = ""
    for _ in range(children):
      kind = rng.choice(["hinge", "ball", "slide"])
      axis = " ".join(map(str, rng.normal(size=3).round(2)))
      joint = '<joint type="ball"/>' if kind == "ball" else f'<joint type="{kind}" axis="{axis}"/>'
      pos = " ".join(map(str, (rng.normal(size=3) * 0.06).round(3)))
      below = subtree(depth - 1, int(rng.integers(1, 4))) if depth > 0 else ""
      xml += f'<body pos="{pos}">{joint}<geom type="sphere" size="0.03"/>{below}</body>'
    return xml

  roots = "".join(f'<body pos="{0.1 * k} 0 {0.1 + 0.05 * k}"><freejoint/>'
                  f'<geom type="box" size=".04 .04 .04"/>{subtree(2, 2)}</body>' for k in range(4))
  return (f'<mujoco><option solver="Newton" jacobian="{jacobian}"/><worldbody>'
          f'<geom type="plane" size="5 5 .1"/>{roots}</worldbody></mujoco>')


def test_pinned_mujoco_newton_is_the_same_with_a_sparse_jacobian():
  """The pin's reason: MuJoCo 4.0.0's sparse Cholesky merged rows of different descendants into
  one supernode, so Newton's steps went wrong in branched trees once the constraint jacobian is
  sparse (nv >= 60). The dense jacobian is the reference: both must take the same steps. With
  mujoco-core 4.0.0 the sparse run needs 100 iterations and its qacc is 7e2 off; 4.0.1 agrees to
  2e-10 in 8 iterations."""
  runs = {}
  for jacobian in ("dense", "sparse"):
    m = mujoco.MjModel.from_xml_string(branched_trees_xml(jacobian))
    d = mujoco.MjData(m)
    most_iterations = 0
    for _ in range(200):
      mujoco.mj_step(m, d)
      most_iterations = max(most_iterations, int(d.solver_niter[0]))
    runs[jacobian] = d.qacc.copy(), most_iterations
  assert m.nv >= 60 and mujoco.mj_isSparse(m)
  (dense, dense_iterations), (sparse, sparse_iterations) = runs["dense"], runs["sparse"]
  assert np.abs(sparse - dense).max() <= 1e-6 * (1 + np.abs(dense).max())
  assert sparse_iterations <= dense_iterations + 2


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
