// the position-based model (model pbd; after the p2 seed, holz 2014): grains without rotation
// whose contacts are visco-elastic springs solved on the position level. each substep predicts
// every grain's displacement, v dt + g dt^2, then runs `iterations` jacobi passes in which every
// contact moves its impulses toward its law at the current displacements and every grain moves by
// what the changes give it; at the end the velocity is the displacement over dt.
//
// one contact, u the grain's displacement over the substep against its partner's, n the unit
// normal toward the grain at the current positions, z the overlap there:
// - normal: a spring k (`stiffness`) and damper c (2 zeta sqrt(k m*), zeta from `restitution`,
//   m* the pair's reduced mass) integrated by implicit euler: the impulse dt k z - c (u . n) at
//   the substep's end positions, never pulling (the seed's eq. 19).
// - adhesion: an impulse against n that cancels the separation left after that, up to dt F_a,
//   F_a = adhesion x the seed's interpolated contact area (grn_adhesive_area_of).
// - friction: the slip (u's tangential part) is cancelled while the tangential impulse stays
//   within mu_s p_n + dt F_a (static), else it is mu_k p_n + dt F_a against the slip (kinetic).
// the seed solves this by constraint averaging (pbd_passes averaged: grn_pbd_averaged.h), which
// is not a momentum balance and never converges under a load from corrections started from zero
// each substep (measured: a 1 kPa box sank 13 mm into a bed of 4 mm grains and kept moving; the
// force on a blade grew as depth^0.3 and by 71% at 4x the speed). the default passes
// (pbd_passes newton) solve the same laws as projected jacobi solves hard contacts:
// each contact keeps its impulses, a pass moves them by a newton step on the contact alone with
// each grain's inverse mass multiplied by its contact count (mass splitting, which keeps the
// passes of a grain's contacts together from overshooting), clamped to the law's bounds
// (normal >= 0, adhesion in [0, dt F_a], the friction cone on the accumulated impulses), and a
// grain moves by its inverse mass times the impulses' changes: momentum is conserved, a contact's
// impulse is what its partner receives, and the impulses at the substep's end start the next (the
// warm start, carried in plugin_state), so a load at rest is held from the first pass.
// error reduction (`error_reduction`, the seed's epsilon) weights a grain's part of a pass's
// change of a grain contact's impulse by 1 - eps (n . down), so the upper grain moves more; it
// weights the changes only, never the impulses carried or a body's. a shape contact takes the
// shape's friction as the static coefficient and the grains' kinetic-to-static ratio for the
// kinetic one. a body receives minus its contacts' impulses on the grains; a coupled body answers
// each pass, as in the default model (grn_body.h): it moves by its mobility times the impulses
// so far, and a contact's reduced mass and split mass take the body's compliance at the contact
// point along the normal (the body's split over its contacts).
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
#include "grn_pbd_averaged.h"
#include "grn_pbd_common.h"

// a contact's impulse on the grain as a vector
GRN_HD grnVec3 grn_pbd_total(grnVec3 n, const grnPbdParts* p) {
  return grn_add(grn_scale(n, p->n - p->adh), p->t);
}

// the damping coefficient of a contact of reduced mass meff: 2 zeta sqrt(k m*) [N s / m]
GRN_HD float grn_pbd_damping(const grnConsts* c, float meff) {
  return 2.0f * c->dem.damping * sqrtf(c->dem.stiffness * meff);
}

