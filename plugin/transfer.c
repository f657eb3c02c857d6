// the grains between plugin_state and the solver. The solver works in float and the state holds
// floats widened to mjtNum, so a download followed by an upload is exact.
#include "transfer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

// grain part `part` (mjgSTATE_POS .. mjgSTATE_RADIUS) of a staging array of capacity cap: where
// the state holds it, less the header
static float* stage_part(float* stage, mjgStatePart part, int cap) {
  return stage + (mjg_state_offset(part, cap, 0) - MJG_STATE_HEADER);
}

// numbers per grain of grain part `part`
static size_t part_width(mjgStatePart part) {
  return mjg_state_offset((mjgStatePart)(part + 1), 1, 0) - mjg_state_offset(part, 1, 0);
}

// why the solver refused the radii r of n grains: the first not in (0, the solver's radius]
static void radius_why(const grnSolver* solver, const float* r, int n, char* why, int size) {
  float largest = grn_params(solver)->radius;
  for (int i = 0; i < n; i++) {
    if (r[i] > 0 && r[i] <= largest) continue;
    snprintf(why, size, "the radius of grain %d, %g m, is not in (0, %g] (key 'radius')", i, r[i],
             largest);
    return;
  }
}

// why the grains' types t (n floats) are refused: the first not an index into ntype types; 0 when
// all are
static int type_why(const float* t, int n, int ntype, char* why, int size) {
  for (int i = 0; i < n; i++) {
    if (t[i] >= 0 && t[i] < ntype && t[i] == floorf(t[i])) continue;
    if (why) {
      snprintf(why, size, "the type of grain %d, %g, is not one of the %d grain types of key "
               "'shape' (0 to %d)", i, t[i], ntype, ntype - 1);
    }
    return -1;
  }
  return 0;
}

// why the solver refused the orientations q of n grains: the first not a unit quaternion
static void orientation_why(const float* q, int n, char* why, int size) {
  for (int i = 0; i < n; i++, q += 4) {
    if (grn_is_orientation(q[0], q[1], q[2], q[3])) continue;
    snprintf(why, size, "the orientation of grain %d, (%g, %g, %g, %g), is not a unit quaternion",
             i, q[0], q[1], q[2], q[3]);
    return;
  }
}

int mjg_stage_alloc(mjgStage* stage, int cap, int nbody) {
  memset(stage, 0, sizeof(*stage));
  stage->cap = cap;
  stage->nbody = nbody;
  size_t c = cap > 0 ? (size_t)cap : 1;
  stage->grain = (float*)malloc(MJG_STAGE_PER_GRAIN * c * sizeof(float));
  stage->type = (int*)malloc(c * sizeof(int));
  stage->wrench = (double*)malloc(6 * (size_t)(nbody > 0 ? nbody : 1) * sizeof(double));
  if (stage->grain && stage->type && stage->wrench) return 0;
  mjg_stage_free(stage);
  return -1;
}

void mjg_stage_free(mjgStage* stage) {
  if (!stage) return;
  free(stage->grain);
  free(stage->type);
  free(stage->wrench);
  memset(stage, 0, sizeof(*stage));
}

// the grains as spheres: positions and velocities, spins, orientations and radii
static grnStatus upload_spheres(grnSolver* solver, int n, float* stage, int cap, char* why,
                                int size) {
  const float* q = stage_part(stage, mjgSTATE_ORIENT, cap);
  const float* r = stage_part(stage, mjgSTATE_RADIUS, cap);
  // grn_set_grains refuses non-finite grains, and clears the spins and the contacts that the
  // next calls restore
  grnStatus st = grn_set_grains(solver, n, stage_part(stage, mjgSTATE_POS, cap),
                                stage_part(stage, mjgSTATE_VEL, cap));
  if (st == grnOK) st = grn_set_angvel(solver, stage_part(stage, mjgSTATE_ANGVEL, cap));
  if (st == grnOK) {
    st = grn_set_orientations(solver, q);
    if (st == grnERR_ARG && why) orientation_why(q, n, why, size);
  }
  if (st == grnOK) {
    st = grn_set_radii(solver, r);
    if (st == grnERR_ARG && why) radius_why(solver, r, n, why, size);
  }
  return st;
}

