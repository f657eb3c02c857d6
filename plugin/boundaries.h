// static boundaries of the granular domain: the world body's collidable geoms and the `domain`
// container, as solver shapes.
#ifndef MJGRANULAR_PLUGIN_BOUNDARIES_H_
#define MJGRANULAR_PLUGIN_BOUNDARIES_H_

#include <mujoco/mujoco.h>

#include "config.h"
#include "granular.h"

// Upper bound on the number of static shapes of a model (world geoms + domain).
int mjg_boundaries_max(const mjModel* m);

// Write the static shapes into out (at most max): every collidable world-body geom with a
// closed-form distance (plane, sphere, capsule, ellipsoid, cylinder, box) and, when the domain key
// is given, the inside of the domain box. Returns the count; world geoms of other types (mesh,
// hfield, sdf), which the grains pass through for now, are counted in *nskipped (may be NULL).
int mjg_boundaries_static(const mjModel* m, const mjgConfig* cfg, grnShape* out, int max,
                          int* nskipped);

#endif  // MJGRANULAR_PLUGIN_BOUNDARIES_H_
