"""The plugin from Python (CPU backend): loading it, numpy views of plugin_state, copies and
mujoco.rollout across threads giving each rollout what stepping it alone gives, bit for bit.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mujoco
import mujoco.rollout

import mjgranular

FULL = mujoco.mjtState.mjSTATE_FULLPHYSICS.value

# models/sandbox.xml in small: a walled 8 cm box, a bed of a few hundred grains of radius 4 mm,
# and a heavy free cube dropped into it so the coupled wrench path is part of every step
SCENE = """
<mujoco>
  <option timestep="0.002"/>
  <extension>
    <plugin plugin="mjgranular.terrain">
      <instance name="sand">
        <config key="fill" value="-0.04 -0.04 0.005  0.04 0.04 0.04"/>
        <config key="radius" value="0.004"/>
        <config key="seed" value="1"/>
        <config key="backend" value="cpu"/>
      </instance>
    </plugin>
  </extension>
  <worldbody>
    <plugin instance="sand"/>
    <geom name="floor" type="plane" size="0.3 0.3 0.05"/>
    <geom type="box" pos=" 0.05 0 0.04" size="0.01 0.06 0.04"/>
    <geom type="box" pos="-0.05 0 0.04" size="0.01 0.06 0.04"/>
    <geom type="box" pos="0  0.05 0.04" size="0.06 0.01 0.04"/>
    <geom type="box" pos="0 -0.05 0.04" size="0.06 0.01 0.04"/>
    <body name="cube" pos="0 0 0.06">
      <freejoint/>
      <geom type="box" size="0.015 0.015 0.015" density="8000"/>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.fixture(scope="module")
def model():
    mjgranular.load_plugin()
    return mujoco.MjModel.from_xml_string(SCENE)


def full_state(m, d):
    s = np.empty(mujoco.mj_stateSize(m, FULL))
    mujoco.mj_getState(m, d, s, FULL)
    return s


