// the pbd model's passes as the p2 seed makes them (pbd_passes averaged): constraint averaging.
// each pass every contact computes its correction from the current displacements as if it were
// alone, and every grain moves by the average of its touching contacts' shares of their
// corrections; each substep starts every contact from zero (the seed carries nothing). this
// reproduces the seed's figures, error reduction's (its fig. 5) among them; it is not the
// default because the average is not a momentum balance: a grain with n contacts answers them as
// if n times heavier, so a body on a bed is held by a fraction of what its contacts push with and
// the passes converge slowly under a load (plugin/README.md, "Contact models").
//
// one contact, u the grain's displacement over the substep against its partner's, n the unit
// normal toward the grain at the current positions, z the overlap there:
// - normal: the correction k' z - c' (u . n) along n, never pulling; k', c' are the seed's
//   relaxation factors of a spring k (`stiffness`) and damper c (2 zeta sqrt(k m*), zeta from
//   `restitution`, m* the pair's reduced mass), made independent of the number of passes so that
//   one contact alone integrates the spring-damper by implicit euler.
// - adhesion: the separation left after that cancelled up to l_a = dt^2 F_a / m* over the
//   substep, F_a = adhesion x the seed's interpolated contact area (grn_adhesive_area_of).
// - friction: the slip cancelled while the contact's tangential correction stays within
//   mu_s L_n + l_a (static, L_n its normal correction), else that correction is mu_k L_n + l_a
//   against the slip (kinetic). the cone bounds the corrections summed over the passes, not each
//   pass's (the seed's per-pass cap lets a grain at rest slide above the kinetic angle as soon as
//   there are several passes).
// error reduction weights a grain's share of a grain contact's correction by 1 - eps (n . down).
// a body receives the impulse of the corrections its contacts give the grain (m dp / dt, the
// seed's force m dp / dt^2 over the substep); a coupled body answers each pass as in the newton
// passes, its compliance at the contact point in the contact's reduced mass.
#ifndef MJGRANULAR_GRN_PBD_AVERAGED_H_
#define MJGRANULAR_GRN_PBD_AVERAGED_H_

#include "grn_adhesion.h"
#include "grn_body.h"
#include "grn_collide.h"
#include "grn_data.h"
#include "grn_pairing.h"
#include "grn_pbd_common.h"

// a contact's factors for one pass, from the reduced mass of its relative motion
typedef struct grnPbdCoef_ {
  float k, c;                 // the seed's pass-count-independent stiffness and damping factors
  float dt2_m;                // dt^2 / m*: displacement per unit force over a substep [m / N]
} grnPbdCoef;

// the factors of a contact of reduced mass meff. with a = dt c / m*, b = dt^2 k / m*, one pass
// of factors kpb = b / (1 + a + b), cpb = a / (1 + a + b) is implicit euler (seed eq. 21); n
// passes shrink the free part alpha = 1 - kpb - cpb to alpha^n, so each pass uses
// k' = 1 - cpb s - alpha^(1/n), c' = cpb s with s = (1 - alpha^(1/n)) / (1 - alpha) (eq. 28)
GRN_HD grnPbdCoef grn_pbd_coef(const grnConsts* c, float meff) {
  grnPbdCoef f;
  float dt = c->dt, k = c->dem.stiffness;
  float a = 2.0f * c->dem.damping * sqrtf(k / meff) * dt, b = dt * dt * k / meff;
  float kpb = b / (1 + a + b), cpb = a / (1 + a + b), alpha = 1 / (1 + a + b);
  float root = powf(alpha, 1.0f / (float)c->iterations);
  float s = 1 - alpha > 1e-6f ? (1 - root) / (1 - alpha) : 1.0f / (float)c->iterations;
  f.k = kpb > 0 ? 1 - cpb * s - root : 0.0f;
  f.c = cpb * s;
  f.dt2_m = dt * dt / meff;
  return f;
}

