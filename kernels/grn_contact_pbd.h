// the position-based model (model pbd; the p2 seed, holz 2014): grains without rotation whose
// contacts are position corrections. each substep predicts every grain's displacement, v dt +
// g dt^2, then runs `iterations` jacobi passes: every contact computes its correction from the
// current displacements, and every grain moves by the average of its touching contacts' shares
// of their corrections (the seed's constraint averaging, which makes the passes parallel; it does
// not conserve momentum between grains of different contact counts, and error reduction, below,
// is the seed's aid to its convergence). at the end the velocity is the displacement over dt.
// without warm starting (the seed has none) the passes converge slowly under heavy loads
// (plugin/README.md, Contact models).
//
// one contact, u the grain's displacement over the substep against its partner's, n the unit
// normal toward the grain at the current positions, z the overlap there:
// - normal: a spring-damper on the position level, the correction k' z - c' (u . n) along n, never
//   pulling. k', c' are the seed's relaxation factors of a spring k (`stiffness`) and damper c
//   (2 zeta sqrt(k m*), zeta from `restitution`) for the pair's reduced mass m*, made
//   independent of the iteration count, so that one contact integrates the spring-damper by
//   implicit euler whatever the number of passes.
// - adhesion: a damper that cancels the separation left after that, up to l_a = dt^2 F_a / m*
//   over the substep, with F_a = adhesion x the seed's interpolated contact area
//   (grn_adhesive_area_of).
// - friction: the slip (u's tangential part) is cancelled while the contact's tangential
//   correction stays within mu_s L_n + l_a (static, L_n its normal correction), else that
//   correction is mu_k L_n + l_a against the slip (kinetic). the seed caps each pass's correction
//   by that pass's normal correction, which is a fraction of the substep's when there are several
//   passes, so a grain at rest would slide as soon as the slope passes the kinetic angle; here
//   the cone bounds the corrections summed over the passes (L_n and the tangential sum), as
//   projected gauss-seidel bounds accumulated impulses, and the adhesive allowance l_a is the
//   substep's, whatever the number of passes.
// error reduction weights a grain's share of a grain contact's correction by 1 - eps (n . down):
// the upper grain moves more. a shape contact takes the shape's friction as the static
// coefficient and the grains' kinetic-to-static ratio for the kinetic one. a body receives the
// impulse of the corrections its contacts gave the grain (m dp / dt, the seed's force m dp / dt^2
// over the substep); a coupled body also answers each pass, as in the default model (grn_body.h):
// it moves by its mobility times the impulses so far, a contact's reduced mass takes the body's
// compliance at the contact point along the normal (its mass split over its contacts, as the
// default model does), and the grain takes its share of the correction, the body the rest
// through those impulses.
//
// sleeping (`sleep` > 0) holds the position of a grain that moved less than `sleep` over the
// substep, unless it is awake: it touches a moving shape, moved `sleep` or more, or touches an
// awake grain (passed on one contact per jacobi pass, so up to `iterations` contacts from a moving
// shape or a moving grain: the grains of a lump carried in a scoop stay awake however slow the
// scoop). a held grain keeps its velocity, so one pushed or left unsupported moves again within a
// few substeps.
#ifndef MJGRANULAR_GRN_CONTACT_PBD_H_
#define MJGRANULAR_GRN_CONTACT_PBD_H_

#include "grn_adhesion.h"
#include "grn_body.h"
#include "grn_collide.h"
#include "grn_data.h"
#include "grn_integrate.h"
#include "grn_pairing.h"

// a contact's corrections summed over the substep's passes so far [m]: normal (spring-damper),
// normal adhesion, tangential. pairs keep them in cp_arm (n, adh) and cp_mom (t), shape contacts
// in sc_rot (n, adh) and sc_lin (t); each substep starts them from zero
typedef struct grnPbdSum_ {
  float n, adh;
  grnVec3 t;
} grnPbdSum;

