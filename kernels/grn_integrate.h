// external forces and symplectic euler integration of one grain.
#ifndef MJGRANULAR_GRN_INTEGRATE_H_
#define MJGRANULAR_GRN_INTEGRATE_H_

#include "grn_data.h"
#include "grn_rigid.h"

// velocity before contacts: v + g dt
GRN_HD void grn_predict_grain(const grnData* d, const grnConsts* c, int i) {
  grnVec3 v = grn_load3(d->vel + 3 * i);
  grn_store3(d->vpred + 3 * i, grn_add(v, grn_scale(grn_load3(c->gravity), c->dt)));
}

// height z brought into the vertical cyclic range [lo, lo + period) when it is on: a grain
// leaving through the bottom re-enters through the top, and the other way round
GRN_HD float grn_cyclic_z(const grnConsts* c, float z) {
  if (c->cyclic_period <= 0) return z;
  float t = z - c->cyclic_lo;
  if (t >= 0 && t < c->cyclic_period) return z;
  return z - c->cyclic_period * floorf(t / c->cyclic_period);
}

// grain i's new velocity v and angular velocity w stored, its position moved by move dt, wrapped
// by the cyclic boundary (velocity unchanged), and its orientation turned by the exact rotation of
// w dt (world frame: premultiplied), renormalised so that rounding does not drift its norm. no
// contact law reads the orientation of a sphere: it is kept for grains of other shapes (issue 19)
// and to observe the spin. flags nan / inf
// (grn_move_grain_but_turn: all of it but the orientation, which the caller turns with
// grn_turn_grain; returns 0 when something is not finite. no branch: a loop of it vectorises)
GRN_HD int grn_move_grain_but_turn(const grnData* d, const grnConsts* c, int i, grnVec3 v,
                                   grnVec3 move, grnVec3 w) {
  grnVec3 x = grn_add(grn_load3(d->pos + 3 * i), grn_scale(move, c->dt));
  x.z = grn_cyclic_z(c, x.z);
  grn_store3(d->vel + 3 * i, v);
  grn_store3(d->angvel + 3 * i, w);
  grn_store3(d->pos + 3 * i, x);
  return grn_isfinite3(x) & grn_isfinite3(v) & grn_isfinite3(w);
}
// (grn_turned_orientation: grain i's orientation turned by turn and renormalised; grn_turn_grain:
// turned by w dt and stored)
GRN_HD grnQuat grn_turned_orientation(const grnData* d, int i, grnQuat turn) {
  return grn_quat_normalize(grn_quat_mul(turn, grn_load_quat(d->orient + 4 * i)));
}
GRN_HD void grn_turn_grain(const grnData* d, const grnConsts* c, int i, grnVec3 w) {
  grnQuat turn = grn_quat_exp(grn_scale(w, c->dt));
  grn_store_quat(d->orient + 4 * i, grn_turned_orientation(d, i, turn));
}
GRN_HD void grn_move_grain(const grnData* d, const grnConsts* c, int i, grnVec3 v, grnVec3 move,
                           grnVec3 w) {
  if (!grn_move_grain_but_turn(d, c, i, v, move, w)) d->nonfinite[0] = 1;
  grn_turn_grain(d, c, i, w);
}

// grain i at the identity orientation (a new grain)
GRN_HD void grn_reset_orientation(const grnData* d, int i) {
  grn_store_quat(d->orient + 4 * i, grn_quat(1, 0, 0, 0));
}

// symplectic euler from the last jacobi iterate: velocity first, then position with the new
// velocity plus the baumgarte pseudo-velocity (which is not kept)
GRN_HD void grn_integrate_grain(const grnData* d, const grnConsts* c, int i) {
  grnVec3 v = grn_iter_v(d->iter, i);
  grn_move_grain(d, c, i, v, grn_add(v, grn_iter_b(d->iter, i)), grn_iter_w(d->iter, i));
}

#endif  // MJGRANULAR_GRN_INTEGRATE_H_
