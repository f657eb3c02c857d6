// projected jacobi hard contact (the default contact model): one iteration for one grain.
#ifndef MJGRANULAR_GRN_CONTACT_PJ_H_
#define MJGRANULAR_GRN_CONTACT_PJ_H_

#include "grn_data.h"

// new accumulated impulse of one contact. u: relative velocity of the grain against its partner
// with the current iterate, n: unit normal toward the grain, depth: penetration (> 0) or gap
// (< 0), lam: impulse so far, share: fraction of a relative velocity change the grain takes.
// the normal part aims for a separating velocity baumgarte * depth / dt (or, across a gap, an
// approach of at most gap / dt) and is never pulling; the tangential part opposes sliding and is
// projected onto the coulomb cone |t| <= mu n. the computation is odd in (u, n, lam), so the two
// grains of a pair compute exactly opposite impulses and momentum is conserved.
GRN_HD grnVec3 grn_pj_contact(grnVec3 u, grnVec3 n, float depth, grnVec3 lam, float share,
                              float mu, const grnConsts* c) {
  float un = grn_dot(u, n);
  float target = depth > 0 ? c->baumgarte * depth / c->dt : depth / c->dt;
  float lam_n = grn_dot(lam, n);
  grnVec3 lam_t = grn_sub(lam, grn_scale(n, lam_n));
  float new_n = fmaxf(lam_n + share * (target - un), 0.0f);
  grnVec3 ut = grn_sub(u, grn_scale(n, un));
  grnVec3 new_t = grn_sub(lam_t, grn_scale(ut, share));
  float tn = grn_norm(new_t), limit = mu * new_n;
  if (tn > limit) new_t = tn > 0 ? grn_scale(new_t, limit / tn) : new_t;
  return grn_add(grn_scale(n, new_n), new_t);
}

// share of a relative velocity change that grain i takes in a contact with a partner, by mass
// splitting (tonge et al. 2012): each grain's mass is split evenly among its contacts, so the
// summed jacobi updates of a crowded grain do not overshoot. ci, cj: the two contact counts;
// cj = 0 for a kinematic shape. symmetric in (ci, cj), so pairs stay exactly opposite.
GRN_HD float grn_pj_share(int ci, int cj) {
  int m = ci + cj;
  return 1.0f / (float)(m > 1 ? m : 1);
}

// one jacobi iteration for grain i: every contact's impulse from the last iterate (dv), the sum
// written to dv_next
GRN_HD void grn_pj_solve_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap, nc = d->ncontact[i];
  grnVec3 vi = grn_add(grn_load3(d->vpred + 3 * i), grn_load3(d->dv + 3 * i));
  grnVec3 xi = grn_load3(d->pos + 3 * i);
  grnVec3 total = grn_v3(0, 0, 0);
  for (int k = 0; k < d->npair[i]; k++) {
    size_t slot = GRN_SLOT(k, i, cap);
    int j = d->pair[slot];
    grnVec3 r = grn_sub(xi, grn_load3(d->pos + 3 * j));
    float dist = grn_norm(r);
    grnVec3 n = dist > 0 ? grn_scale(r, 1.0f / dist) : grn_v3(0, 0, 1);
    grnVec3 vj = grn_add(grn_load3(d->vpred + 3 * j), grn_load3(d->dv + 3 * j));
    grnVec3 lam = grn_pj_contact(grn_sub(vi, vj), n, 2 * c->radius - dist,
                                 grn_load3(d->pair_imp + 3 * slot),
                                 grn_pj_share(nc, d->ncontact[j]), c->friction, c);
    grn_store3(d->pair_imp + 3 * slot, lam);
    total = grn_add(total, lam);
  }
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SLOT(k, i, cap);
    const grnShape* sh = d->shapes + d->sc_shape[slot];
    grnVec3 u = grn_sub(vi, grn_load3(d->sc_vel + 3 * slot));
    grnVec3 lam = grn_pj_contact(u, grn_load3(d->sc_normal + 3 * slot), d->sc_depth[slot],
                                 grn_load3(d->sc_imp + 3 * slot), grn_pj_share(nc, 0),
                                 sh->friction, c);
    grn_store3(d->sc_imp + 3 * slot, lam);
    total = grn_add(total, lam);
  }
  grn_store3(d->dv_next + 3 * i, total);
}

#endif  // MJGRANULAR_GRN_CONTACT_PJ_H_
