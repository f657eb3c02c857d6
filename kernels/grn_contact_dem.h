// the discrete element method (the second contact model): elastic grains whose overlaps push
// them apart through a spring and dashpot per contact, integrated explicitly once per substep.
//
// normal: hertz (f = 4/3 E* sqrt(R* d) d) or hooke (f = k d), with a dashpot 2 zeta sqrt(S m*)
// on the approach speed (S the current stiffness d f / d d), and never pulling. tangential: a
// spring on the elongation of the contact (the slip of the contact points since the contact
// began, turned onto the current tangent plane as the contact turns; stiffness 8 G* sqrt(R* d),
// or 2/7 k) with its own dashpot, capped by coulomb friction mu fn, the elongation then shortened
// to what the capped force implies (the liggghts / lammps history model). rolling and torsion:
// springs on the relative rotation (stiffness 2.25 k_n l^2, k_n the secant normal stiffness,
// l the bound's length), each moment capped at l fn (the elastic-plastic spring-dashpot model of
// iwashita and oda, without its dashpot: liggghts' epsd2). shapes are rigid and of infinite mass.
//
// the substep: the narrowphase finds each grain's contacts and carries their springs, and each
// grain computes the forces of all its contacts itself, from its own copy of each spring, and
// sums them in slot order (grn_dem_forces_grain); then symplectic euler. the law is odd, so the
// two grains of a contact take exactly opposite forces and keep exactly opposite springs without
// pairing them. clumps with contact fields (grn_cem.h) pair their contacts instead (the fields
// are not odd): each pair's force is computed once (grn_dem_pair) and summed by both grains.
#ifndef MJGRANULAR_GRN_CONTACT_DEM_H_
#define MJGRANULAR_GRN_CONTACT_DEM_H_

#include "grn_cem.h"
#include "grn_clump.h"
#include "grn_collide.h"
#include "grn_data.h"
#include "grn_integrate.h"
#include "grn_pairing.h"

// a contact's stiffnesses and dampers at overlap depth (> 0)
typedef struct grnDemSpring_ {
  float kn;                   // secant normal stiffness: elastic normal force / overlap [N/m]
  float sn;                   // tangent normal stiffness, which the normal dashpot uses [N/m]
  float kt;                   // tangential stiffness [N/m]
  float gn, gt;               // normal and tangential dashpots [N s/m]
} grnDemSpring;

// the springs of a contact of effective radius reff, effective mass meff and effective moduli
// estar, gstar (hertz) at overlap depth
GRN_HD grnDemSpring grn_dem_spring(const grnDemLawConsts* law, float depth, float reff,
                                   float meff, float estar, float gstar) {
  grnDemSpring s;
  if (law->law == grnLAW_HERTZ) {
    float a = sqrtf(reff * depth);  // contact radius
    s.kn = 4.0f / 3.0f * estar * a;
    s.sn = 2.0f * estar * a;
    s.kt = 8.0f * gstar * a;
  } else {
    s.kn = s.sn = law->stiffness;
    s.kt = 2.0f / 7.0f * law->stiffness;
  }
  s.gn = 2.0f * law->damping * sqrtf(s.sn * meff);
  s.gt = 2.0f * law->damping * sqrtf(s.kt * meff);
  return s;
}

// v turned onto the plane normal to n with its length kept (a spring follows its contact as it
// turns)
GRN_HD grnVec3 grn_dem_onto_plane(grnVec3 v, grnVec3 n) {
  float len2 = grn_dot(v, v);
  grnVec3 t = grn_sub(v, grn_scale(n, grn_dot(v, n)));
  float t2 = grn_dot(t, t);
  return grn_select3(t2 > 0, grn_scale(t, sqrtf(len2 / t2)), t);
}

