// rigid clumps of spheres (grains shaped like meshes, issue 19), for the pj and dem models.
//
// the solver's grains stay spheres: a clump's spheres are consecutive grains (clump_first,
// clump_count), found by the broadphase and in contact like any grain, but never with each other
// (grn_grain_neighbors). each contact law works on a sphere as on a grain, with the clump's mass
// and inertia seen at the contact point (grn_clump_compliance) and the clump's velocity at the
// sphere's centre; where a free grain would take its impulses, a sphere of a clump leaves their
// sums (impulse, baumgarte impulse, torque about its centre) in its iterate slots, and the clump
// gathers them into a force and a torque about its centre of mass (grn_clump_gather, in sphere
// order: the same sums on every backend). the clump then moves as a rigid body, its rotation by
// euler's equations (grn_rigid_rotate: its angular momentum is the state), and its spheres are
// placed on it again (grn_clump_place).
//
// a projected jacobi substep gathers after each pass: the clump's next iterate is its predicted
// velocity plus the gathered impulses through its mass and world inverse inertia at the start of
// the substep, and each sphere's iterate its point of the clump (the baumgarte pseudo-velocity is
// linear only: a clump's penetration is removed by translation). rolling and torsional
// resistance act only between grains that rotate on their own (single-sphere clumps, whose
// inv_inertia is set): a clump of several spheres resists rolling by its shape.
#ifndef MJGRANULAR_GRN_CLUMP_H_
#define MJGRANULAR_GRN_CLUMP_H_

#include "grn_collide.h"
#include "grn_data.h"
#include "grn_integrate.h"
#include "grn_rigid.h"

// the compliances of sphere i of a clump at a contact with normal n (toward it), its centre arm
// from the contact point: normal kn (1 / the effective mass along n) and tangential kt (the mean
// over the tangent plane's directions) [1/kg], 1 / m + (rho x t) . I^-1 (rho x t) over
// directions t, rho the contact point from the clump's centre of mass (the tangent mean is half
// the trace of the rotational compliance less its normal part). a free sphere's: kn = 1 / m,
// kt = 1 / m + arm^2 / I, as for a single-sphere clump
GRN_HD void grn_clump_compliance(const grnData* d, int i, grnVec3 n, float arm, float* kn,
                                 float* kt) {
  float im = grn_inv_mass(d, i);
  int k = d->elem_clump[i];
  grnQuat q = grn_load_quat(d->clump_orient + 4 * k);
  grnVec3 inertia = grn_load3(d->clump_inertia + 3 * k);
  grnVec3 inv = grn_v3(1.0f / inertia.x, 1.0f / inertia.y, 1.0f / inertia.z);
  grnVec3 rho = grn_sub(grn_load3(d->elem_offset + 3 * i), grn_scale(n, arm));
  grnVec3 rb = grn_quat_unrotate(q, rho), nb = grn_quat_unrotate(q, n);
  grnVec3 u = grn_cross(rb, nb);
  float normal = grn_dot(inv, grn_mul3(u, u)), r2 = grn_dot(rb, rb);
  float trace = inv.x * (r2 - rb.x * rb.x) + inv.y * (r2 - rb.y * rb.y) +
                inv.z * (r2 - rb.z * rb.z);
  *kn = im + normal;
  *kt = im + 0.5f * (trace - normal);
}

// clump k's sums over its spheres' entries in iterate it (left by their grain phase: impulse,
// baumgarte impulse, torque about the sphere's centre): *imp, *bias and *torque about the
// clump's centre of mass, in sphere order
GRN_HD void grn_clump_gather(const grnData* d, int k, const float* it, grnVec3* imp,
                             grnVec3* bias, grnVec3* torque) {
  grnVec3 zero = grn_v3(0, 0, 0);
  *imp = *bias = *torque = zero;
  int first = d->clump_first[k], end = first + d->clump_count[k];
  for (int e = first; e < end; e++) {
    grnVec3 p = grn_iter_v(it, e);
    *imp = grn_add(*imp, p);
    *bias = grn_add(*bias, grn_iter_b(it, e));
    grnVec3 arm = grn_load3(d->elem_offset + 3 * e);
    *torque = grn_add(*torque, grn_add(grn_cross(arm, p), grn_iter_w(it, e)));
  }
}

// clump k's spheres placed on it: centres, velocities as points of the clump, its angular
// velocity and orientation
GRN_HD void grn_clump_place(const grnData* d, int k) {
  grnQuat q = grn_load_quat(d->clump_orient + 4 * k);
  grnVec3 x = grn_load3(d->clump_pos + 3 * k), v = grn_load3(d->clump_vel + 3 * k);
  grnVec3 w = grn_load3(d->clump_angvel + 3 * k);
  int first = d->clump_first[k], end = first + d->clump_count[k];
  for (int e = first; e < end; e++) {
    grnVec3 arm = grn_quat_rotate(q, grn_load3(d->elem_local + 3 * e));
    grn_store3(d->elem_offset + 3 * e, arm);
    grn_store3(d->pos + 3 * e, grn_add(x, arm));
    grn_store3(d->vel + 3 * e, grn_add(v, grn_cross(w, arm)));
    grn_store3(d->angvel + 3 * e, w);
    grn_store_quat(d->orient + 4 * e, q);
  }
}

