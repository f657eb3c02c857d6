// rigid rotation of a grain that is not a sphere (a clump, issue 19): its orientation, a unit
// quaternion, and its angular momentum in the world frame, advanced over a substep by Euler's
// equations in the body frame (gyroscopic term included). Compiled by gcc and by nvcc, in float
// like the solver.
//
// The step: the torque's impulse first (world frame, as the solver applies contact impulses
// before it moves the grains); then the torque-free rotation by the implicit midpoint rule on the
// body angular momentum pi = R^T L, pi' = pi + dt pi_m x w_m (pi_m = (pi + pi') / 2 = I w_m), the
// body frame turned by the cayley rotation of dt w_m, the one that carries pi to pi' (austin,
// krishnaprasad and wang 1993). The midpoint rule keeps the quadratic invariants, the kinetic
// energy and |pi|, and with the cayley rotation the world angular momentum stays constant. So L
// is the state (constant to the bit without torque), pi' is never formed, and the angular
// velocity comes from L where wanted (grn_rigid_angvel). Keeping the angular velocity instead
// costs a float round trip world - body - world every step, whose correlated rounding drifts the
// energy by 2e-3 in 10,000 steps (this way 4e-6); explicit steps (euler, or the semi-implicit
// gyroscopic step of game engines) gain or lose 1e-2 in as many (kernels/README.md).
#ifndef MJGRANULAR_GRN_RIGID_H_
#define MJGRANULAR_GRN_RIGID_H_

#include "grn_math.h"

#define GRN_RIGID_NEWTON 2  // newton iterations of the midpoint: float accuracy to dt |w| = 0.3

//---------------------------------- quaternions ---------------------------------------------------

// a unit quaternion (w, x, y, z), mujoco's order: the rotation from a body frame to the world
typedef struct grnQuat_ { float w, x, y, z; } grnQuat;

GRN_HD grnQuat grn_quat(float w, float x, float y, float z) {
  grnQuat q = {w, x, y, z};
  return q;
}
GRN_HD grnQuat grn_load_quat(const float* p) { return grn_quat(p[0], p[1], p[2], p[3]); }
GRN_HD void grn_store_quat(float* p, grnQuat q) { p[0] = q.w; p[1] = q.x; p[2] = q.y; p[3] = q.z; }

