// projected jacobi hard contact (the default contact model): one iteration for one grain.
//
// each contact carries two impulses. the velocity impulse makes the grains stop approaching
// (or, across a speculative gap, approach at most gap / dt), opposes sliding and stays inside the
// coulomb cone. the baumgarte impulse (normal, >= 0) pushes penetrating grains apart at
// baumgarte * depth / dt; it moves positions in this substep only and is not kept as velocity
// (split impulse), so correcting penetration never adds kinetic energy to a resting pile.
//
// with adhesion, a touching contact may pull: its normal impulse goes down to minus the adhesive
// force (adhesion x grn_adhesive_area_of) times dt, and that impulse is added to the friction cap
// and to the load of the rolling and torsional bounds (the bond holds the contact as a load would).
#ifndef MJGRANULAR_GRN_CONTACT_PJ_H_
#define MJGRANULAR_GRN_CONTACT_PJ_H_

#include "grn_adhesion.h"
#include "grn_body.h"
#include "grn_clump.h"
#include "grn_collide.h"
#include "grn_data.h"
#include "grn_pairing.h"

// the split masses of one contact (mass splitting, tonge et al. 2012): each grain's mass and
// inertia are split evenly among its contacts, so the summed jacobi updates of a crowded grain do
// not overshoot. with ci, cj the contact counts of the two grains and im, ii their inverse masses
// and inertias, the compliances are
//   normal      kn = ci im_i + cj im_j
//   tangential  kt = ci (im_i + arm_i^2 ii_i) + cj (im_j + arm_j^2 ii_j)   (the spin it causes)
//   angular     kr = ci ii_i + cj ii_j
// and a tangential impulse p changes the relative angular velocity by -spin (n x p), with
// spin = ci ii_i arm_i - cj ii_j arm_j. symmetric in the two grains (spin odd), so the two grains
// of a pair compute exactly opposite impulses and momentum is conserved.
typedef struct grnPjMass_ {
  float n, t, r;              // effective masses: 1 / kn, 1 / kt, 1 / kr
  float spin;                 // spin coupling (above)
} grnPjMass;

// each side of a contact: its split inverse mass, inverse inertia and arm
GRN_HD grnPjMass grn_pj_mass(float im_i, float ii_i, float arm_i, float im_j, float ii_j,
                             float arm_j) {
  grnPjMass m;
  m.n = 1.0f / (im_i + im_j);
  m.t = 1.0f / ((im_i + arm_i * arm_i * ii_i) + (im_j + arm_j * arm_j * ii_j));
  float kr = ii_i + ii_j;
  m.r = kr > 0 ? 1.0f / kr : 0.0f;
  m.spin = ii_i * arm_i - ii_j * arm_j;
  return m;
}

// the split masses of a contact of spheres of clumps, from each side's contact count c,
// compliances kn, kt (grn_clump_compliance) and inverse inertia ii; roll: 1 when the contact has
// rolling and torsional bounds (else no angular mass or spin: a clump of several spheres rolls
// by its shape)
GRN_HD grnPjMass grn_pj_clump_mass(int roll, float ci, float kn_i, float kt_i, float ii_i,
                                   float arm_i, float cj, float kn_j, float kt_j, float ii_j,
                                   float arm_j) {
  grnPjMass m;
  m.n = 1.0f / (ci * kn_i + cj * kn_j);
  m.t = 1.0f / (ci * kt_i + cj * kt_j);
  m.r = roll ? 1.0f / (ci * ii_i + cj * ii_j) : 0.0f;
  m.spin = roll ? ci * ii_i * arm_i - cj * ii_j * arm_j : 0.0f;
  return m;
}

