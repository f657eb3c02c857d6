// implicit body coupling, the host side: each coupled body's mobility and acceleration, and the
// motion the body adds to its kinematic drive over an advance. In substep k a body moves at its
// set velocity plus twist_k + accel dt (the grains see it speed up under its own forces, as
// they see gravity); the substep's impulses p_k from the grains then give
//   twist_k+1 = twist_k + accel dt + W p_k,   disp_k+1 = disp_k + twist_k+1 dt,
// the same semi-implicit Euler the grains use. Within the substep the backend makes the body
// answer each Jacobi iterate (grn_body.h).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grn_body.h"
#include "grn_solver.h"

// the arrays, allocated on first use; 0 on failure
static int body_arrays(grnSolver* s) {
  if (s->body_mob) return 1;
  size_t nb = s->params.max_bodies;
  s->body_mob = (float*)calloc(36 * nb, sizeof(float));
  s->body_acc = (float*)calloc(6 * nb, sizeof(float));
  s->body_twist = (double*)calloc(6 * nb, sizeof(double));
  s->body_disp = (double*)calloc(6 * nb, sizeof(double));
  s->wrench_before = (double*)calloc(6 * nb, sizeof(double));
  s->body_impint = (double*)calloc(6 * nb, sizeof(double));
  if (s->body_mob && s->body_acc && s->body_twist && s->body_disp && s->body_impint &&
      s->wrench_before) {
    return 1;
  }
  grn_body_motion_free(s);
  return 0;
}

void grn_body_motion_free(grnSolver* s) {
  free(s->body_mob);
  free(s->body_acc);
  free(s->body_twist);
  free(s->body_disp);
  free(s->body_impint);
  free(s->wrench_before);
  s->body_mob = s->body_acc = NULL;
  s->body_twist = s->body_disp = s->body_impint = s->wrench_before = NULL;
  s->mobile = 0;
}

grnStatus grn_set_body_dynamics(grnSolver* s, const float* mobility, const float* accel) {
  if (!s) return grnERR_ARG;
  int nb = s->params.max_bodies;
  if (nb == 0 || (!mobility && !accel && !s->body_mob)) return grnOK;
  for (int i = 0; mobility && i < 36 * nb; i++) {
    if (!isfinite(mobility[i])) return grnERR_ARG;
  }
  for (int i = 0; accel && i < 6 * nb; i++) {
    if (!isfinite(accel[i])) return grnERR_ARG;
  }
  if (!body_arrays(s)) return grnERR_MEMORY;
  if (mobility) {
    memcpy(s->body_mob, mobility, 36 * (size_t)nb * sizeof(float));
  } else {
    memset(s->body_mob, 0, 36 * (size_t)nb * sizeof(float));
  }
  if (accel) {
    memcpy(s->body_acc, accel, 6 * (size_t)nb * sizeof(float));
  } else {
    memset(s->body_acc, 0, 6 * (size_t)nb * sizeof(float));
  }
  s->mobile = 0;
  for (int i = 0; i < 36 * nb && !s->mobile; i++) s->mobile = s->body_mob[i] != 0;
  s->mob_version++;
  return grnOK;
}

void grn_body_motion_start(grnSolver* s) {
  if (!s->body_mob) return;
  size_t bytes = 6 * (size_t)s->params.max_bodies * sizeof(double);
  memset(s->body_twist, 0, bytes);
  memset(s->body_disp, 0, bytes);
  memset(s->wrench_before, 0, bytes);
  memset(s->body_impint, 0, bytes);
}

void grn_body_motion_shape(const grnSolver* s, int i, int k, grnShape* out) {
  const grnShape* start = s->shapes + i;
  float dt = s->params.dt;
  grn_shape_at(start, k * dt, out);
  if (!s->body_mob || start->body < 0) return;
  const double* twist = s->body_twist + 6 * start->body;
  const float* acc = s->body_acc + 6 * start->body;
  double v[6];
  for (int j = 0; j < 6; j++) v[j] = twist[j] + (double)acc[j] * dt;
  grn_shape_displace(out, s->body_disp + 6 * start->body, v);
}

void grn_body_motion_substep(grnSolver* s) {
  if (!s->body_mob) return;
  int nb = s->params.max_bodies;
  double dt = s->params.dt;
  for (int b = 0; b < nb; b++) {
    double p[6];
    float dv[6];
    for (int j = 0; j < 6; j++) p[j] = (s->wrench_sum[6 * b + j] - s->wrench_before[6 * b + j]) * dt;
    grn_body_velocity_change(s->body_mob + 36 * b, p, dv);
    for (int j = 0; j < 6; j++) {
      s->body_twist[6 * b + j] += s->body_acc[6 * b + j] * dt + dv[j];
      s->body_disp[6 * b + j] += s->body_twist[6 * b + j] * dt;
    }
  }
  memcpy(s->wrench_before, s->wrench_sum, 6 * (size_t)nb * sizeof(double));
  // the impulse received so far (force sums times dt), integrated over the substep
  for (int j = 0; j < 6 * nb; j++) s->body_impint[j] += dt * dt * s->wrench_sum[j];
}

grnStatus grn_get_impulse_integrals(const grnSolver* s, double* out) {
  if (!s || (!out && s->params.max_bodies)) return grnERR_ARG;
  size_t bytes = 6 * (size_t)s->params.max_bodies * sizeof(double);
  if (s->body_impint) {
    memcpy(out, s->body_impint, bytes);
  } else if (bytes) {
    memset(out, 0, bytes);
  }
  return grnOK;
}
