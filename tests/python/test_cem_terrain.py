"""Contact fields fitted by the tool (models/assets/cube.cem) in the plugin: the file the Python
tool wrote loads into a terrain of the same cube (the plugin recomputes each mesh's fingerprint
in C), and a cube dropped flat onto another, both meeting by the fields, is held up by them at
the height of its face on the other's: its centre stays two half sides above the lower cube's
within 10% of the cube's equal-volume radius, neither sinking in nor thrown off. one contact
point stands for the face's patch, so the torsional spring (torsional_friction) holds the cube
from turning about the normal: it neither turns at rest nor spins on without slowing at the
rate the spring's cap sets."""

import pathlib

import numpy as np
import pytest

import mujoco

import mjgranular

ROOT = pathlib.Path(__file__).resolve().parents[2]
HALF = 0.005
CUBE = " ".join(str(HALF) if (i >> a) & 1 else str(-HALF) for i in range(8) for a in range(3))
R_EQ = 2 * HALF * (3 / (4 * np.pi)) ** (1 / 3)


def two_cubes(keys=""):
    xml = f"""<mujoco><option timestep="0.001"/>
  <asset><mesh name="cube" vertex="{CUBE}"/></asset>
  <extension><plugin plugin="mjgranular.terrain"><instance name="g">
    <config key="count" value="2"/><config key="shape" value="cube"/>
    <config key="clump_spheres" value="8"/><config key="model" value="dem"/>
    <config key="shape_model" value="cem"/>
    <config key="cem_fields" value="{ROOT / 'models' / 'assets' / 'cube.cem'}"/>
    {keys}
  </instance></plugin></extension>
  <worldbody><plugin instance="g"/><geom type="plane" size="1 1 0.1"/></worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    g = mjgranular.grains(m, d)
    g.state[0] = 2
    # the lower on the floor (its spheres bulge a little out of its faces), the upper flat above it
    # with a 1 mm gap
    g.positions[:] = [[0, 0, HALF + 0.0005], [0.001, 0, 3 * HALF + 0.0015]]
    g.velocities[:] = 0
    g.angular_velocities[:] = 0
    g.types[:] = 0
    g.orientations[:] = [[1, 0, 0, 0], [1, 0, 0, 0]]
    return m, d


def test_cube_fields_hold_a_cube_on_a_cube():
    m, d = two_cubes()
    heights = []
    for step in range(400):
        mujoco.mj_step(m, d)
        if step >= 100:
            pos = np.array(mjgranular.grains(m, d).positions)
            heights.append(pos[1, 2] - pos[0, 2])
    heights = np.array(heights)
    assert np.all(np.abs(heights - 2 * HALF) < 0.1 * R_EQ), (heights.min(), heights.max())


def yaw(q):
    """The turn of an orientation (w x y z) about the vertical [rad]."""
    return 2 * np.arctan2(q[3], q[0])


def test_a_cube_resting_on_a_cube_does_not_turn():
    # the field's slight error in the normal, off the contact point, turns the upper cube about
    # the vertical; the torsional spring must hold that as a twist of well under a degree (a cube
    # on a cube has no reason to turn at all)
    m, d = two_cubes()
    turns = []
    for step in range(1200):
        mujoco.mj_step(m, d)
        if step >= 200:
            turns.append(yaw(np.array(mjgranular.grains(m, d).orientations[1])))
    turns = np.degrees(np.unwrap(turns))
    assert np.ptp(turns) < 1.0, (turns.min(), turns.max())


def test_a_cube_spinning_on_a_cube_slows_at_the_torsional_cap():
    # sliding, the torsional spring holds its cap torsional_friction * r_eff * fn, fn the upper
    # cube's weight and r_eff = r_eq / 2 (two equal grains), so the spin falls at that moment over
    # the cube's moment of inertia m s^2 / 6. torsional_friction 1 makes the cap a face's patch
    # (mu fn 0.38 s for a square face of side s); low friction keeps the coulomb force at the
    # field's contact point, off the axis by the field's error, from adding more than 2% to it
    torsional, gravity, side = 1.0, 9.81, 2 * HALF
    m, d = two_cubes('<config key="friction" value="0.1"/>'
                     f'<config key="torsional_friction" value="{torsional}"/>')
    for _ in range(300):
        mujoco.mj_step(m, d)
    w0 = 30.0
    mjgranular.grains(m, d).angular_velocities[1] = [0, 0, w0]
    times, spins = [], []
    while True:
        mujoco.mj_step(m, d)
        w = np.array(mjgranular.grains(m, d).angular_velocities[1])
        if w[2] < 0.3 * w0:
            break
        times.append(d.time)
        spins.append(w[2])
    rate = -np.polyfit(times, spins, 1)[0]
    want = torsional * (R_EQ / 2) * gravity / (side ** 2 / 6)
    assert rate == pytest.approx(want, rel=0.03), (rate, want)