// the split masses of grain i's contact with grain j (c: their contact counts)
GRN_HD grnPjMass grn_pj_pair_mass(const grnData* d, const grnConsts* c, int i, int j,
                                  grnPairFrame f) {
  float ci = (float)d->ncontact[i], cj = (float)d->ncontact[j];
  if (c->clumps) {
    float kn_i, kt_i, kn_j, kt_j;
    grn_clump_compliance(d, i, f.n, f.arm_i, &kn_i, &kt_i);
    grn_clump_compliance(d, j, grn_scale(f.n, -1.0f), f.arm_j, &kn_j, &kt_j);
    int roll = grn_rotates_alone(d, i) && grn_rotates_alone(d, j);
    return grn_pj_clump_mass(roll, ci, kn_i, kt_i, grn_inv_inertia(d, i), f.arm_i, cj, kn_j,
                             kt_j, grn_inv_inertia(d, j), f.arm_j);
  }
  return grn_pj_mass(ci * grn_inv_mass(d, i), ci * grn_inv_inertia(d, i), f.arm_i,
                     cj * grn_inv_mass(d, j), cj * grn_inv_inertia(d, j), f.arm_j);
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

// x limited to [-lim, lim], odd in x
GRN_HD float grn_pj_clamp(float x, float lim) {
  return x > lim ? lim : (x < -lim ? -lim : x);
}

// v scaled back into the disc |v| <= lim (lim >= 0)
GRN_HD grnVec3 grn_pj_project(grnVec3 v, float lim) {
  float norm = grn_norm(v);
  return norm > lim ? grn_scale(v, lim / norm) : v;
}

// the contact law of the default model: new accumulated impulse *p [N s] and angular impulse *q
// [N m s] on the grain of one contact, from the last iterate. u: relative velocity of the grain's
// contact point against the partner's, w: relative angular velocity, n: unit normal toward the
// grain, target: grn_pj_target, adh: the adhesive impulse limit (>= 0, grn_pj_adhesion). the
// normal impulse pn pulls at most adh; the tangential one opposes sliding within the coulomb cone
// mu pn + adh; the rolling part of q opposes the relative rolling within roll (pn + adh), its
// normal part the relative spin within tors (pn + adh) (the complementarity form of the
// constant-torque rolling and spinning resistance). the rolling step sees the spin the new
// tangential impulse gives (gauss-seidel within the contact: the two act on the same rotation).
// odd in (u, w, n, p, q): the two grains of a pair compute exactly opposite impulses.
GRN_HD void grn_pj_impulse(grnVec3 u, grnVec3 w, grnVec3 n, float target, grnPjMass m, float mu,
                           float roll, float tors, float adh, grnVec3* p, grnVec3* q) {
  float un = grn_dot(u, n), pn = grn_dot(*p, n);
  grnVec3 pt = grn_sub(*p, grn_scale(n, pn));
  float new_n = pn + (target - un) * m.n, least = adh > 0 ? -adh : 0.0f;
  new_n = new_n > least ? new_n : least;
  float load = new_n + adh, slide = mu * new_n + adh;
  grnVec3 ut = grn_sub(u, grn_scale(n, un));
  grnVec3 new_t = grn_pj_project(grn_sub(pt, grn_scale(ut, m.t)), slide > 0 ? slide : 0.0f);
  grnVec3 new_p = grn_add(grn_scale(n, new_n), new_t);
  // rolling and spinning against the rotation after this tangential update
  w = grn_sub(w, grn_scale(grn_cross(n, grn_sub(new_p, *p)), m.spin));
  float wn = grn_dot(w, n), qn = grn_dot(*q, n);
  grnVec3 wr = grn_sub(w, grn_scale(n, wn)), qr = grn_sub(*q, grn_scale(n, qn));
  grnVec3 new_qr = grn_pj_project(grn_sub(qr, grn_scale(wr, m.r)), roll * load);
  float new_qn = grn_pj_clamp(qn - wn * m.r, tors * load);
  *p = new_p;
  *q = grn_add(new_qr, grn_scale(n, new_qn));
}

// the adhesive impulse limit [N s] of a contact over a substep: adhesion x its area (touching
// when its normal target is above the adhesive range's gap) x dt; rmin: its smaller radius
GRN_HD float grn_pj_adhesion(const grnConsts* c, float target, float rmin) {
  if (!(c->adhesion > 0)) return 0.0f;
  return c->adhesion * grn_adhesive_area_of(grnMODEL_PJ, target * c->dt, rmin) * c->dt;
}

// new accumulated baumgarte impulse of one contact (normal, never pulling). ub: normal relative
// pseudo-velocity with the current iterate; target: grn_pj_bias_target; b: impulse so far; mn:
// the effective normal mass.
GRN_HD float grn_pj_bias_impulse(float ub, float target, float b, float mn) {
  float nb = b + (target - ub) * mn;
  return nb > 0 ? nb : 0.0f;
}

// relative velocity of grain i's contact point against grain j's, and their relative angular
// velocity, in iterate it
GRN_HD void grn_pj_pair_velocity(const float* it, int i, int j, grnVec3 n, float arm_i,
                                 float arm_j, grnVec3* u, grnVec3* w) {
  grn_contact_velocity(grn_iter_v(it, i), grn_iter_w(it, i), grn_iter_v(it, j), grn_iter_w(it, j),
                       n, arm_i, arm_j, u, w);
}

// the first jacobi iterate of grain i (after the narrowphase): its predicted motion plus the
// warm-start impulses of all its contacts; the baumgarte impulses start from zero
GRN_HD void grn_pj_start_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap;
  grnVec3 imp = grn_v3(0, 0, 0), torque = grn_v3(0, 0, 0);
  for (int k = 0; k < d->npair[i]; k++) {
    size_t slot = GRN_PAIR_SLOT(k, i, cap);
    grnVec3 lam = grn_load3(d->pair_lin + 3 * slot), mom = grn_load3(d->pair_rot + 3 * slot);
    grnPairFrame f = grn_pair_frame(d, i, d->pair[slot]);
    imp = grn_add(imp, lam);
    torque = grn_add(torque, grn_add(grn_contact_torque(f.n, f.arm_i, lam), mom));
    if (d->pair_bias) d->pair_bias[slot] = 0;
  }
  float r = grn_radius(d, i);
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SHAPE_SLOT(k, i, cap);
    grnVec3 lam = grn_load3(d->sc_lin + 3 * slot), mom = grn_load3(d->sc_rot + 3 * slot);
    imp = grn_add(imp, lam);
    torque = grn_add(torque, grn_add(grn_contact_torque(grn_load3(d->sc_normal + 3 * slot), r,
                                                        lam), mom));
    d->sc_bias[slot] = 0;
  }
  if (c->clumps) {
    grn_store_iter(d->iter, i, imp, grn_v3(0, 0, 0), torque);  // the clump's to gather
    return;
  }
  grnVec3 v = grn_add(grn_load3(d->vpred + 3 * i), grn_scale(imp, grn_inv_mass(d, i)));
  grnVec3 w = grn_add(grn_load3(d->angvel + 3 * i), grn_scale(torque, grn_inv_inertia(d, i)));
  grn_store_iter(d->iter, i, v, grn_v3(0, 0, 0), w);
}

