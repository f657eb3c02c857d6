// the grains between plugin_state and the solver. The solver works in float and the state holds
// floats widened to mjtNum, so a download followed by an upload is exact.
#include "transfer.h"

#include <stdio.h>

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

// why the solver refused the orientations q of n grains: the first not a unit quaternion
static void orientation_why(const float* q, int n, char* why, int size) {
  for (int i = 0; i < n; i++, q += 4) {
    if (grn_is_orientation(q[0], q[1], q[2], q[3])) continue;
    snprintf(why, size, "the orientation of grain %d, (%g, %g, %g, %g), is not a unit quaternion",
             i, q[0], q[1], q[2], q[3]);
    return;
  }
}

grnStatus mjg_transfer_upload(grnSolver* solver, const mjtNum* state, int cap, int nbody, int n,
                              float* stage, char* why, int size) {
  for (mjgStatePart p = mjgSTATE_POS; p < mjgSTATE_WRENCH; p++) {
    const mjtNum* from = state + mjg_state_offset(p, cap, 0);
    float* to = stage_part(stage, p, cap);
    for (size_t i = 0; i < part_width(p) * n; i++) to[i] = (float)from[i];
  }
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
  if (st != grnOK) return st;

  // the contacts; what does not fit is looked for only when they are refused
  const mjtNum* contacts = mjg_state_contacts((mjtNum*)state, cap, nbody);
  st = grn_set_contacts(solver, contacts);
  if (st == grnERR_ARG && why) {
    char what[256];
    grn_check_contacts(solver, contacts, what, sizeof(what));
    snprintf(why, size, "the contact state does not fit its grains: %s", what);
  }
  return st;
}

grnStatus mjg_transfer_download(const grnSolver* solver, mjtNum* state, int cap, int nbody,
                                float* stage, double* wrench) {
  grnStatus st = grn_get_grains(solver, stage_part(stage, mjgSTATE_POS, cap),
                                stage_part(stage, mjgSTATE_VEL, cap));
  if (st == grnOK) st = grn_get_angvel(solver, stage_part(stage, mjgSTATE_ANGVEL, cap));
  if (st == grnOK) st = grn_get_orientations(solver, stage_part(stage, mjgSTATE_ORIENT, cap));
  if (st == grnOK) st = grn_get_wrenches(solver, wrench);
  if (st == grnOK) st = grn_get_contacts(solver, mjg_state_contacts(state, cap, nbody));
  if (st != grnOK) return st;
  // the grain parts but the radii, which the solver keeps as the upload gave them
  int n = grn_count(solver);
  for (mjgStatePart p = mjgSTATE_POS; p < mjgSTATE_RADIUS; p++) {
    const float* from = stage_part(stage, p, cap);
    mjtNum* to = state + mjg_state_offset(p, cap, 0);
    for (size_t i = 0; i < part_width(p) * n; i++) to[i] = from[i];
  }
  mjtNum* w = mjg_state_wrench(state, cap);
  for (int i = 0; i < 6 * nbody; i++) w[i] = wrench[i];
  return grnOK;
}
