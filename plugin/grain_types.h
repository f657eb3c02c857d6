// the grain types of a terrain built from MJCF meshes (issue 19, in progress): each mesh becomes a
// rigid clump of spheres fitted inside it, with the mass, centre of mass and inertia of the mesh's
// own solid. Built once at model load; not yet used by the solver (it cannot move clumps yet).
#ifndef MJGRANULAR_PLUGIN_GRAIN_TYPES_H_
#define MJGRANULAR_PLUGIN_GRAIN_TYPES_H_

#include <mujoco/mujoco.h>

#include "clump_fit.h"

// spheres per clump unless a terrain asks otherwise: beyond 8 the fit stops leaving whole corners
// out, and 32 cost twice the contacts for a third less surface deviation (kernels/README.md)
#define MJG_CLUMP_SPHERES_DEFAULT 16

// grid nodes per cube root of a mesh's volume on which its clump is fitted: the fits measured in
// kernels/README.md, about 10 to 65 ms each (scripts/bench/bench_clump)
#define MJG_CLUMP_CELLS_PER_SIZE 24

// one grain type: a clump of spheres in the grain's body frame, the principal frame of its mesh's
// solid with the centre of mass at the origin
typedef struct mjgGrainType_ {
  int mesh;                 // mesh id in the model
  double volume;            // of the mesh's solid [m^3]
  double mass;              // density x volume [kg]
  double inertia[3];        // principal moments about the body axes, ascending [kg m^2]
  double pos[3];            // body frame origin (centre of mass) in the mesh's frame [m]
  double quat[4];           // body frame orientation in the mesh's frame (w x y z); the mesh's
                            // frame is that of mjModel's mesh_vert, the geom frame of a mesh geom
  int nsphere;              // spheres in the clump
  float* sphere;            // centre in the body frame, radius [m]               (nsphere x 4)
  double cell;              // node spacing of the grid the spheres were fitted on [m]
  grnClumpFit fit;          // how well the spheres fill the mesh
} mjgGrainType;

// the grain types of a terrain
typedef struct mjgGrainTypes_ {
  int ntype;                // number of types
  mjgGrainType* type;       // one per mesh named, in the order named                 (ntype)
} mjgGrainTypes;

// Build a grain type for each of the nmesh meshes of m named in names, at density [kg/m^3],
// with at most clump_spheres spheres (1 .. GRN_CLUMP_MAX_SPHERES) fitted on a grid of
// MJG_CLUMP_CELLS_PER_SIZE cells per cube root of the mesh's volume. Deterministic. The mesh must
// bound a closed, consistently outward-oriented solid. On failure free everything, write a message
// naming the mesh and the cause into msg and return -1: an unknown or repeated name, a mesh that
// is open, misoriented or inside out, a grid that would be too large (a mesh spread thin over its
// bounding box) or too coarse to hold a sphere (a mesh thin for its volume), a bad density or
// clump_spheres.
int mjg_grain_types_build(const mjModel* m, const char* const* names, int nmesh,
                          double density, int clump_spheres, mjgGrainTypes* out, char* msg,
                          int msg_size);

// Free the types; a zeroed struct is fine.
void mjg_grain_types_free(mjgGrainTypes* types);

#endif  // MJGRANULAR_PLUGIN_GRAIN_TYPES_H_