// pair p's frame (positions do not change within the substep), split masses and warm-start
// impulses, from its grains and the solving grain's slot (grn_pairing.h)
GRN_HD void grn_pj_prepare_pair(const grnData* d, const grnConsts* c, int p) {
  size_t q = (size_t)p;
  int i = d->cp_grain[p], j = d->cp_partner[p];
  size_t slot = GRN_PAIR_SLOT(d->cp_slot[p], i, d->cap);
  grnPairFrame f = grn_pair_frame(d, i, j);
  grnPjMass m = grn_pj_pair_mass(d, c, i, j, f);
  grn_store3(d->cp_normal + 3 * q, f.n);
  d->cp_arm[2 * q] = f.arm_i;
  d->cp_arm[2 * q + 1] = f.arm_j;
  d->cp_target[p] = grn_pj_target(f.depth, c);
  d->cp_bias_target[p] = grn_pj_bias_target(f.depth, c);
  d->cp_mass[4 * q] = m.n;
  d->cp_mass[4 * q + 1] = m.t;
  d->cp_mass[4 * q + 2] = m.r;
  d->cp_mass[4 * q + 3] = m.spin;
  d->cp_reff[p] = grn_pair_roll_reff(d, c, i, j);
  grn_store3(d->cp_imp + 3 * q, grn_load3(d->pair_lin + 3 * slot));
  grn_store3(d->cp_mom + 3 * q, grn_load3(d->pair_rot + 3 * slot));
  d->cp_bias[p] = 0;
}

