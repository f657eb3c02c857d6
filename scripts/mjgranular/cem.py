"""Configuration-space contact fields for pairs of grain meshes (the seed's Configurational Element
Method, in 3D): a fitted signed distance phi(t, R) and normal-projected moment arms over the pose
of mesh B in mesh A's frame (R: B frame -> A frame, t: B's mesh origin in A's frame), written to
a file the plugin reads.

    python -m mjgranular.cem fit MODEL.xml --meshes rock_a rock_b --out rocks.cem
    python -m mjgranular.cem accuracy MODEL.xml rocks.cem

Labels follow the seed's sampling rule: phi = min over x of f(x) = sA(x) + sB(x') + |sA - sB|
(= 2 max(sA, sB)), x' = R^T (x - t), taken first over the band nodes of both meshes' SDF grids,
then refined continuously with exact distances (descent steps on max(sA, sB)), so labels are
not quantised to the grid. Contact point p = x*, normal n from A toward B (unit(grad sA -
grad sB) where both are smooth; on a corner's or an edge's crease from the gradients around x*:
PairGeometry.normal), arms (p . n, (p - t) . n).

Net input (12 numbers): [t / L, R[:, 0], R[:, 1], R^T t / L], L = bound_A + bound_B: the
translation also in B's frame, which a net would otherwise have to form from products of its
inputs; outputs times L are phi and the two arms. The distance net is fitted to phi and to its
slopes, the normal and the rotation gradient (p - t) x n, which the solver takes from it.
File layout: see write_fields.
"""

import argparse
import struct
import sys
import time
from dataclasses import dataclass

import numpy as np

from mjgranular import cem_net, mesh_sdf

MAGIC = b"MJGCEM02"      # 02: the 12-wide net input; 01 files (9-wide) need refitting
INPUTS = 12              # net input width (encode)
NAME_BYTES = 64
FNV_BASIS = 1469598103934665603  # plugin/shared_cache.h's MJG_FNV1A_BASIS (not FNV's own)
FNV_PRIME = 1099511628211
NEAR_FRACTION = 0.9   # share of samples within NEAR_BAND x L of phi = 0 (the seed's 90%)
NEAR_BAND = 0.1
ALIGNED_SHARE = 0.4   # share of near proposals with a face of B flat on a face of A (resting)
SUPPORT_SHARE = 0.3   # share of near proposals with a vertex of one on a face of the other
ALIGNED_TILT = 0.05   # spread of their tilt off flat [rad]
REFINE_STEPS = 24     # refinement steps after each grid start (labels; creases converge slowly)
REFERENCE_STEPS = 60  # refinement steps of the exact reference, from several starts
# directions of the gradient probes around a minimiser for its normal (PairGeometry.normal): a
# cube's corners
NORMAL_PROBES = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)],
                         dtype=float) / np.sqrt(3)
NORMAL_PROBE_LENGTH = 1e-2  # their distance from it, in L
NORMAL_OPPOSED = 1e-3  # |grad sA + grad sB| under which the gradients at x give the normal alone
SLOPE_WEIGHT = 0.03   # weight of the distance net's slope error (normal, rotation gradient / L)


@dataclass
class Mesh:
    """A grain type: its mesh as mujoco compiled it (mesh frame), bound = largest vertex norm."""
    name: str
    verts: np.ndarray   # float32 (nv, 3)
    faces: np.ndarray   # int32 (nf, 3)

    @property
    def bound(self):
        return np.float32(np.linalg.norm(self.verts, axis=1).max())

    @property
    def fingerprint(self):
        return fingerprint(self.verts, self.faces)

    def volume(self):
        tri = self.verts.astype(float)[self.faces]
        return float(np.einsum("ij,ij->i", tri[:, 0], np.cross(tri[:, 1], tri[:, 2])).sum() / 6)

    def equal_volume_radius(self):
        return (3 * self.volume() / (4 * np.pi)) ** (1 / 3)


@dataclass
class TypeEntry:
    """A grain type as the file lists it."""
    name: str
    fingerprint: int
    bound: float


@dataclass
class PairField:
    """The two nets of a pair a <= b (indices into the type list), L = bound_a + bound_b."""
    a: int
    b: int
    L: float
    distance: list
    arm: list