// one contact's force f and moment m on the grain (f at the contact point), and its springs
// advanced over the substep: *shear the tangential elongation, *spring the rolling and torsional
// moment. depth: overlap (none: no force, springs released); n: unit normal toward the grain;
// u, w: relative velocity of the grain's contact point and relative angular velocity against the
// partner; reff, meff, estar, gstar as grn_dem_spring; mu: coulomb coefficient; roll, tors: the
// rolling and torsional bounds' lengths [m]. odd in (n, u, w, shear, spring): the two grains of a
// pair compute exactly opposite forces and springs. branch-free but for the rolling and torsional
// springs (each case computed and the one that applies kept: the same values as taking branches,
// and a loop over contacts vectorises; with roll and tors constant zero the springs' part goes)
GRN_HD void grn_dem_contact(const grnConsts* c, float depth, grnVec3 n, grnVec3 u, grnVec3 w,
                            float reff, float meff, float estar, float gstar, float mu,
                            float roll, float tors, grnVec3* shear, grnVec3* spring, grnVec3* f,
                            grnVec3* m) {
  grnVec3 zero = grn_v3(0, 0, 0);
  int touch = depth > 0;
  grnDemSpring s = grn_dem_spring(&c->dem, depth, reff, meff, estar, gstar);
  float un = grn_dot(u, n);
  float fn = s.kn * depth - s.gn * un;
  fn = fn > 0 ? fn : 0.0f;

  // tangential spring: the slip of this substep added, the force capped by friction
  grnVec3 ut = grn_sub(u, grn_scale(n, un));
  grnVec3 el = grn_add(grn_dem_onto_plane(*shear, n), grn_scale(ut, c->dt));
  grnVec3 damp = grn_scale(ut, s.gt);
  grnVec3 ft = grn_scale(grn_add(grn_scale(el, s.kt), damp), -1.0f);
  float ft_len = grn_norm(ft), ft_max = mu * fn;
  int slip = ft_len > ft_max;
  grnVec3 ft_cap = grn_scale(ft, ft_max / ft_len);
  ft = grn_select3(slip, ft_cap, ft);
  el = grn_select3(slip, grn_scale(grn_add(ft_cap, damp), -1.0f / s.kt), el);

  *shear = grn_select3(touch, el, zero);
  *f = grn_select3(touch, grn_add(grn_scale(n, fn), ft), zero);
  // rolling and torsional springs on this substep's relative rotation, each capped (none without
  // their bounds: the caps hold them at zero)
  if (roll > 0 || tors > 0) {
    float wn = grn_dot(w, n), qn = grn_dot(*spring, n);
    grnVec3 wr = grn_sub(w, grn_scale(n, wn));
    grnVec3 qr = grn_dem_onto_plane(grn_sub(*spring, grn_scale(n, qn)), n);
    qr = grn_sub(qr, grn_scale(wr, 2.25f * s.kn * roll * roll * c->dt));
    float qr_len = grn_norm(qr), qr_max = roll * fn;
    qr = grn_select3(qr_len > qr_max, grn_scale(qr, qr_max / qr_len), qr);
    qn -= 2.25f * s.kn * tors * tors * wn * c->dt;
    float qn_max = tors * fn;
    qn = qn > qn_max ? qn_max : (qn < -qn_max ? -qn_max : qn);
    *spring = grn_select3(touch, grn_add(qr, grn_scale(n, qn)), zero);
  } else {
    *spring = zero;
  }
  *m = *spring;
}

