// two-way coupling as an implicit solve: the bodies' dynamics for the solver, and the step's
// result written back into the joints (see body_dynamics.h).
#include "body_dynamics.h"

#include <string.h>

#include "step_matrix.h"

// the dofs that move body b, increasing (its kinematic chain, as mj_jac walks it); their count
static int body_chain(const mjModel* m, int b, int* chain) {
  int body = m->body_weldid[b];
  if (m->body_dofnum[body] == 0) return 0;
  int n = 0;
  for (int i = m->body_dofadr[body] + m->body_dofnum[body] - 1; i >= 0; i = m->dof_parentid[i]) {
    chain[n++] = i;
  }
  for (int k = 0; k < n / 2; k++) {
    int tmp = chain[k];
    chain[k] = chain[n - 1 - k];
    chain[n - 1 - k] = tmp;
  }
  return n;
}

// body b's com jacobian over its chain's n dofs, as mj_jacBodyCom computes it: rows (n each)
// com velocity (3), angular velocity (3)
static void body_jacobian(const mjModel* m, const mjData* d, int b, const int* chain, int n,
                          mjtNum* jac) {
  mjtNum offset[3];
  mju_sub3(offset, d->xipos + 3 * b, d->subtree_com + 3 * m->body_rootid[b]);
  for (int k = 0; k < n; k++) {
    const mjtNum* cdof = d->cdof + 6 * chain[k];
    mjtNum lever[3];
    mju_cross(lever, cdof, offset);
    for (int a = 0; a < 3; a++) {
      jac[a * n + k] = cdof[3 + a] + lever[a];
      jac[(3 + a) * n + k] = cdof[a];
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
  mjg_step_matrix_factor(m, d, step_matrix);
  mj_mulM(m, d, accel, d->qacc);
  mjg_step_matrix_solve(m, step_matrix, accel);

  // each coupled body's mobility J A^-1 J^T = X^T X with X = D^-1/2 L^-T J^T and acceleration,
  // over the dofs of its chain alone: the cost grows with the chains, not with nv
  int* chain = mj_stackAllocInt(d, nv);
  int* index = mj_stackAllocInt(d, nv);
  mjtNum* jac = mj_stackAllocNum(d, 6 * nv);  // J, then X^T (6 x chain length)
  for (int i = 0; i < nv; i++) index[i] = -1;
  for (int b = 1; b < m->nbody; b++) {
    if (!coupled[b]) continue;
    int n = body_chain(m, b, chain);
    body_jacobian(m, d, b, chain, n, jac);
    for (int a = 0; a < 6; a++) {
      mjtNum sum = 0;
      for (int k = 0; k < n; k++) sum += jac[a * n + k] * accel[chain[k]];
      body_accel[6 * b + a] = (float)sum;
    }
    mjg_step_matrix_half_solve(m, step_matrix, chain, n, index, jac, 6);
    for (int a = 0; a < 6; a++) {
      for (int e = 0; e < 6; e++) {
        mobility[36 * b + 6 * a + e] = (float)mju_dot(jac + a * n, jac + e * n, n);
      }
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
  mjtNum* impulse = mj_stackAllocNum(d, nv);    // generalized impulse of the grains, then dqvel
  mjtNum* integral = mj_stackAllocNum(d, nv);   // its time integral, then dqpos
  mjtNum* moved = mj_stackAllocNum(d, nv);      // dofs that move a coupled body: 1, else 0
  int* chain = mj_stackAllocInt(d, nv);
  mjtNum* jac = mj_stackAllocNum(d, 6 * nv);
  mju_zero(impulse, nv);
  mju_zero(integral, nv);
  mju_zero(moved, nv);
  for (int b = 1; b < m->nbody; b++) {
    if (!coupled[b]) continue;
    int n = body_chain(m, b, chain);
    body_jacobian(m, d, b, chain, n, jac);
    for (int k = 0; k < n; k++) {
      for (int a = 0; a < 6; a++) {
        impulse[chain[k]] += jac[a * n + k] * wrench[6 * b + a] * h;
        integral[chain[k]] += jac[a * n + k] * impulse_integral[6 * b + a];
      }
      moved[chain[k]] = 1;
    }
  }

  // velocities: the impulse through the step's matrix
  mjg_step_matrix_solve(m, step_matrix, impulse);
  mju_addTo(d->qvel, impulse, nv);

  // positions: the displacement the impulse caused within the step, and for the dofs the
  // substeps integrated, their acceleration over nsub substeps instead of one step of h:
  // sum over k of (k + 1) dt^2 a = h^2 a (1 + 1/nsub) / 2, against mujoco's h^2 a
  mjg_step_matrix_solve(m, step_matrix, integral);
  double lag = -0.5 * h * h * (1 - 1.0 / nsub);
  for (int i = 0; i < nv; i++) integral[i] += moved[i] * lag * accel[i];
  mj_integratePos(m, d->qpos, integral, 1);
  mj_freeStack(d);
}