// a contact's factors for one jacobi pass, from the reduced mass of its relative motion
typedef struct grnPbdCoef_ {
  float k, c;                 // the seed's iteration-independent stiffness and damping factors
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

// the correction of one contact in one pass: the displacement to give the grain against its
// partner [m] (each side takes its share), and its sums *sum advanced. overlap: at the current
// displacements (> 0 touching); n: unit normal toward the grain; u: the grain's displacement
// against the partner's over the substep so far; rmin: the smaller radius (adhesion's area);
// mu_s, mu_k: static and kinetic friction. zero when not touching
GRN_HD grnVec3 grn_pbd_correction(const grnConsts* c, float overlap, grnVec3 n, grnVec3 u,
                                  grnPbdCoef f, float rmin, float mu_s, float mu_k,
                                  grnPbdSum* sum) {
  grnVec3 zero = grn_v3(0, 0, 0);
  if (!(overlap > 0)) return zero;
  float un = grn_dot(u, n);
  float ln = f.k * overlap - f.c * un;
  ln = ln > 0 ? ln : 0.0f;
  sum->n += ln;
  float la = c->adhesion > 0
                 ? c->adhesion * grn_adhesive_area_of(grnMODEL_PBD, overlap, rmin) * f.dt2_m
                 : 0.0f;
  // normal adhesion: the separation left after the spring-damper, cancelled within what is left
  // of the substep's allowance
  float apart = un + ln, left = la - sum->adh;
  float lad = apart > 0 && left > 0 ? (apart < left ? apart : left) : 0.0f;
  sum->adh += lad;
  // friction: the slip cancelled while the summed correction fits the static cone, else the sum
  // at the kinetic bound against it
  grnVec3 slip = grn_sub(u, grn_scale(n, un));
  grnVec3 before = grn_sub(sum->t, grn_scale(n, grn_dot(sum->t, n)));
  grnVec3 want = grn_sub(before, slip);
  float len = grn_norm(want), stick = mu_s * sum->n + la;
  if (len > stick) want = grn_scale(want, (mu_k * sum->n + la) / len);
  sum->t = want;
  return grn_add(grn_scale(n, ln - lad), grn_sub(want, before));
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
    grnVec3 v = grn_load3(d->sc_vel + 3 * GRN_SLOT(k, i, d->cap));
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

// the start of grain i's substep (after its contacts are found): its predicted displacement
// v dt + g dt^2 as the first iterate, its shape contacts' impulses cleared
GRN_HD void grn_pbd_start_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap;
  grnVec3 v = grn_add(grn_load3(d->vel + 3 * i), grn_scale(grn_load3(c->gravity), c->dt));
  grnVec3 zero = grn_v3(0, 0, 0), disp = grn_scale(v, c->dt);
  grn_pbd_store(d->iter, i, disp, grn_pbd_wakes(d, c, i, disp));
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SLOT(k, i, cap);
    grn_store3(d->sc_impulse + 3 * slot, zero);
    grn_store3(d->sc_angular + 3 * slot, zero);
    grn_store3(d->sc_lin + 3 * slot, zero);
    grn_store3(d->sc_rot + 3 * slot, zero);
  }
}

// pair p's factors (grn_pairing.h) into cp_mass: k', c', dt^2 / m* and m* = 1 / (w_i + w_j) (w
// the inverse masses; a grain's share of a correction is w m*); its sums cleared
GRN_HD void grn_pbd_prepare_pair(const grnData* d, const grnConsts* c, int p) {
  size_t q = (size_t)p;
  float meff = 1.0f / (grn_inv_mass(d, d->cp_grain[p]) + grn_inv_mass(d, d->cp_partner[p]));
  grnPbdCoef f = grn_pbd_coef(c, meff);
  d->cp_mass[4 * q] = f.k;
  d->cp_mass[4 * q + 1] = f.c;
  d->cp_mass[4 * q + 2] = f.dt2_m;
  d->cp_mass[4 * q + 3] = meff;
  d->cp_arm[2 * q] = d->cp_arm[2 * q + 1] = 0;
  grn_store3(d->cp_mom + 3 * q, grn_v3(0, 0, 0));
}

// grain i's pairs numbered (grn_pairing.h) and prepared
GRN_HD void grn_pbd_pairs_grain(const grnData* d, const grnConsts* c, int i) {
  int end = grn_number_pairs(d, i);
  for (int p = d->pair_first[i]; p < end; p++) grn_pbd_prepare_pair(d, c, p);
}

// one jacobi pass, first half: pair p's correction from the last iterate into cp_imp, its normal
// into cp_normal, and whether it touches into cp_bias
GRN_HD void grn_pbd_solve_pair(const grnData* d, const grnConsts* c, int p) {
  size_t q = (size_t)p;
  int i = d->cp_grain[p], j = d->cp_partner[p];
  grnVec3 u = grn_sub(grn_iter_v(d->iter, i), grn_iter_v(d->iter, j));
  grnVec3 r = grn_add(grn_sub(grn_load3(d->pos + 3 * i), grn_load3(d->pos + 3 * j)), u);
  float dist = grn_norm(r), ri = grn_radius(d, i), rj = grn_radius(d, j);
  grnVec3 n = dist > 0 ? grn_scale(r, 1.0f / dist) : grn_v3(0, 0, 1);
  float overlap = ri + rj - dist;
  grnPbdCoef f;
  f.k = d->cp_mass[4 * q];
  f.c = d->cp_mass[4 * q + 1];
  f.dt2_m = d->cp_mass[4 * q + 2];
  grnPbdSum sum;
  sum.n = d->cp_arm[2 * q];
  sum.adh = d->cp_arm[2 * q + 1];
  sum.t = grn_load3(d->cp_mom + 3 * q);
  grn_store3(d->cp_imp + 3 * q, grn_pbd_correction(c, overlap, n, u, f, fminf(ri, rj),
                                                   c->friction, c->kinetic_friction, &sum));
  d->cp_arm[2 * q] = sum.n;
  d->cp_arm[2 * q + 1] = sum.adh;
  grn_store3(d->cp_mom + 3 * q, sum.t);
  grn_store3(d->cp_normal + 3 * q, n);
  d->cp_bias[p] = overlap > 0 ? 1.0f : 0.0f;
}