// pair p of two bounds of clumps with fields (grn_cem.h): the contact from their fields, its
// force over the substep as the impulse on the solving grain (cp_imp) and the angular impulse
// about that grain's centre (cp_mom: the force's at the contact point plus the torsional
// spring's), the springs advanced. no rolling spring: clumps resist rolling by their shape. a
// torsional one (torsional_friction times the pair's effective radius, as for spheres): one
// contact point stands for a patch that resists turning about its normal, which the field
// cannot see, and without it nothing stops a grain spinning on another's face
GRN_HD void grn_dem_cem_pair(const grnData* d, const grnConsts* c, int p) {
  size_t q = (size_t)p;
  int i = d->cp_grain[p], j = d->cp_partner[p];
  size_t slot = GRN_PAIR_SLOT(d->cp_slot[p], i, d->cap);
  int ti = d->clump_type[d->elem_clump[i]], tj = d->clump_type[d->elem_clump[j]];
  grnVec3 xi = grn_load3(d->pos + 3 * i), xj = grn_load3(d->pos + 3 * j);
  grnCemContact cc = grn_cem_contact(d->cem, ti, xi, grn_load_quat(d->orient + 4 * i), tj, xj,
                                     grn_load_quat(d->orient + 4 * j), 1);
  grnVec3 ri = grn_sub(cc.point, xi), rj = grn_sub(cc.point, xj);
  grnVec3 wi = grn_load3(d->angvel + 3 * i), wj = grn_load3(d->angvel + 3 * j);
  grnVec3 u = grn_sub(grn_add(grn_load3(d->vel + 3 * i), grn_cross(wi, ri)),
                      grn_add(grn_load3(d->vel + 3 * j), grn_cross(wj, rj)));
  float ai = grn_cem_type(d->cem, ti)[7], aj = grn_cem_type(d->cem, tj)[7];
  float reff = ai * aj / (ai + aj);
  float meff = 1.0f / (grn_inv_mass(d, i) + grn_inv_mass(d, j));
  grnVec3 shear = grn_load3(d->pair_lin + 3 * slot), spring = grn_load3(d->pair_rot + 3 * slot);
  grnVec3 f, m;
  grn_dem_contact(c, cc.depth, cc.n, u, grn_sub(wi, wj), reff, meff, c->dem.estar, c->dem.gstar,
                  c->friction, 0.0f, c->torsional * reff, &shear, &spring, &f, &m);
  grn_store3(d->pair_lin + 3 * slot, shear);
  grn_store3(d->pair_rot + 3 * slot, spring);
  grn_store3(d->cp_normal + 3 * q, cc.n);
  d->cp_arm[2 * q] = d->cp_arm[2 * q + 1] = 0;
  grnVec3 imp = grn_scale(f, c->dt);
  grn_store3(d->cp_imp + 3 * q, imp);
  grn_store3(d->cp_mom + 3 * q, grn_add(grn_cross(ri, imp), grn_scale(m, c->dt)));
}

// the angular impulse of field pair p about the centre of grain i (either grain of the pair),
// from the slot's view v: the solving grain's about its own centre, moved to grain i's
GRN_HD grnVec3 grn_dem_cem_angular(const grnData* d, int p, int i, const grnSlotView* v) {
  grnVec3 solver = grn_load3(d->pos + 3 * (size_t)d->cp_grain[p]);
  return grn_add(v->mom, grn_cross(grn_sub(solver, grn_load3(d->pos + 3 * i)), v->imp));
}

