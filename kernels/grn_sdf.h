// signed distance functions of rigid shapes, in the shape frame: distance (negative inside) and
// the outward unit gradient at a point.
#ifndef MJGRANULAR_GRN_SDF_H_
#define MJGRANULAR_GRN_SDF_H_

#include "granular.h"
#include "grn_math.h"

// a sampled grid as the solver stores it (values owned by the backend)
typedef struct grnGridView_ {
  int nx, ny, nz;           // node counts
  float origin[3];          // node (0, 0, 0) in the shape frame
  float cell;               // node spacing
  const float* values;      // (nz x ny x nx)
} grnGridView;

// x limited to [lo, hi]; a nan gives lo (ternaries: fminf / fmaxf are calls into libm on the
// host unless fast math is on)
GRN_HD float grn_sdf_clamp(float x, float lo, float hi) {
  return x > lo ? (x < hi ? x : hi) : lo;
}

// unit vector along a, or fallback when a is (near) zero
GRN_HD grnVec3 grn_normalize_or(grnVec3 a, grnVec3 fallback) {
  float n = grn_norm(a);
  return n > 1e-12f ? grn_scale(a, 1.0f / n) : fallback;
}

// half-space z <= 0
GRN_HD float grn_sdf_plane(grnVec3 p, grnVec3* grad) {
  *grad = grn_v3(0, 0, 1);
  return p.z;
}

// sphere of radius r about the origin
GRN_HD float grn_sdf_sphere(grnVec3 p, float r, grnVec3* grad) {
  float n = grn_norm(p);
  *grad = grn_normalize_or(p, grn_v3(0, 0, 1));
  return n - r;
}

// capsule of radius r about the segment z in [-half, half]
GRN_HD float grn_sdf_capsule(grnVec3 p, float r, float half, grnVec3* grad) {
  // distance to the axis segment minus the radius
  float z = grn_sdf_clamp(p.z, -half, half);
  grnVec3 d = grn_v3(p.x, p.y, p.z - z);
  *grad = grn_normalize_or(d, grn_v3(p.x >= 0 ? 1.0f : -1.0f, 0, 0));
  return grn_norm(d) - r;
}

// box with half-extents h; inside, the nearest face
GRN_HD float grn_sdf_box(grnVec3 p, const float* h, grnVec3* grad) {
  grnVec3 a = grn_abs3(p);
  grnVec3 q = grn_v3(a.x - h[0], a.y - h[1], a.z - h[2]);
  float sx = p.x >= 0 ? 1.0f : -1.0f, sy = p.y >= 0 ? 1.0f : -1.0f, sz = p.z >= 0 ? 1.0f : -1.0f;
  if (q.x > 0 || q.y > 0 || q.z > 0) {
    // outside: distance to the nearest point of the box
    grnVec3 o = grn_v3(q.x > 0 ? q.x : 0.0f, q.y > 0 ? q.y : 0.0f, q.z > 0 ? q.z : 0.0f);
    float d = grn_norm(o);
    *grad = grn_v3(sx * o.x / d, sy * o.y / d, sz * o.z / d);
    return d;
  }
  // inside: the nearest face
  if (q.x >= q.y && q.x >= q.z) { *grad = grn_v3(sx, 0, 0); return q.x; }
  if (q.y >= q.z) { *grad = grn_v3(0, sy, 0); return q.y; }
  *grad = grn_v3(0, 0, sz);
  return q.z;
}

// cylinder of radius r about z, z in [-half, half]; outside beyond both the rim and a cap, the
// distance to the rim circle
GRN_HD float grn_sdf_cylinder(grnVec3 p, float r, float half, grnVec3* grad) {
  float rho = sqrtf(p.x * p.x + p.y * p.y);
  float qr = rho - r, qz = fabsf(p.z) - half;
  float sz = p.z >= 0 ? 1.0f : -1.0f;
  grnVec3 radial = rho > 1e-12f ? grn_v3(p.x / rho, p.y / rho, 0) : grn_v3(1, 0, 0);
  if (qr > 0 && qz > 0) {
    float d = sqrtf(qr * qr + qz * qz);
    *grad = grn_add(grn_scale(radial, qr / d), grn_v3(0, 0, sz * qz / d));
    return d;
  }
  if (qr > qz) { *grad = radial; return qr; }
  *grad = grn_v3(0, 0, sz);
  return qz;
}

