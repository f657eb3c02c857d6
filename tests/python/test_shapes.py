"""Grains shaped like MJCF meshes (config key shape) from Python: the types view, and rollouts on
several threads that give each start the trajectory of stepping it alone, bit for bit, with a
free box landing on a bed of cubes and spheres."""

import os
import subprocess
import sys

import numpy as np
import pytest

import mujoco
import mujoco.rollout

import mjgranular

FULL = mujoco.mjtState.mjSTATE_FULLPHYSICS.value

CUBE = " ".join("0.005" if (i >> a) & 1 else "-0.005" for i in range(8) for a in range(3))

SCENE = f"""
<mujoco>
  <option timestep="0.002"/>
  <asset><mesh name="cube" vertex="{CUBE}"/></asset>
  <extension>
    <plugin plugin="mjgranular.terrain">
      <instance name="gravel">
        <config key="fill" value="-0.04 -0.04 0.005  0.04 0.04 0.05"/>
        <config key="count" value="200"/>
        <config key="shape" value="cube sphere"/>
        <config key="shape_mix" value="0.7 0.3"/>
        <config key="radius" value="0.004"/>
        <config key="clump_spheres" value="8"/>
        <config key="seed" value="3"/>
        <config key="backend" value="cpu"/>
      </instance>
    </plugin>
  </extension>
  <worldbody>
    <plugin instance="gravel"/>
    <geom name="floor" type="plane" size="0.3 0.3 0.05"/>
    <geom type="box" pos=" 0.05 0 0.04" size="0.01 0.06 0.04"/>
    <geom type="box" pos="-0.05 0 0.04" size="0.01 0.06 0.04"/>
    <geom type="box" pos="0  0.05 0.04" size="0.06 0.01 0.04"/>
    <geom type="box" pos="0 -0.05 0.04" size="0.06 0.01 0.04"/>
    <body name="box" pos="0 0 0.07">
      <freejoint/>
      <geom type="box" size="0.012 0.012 0.012" density="3000"/>
    </body>
  </worldbody>
</mujoco>
"""


def full_state(m, d):
    s = np.empty(mujoco.mj_stateSize(m, FULL))
    mujoco.mj_getState(m, d, s, FULL)
    return s


def test_types_and_rollouts_of_mesh_grains():
    mjgranular.load_plugin()
    m = mujoco.MjModel.from_xml_string(SCENE)
    d = mujoco.MjData(m)
    g = mjgranular.grains(m, d)
    n = g.count
    assert n > 20 and g.contact_capacity == 8 * g.capacity
    assert g.types.shape == (n,) and np.shares_memory(g.types, d.plugin_state)
    assert set(np.unique(g.types)) <= {0.0, 1.0}
    # the cube's bound is half its diagonal, the sphere's its radius
    np.testing.assert_allclose(g.radii[g.types == 0], 0.005 * 3 ** 0.5, rtol=1e-6)
    np.testing.assert_allclose(g.radii[g.types == 1], 0.004, rtol=1e-6)

    starts = []
    for _ in range(3):
        for _ in range(15):
            mujoco.mj_step(m, d)
        starts.append(full_state(m, d))
    starts = np.array(starts)
    nstep = 20
    datas = [mujoco.MjData(m) for _ in range(2)]
    state, _ = mujoco.rollout.rollout(m, datas, starts, nstep=nstep)
    alone = mujoco.MjData(m)
    for b in range(len(starts)):
        mujoco.mj_setState(m, alone, starts[b], FULL)
        for k in range(nstep):
            mujoco.mj_step(m, alone)
        assert state[b, -1].tobytes() == full_state(m, alone).tobytes(), f"rollout {b}"
    assert state[:, -1].tobytes() != starts.tobytes()


def test_batch_steps_mesh_grains_as_each_steps_alone():
    """mujoco.batch.Batch on 2 threads: each simulation (its box thrown down at its own speed)
    ends bit for bit where stepping it alone in its own MjData ends."""
    import mujoco.batch

    mjgranular.load_plugin()
    m = mujoco.MjModel.from_xml_string(SCENE)
    speeds = [0.0, -0.5, -1.0]
    nstep = 40
    integration = mujoco.mjtState.mjSTATE_INTEGRATION
    rows = []
    for v in speeds:
        d = mujoco.MjData(m)
        d.qvel[2] = v
        for _ in range(nstep):
            mujoco.mj_step(m, d)
        row = np.empty(mujoco.mj_stateSize(m, integration))
        mujoco.mj_getState(m, d, row, integration)
        rows.append(row)
    batch = mujoco.batch.Batch(m, len(speeds), nthread=2)
    batch.bind("qvel")[:, 2] = speeds
    for _ in range(nstep):
        batch.step()
    state = np.array(batch.state)
    for s in range(len(speeds)):
        assert state[s].tobytes() == rows[s].tobytes(), f"simulation {s}"
    assert rows[0].tobytes() != rows[2].tobytes()


