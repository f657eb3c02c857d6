// what the pbd model's two kinds of passes share (grn_contact_pbd.h, grn_pbd_averaged.h): a
// contact's parts, the iterate (a grain's displacement over the substep so far) and sleeping
#ifndef MJGRANULAR_GRN_PBD_COMMON_H_
#define MJGRANULAR_GRN_PBD_COMMON_H_

#include "grn_data.h"

// a contact's normal, adhesive and tangential parts on its grain: impulses [N s] in the newton
// passes, corrections summed over the substep's passes [m] in the averaged ones. the normal and
// adhesive parts are >= 0 and act along and against the normal. pairs keep them in cp_arm (n,
// adh) and cp_mom (t) during the passes; the law state of each slot holds them (pair_rot,
// sc_rot: n, adh; pair_lin, sc_lin: t)
typedef struct grnPbdParts_ {
  float n, adh;
  grnVec3 t;
} grnPbdParts;

// a contact's parts from the law state of its slot (rot, lin: pair_rot and pair_lin, or sc_rot
// and sc_lin), and back
GRN_HD grnPbdParts grn_pbd_state(const float* rot, const float* lin, size_t slot) {
  grnPbdParts p;
  p.n = rot[3 * slot];
  p.adh = rot[3 * slot + 1];
  p.t = grn_load3(lin + 3 * slot);
  return p;
}
GRN_HD void grn_pbd_put_state(float* rot, float* lin, size_t slot, const grnPbdParts* p) {
  grn_store3(rot + 3 * slot, grn_v3(p->n, p->adh, 0));
  grn_store3(lin + 3 * slot, p->t);
}

// pair q's parts during the passes (cp_arm, cp_mom), and back
GRN_HD grnPbdParts grn_pbd_pair_parts(const grnData* d, size_t q) {
  grnPbdParts p;
  p.n = d->cp_arm[2 * q];
  p.adh = d->cp_arm[2 * q + 1];
  p.t = grn_load3(d->cp_mom + 3 * q);
  return p;
}
GRN_HD void grn_pbd_put_pair_parts(const grnData* d, size_t q, const grnPbdParts* p) {
  d->cp_arm[2 * q] = p->n;
  d->cp_arm[2 * q + 1] = p->adh;
  grn_store3(d->cp_mom + 3 * q, p->t);
}

// a pair in a pass: the grain's displacement against its partner's over the substep so far, the
// unit normal toward the grain and the overlap at the displaced positions, the smaller radius
typedef struct grnPbdPairAt_ {
  grnVec3 u, n;
  float overlap, rmin;
} grnPbdPairAt;

// pair p at the last iterate; its normal into cp_normal and whether it touches into cp_bias, for
// the grains' half of the pass
GRN_HD grnPbdPairAt grn_pbd_pair_at(const grnData* d, int p) {
  grnPbdPairAt at;
  int i = d->cp_grain[p], j = d->cp_partner[p];
  at.u = grn_sub(grn_iter_v(d->iter, i), grn_iter_v(d->iter, j));
  grnVec3 r = grn_add(grn_sub(grn_load3(d->pos + 3 * i), grn_load3(d->pos + 3 * j)), at.u);
  float dist = grn_norm(r), ri = grn_radius(d, i), rj = grn_radius(d, j);
  at.n = dist > 0 ? grn_scale(r, 1.0f / dist) : grn_v3(0, 0, 1);
  at.overlap = ri + rj - dist;
  at.rmin = fminf(ri, rj);
  grn_store3(d->cp_normal + 3 * (size_t)p, at.n);
  d->cp_bias[p] = at.overlap > 0 ? 1.0f : 0.0f;
  return at;
}

// the error reduction weight of grain i's part of a grain contact's change in a pass (n toward
// the grain): 1 - eps (n . down), so the upper grain moves more (1 + eps) than the lower (1 - eps)
GRN_HD float grn_pbd_weight(const grnConsts* c, grnVec3 n) {
  return 1.0f - c->error_reduction * grn_dot(n, grn_load3(c->down));
}

// whether grain i is awake in an iterate (sleeping only): kept in the velocity part's fourth float
GRN_HD int grn_pbd_awake(const float* it, int i) { return it[GRN_ITER * (size_t)i + 3] != 0; }

// grain i's displacement and awake flag stored in an iterate
GRN_HD void grn_pbd_store(float* it, int i, grnVec3 disp, int awake) {
  grnVec3 zero = grn_v3(0, 0, 0);
  grn_store_iter(it, i, disp, zero, zero);
  it[GRN_ITER * (size_t)i + 3] = awake ? 1.0f : 0.0f;
}

// 1 when grain i touches a shape that moves
GRN_HD int grn_pbd_on_moving_shape(const grnData* d, int i) {
  for (int k = 0; k < d->nshape[i]; k++) {
    grnVec3 v = grn_load3(d->sc_vel + 3 * GRN_SHAPE_SLOT(k, i, d->cap));
    if (v.x != 0 || v.y != 0 || v.z != 0) return 1;
  }
  return 0;
}

// whether grain i is awake by itself with displacement disp: sleeping off, a displacement of
// `sleep` or more, or a moving shape touched
GRN_HD int grn_pbd_wakes(const grnData* d, const grnConsts* c, int i, grnVec3 disp) {
  return !(c->sleep > 0) || grn_dot(disp, disp) >= c->sleep * c->sleep ||
         grn_pbd_on_moving_shape(d, i);
}

#endif  // MJGRANULAR_GRN_PBD_COMMON_H_