// nearest point of the ellipse (x/e0)^2 + (y/e1)^2 = 1 to (y0, y1), for e0 >= e1 > 0 and
// y0, y1 >= 0 (eberly, "distance from a point to an ellipse, an ellipsoid, or a hyperellipsoid");
// writes the nearest point (x0, x1)
GRN_HD void grn_ellipse_nearest(float e0, float e1, float y0, float y1, float* x0, float* x1) {
  if (y1 > 0) {
    if (y0 > 0) {
      // regular case: bisect s = t / e1^2 in g(s) = (r0 z0 / (s + r0))^2 + (z1 / (s + 1))^2 - 1
      float z0 = y0 / e0, z1 = y1 / e1, g = z0 * z0 + z1 * z1 - 1;
      if (g == 0) { *x0 = y0; *x1 = y1; return; }
      float r0 = (e0 / e1) * (e0 / e1), n0 = r0 * z0;
      float s0 = z1 - 1, s1 = g < 0 ? 0 : sqrtf(n0 * n0 + z1 * z1) - 1, s = 0;
      for (int it = 0; it < 96; it++) {
        s = 0.5f * (s0 + s1);
        if (s1 - s0 <= 1e-7f * (1 + fabsf(s))) break;
        float u0 = n0 / (s + r0), u1 = z1 / (s + 1);
        float gs = u0 * u0 + u1 * u1 - 1;
        if (gs > 0) s0 = s; else if (gs < 0) s1 = s; else break;
      }
      *x0 = r0 * y0 / (s + r0);
      *x1 = y1 / (s + 1);
    } else {
      // on the minor axis: the co-vertex
      *x0 = 0;
      *x1 = e1;
    }
  } else {
    // on the major axis: inside the evolute the nearest point leaves the axis
    float num = e0 * y0, den = e0 * e0 - e1 * e1;
    if (num < den) {
      float xd = num / den;
      *x0 = e0 * xd;
      float c = 1 - xd * xd;
      *x1 = e1 * sqrtf(c > 0 ? c : 0.0f);
    } else {
      *x0 = e0;
      *x1 = 0;
    }
  }
}

