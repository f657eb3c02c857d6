// small 3-vector helpers shared by the cpu and cuda backends.
#ifndef MJGRANULAR_GRN_MATH_H_
#define MJGRANULAR_GRN_MATH_H_

#include <math.h>

#ifdef __CUDACC__
#define GRN_HD __host__ __device__ __forceinline__
#else
#define GRN_HD static inline
#endif

typedef struct grnVec3_ { float x, y, z; } grnVec3;

GRN_HD grnVec3 grn_v3(float x, float y, float z) { grnVec3 r = {x, y, z}; return r; }
GRN_HD grnVec3 grn_load3(const float* p) { return grn_v3(p[0], p[1], p[2]); }
// a[k], a[k + 1], a[k + 2]: the same as grn_load3(a + k), in the form gcc vectorises as a gather
// (a loop reading grain j's vector through an index it loaded)
GRN_HD grnVec3 grn_load3_at(const float* a, int k) {
  return grn_v3(a[k], a[k + 1], a[k + 2]);
}
GRN_HD void grn_store3(float* p, grnVec3 v) { p[0] = v.x; p[1] = v.y; p[2] = v.z; }
GRN_HD grnVec3 grn_add(grnVec3 a, grnVec3 b) { return grn_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
GRN_HD grnVec3 grn_sub(grnVec3 a, grnVec3 b) { return grn_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
GRN_HD grnVec3 grn_scale(grnVec3 a, float s) { return grn_v3(a.x * s, a.y * s, a.z * s); }
GRN_HD float grn_dot(grnVec3 a, grnVec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
GRN_HD float grn_norm(grnVec3 a) { return sqrtf(grn_dot(a, a)); }
GRN_HD grnVec3 grn_cross(grnVec3 a, grnVec3 b) {
  return grn_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
// a where cond, else b (branch-free, so loops of it vectorise)
GRN_HD grnVec3 grn_select3(int cond, grnVec3 a, grnVec3 b) {
  return grn_v3(cond ? a.x : b.x, cond ? a.y : b.y, cond ? a.z : b.z);
}
GRN_HD grnVec3 grn_abs3(grnVec3 a) { return grn_v3(fabsf(a.x), fabsf(a.y), fabsf(a.z)); }
GRN_HD grnVec3 grn_max3(grnVec3 a, float b) {
  return grn_v3(fmaxf(a.x, b), fmaxf(a.y, b), fmaxf(a.z, b));
}

// rotate by a row-major matrix, and by its transpose
GRN_HD grnVec3 grn_mulmat(const float* m, grnVec3 v) {
  return grn_v3(m[0] * v.x + m[1] * v.y + m[2] * v.z,
                m[3] * v.x + m[4] * v.y + m[5] * v.z,
                m[6] * v.x + m[7] * v.y + m[8] * v.z);
}
// the z of grn_mulmat_t(m, v) alone
GRN_HD float grn_mulmat_t_z(const float* m, grnVec3 v) {
  return m[2] * v.x + m[5] * v.y + m[8] * v.z;
}
GRN_HD grnVec3 grn_mulmat_t(const float* m, grnVec3 v) {
  return grn_v3(m[0] * v.x + m[3] * v.y + m[6] * v.z,
                m[1] * v.x + m[4] * v.y + m[7] * v.z,
                grn_mulmat_t_z(m, v));
}

GRN_HD int grn_isfinite3(grnVec3 a) {
  return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

#endif  // MJGRANULAR_GRN_MATH_H_
