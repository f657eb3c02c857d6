"""Signed distance to a closed triangle mesh (negative inside), in numpy: exact (closest point on
every triangle, sign by the generalized winding number) and as a regular grid sampled from the
exact one, read back by trilinear interpolation. The fitting of configuration-space contact
fields (mjgranular.cem) labels its samples with these."""

from dataclasses import dataclass

import numpy as np

# (points x triangles) pairs per numpy pass: bounds the temporaries to a few tens of MB
_PAIRS_PER_CHUNK = 200_000


def _dot(u, v):
    return np.einsum("...k,...k->...", u, v)


def closest_on_triangles(p, a, b, c):
    """Closest point to p on each triangle (a, b, c), all broadcast to (..., 3): the Voronoi
    region of p (a vertex, an edge or the face) picks the formula; regions tested last win."""
    ab, ac, ap = b - a, c - a, p - a
    bp, cp = p - b, p - c
    d1, d2 = _dot(ab, ap), _dot(ac, ap)
    d3, d4 = _dot(ab, bp), _dot(ac, bp)
    d5, d6 = _dot(ab, cp), _dot(ac, cp)
    va, vb, vc = d3 * d6 - d5 * d4, d5 * d2 - d1 * d6, d1 * d4 - d3 * d2
    tiny = np.finfo(float).tiny
    denom = va + vb + vc
    denom = np.where(np.abs(denom) > tiny, denom, 1.0)
    out = a + ab * (vb / denom)[..., None] + ac * (vc / denom)[..., None]
    # edge bc
    e1, e2 = d4 - d3, d5 - d6
    w = e1 / np.where(e1 + e2 > tiny, e1 + e2, 1.0)
    on = (va <= 0) & (e1 >= 0) & (e2 >= 0)
    out = np.where(on[..., None], b + (c - b) * w[..., None], out)
    # edge ac
    w = d2 / np.where(d2 - d6 > tiny, d2 - d6, 1.0)
    on = (vb <= 0) & (d2 >= 0) & (d6 <= 0)
    out = np.where(on[..., None], a + ac * w[..., None], out)
    # edge ab
    w = d1 / np.where(d1 - d3 > tiny, d1 - d3, 1.0)
    on = (vc <= 0) & (d1 >= 0) & (d3 <= 0)
    out = np.where(on[..., None], a + ab * w[..., None], out)
    out = np.where(((d6 >= 0) & (d5 <= d6))[..., None], c, out)
    out = np.where(((d3 >= 0) & (d4 <= d3))[..., None], b, out)
    out = np.where(((d1 <= 0) & (d2 <= 0))[..., None], a, out)
    return out


