"""Grain shapes of one volume for the shape benchmarks (repose.py --shapes, silo.py): a sphere, a
cube and a 3D cross (the centre cube and its six face neighbours, non-convex, as bench_clumps'),
the meshes as MJCF assets with faces, and each grain's highest point read back through MuJoCo.

Every shape has the volume of a sphere of radius peer_scene.RADIUS. The meshes are unions of
voxels, written as closed, outward-oriented triangle lists: given by vertices only, MuJoCo would
take the convex hull, which fills the cross's re-entrant corners.
"""

import math
import os

import numpy as np

from peer_scene import RADIUS

SHAPES = ("sphere", "cube", "cross")
VOLUME = 4.0 / 3.0 * math.pi * RADIUS ** 3
VOXELS = {  # integer voxel centres of each mesh shape
  "cube": [(0, 0, 0)],
  "cross": [(0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)],
}


def voxel_mesh(voxels, side):
  """vertices (k x 3) [m] and triangles (f x 3) of the union's surface, centred on the origin:
  every voxel face without a voxel behind it, two triangles counter-clockwise seen from outside."""
  filled = set(voxels)
  index, verts, faces = {}, [], []

  def vertex(c):
    if c not in index:
      index[c] = len(verts)
      verts.append(c)
    return index[c]
  for v in voxels:
    for k in range(3):
      u, w = (k + 1) % 3, (k + 2) % 3
      for s in (1, -1):
        nb = list(v)
        nb[k] += s
        if tuple(nb) in filled:
          continue
        # corners in (u, w) order turn about +e_k; reversed for the -e_k face
        quad = []
        for cu, cw in ((0, 0), (1, 0), (1, 1), (0, 1)):
          c = [2 * x - 1 for x in v]  # corners in half-voxel units: 2 v +- 1
          c[k] = 2 * v[k] + s
          c[u] += 2 * cu
          c[w] += 2 * cw
          quad.append(vertex(tuple(c)))
        if s < 0:
          quad.reverse()
        faces += [(quad[0], quad[1], quad[2]), (quad[0], quad[2], quad[3])]
  return 0.5 * side * np.array(verts, float), np.array(faces, int)


def mesh(shape):
  """the mesh of a shape of VOLUME: vertices [m], triangles."""
  vox = VOXELS[shape]
  return voxel_mesh(vox, (VOLUME / len(vox)) ** (1.0 / 3.0))


def reach(shape):
  """the largest distance of a shape's surface from its centre [m]."""
  return RADIUS if shape == "sphere" else float(np.linalg.norm(mesh(shape)[0], axis=1).max())


def asset(shape):
  """the MJCF <mesh> of a mesh shape (named as the shape), or '' for the sphere."""
  if shape == "sphere":
    return ""
  v, f = mesh(shape)
  return '<mesh name="%s" vertex="%s" face="%s"/>' % (
    shape, " ".join("%.9g" % x for x in v.ravel()), " ".join(str(i) for i in f.ravel()))


def fields_file(shape):
  """the contact fields fitted to a mesh shape's mesh (scripts/bench/README.md says how)."""
  root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
  return os.path.join(root, "models", "assets", "shape_%s.cem" % shape)


def split(kind):
  """a grain kind of the benchmarks' command lines, SHAPE or SHAPE:cem (the mesh grains meeting
  by their contact fields), as (shape, fields); ValueError for an unknown one."""
  shape, colon, model = kind.partition(":")
  if shape not in SHAPES or (colon and (model != "cem" or shape == "sphere")):
    raise ValueError("unknown grain kind %r (%s, or a mesh shape:cem)" % (kind, ", ".join(SHAPES)))
  return shape, bool(colon)


def config(shape, clump_spheres, fields=False):
  """the terrain keys that make every grain this shape (fields: meeting by their contact fields,
  which need model dem)."""
  if shape == "sphere":
    return []
  keys = [("shape", shape), ("clump_spheres", clump_spheres)]
  if fields:
    keys += [("shape_model", "cem"), ("cem_fields", fields_file(shape))]
  return keys


def random_quats(n, rng):
  """n uniformly random unit quaternions (w x y z)."""
  q = rng.normal(size=(n, 4))
  return q / np.linalg.norm(q, axis=1, keepdims=True)


def mesh_poses(m, d, n):
  """the meshes as the plugin draws them (grain pose composed with the type's body frame), read
  from an mjvScene with room for n grains: each one's frame, world, as positions (k, 3) and
  rotations (k, 3, 3), and its mesh id (k)."""
  import mujoco
  scn = mujoco.MjvScene(m, maxgeom=m.ngeom + n + 100)
  mujoco.mjv_updateScene(m, d, mujoco.MjvOption(), None, mujoco.MjvCamera(),
                         mujoco.mjtCatBit.mjCAT_ALL, scn)
  geoms = [scn.geoms[i] for i in range(scn.ngeom)
           if scn.geoms[i].type == mujoco.mjtGeom.mjGEOM_MESH]
  return (np.array([g.pos for g in geoms]), np.array([g.mat.reshape(3, 3) for g in geoms]),
          np.array([g.dataid // 2 for g in geoms], int))


def tops(m, d, g):
  """each grain's highest point [m]: z + radius for spheres; for mesh grains the highest vertex
  of the mesh as the plugin draws it (mesh_poses), as the grain's radius is the type's bounding
  radius and overstates the top of a grain not standing on a corner."""
  pos = np.array(g.positions)
  if not np.any(m.mesh_vertnum):
    return pos[:, 2] + np.array(g.radii)
  at, mat, mesh_id = mesh_poses(m, d, len(pos))
  out = []
  for p, r, mid in zip(at, mat, mesh_id):
    vert = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
    out.append(p[2] + (vert @ r[2]).max())
  # the meshes are centred on their centroids, so each drawn mesh sits on its grain's position
  if len(out) != len(pos) or np.abs(at - pos).max() > 1e-6:
    raise RuntimeError("the scene's grain meshes do not match the grains")
  return np.array(out)


def place(g, pos, shape, rng):
  """write grains of shape at pos, at rest, into the empty bed of a terrain with key count (g:
  mjgranular.grains); mesh grains turned at random."""
  g.state[0] = len(pos)
  g.positions[:] = pos
  g.velocities[:] = 0
  g.angular_velocities[:] = 0
  if shape != "sphere":
    g.types[:] = 0
    g.orientations[:] = random_quats(len(pos), rng)
  g.state[1] = 0


def model(shape):
  """an MJCF model holding only the shape's mesh: what `python -m mjgranular.cem fit` compiles
  to fit a mesh shape's contact fields."""
  return "<mujoco>\n  <asset>%s</asset>\n</mujoco>\n" % asset(shape)


if __name__ == "__main__":
  import sys
  if len(sys.argv) != 2 or sys.argv[1] not in SHAPES[1:]:
    sys.exit("usage: grain_shapes.py %s   (prints the mesh's MJCF model)" % "|".join(SHAPES[1:]))
  sys.stdout.write(model(sys.argv[1]))