// one pass of one contact: its impulses *p moved toward the substep's implicit euler spring-damper
// with friction and adhesion, by a newton step on the contact alone in which each side takes the
// impulse on its split mass (to_disp: the relative displacement per unit impulse with each body's
// inverse mass times its contact count, so that the passes of a grain's contacts together do not
// overshoot); returns the change of the impulse vector on the grain. overlap: at the current
// displacements (> 0 touching); n: unit normal toward the grain; u: the grain's displacement
// against its partner's over the substep so far; damp: its damping coefficient
// (grn_pbd_damping); rmin: the smaller radius (adhesion's area); mu_s, mu_k: static and kinetic
// friction.
// the spring pushes with dt (k z - c u.n / dt) at the end of the substep, never pulling; adhesion
// cancels the separation left after it with up to dt a A(z); the slip is cancelled while the
// tangential impulse fits mu_s p_n + dt a A, else it is mu_k p_n + dt a A against the slip
GRN_HD grnVec3 grn_pbd_update(const grnConsts* c, float overlap, grnVec3 n, grnVec3 u, float damp,
                              float to_disp, float rmin, float mu_s, float mu_k,
                              grnPbdParts* p) {
  float dt = c->dt, k = c->dem.stiffness;
  grnVec3 before = grn_pbd_total(n, p);
  float un = grn_dot(u, n);
  grnVec3 slip = grn_sub(u, grn_scale(n, un));
  if (overlap > 0 || p->n > 0) {
    float target = dt * k * overlap - damp * un, grow = (dt * k + damp) * to_disp;
    float pn = (target + grow * p->n) / (1 + grow);
    pn = pn > 0 ? pn : 0.0f;
    un += to_disp * (pn - p->n);
    p->n = pn;
  }
  float la = c->adhesion > 0 ? dt * c->adhesion * grn_adhesive_area_of(grnMODEL_PBD, overlap, rmin)
                             : 0.0f;
  float adh = p->adh + un / to_disp;
  p->adh = adh < 0 ? 0.0f : (adh > la ? la : adh);
  grnVec3 t = grn_sub(p->t, grn_scale(n, grn_dot(p->t, n)));
  t = grn_sub(t, grn_scale(slip, 1.0f / to_disp));
  float len = grn_norm(t);
  if (len > mu_s * p->n + la) t = grn_scale(t, (mu_k * p->n + la) / len);
  p->t = t;
  return grn_sub(grn_pbd_total(n, p), before);
}

// the relative displacement per unit impulse of grain i against a partner of split inverse mass
// w_partner, each side's inverse mass times its contact count: dt (n_i w_i + w_partner)
GRN_HD float grn_pbd_to_disp(const grnData* d, const grnConsts* c, int i, float w_partner) {
  return c->dt * ((float)d->ncontact[i] * grn_inv_mass(d, i) + w_partner);
}

// the start of grain i's substep (after its contacts are found and their impulses carried over):
// the first iterate is its predicted displacement v dt + g dt^2 plus what the last substep's
// impulses of its contacts give it (the warm start), each shape contact's impulse as the body's
GRN_HD void grn_pbd_start_grain(const grnData* d, const grnConsts* c, int i) {
  if (c->pbd_passes == grnPBD_AVERAGED) {
    grn_pbd_averaged_start_grain(d, c, i);
    return;
  }
  int cap = d->cap;
  grnVec3 v = grn_add(grn_load3(d->vel + 3 * i), grn_scale(grn_load3(c->gravity), c->dt));
  grnVec3 imp = grn_v3(0, 0, 0), zero = imp;
  for (int k = 0; k < d->npair[i]; k++) {
    size_t slot = GRN_PAIR_SLOT(k, i, cap);
    grnPbdParts p = grn_pbd_state(d->pair_rot, d->pair_lin, slot);
    imp = grn_add(imp, grn_pbd_total(grn_pair_frame(d, i, d->pair[slot]).n, &p));
  }
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SHAPE_SLOT(k, i, cap);
    grnPbdParts p = grn_pbd_state(d->sc_rot, d->sc_lin, slot);
    grnVec3 total = grn_pbd_total(grn_load3(d->sc_normal + 3 * slot), &p);
    grn_store3(d->sc_impulse + 3 * slot, total);
    grn_store3(d->sc_angular + 3 * slot, zero);
    imp = grn_add(imp, total);
  }
  v = grn_add(v, grn_scale(imp, grn_inv_mass(d, i)));
  grnVec3 disp = grn_scale(v, c->dt);
  grn_pbd_store(d->iter, i, disp, grn_pbd_wakes(d, c, i, disp));
}

