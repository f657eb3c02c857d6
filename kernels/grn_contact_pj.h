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
#include "grn_collide.h"
#include "grn_data.h"

// share of a relative velocity change that grain i takes in a contact with a partner, by mass
// splitting (tonge et al. 2012): each grain's mass is split evenly among its contacts, so the
// summed jacobi updates of a crowded grain do not overshoot. ci, cj: the two contact counts;
// cj = 0 for a kinematic shape. symmetric in (ci, cj), so pairs stay exactly opposite.
GRN_HD float grn_pj_share(int ci, int cj) {
  int m = ci + cj;
  return 1.0f / (float)(m > 1 ? m : 1);
}

// normal relative velocity a contact aims at: none across a penetration, at most closing a
// speculative gap (depth < 0) within the substep
GRN_HD float grn_pj_target(float depth, const grnConsts* c) {
  return depth > 0 ? 0.0f : depth / c->dt;
}

// normal relative pseudo-velocity the baumgarte impulse aims at: a share of the penetration
// removed per substep
GRN_HD float grn_pj_bias_target(float depth, const grnConsts* c) {
  return depth > 0 ? c->baumgarte * depth / c->dt : 0.0f;
}

// new accumulated velocity impulse of one contact. u: relative velocity of the grain against its
// partner with the current iterate, n: unit normal toward the grain, target: grn_pj_target,
// lam: impulse so far, share, share_t: fraction of a normal, tangential relative velocity change
// the grain takes. the computation is odd in (u, n, lam), so the two grains of a pair compute
// exactly opposite impulses and momentum is conserved. branch-free (the clamps are selects).
GRN_HD grnVec3 grn_pj_impulse(grnVec3 u, grnVec3 n, float target, grnVec3 lam, float share,
                              float share_t, float mu) {
  float un = grn_dot(u, n);
  float lam_n = grn_dot(lam, n);
  grnVec3 lam_t = grn_sub(lam, grn_scale(n, lam_n));
  float new_n = lam_n + share * (target - un);
  new_n = new_n > 0 ? new_n : 0.0f;
  grnVec3 ut = grn_sub(u, grn_scale(n, un));
  grnVec3 new_t = grn_sub(lam_t, grn_scale(ut, share_t));
  float tn = grn_norm(new_t), limit = mu * new_n;
  // outside the cone (then tn > 0): scaled back onto it
  float scale = tn > limit ? limit / tn : 1.0f;
  return grn_add(grn_scale(n, new_n), grn_scale(new_t, scale));
}

// as grn_pj_impulse, from the contact's depth: penetration (> 0) or gap (< 0)
GRN_HD grnVec3 grn_pj_contact(grnVec3 u, grnVec3 n, float depth, grnVec3 lam, float share,
                              float share_t, float mu, const grnConsts* c) {
  return grn_pj_impulse(u, n, grn_pj_target(depth, c), lam, share, share_t, mu);
}

// new accumulated baumgarte impulse of one contact (normal, never pulling). ub: normal relative
// pseudo-velocity with the current iterate; target: grn_pj_bias_target; b: impulse so far.
GRN_HD float grn_pj_bias_impulse(float ub, float target, float b, float share) {
  float nb = b + share * (target - ub);
  return nb > 0 ? nb : 0.0f;
}

// as grn_pj_bias_impulse, from the contact's depth
GRN_HD float grn_pj_bias(float ub, float depth, float b, float share, const grnConsts* c) {
  return grn_pj_bias_impulse(ub, grn_pj_bias_target(depth, c), b, share);
}

// each grain-grain contact is solved once per iteration as a pair (the law is odd, so the
// partner's impulse is exactly the negative): by the grain of lower index when both grains list
// the contact, else by the one that does (the other ran out of slots). building the pairs takes
// two passes over the grains after the narrowphase:
//
// 1. grn_pj_link_grain: which of grain i's contacts it solves (pair_solved), with the partner's
//    slot of each of those (or -1) in pair_ref; how many into pair_count.
// 2. the backend sums pair_count into pair_first (exclusive prefix sum, total in [n]).
// 3. grn_pj_pair_grain: those contacts become pairs pair_first[i], pair_first[i] + 1, ..., and
//    each pair's slots in both grains refer to it. a slot grain i does not solve is written only
//    by its partner here, so pair_ref of those is not read. pairs past the arrays' capacity are
//    dropped (GRN_NO_PAIR) and flagged as overflow.

