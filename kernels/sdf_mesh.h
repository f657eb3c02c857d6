// signed distance grids of triangle meshes, built on the host at model load. No MuJoCo dependency.
//
// A grid node within the band of the surface (max(margin, 4 cells)) holds the exact distance to
// the nearest triangle, found with a bounding volume hierarchy over the triangles; beyond the band
// a node holds the distance to a triangle propagated from its neighbours (closest-triangle fast
// sweeping): an upper bound on the distance, exact at most nodes and up to about a cell too far
// at others (0.9 cell measured deep inside a 2 x 3 x 1 box, plugin/grain_types.c); no grain
// touches the surface from there when margin exceeds the contact distance.
// The sign comes from the generalized winding number (Jacobson et al. 2013), evaluated
// hierarchically with a first-order far-field expansion per tree node (Barill et al. 2018): a
// node is inside where |winding| > 1/2, which is right for closed meshes, for meshes with small
// holes or cracks, for overlapping closed parts and for meshes whose faces all point inward.

#ifndef MJGRANULAR_SDF_MESH_H_
#define MJGRANULAR_SDF_MESH_H_

#include "granular.h"

#ifdef __cplusplus
extern "C" {
#endif

// largest grid grn_sdf_mesh_build accepts, a work and memory limit: 128 MiB of distances (the
// plugin holds each grid twice, its own and the solver's copy), a cube 1.2 m wide at a 4 mm cell;
// the gear tower's tube takes 1.4 M nodes
#define GRN_SDF_MAX_NODES (1 << 25)

//---------------------------------- triangle tree -------------------------------------------------

typedef struct grnMeshTree_ grnMeshTree;

// Build the tree of a mesh: vert (nvert x 3), face (nface x 3) vertex indices. Refuses with
// grnERR_ARG no faces, non-finite vertices and indices out of range; *out is NULL on failure.
grnStatus grn_mesh_tree_create(const float* vert, int nvert, const int* face, int nface,
                               grnMeshTree** out);

// Free a tree; NULL is allowed.
void grn_mesh_tree_free(grnMeshTree* tree);

// Exact distance from p (3) to the nearest triangle. hint: a triangle index whose distance seeds
// the search (-1: none); *tri (may be NULL) receives the nearest triangle's index.
double grn_mesh_tree_distance(const grnMeshTree* tree, const double* p, int hint, int* tri);

// Generalized winding number at p (3): 1 inside a closed outward-facing mesh, 0 outside, in
// between near holes; hierarchical, within about 0.03 of the exact sum of solid angles.
double grn_mesh_tree_winding(const grnMeshTree* tree, const double* p);

//---------------------------------- grids ---------------------------------------------------------

// Build the signed distance grid of a mesh (negative inside) over the bounding box of its faces
// grown by margin on every side (the grid is centred on the box and may reach up to a cell
// further), node spacing cell [m]. Uses OpenMP threads. On success grid->values holds
// nx*ny*nz floats, x fastest, allocated here: release them with grn_sdf_mesh_free. Refuses with
// grnERR_ARG bad meshes (as grn_mesh_tree_create), a cell that is not positive and finite, a
// negative or non-finite margin, and grids of more than GRN_SDF_MAX_NODES nodes.
grnStatus grn_sdf_mesh_build(const float* vert, int nvert, const int* face, int nface,
                             float cell, float margin, grnGrid* grid);

// Release the values of a grid built by grn_sdf_mesh_build and zero it; NULL is allowed.
void grn_sdf_mesh_free(grnGrid* grid);

#ifdef __cplusplus
}
#endif

#endif  // MJGRANULAR_SDF_MESH_H_
