"""Writes the scoop meshes of the scenes: closed, consistently oriented triangle meshes (OBJ).

The scoop is a bucket open at the front (+x) and the top (+z): a bottom plate and a back plate
joined by a rounded heel, closed on both sides by side plates. All walls have the same thickness.
Every edge is shared by exactly two triangles that run along it in opposite directions and the
enclosed volume is positive (outward normals); the script checks both before writing.

  python3 scripts/examples/make_scoop.py                  # writes models/assets/scoop.obj
  python3 scripts/examples/make_scoop.py --check          # exit 1 if the committed file differs
  python3 scripts/examples/make_scoop.py --preset franka  # the Panda's: assets/franka_scoop.obj
  python3 scripts/examples/make_scoop.py --out /tmp/s.obj --length 0.12 --segments 16

Only the Python standard library is used. Lengths are in metres, in the scoop's own frame:
the bottom's underside at z = 0, the back's outside at x = 0, symmetric about y = 0.
"""

import argparse
import math
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository

# per scene: the OBJ it loads and the scoop's size [m] (length, width, height, wall, heel, segments)
PRESETS = {
    "scoop": ("models/scoop.xml", "scoop.obj", (0.10, 0.08, 0.05, 0.004, 0.02, 8)),
    "franka": ("models/franka_excavation.xml", "franka_scoop.obj", (0.12, 0.10, 0.06, 0.005, 0.025, 8)),
}


def profile(length, height, wall, heel, segments):
  """Outer and inner cross-section curves in the x-z plane, from the front lip to the top of the
  back, point k of one matching point k of the other (so quads join them)."""
  outer, inner = [], []
  outer.append((length, 0.0))
  inner.append((length, wall))
  # heel: quarter circles about (heel, heel), from straight down to straight back
  for k in range(segments + 1):
    a = -0.5 * math.pi - 0.5 * math.pi * k / segments
    outer.append((heel + heel * math.cos(a), heel + heel * math.sin(a)))
    inner.append((heel + (heel - wall) * math.cos(a), heel + (heel - wall) * math.sin(a)))
  outer.append((0.0, height))
  inner.append((wall, height))
  return outer, inner


class Mesh:
  """Vertices shared by exact coordinates, faces as index triples."""

  def __init__(self):
    self.verts, self.index, self.faces = [], {}, []

  def vertex(self, x, y, z):
    key = (round(x, 12), round(y, 12), round(z, 12))
    if key not in self.index:
      self.index[key] = len(self.verts)
      self.verts.append(key)
    return self.index[key]

  def quad(self, a, b, c, d):
    self.faces.append((a, b, c))
    self.faces.append((a, c, d))

  def fan(self, centre, ring):
    """Triangles from centre to each edge of the closed ring of vertex indices."""
    for k in range(len(ring)):
      self.faces.append((centre, ring[k], ring[(k + 1) % len(ring)]))


def build(length, width, height, wall, heel, segments):
  outer, inner = profile(length, height, wall, heel, segments)
  ys = (-0.5 * width, -0.5 * width + wall, 0.5 * width - wall, 0.5 * width)
  mesh = Mesh()
  v = lambda p, y: mesh.vertex(p[0], y, p[1])
  lip_o, lip_i = outer[0], inner[0]            # (L, 0), (L, t)
  top_o, top_i = outer[-1], inner[-1]          # (0, H), (t, H)
  corner = (length, height)                    # front top corner of the side plates

  # outside of the bottom, heel and back, across the whole width
  for k in range(len(outer) - 1):
    for j in range(3):
      mesh.quad(v(outer[k], ys[j]), v(outer[k + 1], ys[j]), v(outer[k + 1], ys[j + 1]),
                v(outer[k], ys[j + 1]))
  # inside of the bottom, heel and back, between the side plates
  for k in range(len(inner) - 1):
    mesh.quad(v(inner[k], ys[1]), v(inner[k + 1], ys[1]), v(inner[k + 1], ys[2]),
              v(inner[k], ys[2]))
  # the front lip of the bottom and the top edge of the back, between the side plates
  mesh.quad(v(lip_o, ys[1]), v(lip_i, ys[1]), v(lip_i, ys[2]), v(lip_o, ys[2]))
  mesh.quad(v(top_o, ys[1]), v(top_i, ys[1]), v(top_i, ys[2]), v(top_o, ys[2]))
  for j in (0, 2):
    y0, y1 = ys[j], ys[j + 1]
    # front and top edges of a side plate, split where the lip and the back meet them
    mesh.quad(v(lip_o, y0), v(lip_i, y0), v(lip_i, y1), v(lip_o, y1))
    mesh.quad(v(lip_i, y0), v(corner, y0), v(corner, y1), v(lip_i, y1))
    mesh.quad(v(top_o, y0), v(top_i, y0), v(top_i, y1), v(top_o, y1))
    mesh.quad(v(top_i, y0), v(corner, y0), v(corner, y1), v(top_i, y1))
  # outer faces of the side plates: the whole side outline, fanned from an inner point
  centre = (0.5 * length, 0.5 * height)
  for y in (ys[0], ys[3]):
    ring = [v(p, y) for p in outer] + [v(top_i, y), v(corner, y), v(lip_i, y)]
    mesh.fan(mesh.vertex(centre[0], y, centre[1]), ring)
  # inner faces of the side plates: the outline less the bottom and back walls
  for y in (ys[1], ys[2]):
    ring = [v(p, y) for p in inner]
    c = v(corner, y)
    for k in range(len(ring) - 1):
      mesh.faces.append((c, ring[k], ring[k + 1]))
  orient(mesh)
  return mesh


