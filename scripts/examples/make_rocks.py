"""Writes the rock meshes of models/gravel.xml: closed, consistently oriented triangle meshes (OBJ)
of angular, slightly non-convex stones.

Each rock is an icosahedron subdivided once (42 vertices, 80 triangles) on the unit sphere, each
vertex pushed in or out along its ray by a seeded random amount (so the surface stays star-shaped
about the centre: closed and never self-intersecting), then stretched by the rock's axes. The
script checks that every edge is shared by two triangles running along it in opposite directions
and that the enclosed volume is positive before writing.

  python3 scripts/examples/make_rocks.py           # writes models/assets/rock_{a,b,c}.obj
  python3 scripts/examples/make_rocks.py --check   # exit 1 if the committed files differ

Only the Python standard library is used. Lengths in metres.
"""

import argparse
import math
import os
import random
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository

# rock name: semi-axes [m] (gravel of 8 to 14 mm), radial roughness (share of the radius), seed
ROCKS = {
    "rock_a": ((0.0070, 0.0055, 0.0042), 0.18, 1),   # a flattish stone
    "rock_b": ((0.0060, 0.0058, 0.0050), 0.22, 2),   # a blocky one
    "rock_c": ((0.0080, 0.0048, 0.0045), 0.15, 3),   # an elongated one
}


def icosphere():
  """Vertices on the unit sphere and outward (counter-clockwise) triangles of an icosahedron
  subdivided once."""
  t = (1 + 5 ** 0.5) / 2
  v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t),
       (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
  f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
       (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
       (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
  v = [tuple(c / math.sqrt(sum(x * x for x in p)) for c in p) for p in v]
  mid = {}

  def middle(a, b):
    key = (min(a, b), max(a, b))
    if key not in mid:
      p = [(v[a][i] + v[b][i]) / 2 for i in range(3)]
      n = math.sqrt(sum(x * x for x in p))
      v.append(tuple(x / n for x in p))
      mid[key] = len(v) - 1
    return mid[key]

  faces = []
  for a, b, c in f:
    ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
    faces += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
  return v, faces


def rock(axes, roughness, seed):
  """(vertices, faces) of one rock."""
  rng = random.Random(seed)
  unit, faces = icosphere()
  verts = []
  for p in unit:
    r = 1 + roughness * rng.uniform(-1, 1)
    verts.append(tuple(r * axes[i] * p[i] for i in range(3)))
  return verts, faces


def check(verts, faces):
  """Raises if the mesh is open, misoriented or encloses no volume; returns the volume."""
  edges = {}
  for f in faces:
    for k in range(3):
      e = (f[k], f[(k + 1) % 3])
      if e in edges:
        raise ValueError(f"edge {e} runs the same way twice")
      edges[e] = 1
  for a, b in edges:
    if (b, a) not in edges:
      raise ValueError(f"edge {(a, b)} is not shared")
  volume = 0.0
  for a, b, c in faces:
    p, q, r = verts[a], verts[b], verts[c]
    volume += (p[0] * (q[1] * r[2] - q[2] * r[1]) - p[1] * (q[0] * r[2] - q[2] * r[0]) +
               p[2] * (q[0] * r[1] - q[1] * r[0])) / 6
  if volume <= 0:
    raise ValueError("the mesh encloses no volume (inside out)")
  return volume


def obj_text(name, verts, faces, volume):
  lines = [f"# {name}: a rock of models/gravel.xml, written by scripts/examples/make_rocks.py",
           f"# volume {volume:.6e} m^3"]
  lines += ["v %.6f %.6f %.6f" % p for p in verts]
  lines += ["f %d %d %d" % (a + 1, b + 1, c + 1) for a, b, c in faces]
  return "\n".join(lines) + "\n"


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--check", action="store_true", help="exit 1 if a committed file differs")
  args = ap.parse_args()
  stale = []
  for name, (axes, roughness, seed) in ROCKS.items():
    verts, faces = rock(axes, roughness, seed)
    text = obj_text(name, verts, faces, check(verts, faces))
    path = os.path.join(ROOT, "models", "assets", name + ".obj")
    if args.check:
      with open(path) as f:
        if f.read() != text:
          stale.append(path)
    else:
      with open(path, "w") as f:
        f.write(text)
      print("wrote", path)
  if stale:
    print("differs from make_rocks.py:", *stale)
    sys.exit(1)


if __name__ == "__main__":
  main()
