"""Writes the meshes of the gear tower scene: a helical involute gear, the tower's tube and the
orifice plate at its bottom (OBJ).

gear.obj: a spur gear profile (involute flanks from the base circle, a root circle, a tip circle)
swept along its axis (z) while turning, so every tooth follows a helix of the given helix angle
at the pitch circle. Solid, centred on the origin, the axis along z from -width/2 to width/2.
tower.obj: a tube, the container of the tower: inner radius `bore`, wall `wall`, from z = 0 to
z = `height`, its axis along z (the scene scales it to its height).
plate.obj: a flat ring across the tube's bore with a round hole in the middle (the orifice the
grains drain through): hole radius `hole`, outer radius `bore` + `wall` / 2 (into the tube's
wall), from z = -`plate` to z = 0.
Both meshes are closed and consistently oriented with outward normals (every edge shared by two
triangles that run along it in opposite directions, positive volume); the script checks this
with make_scoop.py's checks before writing.

  python3 scripts/examples/make_gear_tower.py          # writes models/assets/{gear,tower,plate}.obj
  python3 scripts/examples/make_gear_tower.py --check  # exit 1 if a committed file differs
  python3 scripts/examples/make_gear_tower.py --teeth 16 --module 0.005 --out-gear /tmp/g.obj

Only the Python standard library is used. Lengths are in metres.
"""

import argparse
import math
import os
import sys

from make_scoop import Mesh, check, obj_text, write  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository
ASSETS = os.path.join(ROOT, "models", "assets")


def involute(alpha):
  """inv(alpha) = tan(alpha) - alpha: the polar angle the involute has turned at pressure angle
  alpha."""
  return math.tan(alpha) - alpha


def gear_profile(teeth, module, pressure, flank_points, tip_points, root_points):
  """The gear outline in the x-y plane as polar (radius, angle) pairs in increasing angle, once
  around. Standard proportions: pitch radius m z / 2, addendum m, dedendum 1.25 m, tooth as thick
  as the gap at the pitch circle. Below the base circle the flank joins the root circle along a
  slanted line (a crude fillet), so every point has its own angle and the outline is star-shaped
  about the centre."""
  rp = 0.5 * module * teeth
  rb = rp * math.cos(pressure)
  ra = rp + module
  rf = rp - 1.25 * module
  r_low = max(rb, rf)

  # half the angular thickness of a tooth at radius r (>= base radius)
  def half(r):
    return 0.5 * math.pi / teeth + involute(pressure) - involute(math.acos(rb / r))

  if half(ra) <= 0:
    raise ValueError("teeth come to a point below the tip circle: use more teeth")
  pitch = 2 * math.pi / teeth
  outline = []
  for k in range(teeth):
    c = k * pitch
    radii = [r_low + (ra - r_low) * j / flank_points for j in range(flank_points + 1)]
    # the gap before the tooth on the root circle, narrowed by the fillets
    gap_start = c - pitch + half(r_low)
    gap_end = c - half(r_low)
    fillet = 0.15 * (gap_end - gap_start)
    if rf < r_low:
      for j in range(root_points + 1):
        a = gap_start + fillet + (gap_end - gap_start - 2 * fillet) * j / root_points
        outline.append((rf, a))
    # rising flank, tip, falling flank
    outline += [(r, c - half(r)) for r in radii]
    for j in range(1, tip_points):
      a = c - half(ra) + 2 * half(ra) * j / tip_points
      outline.append((ra, a))
    outline += [(r, c + half(r)) for r in reversed(radii)]
  return outline


def build_gear(teeth, module, pressure, helix, width, slices):
  outline = gear_profile(teeth, module, pressure, flank_points=4, tip_points=3, root_points=3)
  rp = 0.5 * module * teeth
  mesh = Mesh()
  rings = []
  for s in range(slices + 1):
    z = -0.5 * width + width * s / slices
    twist = z * math.tan(helix) / rp  # a helix of angle `helix` at the pitch circle
    rings.append([mesh.vertex(r * math.cos(a + twist), r * math.sin(a + twist), z)
                  for r, a in outline])
  n = len(outline)
  for s in range(slices):
    lo, hi = rings[s], rings[s + 1]
    for k in range(n):
      mesh.quad(lo[k], lo[(k + 1) % n], hi[(k + 1) % n], hi[k])
  # end faces: fans from the axis (the outline is star-shaped about it)
  mesh.fan(mesh.vertex(0, 0, 0.5 * width), rings[-1])
  mesh.fan(mesh.vertex(0, 0, -0.5 * width), list(reversed(rings[0])))
  check(mesh)
  return mesh