// grain i's pairs numbered (grn_pairing.h) and prepared
GRN_HD void grn_pj_pairs_grain(const grnData* d, const grnConsts* c, int i) {
  int end = grn_number_pairs(d, i);
  for (int p = d->pair_first[i]; p < end; p++) grn_pj_prepare_pair(d, c, p);
}

// one contact of grain i with grain j in the last iterate: new accumulated impulse *imp, angular
// impulse *mom and baumgarte impulse *bias, from the contact's normal n (toward i), arms, split
// masses, effective rolling radius and normal targets. the pair solve and the one loop share it,
// so their results are the same bit for bit
GRN_HD void grn_pj_solve_contact(const grnData* d, const grnConsts* c, int i, int j, grnVec3 n,
                                 float arm_i, float arm_j, grnPjMass m, float reff, float target,
                                 float bias_target, grnVec3* imp, grnVec3* mom, float* bias) {
  grnVec3 u, w;
  grn_pj_pair_velocity(d->iter, i, j, n, arm_i, arm_j, &u, &w);
  float adh = c->adhesion > 0
                  ? grn_pj_adhesion(c, target, fminf(grn_radius(d, i), grn_radius(d, j)))
                  : 0.0f;  // the radii read only for cohesive grains (the pair pass is hot)
  grn_pj_impulse(u, w, n, target, m, c->friction, c->rolling * reff, c->torsional * reff, adh,
                 imp, mom);
  float ub = grn_dot(grn_sub(grn_iter_b(d->iter, i), grn_iter_b(d->iter, j)), n);
  *bias = grn_pj_bias_impulse(ub, bias_target, *bias, m.n);
}

// one jacobi iteration, first half: the impulses of pair p from the last iterate
GRN_HD void grn_pj_solve_pair(const grnData* d, const grnConsts* c, int p) {
  size_t q = (size_t)p;
  grnPjMass m;
  m.n = d->cp_mass[4 * q];
  m.t = d->cp_mass[4 * q + 1];
  m.r = d->cp_mass[4 * q + 2];
  m.spin = d->cp_mass[4 * q + 3];
  grnVec3 imp = grn_load3(d->cp_imp + 3 * q), mom = grn_load3(d->cp_mom + 3 * q);
  float bias = d->cp_bias[p];
  grn_pj_solve_contact(d, c, d->cp_grain[p], d->cp_partner[p], grn_load3(d->cp_normal + 3 * q),
                       d->cp_arm[2 * q], d->cp_arm[2 * q + 1], m, d->cp_reff[p], d->cp_target[p],
                       d->cp_bias_target[p], &imp, &mom, &bias);
  grn_store3(d->cp_imp + 3 * q, imp);
  grn_store3(d->cp_mom + 3 * q, mom);
  d->cp_bias[p] = bias;
}

// a grain's sums over its contacts in one iteration: impulse, torque, baumgarte impulse
typedef struct grnPjSums_ {
  grnVec3 imp, torque, bias;
} grnPjSums;

// adds one contact's impulses on a grain into its sums: p, q the impulse and angular impulse,
// b the baumgarte impulse, n the normal toward the grain, arm its distance to the contact point
GRN_HD void grn_pj_add(grnPjSums* s, grnVec3 p, grnVec3 q, float b, grnVec3 n, float arm) {
  s->imp = grn_add(s->imp, p);
  s->torque = grn_add(s->torque, grn_add(grn_contact_torque(n, arm, p), q));
  s->bias = grn_add(s->bias, grn_scale(n, b));
}