def winding_numbers(points, verts, faces):
    """Generalized winding number of the closed mesh at each point: 1 inside, 0 outside (sum of
    the triangles' signed solid angles over 4 pi)."""
    points = np.asarray(points, float).reshape(-1, 3)
    tri = np.asarray(verts, float)[faces]
    out = np.empty(len(points))
    step = max(1, _PAIRS_PER_CHUNK // len(faces))
    for s in range(0, len(points), step):
        rel = tri[None] - points[s:s + step, None, None, :]
        a, b, c = rel[..., 0, :], rel[..., 1, :], rel[..., 2, :]
        la, lb, lc = (np.linalg.norm(v, axis=-1) for v in (a, b, c))
        det = _dot(a, np.cross(b, c))
        div = la * lb * lc + _dot(a, b) * lc + _dot(b, c) * la + _dot(c, a) * lb
        out[s:s + step] = np.arctan2(det, div).sum(axis=1) / (2 * np.pi)
    return out


def signed_distance(points, verts, faces):
    """Exact signed distance of each point to the mesh, its closest point on the surface and the
    index of the triangle that holds it."""
    points = np.asarray(points, float).reshape(-1, 3)
    tri = np.asarray(verts, float)[faces]
    dist = np.empty(len(points))
    closest = np.empty((len(points), 3))
    index = np.empty(len(points), dtype=np.int64)
    step = max(1, _PAIRS_PER_CHUNK // len(faces))
    for s in range(0, len(points), step):
        p = points[s:s + step, None, :]
        q = closest_on_triangles(p, tri[None, :, 0], tri[None, :, 1], tri[None, :, 2])
        d2 = _dot(q - p, q - p)
        best = np.argmin(d2, axis=1)
        rows = np.arange(len(best))
        index[s:s + step] = best
        closest[s:s + step] = q[rows, best]
        dist[s:s + step] = np.sqrt(d2[rows, best])
    inside = winding_numbers(points, verts, faces) > 0.5
    return np.where(inside, -dist, dist), closest, index


def face_normals(verts, faces):
    """Unit outward normals of the triangles (mujoco's compiled faces wind counter-clockwise)."""
    tri = np.asarray(verts, float)[faces]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    return n / np.linalg.norm(n, axis=1, keepdims=True)


@dataclass
class SdfGrid:
    """Signed distances at the nodes origin + spacing * (i, j, k) of a regular grid."""
    origin: np.ndarray
    spacing: float
    values: np.ndarray

    def nodes(self):
        """Node positions, (nx * ny * nz, 3), in the C order of values."""
        axes = [self.origin[k] + self.spacing * np.arange(n)
                for k, n in enumerate(self.values.shape)]
        return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)

    def lookup(self, points):
        """Trilinear signed distance at points (..., 3); a point outside the grid takes the value
        at its clamped position plus its distance to the grid's box (an upper bound there)."""
        shape = np.array(self.values.shape)
        u = (np.asarray(points, float) - self.origin) / self.spacing
        uc = np.clip(u, 0.0, shape - 1.0)
        outside = np.linalg.norm(u - uc, axis=-1) * self.spacing
        i = np.minimum(uc.astype(np.int64), shape - 2)
        f = uc - i
        # flat indices: one gather per corner instead of three index arrays
        stride = np.array([shape[1] * shape[2], shape[2], 1])
        base = i @ stride
        flat = self.values.ravel()
        fx, fy, fz = f[..., 0], f[..., 1], f[..., 2]
        out = 0.0
        for dx, wx in ((0, 1 - fx), (stride[0], fx)):
            for dy, wy in ((0, 1 - fy), (stride[1], fy)):
                corner = base + (dx + dy)
                out = out + wx * wy * ((1 - fz) * flat[corner] + fz * flat[corner + 1])
        return out + outside


def build_grid(verts, faces, cells=24, pad=0.15):
    """Grid over the mesh's bounding box widened by pad x its largest extent on each side, with
    `cells` cells along that extent, holding the exact signed distances at its nodes."""
    verts = np.asarray(verts, float)
    lo, hi = verts.min(axis=0), verts.max(axis=0)
    extent = (hi - lo).max()
    spacing = extent / cells
    origin = lo - pad * extent
    counts = np.ceil((hi - lo + 2 * pad * extent) / spacing).astype(int) + 1
    grid = SdfGrid(origin, spacing, np.zeros(counts))
    grid.values = signed_distance(grid.nodes(), verts, faces)[0].reshape(counts)
    return grid


def surface_samples(verts, faces, count, rng):
    """count points uniform by area on the mesh's surface, with their triangles' outward unit
    normals."""
    tri = verts.astype(float)[faces]
    cross = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    area = np.linalg.norm(cross, axis=1)
    pick = rng.choice(len(tri), count, p=area / area.sum())
    u, v = rng.random(count), rng.random(count)
    flip = u + v > 1
    u, v = np.where(flip, 1 - u, u), np.where(flip, 1 - v, v)
    t = tri[pick]
    points = t[:, 0] + u[:, None] * (t[:, 1] - t[:, 0]) + v[:, None] * (t[:, 2] - t[:, 0])
    return points, cross[pick] / area[pick, None]
