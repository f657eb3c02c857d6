// the grains between an instance's plugin_state (mjtNum) and the solver (float): the upload before
// and the download after the substeps of every advance.
#ifndef MJGRANULAR_PLUGIN_TRANSFER_H_
#define MJGRANULAR_PLUGIN_TRANSFER_H_

#include <mujoco/mujoco.h>

#include "granular.h"
#include "state.h"

// floats per grain in a staging array: the state's grain parts (positions to radii), laid out as
// the state lays them out after its header
#define MJG_STAGE_PER_GRAIN (mjg_state_offset(mjgSTATE_WRENCH, 1, 0) - MJG_STATE_HEADER)

// Load the first n grains and the contact state of a plugin_state block (capacity cap, nbody
// wrench slots) into the solver, narrowing through the staging array stage (cap x
// MJG_STAGE_PER_GRAIN). grnERR_NONFINITE when a grain is not finite (as a float), grnERR_ARG when
// a radius is not in (0, the solver's radius] or the contact state does not fit the grains; then
// why (may be NULL) names the grain and what is wrong.
grnStatus mjg_transfer_upload(grnSolver* solver, const mjtNum* state, int cap, int nbody, int n,
                              float* stage, char* why, int why_size);

// Write the solver's grains, its per-body wrenches (the last advance's averages) and its contact
// state back into a plugin_state block, widening through the staging arrays stage (cap x
// MJG_STAGE_PER_GRAIN) and wrench (nbody x 6). The grain count and the radii in the block are
// left as they are (the solver keeps what the upload gave it).
grnStatus mjg_transfer_download(const grnSolver* solver, mjtNum* state, int cap, int nbody,
                                float* stage, double* wrench);

#endif  // MJGRANULAR_PLUGIN_TRANSFER_H_
