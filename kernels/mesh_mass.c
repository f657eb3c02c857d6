// mass properties of closed triangle meshes. by the divergence theorem the integrals of 1, x and
// x x^T over the solid are sums over its triangles, each the exact integral over the signed
// tetrahedron the triangle spans with a reference point (the same sums as mirtich 1996 and
// eberly's polyhedral mass properties, in covariance form). the reference point is the centre of
// the mesh's bounding box, so the central inertia does not lose digits to where the mesh lies.

#include "mesh_mass.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GRN_MESH_FLAT 1e-9      // a volume below this times the cube of the extent is flat
#define GRN_JACOBI_SWEEPS 50    // far more than a 3 x 3 matrix needs (it converges in ~6)

const char* grn_mesh_status_string(grnMeshStatus status) {
  switch (status) {
    case grnMESH_OK: return "ok";
    case grnMESH_ARG: return "invalid argument (null pointer, no faces, or bad density)";
    case grnMESH_BAD_INDEX: return "a face has a vertex index out of range or repeated";
    case grnMESH_NONFINITE: return "a vertex is nan or infinite";
    case grnMESH_OPEN: return "the mesh is not closed (an edge not shared by exactly two faces)";
    case grnMESH_MISORIENTED: return "the faces are not consistently oriented";
    case grnMESH_INSIDE_OUT: return "the mesh encloses no positive volume (inside out or flat)";
    case grnMESH_MEMORY: return "out of memory";
  }
  return "unknown status";
}

//---------------------------------- closedness ----------------------------------------------------

static int compare_keys(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

// how many times the directed edge key appears in the sorted keys
static int count_key(const uint64_t* keys, int n, uint64_t key) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  int k = lo;
  while (k < n && keys[k] == key) k++;
  return k - lo;
}

// every edge in exactly two triangles, once in each direction: the surface is closed and its
// faces consistently oriented (which way they face is the volume's sign)
static grnMeshStatus check_closed(const int* face, int nface) {
  int n = 3 * nface;
  uint64_t* keys = (uint64_t*)malloc(sizeof(uint64_t) * n);
  if (!keys) return grnMESH_MEMORY;
  for (int t = 0; t < nface; t++) {
    for (int e = 0; e < 3; e++) {
      uint64_t a = (uint32_t)face[3 * t + e], b = (uint32_t)face[3 * t + (e + 1) % 3];
      keys[3 * t + e] = a << 32 | b;
    }
  }
  qsort(keys, n, sizeof(uint64_t), compare_keys);
  grnMeshStatus status = grnMESH_OK;
  for (int k = 0; k < n && status != grnMESH_OPEN;) {
    int forward = count_key(keys + k, n - k, keys[k]);
    int reverse = count_key(keys, n, keys[k] << 32 | keys[k] >> 32);
    if (forward + reverse != 2) status = grnMESH_OPEN;
    else if (forward != 1) status = grnMESH_MISORIENTED;
    k += forward;
  }
  free(keys);
  return status;
}

//---------------------------------- principal axes ------------------------------------------------

