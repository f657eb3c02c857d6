// the substep as a table of phases, written once: each backend walks a model's table, the cpu
// inside its openmp region and cuda as one launch per entry, so the order of a substep lives
// here and nowhere else. a phase is a loop over grains or over contact pairs calling one shared
// function per item, or one of the few steps the backends do their own way (the hash, a prefix
// sum, reductions over bodies).
//
// adding a contact model: a header grn_contact_<model>.h with its per-slot state (in
// GRN_LAW_STATE, grn_data.h), its per-grain and per-pair functions, its phases in the lists
// below and its table; see kernels/README.md.
#ifndef MJGRANULAR_GRN_PHASES_H_
#define MJGRANULAR_GRN_PHASES_H_

#include "grn_clump.h"
#include "grn_collide.h"
#include "grn_contact_dem.h"
#include "grn_contact_pbd.h"
#include "grn_contact_pj.h"
#include "grn_integrate.h"
#include "grn_pairing.h"

// the projected jacobi model's grain phases that combine model-free work with the law's
GRN_HD void grn_pj_narrowphase_grain(const grnData* d, const grnConsts* c, int i) {
  grn_predict_grain(d, c, i);
  grn_collide_grain(d, c, i, 0);
  grn_pj_start_grain(d, c, i);
}
GRN_HD void grn_pj_integrate_grain(const grnData* d, const grnConsts* c, int i) {
  grn_integrate_grain(d, c, i);
  grn_pj_store_grain(d, c, i);
}

// the dem model's with contact fields, which pair the contacts: the contacts found, and the
// shape contacts' forces (they need nothing else); then the pairs numbered
GRN_HD void grn_dem_cem_narrowphase_grain(const grnData* d, const grnConsts* c, int i) {
  grn_collide_grain(d, c, i, 0);
  grn_dem_shape_forces(d, c, i, 0);
}
GRN_HD void grn_dem_pairs_grain(const grnData* d, const grnConsts* c, int i) {
  grn_number_pairs(d, i);
}

// the pbd model's: the contacts found, and the predicted displacement as the first iterate
GRN_HD void grn_pbd_narrowphase_grain(const grnData* d, const grnConsts* c, int i) {
  grn_collide_grain(d, c, i, 0);
  grn_pbd_start_grain(d, c, i);
}

// the projected jacobi model's clump phase that stores its spheres' warm starts and moves it
GRN_HD void grn_pj_clump_integrate(const grnData* d, const grnConsts* c, int k) {
  int first = d->clump_first[k], end = first + d->clump_count[k];
  for (int e = first; e < end; e++) grn_pj_store_grain(d, c, e);
  grn_pj_clump_move(d, c, k);
}

// phases that loop over the grains: X(phase, function of (d, c, i), 1 when it moves the grains
// (the backend then measures how far they have gone since the neighbour lists were built))
#define GRN_GRAIN_PHASES(X)                                       \
  X(grnPHASE_PJ_NARROWPHASE, grn_pj_narrowphase_grain, 0)         \
  X(grnPHASE_LINK, grn_link_grain, 0)                             \
  X(grnPHASE_PJ_PAIRS, grn_pj_pairs_grain, 0)                     \
  X(grnPHASE_PJ_SOLVE_GRAINS, grn_pj_solve_grain, 0)              \
  X(grnPHASE_PJ_INTEGRATE, grn_pj_integrate_grain, 1)                \
  X(grnPHASE_DEM_FORCES, grn_dem_forces_grain, 0)                 \
  X(grnPHASE_DEM_INTEGRATE, grn_dem_integrate_grain, 1)           \
  X(grnPHASE_DEM_CEM_NARROWPHASE, grn_dem_cem_narrowphase_grain, 0) \
  X(grnPHASE_DEM_PAIRS, grn_dem_pairs_grain, 0)                   \
  X(grnPHASE_DEM_PAIR_SUMS, grn_dem_pair_sums_grain, 0)           \
  X(grnPHASE_PBD_NARROWPHASE, grn_pbd_narrowphase_grain, 0)       \
  X(grnPHASE_PBD_PAIRS, grn_pbd_pairs_grain, 0)                   \
  X(grnPHASE_PBD_SOLVE_GRAINS, grn_pbd_solve_grain, 0)            \
  X(grnPHASE_PBD_INTEGRATE, grn_pbd_integrate_grain, 1)