@dataclass
class Fields:
    types: list
    pairs: dict   # (a, b) -> PairField


def fnv1a(data, h=FNV_BASIS):
    """64-bit FNV-1a of bytes."""
    for byte in data:
        h = ((h ^ byte) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def fingerprint(verts, faces):
    """64-bit FNV-1a over the float32 vertex bytes, then the int32 face bytes (C order)."""
    return fnv1a(np.ascontiguousarray(verts, dtype="<f4").tobytes()
                 + np.ascontiguousarray(faces, dtype="<i4").tobytes())


def mesh_from_model(model, name):
    """The mesh `name` of a compiled mujoco.MjModel, vertices and faces exactly as it holds them."""
    import mujoco
    i = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_MESH, name)
    if i < 0:
        raise ValueError(f"no mesh named {name!r} in the model")
    v0, f0 = model.mesh_vertadr[i], model.mesh_faceadr[i]
    verts = np.array(model.mesh_vert[v0:v0 + model.mesh_vertnum[i]], dtype=np.float32)
    faces = np.array(model.mesh_face[f0:f0 + model.mesh_facenum[i]], dtype=np.int32)
    return Mesh(name, verts, faces)


def random_rotations(rng, n):
    """Uniform rotation matrices from uniform unit quaternions."""
    q = rng.standard_normal((n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], axis=1)


def _axis_rotations(axis, angle):
    """Rotation matrices about unit axes (n, 3) by angles (n) (Rodrigues)."""
    k = axis
    K = np.zeros((len(k), 3, 3))
    K[:, 0, 1], K[:, 0, 2], K[:, 1, 2] = -k[:, 2], k[:, 1], -k[:, 0]
    K[:, 1, 0], K[:, 2, 0], K[:, 2, 1] = k[:, 2], -k[:, 1], k[:, 0]
    s, c = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    return np.eye(3)[None] + s * K + (1 - c) * (K @ K)


def aligned_configs(rng, n, mesh_a, mesh_b, offset):
    """Resting configurations: a random face of B (by area) turned flat against a random face
    of A, spun about the normal at random, tilted off flat by ~ALIGNED_TILT, a point of each face
    brought together and B moved off A along the normal by up to +-offset: the flat contacts
    grains come to rest in, which uniform rotations all but never propose."""
    qa, na = mesh_sdf.surface_samples(mesh_a.verts, mesh_a.faces, n, rng)
    qb, nb = mesh_sdf.surface_samples(mesh_b.verts, mesh_b.faces, n, rng)
    # nb onto -na: about nb x (-na) by the angle between them (a half turn about any
    # perpendicular where they are already parallel)
    axis = np.cross(nb, -na)
    sin = np.linalg.norm(axis, axis=1)
    cos = np.einsum("ij,ij->i", nb, -na)
    other = np.cross(nb, rng.standard_normal((n, 3)))
    axis = np.where(sin[:, None] > 1e-9, axis, other)
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    R = _axis_rotations(axis, np.arctan2(sin, cos))
    R = _axis_rotations(na, rng.uniform(0, 2 * np.pi, n)) @ R
    tilt = rng.standard_normal((n, 3))
    tilt /= np.linalg.norm(tilt, axis=1, keepdims=True)
    R = _axis_rotations(tilt, ALIGNED_TILT * np.abs(rng.standard_normal(n))) @ R
    t = qa + rng.uniform(-offset, offset, n)[:, None] * na - np.einsum("cij,cj->ci", R, qb)
    return t, R


def support_configs(rng, n, mesh_a, mesh_b, offset):
    """A grain's lowest vertex on the other's face: B turned at random, the vertex of B deepest
    along the inward normal of a random point of A's surface (by area) brought to that point, and
    moved off along the normal by up to +-offset; every other one with the grains' roles swapped
    (A's vertex on B's face, the pose inverted). Corners and edges resting on faces, which
    uniform translations reach only at their tips."""
    t, R = np.empty((n, 3)), random_rotations(rng, n)
    swap = np.arange(n) % 2 == 1
    for rows, face_mesh, vertex_mesh in ((~swap, mesh_a, mesh_b), (swap, mesh_b, mesh_a)):
        k = int(rows.sum())
        q, normal = mesh_sdf.surface_samples(face_mesh.verts, face_mesh.faces, k, rng)
        turned = np.einsum("cij,vj->cvi", R[rows], vertex_mesh.verts)
        lowest = turned[np.arange(k), np.argmin(np.einsum("cvi,ci->cv", turned, normal), axis=1)]
        t[rows] = q + rng.uniform(-offset, offset, k)[:, None] * normal - lowest
    # swapped rows hold A's pose in B's frame: invert to B's in A's
    Rt = np.transpose(R[swap], (0, 2, 1))
    t[swap], R[swap] = -np.einsum("cij,cj->ci", Rt, t[swap]), Rt
    return t, R