// eigen-decomposition of a symmetric 3 x 3 matrix a (row-major) by cyclic jacobi rotations:
// eigenvalues in val, eigenvectors as the columns of vec
static void symmetric_eigen(const double* a, double* val, double* vec) {
  double m[9], v[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(m, a, sizeof(m));
  static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int sweep = 0; sweep < GRN_JACOBI_SWEEPS; sweep++) {
    double off = m[1] * m[1] + m[2] * m[2] + m[5] * m[5];
    double diag = m[0] * m[0] + m[4] * m[4] + m[8] * m[8];
    if (off <= 1e-32 * diag) break;
    for (int k = 0; k < 3; k++) {
      int p = pairs[k][0], q = pairs[k][1];
      double apq = m[3 * p + q];
      if (apq == 0) continue;
      // the rotation in the (p, q) plane that zeroes m[p][q]: t = tan of its angle, the smaller
      // root (numerical recipes 11.1), hypot keeps theta^2 from overflowing
      double theta = (m[3 * q + q] - m[3 * p + p]) / (2 * apq);
      double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + hypot(theta, 1));
      double c = 1 / sqrt(t * t + 1), s = t * c;
      double r[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, mr[9], vr[9];
      r[3 * p + p] = c; r[3 * q + q] = c; r[3 * p + q] = s; r[3 * q + p] = -s;
      // m = r^T m r, v = v r
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
          mr[3 * i + j] = m[3 * i] * r[j] + m[3 * i + 1] * r[3 + j] + m[3 * i + 2] * r[6 + j];
          vr[3 * i + j] = v[3 * i] * r[j] + v[3 * i + 1] * r[3 + j] + v[3 * i + 2] * r[6 + j];
        }
      }
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
          m[3 * i + j] = r[i] * mr[j] + r[3 + i] * mr[3 + j] + r[6 + i] * mr[6 + j];
        }
      }
      m[3 * p + q] = m[3 * q + p] = 0;
      memcpy(v, vr, sizeof(v));
    }
  }
  for (int i = 0; i < 3; i++) val[i] = m[4 * i];
  memcpy(vec, v, sizeof(v));
}

// unit quaternion (w, x, y, z) of a rotation matrix (row-major), from the largest of its four
// squared components (shepperd 1978), with w >= 0
static void matrix_to_quat(const double* r, double* q) {
  double tr = r[0] + r[4] + r[8];
  if (tr >= r[0] && tr >= r[4] && tr >= r[8]) {
    double s = 2 * sqrt(1 + tr);
    q[0] = s / 4; q[1] = (r[7] - r[5]) / s; q[2] = (r[2] - r[6]) / s; q[3] = (r[3] - r[1]) / s;
  } else if (r[0] >= r[4] && r[0] >= r[8]) {
    double s = 2 * sqrt(1 + r[0] - r[4] - r[8]);
    q[0] = (r[7] - r[5]) / s; q[1] = s / 4; q[2] = (r[1] + r[3]) / s; q[3] = (r[2] + r[6]) / s;
  } else if (r[4] >= r[8]) {
    double s = 2 * sqrt(1 + r[4] - r[0] - r[8]);
    q[0] = (r[2] - r[6]) / s; q[1] = (r[1] + r[3]) / s; q[2] = s / 4; q[3] = (r[5] + r[7]) / s;
  } else {
    double s = 2 * sqrt(1 + r[8] - r[0] - r[4]);
    q[0] = (r[3] - r[1]) / s; q[1] = (r[2] + r[6]) / s; q[2] = (r[5] + r[7]) / s; q[3] = s / 4;
  }
  double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  double sign = q[0] < 0 ? -1 : 1;
  for (int i = 0; i < 4; i++) q[i] *= sign / norm;
}

// principal moments ascending and their axes as a right-handed rotation
static void principal_axes(grnMassProps* mp) {
  double val[3], vec[9];
  symmetric_eigen(mp->inertia, val, vec);
  int order[3] = {0, 1, 2};
  for (int i = 0; i < 2; i++) {
    for (int j = i + 1; j < 3; j++) {
      if (val[order[j]] < val[order[i]]) {
        int tmp = order[i]; order[i] = order[j]; order[j] = tmp;
      }
    }
  }
  for (int j = 0; j < 3; j++) {
    mp->principal[j] = val[order[j]];
    for (int i = 0; i < 3; i++) mp->axes[3 * i + j] = vec[3 * i + order[j]];
  }
  // the eigenvectors' signs are free: make the third axis the cross product of the first two
  const double* a = mp->axes;
  double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
               a[2] * (a[3] * a[7] - a[4] * a[6]);
  if (det < 0) {
    for (int i = 0; i < 3; i++) mp->axes[3 * i + 2] = -mp->axes[3 * i + 2];
  }
  matrix_to_quat(mp->axes, mp->quat);
}

