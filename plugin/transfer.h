// the grains between an instance's plugin_state (mjtNum) and the solver (float): the upload before
// and the download after the substeps of every advance.
#ifndef MJGRANULAR_PLUGIN_TRANSFER_H_
#define MJGRANULAR_PLUGIN_TRANSFER_H_

#include <mujoco/mujoco.h>

#include "grain_types.h"
#include "granular.h"
#include "state.h"

// floats per grain in a staging array: the state's grain parts (positions to types), laid out as
// the state lays them out after its header
#define MJG_STAGE_PER_GRAIN (mjg_state_offset(mjgSTATE_WRENCH, 1, 0) - MJG_STATE_HEADER)

// the grains of a plugin_state block of capacity cap with nbody wrench slots, staged on their way
// to and from the solver
typedef struct mjgStage_ {
  int cap;                  // grain capacity
  int nbody;                // bodies (wrench slots)
  float* grain;             // the state's grain parts as floats    (cap x MJG_STAGE_PER_GRAIN)
  int* type;                // the grains' types as the solver takes them                 (cap)
  double* wrench;           // per-body wrenches                                    (nbody x 6)
} mjgStage;

// Allocate a stage; 0, or -1 when out of memory (stage is then freed).
int mjg_stage_alloc(mjgStage* stage, int cap, int nbody);

// Free a stage; a zeroed struct is fine.
void mjg_stage_free(mjgStage* stage);

// Load the first n grains and the contact state of a plugin_state block into the solver,
// narrowing through the stage: spheres (types NULL), or with types the clumps of the grains'
// types (a solver with max_clumps). grnERR_NONFINITE when a grain is not finite (as a float),
// grnERR_ARG when a radius is not in (0, the solver's radius], a type is not one of types, an
// orientation is not a unit quaternion or the contact state does not fit the grains; then why
// (may be NULL) names the grain and what is wrong.
grnStatus mjg_transfer_upload(grnSolver* solver, const mjgGrainTypes* types, const mjtNum* state,
                              int n, mjgStage* stage, char* why, int why_size);

// Write the solver's grains, its per-body wrenches (the last advance's averages) and its contact
// state back into a plugin_state block, widening through the stage. The grain count and types in
// the block are left as they are; so are the radii of spheres (the solver keeps what the upload
// gave it), while a clump's radius becomes the bound of its type.
grnStatus mjg_transfer_download(const grnSolver* solver, const mjgGrainTypes* types,
                                mjtNum* state, mjgStage* stage);

#endif  // MJGRANULAR_PLUGIN_TRANSFER_H_
