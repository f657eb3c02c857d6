// rigid clumps of overlapping spheres fitted to a mesh from its signed distance grid: the shape of
// a clump grain (issue 19, in progress). Built on the host at model load. No MuJoCo dependency.
//
// The centres are chosen greedily among the nodes on the ridges of the distance field (its
// discrete medial axis), each the one whose maximal inscribed sphere (radius the node's depth)
// most reduces the mesh volume the clump misses. Then each radius is refitted in turn, the others
// fixed, to the one that leaves the least volume in one of mesh and clump but not the other: a
// sphere may grow out of the surface where it covers more of the mesh than it adds outside, so the
// clump keeps the mesh's volume and fills its corners and edges (as DEM clump generators do),
// instead of underfilling them. Volumes and deviations are measured on the grid's nodes.

#ifndef MJGRANULAR_CLUMP_FIT_H_
#define MJGRANULAR_CLUMP_FIT_H_

#include "granular.h"

#ifdef __cplusplus
extern "C" {
#endif

// most spheres one fit may place, a work limit (each costs a walk over the grid nodes it covers)
#define GRN_CLUMP_MAX_SPHERES 1024

// how well a clump of spheres fills its mesh, measured on the grid's nodes
typedef struct grnClumpFit_ {
  int count;                 // spheres placed
  double mesh_volume;        // volume inside the mesh [m^3]
  double clump_volume;       // volume of the union of the spheres [m^3]
  double volume_deviation;   // volume in one of mesh and clump but not the other, over mesh_volume
  double size;               // the mesh's size: the diameter of a sphere of its volume [m]
  double surface_mean;       // mean distance from the mesh surface to the clump's surface (inside
                             // or out), over size
  double surface_max;        // largest such distance, over size
} grnClumpFit;

// Fit at most max_spheres spheres to the mesh whose signed distance grid (negative inside, as
// grn_sdf_mesh_build makes) is grid. Stops at the fewest spheres whose volume_deviation is at
// most tolerance (0: place all max_spheres unless no sphere adds volume). Writes the spheres to
// the first fit->count rows of spheres (max_spheres x 4: centre in the grid's frame, radius [m]),
// in the order chosen (largest contribution first), and the fit's figures to fit. Deterministic.
// Centres lie on nodes inside the mesh; a radius is at least the centre's depth (so at least a
// cell) and reaches out of the mesh at most to half a cell inside the grid's edge, where the grid
// stops measuring: a grid with a margin of a few cells holds the spheres nearer to inscribed
// (plugin/grain_types.c gives half the mesh's smallest extent). Refuses with grnERR_ARG, saying
// why in msg (may be NULL; msg_size bytes at most): max_spheres outside 1..GRN_CLUMP_MAX_SPHERES,
// tolerance outside [0, 1), a grid that is not finite or larger than GRN_SDF_MAX_NODES, a grid
// with no node inside the mesh, or one too coarse to hold one sphere (no node a cell deep);
// grnERR_MEMORY when allocation fails.
grnStatus grn_clump_fit(const grnGrid* grid, int max_spheres, double tolerance, float* spheres,
                        grnClumpFit* fit, char* msg, int msg_size);

#ifdef __cplusplus
}
#endif

#endif  // MJGRANULAR_CLUMP_FIT_H_
