// static boundaries of the granular domain: the world body's collidable geoms and the `domain`
// container, as solver shapes.
#ifndef MJGRANULAR_PLUGIN_BOUNDARIES_H_
#define MJGRANULAR_PLUGIN_BOUNDARIES_H_

#include <mujoco/mujoco.h>

#include "config.h"
#include "geoms.h"
#include "granular.h"

// Upper bound on the number of static shapes of a model (world geoms + domain).
int mjg_boundaries_max(const mjModel* m);

// Flag in need (nmesh) the meshes of collidable world-body geoms (need is not cleared first).
void mjg_boundaries_meshes(const mjModel* m, int* need);

// Write the static shapes into out (at most max): every collidable world-body geom that can touch
// grains (primitives by their closed forms, meshes by their grid in grids, which may be NULL) and,
// when the domain key is given, the inside of the domain box. Returns the count; world geoms the
// grains pass through (height fields, sdf plugin geoms, meshes without a grid) are counted in
// *nskipped (may be NULL).
int mjg_boundaries_static(const mjModel* m, const mjgConfig* cfg, const mjgMeshGrids* grids,
                          grnShape* out, int max, int* nskipped);

#endif  // MJGRANULAR_PLUGIN_BOUNDARIES_H_
