// mujoco geoms as solver shapes: closed-form signed distances for the primitives, sampled signed
// distance grids for meshes (built once per process for each mesh and spacing), nothing for
// height fields and sdf plugin geoms.
#ifndef MJGRANULAR_PLUGIN_GEOMS_H_
#define MJGRANULAR_PLUGIN_GEOMS_H_

#include <mujoco/mujoco.h>

#include "config.h"
#include "granular.h"

// the signed distance grids of the meshes that touch the grains
typedef struct mjgMeshGrids_ {
  int nmesh;                // meshes in the model
  int ngrid;                // grids built
  int* mesh_grid;           // grid index of each mesh, -1: none built             (nmesh)
  float* mesh_rbound;       // radius about the geom frame origin enclosing a mesh (nmesh)
  const grnGrid** grid;     // the grids (shared, geoms.c); solver grid index = index here (ngrid)
} mjgMeshGrids;

// 1 if geom g collides with something (contype or conaffinity is not 0).
int mjg_geom_collides(const mjModel* m, int g);

// Margin of a mesh grid around the mesh's bounding box [m]: the contact reach of a grain, radius
// (1 + the solver's speculative margin), plus one grid cell.
double mjg_mesh_margin(const mjgConfig* cfg);

// The grids of the meshes flagged in need (nmesh), node spacing cfg->sdf_cell: built once per
// process for each distinct mesh and spacing and shared read-only by every model and mjData that
// ask for an equal one. On failure free everything, write a message naming the key and the mesh
// into msg and return -1.
int mjg_mesh_grids_build(const mjModel* m, const mjgConfig* cfg, const int* need,
                         mjgMeshGrids* out, char* msg, int msg_size);

// Copy every grid into a solver, in order: grid i becomes the solver's grid i.
grnStatus mjg_mesh_grids_add(const mjgMeshGrids* grids, grnSolver* solver);

// Release the grids; a zeroed struct is fine.
void mjg_mesh_grids_free(mjgMeshGrids* grids);

// The solver shape of geom g at rest at the world origin: type, size, bounding radius, grid
// (meshes), friction (the geom's own sliding, torsional and rolling friction, as given); body -1.
// Returns 0 when the geom cannot touch grains: height fields, sdf plugin geoms, meshes without a
// grid in grids (may be NULL).
int mjg_geom_shape(const mjModel* m, int g, const mjgMeshGrids* grids, grnShape* s);

// The signed distance grid of a mesh, vert (nvert x 3) and face (nface x 3), at node spacing cell
// over its bounding box grown by margin [m]: built once per process for each distinct mesh,
// spacing and margin (now, unless an equal one was asked for before) and shared read-only.
// NULL with the cause in why on failure. Release with mjg_mesh_grid_release.
const grnGrid* mjg_mesh_grid_acquire(const float* vert, int nvert, const int* face, int nface,
                                     float cell, float margin, char* why, int why_size);

// Release a grid from mjg_mesh_grid_acquire; NULL is allowed.
void mjg_mesh_grid_release(const grnGrid* grid);

// Name of mesh id, or "#id" written into buf (size bytes) when it has none.
const char* mjg_mesh_name(const mjModel* m, int id, char* buf, int size);

// Nodes a grid of a mesh's vertices (nvert x 3) at spacing cell and margin would have, an upper
// bound (grn_sdf_mesh_build may add a cell per axis): to refuse one beyond GRN_SDF_MAX_NODES with
// a message of the caller's.
double mjg_mesh_grid_nodes(const float* vert, int nvert, double cell, double margin);

// Number of mesh grids built (not found in the cache) in this process so far.
long long mjg_mesh_grid_builds(void);

#endif  // MJGRANULAR_PLUGIN_GEOMS_H_