// grain i's contact with grain j in its slot `slot`, from grain i's side: the pair's frame
// (*fr), the force on grain i at the contact point (*f) and its rolling and torsional moment
// (*m), the springs in the slot advanced. grain j computing the same contact from its own slot
// gets the exact opposites: every input changes sign exactly (positions and velocities enter as
// differences, symmetric terms are sums and products taken in either order) and grn_dem_contact
// is odd in them. ui, uj: grn_uid of grains i and j. rolls: 0 when the rolling and torsional
// coefficients are both zero (their bounds are then zero and the springs stay zero, neither read
// nor stored: the arrays keep the zeros they were made with, grn_pair_rot_unread; a constant 0
// lets the compiler drop them). kept: the springs are still in the slot of the _prev arrays
// (grn_collide_grain)
GRN_HD void grn_dem_grain_contact(const grnData* d, const grnConsts* c, int i, int j, int ui,
                                  int uj, size_t slot, int rolls, int kept, grnPairFrame* fr,
                                  grnVec3* f, grnVec3* m) {
  *fr = grn_pair_frame_uid(d, i, j, ui, uj);
  grnVec3 u, w;
  grn_contact_velocity(grn_load3(d->vel + 3 * i), grn_load3(d->angvel + 3 * i),
                       grn_load3_at(d->vel, 3 * j), grn_load3_at(d->angvel, 3 * j), fr->n,
                       fr->arm_i, fr->arm_j, &u, &w);
  float reff = grn_pair_reff(d, i, j);
  float roll = 0, tors = 0;
  if (rolls) {
    float roll_reff = grn_pair_roll_reff(d, c, i, j);
    roll = c->rolling * roll_reff;
    tors = c->torsional * roll_reff;
  }
  float meff = 1.0f / (grn_inv_mass(d, i) + grn_inv_mass(d, j));
  const float* lin = kept ? d->pair_lin_prev : d->pair_lin;
  const float* rot = kept ? d->pair_rot_prev : d->pair_rot;
  grnVec3 shear = grn_load3(lin + 3 * slot), spring = grn_load3(rot + 3 * slot);
  grn_dem_contact(c, fr->depth, fr->n, u, w, reff, meff, c->dem.estar, c->dem.gstar, c->friction,
                  roll, tors, &shear, &spring, f, m);
  grn_store3(d->pair_lin + 3 * slot, shear);
  if (rolls) grn_store3(d->pair_rot + 3 * slot, spring);
}

// pair p (grn_pairing.h, contact fields only): its frame, its force over the substep as impulses
// on the solving grain (cp_imp, cp_mom), and its springs advanced in the solving grain's slot; a
// pair of bounds by their fields
GRN_HD void grn_dem_pair(const grnData* d, const grnConsts* c, int p) {
  size_t q = (size_t)p;
  int i = d->cp_grain[p], j = d->cp_partner[p];
  if (grn_cem_bound(d, c, i)) {
    grn_dem_cem_pair(d, c, p);
    return;
  }
  grnPairFrame fr;
  grnVec3 f, m;
  grn_dem_grain_contact(d, c, i, j, grn_uid(d, i), grn_uid(d, j),
                        GRN_PAIR_SLOT(d->cp_slot[p], i, d->cap), 1, 0, &fr, &f, &m);
  grn_store3(d->cp_normal + 3 * q, fr.n);
  d->cp_arm[2 * q] = fr.arm_i;
  d->cp_arm[2 * q + 1] = fr.arm_j;
  grn_store3(d->cp_imp + 3 * q, grn_scale(f, c->dt));
  grn_store3(d->cp_mom + 3 * q, grn_scale(m, c->dt));
}

// grain i's shape contacts: each one's force over the substep as impulses on the grain
// (sc_impulse, sc_angular) and its springs advanced (kept: from the slots of the _prev arrays,
// grn_collide_grain)
GRN_HD void grn_dem_shape_forces(const grnData* d, const grnConsts* c, int i, int kept) {
  int cap = d->cap;
  const float* lin = kept ? d->sc_lin_prev : d->sc_lin;
  const float* rot = kept ? d->sc_rot_prev : d->sc_rot;
  float r = grn_radius(d, i), meff = 1.0f / grn_inv_mass(d, i);
  grnVec3 vi = grn_load3(d->vel + 3 * i), wi = grn_load3(d->angvel + 3 * i);
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SHAPE_SLOT(k, i, cap);
    const grnShape* sh = d->shapes + d->sc_shape[slot];
    grnVec3 n = grn_load3(d->sc_normal + 3 * slot);
    grnVec3 u = grn_shape_contact_velocity(vi, wi, r, n, grn_load3(d->sc_vel + 3 * slot));
    grnVec3 w = grn_sub(wi, grn_load3(sh->angvel));
    float roll, tors;
    grn_shape_roll_lengths(sh, d, c, i, &roll, &tors);
    grnVec3 shear = grn_load3(lin + 3 * slot), spring = grn_load3(rot + 3 * slot);
    grnVec3 f, m;
    grn_dem_contact(c, d->sc_depth[slot], n, u, w, r, meff, c->dem.estar_wall,
                    c->dem.gstar_wall, sh->friction, roll, tors, &shear, &spring, &f, &m);
    grn_store3(d->sc_lin + 3 * slot, shear);
    grn_store3(d->sc_rot + 3 * slot, spring);
    grn_store3(d->sc_impulse + 3 * slot, grn_scale(f, c->dt));
    grn_store3(d->sc_angular + 3 * slot, grn_scale(m, c->dt));
  }
}