// pair p's damping coefficient and relative displacement per unit impulse into cp_mass, its carried
// impulses (from the solving grain's slot) into cp_arm (n, adh) and cp_mom (t)
GRN_HD void grn_pbd_prepare_pair(const grnData* d, const grnConsts* c, int p) {
  size_t q = (size_t)p;
  int i = d->cp_grain[p], j = d->cp_partner[p];
  float wj = grn_inv_mass(d, j);
  d->cp_mass[4 * q] = grn_pbd_damping(c, 1.0f / (grn_inv_mass(d, i) + wj));
  d->cp_mass[4 * q + 1] = grn_pbd_to_disp(d, c, i, (float)d->ncontact[j] * wj);
  grnPbdParts imp =
      grn_pbd_state(d->pair_rot, d->pair_lin, GRN_PAIR_SLOT(d->cp_slot[p], i, d->cap));
  grn_pbd_put_pair_parts(d, q, &imp);
}

// grain i's pairs numbered (grn_pairing.h) and prepared
GRN_HD void grn_pbd_pairs_grain(const grnData* d, const grnConsts* c, int i) {
  int end = grn_number_pairs(d, i);
  for (int p = d->pair_first[i]; p < end; p++) {
    if (c->pbd_passes == grnPBD_AVERAGED) {
      grn_pbd_averaged_prepare_pair(d, c, p);
    } else {
      grn_pbd_prepare_pair(d, c, p);
    }
  }
}

// one jacobi pass, first half: pair p's impulses advanced from the last iterate, the change of
// the impulse on its grain into cp_imp
GRN_HD void grn_pbd_solve_pair(const grnData* d, const grnConsts* c, int p) {
  if (c->pbd_passes == grnPBD_AVERAGED) {
    grn_pbd_averaged_solve_pair(d, c, p);
    return;
  }
  size_t q = (size_t)p;
  grnPbdPairAt at = grn_pbd_pair_at(d, p);
  grnPbdParts imp = grn_pbd_pair_parts(d, q);
  grn_store3(d->cp_imp + 3 * q,
             grn_pbd_update(c, at.overlap, at.n, at.u, d->cp_mass[4 * q], d->cp_mass[4 * q + 1],
                            at.rmin, c->friction, c->kinetic_friction, &imp));
  grn_pbd_put_pair_parts(d, q, &imp);
}