def test_the_fit_is_reported_once_per_process():
    """The load says how the spheres fill each mesh, once however many MjData follow; the mass it
    quotes is density x the cube's volume."""
    code = ("import mujoco, mjgranular, test_shapes\n"
            "mjgranular.load_plugin()\n"
            "m = mujoco.MjModel.from_xml_string(test_shapes.SCENE)\n"
            "ds = [mujoco.MjData(m) for _ in range(3)]\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    lines = [ln for ln in out.stderr.splitlines() if "grain mesh 'cube'" in ln]
    assert len(lines) == 1, out.stderr
    assert "8 spheres" in lines[0] and "mass 0.0025 kg" in lines[0], lines[0]


@pytest.mark.long
def test_gravel_scene_carries_the_box_on_its_stones():
    """models/gravel.xml: three rock shapes in equal shares; the steel cube set down flat 1.7 cm
    above the stones lands on them and rests there: from 1.5 s to 2 s it moves less than 0.1 mm
    and turns less than 0.005 rad, its bottom above the floor, every stone in the box, and the
    granular force on it, averaged over that half second, is its weight within 1%."""
    mjgranular.load_plugin()
    m = mujoco.MjModel.from_xml_path(mjgranular.scene("gravel"))
    d = mujoco.MjData(m)
    g = mjgranular.grains(m, d)
    n = g.count
    counts = np.bincount(g.types.astype(int), minlength=3)
    assert counts.sum() == n and len(counts) == 3
    sd = (n * (1 / 3) * (2 / 3)) ** 0.5
    assert np.all(np.abs(counts - n / 3) < 4 * sd), counts
    box = m.body("box").id
    adr = m.jnt_qposadr[m.body_jntadr[box]]
    d.qpos[adr:adr + 7] = [-0.045, 0, 0.06, 1, 0, 0, 0]
    for _ in range(750):
        mujoco.mj_step(m, d)
    pos, quat, lift = d.xpos[box].copy(), d.xquat[box].copy(), []
    for _ in range(250):
        mujoco.mj_step(m, d)
        lift.append(g.forces()[box, 2])
    turn = np.empty(3)
    mujoco.mju_subQuat(turn, d.xquat[box], quat)
    assert np.linalg.norm(d.xpos[box] - pos) < 1e-4 and np.linalg.norm(turn) < 0.005
    assert np.all(np.abs(g.positions[:, :2]) < 0.1) and np.all(g.positions[:, 2] > 0)
    assert d.xpos[box, 2] - 0.02 > 0.005, d.xpos[box, 2]
    weight = m.body_mass[box] * 9.81
    assert abs(np.mean(lift) - weight) < 0.01 * weight, (np.mean(lift), weight)


def test_bed_file_of_mesh_grains_continues_the_run_bit_for_bit(tmp_path):
    """save_bed of a bed of cubes and spheres, loaded by a model of the same shape keys with
    bed_file (count the saved model's, else the file's grains), starts from exactly those grains
    and contacts and steps as the saved run steps; a terrain of other grain types refuses the file
    naming the key."""
    mjgranular.load_plugin()
    m = mujoco.MjModel.from_xml_string(SCENE)
    d = mujoco.MjData(m)
    for _ in range(25):
        mujoco.mj_step(m, d)
    path = tmp_path / "gravel.mjgbed"
    mjgranular.save_bed(path, m, d)
    bed = mjgranular.load_bed(path)
    g = mjgranular.grains(m, d)
    assert bed.spheres == 8 and bed.ntype == 2 and bed.fingerprint != 0
    assert np.array_equal(bed.types, g.types)

    loaded_xml = SCENE.replace('<config key="fill" value="-0.04 -0.04 0.005  0.04 0.04 0.05"/>',
                               f'<config key="bed_file" value="{path}"/>')
    # without count the capacity is the file's grains
    exact = mujoco.MjModel.from_xml_string(loaded_xml.replace('<config key="count" value="200"/>',
                                                              ""))
    assert mjgranular.grains(exact, mujoco.MjData(exact)).capacity == g.count
    m2 = mujoco.MjModel.from_xml_string(loaded_xml)
    d2 = mujoco.MjData(m2)
    h = mjgranular.grains(m2, d2)
    assert h.count == g.count
    for part in ("positions", "velocities", "angular_velocities", "orientations", "radii",
                 "types"):
        assert np.array_equal(getattr(h, part), getattr(g, part)), part
    assert np.array_equal(h.contacts, g.contacts)
    # the box is not in the file: put it where the saved run has it, then step both
    d2.qpos[:], d2.qvel[:] = d.qpos, d.qvel
    for _ in range(20):
        mujoco.mj_step(m, d)
        mujoco.mj_step(m2, d2)
    assert h.positions.tobytes() == g.positions.tobytes()
    assert h.contacts.tobytes() == g.contacts.tobytes()

    other = loaded_xml.replace('value="cube sphere"', 'value="sphere cube"')
    with pytest.raises(ValueError, match="config key 'bed_file'.*fingerprint"):
        mujoco.MjModel.from_xml_string(other)


def test_committed_rocks_are_what_make_rocks_writes():
    # the script also checks each rock is closed, consistently oriented and of positive volume
    script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "examples",
                          "make_rocks.py")
    run = subprocess.run([sys.executable, script, "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