// grain i's impulses from the pair of its slot whose reference is ref (none when the pair was
// dropped): the pair's, negated when the partner solves it
GRN_HD void grn_pj_add_slot(const grnData* d, int ref, grnPjSums* s) {
  grnSlotView v;
  int p = grn_slot_view(d, ref, &v);
  if (p >= 0) grn_pj_add(s, v.imp, v.mom, d->cp_bias[p], v.n, v.arm);
}

// grain i's impulses from its grain contacts in this iteration, summed in slot order. split
// passes (default): its pairs' impulses, solved before by grn_pj_solve_pair. one loop
// (c->one_loop, the seeds' ONELOOP): the grain finds its contacts again (the same as the
// narrowphase's, in the same order) and solves each from its own side here, frame included; the
// results are bit for bit those of the split passes
GRN_HD void grn_pj_grain_impulses(const grnData* d, const grnConsts* c, int i, grnPjSums* s) {
  int cap = d->cap;
  if (!c->one_loop) {
    for (int k = 0; k < d->npair[i]; k++) {
      grn_pj_add_slot(d, d->pair_ref[GRN_PAIR_SLOT(k, i, cap)], s);
    }
    return;
  }
  int partner[GRN_MAX_PAIRS];
  int found = grn_grain_contacts(d, c, i, partner, 1, GRN_MAX_PAIRS);
  int count = found < GRN_MAX_PAIRS ? found : GRN_MAX_PAIRS;
  for (int k = 0; k < count; k++) {
    size_t slot = GRN_PAIR_SLOT(k, i, cap);
    int j = partner[k];
    grnPairFrame f = grn_pair_frame(d, i, j);
    grnVec3 imp = grn_load3(d->pair_lin + 3 * slot), mom = grn_load3(d->pair_rot + 3 * slot);
    float b = d->pair_bias[slot];
    grn_pj_solve_contact(d, c, i, j, f.n, f.arm_i, f.arm_j, grn_pj_pair_mass(d, c, i, j, f),
                         grn_pair_roll_reff(d, c, i, j), grn_pj_target(f.depth, c),
                         grn_pj_bias_target(f.depth, c), &imp, &mom, &b);
    grn_store3(d->pair_lin + 3 * slot, imp);
    grn_store3(d->pair_rot + 3 * slot, mom);
    d->pair_bias[slot] = b;
    grn_pj_add(s, imp, mom, b, f.n, f.arm_i);
  }
}

// the split masses of grain i's contact with a rigid shape along n (nc: its contact count)
GRN_HD grnPjMass grn_pj_shape_mass(const grnData* d, const grnConsts* c, int i, grnVec3 n,
                                   float nc) {
  float r = grn_radius(d, i);
  if (c->clumps) {
    float kn, kt;
    grn_clump_compliance(d, i, n, r, &kn, &kt);
    return grn_pj_clump_mass(grn_rotates_alone(d, i), nc, kn, kt, grn_inv_inertia(d, i), r, 0, 0,
                             0, 0, 0);
  }
  return grn_pj_mass(nc * grn_inv_mass(d, i), nc * grn_inv_inertia(d, i), r, 0, 0, 0);
}