// grain i's shape contacts' impulses and angular impulses over the substep added to *imp and
// *torque, in slot order
GRN_HD void grn_dem_add_shape_impulses(const grnData* d, int i, grnVec3* imp, grnVec3* torque) {
  int cap = d->cap;
  float r = grn_radius(d, i);
  for (int k = 0; k < d->nshape[i]; k++) {
    size_t slot = GRN_SHAPE_SLOT(k, i, cap);
    grnVec3 p = grn_load3(d->sc_impulse + 3 * slot);
    grnVec3 n = grn_load3(d->sc_normal + 3 * slot);
    *imp = grn_add(*imp, p);
    *torque = grn_add(*torque, grn_add(grn_contact_torque(n, r, p),
                                       grn_load3(d->sc_angular + 3 * slot)));
  }
}

// the contacts of a grain are computed GRN_DEM_BATCH at a time, each's impulse and angular
// impulse kept, then summed in slot order: on the cpu a row of slots (GRN_CPU_ROW_SLOTS, which
// most grains' contacts fit) in one loop the compiler vectorises (the law has no branches), on
// the gpu one at a time (no arrays). a batch's slots are consecutive in the solver's arrays
#ifdef __CUDACC__
#define GRN_DEM_BATCH 1
#define GRN_DEM_SIMD
#else
#define GRN_DEM_BATCH GRN_CPU_ROW_SLOTS
#define GRN_DEM_SIMD _Pragma("omp simd simdlen(8)")
#endif

// grain i's contact in its slot `slot` (its index in the arrays; ui: grn_uid of grain i; uids: 1
// when the grains have indices in the caller's order, d->uid; rolls, kept as
// grn_dem_grain_contact): its force computed from grain i's side and its springs advanced; its
// impulse over the substep into p[b], its angular impulse about grain i's centre into t[b]. live
// 0: a slot past the grain's contacts, computed against the grain itself (what such a slot holds
// may be no grain: a contact state set from outside is checked within the counts only)
GRN_HD void grn_dem_grain_slot(const grnData* d, const grnConsts* c, int i, int ui, size_t slot,
                               int live, int rolls, int uids, int kept, int b, float* px,
                               float* py, float* pz, float* tx, float* ty, float* tz) {
  grnPairFrame fr;
  grnVec3 f, m;
  int j = live ? d->pair[slot] : i;
  grn_dem_grain_contact(d, c, i, j, ui, grn_uid_if(d, uids, j), slot, rolls, kept, &fr, &f, &m);
  grnVec3 p = grn_scale(f, c->dt);
  grnVec3 t = grn_add(grn_contact_torque(fr.n, fr.arm_i, p), grn_scale(m, c->dt));
  px[b] = p.x; py[b] = p.y; pz[b] = p.z;
  tx[b] = t.x; ty[b] = t.y; tz[b] = t.z;
}