// phases that loop over the contact pairs: X(phase, function of (d, c, p))
#define GRN_PAIR_PHASES(X)                                        \
  X(grnPHASE_PJ_SOLVE_PAIRS, grn_pj_solve_pair)                   \
  X(grnPHASE_DEM_PAIR_FORCES, grn_dem_pair)                       \
  X(grnPHASE_PBD_SOLVE_PAIRS, grn_pbd_solve_pair)

// phases that loop over the clumps (grn_clump.h): X(phase, function of (d, c, k), 1 when it moves
// the grains)
#define GRN_CLUMP_PHASES(X)                                       \
  X(grnPHASE_PJ_CLUMP_START, grn_pj_clump_start, 0)               \
  X(grnPHASE_PJ_CLUMP_SOLVE, grn_pj_clump_solve, 0)               \
  X(grnPHASE_PJ_CLUMP_INTEGRATE, grn_pj_clump_integrate, 1)       \
  X(grnPHASE_DEM_CLUMP_INTEGRATE, grn_dem_clump_integrate, 1)

#define GRN_PHASE_ID(phase, ...) phase,
typedef enum grnPhase_ {
  GRN_GRAIN_PHASES(GRN_PHASE_ID)
  GRN_PAIR_PHASES(GRN_PHASE_ID)
  GRN_CLUMP_PHASES(GRN_PHASE_ID)
  // the backends' own steps
  grnPHASE_BROADPHASE,        // the list hash rebuilt, when the neighbour lists are rebuilt
  grnPHASE_NUMBER,            // pair counts summed into each grain's first pair (prefix sum)
  grnPHASE_BODY_CONTACTS,     // coupled bodies: their contact counts and their answer to the
                              // first iterate's impulses
  grnPHASE_ITERATE,           // the phases up to grnPHASE_NEXT_ITERATE run params.iterations times
  grnPHASE_NEXT_ITERATE,      // the next iterate becomes the last; coupled bodies answer it
                              // (not after the last iteration)
  grnPHASE_WRENCH,            // each body's force and torque from the final impulses
  grnNPHASE                   // the number of phases
} grnPhase;
#undef GRN_PHASE_ID

// the substep of the projected jacobi model: split passes (the contacts as numbered pairs, each
// solved once per iteration), and one loop (each grain finds and solves its contacts in every
// iteration: the seeds' ONELOOP, the same results, for speed comparisons)
static const grnPhase grn_pj_phases[] = {
  grnPHASE_BROADPHASE, grnPHASE_PJ_NARROWPHASE, grnPHASE_LINK, grnPHASE_NUMBER, grnPHASE_PJ_PAIRS,
  grnPHASE_BODY_CONTACTS, grnPHASE_ITERATE, grnPHASE_PJ_SOLVE_PAIRS, grnPHASE_PJ_SOLVE_GRAINS,
  grnPHASE_NEXT_ITERATE, grnPHASE_WRENCH, grnPHASE_PJ_INTEGRATE,
};
static const grnPhase grn_pj_one_loop_phases[] = {
  grnPHASE_BROADPHASE, grnPHASE_PJ_NARROWPHASE, grnPHASE_BODY_CONTACTS, grnPHASE_ITERATE,
  grnPHASE_PJ_SOLVE_GRAINS, grnPHASE_NEXT_ITERATE, grnPHASE_WRENCH, grnPHASE_PJ_INTEGRATE,
};

// the same with clumps: each clump gathers its spheres' impulses after the grains' pass (the first
// iterate's, then each iteration's) and moves with its spheres at the end
static const grnPhase grn_pj_clump_phases[] = {
  grnPHASE_BROADPHASE, grnPHASE_PJ_NARROWPHASE, grnPHASE_PJ_CLUMP_START, grnPHASE_LINK,
  grnPHASE_NUMBER, grnPHASE_PJ_PAIRS, grnPHASE_BODY_CONTACTS, grnPHASE_ITERATE,
  grnPHASE_PJ_SOLVE_PAIRS, grnPHASE_PJ_SOLVE_GRAINS, grnPHASE_PJ_CLUMP_SOLVE,
  grnPHASE_NEXT_ITERATE, grnPHASE_WRENCH, grnPHASE_PJ_CLUMP_INTEGRATE,
};

