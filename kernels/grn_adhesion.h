// adhesion (pj and pbd): the area a contact's adhesive stress acts on, after the p2 seed. a
// contact of adhesive stress a [Pa] and area A may pull with up to a A and resists sliding with
// a A more than friction alone (the seed adds it to the friction cap: mohr-coulomb's
// c + sigma tan phi).
#ifndef MJGRANULAR_GRN_ADHESION_H_
#define MJGRANULAR_GRN_ADHESION_H_

#include "granular.h"
#include "grn_math.h"

// the area of a contact whose smaller radius is rmin (a grain's own against a shape), at overlap
// (> 0; a gap < 0). pbd: the seed's quadratic interpolation pi rmin^2 (1 - (overlap / rmin - 1)^2),
// zero at first touch and the smaller grain's cross-section from overlap = rmin on. pj: rigid
// grains do not overlap, so a touching contact (gap below GRN_ADHESION_RANGE rmin) has the area
// the seed's grows to, the cross-section
GRN_HD float grn_adhesive_area_of(int model, float overlap, float rmin) {
  const float pi = 3.14159265358979f;
  float full = pi * rmin * rmin;
  if (model != grnMODEL_PBD) return overlap >= -(float)GRN_ADHESION_RANGE * rmin ? full : 0.0f;
  if (!(overlap > 0)) return 0.0f;
  if (overlap >= rmin) return full;
  float s = overlap / rmin - 1.0f;
  return full * (1.0f - s * s);
}

#endif  // MJGRANULAR_GRN_ADHESION_H_
