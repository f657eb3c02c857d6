"""Contact fields fitted by the tool (models/assets/cube.cem) in the plugin: the file the Python
tool wrote loads into a terrain of the same cube (the plugin recomputes each mesh's fingerprint
in C), and a cube dropped flat onto another, both meeting by the fields, is held up by them at
the height of its face on the other's: its centre stays two half sides above the lower cube's
within 10% of the cube's equal-volume radius, neither sinking in nor thrown off."""

import pathlib

import numpy as np

import mujoco

import mjgranular

ROOT = pathlib.Path(__file__).resolve().parents[2]
HALF = 0.005
CUBE = " ".join(str(HALF) if (i >> a) & 1 else str(-HALF) for i in range(8) for a in range(3))
R_EQ = 2 * HALF * (3 / (4 * np.pi)) ** (1 / 3)


def two_cubes():
    xml = f"""<mujoco><option timestep="0.001"/>
  <asset><mesh name="cube" vertex="{CUBE}"/></asset>
  <extension><plugin plugin="mjgranular.terrain"><instance name="g">
    <config key="count" value="2"/><config key="shape" value="cube"/>
    <config key="clump_spheres" value="8"/><config key="model" value="dem"/>
    <config key="shape_model" value="cem"/>
    <config key="cem_fields" value="{ROOT / 'models' / 'assets' / 'cube.cem'}"/>
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