// the substep of the dem model: contacts and every grain's forces, the bodies' wrenches (before
// the grains move: a shape contact's arm is measured from the grain), the grains moved
static const grnPhase grn_dem_phases[] = {
  grnPHASE_BROADPHASE, grnPHASE_DEM_FORCES, grnPHASE_WRENCH, grnPHASE_DEM_INTEGRATE,
};

// the same with clumps: the grains' sums gathered by their clumps, which move
static const grnPhase grn_dem_clump_phases[] = {
  grnPHASE_BROADPHASE, grnPHASE_DEM_FORCES, grnPHASE_WRENCH, grnPHASE_DEM_CLUMP_INTEGRATE,
};

// with contact fields: contacts, each pair's force once, the bodies' wrenches, the grains' sums
// gathered by their clumps, which move
static const grnPhase grn_dem_cem_phases[] = {
  grnPHASE_BROADPHASE, grnPHASE_DEM_CEM_NARROWPHASE, grnPHASE_LINK, grnPHASE_NUMBER,
  grnPHASE_DEM_PAIRS, grnPHASE_DEM_PAIR_FORCES, grnPHASE_WRENCH, grnPHASE_DEM_PAIR_SUMS,
  grnPHASE_DEM_CLUMP_INTEGRATE,
};

// the substep of the pbd model: contacts and the predicted displacements, the pairs, the coupled
// bodies' contact counts, `iterations` jacobi passes of corrections (the bodies answering each),
// the bodies' wrenches from the shape contacts' impulses, the grains moved
static const grnPhase grn_pbd_phases[] = {
  grnPHASE_BROADPHASE, grnPHASE_PBD_NARROWPHASE, grnPHASE_LINK, grnPHASE_NUMBER,
  grnPHASE_PBD_PAIRS, grnPHASE_BODY_CONTACTS, grnPHASE_ITERATE, grnPHASE_PBD_SOLVE_PAIRS,
  grnPHASE_PBD_SOLVE_GRAINS, grnPHASE_NEXT_ITERATE, grnPHASE_WRENCH, grnPHASE_PBD_INTEGRATE,
};

// 1 when coupled bodies answer each jacobi iterate within the substep (pj, pbd); dem's bodies move
// between substeps only (grn_body_motion_substep, which every model's bodies also do)
static inline int grn_bodies_answer_iterates(const grnConsts* c) {
  return c->model != grnMODEL_DEM;
}

// a model's substep: its phase table
typedef struct grnPhaseTable_ {
  const grnPhase* phase;      // phases in order
  int count;                  // number of phases
} grnPhaseTable;

#define GRN_PHASE_TABLE(phases) \
  { phases, (int)(sizeof(phases) / sizeof(grnPhase)) }

// the phase table of a solver's constants
static inline grnPhaseTable grn_phase_table(const grnConsts* c) {
  static const grnPhaseTable pj = GRN_PHASE_TABLE(grn_pj_phases);
  static const grnPhaseTable one_loop = GRN_PHASE_TABLE(grn_pj_one_loop_phases);
  static const grnPhaseTable dem = GRN_PHASE_TABLE(grn_dem_phases);
  static const grnPhaseTable pbd = GRN_PHASE_TABLE(grn_pbd_phases);
  static const grnPhaseTable pj_clump = GRN_PHASE_TABLE(grn_pj_clump_phases);
  static const grnPhaseTable dem_clump = GRN_PHASE_TABLE(grn_dem_clump_phases);
  static const grnPhaseTable dem_cem = GRN_PHASE_TABLE(grn_dem_cem_phases);
  if (c->cem) return dem_cem;
  if (c->clumps) return c->model == grnMODEL_DEM ? dem_clump : pj_clump;
  if (c->model == grnMODEL_DEM) return dem;
  if (c->model == grnMODEL_PBD) return pbd;
  return c->one_loop ? one_loop : pj;
}

#undef GRN_PHASE_TABLE

#endif  // MJGRANULAR_GRN_PHASES_H_