// grain i's contacts in slots [k0, k0 + count) (k0 a multiple of GRN_DEM_BATCH, count <= it), as
// grn_dem_grain_slot (b = k - k0); a loop without locals of its own, which gcc's simd lowering
// would turn into arrays. the whole batch, also the slots past the grain's contacts: so that the
// loop is one vector of lanes, where a grain's few contacts (3.5 on average in a settled bed) left
// in a remainder would run one by one (10k dem bed, one thread: 10% more instructions, 15%
// slower). those lanes meet the grain itself and leave their springs in their slots, which
// nothing reads and the saved state zeroes (grn_get_contacts); the caller sums the first count
GRN_HD void grn_dem_grain_batch(const grnData* d, const grnConsts* c, int i, int k0, int count,
                                int rolls, int uids, int kept, float* px, float* py, float* pz,
                                float* tx, float* ty, float* tz) {
  int ui = grn_uid(d, i);
  size_t first = GRN_PAIR_SLOT(k0, i, d->cap);
  GRN_DEM_SIMD
  for (int b = 0; b < GRN_DEM_BATCH; b++) {
    grn_dem_grain_slot(d, c, i, ui, first + b, b < count, rolls, uids, kept, b, px, py, pz, tx,
                       ty, tz);
  }
}

// grain i's contacts (grn_collide_grain), each one's force computed from grain i's side, and
// the substep's impulse and angular impulse on grain i summed in slot order, grains then shapes,
// into its iterate (grn_iter_v, grn_iter_w) for the integration or its clump
GRN_HD void grn_dem_forces_grain(const grnData* d, const grnConsts* c, int i) {
  grnKept kept = grn_collide_grain(d, c, i, 1);
  grn_dem_shape_forces(d, c, i, kept.shapes);
  int np = d->npair[i], rolls = c->rolling > 0 || c->torsional > 0, uids = d->uid != NULL;
  grnVec3 imp = grn_v3(0, 0, 0), torque = grn_v3(0, 0, 0);
  for (int k0 = 0; k0 < np; k0 += GRN_DEM_BATCH) {
    int count = np - k0 < GRN_DEM_BATCH ? np - k0 : GRN_DEM_BATCH;
    float px[GRN_DEM_BATCH], py[GRN_DEM_BATCH], pz[GRN_DEM_BATCH];
    float tx[GRN_DEM_BATCH], ty[GRN_DEM_BATCH], tz[GRN_DEM_BATCH];
    // each case with its flags constant, so that the compiler drops what does not apply
    if (rolls && uids) {
      grn_dem_grain_batch(d, c, i, k0, count, 1, 1, kept.pairs, px, py, pz, tx, ty, tz);
    } else if (rolls) {
      grn_dem_grain_batch(d, c, i, k0, count, 1, 0, kept.pairs, px, py, pz, tx, ty, tz);
    } else if (uids) {
      grn_dem_grain_batch(d, c, i, k0, count, 0, 1, kept.pairs, px, py, pz, tx, ty, tz);
    } else {
      grn_dem_grain_batch(d, c, i, k0, count, 0, 0, kept.pairs, px, py, pz, tx, ty, tz);
    }
    for (int b = 0; b < count; b++) {
      imp = grn_add(imp, grn_v3(px[b], py[b], pz[b]));
      torque = grn_add(torque, grn_v3(tx[b], ty[b], tz[b]));
    }
  }
  grn_dem_add_shape_impulses(d, i, &imp, &torque);
  grn_store_iter(d->iter, i, imp, grn_v3(0, 0, 0), torque);
}

