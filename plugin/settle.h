// the `settle` key: the initial bed let fall and come to rest among the static boundaries at model
// load, once per process for each distinct input, and shared read-only by every mjData (and every
// reset) of every model that gives the same input.
#ifndef MJGRANULAR_PLUGIN_SETTLE_H_
#define MJGRANULAR_PLUGIN_SETTLE_H_

#include "bed.h"
#include "geoms.h"
#include "granular.h"

// everything a settled bed depends on
typedef struct mjgSettleInput_ {
  grnSolver* solver;        // settles the bed; its params and backend are part of the input
  const mjgGrainTypes* types;  // the clumps of mesh grains; NULL: spheres
  int nsub;                 // substeps per MuJoCo step
  int nstep;                // MuJoCo steps of settling
  const grnShape* shapes;   // static boundaries                                   (nshape)
  int nshape;               // number of static boundaries
  const mjgMeshGrids* grids;  // the mesh grids those shapes refer to
  const mjgBed* initial;    // the bed before settling
} mjgSettleInput;

// The bed of in->initial after in->nstep steps of in->nsub substeps against the static shapes
// alone, with its contact state. Settled now with in->solver, unless an equal input was settled
// earlier in this process (or is being settled by another thread, which is waited for): then the
// same bed is returned without settling. Thread-safe. NULL on failure with the cause in why.
// Release with mjg_settle_release.
const mjgBed* mjg_settle_acquire(const mjgSettleInput* in, char* why, int why_size);

// Release a bed from mjg_settle_acquire (NULL is allowed). The last few released beds are kept,
// so a model that is compiled (which makes and deletes an mjData) and then given an mjData
// settles once.
void mjg_settle_release(const mjgBed* bed);

// Number of beds settled (not found in the cache) in this process so far.
long long mjg_settle_runs(void);

#endif  // MJGRANULAR_PLUGIN_SETTLE_H_
