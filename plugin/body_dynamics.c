// two-way coupling as an implicit solve: the bodies' dynamics for the solver, and the step's
// result written back into the joints (see body_dynamics.h).
#include "body_dynamics.h"

#include <string.h>

void mjg_body_dynamics(const mjModel* m, mjData* d, const int* coupled, float* mobility,
                       float* accel) {
  int nv = m->nv;
  memset(mobility, 0, 36 * (size_t)m->nbody * sizeof(float));
  memset(accel, 0, 6 * (size_t)m->nbody * sizeof(float));
  if (nv == 0) return;
  mj_markStack(d);
  mjtNum* jac = mj_stackAllocNum(d, 6 * nv);      // rows: com jacobian (3), rotation (3)
  mjtNum* minv_jt = mj_stackAllocNum(d, 6 * nv);  // rows: M^-1 times each jacobian row
  for (int b = 1; b < m->nbody; b++) {
    if (!coupled[b]) continue;
    mj_jacBodyCom(m, d, jac, jac + 3 * nv, b);
    mj_solveM(m, d, minv_jt, jac, 6);
    for (int a = 0; a < 6; a++) {
      for (int e = 0; e < 6; e++) {
        mobility[36 * b + 6 * a + e] = (float)mju_dot(jac + a * nv, minv_jt + e * nv, nv);
      }
      accel[6 * b + a] = (float)mju_dot(jac + a * nv, d->qacc, nv);
    }
  }
  mj_freeStack(d);
}

void mjg_body_start_velocity(const mjModel* m, const mjData* d, mjtNum* qvel0) {
  mju_addScl(qvel0, d->qvel, d->qacc, -m->opt.timestep, m->nv);
}

void mjg_body_feedback(const mjModel* m, mjData* d, const int* coupled, const double* wrench,
                       const double* impulse_integral, int nsub) {
  int nv = m->nv;
  if (nv == 0) return;
  double h = m->opt.timestep;
  mj_markStack(d);
  mjtNum* impulse = mj_stackAllocNum(d, nv);    // generalized impulse of the grains
  mjtNum* integral = mj_stackAllocNum(d, nv);   // its time integral
  mjtNum* moved = mj_stackAllocNum(d, nv);      // dofs that move a coupled body: 1, else 0
  mjtNum* dq = mj_stackAllocNum(d, nv);
  mju_zero(impulse, nv);
  mju_zero(integral, nv);
  mju_zero(moved, nv);
  for (int b = 1; b < m->nbody; b++) {
    if (!coupled[b]) continue;
    mjtNum p[6];
    for (int j = 0; j < 6; j++) p[j] = wrench[6 * b + j] * h;
    mj_applyFT(m, d, p, p + 3, d->xipos + 3 * b, b, impulse);
    mj_applyFT(m, d, impulse_integral + 6 * b, impulse_integral + 6 * b + 3, d->xipos + 3 * b, b,
               integral);
    for (int a = b; a > 0; a = m->body_parentid[a]) {
      for (int j = 0; j < m->body_dofnum[a]; j++) moved[m->body_dofadr[a] + j] = 1;
    }
  }

  // velocities: the impulse through the inverse mass matrix
  mj_solveM(m, d, dq, impulse, 1);
  mju_addTo(d->qvel, dq, nv);

  // positions: the displacement the impulse caused within the step, and for the dofs the
  // substeps integrated, their acceleration over nsub substeps instead of one step of h:
  // sum over k of (k + 1) dt^2 a = h^2 a (1 + 1/nsub) / 2, against mujoco's h^2 a
  mj_solveM(m, d, dq, integral, 1);
  double lag = -0.5 * h * h * (1 - 1.0 / nsub);
  for (int i = 0; i < nv; i++) dq[i] += moved[i] * lag * d->qacc[i];
  mj_integratePos(m, d->qpos, dq, 1);
  mj_freeStack(d);
}
