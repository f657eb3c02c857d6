// coupled bodies: which MuJoCo bodies the grains feel (the `bodies` key), their geoms as moving
// solver shapes each step, and the body velocities that drive them.
#ifndef MJGRANULAR_PLUGIN_BODIES_H_
#define MJGRANULAR_PLUGIN_BODIES_H_

#include <mujoco/mujoco.h>

#include "config.h"
#include "geoms.h"
#include "granular.h"

// the geoms of the coupled bodies, as solver shapes in their geom frames
typedef struct mjgBodies_ {
  int nbody;                // bodies in the model
  int* coupled;             // 1: the body couples with the grains                (nbody)
  int ngeom;                // geoms that become shapes
  int* geom;                // their geom ids                                     (ngeom)
  grnShape* shape;          // their shapes: type, size, grid, friction, body slot (ngeom)
  int nskipped;             // collidable geoms of coupled bodies the grains pass through
  mjtNum* cvel;             // scratch: body spatial velocities                   (nbody x 6)
} mjgBodies;

// Resolve the `bodies` key of instance into coupled (nbody): the named bodies (names separated by
// white space), or by default every body but the world that has a collidable geom. An unknown
// name or the world body is refused: -1 with a message naming the key and the name in msg.
int mjg_bodies_select(const mjModel* m, int instance, int* coupled, char* msg, int msg_size);

// Flag in need (nmesh) the meshes of the collidable geoms of the coupled bodies (need is not
// cleared first).
void mjg_bodies_meshes(const mjModel* m, const int* coupled, int* need);

// Make the shapes of the coupled bodies' collidable geoms (coupled is copied); grids may be NULL
// (mesh geoms are then skipped). Returns 0, or -1 when out of memory.
int mjg_bodies_init(const mjModel* m, const mjgConfig* cfg, const int* coupled,
                    const mjgMeshGrids* grids, mjgBodies* out);

// Free the arrays; a zeroed struct is fine.
void mjg_bodies_free(mjgBodies* b);

// Spatial velocity of every body (nbody x 6: angular then linear, world orientation, linear at
// d->subtree_com of the body's root, as d->cvel) for the joint velocities qvel (nv), mapped through
// the motion axes d->cdof of the last kinematics pass: d->cvel when qvel is the qvel of that pass.
void mjg_bodies_cvel(const mjModel* m, const mjData* d, const mjtNum* qvel, mjtNum* cvel);

// Write the coupled geoms as solver shapes into out (at most max; returns the count): pose from
// d->geom_xpos, d->geom_xmat, centre of mass d->xipos (the kinematics of the step's start when
// called from advance), velocity at the centre of mass from d->qvel (the step's end velocity,
// which mujoco's semi-implicit euler moves the positions with) through mjg_bodies_cvel.
int mjg_bodies_shapes(const mjModel* m, const mjData* d, mjgBodies* b, grnShape* out, int max);

// Set the velocities of the n shapes written by mjg_bodies_shapes from the joint velocities qvel
// (nv), through the kinematics in d: angular velocity, and linear velocity at the centre of mass.
void mjg_bodies_velocity(const mjModel* m, const mjData* d, mjgBodies* b, const mjtNum* qvel,
                         grnShape* shapes, int n);

#endif  // MJGRANULAR_PLUGIN_BODIES_H_
