// two-way coupling as an implicit solve: the bodies' dynamics for the solver, and the step's
// result written back into the joints (see body_dynamics.h).
#include "body_dynamics.h"

#include <string.h>

// A = M + h D, D the damping the integrator treats implicitly (symmetric part), dense (nv x nv)
static void step_matrix_of(const mjModel* m, const mjData* d, mjtNum* a) {
  int nv = m->nv;
  mjtNum h = m->opt.timestep;
  mj_fullM(m, d, a);
  if (m->opt.integrator == mjINT_EULER) {
    if (!(m->opt.disableflags & mjDSBL_EULERDAMP)) {
      for (int i = 0; i < nv; i++) a[i * nv + i] += h * m->dof_damping[i];
    }
  } else if (m->opt.integrator == mjINT_IMPLICIT || m->opt.integrator == mjINT_IMPLICITFAST) {
    // qDeriv = d(forces)/d(qvel) of this step, sparse in the pattern of the full inertia
    for (int i = 0; i < nv; i++) {
      for (int k = m->D_rowadr[i]; k < m->D_rowadr[i] + m->D_rownnz[i]; k++) {
        int j = m->D_colind[k];
        a[i * nv + j] -= 0.5 * h * d->qDeriv[k];
        a[j * nv + i] -= 0.5 * h * d->qDeriv[k];
      }
    }
  }
}

void mjg_body_dynamics(const mjModel* m, mjData* d, const int* coupled, mjtNum* step_matrix,
                       mjtNum* accel, float* mobility, float* body_accel) {
  int nv = m->nv;
  memset(mobility, 0, 36 * (size_t)m->nbody * sizeof(float));
  memset(body_accel, 0, 6 * (size_t)m->nbody * sizeof(float));
  if (nv == 0) return;
  mj_markStack(d);

  // the step's matrix, factorized, and the acceleration the integrator applied
  step_matrix_of(m, d, step_matrix);
  mju_cholFactor(step_matrix, nv, mjMINVAL);
  mjtNum* force = mj_stackAllocNum(d, nv);
  mj_mulM(m, d, force, d->qacc);
  mju_cholSolve(accel, step_matrix, force, nv);

  // each coupled body's mobility and acceleration
  mjtNum* jac = mj_stackAllocNum(d, 6 * nv);  // rows: com jacobian (3), rotation (3)
  mjtNum* ainv_jt = mj_stackAllocNum(d, 6 * nv);  // rows: A^-1 times each jacobian row
  for (int b = 1; b < m->nbody; b++) {
    if (!coupled[b]) continue;
    mj_jacBodyCom(m, d, jac, jac + 3 * nv, b);
    for (int e = 0; e < 6; e++) mju_cholSolve(ainv_jt + e * nv, step_matrix, jac + e * nv, nv);
    for (int a = 0; a < 6; a++) {
      for (int e = 0; e < 6; e++) {
        mobility[36 * b + 6 * a + e] = (float)mju_dot(jac + a * nv, ainv_jt + e * nv, nv);
      }
      body_accel[6 * b + a] = (float)mju_dot(jac + a * nv, accel, nv);
    }
  }
  mj_freeStack(d);
}

void mjg_body_start_velocity(const mjModel* m, const mjData* d, const mjtNum* accel,
                             mjtNum* qvel0) {
  mju_addScl(qvel0, d->qvel, accel, -m->opt.timestep, m->nv);
}

void mjg_body_feedback(const mjModel* m, mjData* d, const int* coupled, const mjtNum* step_matrix,
                       const mjtNum* accel, const double* wrench, const double* impulse_integral,
                       int nsub) {
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

  // velocities: the impulse through the step's matrix
  mju_cholSolve(dq, step_matrix, impulse, nv);
  mju_addTo(d->qvel, dq, nv);

  // positions: the displacement the impulse caused within the step, and for the dofs the
  // substeps integrated, their acceleration over nsub substeps instead of one step of h:
  // sum over k of (k + 1) dt^2 a = h^2 a (1 + 1/nsub) / 2, against mujoco's h^2 a
  mju_cholSolve(dq, step_matrix, integral, nv);
  double lag = -0.5 * h * h * (1 - 1.0 / nsub);
  for (int i = 0; i < nv; i++) dq[i] += moved[i] * lag * accel[i];
  mj_integratePos(m, d->qpos, dq, 1);
  mj_freeStack(d);
}
