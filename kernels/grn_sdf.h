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

// unit vector along a, or fallback when a is (near) zero
GRN_HD grnVec3 grn_normalize_or(grnVec3 a, grnVec3 fallback) {
  float n = grn_norm(a);
  return n > 1e-12f ? grn_scale(a, 1.0f / n) : fallback;
}

GRN_HD float grn_sdf_plane(grnVec3 p, grnVec3* grad) {
  *grad = grn_v3(0, 0, 1);
  return p.z;
}

GRN_HD float grn_sdf_sphere(grnVec3 p, float r, grnVec3* grad) {
  float n = grn_norm(p);
  *grad = grn_normalize_or(p, grn_v3(0, 0, 1));
  return n - r;
}

GRN_HD float grn_sdf_capsule(grnVec3 p, float r, float half, grnVec3* grad) {
  // distance to the axis segment minus the radius
  float z = fminf(fmaxf(p.z, -half), half);
  grnVec3 d = grn_v3(p.x, p.y, p.z - z);
  *grad = grn_normalize_or(d, grn_v3(p.x >= 0 ? 1.0f : -1.0f, 0, 0));
  return grn_norm(d) - r;
}

GRN_HD float grn_sdf_box(grnVec3 p, const float* h, grnVec3* grad) {
  grnVec3 a = grn_abs3(p);
  grnVec3 q = grn_v3(a.x - h[0], a.y - h[1], a.z - h[2]);
  float sx = p.x >= 0 ? 1.0f : -1.0f, sy = p.y >= 0 ? 1.0f : -1.0f, sz = p.z >= 0 ? 1.0f : -1.0f;
  if (q.x > 0 || q.y > 0 || q.z > 0) {
    // outside: distance to the nearest point of the box
    grnVec3 o = grn_max3(q, 0.0f);
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

// exact distance to an ellipsoid: the nearest surface point solves a 1-d root problem in the
// lagrange multiplier t, (sum (a_i x_i / (t + a_i^2))^2 = 1), found by bisection + newton
GRN_HD float grn_sdf_ellipsoid(grnVec3 p, const float* s, grnVec3* grad) {
  float a[3] = {s[0], s[1], s[2]}, x[3] = {fabsf(p.x), fabsf(p.y), fabsf(p.z)};
  float sg[3] = {p.x >= 0 ? 1.0f : -1.0f, p.y >= 0 ? 1.0f : -1.0f, p.z >= 0 ? 1.0f : -1.0f};
  float lev = 0;
  for (int i = 0; i < 3; i++) lev += (x[i] / a[i]) * (x[i] / a[i]);
  float amin = fminf(a[0], fminf(a[1], a[2]));
  // bracket the root: g(t) = sum (a x / (t + a^2))^2 - 1 is decreasing for t > -amin^2
  float lo = -amin * amin, hi;
  if (lev >= 1) {
    lo = 0;
    hi = fmaxf(grn_norm(grn_v3(a[0] * x[0], a[1] * x[1], a[2] * x[2])), 1e-20f);
  } else {
    hi = 0;
    // nudge lo inside the domain
    lo = lo * (1.0f - 1e-6f);
  }
  float t = 0.5f * (lo + hi);
  for (int it = 0; it < 64; it++) {
    float g = -1;
    for (int i = 0; i < 3; i++) {
      float den = t + a[i] * a[i];
      float u = a[i] * x[i] / den;
      g += u * u;
    }
    if (g > 0) lo = t; else hi = t;
    t = 0.5f * (lo + hi);
    if (hi - lo <= 1e-7f * fmaxf(fabsf(t), amin * amin)) break;
  }
  grnVec3 y;
  float yv[3];
  for (int i = 0; i < 3; i++) yv[i] = a[i] * a[i] * x[i] / (t + a[i] * a[i]);
  y = grn_v3(sg[0] * yv[0], sg[1] * yv[1], sg[2] * yv[2]);
  grnVec3 d = grn_sub(p, y);
  float dist = grn_norm(d);
  // outward normal of the ellipsoid at y (the gradient of the implicit function)
  grnVec3 nrm = grn_normalize_or(
      grn_v3(y.x / (a[0] * a[0]), y.y / (a[1] * a[1]), y.z / (a[2] * a[2])), grn_v3(0, 0, 1));
  *grad = nrm;
  return lev >= 1 ? dist : -dist;
}

// inside of a box as free space: positive distance to the nearest wall, gradient into the box
GRN_HD float grn_sdf_boxinside(grnVec3 p, const float* h, grnVec3* grad) {
  grnVec3 g;
  float d = -grn_sdf_box(p, h, &g);
  *grad = grn_scale(g, -1.0f);
  return d;
}

// trilinear interpolation of a sampled grid; the gradient is that of the interpolant
GRN_HD float grn_sdf_grid(grnVec3 p, const grnGridView* g, grnVec3* grad) {
  float fx = (p.x - g->origin[0]) / g->cell;
  float fy = (p.y - g->origin[1]) / g->cell;
  float fz = (p.z - g->origin[2]) / g->cell;
  // outside the grid: distance to the grid box plus the value at the nearest node region
  float cx = fminf(fmaxf(fx, 0.0f), (float)(g->nx - 1));
  float cy = fminf(fmaxf(fy, 0.0f), (float)(g->ny - 1));
  float cz = fminf(fmaxf(fz, 0.0f), (float)(g->nz - 1));
  int i = (int)fminf(floorf(cx), (float)(g->nx - 2));
  int j = (int)fminf(floorf(cy), (float)(g->ny - 2));
  int k = (int)fminf(floorf(cz), (float)(g->nz - 2));
  float tx = cx - i, ty = cy - j, tz = cz - k;
  const float* v = g->values;
  int sx = 1, sy = g->nx, sz = g->nx * g->ny;
  int b = i + j * sy + k * sz;
  float c000 = v[b], c100 = v[b + sx], c010 = v[b + sy], c110 = v[b + sx + sy];
  float c001 = v[b + sz], c101 = v[b + sx + sz], c011 = v[b + sy + sz];
  float c111 = v[b + sx + sy + sz];
  float c00 = c000 + (c100 - c000) * tx, c10 = c010 + (c110 - c010) * tx;
  float c01 = c001 + (c101 - c001) * tx, c11 = c011 + (c111 - c011) * tx;
  float c0 = c00 + (c10 - c00) * ty, c1 = c01 + (c11 - c01) * ty;
  float val = c0 + (c1 - c0) * tz;
  grnVec3 gr;
  gr.x = ((1 - ty) * (1 - tz) * (c100 - c000) + ty * (1 - tz) * (c110 - c010) +
          (1 - ty) * tz * (c101 - c001) + ty * tz * (c111 - c011));
  gr.y = ((1 - tx) * (1 - tz) * (c010 - c000) + tx * (1 - tz) * (c110 - c100) +
          (1 - tx) * tz * (c011 - c001) + tx * tz * (c111 - c101));
  gr.z = (c1 - c0);
  // beyond the grid box the distance grows at least by the distance to the box
  grnVec3 out = grn_v3((fx - cx) * g->cell, (fy - cy) * g->cell, (fz - cz) * g->cell);
  float dout = grn_norm(out);
  if (dout > 0) {
    *grad = grn_normalize_or(out, grn_v3(0, 0, 1));
    return val + dout;
  }
  *grad = grn_normalize_or(gr, grn_v3(0, 0, 1));
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