def bitwise_equal(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def test_load_plugin_once():
    p1 = mjgranular.load_plugin()
    p2 = mjgranular.load_plugin()
    assert p1 == p2 and p1.is_file()
    # registered under its name: a model using it compiles
    mujoco.MjModel.from_xml_string(SCENE)


def test_missing_library_is_reported(monkeypatch, tmp_path):
    monkeypatch.setenv("MJGRANULAR_PLUGIN", str(tmp_path / "nope.so"))
    assert mjgranular.plugin_path() == tmp_path / "nope.so"
    monkeypatch.setattr(mjgranular.loader, "_loaded", None)
    with pytest.raises(FileNotFoundError, match="nope.so"):
        mjgranular.load_plugin()


def in_a_fresh_process(code, **env):
    """Runs python code in a new process (environment: this one's plus env); its output."""
    env = dict(os.environ, OMP_WAIT_POLICY="passive", **env)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_import_mujoco_alone_loads_the_plugin():
    """mujoco calls the package's entry point in its `mujoco.plugins` group on import: a model
    using mjgranular.terrain compiles with no other call, and the library is plugin_path()'s."""
    code = f"""
import sys
import mujoco
m = mujoco.MjModel.from_xml_string({SCENE!r})
d = mujoco.MjData(m)
mujoco.mj_step(m, d)
print(m.nplugin, sys.modules["mjgranular.loader"]._loaded)
"""
    nplugin, loaded = in_a_fresh_process(code).splitlines()[-1].split(" ", 1)
    assert nplugin == "1"
    assert pathlib.Path(loaded) == mjgranular.plugin_path()


def test_importing_mjgranular_leaves_mujoco_unimported():
    """So a script can still choose MUJOCO_GL, or a copy of the library, after importing it."""
    code = "import sys, mjgranular; print('mujoco' in sys.modules, mjgranular.loader._loaded)"
    assert in_a_fresh_process(code) == "False None"


def test_load_plugin_of_a_path_before_mujoco_loads_that_one(tmp_path):
    """load_plugin(path) as a process's first use of mujoco: the import's entry point loads that
    path, not plugin_path(), so there is one copy and no refusal."""
    copy = tmp_path / "libmjgranular_copy.so"
    shutil.copy(mjgranular.plugin_path().resolve(), copy)
    code = f"""
import mjgranular
print(mjgranular.load_plugin({str(copy)!r}), mjgranular.loader._already_loaded())
"""
    assert in_a_fresh_process(code) == f"{copy} {copy}"


def load_in_a_fresh_process(first, second, how):
    """In a new python process, mujoco holds the library at `first`, then
    mjgranular.load_plugin(second); what happened, one line. how: "folder" (loaded before
    `import mujoco`, as mujoco loads its plugin folder before the entry points) or "env"
    (MJGRANULAR_PLUGIN names it: the entry point loads it)."""
    code = f"""
import ctypes
if {how == "folder"}:
    ctypes.CDLL({str(first)!r})
import mujoco, mjgranular
try:
    print("loaded", mjgranular.load_plugin({str(second)!r}))
except mjgranular.PluginCopyError as e:
    print("refused", e)
"""
    env = {"MJGRANULAR_PLUGIN": str(first)} if how == "env" else {}
    return in_a_fresh_process(code, **env)


@pytest.mark.parametrize("how", ["folder", "env"])
def test_a_second_copy_is_refused_naming_both_paths(tmp_path, how):
    """MuJoCo aborts a C host that loads a second copy of the library (its plugins are already
    registered); load_plugin refuses one with an exception that names both files, whatever the
    copy's name, and a link to the loaded file is the same library. The entry point keeps a copy
    mujoco loaded from its plugin folder rather than load its own."""
    original = mjgranular.plugin_path().resolve()
    copy = tmp_path / "libmjgranular.so"
    renamed = tmp_path / "libmjgranular_old.so"
    link = tmp_path / "link" / "libmjgranular.so"
    shutil.copy(original, copy)
    shutil.copy(original, renamed)
    link.parent.mkdir()
    link.symlink_to(original)
    for first, second in ((original, copy), (copy, original), (renamed, original)):
        said = load_in_a_fresh_process(first, second, how)
        assert said.startswith("refused"), (first, second, said)
        assert str(first) in said and str(second) in said, said
    assert load_in_a_fresh_process(original, link, how).startswith("loaded")
    assert load_in_a_fresh_process(original, original, how).startswith("loaded")


def test_views_follow_the_state(model):
    d = mujoco.MjData(model)
    g = mjgranular.grains(model, d)
    n = g.count
    assert 100 < n < 1000 and n <= g.capacity
    assert g.positions.shape == (n, 3) and g.velocities.shape == (n, 3)
    assert g.wrenches.shape == (model.nbody, 6)
    # views, not copies
    for view in (g.positions, g.velocities, g.wrenches, g.state):
        assert np.shares_memory(view, d.plugin_state)
    # the initial bed: at rest inside the fill box
    assert np.all(g.velocities == 0)
    assert np.all(np.abs(g.positions[:, :2]) < 0.04) and np.all(g.positions[:, 2] > 0.005)
    z0 = g.positions[:, 2].copy()
    for _ in range(50):
        mujoco.mj_step(model, d)
    # the same view objects now show the stepped grains: fallen and moving
    assert g.positions[:, 2].mean() < z0.mean()
    assert np.abs(g.velocities).max() > 0
    # the cube lands on the grains (around step 25) and they push it up
    cube = model.body("cube").id
    mujoco.mj_resetData(model, d)
    lift = []
    for _ in range(40):
        mujoco.mj_step(model, d)
        lift.append(g.forces()[cube, 2])
    assert max(lift) > 0
    # writing through a view writes the state the next step reads
    g.velocities[:] = 0
    assert np.all(d.plugin_state[4 + 3 * g.capacity:4 + 3 * g.capacity + 3 * n] == 0)


def test_set_state_replays_bitwise(model):
    d = mujoco.MjData(model)
    for _ in range(20):  # the cube lands during the replayed steps
        mujoco.mj_step(model, d)
    saved = full_state(model, d)
    first = []
    for _ in range(30):
        mujoco.mj_step(model, d)
        first.append(full_state(model, d))
    mujoco.mj_setState(model, d, saved, FULL)
    for k in range(30):
        mujoco.mj_step(model, d)
        assert bitwise_equal(full_state(model, d), first[k]), f"step {k}"


def test_copies_step_identically(model):
    d = mujoco.MjData(model)
    for _ in range(15):
        mujoco.mj_step(model, d)
    c = mujoco.MjData(model)
    mujoco.mj_copyData(c, model, d)
    c2 = d.__copy__()
    assert not np.shares_memory(c.plugin_state, d.plugin_state)
    for k in range(30):
        for x in (d, c, c2):
            mujoco.mj_step(model, x)
        ref = full_state(model, d)
        assert bitwise_equal(full_state(model, c), ref), f"mj_copyData, step {k}"
        assert bitwise_equal(full_state(model, c2), ref), f"copy.copy, step {k}"
    # independent: stepping the copy leaves the original as it was
    before = full_state(model, d)
    mujoco.mj_step(model, c)
    assert bitwise_equal(full_state(model, d), before)


def test_reset_restores_the_initial_bed(model):
    d = mujoco.MjData(model)
    initial = full_state(model, d)
    for _ in range(40):
        mujoco.mj_step(model, d)
    assert not bitwise_equal(full_state(model, d), initial)
    mujoco.mj_resetData(model, d)
    assert bitwise_equal(full_state(model, d), initial)


def test_rollout_across_threads_matches_stepping_alone(model):
    """Several rollouts from different states on 3 threads (one MjData each) give each rollout
    the state trajectory of stepping that state alone, plugin state included, bit for bit."""
    nstep, nbatch, nthread = 25, 6, 3
    d = mujoco.MjData(model)
    starts = []
    for _ in range(nbatch):
        for _ in range(10):
            mujoco.mj_step(model, d)
        starts.append(full_state(model, d))
    starts = np.array(starts)

    datas = [mujoco.MjData(model) for _ in range(nthread)]
    state, _ = mujoco.rollout.rollout(model, datas, starts, nstep=nstep)
    assert state.shape == (nbatch, nstep, starts.shape[1])

    alone = mujoco.MjData(model)
    for b in range(nbatch):
        mujoco.mj_setState(model, alone, starts[b], FULL)
        for k in range(nstep):
            mujoco.mj_step(model, alone)
            assert bitwise_equal(state[b, k], full_state(model, alone)), f"rollout {b}, step {k}"
    # the plugin block is in the rolled-out state and it changed
    assert not bitwise_equal(state[:, -1], starts)

    # and again in a different order across threads: the same trajectories
    order = np.arange(nbatch)[::-1]
    again, _ = mujoco.rollout.rollout(model, datas, starts[order], nstep=nstep)
    assert bitwise_equal(again, state[order])
