// the grains between plugin_state and the solver. The solver works in float and the state holds
// floats widened to mjtNum, so a download followed by an upload is exact.
#include "transfer.h"

#include "state.h"

void mjg_transfer_narrow(const mjtNum* state, int cap, int n, float* pos, float* vel) {
  const mjtNum* p = mjg_state_pos((mjtNum*)state, cap);
  const mjtNum* v = mjg_state_vel((mjtNum*)state, cap);
  for (int i = 0; i < 3 * n; i++) {
    pos[i] = (float)p[i];
    vel[i] = (float)v[i];
  }
}

void mjg_transfer_widen(const float* pos, const float* vel, int n, mjtNum* state, int cap) {
  mjtNum* p = mjg_state_pos(state, cap);
  mjtNum* v = mjg_state_vel(state, cap);
  for (int i = 0; i < 3 * n; i++) {
    p[i] = pos[i];
    v[i] = vel[i];
  }
}

grnStatus mjg_transfer_upload(grnSolver* solver, const mjtNum* state, int cap, int nbody, int n,
                              float* pos, float* vel) {
  mjg_transfer_narrow(state, cap, n, pos, vel);

  // grn_set_grains refuses non-finite grains, and clears the contacts that the next call restores
  grnStatus st = grn_set_grains(solver, n, pos, vel);
  if (st != grnOK) return st;
  return grn_set_contacts(solver, mjg_state_contacts((mjtNum*)state, cap, nbody));
}

grnStatus mjg_transfer_download(const grnSolver* solver, mjtNum* state, int cap, int nbody,
                                float* pos, float* vel, double* wrench) {
  grnStatus st = grn_get_grains(solver, pos, vel);
  if (st == grnOK) st = grn_get_wrenches(solver, wrench);
  if (st == grnOK) st = grn_get_contacts(solver, mjg_state_contacts(state, cap, nbody));
  if (st != grnOK) return st;
  mjg_transfer_widen(pos, vel, grn_count(solver), state, cap);
  mjtNum* w = mjg_state_wrench(state, cap);
  for (int i = 0; i < 6 * nbody; i++) w[i] = wrench[i];
  return grnOK;
}