// contact fields: grain i's pair slots take the springs of their pairs (a partner's slot the
// solving grain's, negated; a dropped pair's released), and grain i's impulses of the substep
// summed in slot order into its iterate, as grn_dem_forces_grain leaves them
GRN_HD void grn_dem_pair_sums_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap, bound = grn_cem_bound(d, c, i);
  grnVec3 imp = grn_v3(0, 0, 0), torque = grn_v3(0, 0, 0);
  for (int k = 0; k < d->npair[i]; k++) {
    size_t slot = GRN_PAIR_SLOT(k, i, cap);
    int ref = d->pair_ref[slot];
    grnSlotView v;
    int p = grn_slot_view(d, ref, &v);
    if (p < 0 || ref < 0) {
      grnVec3 shear = grn_v3(0, 0, 0), spring = grn_v3(0, 0, 0);
      if (p >= 0) {
        size_t from = GRN_PAIR_SLOT(d->cp_slot[p], d->cp_grain[p], cap);
        shear = grn_scale(grn_load3(d->pair_lin + 3 * from), -1.0f);
        spring = grn_scale(grn_load3(d->pair_rot + 3 * from), -1.0f);
      }
      grn_store3(d->pair_lin + 3 * slot, shear);
      grn_store3(d->pair_rot + 3 * slot, spring);
      if (p < 0) continue;
    }
    imp = grn_add(imp, v.imp);
    if (bound) {
      torque = grn_add(torque, grn_dem_cem_angular(d, p, i, &v));
    } else {
      torque = grn_add(torque, grn_add(grn_contact_torque(v.n, v.arm, v.imp), v.mom));
    }
  }
  grn_dem_add_shape_impulses(d, i, &imp, &torque);
  grn_store_iter(d->iter, i, imp, grn_v3(0, 0, 0), torque);
}

// grain i's velocity (*v) and angular velocity (*w) after gravity and the substep's impulses in
// its iterate
GRN_HD void grn_dem_new_velocities(const grnData* d, const grnConsts* c, int i, grnVec3* v,
                                   grnVec3* w) {
  *v = grn_add(grn_load3(d->vel + 3 * i), grn_scale(grn_load3(c->gravity), c->dt));
  *v = grn_add(*v, grn_scale(grn_iter_v(d->iter, i), grn_inv_mass(d, i)));
  *w = grn_add(grn_load3(d->angvel + 3 * i),
               grn_scale(grn_iter_w(d->iter, i), grn_inv_inertia(d, i)));
}

// symplectic euler of grain i with gravity and the substep's impulses in its iterate
GRN_HD void grn_dem_integrate_grain(const grnData* d, const grnConsts* c, int i) {
  grnVec3 v, w;
  grn_dem_new_velocities(d, c, i, &v, &w);
  grn_move_grain(d, c, i, v, v, w);
}

#ifndef __CUDACC__
// grains [lo, hi) integrated as grn_dem_integrate_grain integrates each, in one loop the cpu
// vectorises (the integration is a tenth of a dem substep, and one grain's is mostly latency: a
// square root and a division): a turn too large for grn_quat_exp's series alone (|w dt| > 0.5
// rad) is done after it, grain by grain. returns the largest squared displacement since the
// neighbour lists' build
static inline float grn_dem_integrate_range(const grnData* d, const grnConsts* c, int lo, int hi) {
  float moved2 = 0;
  int finite = 1, large = 0;
  #pragma omp simd simdlen(8) reduction(max : moved2) reduction(& : finite) reduction(| : large)
  for (int i = lo; i < hi; i++) {
    grnVec3 v, w;
    grn_dem_new_velocities(d, c, i, &v, &w);
    finite &= grn_move_grain_but_turn(d, c, i, v, v, w);
    grnVec3 r = grn_scale(w, c->dt);
    float a2 = grn_dot(r, r);
    int series = a2 <= 0.25f;
    large |= !series;
    grnQuat q = grn_turned_orientation(d, i, grn_quat_exp_series(r, a2));
    grnQuat old = grn_load_quat(d->orient + 4 * i);
    grn_store_quat(d->orient + 4 * i, grn_quat(series ? q.w : old.w, series ? q.x : old.x,
                                               series ? q.y : old.y, series ? q.z : old.z));
    float m = grn_neighbors_moved2(d, i);
    moved2 = m > moved2 ? m : moved2;
  }
  if (!finite) d->nonfinite[0] = 1;
  for (int i = lo; large && i < hi; i++) {
    grnVec3 w = grn_load3(d->angvel + 3 * i);
    grnVec3 r = grn_scale(w, c->dt);
    if (!(grn_dot(r, r) <= 0.25f)) grn_turn_grain(d, c, i, w);
  }
  return moved2;
}
#endif

#endif  // MJGRANULAR_GRN_CONTACT_DEM_H_
