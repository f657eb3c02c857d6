// implicit body coupling, per contact: how a coupled body answers the impulses of the grains
// within a substep. A body's mobility W (6 x 6, world frame) maps an impulse wrench [linear
// impulse; angular impulse about the body's centre of mass] to the change of [centre-of-mass
// velocity; angular velocity] it causes (W = J M^-1 J^T for an articulated body). The Jacobi
// iterations see the body move by W times the sum of this substep's impulses on it, so a body
// feels the grains' push and the grains feel the body's inertia; a zero W is a kinematic body.
#ifndef MJGRANULAR_GRN_BODY_H_
#define MJGRANULAR_GRN_BODY_H_

#include "grn_data.h"

// the contact point of grain i against a shape along normal n (from the shape toward the grain),
// relative to the shape's body's centre of mass
GRN_HD grnVec3 grn_body_arm(const grnData* d, const grnShape* sh, int i, grnVec3 n) {
  grnVec3 point = grn_sub(grn_load3(d->pos + 3 * i), grn_scale(n, grn_radius(d, i)));
  return grn_sub(point, grn_load3(sh->com));
}

// velocity change, at arm r from its centre of mass, that body b has from the impulses of this
// substep's current iterate
GRN_HD grnVec3 grn_body_point_dv(const grnData* d, int b, grnVec3 r) {
  const float* v = d->body_dv + 6 * b;
  return grn_add(grn_v3(v[0], v[1], v[2]), grn_cross(grn_v3(v[3], v[4], v[5]), r));
}

// velocity change along n at arm r of body b per unit impulse along n at that point:
// [n; r x n]^T W [n; r x n] (>= 0 for a physical mobility)
GRN_HD float grn_body_compliance(const grnData* d, int b, grnVec3 r, grnVec3 n) {
  const float* w = d->body_mob + 36 * b;
  grnVec3 rn = grn_cross(r, n);
  float j[6] = {n.x, n.y, n.z, rn.x, rn.y, rn.z};
  float k = 0;
  for (int a = 0; a < 6; a++) {
    float row = 0;
    for (int e = 0; e < 6; e++) row += w[6 * a + e] * j[e];
    k += j[a] * row;
  }
  return k > 0 ? k : 0.0f;
}

// body velocity change from the summed impulse wrench of its contacts: dv = W [p; q]
GRN_HD void grn_body_velocity_change(const float* mob, const double* impulse, float* dv) {
  for (int a = 0; a < 6; a++) {
    double v = 0;
    for (int e = 0; e < 6; e++) v += mob[6 * a + e] * impulse[e];
    dv[a] = (float)v;
  }
}

// force and torque (about the body's centre of mass) that grain i's shape contact in slot k puts
// on the body: minus the grain's impulse and angular impulse over the substep (projected jacobi:
// the accumulated ones; dem, pbd: the substep's)
GRN_HD void grn_shape_contact_wrench(const grnData* d, const grnConsts* c, int i, int k,
                                     grnVec3* force, grnVec3* torque) {
  size_t slot = GRN_SHAPE_SLOT(k, i, d->cap);
  const grnShape* sh = d->shapes + d->sc_shape[slot];
  grnVec3 r = grn_body_arm(d, sh, i, grn_load3(d->sc_normal + 3 * slot));
  int pj = c->model == grnMODEL_PJ;
  const float* imp = (pj ? d->sc_lin : d->sc_impulse) + 3 * slot;
  const float* mom = (pj ? d->sc_rot : d->sc_angular) + 3 * slot;
  float inv_dt = -1.0f / c->dt;
  *force = grn_scale(grn_load3(imp), inv_dt);
  *torque = grn_add(grn_cross(r, *force), grn_scale(grn_load3(mom), inv_dt));
}

#endif  // MJGRANULAR_GRN_BODY_H_