GRN_HD void grn_pj_link_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap, count = 0;
  unsigned solved = 0;
  for (int k = 0; k < d->npair[i]; k++) {
    size_t slot = GRN_SLOT(k, i, cap);
    int j = d->pair[slot], mirror = -1;
    // i in the partner's list; an ordered list is sorted: stop at the first partner past i
    for (int m = 0; m < d->npair[j]; m++) {
      int p = d->pair[GRN_SLOT(m, j, cap)];
      if (p == i) mirror = (int)GRN_SLOT(m, j, cap);
      if (p == i || (c->ordered && p > i)) break;
    }
    if (j > i || mirror < 0) {
      d->pair_ref[slot] = mirror;
      solved |= 1u << k;
      count++;
    }
  }
  d->pair_solved[i] = solved;
  d->pair_count[i] = count;
}

// pairs of the contacts grain i solves: frame (positions do not change within the substep), share
// and warm-start impulse
GRN_HD void grn_pj_pair_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap, nc = d->ncontact[i], p = d->pair_first[i];
  unsigned solved = d->pair_solved[i];
  grnVec3 xi = grn_load3(d->pos + 3 * i);
  for (int k = 0; k < d->npair[i]; k++) {
    if (!((solved >> k) & 1u)) continue;
    size_t slot = GRN_SLOT(k, i, cap);
    int j = d->pair[slot], mirror = d->pair_ref[slot];
    if (p >= d->cp_cap) {
      d->pair_ref[slot] = GRN_NO_PAIR;
      if (mirror >= 0) d->pair_ref[mirror] = GRN_NO_PAIR;
      d->overflow[0] = 1;
      continue;
    }
    grnVec3 r = grn_sub(xi, grn_load3(d->pos + 3 * j));
    float dist = grn_norm(r);
    d->cp_grain[p] = i;
    d->cp_partner[p] = j;
    grn_store3(d->cp_normal + 3 * (size_t)p,
               dist > 0 ? grn_scale(r, 1.0f / dist) : grn_v3(0, 0, 1));
    float depth = 2 * c->radius - dist;
    d->cp_target[p] = grn_pj_target(depth, c);
    d->cp_bias_target[p] = grn_pj_bias_target(depth, c);
    d->cp_share[p] = grn_pj_share(nc, d->ncontact[j]);
    grn_store3(d->cp_imp + 3 * (size_t)p, grn_load3(d->pair_imp + 3 * slot));
    d->cp_bias[p] = 0;
    d->pair_ref[slot] = p;
    if (mirror >= 0) d->pair_ref[mirror] = -1 - p;
    p++;
  }
}

// one jacobi iteration, first half: the impulses of pair p from the last iterate
GRN_HD void grn_pj_solve_pair(const grnData* d, const grnConsts* c, int p) {
  int i = d->cp_grain[p], j = d->cp_partner[p];
  grnVec3 n = grn_load3(d->cp_normal + 3 * (size_t)p);
  float share = d->cp_share[p];
  grnVec3 u = grn_sub(grn_iter_v(d->iter, i), grn_iter_v(d->iter, j));
  grnVec3 lam = grn_pj_impulse(u, n, d->cp_target[p], grn_load3(d->cp_imp + 3 * (size_t)p),
                               share, share, c->friction);
  grn_store3(d->cp_imp + 3 * (size_t)p, lam);
  float ub = grn_dot(grn_sub(grn_iter_b(d->iter, i), grn_iter_b(d->iter, j)), n);
  d->cp_bias[p] = grn_pj_bias_impulse(ub, d->cp_bias_target[p], d->cp_bias[p], share);
}