// the rotation a then b in the body frame of a: a b
GRN_HD grnQuat grn_quat_mul(grnQuat a, grnQuat b) {
  return grn_quat(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                  a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                  a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                  a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}

// grn_quat_exp's series alone (its k = 0, below), for a2 = |r|^2 <= 0.25: no loop and no
// branch, so a loop over grains vectorises
GRN_HD grnQuat grn_quat_exp_series(grnVec3 r, float a2) {
  float h2 = 0.25f * a2;  // (a / 2)^2
  float c = 1 - h2 * (0.5f - h2 * (1.0f / 24 - h2 * (1.0f / 720)));
  float s = 0.5f * (1 - h2 * (1.0f / 6 - h2 * (1.0f / 120 - h2 * (1.0f / 5040))));
  return grn_quat(c, s * r.x, s * r.y, s * r.z);
}

// the rotation by angle a = |r| about r / |r| (a rotation vector r [rad]):
// (cos(a/2), sin(a/2) r/a).
// sinf and cosf round differently on the cpu and the gpu, so instead: r halved k times (exactly)
// until a <= 0.5, the series of cos(h) and sin(h) / h to h^6 (h = a / 2 <= 0.25: the next terms
// are under 4e-10), then the result squared k times. Only +, * and correctly rounded sqrt and
// division: the two backends agree bit for bit. k is bounded so that an inf ends (as nan).
GRN_HD grnQuat grn_quat_exp(grnVec3 r) {
  float a2 = grn_dot(r, r);
  int k = 0;
  for (; k < 64 && a2 > 0.25f; k++) {
    r = grn_scale(r, 0.5f);
    a2 *= 0.25f;
  }
  grnQuat q = grn_quat_exp_series(r, a2);
  for (int j = 0; j < k; j++) q = grn_quat_mul(q, q);
  return q;
}

GRN_HD grnQuat grn_quat_normalize(grnQuat q) {
  float s = 1.0f / sqrtf(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return grn_quat(q.w * s, q.x * s, q.y * s, q.z * s);
}

// v from the body frame to the world: v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z)
GRN_HD grnVec3 grn_quat_rotate(grnQuat q, grnVec3 v) {
  grnVec3 u = grn_v3(q.x, q.y, q.z);
  grnVec3 t = grn_scale(grn_cross(u, v), 2);
  return grn_add(v, grn_add(grn_scale(t, q.w), grn_cross(u, t)));
}

// v from the world to the body frame: the rotation by the conjugate
GRN_HD grnVec3 grn_quat_unrotate(grnQuat q, grnVec3 v) {
  return grn_quat_rotate(grn_quat(q.w, -q.x, -q.y, -q.z), v);
}

//---------------------------------- euler's equations ---------------------------------------------

GRN_HD grnVec3 grn_mul3(grnVec3 a, grnVec3 b) { return grn_v3(a.x * b.x, a.y * b.y, a.z * b.z); }

// the solution of the 3 x 3 system with rows r0, r1, r2 and right-hand side b (cramer's rule:
// the inverse's columns are the rows' cross products over the determinant)
GRN_HD grnVec3 grn_solve3(grnVec3 r0, grnVec3 r1, grnVec3 r2, grnVec3 b) {
  grnVec3 c0 = grn_cross(r1, r2), c1 = grn_cross(r2, r0), c2 = grn_cross(r0, r1);
  float inv_det = 1.0f / grn_dot(r0, c0);
  return grn_scale(grn_add(grn_scale(c0, b.x), grn_add(grn_scale(c1, b.y), grn_scale(c2, b.z))),
                   inv_det);
}

// the midpoint body angular velocity w of a torque-free step from body angular momentum pi:
// the root of f(w) = 2 I w + dt w x (I w) - 2 pi, by newton's method from the explicit half step
// (the jacobian 2 I + dt ([w]x I - [I w]x) is within dt |w| of 2 I, so each iteration gains
// that factor squared)
GRN_HD grnVec3 grn_rigid_midpoint(grnVec3 inertia, grnVec3 pi, float dt) {
  grnVec3 inv_inertia = grn_v3(1.0f / inertia.x, 1.0f / inertia.y, 1.0f / inertia.z);
  grnVec3 w0 = grn_mul3(pi, inv_inertia);
  grnVec3 w = grn_add(w0, grn_mul3(grn_scale(grn_cross(pi, w0), 0.5f * dt), inv_inertia));
  for (int it = 0; it < GRN_RIGID_NEWTON; it++) {
    grnVec3 l = grn_mul3(inertia, w);
    grnVec3 f = grn_sub(grn_scale(grn_add(l, grn_scale(grn_cross(w, l), 0.5f * dt)), 2),
                        grn_scale(pi, 2));
    grnVec3 r0 = grn_v3(2 * inertia.x, dt * (l.z - w.z * inertia.y), dt * (w.y * inertia.z - l.y));
    grnVec3 r1 = grn_v3(dt * (w.z * inertia.x - l.z), 2 * inertia.y, dt * (l.x - w.x * inertia.z));
    grnVec3 r2 = grn_v3(dt * (l.y - w.y * inertia.x), dt * (w.x * inertia.y - l.x), 2 * inertia.z);
    w = grn_sub(w, grn_solve3(r0, r1, r2, f));
  }
  return w;
}

// The world angular velocity [rad/s] of a grain with orientation q, world angular momentum
// momentum [kg m^2/s] and principal moments inertia [kg m^2]: R I^-1 R^T L.
GRN_HD grnVec3 grn_rigid_angvel(grnQuat q, grnVec3 momentum, grnVec3 inertia) {
  grnVec3 pi = grn_quat_unrotate(q, momentum);
  return grn_quat_rotate(q, grn_v3(pi.x / inertia.x, pi.y / inertia.y, pi.z / inertia.z));
}

// The world angular momentum of a grain turning at angvel (world frame): R I R^T w.
GRN_HD grnVec3 grn_rigid_momentum(grnQuat q, grnVec3 angvel, grnVec3 inertia) {
  return grn_quat_rotate(q, grn_mul3(inertia, grn_quat_unrotate(q, angvel)));
}

// Advance a grain's rotation over dt under a torque [N m] (world frame): its orientation q and
// its world angular momentum, with principal moments inertia [kg m^2] (the body frame's axes are
// the principal axes).
GRN_HD void grn_rigid_rotate(grnQuat* q, grnVec3* momentum, grnVec3 inertia, grnVec3 torque,
                             float dt) {
  // the torque's impulse; then no torque: the world angular momentum stays
  *momentum = grn_add(*momentum, grn_scale(torque, dt));
  // the midpoint angular velocity, and the cayley rotation of dt w_m, whose quaternion is
  // (1, dt w_m / 2) normalised: it turns the body frame so that the body angular momentum
  // R^T L becomes the midpoint rule's next pi
  grnVec3 w = grn_rigid_midpoint(inertia, grn_quat_unrotate(*q, *momentum), dt);
  grnQuat turn = grn_quat_normalize(grn_quat(1, 0.5f * dt * w.x, 0.5f * dt * w.y, 0.5f * dt * w.z));
  *q = grn_quat_normalize(grn_quat_mul(*q, turn));
}

#endif  // MJGRANULAR_GRN_RIGID_H_
