// the grain types of a terrain (key shape): each MJCF mesh named becomes a rigid clump of spheres
// fitted to it, with the mass, centre of mass and inertia of the mesh's own solid; the word
// sphere, a single sphere of key radius. Built once per mjData at model load.
#ifndef MJGRANULAR_PLUGIN_GRAIN_TYPES_H_
#define MJGRANULAR_PLUGIN_GRAIN_TYPES_H_

#include <stdint.h>

#include <mujoco/mujoco.h>

#include "clump_fit.h"
#include "config.h"
#include "granular.h"

// spheres per clump unless a terrain asks otherwise: beyond 8 the fit stops leaving whole corners
// out, and 32 cost twice the contacts for a third less surface deviation (kernels/README.md)
#define MJG_CLUMP_SPHERES_DEFAULT 16

// grid nodes per cube root of a mesh's volume on which its clump is fitted: the fits measured in
// kernels/README.md, about 10 to 65 ms each (scripts/bench/bench_clump)
#define MJG_CLUMP_CELLS_PER_SIZE 24

// one grain type: a clump of spheres in the grain's body frame, the principal frame of its mesh's
// solid with the centre of mass at the origin (a sphere: one sphere at the origin)
typedef struct mjgGrainType_ {
  int mesh;                 // mesh id in the model; -1: a sphere
  double volume;            // of the mesh's solid [m^3]
  double mass;              // density x volume [kg]
  double inertia[3];        // principal moments about the body axes, ascending [kg m^2]
  double pos[3];            // body frame origin (centre of mass) in the mesh's frame [m]
  double quat[4];           // body frame orientation in the mesh's frame (w x y z); the mesh's
                            // frame is that of mjModel's mesh_vert, the geom frame of a mesh geom
  double bound;             // radius about the centre of mass that bounds mesh and spheres [m]
  int nsphere;              // spheres in the clump
  float* sphere;            // centre in the body frame, radius [m]               (nsphere x 4)
  double cell;              // node spacing of the grid the spheres were fitted on (a mesh) [m]
  grnClumpFit fit;          // how well the spheres fill the mesh (a mesh)
} mjgGrainType;

// the grain types of a terrain
typedef struct mjgGrainTypes_ {
  int ntype;                // number of types
  mjgGrainType* type;       // one per name, in the order named                       (ntype)
  grnClumpType* clump;      // the types as the solver takes them (mjg_grain_types_make) (ntype);
                            // with shape_model cem a mesh type's first sphere is its bound
  float* bounded;           // those types' spheres, bound first (shape_model cem, else NULL)
  float* cem;               // the contact fields for the solver (shape_model cem, else NULL)
  long long cem_floats;     // their length
  float radius;             // the largest solver sphere of any type (mjg_grain_types_make) [m]
  double bound;             // the largest type's bound (mjg_grain_types_make)            [m]
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

// The grain types of terrain instance `instance`'s config, in the order of key shape, with the
// solver's table: a mesh's as mjg_grain_types_build makes it (cfg's density and clump_spheres), a
// sphere of key radius for the word sphere; with shape_model cem each mesh type's solver spheres
// led by its bound and the fields of key cem_fields. On failure free everything, write a message
// naming the key (shape or cem_fields), the mesh and the cause into msg and return -1.
int mjg_grain_types_make(const mjModel* m, int instance, const mjgConfig* cfg, mjgGrainTypes* out,
                         char* msg, int msg_size);

// The size of mesh id's solid as a grain: the radius of the sphere about its centre of mass that
// holds every vertex into *reach, and the radius of a sphere of its volume into *equal [m]. On
// failure (a mesh that bounds no solid) -1 with the mesh and the cause in why.
int mjg_grain_mesh_size(const mjModel* m, int id, double* reach, double* equal, char* why,
                        int why_size);

// The radius of a sphere of volume [m^3]: a grain type's equal-volume radius r_eq [m].
double mjg_grain_equal_radius(double volume);

// A fingerprint of the types' clumps as the solver takes them (spheres, mass, moments, in order,
// and the contact fields):
// equal types give equal fingerprints in every process; 0 for NULL (a terrain of spheres).
uint64_t mjg_grain_types_hash(const mjgGrainTypes* types);

// Say on stderr how each mesh type's spheres fill its mesh (spheres, volume and surface deviation,
// mass), once per process for each distinct line: rollouts make an mjData after another.
void mjg_grain_types_report(const mjModel* m, const mjgGrainTypes* types);

// The height [m] of the highest point of a grain of this type's spheres with its centre of mass
// at pos and its body frame turned by quat (w x y z, body to world).
double mjg_grain_top(const mjgGrainType* type, const mjtNum pos[3], const mjtNum quat[4]);

// Free the types; a zeroed struct is fine.
void mjg_grain_types_free(mjgGrainTypes* types);

#endif  // MJGRANULAR_PLUGIN_GRAIN_TYPES_H_