// exact signed distance to the ellipsoid with semi-axes s: the nearest surface point by eberly's
// robust bisection in the sorted first octant, which also covers points inside, at the centre and
// on the axes and planes of symmetry; the gradient is the outward normal at the nearest point
GRN_HD float grn_sdf_ellipsoid(grnVec3 p, const float* s, grnVec3* grad) {
  float pv[3] = {p.x, p.y, p.z};
  // sort the axes so that a[o0] >= a[o1] >= a[o2]
  int o0 = 0, o1 = 1, o2 = 2, tmp;
  if (s[o0] < s[o1]) { tmp = o0; o0 = o1; o1 = tmp; }
  if (s[o1] < s[o2]) { tmp = o1; o1 = o2; o2 = tmp; }
  if (s[o0] < s[o1]) { tmp = o0; o0 = o1; o1 = tmp; }
  float e0 = s[o0], e1 = s[o1], e2 = s[o2];
  float y0 = fabsf(pv[o0]), y1 = fabsf(pv[o1]), y2 = fabsf(pv[o2]);
  float lev = (y0 / e0) * (y0 / e0) + (y1 / e1) * (y1 / e1) + (y2 / e2) * (y2 / e2);
  float x0, x1, x2;
  if (y2 > 0) {
    if (y1 > 0 && y0 > 0) {
      // regular case: bisect s = t / e2^2 in sum (r_i z_i / (s + r_i))^2 = 1
      float z0 = y0 / e0, z1 = y1 / e1, z2 = y2 / e2, g = lev - 1;
      if (g == 0) {
        x0 = y0; x1 = y1; x2 = y2;
      } else {
        float r0 = (e0 / e2) * (e0 / e2), r1 = (e1 / e2) * (e1 / e2);
        float n0 = r0 * z0, n1 = r1 * z1;
        float s0 = z2 - 1, s1 = g < 0 ? 0 : sqrtf(n0 * n0 + n1 * n1 + z2 * z2) - 1, t = 0;
        for (int it = 0; it < 96; it++) {
          t = 0.5f * (s0 + s1);
          if (s1 - s0 <= 1e-7f * (1 + fabsf(t))) break;
          float u0 = n0 / (t + r0), u1 = n1 / (t + r1), u2 = z2 / (t + 1);
          float gt = u0 * u0 + u1 * u1 + u2 * u2 - 1;
          if (gt > 0) s0 = t; else if (gt < 0) s1 = t; else break;
        }
        x0 = r0 * y0 / (t + r0);
        x1 = r1 * y1 / (t + r1);
        x2 = y2 / (t + 1);
      }
    } else if (y1 > 0) {
      // in the plane of the two smaller axes
      x0 = 0;
      grn_ellipse_nearest(e1, e2, y1, y2, &x1, &x2);
    } else if (y0 > 0) {
      // in the plane of the largest and smallest axes
      x1 = 0;
      grn_ellipse_nearest(e0, e2, y0, y2, &x0, &x2);
    } else {
      // on the smallest axis: its vertex
      x0 = 0; x1 = 0; x2 = e2;
    }
  } else {
    // in the plane normal to the smallest axis: inside the evolute the nearest point leaves it
    int done = 0;
    float num0 = e0 * y0, num1 = e1 * y1, den0 = e0 * e0 - e2 * e2, den1 = e1 * e1 - e2 * e2;
    x0 = x1 = x2 = 0;
    if (num0 < den0 && num1 < den1) {
      float xd0 = num0 / den0, xd1 = num1 / den1, disc = 1 - xd0 * xd0 - xd1 * xd1;
      if (disc > 0) {
        x0 = e0 * xd0; x1 = e1 * xd1; x2 = e2 * sqrtf(disc);
        done = 1;
      }
    }
    if (!done) grn_ellipse_nearest(e0, e1, y0, y1, &x0, &x1);
  }
  float d0 = y0 - x0, d1 = y1 - x1, d2 = y2 - x2;
  float dist = sqrtf(d0 * d0 + d1 * d1 + d2 * d2);
  // outward normal at the nearest point, back in the shape's axes and octant
  float nv[3];
  nv[o0] = (pv[o0] < 0 ? -x0 : x0) / (e0 * e0);
  nv[o1] = (pv[o1] < 0 ? -x1 : x1) / (e1 * e1);
  nv[o2] = (pv[o2] < 0 ? -x2 : x2) / (e2 * e2);
  *grad = grn_normalize_or(grn_v3(nv[0], nv[1], nv[2]), grn_v3(0, 0, 1));
  return lev < 1 ? -dist : dist;
}

// inside of a box as free space: positive distance to the nearest wall, gradient into the box
GRN_HD float grn_sdf_boxinside(grnVec3 p, const float* h, grnVec3* grad) {
  grnVec3 g;
  float d = -grn_sdf_box(p, h, &g);
  *grad = grn_scale(g, -1.0f);
  return d;
}

