"""Grains shaped like MJCF meshes (config key shape) from Python: the types view, and rollouts on
several threads that give each start the trajectory of stepping it alone, bit for bit, with a
free box landing on a bed of cubes and spheres."""

import numpy as np

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