// one contact's correction in one pass: the displacement to give the grain against its partner
// [m] (each side takes its share), its summed corrections *sum advanced. overlap: at the current
// displacements (> 0 touching); n: unit normal toward the grain; u: the grain's displacement
// against the partner's so far; rmin: the smaller radius (adhesion's area); mu_s, mu_k: static
// and kinetic friction. zero when not touching
GRN_HD grnVec3 grn_pbd_correction(const grnConsts* c, float overlap, grnVec3 n, grnVec3 u,
                                  grnPbdCoef f, float rmin, float mu_s, float mu_k,
                                  grnPbdParts* sum) {
  if (!(overlap > 0)) return grn_v3(0, 0, 0);
  float un = grn_dot(u, n);
  float ln = f.k * overlap - f.c * un;
  ln = ln > 0 ? ln : 0.0f;
  sum->n += ln;
  float la = c->adhesion > 0
                 ? c->adhesion * grn_adhesive_area_of(grnMODEL_PBD, overlap, rmin) * f.dt2_m
                 : 0.0f;
  // the separation left after the spring-damper, cancelled within what is left of the allowance
  float apart = un + ln, left = la - sum->adh;
  float lad = apart > 0 && left > 0 ? (apart < left ? apart : left) : 0.0f;
  sum->adh += lad;
  grnVec3 slip = grn_sub(u, grn_scale(n, un));
  grnVec3 before = grn_sub(sum->t, grn_scale(n, grn_dot(sum->t, n)));
  grnVec3 want = grn_sub(before, slip);
  float len = grn_norm(want);
  if (len > mu_s * sum->n + la) want = grn_scale(want, (mu_k * sum->n + la) / len);
  sum->t = want;
  return grn_add(grn_scale(n, ln - lad), grn_sub(want, before));
}

// the start of grain i's substep: its predicted displacement v dt + g dt^2 as the first iterate,
// its shape contacts' sums and impulses cleared
GRN_HD void grn_pbd_averaged_start_grain(const grnData* d, const grnConsts* c, int i) {
  grnVec3 v = grn_add(grn_load3(d->vel + 3 * i), grn_scale(grn_load3(c->gravity), c->dt));
  grnVec3 zero = grn_v3(0, 0, 0), disp = grn_scale(v, c->dt);
  grnPbdParts none = {0, 0, {0, 0, 0}};
  grn_pbd_store(d->iter, i, disp, grn_pbd_wakes(d, c, i, disp));
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SHAPE_SLOT(k, i, d->cap);
    grn_store3(d->sc_impulse + 3 * slot, zero);
    grn_store3(d->sc_angular + 3 * slot, zero);
    grn_pbd_put_state(d->sc_rot, d->sc_lin, slot, &none);
  }
}

// pair p's factors into cp_mass: k', c', dt^2 / m* and m* = 1 / (w_i + w_j) (w the inverse
// masses; a grain's share of a correction is w m*); its sums cleared
GRN_HD void grn_pbd_averaged_prepare_pair(const grnData* d, const grnConsts* c, int p) {
  size_t q = (size_t)p;
  float meff = 1.0f / (grn_inv_mass(d, d->cp_grain[p]) + grn_inv_mass(d, d->cp_partner[p]));
  grnPbdCoef f = grn_pbd_coef(c, meff);
  d->cp_mass[4 * q] = f.k;
  d->cp_mass[4 * q + 1] = f.c;
  d->cp_mass[4 * q + 2] = f.dt2_m;
  d->cp_mass[4 * q + 3] = meff;
  grnPbdParts none = {0, 0, {0, 0, 0}};
  grn_pbd_put_pair_parts(d, q, &none);
}

// one pass, first half: pair p's correction from the last iterate into cp_imp
GRN_HD void grn_pbd_averaged_solve_pair(const grnData* d, const grnConsts* c, int p) {
  size_t q = (size_t)p;
  grnPbdPairAt at = grn_pbd_pair_at(d, p);
  grnPbdCoef f;
  f.k = d->cp_mass[4 * q];
  f.c = d->cp_mass[4 * q + 1];
  f.dt2_m = d->cp_mass[4 * q + 2];
  grnPbdParts sum = grn_pbd_pair_parts(d, q);
  grn_store3(d->cp_imp + 3 * q, grn_pbd_correction(c, at.overlap, at.n, at.u, f, at.rmin,
                                                   c->friction, c->kinetic_friction, &sum));
  grn_pbd_put_pair_parts(d, q, &sum);
}