// trilinear interpolation of a sampled grid, gradient of the interpolant; beyond the grid box
// the value at the nearest point of the box plus the distance to it (an upper bound, exact where
// the nearest surface point is seen straight through that face), with that function's gradient
GRN_HD float grn_sdf_grid(grnVec3 p, const grnGridView* g, grnVec3* grad) {
  float inv = 1.0f / g->cell;
  float fx = (p.x - g->origin[0]) * inv;
  float fy = (p.y - g->origin[1]) * inv;
  float fz = (p.z - g->origin[2]) * inv;
  // clamp to the grid box (a nan lands on node 0), then the cell and the local coordinates in it
  float cx = grn_sdf_clamp(fx, 0.0f, (float)(g->nx - 1));
  float cy = grn_sdf_clamp(fy, 0.0f, (float)(g->ny - 1));
  float cz = grn_sdf_clamp(fz, 0.0f, (float)(g->nz - 1));
  int i = (int)cx, j = (int)cy, k = (int)cz;
  if (i > g->nx - 2) i = g->nx - 2;
  if (j > g->ny - 2) j = g->ny - 2;
  if (k > g->nz - 2) k = g->nz - 2;
  float tx = cx - i, ty = cy - j, tz = cz - k;
  // the eight corner values
  const float* v = g->values;
  size_t sx = 1, sy = (size_t)g->nx, sz = (size_t)g->nx * g->ny;
  size_t b = i + j * sy + k * sz;
  float c000 = v[b], c100 = v[b + sx], c010 = v[b + sy], c110 = v[b + sx + sy];
  float c001 = v[b + sz], c101 = v[b + sx + sz], c011 = v[b + sy + sz];
  float c111 = v[b + sx + sy + sz];
  // interpolate along x, then y, then z
  float c00 = c000 + (c100 - c000) * tx, c10 = c010 + (c110 - c010) * tx;
  float c01 = c001 + (c101 - c001) * tx, c11 = c011 + (c111 - c011) * tx;
  float c0 = c00 + (c10 - c00) * ty, c1 = c01 + (c11 - c01) * ty;
  float val = c0 + (c1 - c0) * tz;
  // gradient of the interpolant, per unit of cell
  float gx = (1 - ty) * (1 - tz) * (c100 - c000) + ty * (1 - tz) * (c110 - c010) +
             (1 - ty) * tz * (c101 - c001) + ty * tz * (c111 - c011);
  float gy = (1 - tx) * (1 - tz) * (c010 - c000) + tx * (1 - tz) * (c110 - c100) +
             (1 - tx) * tz * (c011 - c001) + tx * tz * (c111 - c101);
  float gz = c1 - c0;
  // beyond the box: add the distance to it; clamped axes take that distance's gradient
  float ox = (fx - cx) * g->cell, oy = (fy - cy) * g->cell, oz = (fz - cz) * g->cell;
  float dout = sqrtf(ox * ox + oy * oy + oz * oz);
  if (dout > 0) {
    gx = ox != 0 ? ox / dout : gx * inv;
    gy = oy != 0 ? oy / dout : gy * inv;
    gz = oz != 0 ? oz / dout : gz * inv;
    val += dout;
  }
  *grad = grn_normalize_or(grn_v3(gx, gy, gz), grn_v3(0, 0, 1));
  return val;
}

// signed distance of any shape type at a point in its frame
GRN_HD float grn_sdf_shape(const grnShape* s, const grnGridView* grids, grnVec3 p, grnVec3* grad) {
  switch (s->type) {
    case grnSHAPE_PLANE: return grn_sdf_plane(p, grad);
    case grnSHAPE_SPHERE: return grn_sdf_sphere(p, s->size[0], grad);
    case grnSHAPE_CAPSULE: return grn_sdf_capsule(p, s->size[0], s->size[1], grad);
    case grnSHAPE_BOX: return grn_sdf_box(p, s->size, grad);
    case grnSHAPE_CYLINDER: return grn_sdf_cylinder(p, s->size[0], s->size[1], grad);
    case grnSHAPE_ELLIPSOID: return grn_sdf_ellipsoid(p, s->size, grad);
    case grnSHAPE_GRID: return grn_sdf_grid(p, &grids[s->grid], grad);
    case grnSHAPE_BOXINSIDE: return grn_sdf_boxinside(p, s->size, grad);
    default: *grad = grn_v3(0, 0, 1); return 1e30f;
  }
}

#endif  // MJGRANULAR_GRN_SDF_H_