// one jacobi pass for grain i (after every pair's grn_pbd_solve_pair): its displacement moved by
// its pairs' changes of impulse and by its shape contacts' (advanced here); awake when it wakes
// by itself or touches an awake grain
GRN_HD void grn_pbd_solve_grain(const grnData* d, const grnConsts* c, int i) {
  if (c->pbd_passes == grnPBD_AVERAGED) {
    grn_pbd_averaged_solve_grain(d, c, i);
    return;
  }
  int cap = d->cap;
  grnVec3 sum = grn_v3(0, 0, 0), disp = grn_iter_v(d->iter, i);
  int awake = grn_pbd_awake(d->iter, i);
  float im = grn_inv_mass(d, i);
  for (int k = 0; k < d->npair[i]; k++) {
    int ref = d->pair_ref[GRN_PAIR_SLOT(k, i, cap)];
    float sign;
    int p = grn_slot_pair(ref, &sign);
    if (p < 0) continue;
    size_t q = (size_t)p;
    grnVec3 n = grn_scale(grn_load3(d->cp_normal + 3 * q), sign);
    sum = grn_add(sum, grn_scale(grn_load3(d->cp_imp + 3 * q), sign * grn_pbd_weight(c, n)));
    if (d->cp_bias[p] != 0)
      awake |= grn_pbd_awake(d->iter, ref >= 0 ? d->cp_partner[p] : d->cp_grain[p]);
  }
  // shapes, moving by sc_vel over the substep (and a coupled body by its answer so far)
  float r = grn_radius(d, i), rigid = d->nshape[i] > 0 ? grn_pbd_damping(c, 1.0f / im) : 0.0f;
  float kinetic = c->friction > 0 ? c->kinetic_friction / c->friction : 1.0f;
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SHAPE_SLOT(k, i, cap);
    const grnShape* sh = d->shapes + d->sc_shape[slot];
    grnVec3 n = grn_load3(d->sc_normal + 3 * slot);
    grnVec3 u = grn_sub(disp, grn_scale(grn_load3(d->sc_vel + 3 * slot), c->dt));
    float damp = rigid, body = 0;
    if (d->body_mob && sh->body >= 0) {
      grnVec3 arm = grn_body_arm(d, sh, i, n);
      u = grn_sub(u, grn_scale(grn_body_point_dv(d, sh->body, arm), c->dt));
      float w = grn_body_compliance(d, sh->body, arm, n);
      damp = grn_pbd_damping(c, 1.0f / (im + w));
      body = (float)d->body_nc[sh->body] * w;
    }
    float overlap = d->sc_depth[slot] - grn_dot(u, n);
    grnPbdParts imp = grn_pbd_state(d->sc_rot, d->sc_lin, slot);
    sum = grn_add(sum, grn_pbd_update(c, overlap, n, u, damp, grn_pbd_to_disp(d, c, i, body), r,
                                      sh->friction, sh->friction * kinetic, &imp));
    grn_pbd_put_state(d->sc_rot, d->sc_lin, slot, &imp);
    grn_store3(d->sc_impulse + 3 * slot, grn_pbd_total(n, &imp));
  }
  disp = grn_add(disp, grn_scale(sum, im * c->dt));
  grn_pbd_store(d->iter_next, i, disp, awake || grn_pbd_wakes(d, c, i, disp));
}

// grain i's velocity from its displacement over the substep, and the grain moved by it unless it
// sleeps (asleep in the last iterate, and a displacement shorter than `sleep`); its pairs'
// impulses back into its slots (the next substep's warm start; the partner's slot holds the
// tangential impulse on the partner). the averaged passes carry nothing: their slots hold zeros
GRN_HD void grn_pbd_integrate_grain(const grnData* d, const grnConsts* c, int i) {
  grnVec3 disp = grn_iter_v(d->iter, i);
  grnVec3 v = grn_scale(disp, 1.0f / c->dt);
  int held = !grn_pbd_awake(d->iter, i) && !grn_pbd_wakes(d, c, i, disp);
  grn_move_grain(d, c, i, v, held ? grn_v3(0, 0, 0) : v, grn_v3(0, 0, 0));
  for (int k = 0; k < d->npair[i]; k++) {
    size_t slot = GRN_PAIR_SLOT(k, i, d->cap);
    float sign;
    int p = grn_slot_pair(d->pair_ref[slot], &sign);
    grnPbdParts imp = {0, 0, {0, 0, 0}};
    if (p >= 0 && c->pbd_passes == grnPBD_NEWTON) {
      imp = grn_pbd_pair_parts(d, (size_t)p);
      imp.t = grn_scale(imp.t, sign);
    }
    grn_pbd_put_state(d->pair_rot, d->pair_lin, slot, &imp);
  }
  for (int k = 0; k < d->nshape[i] && c->pbd_passes == grnPBD_AVERAGED; k++) {
    grnPbdParts none = {0, 0, {0, 0, 0}};
    grn_pbd_put_state(d->sc_rot, d->sc_lin, GRN_SHAPE_SLOT(k, i, d->cap), &none);
  }
}

#endif  // MJGRANULAR_GRN_CONTACT_PBD_H_
