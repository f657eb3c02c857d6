"""Initial beds from Python (CPU backend): a bed settled at load (config key settle) is saved with
mjgranular.save_bed, a new model starts from it (config key bed_file) with exactly the saved
grains, and continues as the saved run did, bit for bit.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""


import numpy as np
import pytest

import mujoco

import mjgranular

WORLD = """
    <geom name="floor" type="plane" size="0.3 0.3 0.05"/>
    <geom type="box" pos=" 0.05 0 0.04" size="0.01 0.06 0.04"/>
    <geom type="box" pos="-0.05 0 0.04" size="0.01 0.06 0.04"/>
    <geom type="box" pos="0  0.05 0.04" size="0.06 0.01 0.04"/>
    <geom type="box" pos="0 -0.05 0.04" size="0.06 0.01 0.04"/>
"""


def scene(keys):
    config = "".join(f'<config key="{k}" value="{v}"/>' for k, v in keys.items())
    return f"""
<mujoco>
  <option timestep="0.002"/>
  <extension>
    <plugin plugin="mjgranular.terrain">
      <instance name="sand">{config}<config key="backend" value="cpu"/></instance>
    </plugin>
  </extension>
  <worldbody><plugin instance="sand"/>{WORLD}</worldbody>
</mujoco>
"""


# settled for 1 s: the grains roll, so the pour takes longer to come to rest than 0.4 s
SETTLED = {"fill": "-0.04 -0.04 0.005  0.04 0.04 0.06", "radius": "0.004", "spacing": "3",
           "seed": "7", "settle": "1.0"}


@pytest.fixture(scope="module")
def settled():
    mjgranular.load_plugin()
    return mujoco.MjModel.from_xml_string(scene(SETTLED))


def test_settled_bed_is_at_rest_and_settles_once(settled):
    runs = mjgranular.library().mjgranular_settle_runs()
    d = mujoco.MjData(settled)
    d2 = mujoco.MjData(settled)
    assert mjgranular.library().mjgranular_settle_runs() == runs, "a new MjData settled again"
    g = mjgranular.grains(settled, d)
    assert g.count > 150
    assert np.linalg.norm(g.velocities, axis=1).max() < 1e-3
    assert g.positions[:, 2].min() > 0.004 * 0.99  # on the floor, not in it
    assert np.array_equal(d.plugin_state, d2.plugin_state)
    mujoco.mj_step(settled, d)
    mujoco.mj_resetData(settled, d)
    assert np.array_equal(d.plugin_state, d2.plugin_state)


def test_saved_bed_starts_a_new_model_exactly(settled, tmp_path):
    d = mujoco.MjData(settled)
    for _ in range(10):  # moving a little: velocities are part of the check
        mujoco.mj_step(settled, d)
    path = tmp_path / "bed.mjgbed"
    mjgranular.save_bed(path, settled, d)
    g = mjgranular.grains(settled, d)

    bed = mjgranular.load_bed(path)
    assert bed.radius == pytest.approx(0.004)
    assert np.array_equal(bed.positions, g.positions) and np.array_equal(bed.velocities,
                                                                         g.velocities)
    assert np.abs(bed.velocities).max() > 0
    assert np.array_equal(bed.orientations, g.orientations)
    assert (np.abs(g.orientations[:, 0]) < 1).sum() > g.count / 2, "the grains have turned"
    np.testing.assert_allclose(np.linalg.norm(g.orientations, axis=1), 1, atol=1e-6)
    assert bed.contacts["npair"].shape == (1, g.count) and bed.contacts["npair"].max() > 0

    m = mujoco.MjModel.from_xml_string(scene({"bed_file": path, "radius": "0.004"}))
    e = mujoco.MjData(m)
    h = mjgranular.grains(m, e)
    assert h.capacity == g.count == h.count
    assert np.array_equal(h.positions, g.positions)
    assert np.array_equal(h.velocities, g.velocities)
    assert np.array_equal(h.orientations, g.orientations)
    assert np.array_equal(h.contacts, g.contacts)

    # both continue alike, bit for bit
    for _ in range(20):
        mujoco.mj_step(settled, d)
        mujoco.mj_step(m, e)
    assert np.array_equal(h.state, g.state)


def older(settled, tmp_path, version):
    """A bed file of the settled bed stepped 10 times, written in format version 3 (a 32-byte
    header, no types) or 2 (no orientations either); its path and the grains it was saved from."""
    d = mujoco.MjData(settled)
    for _ in range(10):
        mujoco.mj_step(settled, d)
    path = tmp_path / "bed.mjgbed"
    mjgranular.save_bed(path, settled, d)
    g = mjgranular.grains(settled, d)
    n, raw = g.count, bytearray(path.read_bytes())
    h4, h3 = mjgranular.bedfile.BED_HEADER.itemsize, mjgranular.bedfile.BED_HEADER_V3.itemsize
    del raw[h4 + 56 * n:h4 + 60 * n]
    if version == 2:
        del raw[h4 + 36 * n:h4 + 52 * n]
    del raw[h3:h4]
    raw[8:12] = version.to_bytes(4, "little")
    old = tmp_path / f"v{version}.mjgbed"
    old.write_bytes(bytes(raw))
    return old, g


def test_version_three_bed_loads_as_saved(settled, tmp_path):
    # a file of format version 3 (before grain types): the same grains and contacts
    old, g = older(settled, tmp_path, 3)
    bed = mjgranular.load_bed(old)
    assert bed.spheres == 1 and bed.ntype == 1 and bed.fingerprint == 0
    m = mujoco.MjModel.from_xml_string(scene({"bed_file": old, "radius": "0.004"}))
    h = mjgranular.grains(m, mujoco.MjData(m))
    for part in ("positions", "velocities", "angular_velocities", "orientations", "radii",
                 "contacts"):
        assert np.array_equal(getattr(h, part), getattr(g, part)), part


def test_version_two_bed_loads_at_the_identity(settled, tmp_path):
    # a file of format version 2 (before orientations were kept): the same bytes without the
    # orientations block; everything else loads as saved, every grain at the identity
    old, g = older(settled, tmp_path, 2)
    n = g.count
    bed = mjgranular.load_bed(old)
    identity = np.tile([1, 0, 0, 0], (n, 1))
    assert np.array_equal(bed.orientations, identity)
    assert np.array_equal(bed.angular_velocities, g.angular_velocities)
    assert np.array_equal(bed.radii, g.radii)
    m = mujoco.MjModel.from_xml_string(scene({"bed_file": old, "radius": "0.004"}))
    h = mjgranular.grains(m, mujoco.MjData(m))
    assert np.array_equal(h.positions, g.positions)
    assert np.array_equal(h.orientations, identity)
    assert np.array_equal(h.contacts, g.contacts)


def test_bed_without_contacts(settled, tmp_path):
    d = mujoco.MjData(settled)
    path = tmp_path / "plain.mjgbed"
    mjgranular.save_bed(path, settled, d, contacts=False)
    assert mjgranular.load_bed(path).contacts is None
    m = mujoco.MjModel.from_xml_string(scene({"bed_file": path, "radius": "0.004"}))
    h = mjgranular.grains(m, mujoco.MjData(m))
    assert np.array_equal(h.positions, mjgranular.grains(settled, d).positions)
    assert not h.contacts.any()


def test_bad_bed_file_is_refused(settled, tmp_path):
    d = mujoco.MjData(settled)
    path = tmp_path / "bed.mjgbed"
    mjgranular.save_bed(path, settled, d)
    with pytest.raises(ValueError, match="config key 'bed_file'.*radius"):
        mujoco.MjModel.from_xml_string(scene({"bed_file": path, "radius": "0.005"}))
    path.write_bytes(path.read_bytes()[:-4])
    with pytest.raises(ValueError, match="config key 'bed_file'.*truncated"):
        mujoco.MjModel.from_xml_string(scene({"bed_file": path, "radius": "0.004"}))
    with pytest.raises(ValueError, match="bytes"):
        mjgranular.load_bed(path)


def test_mixed_sizes_bed_round_trips_with_its_radii(tmp_path):
    # radii drawn in [3, 4] mm: the file keeps every grain's radius (and spin), and a model that
    # loads it with the same largest radius continues bit for bit
    keys = dict(SETTLED, radius="0.003 0.004", settle="0.3")
    m0 = mujoco.MjModel.from_xml_string(scene(keys))
    d = mujoco.MjData(m0)
    for _ in range(10):
        mujoco.mj_step(m0, d)
    g = mjgranular.grains(m0, d)
    assert g.radii.min() < 0.0031 and g.radii.max() > 0.0039
    assert np.abs(g.angular_velocities).max() > 0
    path = tmp_path / "mixed.mjgbed"
    mjgranular.save_bed(path, m0, d)
    bed = mjgranular.load_bed(path)
    assert bed.radius == pytest.approx(0.004)
    assert np.array_equal(bed.radii, g.radii)
    assert np.array_equal(bed.angular_velocities, g.angular_velocities)

    m = mujoco.MjModel.from_xml_string(scene({"bed_file": path, "radius": "0.003 0.004"}))
    e = mujoco.MjData(m)
    h = mjgranular.grains(m, e)
    assert np.array_equal(h.radii, g.radii)
    for _ in range(20):
        mujoco.mj_step(m0, d)
        mujoco.mj_step(m, e)
    assert np.array_equal(h.state, g.state)


def test_dem_bed_keeps_its_springs_and_another_model_drops_them(tmp_path):
    # a dem bed's file records its contact model: a dem model continues it bit for bit, tangential
    # springs and all; a projected jacobi model takes its grains and starts its own contacts
    keys = dict(SETTLED, model="dem", settle="0.2")
    m0 = mujoco.MjModel.from_xml_string(scene(keys))
    d = mujoco.MjData(m0)
    for _ in range(5):
        mujoco.mj_step(m0, d)
    g = mjgranular.grains(m0, d)
    assert g.model == 1
    path = tmp_path / "dem.mjgbed"
    mjgranular.save_bed(path, m0, d)
    bed = mjgranular.load_bed(path)
    assert bed.model == 1
    assert np.abs(bed.contacts["pair_lin"]).max() > 0  # the springs are in the file

    m = mujoco.MjModel.from_xml_string(scene({"bed_file": path, "radius": "0.004",
                                              "model": "dem"}))
    e = mujoco.MjData(m)
    h = mjgranular.grains(m, e)
    assert np.array_equal(h.contacts, g.contacts)
    for _ in range(10):
        mujoco.mj_step(m0, d)
        mujoco.mj_step(m, e)
    assert np.array_equal(h.state, g.state)

    pj = mujoco.MjModel.from_xml_string(scene({"bed_file": path, "radius": "0.004"}))
    p = mjgranular.grains(pj, mujoco.MjData(pj))
    assert p.model == 0
    assert np.array_equal(p.positions, bed.positions)
    assert not p.contacts.any()