// one pass for grain i (after every pair's first half): the average of its touching contacts'
// shares of their corrections added to its displacement (a grain contact's share w_i m*, weighted
// by error reduction), each shape contact's part of it also to that contact's impulse on the
// grain; awake when it wakes by itself or touches an awake grain
GRN_HD void grn_pbd_averaged_solve_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap, touching = 0;
  grnVec3 sum = grn_v3(0, 0, 0), disp = grn_iter_v(d->iter, i);
  int awake = grn_pbd_awake(d->iter, i);
  float im = grn_inv_mass(d, i);
  for (int k = 0; k < d->npair[i]; k++) {
    int ref = d->pair_ref[GRN_PAIR_SLOT(k, i, cap)];
    float sign;
    int p = grn_slot_pair(ref, &sign);
    if (p < 0 || d->cp_bias[p] == 0) continue;
    size_t q = (size_t)p;
    grnVec3 n = grn_scale(grn_load3(d->cp_normal + 3 * q), sign);
    float w = im * d->cp_mass[4 * q + 3] * grn_pbd_weight(c, n);
    sum = grn_add(sum, grn_scale(grn_load3(d->cp_imp + 3 * q), sign * w));
    touching++;
    awake |= grn_pbd_awake(d->iter, ref >= 0 ? d->cp_partner[p] : d->cp_grain[p]);
  }
  // shapes, moving by sc_vel over the substep (and a coupled body by its answer so far)
  grnVec3 corr[GRN_MAX_SHAPE_CONTACTS];
  float r = grn_radius(d, i);
  float kinetic = c->friction > 0 ? c->kinetic_friction / c->friction : 1.0f;
  grnPbdCoef rigid = grn_pbd_coef(c, 1.0f / im);
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SHAPE_SLOT(k, i, cap);
    const grnShape* sh = d->shapes + d->sc_shape[slot];
    grnVec3 n = grn_load3(d->sc_normal + 3 * slot);
    grnVec3 u = grn_sub(disp, grn_scale(grn_load3(d->sc_vel + 3 * slot), c->dt));
    grnPbdCoef f = rigid;
    float share = 1;
    if (d->body_mob && sh->body >= 0) {
      grnVec3 arm = grn_body_arm(d, sh, i, n);
      u = grn_sub(u, grn_scale(grn_body_point_dv(d, sh->body, arm), c->dt));
      float body = (float)d->body_nc[sh->body] * grn_body_compliance(d, sh->body, arm, n);
      f = grn_pbd_coef(c, 1.0f / (im + body));
      share = im / (im + body);
    }
    float overlap = d->sc_depth[slot] - grn_dot(u, n);
    grnPbdParts acc = grn_pbd_state(d->sc_rot, d->sc_lin, slot);
    corr[k] = grn_scale(grn_pbd_correction(c, overlap, n, u, f, r, sh->friction,
                                           sh->friction * kinetic, &acc), share);
    grn_pbd_put_state(d->sc_rot, d->sc_lin, slot, &acc);
    sum = grn_add(sum, corr[k]);
    touching += overlap > 0;
  }
  // the average; the grain's part of a shape contact's correction gives it the impulse m dp / dt
  float avg = touching > 0 ? 1.0f / (float)touching : 0.0f, to_impulse = avg / (im * c->dt);
  for (int k = 0; k < d->nshape[i]; k++) {
    float* imp = d->sc_impulse + 3 * GRN_SHAPE_SLOT(k, i, cap);
    grn_store3(imp, grn_add(grn_load3(imp), grn_scale(corr[k], to_impulse)));
  }
  disp = grn_add(disp, grn_scale(sum, avg));
  grn_pbd_store(d->iter_next, i, disp, awake || grn_pbd_wakes(d, c, i, disp));
}

#endif  // MJGRANULAR_GRN_PBD_AVERAGED_H_