def random_configs(rng, n, radius):
    """Translations uniform in the ball |t| < radius, rotations uniform."""
    u = rng.standard_normal((n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    t = u * (radius * rng.random(n) ** (1 / 3))[:, None]
    return t, random_rotations(rng, n)


def encode(t, R, L):
    """Net input rows [t / L, R[:, 0], R[:, 1], R^T t / L] (INPUTS numbers)."""
    return np.concatenate([t / L, R[:, :, 0], R[:, :, 1], np.einsum("cji,cj->ci", R, t) / L],
                          axis=1)


def slope_directions(t, R, L):
    """Per configuration, the input's rates (n, 6, INPUTS) under B moved along e_k and turned
    about e_k (k = 0..2), times L: the distance net's slopes along them are dphi/dt and the
    rotation gradient / L (evaluate), whose labels are n and (p - t) x n / L."""
    n = len(t)
    eye = np.broadcast_to(np.eye(3), (n, 3, 3))
    move = np.concatenate([eye, np.zeros((n, 3, 6)), R], axis=2)
    # turning B by omega: c_j -> c_j + omega x c_j, and (R^T t)_j = c_j . t gains omega . (c_j x t)
    turn_columns = [np.cross(eye, R[:, None, :, j]) for j in range(2)]
    turn_b = np.stack([np.cross(R[:, :, j], t) for j in range(3)], axis=2) / L
    turn = np.concatenate([np.zeros((n, 3, 3)), *turn_columns, turn_b], axis=2)
    return np.concatenate([move, turn], axis=1)


def _to_b(x, t, R):
    return np.einsum("cji,cj->ci", R, x - t)


def _to_a(x, t, R):
    return t + np.einsum("cij,cj->ci", R, x)


class PairGeometry:
    """Meshes A and B of a pair with their SDF grids: labels configurations by the sampling
    rule (label) and by the grid-free reference (reference)."""

    def __init__(self, mesh_a, mesh_b, cells=12):
        self.mesh_a, self.mesh_b = mesh_a, mesh_b
        self.L = float(np.float32(mesh_a.bound + mesh_b.bound))
        self.grid_a = mesh_sdf.build_grid(mesh_a.verts, mesh_a.faces, cells)
        self.grid_b = mesh_sdf.build_grid(mesh_b.verts, mesh_b.faces, cells)
        self.band_a = self._band(self.grid_a)
        self.band_b = self._band(self.grid_b)
        self.normals_a = mesh_sdf.face_normals(mesh_a.verts, mesh_a.faces)
        self.normals_b = mesh_sdf.face_normals(mesh_b.verts, mesh_b.faces)

    def _band(self, grid):
        # a near-contact minimiser has |s| = |phi| / 2 <= NEAR_BAND L / 2; one cell of slack
        keep = np.abs(grid.values.ravel()) < NEAR_BAND * self.L / 2 + grid.spacing
        return grid.nodes()[keep], grid.values.ravel()[keep]

    def grid_starts(self, t, R, chunk=64):
        """Per config, the band node of A's grid and the band node of B's grid (in A's frame)
        with the smallest f, and 2 x that f (the grid's phi estimate)."""
        start_a, start_b, phi = np.empty_like(t), np.empty_like(t), np.empty(len(t))
        nodes_a, sa = self.band_a
        nodes_b, sb = self.band_b
        for s in range(0, len(t), chunk):
            tc, Rc = t[s:s + chunk], R[s:s + chunk]
            rows = np.arange(len(tc))
            fa = np.maximum(sa[None], self.grid_b.lookup(
                np.einsum("cji,cpj->cpi", Rc, nodes_a[None] - tc[:, None])))
            xb = tc[:, None] + np.einsum("cij,pj->cpi", Rc, nodes_b)
            fb = np.maximum(self.grid_a.lookup(xb), sb[None])
            ia, ib = np.argmin(fa, axis=1), np.argmin(fb, axis=1)
            start_a[s:s + chunk], start_b[s:s + chunk] = nodes_a[ia], xb[rows, ib]
            phi[s:s + chunk] = 2 * np.minimum(fa[rows, ia], fb[rows, ib])
        return start_a, start_b, phi

    def _surface_terms(self, x, t, R):
        """Exact signed distances of x to A and to B (in A's frame) and their unit gradients."""
        sa, pa, tri_a = mesh_sdf.signed_distance(x, self.mesh_a.verts, self.mesh_a.faces)
        sb, qb, tri_b = mesh_sdf.signed_distance(_to_b(x, t, R), self.mesh_b.verts,
                                                 self.mesh_b.faces)
        ga = _unit_gradient(x, pa, sa, self.normals_a[tri_a])
        gb = _unit_gradient(x, _to_a(qb, t, R), sb,
                            np.einsum("cij,cj->ci", R, self.normals_b[tri_b]))
        return sa, sb, ga, gb

    def refine(self, x, t, R, steps):
        """Minimises max(sA, sB) from x with exact distances, alternating proximal steps on the
        two linearised distances (a trust length per config, grown on success and cut on
        failure) with midpoint steps, a step kept only when it lowers the maximum: phi (2 x the
        minimum found), contact point and normal per config."""
        sa, sb, ga, gb = self._surface_terms(x, t, R)
        f = np.maximum(sa, sb)
        trust = np.full(len(x), 0.1 * self.L)
        for step in range(steps):
            # odd steps: the midpoint of the projections on both surfaces, fast for separated
            # grains; even steps: a proximal step, which also balances overlapping ones
            if step % 2:
                trial = x - 0.5 * (sa[:, None] * ga + sb[:, None] * gb)
            else:
                trial = x + _prox_step(sa, sb, ga, gb, trust)
            terms = self._surface_terms(trial, t, R)
            better = np.maximum(terms[0], terms[1]) < f
            x = np.where(better[:, None], trial, x)
            sa, sb = (np.where(better, new, old) for new, old in zip(terms[:2], (sa, sb)))
            ga, gb = (np.where(better[:, None], new, old)
                      for new, old in zip(terms[2:], (ga, gb)))
            f = np.maximum(sa, sb)
            if step % 2 == 0:
                trust = np.where(better, 2.0 * trust, 0.3 * trust)
        return 2 * f, x, self.normal(x, t, R, ga, gb)

    def normal(self, x, t, R, ga, gb):
        """The contact normal at the minimiser x (from A toward B): where both distances are
        smooth, unit(ga - gb); where one has a crease (a corner or an edge pressed into the other
        grain, x on its medial axis), any single gradient there is one face's, up to 35 degrees
        off. dphi/dt lies along a with 0 = lambda a + (1 - lambda) b for subgradients a of sA and b
        of sB, so the gradients at NORMAL_PROBES points around x stand for both subdifferentials
        and the minimum-norm point of their hull gives lambda a and (1 - lambda) b. (Any plane
        through x leaves probes on both sides.)"""
        n = ga - gb
        # opposed gradients at x itself are the normal: probes beside a crease that x is not on
        # would only add other pairs that cancel, so only the other rows are probed
        probe = np.linalg.norm(ga + gb, axis=1) >= NORMAL_OPPOSED
        n[probe] = self._probed_normal(x[probe], t[probe], R[probe], ga[probe], gb[probe])
        return n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-300)

    def _probed_normal(self, x, t, R, ga, gb):
        """The normal's direction (not unit) from the gradients at x and at the probes around x."""
        grads_a, grads_b = [ga], [gb]
        for offset in NORMAL_PROBES * (NORMAL_PROBE_LENGTH * self.L):
            _, _, pa, pb = self._surface_terms(x + offset, t, R)
            grads_a.append(pa)
            grads_b.append(pb)
        grads = np.stack(grads_a + grads_b, axis=1)
        weights = _min_norm_weights(grads)
        share_a = len(grads_a)
        return (np.einsum("ck,cki->ci", weights[:, :share_a], grads[:, :share_a])
                - np.einsum("ck,cki->ci", weights[:, share_a:], grads[:, share_a:]))

    def label(self, t, R, starts=None):
        """Labels by the sampling rule: the two grid starts (grid_starts' first two results,
        computed when not given), each refined by REFINE_STEPS steps (refine), the better kept
        (the meshes need not be convex: two basins)."""
        start_a, start_b = starts if starts is not None else self.grid_starts(t, R)[:2]
        return _labels(t, *self._best_of(t, R, start_a, start_b))

    def _best_of(self, t, R, *starts):
        runs = [self.refine(x, t, R, REFINE_STEPS) for x in starts]
        pick = np.argmin([run[0] for run in runs], axis=0)
        rows = np.arange(len(t))
        return tuple(np.stack([run[k] for run in runs])[pick, rows] for k in range(3))

    def reference(self, t, R, starts=16):
        """Grid-free labels: f at every vertex and face centroid of both meshes, the `starts`
        best refined for REFERENCE_STEPS steps (refine), the best end kept."""
        out = []
        cand_a = np.concatenate([self.mesh_a.verts, self.mesh_a.verts[self.mesh_a.faces]
                                 .mean(axis=1)]).astype(float)
        cand_b = np.concatenate([self.mesh_b.verts, self.mesh_b.verts[self.mesh_b.faces]
                                 .mean(axis=1)]).astype(float)
        for tc, Rc in zip(t, R):
            x = np.concatenate([cand_a, tc + cand_b @ Rc.T])
            tt, RR = np.repeat(tc[None], len(x), 0), np.repeat(Rc[None], len(x), 0)
            sa, sb, _, _ = self._surface_terms(x, tt, RR)
            pick = np.argsort(np.maximum(sa, sb))[:starts]
            f, p, n = self.refine(x[pick], tt[:len(pick)], RR[:len(pick)], REFERENCE_STEPS)
            k = np.argmin(f)
            out.append((f[k], p[k], n[k]))
        phi, p, n = (np.array(v) for v in zip(*out))
        return _labels(t, phi, p, n)


def _min_norm_weights(points, iterations=200):
    """Per row, convex weights (n, m) of the m points (n, m, 3) whose combination is the point of
    their hull nearest the origin (Frank-Wolfe with exact line search, from the nearest point)."""
    rows = np.arange(len(points))
    weights = np.zeros(points.shape[:2])
    weights[rows, np.argmin(np.einsum("cki,cki->ck", points, points), axis=1)] = 1.0
    for _ in range(iterations):
        w = np.einsum("ck,cki->ci", weights, points)
        toward = np.argmin(np.einsum("cki,ci->ck", points, w), axis=1)
        d = points[rows, toward] - w
        step = np.clip(-np.einsum("ci,ci->c", w, d) / np.maximum(np.einsum("ci,ci->c", d, d),
                                                                  1e-300), 0.0, 1.0)
        weights *= 1.0 - step[:, None]
        weights[rows, toward] += step
    return weights


def _prox_step(sa, sb, ga, gb, trust):
    """argmin_d max(sa + ga.d, sb + gb.d) + |d|^2 / (2 trust): d = -trust (l ga + (1 - l) gb)
    with l in [0, 1] maximising the dual, a quadratic in l."""
    diff = ga - gb
    norm2 = np.einsum("ij,ij->i", diff, diff)
    lam = ((sa - sb) / trust - np.einsum("ij,ij->i", gb, diff)) / np.maximum(norm2, 1e-300)
    lam = np.clip(np.where(norm2 > 1e-24, lam, (sa > sb).astype(float)), 0.0, 1.0)
    return -trust[:, None] * (lam[:, None] * ga + (1 - lam[:, None]) * gb)


def _unit_gradient(x, surface_point, s, face_normal):
    """grad of an exact SDF at x: (x - closest) / |s| outside, reversed inside; on the surface
    (no direction) the normal of the closest triangle."""
    d = x - surface_point
    length = np.linalg.norm(d, axis=1, keepdims=True)
    g = np.sign(s)[:, None] * d / np.maximum(length, 1e-300)
    return np.where(length > 1e-12, g, face_normal)


def _labels(t, phi, p, n):
    return {"phi": phi, "p": p, "n": n,
            "arms": np.stack([np.einsum("ij,ij->i", p, n),
                              np.einsum("ij,ij->i", p - t, n)], axis=1),
            "rot": np.cross(p - t, n)}


def sample_pair(geom, count, rng, batch=512, aligned=ALIGNED_SHARE, supported=SUPPORT_SHARE):
    """count labelled configurations: NEAR_FRACTION of them with |phi| < NEAR_BAND x L (rejection
    sampling of proposals: a share `aligned` of them faces resting on faces, aligned_configs, a
    share `supported` vertices on faces, support_configs, the rest uniform), the rest uniform
    over the broadphase ball |t| < L."""
    n_near = int(round(NEAR_FRACTION * count))
    t, R = random_configs(rng, count - n_near, geom.L)
    parts = [(t, R, geom.label(t, R))]
    # the grid's phi estimate is within a cell or so of the label: skip proposals far outside
    slack = NEAR_BAND * geom.L + 2 * max(geom.grid_a.spacing, geom.grid_b.spacing)
    have = 0
    while have < n_near:
        flat, tip = int(round(aligned * batch)), int(round(supported * batch))
        t, R = random_configs(rng, batch - flat - tip, geom.L)
        for count, propose in ((flat, aligned_configs), (tip, support_configs)):
            if count:
                tf, Rf = propose(rng, count, geom.mesh_a, geom.mesh_b, NEAR_BAND * geom.L / 2)
                inside = np.linalg.norm(tf, axis=1) < geom.L
                t, R = np.concatenate([t, tf[inside]]), np.concatenate([R, Rf[inside]])
        start_a, start_b, phi_grid = geom.grid_starts(t, R)
        maybe = np.abs(phi_grid) < slack
        t, R = t[maybe], R[maybe]
        lab = geom.label(t, R, (start_a[maybe], start_b[maybe]))
        keep = np.flatnonzero(np.abs(lab["phi"]) < NEAR_BAND * geom.L)[:n_near - have]
        parts.append((t[keep], R[keep], {k: v[keep] for k, v in lab.items()}))
        have += len(keep)
    return (np.concatenate([q[0] for q in parts]), np.concatenate([q[1] for q in parts]),
            {k: np.concatenate([q[2][k] for q in parts]) for k in parts[0][2]})


def _as_float32(net):
    """The net as the file stores it (float32), held in float64."""
    return [(w.astype(np.float32).astype(float), b.astype(np.float32).astype(float))
            for w, b in net]


def fit_pair(geom, t, R, labels, hidden, epochs, rng, slope_weight=SLOPE_WEIGHT):
    """Both nets of a pair trained on labelled configurations: (distance, arm) as the file
    stores them and their loss histories, in units of L^2. The distance net also matches the
    labels' normal and rotation gradient (slope_directions) with slope_weight."""
    x = encode(t, R, geom.L)
    widths = [INPUTS, *hidden]
    distance = cem_net.init(widths + [1], rng)
    slopes = np.concatenate([labels["n"], labels["rot"] / geom.L], axis=1)[:, :, None]
    loss_d = cem_net.train(distance, x, labels["phi"][:, None] / geom.L, rng, epochs,
                           directions=slope_directions(t, R, geom.L), slopes=slopes,
                           slope_weight=slope_weight)
    arm = cem_net.init(widths + [2], rng)
    loss_a = cem_net.train(arm, x, labels["arms"] / geom.L, rng, epochs)
    return (_as_float32(distance), _as_float32(arm)), (loss_d, loss_a)


def fit(meshes, samples, hidden, epochs, seed, cells=12, log=print):
    """Fields for every pair a <= b of the meshes, one generator seeded once for all of them."""
    rng = np.random.default_rng(seed)
    types = [TypeEntry(m.name, m.fingerprint, float(m.bound)) for m in meshes]
    pairs = {}
    for a in range(len(meshes)):
        for b in range(a, len(meshes)):
            start = time.perf_counter()
            geom = PairGeometry(meshes[a], meshes[b], cells)
            t, R, labels = sample_pair(geom, samples, rng)
            labelled = time.perf_counter()
            (distance, arm), (_, loss_a) = fit_pair(geom, t, R, labels, hidden, epochs, rng)
            pairs[(a, b)] = PairField(a, b, geom.L, distance, arm)
            # the distance net's loss also holds its slopes' error: phi's alone, as stored
            distance_mse = cem_net.mse(distance, encode(t, R, geom.L),
                                       labels["phi"][:, None] / geom.L)
            log(f"pair {meshes[a].name}-{meshes[b].name}: {samples} samples labelled in "
                f"{labelled - start:.1f} s, trained in {time.perf_counter() - labelled:.1f} s; "
                f"rms error / L: distance {np.sqrt(distance_mse):.2e}, "
                f"arms {np.sqrt(loss_a[-1]):.2e}")
    return Fields(types, pairs)


def _write_net(out, net):
    widths = [net[0][0].shape[1]] + [w.shape[0] for w, _ in net]
    out.write(struct.pack(f"<{len(widths) + 1}I", len(net), *widths))
    for w, b in net:
        out.write(np.ascontiguousarray(w, dtype="<f4").tobytes())
        out.write(np.ascontiguousarray(b, dtype="<f4").tobytes())


def write_fields(path, fields):
    """Little-endian: magic "MJGCEM01"; uint32 ntype, npair; per type char name[64] (NUL padded),
    uint64 fingerprint, float32 bound; per pair uint32 a, b (a <= b), float32 L, then the
    distance net and the arm net, each uint32 nlayer, uint32 width[nlayer + 1], and per layer
    float32 W[width[l + 1]][width[l]] row-major, float32 b[width[l + 1]]."""
    with open(path, "wb") as out:
        out.write(MAGIC)
        out.write(struct.pack("<II", len(fields.types), len(fields.pairs)))
        for entry in fields.types:
            name = entry.name.encode()
            if len(name) >= NAME_BYTES:
                raise ValueError(f"mesh name {entry.name!r} longer than {NAME_BYTES - 1} bytes")
            out.write(name.ljust(NAME_BYTES, b"\0"))
            out.write(struct.pack("<Qf", entry.fingerprint, entry.bound))
        for (a, b) in sorted(fields.pairs):
            pair = fields.pairs[(a, b)]
            out.write(struct.pack("<IIf", a, b, pair.L))
            _write_net(out, pair.distance)
            _write_net(out, pair.arm)


class _Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return values

    def floats(self, shape):
        count = int(np.prod(shape))
        values = np.frombuffer(self.data, "<f4", count, self.pos).reshape(shape)
        self.pos += 4 * count
        return values.astype(float)

    def net(self):
        (nlayer,) = self.take("<I")
        widths = self.take(f"<{nlayer + 1}I")
        return [(self.floats((widths[l + 1], widths[l])), self.floats(widths[l + 1]))
                for l in range(nlayer)]


def read_fields(path):
    """The Fields of a file written by write_fields."""
    with open(path, "rb") as f:
        reader = _Reader(f.read())
    if reader.data[:len(MAGIC)] == b"MJGCEM01":
        raise ValueError(f"{path}: fields of the 9-wide net input (MJGCEM01): refit them")
    if reader.data[:len(MAGIC)] != MAGIC:
        raise ValueError(f"{path}: not a contact fields file (magic {MAGIC!r})")
    reader.pos = len(MAGIC)
    ntype, npair = reader.take("<II")
    types = []
    for _ in range(ntype):
        raw = reader.data[reader.pos:reader.pos + NAME_BYTES]
        reader.pos += NAME_BYTES
        fp, bound = reader.take("<Qf")
        types.append(TypeEntry(raw.split(b"\0", 1)[0].decode(), fp, float(np.float32(bound))))
    pairs = {}
    for _ in range(npair):
        a, b, L = reader.take("<IIf")
        pairs[(a, b)] = PairField(a, b, float(np.float32(L)), reader.net(), reader.net())
    return Fields(types, pairs)


@dataclass
class Contact:
    """evaluate's result per configuration: phi, dphi/dt (the contact normal direction), the
    rotation gradient sum_k c_k x dphi/dc_k (dphi = rot . omega for B turned by omega about its
    origin; (p - t) x n for a single contact) and the arms (p . n, (p - t) . n)."""
    phi: np.ndarray
    grad_t: np.ndarray
    rot: np.ndarray
    arms: np.ndarray


def evaluate(fields, a, b, t, R):
    """The fields of types a and b at configurations t (n, 3), R (n, 3, 3) of B in A's frame.
    With a > b the stored pair (b, a) is evaluated at A's pose in B's frame and mapped back."""
    t, R = np.atleast_2d(np.asarray(t, float)), np.asarray(R, float).reshape(-1, 3, 3)
    if a > b:
        Rt = np.transpose(R, (0, 2, 1))
        swapped = evaluate(fields, b, a, -np.einsum("cij,cj->ci", Rt, t), Rt)
        grad_t = -np.einsum("cij,cj->ci", R, swapped.grad_t)
        rot = -np.einsum("cij,cj->ci", R, swapped.rot) + np.cross(t, -grad_t)
        return Contact(swapped.phi, grad_t, rot, -swapped.arms[:, ::-1])
    pair = fields.pairs[(a, b)]
    x = encode(t, R, pair.L)
    y, pre = cem_net.forward(pair.distance, x)
    _, dy_dx = cem_net.backward(pair.distance, pre, np.ones_like(y))
    # phi = L y with x = [t / L, c_0, c_1, R^T t / L]: dphi/dt = dy/dx[:3] + R dy/dx[9:]; the
    # columns enter unscaled (dphi/dc = L dy/dx), and turning B by omega about its origin changes
    # (R^T t)_k = c_k . t by omega . (c_k x t)
    through_b = np.einsum("cij,cj->ci", R, dy_dx[:, 9:12])
    rot = (pair.L * (np.cross(R[:, :, 0], dy_dx[:, 3:6]) + np.cross(R[:, :, 1], dy_dx[:, 6:9]))
           + np.cross(through_b, t))
    arms = pair.L * cem_net.forward(pair.arm, x)[0]
    return Contact(pair.L * y[:, 0], dy_dx[:, :3] + through_b, rot, arms)


def meshes_from_file(model_path, names):
    """The meshes `names` of the MJCF file, compiled by mujoco."""
    import mujoco
    model = mujoco.MjModel.from_xml_path(str(model_path))
    return [mesh_from_model(model, name) for name in names]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mjgranular.cem", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    fit_cmd = sub.add_parser("fit", help="fit every pair a <= b of the meshes, write the file")
    fit_cmd.add_argument("model")
    fit_cmd.add_argument("--meshes", nargs="+", required=True)
    fit_cmd.add_argument("--out", required=True)
    fit_cmd.add_argument("--samples", type=int, default=30000)
    fit_cmd.add_argument("--hidden", type=int, nargs="+", default=[64, 64, 64])
    fit_cmd.add_argument("--epochs", type=int, default=150)
    fit_cmd.add_argument("--seed", type=int, default=0)
    acc_cmd = sub.add_parser("accuracy", help="errors on held-out configurations near contact")
    acc_cmd.add_argument("model")
    acc_cmd.add_argument("fields")
    acc_cmd.add_argument("--configs", type=int, default=300)
    acc_cmd.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.command == "fit":
        start = time.perf_counter()
        fields = fit(meshes_from_file(args.model, args.meshes), args.samples, args.hidden,
                     args.epochs, args.seed, log=lambda line: print(line, flush=True))
        write_fields(args.out, fields)
        print(f"wrote {args.out}: {len(fields.pairs)} pairs in "
              f"{time.perf_counter() - start:.0f} s")
        return 0
    from mjgranular import cem_accuracy
    fields = read_fields(args.fields)
    meshes = meshes_from_file(args.model, [entry.name for entry in fields.types])
    for mesh, entry in zip(meshes, fields.types):
        if mesh.fingerprint != entry.fingerprint:
            raise SystemExit(f"mesh {mesh.name!r} of {args.model} differs from the one fitted")
    rng = np.random.default_rng(args.seed)
    for (a, b) in sorted(fields.pairs):
        geom = PairGeometry(meshes[a], meshes[b])
        report = cem_accuracy.pair_accuracy(fields, a, b, geom, args.configs, rng)
        print(cem_accuracy.format_report(meshes[a].name, meshes[b].name, report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
