// the grains between plugin_state and the solver. The solver works in float and the state holds
// floats widened to mjtNum, so a download followed by an upload is exact.
#include "transfer.h"

#include <stdio.h>

#include "state.h"

// the state's three grain arrays (positions, velocities, angular velocities: cap x 3 each, one
// after the other) and the same three in a staging array of capacity cap
static void stage_arrays(mjtNum* state, float* stage, int cap, mjtNum* s[3], float* f[3]) {
  s[0] = mjg_state_pos(state, cap);
  s[1] = mjg_state_vel(state, cap);
  s[2] = mjg_state_angvel(state, cap);
  for (int a = 0; a < 3; a++) f[a] = stage + 3 * (size_t)a * cap;
}

// the orientations (cap x 4) in a staging array of capacity cap, after the three vectors
static float* stage_orient(float* stage, int cap) { return stage + 9 * (size_t)cap; }

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
  mjtNum* s[3];
  float* f[3];
  stage_arrays((mjtNum*)state, stage, cap, s, f);
  for (int a = 0; a < 3; a++) {
    for (int i = 0; i < 3 * n; i++) f[a][i] = (float)s[a][i];
  }
  const mjtNum* radius = mjg_state_radius((mjtNum*)state, cap);
  float* r = stage + 13 * (size_t)cap;
  for (int i = 0; i < n; i++) r[i] = (float)radius[i];
  const mjtNum* orient = mjg_state_orient((mjtNum*)state, cap);
  float* q = stage_orient(stage, cap);
  for (int i = 0; i < 4 * n; i++) q[i] = (float)orient[i];

  // grn_set_grains refuses non-finite grains, and clears the spins and the contacts that the
  // next calls restore
  grnStatus st = grn_set_grains(solver, n, f[0], f[1]);
  if (st == grnOK) st = grn_set_angvel(solver, f[2]);
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
  mjtNum* s[3];
  float* f[3];
  stage_arrays(state, stage, cap, s, f);
  grnStatus st = grn_get_grains(solver, f[0], f[1]);
  if (st == grnOK) st = grn_get_angvel(solver, f[2]);
  if (st == grnOK) st = grn_get_orientations(solver, stage_orient(stage, cap));
  if (st == grnOK) st = grn_get_wrenches(solver, wrench);
  if (st == grnOK) st = grn_get_contacts(solver, mjg_state_contacts(state, cap, nbody));
  if (st != grnOK) return st;
  int n = grn_count(solver);
  for (int a = 0; a < 3; a++) {
    for (int i = 0; i < 3 * n; i++) s[a][i] = f[a][i];
  }
  const float* q = stage_orient(stage, cap);
  mjtNum* orient = mjg_state_orient(state, cap);
  for (int i = 0; i < 4 * n; i++) orient[i] = q[i];
  mjtNum* w = mjg_state_wrench(state, cap);
  for (int i = 0; i < 6 * nbody; i++) w[i] = wrench[i];
  return grnOK;
}