//---------------------------------- mass properties -----------------------------------------------

grnMeshStatus grn_mesh_mass(const float* vert, int nvert, const int* face, int nface,
                            double density, grnMassProps* out) {
  if (!out) return grnMESH_ARG;
  memset(out, 0, sizeof(*out));
  if (!vert || !face || nvert <= 0 || nface <= 0 || !isfinite(density) || !(density > 0)) {
    return grnMESH_ARG;
  }

  // indices and vertices, and the bounding box of the vertices the faces use
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int t = 0; t < nface; t++) {
    const int* f = face + 3 * t;
    for (int e = 0; e < 3; e++) {
      if (f[e] < 0 || f[e] >= nvert || f[e] == f[(e + 1) % 3]) return grnMESH_BAD_INDEX;
      for (int i = 0; i < 3; i++) {
        double x = vert[3 * f[e] + i];
        if (!isfinite(x)) return grnMESH_NONFINITE;
        lo[i] = fmin(lo[i], x);
        hi[i] = fmax(hi[i], x);
      }
    }
  }
  grnMeshStatus status = check_closed(face, nface);
  if (status != grnMESH_OK) return status;

  // sums over the tetrahedra (ref, a, b, c), a b c relative to ref, det = a . (b x c) = 6 x its
  // signed volume: volume det / 6, first moment det / 24 s, second moment
  // det / 120 (a a^T + b b^T + c c^T + s s^T), s = a + b + c
  double ref[3], vol6 = 0, first24[3] = {0, 0, 0}, second120[9] = {0};
  for (int i = 0; i < 3; i++) ref[i] = (lo[i] + hi[i]) / 2;
  for (int t = 0; t < nface; t++) {
    double p[3][3], s[3];
    for (int k = 0; k < 3; k++) {
      for (int i = 0; i < 3; i++) p[k][i] = vert[3 * face[3 * t + k] + i] - ref[i];
    }
    double det = p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) -
                 p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
                 p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0]);
    for (int i = 0; i < 3; i++) s[i] = p[0][i] + p[1][i] + p[2][i];
    vol6 += det;
    for (int i = 0; i < 3; i++) {
      first24[i] += det * s[i];
      for (int j = 0; j < 3; j++) {
        double outer = p[0][i] * p[0][j] + p[1][i] * p[1][j] + p[2][i] * p[2][j] + s[i] * s[j];
        second120[3 * i + j] += det * outer;
      }
    }
  }
  double volume = vol6 / 6;
  double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  if (!(volume > GRN_MESH_FLAT * extent * extent * extent)) return grnMESH_INSIDE_OUT;

  // centre of mass, the second moment about it, and the inertia tensor trace(C) 1 - C (symmetric
  // exactly: each product is summed in the same order for (i, j) and (j, i))
  double c[3], cov[9];
  for (int i = 0; i < 3; i++) c[i] = first24[i] / 24 / volume;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      cov[3 * i + j] = density * (second120[3 * i + j] / 120 - volume * c[i] * c[j]);
    }
  }
  double trace = cov[0] + cov[4] + cov[8];
  out->volume = volume;
  out->mass = density * volume;
  for (int i = 0; i < 3; i++) {
    out->com[i] = ref[i] + c[i];
    for (int j = 0; j < 3; j++) {
      out->inertia[3 * i + j] = (i == j ? trace : 0) - cov[3 * i + j];
    }
  }
  principal_axes(out);
  return grnMESH_OK;
}

void grn_mesh_to_body(const grnMassProps* mp, const double x_mesh[3], double x_body[3]) {
  double d[3] = {x_mesh[0] - mp->com[0], x_mesh[1] - mp->com[1], x_mesh[2] - mp->com[2]};
  for (int j = 0; j < 3; j++) {
    x_body[j] = mp->axes[j] * d[0] + mp->axes[3 + j] * d[1] + mp->axes[6 + j] * d[2];
  }
}
