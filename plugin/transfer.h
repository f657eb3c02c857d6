// the grains between an instance's plugin_state (mjtNum) and the solver (float): the upload before
// and the download after the substeps of every advance.
#ifndef MJGRANULAR_PLUGIN_TRANSFER_H_
#define MJGRANULAR_PLUGIN_TRANSFER_H_

#include <mujoco/mujoco.h>

#include "granular.h"

// Narrow the first n grains of a plugin_state block (capacity cap) into pos, vel (n x 3).
void mjg_transfer_narrow(const mjtNum* state, int cap, int n, float* pos, float* vel);

// Widen n grains from pos, vel (n x 3) into a plugin_state block (capacity cap).
void mjg_transfer_widen(const float* pos, const float* vel, int n, mjtNum* state, int cap);

// Load the first n grains and the contact state of a plugin_state block (capacity cap, nbody
// wrench slots) into the solver, narrowing through the staging arrays pos, vel (cap x 3).
// grnERR_NONFINITE when a grain is not finite (as a float), grnERR_ARG when the contact state
// does not fit the grains.
grnStatus mjg_transfer_upload(grnSolver* solver, const mjtNum* state, int cap, int nbody, int n,
                              float* pos, float* vel);

// Write the solver's grains, its per-body wrenches (the last advance's averages) and its contact
// state back into a plugin_state block, widening through the staging arrays pos, vel (cap x 3)
// and wrench (nbody x 6). The grain count in the block is left as it is.
grnStatus mjg_transfer_download(const grnSolver* solver, mjtNum* state, int cap, int nbody,
                                float* pos, float* vel, double* wrench);

#endif  // MJGRANULAR_PLUGIN_TRANSFER_H_