// impulse and baumgarte contribution of grain i's slot whose pair reference is ref
GRN_HD void grn_pj_slot_impulse(const grnData* d, int ref, grnVec3* lam, grnVec3* bias) {
  if (ref == GRN_NO_PAIR) {
    *lam = *bias = grn_v3(0, 0, 0);
    return;
  }
  int p = ref >= 0 ? ref : -1 - ref;
  float sign = ref >= 0 ? 1.0f : -1.0f;
  *lam = grn_scale(grn_load3(d->cp_imp + 3 * (size_t)p), sign);
  *bias = grn_scale(grn_scale(grn_load3(d->cp_normal + 3 * (size_t)p), sign), d->cp_bias[p]);
}

// grain i's impulses from its grain contacts in this iteration, summed in slot order. split
// passes (default): its pairs' impulses, solved before by grn_pj_solve_pair. one loop
// (c->one_loop, the seeds' ONELOOP): the grain finds its contacts again (the same as the
// narrowphase's, in the same order) and solves each from its own side here, frame included; the
// results are bit for bit those of the split passes
GRN_HD void grn_pj_grain_impulses(const grnData* d, const grnConsts* c, int i, grnVec3 vi,
                                  grnVec3 bi, grnVec3* total, grnVec3* btotal) {
  int cap = d->cap, nc = d->ncontact[i];
  *total = *btotal = grn_v3(0, 0, 0);
  if (!c->one_loop) {
    for (int k = 0; k < d->npair[i]; k++) {
      grnVec3 lam, bias;
      grn_pj_slot_impulse(d, d->pair_ref[GRN_SLOT(k, i, cap)], &lam, &bias);
      *total = grn_add(*total, lam);
      *btotal = grn_add(*btotal, bias);
    }
    return;
  }
  int partner[GRN_MAX_PAIRS];
  int found = grn_grain_contacts(d, c, i, partner, 1, GRN_MAX_PAIRS);
  int count = found < GRN_MAX_PAIRS ? found : GRN_MAX_PAIRS;
  grnVec3 xi = grn_load3(d->pos + 3 * i);
  for (int k = 0; k < count; k++) {
    size_t slot = GRN_SLOT(k, i, cap);
    int j = partner[k];
    grnVec3 r = grn_sub(xi, grn_load3(d->pos + 3 * j));
    float dist = grn_norm(r), depth = 2 * c->radius - dist;
    grnVec3 n = dist > 0 ? grn_scale(r, 1.0f / dist) : grn_v3(0, 0, 1);
    float share = grn_pj_share(nc, d->ncontact[j]);
    grnVec3 lam = grn_pj_contact(grn_sub(vi, grn_iter_v(d->iter, j)), n, depth,
                                 grn_load3(d->pair_imp + 3 * slot), share, share, c->friction, c);
    grn_store3(d->pair_imp + 3 * slot, lam);
    float ub = grn_dot(grn_sub(bi, grn_iter_b(d->iter, j)), n);
    float b = grn_pj_bias(ub, depth, d->pair_bias[slot], share, c);
    d->pair_bias[slot] = b;
    *total = grn_add(*total, lam);
    *btotal = grn_add(*btotal, grn_scale(n, b));
  }
}

// one jacobi iteration for grain i (split passes: after every pair's grn_pj_solve_pair): its
// impulses from its grain contacts, then from its shape contacts, summed into the next iterate
GRN_HD void grn_pj_solve_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap, nc = d->ncontact[i];
  grnVec3 vi = grn_iter_v(d->iter, i), bi = grn_iter_b(d->iter, i);
  grnVec3 total, btotal;
  grn_pj_grain_impulses(d, c, i, vi, bi, &total, &btotal);
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
  grn_store_iter(d->iter_next, i, grn_add(grn_load3(d->vpred + 3 * i), total), btotal);
}

// grain i's final pair impulses back into its slots (the warm start of the next substep; one
// loop keeps them there all along)
GRN_HD void grn_pj_store_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap;
  if (c->one_loop) return;
  for (int k = 0; k < d->npair[i]; k++) {
    size_t slot = GRN_SLOT(k, i, cap);
    grnVec3 lam, bias;
    grn_pj_slot_impulse(d, d->pair_ref[slot], &lam, &bias);
    grn_store3(d->pair_imp + 3 * slot, lam);
  }
}

#endif  // MJGRANULAR_GRN_CONTACT_PJ_H_
