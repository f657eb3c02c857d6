// the mjgranular.terrain plugin instance: what lives in plugin_data (caches only) and the plugin
// callbacks. Everything a step needs to continue is in plugin_state (see state.h).
#ifndef MJGRANULAR_PLUGIN_TERRAIN_H_
#define MJGRANULAR_PLUGIN_TERRAIN_H_

#include <stdint.h>

#include <mujoco/mujoco.h>

#include "bed.h"
#include "bodies.h"
#include "config.h"
#include "geoms.h"
#include "grain_types.h"
#include "granular.h"
#include "transfer.h"

// one instance's caches, rebuildable from the model, the config and plugin_state
typedef struct mjgTerrain_ {
  mjgConfig cfg;            // parsed config
  int cap;                  // grain capacity
  int nbody;                // bodies in the model: wrench slots
  mjgGrainTypes types;      // the grain types of key shape, with mesh grains; else none
  const mjgGrainTypes* clumps;  // &types with mesh grains (the solver moves clumps); else NULL
  mjgBed own;               // initial bed from the fill lattice or the bed file
  const mjgBed* settled;    // own settled (settle key), shared by the process; NULL: none
  const mjgBed* bed;        // the bed every reset writes: settled, else &own
  grnSolver* solver;        // solver buffers; recreated when the substep or gravity change
  double solver_dt;         // substep the solver was made for [s]
  float solver_gravity[3];  // gravity the solver was made for [m/s^2]
  int max_shapes;           // capacity of shapes: world geoms + domain + coupled geoms
  int nstatic;              // static shapes at the front of shapes
  mjgMeshGrids meshes;      // sdf grids of the meshes that touch grains; re-added to new solvers
  mjgBodies bodies;         // coupled bodies: their geoms as moving shapes
  grnShape* shapes;         // shapes handed to the solver each step              (max_shapes)
  mjgStage stage;           // grains staged for the solver, per-body wrenches read from it
  float* mobility;          // two-way: each body's impulse response (J A^-1 J^T) (nbody x 36)
  float* accel;             // two-way: each body's acceleration this step       (nbody x 6)
  double* impint;           // two-way: impulse integrals read from the solver   (nbody x 6)
  mjtNum* step_matrix;      // two-way: sparse factor of the integrator's M + h D (nC + nv)
  mjtNum* qacc;             // two-way: acceleration the integrator applied      (nv)
  int downloaded;           // gpu: 1 when the solver holds the state of the last download,
                            // 0 before it and after any failure (the next advance uploads)
  uint64_t download_hash;   // gpu: mjg_state_hash of plugin_state after the last download
  int failing;              // 1 while advance keeps failing (warn once per run of failures)
  int capped;               // 1 once the scene-budget note was given
} mjgTerrain;

// plugin callbacks (see mjpPlugin)
int mjg_terrain_nstate(const mjModel* m, int instance);
int mjg_terrain_init(const mjModel* m, mjData* d, int instance);
void mjg_terrain_destroy(mjData* d, int instance);
void mjg_terrain_reset(const mjModel* m, mjtNum* plugin_state, void* plugin_data, int instance);
void mjg_terrain_compute(const mjModel* m, mjData* d, int instance, int capability_bit);
void mjg_terrain_advance(const mjModel* m, mjData* d, int instance);
void mjg_terrain_visualize(const mjModel* m, mjData* d, const mjvOption* opt, mjvScene* scn,
                           int instance);

#endif  // MJGRANULAR_PLUGIN_TERRAIN_H_
