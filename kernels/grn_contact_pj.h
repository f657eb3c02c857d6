// projected jacobi hard contact (the default contact model): one iteration for one grain.
//
// each contact carries two impulses. the velocity impulse makes the grains stop approaching
// (or, across a speculative gap, approach at most gap / dt), opposes sliding and stays inside the
// coulomb cone. the baumgarte impulse (normal, >= 0) pushes penetrating grains apart at
// baumgarte * depth / dt; it moves positions in this substep only and is not kept as velocity
// (split impulse), so correcting penetration never adds kinetic energy to a resting pile.
#ifndef MJGRANULAR_GRN_CONTACT_PJ_H_
#define MJGRANULAR_GRN_CONTACT_PJ_H_

#include "grn_body.h"
#include "grn_data.h"

// share of a relative velocity change that grain i takes in a contact with a partner, by mass
// splitting (tonge et al. 2012): each grain's mass is split evenly among its contacts, so the
// summed jacobi updates of a crowded grain do not overshoot. ci, cj: the two contact counts;
// cj = 0 for a kinematic shape. symmetric in (ci, cj), so pairs stay exactly opposite.
GRN_HD float grn_pj_share(int ci, int cj) {
  int m = ci + cj;
  return 1.0f / (float)(m > 1 ? m : 1);
}

// new accumulated velocity impulse of one contact. u: relative velocity of the grain against its
// partner with the current iterate, n: unit normal toward the grain, depth: penetration (> 0) or
// gap (< 0), lam: impulse so far, share, share_t: fraction of a normal, tangential relative
// velocity change the grain takes.
// the computation is odd in (u, n, lam), so the two grains of a pair compute exactly opposite
// impulses and momentum is conserved.
GRN_HD grnVec3 grn_pj_contact(grnVec3 u, grnVec3 n, float depth, grnVec3 lam, float share,
                              float share_t, float mu, const grnConsts* c) {
  float un = grn_dot(u, n);
  float target = depth > 0 ? 0.0f : depth / c->dt;
  float lam_n = grn_dot(lam, n);
  grnVec3 lam_t = grn_sub(lam, grn_scale(n, lam_n));
  float new_n = lam_n + share * (target - un);
  new_n = new_n > 0 ? new_n : 0.0f;
  grnVec3 ut = grn_sub(u, grn_scale(n, un));
  grnVec3 new_t = grn_sub(lam_t, grn_scale(ut, share_t));
  float tn = grn_norm(new_t), limit = mu * new_n;
  if (tn > limit) new_t = tn > 0 ? grn_scale(new_t, limit / tn) : new_t;
  return grn_add(grn_scale(n, new_n), new_t);
}

// new accumulated baumgarte impulse of one contact (normal, never pulling). ub: normal relative
// pseudo-velocity with the current iterate; b: impulse so far.
GRN_HD float grn_pj_bias(float ub, float depth, float b, float share, const grnConsts* c) {
  float target = depth > 0 ? c->baumgarte * depth / c->dt : 0.0f;
  float nb = b + share * (target - ub);
  return nb > 0 ? nb : 0.0f;
}

// one jacobi iteration for grain i: every contact's impulses from the last iterate (dv, dvb),
// the sums written to dv_next, dvb_next
GRN_HD void grn_pj_solve_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap, nc = d->ncontact[i];
  grnVec3 vi = grn_add(grn_load3(d->vpred + 3 * i), grn_load3(d->dv + 3 * i));
  grnVec3 bi = grn_load3(d->dvb + 3 * i);
  grnVec3 xi = grn_load3(d->pos + 3 * i);
  grnVec3 total = grn_v3(0, 0, 0), btotal = grn_v3(0, 0, 0);
  for (int k = 0; k < d->npair[i]; k++) {
    size_t slot = GRN_SLOT(k, i, cap);
    int j = d->pair[slot];
    grnVec3 r = grn_sub(xi, grn_load3(d->pos + 3 * j));
    float dist = grn_norm(r), depth = 2 * c->radius - dist;
    grnVec3 n = dist > 0 ? grn_scale(r, 1.0f / dist) : grn_v3(0, 0, 1);
    float share = grn_pj_share(nc, d->ncontact[j]);
    grnVec3 vj = grn_add(grn_load3(d->vpred + 3 * j), grn_load3(d->dv + 3 * j));
    grnVec3 lam = grn_pj_contact(grn_sub(vi, vj), n, depth, grn_load3(d->pair_imp + 3 * slot),
                                 share, share, c->friction, c);
    grn_store3(d->pair_imp + 3 * slot, lam);
    total = grn_add(total, lam);
    float ub = grn_dot(grn_sub(bi, grn_load3(d->dvb + 3 * j)), n);
    float b = grn_pj_bias(ub, depth, d->pair_bias[slot], share, c);
    d->pair_bias[slot] = b;
    btotal = grn_add(btotal, grn_scale(n, b));
  }
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SLOT(k, i, cap);
    const grnShape* sh = d->shapes + d->sc_shape[slot];
    grnVec3 n = grn_load3(d->sc_normal + 3 * slot);
    float depth = d->sc_depth[slot], share = grn_pj_share(nc, 0), share_t = share;
    grnVec3 u = grn_sub(vi, grn_load3(d->sc_vel + 3 * slot));
    if (d->body_mob && sh->body >= 0) {
      // a coupled body moves with this substep's impulses and takes its share of each change:
      // its mass is split over its contacts as a grain's is, with its compliance along the
      // normal and along the slip
      grnVec3 r = grn_body_arm(d, c, sh, i, n);
      u = grn_sub(u, grn_body_point_dv(d, sh->body, r));
      float split = (float)d->body_nc[sh->body] * c->mass, own = (float)(nc > 1 ? nc : 1);
      share = 1.0f / (own + split * grn_body_compliance(d, sh->body, r, n));
      grnVec3 slip = grn_sub(u, grn_scale(n, grn_dot(u, n)));
      float ns = grn_norm(slip);
      share_t = ns > 0 ? 1.0f / (own + split * grn_body_compliance(d, sh->body, r,
                                                                    grn_scale(slip, 1 / ns)))
                       : share;
    }
    grnVec3 lam = grn_pj_contact(u, n, depth, grn_load3(d->sc_imp + 3 * slot), share, share_t,
                                 sh->friction, c);
    grn_store3(d->sc_imp + 3 * slot, lam);
    total = grn_add(total, lam);
    float b = grn_pj_bias(grn_dot(bi, n), depth, d->sc_bias[slot], share, c);
    d->sc_bias[slot] = b;
    btotal = grn_add(btotal, grn_scale(n, b));
  }
  grn_store3(d->dv_next + 3 * i, total);
  grn_store3(d->dvb_next + 3 * i, btotal);
}

#endif  // MJGRANULAR_GRN_CONTACT_PJ_H_