def orient(mesh):
  """Make every triangle run its shared edges opposite to its neighbours, then face outward.
  Raises ValueError when the mesh is not closed and manifold."""
  edges = {}
  for f, (a, b, c) in enumerate(mesh.faces):
    for e in ((a, b), (b, c), (c, a)):
      edges.setdefault(frozenset(e), []).append(f)
  for e, fs in edges.items():
    if len(e) != 2 or len(fs) != 2:
      raise ValueError(f"edge {sorted(e)} is used by {len(fs)} triangles")
  faces = [list(f) for f in mesh.faces]
  done = [False] * len(faces)
  done[0] = True
  stack = [0]
  while stack:
    f = stack.pop()
    a, b, c = faces[f]
    for p, q in ((a, b), (b, c), (c, a)):
      for g in edges[frozenset((p, q))]:
        if g == f or done[g]:
          continue
        x, y, z = faces[g]
        if (p, q) in ((x, y), (y, z), (z, x)):   # runs the edge the same way: flip it
          faces[g] = [x, z, y]
        done[g] = True
        stack.append(g)
  if not all(done):
    raise ValueError("the mesh has more than one connected part")
  if volume(mesh.verts, faces) < 0:
    faces = [[a, c, b] for a, b, c in faces]
  mesh.faces = [tuple(f) for f in faces]
  check(mesh)


def volume(verts, faces):
  """Signed volume enclosed by the triangles (positive for outward normals)."""
  vol = 0.0
  for a, b, c in faces:
    (ax, ay, az), (bx, by, bz), (cx, cy, cz) = verts[a], verts[b], verts[c]
    vol += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
  return vol / 6.0


def check(mesh):
  """Each directed edge once and its reverse once; no degenerate triangle; positive volume."""
  directed = set()
  for a, b, c in mesh.faces:
    if len({a, b, c}) != 3:
      raise ValueError("degenerate triangle")
    for e in ((a, b), (b, c), (c, a)):
      if e in directed:
        raise ValueError(f"edge {e} runs the same way twice")
      directed.add(e)
  for a, b in directed:
    if (b, a) not in directed:
      raise ValueError(f"edge {(a, b)} has no opposite")
  if volume(mesh.verts, mesh.faces) <= 0:
    raise ValueError("the mesh encloses no volume")


def obj_text(mesh, header):
  """OBJ text of a mesh: the header lines as comments, then its size and volume, vertices, faces."""
  lines = [f"# {h}" for h in header]
  lines.append(f"# {len(mesh.verts)} vertices, {len(mesh.faces)} triangles, closed, outward "
               f"normals, volume {volume(mesh.verts, mesh.faces):.6e} m^3")
  lines += ["v %.9g %.9g %.9g" % p for p in mesh.verts]
  lines += ["f %d %d %d" % (a + 1, b + 1, c + 1) for a, b, c in mesh.faces]
  return "\n".join(lines) + "\n"


def write(path, text, check_only, tool):
  """Writes text to path, or with check_only says whether path holds it; returns 1 if stale."""
  if check_only:
    same = os.path.exists(path) and open(path).read() == text
    print(f"{tool}: {path} is {'up to date' if same else 'out of date'}")
    return 0 if same else 1
  os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
  with open(path, "w") as f:
    f.write(text)
  print(f"{tool}: wrote {path}")
  return 0


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--preset", choices=sorted(PRESETS), default="scoop",
                 help="scene whose scoop to write: its file and size (scoop)")
  p.add_argument("--out", help="OBJ file to write (the preset's under models/assets)")
  p.add_argument("--length", type=float, help="front to back [m]")
  p.add_argument("--width", type=float, help="side to side [m]")
  p.add_argument("--height", type=float, help="bottom to top [m]")
  p.add_argument("--wall", type=float, help="wall thickness [m]")
  p.add_argument("--heel", type=float, help="outer heel radius [m]")
  p.add_argument("--segments", type=int, help="segments of the heel arc")
  p.add_argument("--check", action="store_true", help="compare with --out instead of writing")
  args = p.parse_args()
  args.scene, obj, size = PRESETS[args.preset]
  if args.out is None:
    args.out = os.path.join(ROOT, "models", "assets", obj)
  for name, value in zip(("length", "width", "height", "wall", "heel", "segments"), size):
    if getattr(args, name) is None:
      setattr(args, name, value)
  if not (0 < args.wall < args.heel < min(args.length, args.height) and
          2 * args.wall < args.width and args.segments >= 1):
    sys.exit("make_scoop: need 0 < wall < heel < length, height; 2 wall < width; segments >= 1")

  text = obj_text(build(args.length, args.width, args.height, args.wall, args.heel,
                        args.segments), [
      f"scoop for {args.scene}, written by scripts/examples/make_scoop.py (do not edit)",
      f"length {args.length} m, width {args.width} m, height {args.height} m, wall {args.wall} m,"
      f" heel radius {args.heel} m, {args.segments} heel segments"])
  sys.exit(write(args.out, text, args.check, "make_scoop"))


if __name__ == "__main__":
  main()
