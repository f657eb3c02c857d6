"""The sensor plugins from Python (CPU backend), against independent truth:
- mjgranular.heightmap over a flat settled bed reads the bed height within one grain radius. The
  bed is a near-aligned lattice (spacing 2.2 radii, jitter 0.09 radii) that settles (config key
  settle) into columns standing on each other, so its height is L layers of diameters, 2 r L,
  with L from the fill box by the lattice rule (plugin/README.md).
- mjgranular.wrench reads the wrench the terrain applies to the body: the step's change of the
  joint velocities beyond MuJoCo's own is M^-1 J^T of that wrench times the timestep (mj_applyFT
  at the body's centre of mass, mj_solveM), for the free box exactly m dv = (m g + F) h, and
  with the body resting on the sand it carries on average its weight.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import math

import numpy as np
import pytest

import mujoco

import mjgranular

RADIUS = 0.004
FILL_Z = (0.0, 0.05)  # fill box heights: a lattice of L layers
NX, NY = 5, 5  # height map cells over the interior

SCENE = f"""
<mujoco>
  <option timestep="0.002"/>
  <extension>
    <plugin plugin="mjgranular.terrain">
      <instance name="sand">
        <config key="fill" value="-0.05 -0.05 {FILL_Z[0]}  0.05 0.05 {FILL_Z[1]}"/>
        <config key="domain" value="-0.05 -0.05 0  0.05 0.05 0.3"/>
        <config key="radius" value="{RADIUS}"/>
        <config key="settle" value="0.4"/>
        <config key="backend" value="cpu"/>
      </instance>
    </plugin>
    <plugin plugin="mjgranular.heightmap">
      <instance name="surface">
        <config key="region" value="-0.04 -0.04 0.04 0.04"/>
        <config key="size" value="{NX} {NY}"/>
      </instance>
    </plugin>
    <plugin plugin="mjgranular.wrench"/>
  </extension>
  <worldbody>
    <plugin instance="sand"/>
    <geom name="floor" type="plane" size="0.3 0.3 0.05"/>
    <body name="box" pos="0 0 0.5">
      <freejoint/>
      <geom type="box" size="0.015 0.015 0.015" density="8000"/>
    </body>
  </worldbody>
  <sensor>
    <plugin name="surface" instance="surface"/>
    <plugin name="wrench" plugin="mjgranular.wrench" objtype="body" objname="box"/>
  </sensor>
</mujoco>
"""


@pytest.fixture(scope="module")
def model():
    mjgranular.load_plugin()
    return mujoco.MjModel.from_xml_string(SCENE)


def lattice_layers():
    """Layers of the initial lattice in the fill box: centres from lo + r to hi - r, 2.2 r apart."""
    room = FILL_Z[1] - FILL_Z[0] - 2 * RADIUS
    return math.floor(room / (2.2 * RADIUS) + 1e-9) + 1


def test_height_map_of_a_settled_bed_is_the_highest_grain_top_per_cell(model):
    # the lattice topples as it settles (grains rotate), so the truth is brute force: per cell
    # of the region the highest top (z + r) of the grains whose centres lie in it
    d = mujoco.MjData(model)  # the box starts 0.5 m up, far above the bed
    mujoco.mj_forward(model, d)
    surface = d.sensor("surface").data
    assert surface.shape == (NX * NY,)
    g = mjgranular.grains(model, d)
    lo, cell = -0.04, 0.08 / NX
    want = np.full((NY, NX), -np.inf)
    for (x, y, z), r in zip(g.positions, g.radii):
        ix, iy = int((x - lo) // cell), int((y - lo) // cell)
        if 0 <= ix < NX and 0 <= iy < NY:
            want[iy, ix] = max(want[iy, ix], z + r)
    assert np.all(np.isfinite(want)), "every cell of the region lies over the bed"
    np.testing.assert_allclose(surface, want.ravel(), rtol=0, atol=1e-12)
    # a bed of lattice_layers() layers that came down: tops below the lattice's, above half of it
    height = 2 * RADIUS * lattice_layers()
    assert want.max() < height + RADIUS and want.min() > 0.5 * height, (height, want)


def test_wrench_sensor_is_the_wrench_applied_to_the_body(model):
    d = mujoco.MjData(model)
    box = model.body("box").id
    h, nv = model.opt.timestep, model.nv
    mass = model.body_subtreemass[box]
    d.qpos[2] = 0.062  # just above the bed, clear of the floor: only grains touch it
    mujoco.mj_forward(model, d)
    g = mjgranular.grains(model, d)
    forces = []
    for k in range(300):
        qvel0 = d.qvel.copy()
        mujoco.mj_step(model, d)
        w = g.wrenches[box].copy()  # the step's average granular wrench

        # the grains' impulse w h went into the joints within the step (the plugin's advance,
        # after the integrator): qvel = qvel0 + h qacc + M^-1 J^T (w h), J at the body's com
        jump = d.qvel - qvel0 - h * d.qacc
        generalized = np.zeros(nv)
        mujoco.mj_applyFT(model, d, w[:3] * h, w[3:] * h, d.xipos[box].copy(), box, generalized)
        expected = np.zeros((1, nv))
        mujoco.mj_solveM(model, d, expected, generalized.reshape(1, nv))
        assert np.allclose(jump, expected[0], rtol=1e-9, atol=1e-12), f"step {k}"
        # and its linear part is Newton's law for the box: m dv = (m g + F) h
        dv = d.qvel[:3] - qvel0[:3]
        assert np.allclose(mass * dv, (mass * model.opt.gravity + w[:3]) * h, rtol=1e-9,
                           atol=1e-12), f"step {k}"

        # the sensor reads that wrench (sensors of the state the step ended in)
        mujoco.mj_forward(model, d)
        assert np.array_equal(d.sensor("wrench").data, w), f"step {k}"
        forces.append(w[2])
    # it landed, and over the last 0.3 s, resting on the sand, the grains carry its weight
    assert max(forces) > 0
    weight = mass * -model.opt.gravity[2]
    assert np.mean(forces[-150:]) == pytest.approx(weight, rel=0.1)
