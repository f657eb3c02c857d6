"""The fitting tool of configuration-space contact fields (mjgranular.cem) against independent
truth: the analytic box SDF, the analytic gap between two cubes, FNV-1a test vectors, finite
differences of the evaluated field; the file round trip; a tiny fit that learns and repeats."""

import pathlib
import re
import struct

import numpy as np
import pytest

import mujoco

from mjgranular import cem, cem_net, mesh_sdf

HALF = 0.005
CUBE = " ".join(str(HALF) if (i >> a) & 1 else str(-HALF) for i in range(8) for a in range(3))
CUBE_XML = f'<mujoco><asset><mesh name="cube" vertex="{CUBE}"/></asset></mujoco>'


@pytest.fixture(scope="module")
def cube():
    return cem.mesh_from_model(mujoco.MjModel.from_xml_string(CUBE_XML), "cube")


@pytest.fixture(scope="module")
def cubes(cube):
    return cem.PairGeometry(cube, cube)


def box_sdf(points):
    q = np.abs(points) - HALF
    return np.linalg.norm(np.maximum(q, 0), axis=1) + np.minimum(q.max(axis=1), 0)


def rotation_z(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def test_cube_grid_is_the_box_sdf(cube, cubes):
    grid = cubes.grid_a
    np.testing.assert_allclose(grid.values.ravel(), box_sdf(grid.nodes()), atol=1e-9)
    points = np.random.default_rng(0).uniform(-0.008, 0.008, (500, 3))
    exact = mesh_sdf.signed_distance(points, cube.verts, cube.faces)[0]
    np.testing.assert_allclose(exact, box_sdf(points), atol=1e-9)


def corner_down():
    """B turned so its corner (1, 1, 1) points straight down (-z)."""
    a, b = np.ones(3) / np.sqrt(3), np.array([0.0, 0.0, -1.0])
    v = np.cross(a, b)
    k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + k + k @ k / (1 + a @ b)


@pytest.mark.parametrize("gap", [-0.0008, -0.0002, 0.0, 0.0005, 0.002])
def test_sampling_rule_gives_the_gap_of_two_cubes(cubes, gap):
    """Face on face (B shifted along x): phi is the gap, or minus the overlap. Edge on face (B
    turned 45 degrees about z): the gap; an edge d deep balances sA = -y against
    sB = -(d - y) / sqrt(2) at depth y = d / (1 + sqrt(2)), so phi = -2 d / (1 + sqrt(2)). Corner
    on face (B's corner straight down onto A's top): the gap; a corner d deep balances sA = -y
    against sB = -(d - y) / sqrt(3), so phi = -2 d / (1 + sqrt(3)). The normal is A's face's in
    every case: the edge and the corner press into it, though the point of balance lies on their
    medial axis, where grad sB is any of the faces' normals."""
    edge, diagonal = HALF * np.sqrt(2), HALF * np.sqrt(3)
    t = np.array([[2 * HALF + gap, 0.001, -0.002], [HALF + edge + gap, 0.0, 0.001],
                  [0.001, -0.0005, HALF + diagonal + gap]])
    R = np.stack([np.eye(3), rotation_z(np.pi / 4), corner_down()])
    phi = np.array([gap, gap if gap >= 0 else 2 * gap / (1 + np.sqrt(2)),
                    gap if gap >= 0 else 2 * gap / (1 + np.sqrt(3))])
    normal = np.array([[1, 0, 0], [1, 0, 0], [0, 0, 1]])
    height = HALF + phi / 2   # the contact point lies at sA = phi / 2, from A's face
    arms = np.stack([height, height - np.einsum("ij,ij->i", t, normal)], axis=1)
    # to 5 um, 0.05% of the edge: the continuous refinement stops short of the limit; the labels'
    # REFINE_STEPS zigzag slowly into a corner's medial axis (to 20 um; the reference's 60 do not)
    for labels, corner in ((cubes.label(t, R), 2e-5), (cubes.reference(t, R), 5e-6)):
        atol = np.array([5e-6, 5e-6, corner])
        np.testing.assert_array_less(np.abs(labels["phi"] - phi), atol)
        np.testing.assert_allclose(labels["n"], normal, atol=1e-3)
        np.testing.assert_array_less(np.abs(labels["arms"] - arms), np.stack([atol, atol], axis=1))


def test_support_proposals_touch(cube):
    """A vertex of one grain on the other's face, no offset: a convex grain lies under the plane of
    its face and the other's lowest vertex on it above, so the two touch (phi = 0), whichever
    grain holds the face (a cube and a flat box, so a pose not turned back would not touch)."""
    halves = (0.006, 0.003, 0.0015)
    box = " ".join(str(h if (i >> a) & 1 else -h) for i in range(8) for a, h in enumerate(halves))
    model = mujoco.MjModel.from_xml_string(
        f'<mujoco><asset><mesh name="box" vertex="{box}"/></asset></mujoco>')
    flat = cem.mesh_from_model(model, "box")
    t, R = cem.support_configs(np.random.default_rng(6), 8, cube, flat, 0.0)
    np.testing.assert_allclose(cem.PairGeometry(cube, flat).reference(t, R)["phi"], 0.0,
                               atol=5e-6)


def test_fnv1a_test_vectors_and_the_plugins_basis(cube):
    """The published vectors (standard basis); the file's basis is the plugin's
    MJG_FNV1A_BASIS (plugin/shared_cache.h), which is not the standard one."""
    standard = 0xCBF29CE484222325
    assert cem.fnv1a(b"a", standard) == 0xAF63DC4C8601EC8C
    assert cem.fnv1a(b"foobar", standard) == 0x85944171F73967E8
    header = (pathlib.Path(__file__).parents[2] / "plugin" / "shared_cache.h").read_text()
    basis = re.search(r"#define MJG_FNV1A_BASIS (\d+)ull", header).group(1)
    assert cem.fnv1a(b"") == int(basis)
    data = cube.verts.astype("<f4").tobytes() + cube.faces.astype("<i4").tobytes()
    assert cube.fingerprint == cem.fnv1a(data)


def random_fields(seed=0):
    rng = np.random.default_rng(seed)
    types = [cem.TypeEntry("cube", 123456789012345678, float(np.float32(0.00866))),
             cem.TypeEntry("rock", 42, float(np.float32(0.01)))]
    pairs = {}
    for a, b in ((0, 0), (0, 1), (1, 1)):
        net = [(w.astype(np.float32).astype(float), (b_ + 0.1).astype(np.float32).astype(float))
               for w, b_ in cem_net.init([cem.INPUTS, 16, 8, 1], rng)]
        arm = [(w.astype(np.float32).astype(float), b_.astype(float))
               for w, b_ in cem_net.init([cem.INPUTS, 8, 2], rng)]
        pairs[(a, b)] = cem.PairField(a, b, float(np.float32(0.02)), net, arm)
    return cem.Fields(types, pairs)


def test_file_round_trip(tmp_path):
    fields = random_fields()
    path = tmp_path / "f.cem"
    cem.write_fields(path, fields)
    data = path.read_bytes()
    assert data[:8] == b"MJGCEM02" and struct.unpack_from("<II", data, 8) == (2, 3)
    n_in = cem.INPUTS
    net_bytes = ((4 + 4 * 4 + 4 * (16 * n_in + 16 + 8 * 16 + 8 + 8 + 1))
                 + (4 + 4 * 3 + 4 * (8 * n_in + 8 + 16 + 2)))
    assert len(data) == 16 + 2 * (64 + 8 + 4) + 3 * (12 + net_bytes)
    back = cem.read_fields(path)
    assert back.types == fields.types
    for key, pair in fields.pairs.items():
        got = back.pairs[key]
        assert (got.a, got.b, got.L) == (pair.a, pair.b, pair.L)
        for mine, theirs in zip(pair.distance + pair.arm, got.distance + got.arm):
            assert np.array_equal(mine[0], theirs[0]) and np.array_equal(mine[1], theirs[1])


def test_a_file_of_the_former_input_is_refused_by_its_cause(tmp_path):
    path = tmp_path / "old.cem"
    cem.write_fields(path, random_fields())
    path.write_bytes(b"MJGCEM01" + path.read_bytes()[8:])
    with pytest.raises(ValueError, match="9-wide net input.*refit"):
        cem.read_fields(path)


def small_rotation(omega):
    angle = np.linalg.norm(omega)
    k = np.array([[0, -omega[2], omega[1]], [omega[2], 0, -omega[0]], [-omega[1], omega[0], 0]])
    k /= angle
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


@pytest.mark.parametrize("a,b", [(0, 1), (1, 0), (1, 1)])
def test_evaluate_gradients_match_finite_differences(a, b):
    """dphi/dt and the rotation gradient (B turned by omega about its origin) against central
    differences; (1, 0) is the stored pair seen from the other grain."""
    fields = random_fields()
    rng = np.random.default_rng(1)
    t, R = cem.random_configs(rng, 4, 0.02)
    got = cem.evaluate(fields, a, b, t, R)
    h = 1e-6
    for i in range(4):
        for k in range(3):
            step = np.eye(3)[k] * h
            plus = cem.evaluate(fields, a, b, t[i] + step, R[i]).phi[0]
            minus = cem.evaluate(fields, a, b, t[i] - step, R[i]).phi[0]
            assert (plus - minus) / (2 * h) == pytest.approx(got.grad_t[i, k], abs=1e-6)
            plus = cem.evaluate(fields, a, b, t[i], small_rotation(step) @ R[i]).phi[0]
            minus = cem.evaluate(fields, a, b, t[i], small_rotation(-step) @ R[i]).phi[0]
            assert (plus - minus) / (2 * h) == pytest.approx(got.rot[i, k], abs=1e-7)


def test_slopes_along_the_slope_directions_are_the_evaluated_gradients():
    """The distance net's slopes along slope_directions are evaluate's dphi/dt and rotation
    gradient / L, the quantities the fit matches to the labels' normal and (p - t) x n / L."""
    fields = random_fields()
    pair = fields.pairs[(0, 1)]
    t, R = cem.random_configs(np.random.default_rng(3), 6, 0.02)
    got = cem.evaluate(fields, 0, 1, t, R)
    _, slopes, _ = cem_net.forward_slopes(pair.distance, cem.encode(t, R, pair.L),
                                          cem.slope_directions(t, R, pair.L))
    np.testing.assert_allclose(slopes[:, :3, 0], got.grad_t, atol=1e-12)
    np.testing.assert_allclose(slopes[:, 3:, 0], got.rot / pair.L, atol=1e-12)


def test_slope_loss_gradients_match_finite_differences():
    """backward_slopes against central differences of the training loss (values and slopes)
    in every weight and bias of a small net."""
    rng = np.random.default_rng(4)
    net = [(w, b + 0.1 * rng.standard_normal(b.shape))
           for w, b in cem_net.init([cem.INPUTS, 7, 5, 1], rng)]
    x, directions = rng.standard_normal((9, cem.INPUTS)), rng.standard_normal((9, 6, cem.INPUTS))
    y, slopes = rng.standard_normal((9, 1)), rng.standard_normal((9, 6, 1))
    weight = 0.3
    out, dout, pre = cem_net.forward_slopes(net, x, directions)
    grads = cem_net.backward_slopes(net, pre, 2 * (out - y) / out.size,
                                    2 * weight * (dout - slopes) / dout.size)
    h = 1e-6
    for layer in range(len(net)):
        for k in range(2):
            param = net[layer][k]
            for idx in np.ndindex(param.shape):
                old = param[idx]
                param[idx] = old + h
                plus = cem_net.loss(net, x, y, directions, slopes, weight)
                param[idx] = old - h
                minus = cem_net.loss(net, x, y, directions, slopes, weight)
                param[idx] = old
                assert (plus - minus) / (2 * h) == pytest.approx(grads[layer][k][idx], abs=1e-8)


def test_evaluate_swapped_pair_is_the_stored_one_inverted():
    fields = random_fields()
    t, R = cem.random_configs(np.random.default_rng(2), 5, 0.02)
    Rt = np.transpose(R, (0, 2, 1))
    direct = cem.evaluate(fields, 0, 1, t, R)
    swapped = cem.evaluate(fields, 1, 0, -np.einsum("cij,cj->ci", Rt, t), Rt)
    np.testing.assert_allclose(swapped.phi, direct.phi, rtol=1e-12)
    np.testing.assert_allclose(swapped.arms, -direct.arms[:, ::-1], rtol=1e-12)


def test_tiny_fit_learns_and_repeats_bit_for_bit(cube, tmp_path):
    losses = []
    for run in range(2):
        fields = cem.fit([cube], samples=300, hidden=[8, 8], epochs=6, seed=7,
                         log=losses.append)
        cem.write_fields(tmp_path / f"run{run}.cem", fields)
    assert (tmp_path / "run0.cem").read_bytes() == (tmp_path / "run1.cem").read_bytes()
    geom = cem.PairGeometry(cube, cube)
    t, R, labels = cem.sample_pair(geom, 300, np.random.default_rng(3))
    x = cem.encode(t, R, geom.L)
    net = cem_net.init([cem.INPUTS, 8, 8, 1], np.random.default_rng(4))
    before = cem_net.mse(net, x, labels["phi"][:, None] / geom.L)
    history = cem_net.train(net, x, labels["phi"][:, None] / geom.L, np.random.default_rng(5), 30)
    assert history[-1] < 0.5 * before and history[-1] < history[0]
