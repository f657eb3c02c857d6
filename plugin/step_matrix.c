// the integrator's matrix A = M + h D, factorized sparse in MuJoCo's inertia pattern (see
// step_matrix.h); the factorization and the solves are those of MuJoCo's mj_factorM / mj_solveM,
// on A instead of M.
#include "step_matrix.h"

#include <math.h>

size_t mjg_step_matrix_size(const mjModel* m) { return (size_t)m->nC + (size_t)m->nv; }

// A into ld, lower triangle in M's layout
static void assemble(const mjModel* m, const mjData* d, mjtNum* ld) {
  int nv = m->nv;
  mjtNum h = m->opt.timestep;
  mju_copy(ld, d->M, m->nC);
  if (m->opt.integrator == mjINT_EULER) {
    if (!(m->opt.disableflags & mjDSBL_EULERDAMP)) {
      for (int i = 0; i < nv; i++) ld[m->M_rowadr[i] + m->M_rownnz[i] - 1] += h * m->dof_damping[i];
    }
  } else if (m->opt.integrator == mjINT_IMPLICIT || m->opt.integrator == mjINT_IMPLICITFAST) {
    // qDeriv holds both triangles (D's pattern); each entry lands on its lower mirror, half of it
    // from either side off the diagonal: the symmetric part
    for (int i = 0; i < nv; i++) {
      for (int k = m->D_rowadr[i]; k < m->D_rowadr[i] + m->D_rownnz[i]; k++) {
        int adr = m->mapM2D[k];
        if (adr < 0) continue;  // outside M's pattern
        ld[adr] -= (m->D_colind[k] == i ? h : 0.5 * h) * d->qDeriv[k];
      }
    }
  }
}

void mjg_step_matrix_factor(const mjModel* m, const mjData* d, mjtNum* factor) {
  const int *rownnz = m->M_rownnz, *rowadr = m->M_rowadr, *colind = m->M_colind;
  mjtNum* ld = factor;
  mjtNum* diaginv = factor + m->nC;
  assemble(m, d, ld);

  // from the leaves to the roots: row k updates the rows of its ancestors, then is scaled; a
  // pivot below mjMINVAL (a degenerate model) is raised to it rather than divided by
  for (int k = m->nv - 1; k >= 0; k--) {
    int start = rowadr[k], diag = rownnz[k] - 1;
    if (ld[start + diag] < mjMINVAL) ld[start + diag] = mjMINVAL;
    mjtNum inv = 1 / ld[start + diag];
    diaginv[k] = inv;
    for (int adr = start + diag - 1; adr >= start; adr--) {
      // row k's pattern starts with row i's (i an ancestor of k)
      int i = colind[adr];
      mju_addToScl(ld + rowadr[i], ld + start, -ld[adr] * inv, rownnz[i]);
    }
    mju_scl(ld + start, ld + start, inv, diag);
  }
}

void mjg_step_matrix_solve(const mjModel* m, const mjtNum* factor, mjtNum* x) {
  const int *rownnz = m->M_rownnz, *rowadr = m->M_rowadr, *colind = m->M_colind;
  const mjtNum* ld = factor;
  const mjtNum* diaginv = factor + m->nC;
  int nv = m->nv;

  // x = L^-T x, from the leaves to the roots
  for (int i = nv - 1; i >= 0; i--) {
    mjtNum xi = x[i];
    if (xi == 0) continue;
    for (int adr = rowadr[i]; adr < rowadr[i] + rownnz[i] - 1; adr++) {
      x[colind[adr]] -= ld[adr] * xi;
    }
  }

  // x = D^-1 x
  for (int i = 0; i < nv; i++) x[i] *= diaginv[i];

  // x = L^-1 x, from the roots to the leaves
  for (int i = 0; i < nv; i++) {
    for (int adr = rowadr[i]; adr < rowadr[i] + rownnz[i] - 1; adr++) {
      x[i] -= ld[adr] * x[colind[adr]];
    }
  }
}

void mjg_step_matrix_half_solve(const mjModel* m, const mjtNum* factor, const int* chain, int n,
                                int* index, mjtNum* x, int ncol) {
  const int *rownnz = m->M_rownnz, *rowadr = m->M_rowadr, *colind = m->M_colind;
  const mjtNum* ld = factor;
  const mjtNum* diaginv = factor + m->nC;
  for (int k = 0; k < n; k++) index[chain[k]] = k;

  // x = L^-T x: a row's entries are dofs further up the same chain
  for (int k = n - 1; k >= 0; k--) {
    int i = chain[k];
    for (int c = 0; c < ncol; c++) {
      mjtNum* v = x + c * n;
      mjtNum xi = v[k];
      if (xi == 0) continue;
      for (int adr = rowadr[i]; adr < rowadr[i] + rownnz[i] - 1; adr++) {
        v[index[colind[adr]]] -= ld[adr] * xi;
      }
    }
  }

  // x = D^-1/2 x
  for (int k = 0; k < n; k++) {
    mjtNum s = sqrt(diaginv[chain[k]]);
    for (int c = 0; c < ncol; c++) x[c * n + k] *= s;
  }
  for (int k = 0; k < n; k++) index[chain[k]] = -1;
}
