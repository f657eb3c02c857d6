// the matrix MuJoCo's integrator inverts over a step, A = M + h D, factorized sparse as
// A = L^T diag(D) L in the pattern of MuJoCo's inertia (m->M_rownnz, M_rowadr, M_colind): a dof's
// row holds only dofs of its own kinematic chain, so the factor fills in nothing and costs what
// MuJoCo's mj_factorM costs, and a body's mobility needs only the dofs of its chain.
//
// D is the damping the integrator treats implicitly, symmetrized: joint damping under Euler
// (unless eulerdamp is disabled), every velocity derivative qDeriv under implicitfast and
// implicit. Entries of qDeriv outside M's pattern (between dofs of different chains, such as a
// tendon across two branches) are left out, as MuJoCo's implicitfast leaves them out.
#ifndef MJGRANULAR_PLUGIN_STEP_MATRIX_H_
#define MJGRANULAR_PLUGIN_STEP_MATRIX_H_

#include <mujoco/mujoco.h>

// mjtNums a factor takes: L and diag(D) in M's layout (nC), then 1 / diag(D) (nv).
size_t mjg_step_matrix_size(const mjModel* m);

// Factorize this step's A (from d->M, d->qDeriv of the step) into factor.
void mjg_step_matrix_factor(const mjModel* m, const mjData* d, mjtNum* factor);

// x = A^-1 x (nv).
void mjg_step_matrix_solve(const mjModel* m, const mjtNum* factor, mjtNum* x);

// Half of a solve over one chain of dofs: x = diag(D)^-1/2 L^-T x for ncol vectors of the n
// dofs chain (increasing, closed under M's pattern: every dof's row lies in the chain), each
// vector n long; a vector y that is zero off the chain then has y^T A^-1 y = |x|^2. index (nv)
// is scratch, all -1 on entry and on return.
void mjg_step_matrix_half_solve(const mjModel* m, const mjtNum* factor, const int* chain, int n,
                                int* index, mjtNum* x, int ncol);

#endif  // MJGRANULAR_PLUGIN_STEP_MATRIX_H_