def build_tube(bore, wall, height, segments, bottom=0.0):
  """A tube of inner radius bore and wall thickness wall from z = bottom up by height (short and
  thick-walled, it is a ring)."""
  mesh = Mesh()
  ring = lambda r, z: [mesh.vertex(r * math.cos(2 * math.pi * k / segments),
                                   r * math.sin(2 * math.pi * k / segments), z)
                       for k in range(segments)]
  inner_lo, inner_hi = ring(bore, bottom), ring(bore, bottom + height)
  outer_lo, outer_hi = ring(bore + wall, bottom), ring(bore + wall, bottom + height)
  for k in range(segments):
    j = (k + 1) % segments
    mesh.quad(outer_lo[k], outer_lo[j], outer_hi[j], outer_hi[k])  # outside, facing out
    mesh.quad(inner_lo[k], inner_hi[k], inner_hi[j], inner_lo[j])  # inside, facing the axis
    mesh.quad(inner_hi[k], outer_hi[k], outer_hi[j], inner_hi[j])  # top rim
    mesh.quad(inner_lo[k], inner_lo[j], outer_lo[j], outer_lo[k])  # bottom rim
  check(mesh)
  return mesh


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--out-gear", default=os.path.join(ASSETS, "gear.obj"), help="gear OBJ file")
  p.add_argument("--out-tower", default=os.path.join(ASSETS, "tower.obj"), help="tube OBJ file")
  p.add_argument("--out-plate", default=os.path.join(ASSETS, "plate.obj"), help="plate OBJ file")
  p.add_argument("--teeth", type=int, default=12, help="number of teeth (12)")
  p.add_argument("--module", type=float, default=0.006, help="module: pitch diameter / teeth [m]"
                 " (0.006)")
  p.add_argument("--pressure", type=float, default=20, help="pressure angle [deg] (20)")
  p.add_argument("--helix", type=float, default=25, help="helix angle at the pitch circle [deg]"
                 " (25)")
  p.add_argument("--width", type=float, default=0.04, help="face width along the axis [m] (0.04)")
  p.add_argument("--slices", type=int, default=8, help="sections along the axis (8)")
  p.add_argument("--bore", type=float, default=0.12, help="tube inner radius [m] (0.12)")
  p.add_argument("--wall", type=float, default=0.02, help="tube wall thickness [m] (0.02)")
  p.add_argument("--height", type=float, default=1.0, help="tube height [m] (1.0)")
  p.add_argument("--segments", type=int, default=32, help="tube and plate segments around (32)")
  p.add_argument("--hole", type=float, default=0.025, help="plate hole radius [m] (0.025)")
  p.add_argument("--plate", type=float, default=0.01, help="plate thickness [m] (0.01)")
  p.add_argument("--check", action="store_true", help="compare with the files instead of writing")
  args = p.parse_args()
  if not (args.teeth >= 6 and args.module > 0 and 0 < args.pressure < 45 and
          0 <= args.helix < 60 and args.width > 0 and args.slices >= 1):
    sys.exit("make_gear_tower: need teeth >= 6, module > 0, 0 < pressure < 45, 0 <= helix < 60,"
             " width > 0, slices >= 1")
  if not (args.bore > 0 and args.wall > 0 and args.height > 0 and args.segments >= 3 and
          0 < args.hole < args.bore and args.plate > 0):
    sys.exit("make_gear_tower: need bore, wall, height, plate > 0, 0 < hole < bore and "
             "segments >= 3")

  gear = build_gear(args.teeth, args.module, math.radians(args.pressure), math.radians(args.helix),
                    args.width, args.slices)
  tube = build_tube(args.bore, args.wall, args.height, args.segments)
  plate = build_tube(args.hole, args.bore + 0.5 * args.wall - args.hole, args.plate, args.segments,
                     -args.plate)
  stale = write(args.out_gear, obj_text(gear, [
      "helical gear for the gear tower scene, written by scripts/examples/make_gear_tower.py "
      "(do not edit)",
      f"{args.teeth} teeth, module {args.module} m (pitch radius {0.5 * args.module * args.teeth:g}"
      f" m, tip radius {0.5 * args.module * args.teeth + args.module:g} m), pressure angle "
      f"{args.pressure:g} deg, helix angle {args.helix:g} deg, width {args.width} m, axis z"]),
      args.check, "make_gear_tower")
  stale += write(args.out_tower, obj_text(tube, [
      "tube of the gear tower scene, written by scripts/examples/make_gear_tower.py (do not edit)",
      f"inner radius {args.bore} m, wall {args.wall} m, z from 0 to {args.height} m, "
      f"{args.segments} segments"]), args.check, "make_gear_tower")
  stale += write(args.out_plate, obj_text(plate, [
      "orifice plate of the gear tower scene, written by scripts/examples/make_gear_tower.py "
      "(do not edit)",
      f"hole radius {args.hole} m, outer radius {args.bore + 0.5 * args.wall:g} m, z from "
      f"{-args.plate:g} to 0 m, {args.segments} segments"]), args.check, "make_gear_tower")
  sys.exit(1 if stale else 0)


if __name__ == "__main__":
  main()