// the grains as clumps of their types' spheres
static grnStatus upload_clumps(grnSolver* solver, const mjgGrainTypes* types, int n,
                               mjgStage* stage, char* why, int size) {
  int cap = stage->cap;
  const float* t = stage_part(stage->grain, mjgSTATE_TYPE, cap);
  if (type_why(t, n, types->ntype, why, size)) return grnERR_ARG;
  for (int i = 0; i < n; i++) stage->type[i] = (int)t[i];
  const float* q = stage_part(stage->grain, mjgSTATE_ORIENT, cap);
  grnStatus st = grn_set_clumps(solver, types->clump, types->ntype, n, stage->type,
                                stage_part(stage->grain, mjgSTATE_POS, cap), q,
                                stage_part(stage->grain, mjgSTATE_VEL, cap),
                                stage_part(stage->grain, mjgSTATE_ANGVEL, cap));
  if (st == grnERR_ARG && why) {
    // the types are the terrain's own, so the grains' orientations are what can be wrong
    snprintf(why, size, "the solver refuses the clumps of %d grains", n);
    orientation_why(q, n, why, size);
  }
  return st;
}

grnStatus mjg_transfer_upload(grnSolver* solver, const mjgGrainTypes* types, const mjtNum* state,
                              int n, mjgStage* stage, char* why, int size) {
  int cap = stage->cap;
  for (mjgStatePart p = mjgSTATE_POS; p < mjgSTATE_WRENCH; p++) {
    const mjtNum* from = state + mjg_state_offset(p, cap, 0);
    float* to = stage_part(stage->grain, p, cap);
    for (size_t i = 0; i < part_width(p) * n; i++) to[i] = (float)from[i];
  }
  grnStatus st = types ? upload_clumps(solver, types, n, stage, why, size)
                       : upload_spheres(solver, n, stage->grain, cap, why, size);
  if (st != grnOK) return st;

  // the contacts; what does not fit is looked for only when they are refused
  const mjtNum* contacts = mjg_state_contacts((mjtNum*)state, cap, stage->nbody);
  st = grn_set_contacts(solver, contacts);
  if (st == grnERR_ARG && why) {
    char what[256];
    grn_check_contacts(solver, contacts, what, sizeof(what));
    snprintf(why, size, "the contact state does not fit its grains: %s", what);
  }
  return st;
}

grnStatus mjg_transfer_download(const grnSolver* solver, const mjgGrainTypes* types,
                                mjtNum* state, mjgStage* stage) {
  int cap = stage->cap, nbody = stage->nbody;
  float* pos = stage_part(stage->grain, mjgSTATE_POS, cap);
  float* vel = stage_part(stage->grain, mjgSTATE_VEL, cap);
  float* angvel = stage_part(stage->grain, mjgSTATE_ANGVEL, cap);
  float* orient = stage_part(stage->grain, mjgSTATE_ORIENT, cap);
  grnStatus st;
  if (types) {
    st = grn_get_clumps(solver, pos, orient, vel, angvel);
  } else {
    st = grn_get_grains(solver, pos, vel);
    if (st == grnOK) st = grn_get_angvel(solver, angvel);
    if (st == grnOK) st = grn_get_orientations(solver, orient);
  }
  if (st == grnOK) st = grn_get_wrenches(solver, stage->wrench);
  if (st == grnOK) st = grn_get_contacts(solver, mjg_state_contacts(state, cap, nbody));
  if (st != grnOK) return st;
  // the grain parts but the radii and types, which the solver keeps as the upload gave them
  int n = types ? grn_clump_count(solver) : grn_count(solver);
  for (mjgStatePart p = mjgSTATE_POS; p < mjgSTATE_RADIUS; p++) {
    const float* from = stage_part(stage->grain, p, cap);
    mjtNum* to = state + mjg_state_offset(p, cap, 0);
    for (size_t i = 0; i < part_width(p) * n; i++) to[i] = from[i];
  }
  if (types) {
    mjtNum* radius = mjg_state_radius(state, cap);
    for (int i = 0; i < n; i++) radius[i] = (float)types->type[stage->type[i]].bound;
  }
  mjtNum* w = mjg_state_wrench(state, cap);
  for (int i = 0; i < 6 * nbody; i++) w[i] = stage->wrench[i];
  return grnOK;
}