// grain i's impulses from its shape contacts in this iteration. a coupled body moves with this
// substep's impulses and takes its share of each change: its mass is split over its contacts as a
// grain's is, with its compliance along the normal and along the slip
GRN_HD void grn_pj_shape_impulses(const grnData* d, const grnConsts* c, int i, grnPjSums* s) {
  int cap = d->cap;
  float nc = (float)d->ncontact[i], r = grn_radius(d, i);
  grnVec3 vi = grn_iter_v(d->iter, i), wi = grn_iter_w(d->iter, i), bi = grn_iter_b(d->iter, i);
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SHAPE_SLOT(k, i, cap);
    const grnShape* sh = d->shapes + d->sc_shape[slot];
    grnVec3 n = grn_load3(d->sc_normal + 3 * slot);
    grnVec3 u = grn_shape_contact_velocity(vi, wi, r, n, grn_load3(d->sc_vel + 3 * slot));
    grnVec3 w = grn_sub(wi, grn_load3(sh->angvel));
    grnPjMass m = grn_pj_shape_mass(d, c, i, n, nc);
    if (d->body_mob && sh->body >= 0) {
      grnVec3 arm = grn_body_arm(d, sh, i, n);
      const float* dv = d->body_dv + 6 * sh->body;
      u = grn_sub(u, grn_body_point_dv(d, sh->body, arm));
      w = grn_sub(w, grn_v3(dv[3], dv[4], dv[5]));
      float split = (float)d->body_nc[sh->body];
      m.n = 1.0f / (1.0f / m.n + split * grn_body_compliance(d, sh->body, arm, n));
      grnVec3 slip = grn_sub(u, grn_scale(n, grn_dot(u, n)));
      float ns = grn_norm(slip);
      if (ns > 0) {
        grnVec3 dir = grn_scale(slip, 1 / ns);
        m.t = 1.0f / (1.0f / m.t + split * grn_body_compliance(d, sh->body, arm, dir));
      }
    }
    float depth = d->sc_depth[slot];
    grnVec3 imp = grn_load3(d->sc_lin + 3 * slot), mom = grn_load3(d->sc_rot + 3 * slot);
    float roll, tors;
    grn_shape_roll_lengths(sh, d, c, i, &roll, &tors);
    float target = grn_pj_target(depth, c);
    grn_pj_impulse(u, w, n, target, m, sh->friction, roll, tors, grn_pj_adhesion(c, target, r),
                   &imp, &mom);
    grn_store3(d->sc_lin + 3 * slot, imp);
    grn_store3(d->sc_rot + 3 * slot, mom);
    float b = grn_pj_bias_impulse(grn_dot(bi, n), grn_pj_bias_target(depth, c), d->sc_bias[slot],
                                  m.n);
    d->sc_bias[slot] = b;
    grn_pj_add(s, imp, mom, b, n, r);
  }
}

// one jacobi iteration for grain i (split passes: after every pair's grn_pj_solve_pair): its
// impulses from its grain contacts, then from its shape contacts, summed into the next iterate
GRN_HD void grn_pj_solve_grain(const grnData* d, const grnConsts* c, int i) {
  grnPjSums s;
  s.imp = s.torque = s.bias = grn_v3(0, 0, 0);
  grn_pj_grain_impulses(d, c, i, &s);
  grn_pj_shape_impulses(d, c, i, &s);
  if (c->clumps) {
    grn_store_iter(d->iter_next, i, s.imp, s.bias, s.torque);  // the clump's to gather
    return;
  }
  float im = grn_inv_mass(d, i);
  grnVec3 v = grn_add(grn_load3(d->vpred + 3 * i), grn_scale(s.imp, im));
  grnVec3 w = grn_add(grn_load3(d->angvel + 3 * i), grn_scale(s.torque, grn_inv_inertia(d, i)));
  grn_store_iter(d->iter_next, i, v, grn_scale(s.bias, im), w);
}

// grain i's final pair impulses back into its slots (the warm start of the next substep; one
// loop keeps them there all along)
GRN_HD void grn_pj_store_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap;
  if (c->one_loop) return;
  for (int k = 0; k < d->npair[i]; k++) {
    size_t slot = GRN_PAIR_SLOT(k, i, cap);
    float sign;
    int p = grn_slot_pair(d->pair_ref[slot], &sign);
    grnVec3 imp = grn_v3(0, 0, 0), mom = grn_v3(0, 0, 0);
    if (p >= 0) {
      imp = grn_scale(grn_load3(d->cp_imp + 3 * (size_t)p), sign);
      mom = grn_scale(grn_load3(d->cp_mom + 3 * (size_t)p), sign);
    }
    grn_store3(d->pair_lin + 3 * slot, imp);
    grn_store3(d->pair_rot + 3 * slot, mom);
  }
}

#endif  // MJGRANULAR_GRN_CONTACT_PJ_H_