// grain i's share of a grain contact's correction: w_i m*, weighted by error reduction (n toward
// the grain: 1 + eps for the upper grain, 1 - eps for the lower)
GRN_HD float grn_pbd_weight(const grnConsts* c, float share, grnVec3 n) {
  return share * (1.0f - c->error_reduction * grn_dot(n, grn_load3(c->down)));
}

// one jacobi pass for grain i (after every pair's grn_pbd_solve_pair): the average of its
// touching contacts' shares of their corrections added to its displacement, each shape contact's
// part of it also to that contact's impulse on the grain; awake when it wakes by itself or
// touches an awake grain
GRN_HD void grn_pbd_solve_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap, touching = 0;
  grnVec3 sum = grn_v3(0, 0, 0), disp = grn_iter_v(d->iter, i);
  int awake = grn_pbd_awake(d->iter, i);
  float im = grn_inv_mass(d, i);
  for (int k = 0; k < d->npair[i]; k++) {
    int ref = d->pair_ref[GRN_SLOT(k, i, cap)];
    float sign;
    int p = grn_slot_pair(ref, &sign);
    if (p < 0 || d->cp_bias[p] == 0) continue;
    size_t q = (size_t)p;
    grnVec3 n = grn_scale(grn_load3(d->cp_normal + 3 * q), sign);
    float w = grn_pbd_weight(c, im * d->cp_mass[4 * q + 3], n);
    sum = grn_add(sum, grn_scale(grn_load3(d->cp_imp + 3 * q), sign * w));
    touching++;
    awake |= grn_pbd_awake(d->iter, ref >= 0 ? d->cp_partner[p] : d->cp_grain[p]);
  }
  // shapes, moving by sc_vel over the substep (and a coupled body by its answer so far)
  grnVec3 corr[GRN_MAX_SHAPE_CONTACTS];
  float r = grn_radius(d, i);
  float kinetic = c->friction > 0 ? c->kinetic_friction / c->friction : 1.0f;
  grnPbdCoef rigid;  // a powf: only for grains that touch a shape
  if (d->nshape[i] > 0) rigid = grn_pbd_coef(c, 1.0f / im);
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SLOT(k, i, cap);
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
    grnPbdSum acc;
    acc.n = d->sc_rot[3 * slot];
    acc.adh = d->sc_rot[3 * slot + 1];
    acc.t = grn_load3(d->sc_lin + 3 * slot);
    corr[k] = grn_scale(grn_pbd_correction(c, overlap, n, u, f, r, sh->friction,
                                           sh->friction * kinetic, &acc), share);
    d->sc_rot[3 * slot] = acc.n;
    d->sc_rot[3 * slot + 1] = acc.adh;
    grn_store3(d->sc_lin + 3 * slot, acc.t);
    sum = grn_add(sum, corr[k]);
    touching += overlap > 0;
  }
  // the average; the grain's part of a shape contact's correction gives it the impulse m dp / dt
  float avg = touching > 0 ? 1.0f / (float)touching : 0.0f, to_impulse = avg / (im * c->dt);
  for (int k = 0; k < d->nshape[i]; k++) {
    float* imp = d->sc_impulse + 3 * GRN_SLOT(k, i, cap);
    grn_store3(imp, grn_add(grn_load3(imp), grn_scale(corr[k], to_impulse)));
  }
  disp = grn_add(disp, grn_scale(sum, avg));
  grn_pbd_store(d->iter_next, i, disp, awake || grn_pbd_wakes(d, c, i, disp));
}

// grain i's velocity from its displacement over the substep, and the grain moved by it unless it
// sleeps (asleep in the last iterate, and a displacement shorter than `sleep`)
GRN_HD void grn_pbd_integrate_grain(const grnData* d, const grnConsts* c, int i) {
  grnVec3 disp = grn_iter_v(d->iter, i);
  grnVec3 v = grn_scale(disp, 1.0f / c->dt);
  int held = !grn_pbd_awake(d->iter, i) && !grn_pbd_wakes(d, c, i, disp);
  grn_move_grain(d, c, i, v, held ? grn_v3(0, 0, 0) : v, grn_v3(0, 0, 0));
}

#endif  // MJGRANULAR_GRN_CONTACT_PBD_H_