// clump k moved over the substep: velocity v, its centre by move dt (wrapped by the cyclic
// boundary), its angular momentum raised by the angular impulse torque [N m s] and its rotation
// advanced by euler's equations; its spheres placed. flags nan / inf
GRN_HD void grn_clump_move(const grnData* d, const grnConsts* c, int k, grnVec3 v, grnVec3 move,
                           grnVec3 torque) {
  grnVec3 x = grn_add(grn_load3(d->clump_pos + 3 * k), grn_scale(move, c->dt));
  x.z = grn_cyclic_z(c, x.z);
  grnQuat q = grn_load_quat(d->clump_orient + 4 * k);
  grnVec3 mom = grn_add(grn_load3(d->clump_mom + 3 * k), torque);
  grnVec3 inertia = grn_load3(d->clump_inertia + 3 * k);
  grn_rigid_rotate(&q, &mom, inertia, grn_v3(0, 0, 0), c->dt);
  grnVec3 w = grn_rigid_angvel(q, mom, inertia);
  if (!grn_isfinite3(x) || !grn_isfinite3(v) || !grn_isfinite3(w)) d->nonfinite[0] = 1;
  grn_store3(d->clump_pos + 3 * k, x);
  grn_store3(d->clump_vel + 3 * k, v);
  grn_store3(d->clump_mom + 3 * k, mom);
  grn_store3(d->clump_angvel + 3 * k, w);
  grn_store_quat(d->clump_orient + 4 * k, q);
  grn_clump_place(d, k);
}

// clump k's velocity after gravity over the substep, before its contacts
GRN_HD grnVec3 grn_clump_predicted_velocity(const grnData* d, const grnConsts* c, int k) {
  return grn_add(grn_load3(d->clump_vel + 3 * k), grn_scale(grn_load3(c->gravity), c->dt));
}

// clump k's iterate from its spheres' sums in it: predicted velocity plus the impulses through
// its mass and world inverse inertia; each sphere's entry then its point of the clump
GRN_HD void grn_clump_iterate(const grnData* d, const grnConsts* c, int k, float* it) {
  grnVec3 imp, bias, torque;
  grn_clump_gather(d, k, it, &imp, &bias, &torque);
  float im = d->clump_inv_mass[k];
  grnQuat q = grn_load_quat(d->clump_orient + 4 * k);
  grnVec3 v = grn_add(grn_clump_predicted_velocity(d, c, k), grn_scale(imp, im));
  grnVec3 b = grn_scale(bias, im);
  grnVec3 w = grn_add(grn_load3(d->clump_angvel + 3 * k),
                      grn_rigid_angvel(q, torque, grn_load3(d->clump_inertia + 3 * k)));
  grn_store_iter(d->clump_iter, k, v, b, w);
  grn_store3(d->clump_torque + 3 * k, torque);
  int first = d->clump_first[k], end = first + d->clump_count[k];
  for (int e = first; e < end; e++) {
    grnVec3 arm = grn_load3(d->elem_offset + 3 * e);
    grn_store_iter(it, e, grn_add(v, grn_cross(w, arm)), b, w);
  }
}

// pj: clump k's first iterate from its spheres' warm-start sums; each of its spheres counts all
// the clump's contacts (its mass is split among them all)
GRN_HD void grn_pj_clump_start(const grnData* d, const grnConsts* c, int k) {
  int first = d->clump_first[k], end = first + d->clump_count[k], count = 0;
  for (int e = first; e < end; e++) count += d->ncontact[e];
  for (int e = first; e < end; e++) d->ncontact[e] = count;
  grn_clump_iterate(d, c, k, d->iter);
}

// pj: clump k's next iterate from its spheres' sums of this pass
GRN_HD void grn_pj_clump_solve(const grnData* d, const grnConsts* c, int k) {
  grn_clump_iterate(d, c, k, d->iter_next);
}

// pj: clump k moved by its last iterate (the baumgarte pseudo-velocity moves it, and is not
// kept)
GRN_HD void grn_pj_clump_move(const grnData* d, const grnConsts* c, int k) {
  grnVec3 v = grn_iter_v(d->clump_iter, k), b = grn_iter_b(d->clump_iter, k);
  grn_clump_move(d, c, k, v, grn_add(v, b), grn_load3(d->clump_torque + 3 * k));
}

// dem: clump k moved by its spheres' impulses of the substep (left in their iterate slots) and
// gravity
GRN_HD void grn_dem_clump_integrate(const grnData* d, const grnConsts* c, int k) {
  grnVec3 imp, bias, torque;
  grn_clump_gather(d, k, d->iter, &imp, &bias, &torque);
  grnVec3 v = grn_add(grn_clump_predicted_velocity(d, c, k), grn_scale(imp, d->clump_inv_mass[k]));
  grn_clump_move(d, c, k, v, v, torque);
}

#endif  // MJGRANULAR_GRN_CLUMP_H_
