// plugin/body_dynamics.c and plugin/step_matrix.c as functions: the sparse, chain-restricted
// mobility, acceleration and feedback of two-way coupling against an independent dense
// computation (mj_fullM, the damping the integrator treats implicitly, Gaussian elimination, and
// MuJoCo's own mj_jacBodyCom), on an arm of hinged links with a branch and a welded tool, free
// bodies (simple and not) and a free body with a hinged child: nv = 87, where MuJoCo's sparse
// path is on, under every integrator.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "mjg_test_util.h"

extern "C" {
#include "body_dynamics.h"
#include "step_matrix.h"
}

namespace {

using mjg_test::DataPtr;
using mjg_test::LoadXml;
using Matrix = std::vector<double>;  // row-major

constexpr int kRocks = 12;

// the arm: seven hinges about alternating axes with damping and velocity servos, a second branch
// off link 2, a tool welded to the last link; free rocks; a free body with a hinged flail. The
// servos are stiff where the integrator treats them implicitly, soft enough to stay stable where
// it does not
std::string Scene(const char* integrator) {
  std::string name = integrator;
  double kv = name == "implicit" || name == "implicitfast" ? 20 : 0.2;
  std::string xml = std::string("<mujoco><option timestep=\"0.002\" integrator=\"") + integrator +
                    "\"/><worldbody><geom type=\"plane\" size=\"2 2 0.1\"/>"
                    "<body name=\"link1\" pos=\"0 0 0.3\">";
  const char* axes[] = {"0 0 1", "0 1 0", "0 0 1", "0 -1 0", "0 0 1", "0 -1 0", "0 0 1"};
  for (int i = 1; i <= 7; i++) {
    if (i > 1) xml += "<body name=\"link" + std::to_string(i) + "\" pos=\"0.05 0 0.12\">";
    xml += "<joint name=\"j" + std::to_string(i) + "\" axis=\"" + axes[i - 1] + "\" damping=\"" +
           std::to_string(0.5 * i) + "\" armature=\"0.01\"/>"
           "<geom type=\"capsule\" fromto=\"0 0 0 0.05 0.01 0.12\" size=\"0.03\" density=\"" +
           std::to_string(800 + 100 * i) + "\"/>";
    if (i == 2) {
      xml += "<body name=\"branch\" pos=\"0 0.1 0\"><joint name=\"jb\" axis=\"1 0 0\"/>"
             "<geom type=\"box\" pos=\"0 0.05 0\" size=\"0.02 0.05 0.02\"/></body>";
    }
  }
  xml += "<body name=\"tool\" pos=\"0.02 0 0.1\" euler=\"20 0 0\">"
         "<geom type=\"box\" pos=\"0.03 0 0\" size=\"0.05 0.03 0.01\"/></body>";
  for (int i = 1; i <= 7; i++) xml += "</body>";
  for (int i = 0; i < kRocks; i++) {
    xml += "<body name=\"rock" + std::to_string(i) + "\" pos=\"" + std::to_string(0.1 * i) +
           " 0.5 0.2\"><freejoint/>";
    xml += i % 2 ? "<geom type=\"sphere\" size=\"0.02\"/>"
                 : "<geom type=\"box\" pos=\"0.01 0 0.005\" euler=\"10 20 30\" "
                   "size=\"0.02 0.015 0.01\"/>";
    xml += "</body>";
  }
  xml += "<body name=\"flail\" pos=\"0 -0.5 0.3\"><freejoint/>"
         "<geom type=\"box\" size=\"0.03 0.03 0.03\"/>"
         "<body name=\"flap\" pos=\"0.05 0 0\">"
         "<joint name=\"jf\" axis=\"0 1 0\" damping=\"0.003\"/>"
         "<geom type=\"capsule\" fromto=\"0 0 0 0.1 0 0\" size=\"0.01\"/></body></body>"
         "</worldbody><actuator>";
  for (int i = 1; i <= 7; i++) {
    xml += "<velocity joint=\"j" + std::to_string(i) + "\" kv=\"" + std::to_string(kv * i) +
           "\"/>";
  }
  xml += "<velocity joint=\"jf\" kv=\"" + std::to_string(0.1 * kv) + "\"/></actuator></mujoco>";
  return xml;
}

// x = A^-1 B by Gaussian elimination with partial pivoting (A n x n, B n x k)
Matrix DenseSolve(Matrix a, Matrix b, int n, int k) {
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int r = c + 1; r < n; r++) {
      if (std::fabs(a[r * n + c]) > std::fabs(a[p * n + c])) p = r;
    }
    for (int j = 0; j < n; j++) std::swap(a[c * n + j], a[p * n + j]);
    for (int j = 0; j < k; j++) std::swap(b[c * k + j], b[p * k + j]);
    for (int r = c + 1; r < n; r++) {
      double f = a[r * n + c] / a[c * n + c];
      for (int j = c; j < n; j++) a[r * n + j] -= f * a[c * n + j];
      for (int j = 0; j < k; j++) b[r * k + j] -= f * b[c * k + j];
    }
  }
  for (int c = n - 1; c >= 0; c--) {
    for (int j = 0; j < k; j++) {
      double s = b[c * k + j];
      for (int i = c + 1; i < n; i++) s -= a[c * n + i] * b[i * k + j];
      b[c * k + j] = s / a[c * n + c];
    }
  }
  return b;
}

// the integrator's matrix, dense: M plus h times the damping it treats implicitly (symmetric)
Matrix DenseStepMatrix(const mjModel* m, const mjData* d) {
  int nv = m->nv;
  double h = m->opt.timestep;
  Matrix a(nv * nv), deriv(nv * nv);
  mj_fullM(m, d, a.data());
  if (m->opt.integrator == mjINT_EULER) {
    for (int i = 0; i < nv; i++) a[i * nv + i] += h * m->dof_damping[i];
  } else if (m->opt.integrator != mjINT_RK4) {
    mju_sparse2dense(deriv.data(), d->qDeriv, nv, nv, m->D_rownnz, m->D_rowadr, m->D_colind);
    for (int i = 0; i < nv; i++) {
      for (int j = 0; j < nv; j++) {
        a[i * nv + j] -= 0.5 * h * (deriv[i * nv + j] + deriv[j * nv + i]);
      }
    }
  }
  return a;
}

// J (6 x nv): com velocity rows, then angular velocity rows
Matrix Jacobian(const mjModel* m, const mjData* d, int b) {
  Matrix jac(6 * m->nv);
  mj_jacBodyCom(m, d, jac.data(), jac.data() + 3 * m->nv, b);
  return jac;
}

class BodyDynamics : public testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    std::string error;
    model_ = LoadXml(Scene(GetParam()), &error);
    ASSERT_TRUE(model_) << error;
    m_ = model_.get();
    data_.reset(mj_makeData(m_));
    d_ = data_.get();
    ASSERT_EQ(m_->nv, 7 + 1 + 6 * kRocks + 6 + 1);

    // a state in motion, a few steps on (the servos pull, the rocks fall and spin)
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < m_->nv; i++) d_->qvel[i] = u(rng);
    for (int i = 0; i < m_->nu; i++) d_->ctrl[i] = u(rng);
    for (int k = 0; k < 5; k++) mj_step(m_, d_);

    // every body couples but the branch
    coupled_.assign(m_->nbody, 1);
    coupled_[0] = coupled_[mj_name2id(m_, mjOBJ_BODY, "branch")] = 0;
    factor_.resize(mjg_step_matrix_size(m_));
    accel_.resize(m_->nv);
    mobility_.resize(36 * m_->nbody);
    body_accel_.resize(6 * m_->nbody);
    mjg_body_dynamics(m_, d_, coupled_.data(), factor_.data(), accel_.data(), mobility_.data(),
                      body_accel_.data());
  }

  mjg_test::ModelPtr model_;
  DataPtr data_;
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  std::vector<int> coupled_;
  std::vector<mjtNum> factor_, accel_;
  std::vector<float> mobility_, body_accel_;
};

TEST_P(BodyDynamics, MobilityAndAccelerationMatchTheDenseSolve) {
  int nv = m_->nv;
  Matrix a = DenseStepMatrix(m_, d_);
  Matrix force(nv);
  mj_mulM(m_, d_, force.data(), d_->qacc);
  Matrix accel = DenseSolve(a, force, nv, 1);
  for (int i = 0; i < nv; i++) {
    EXPECT_NEAR(accel_[i], accel[i], 1e-9 * (1 + std::fabs(accel[i]))) << "dof " << i;
  }

  for (int b = 1; b < m_->nbody; b++) {
    const char* name = mj_id2name(m_, mjOBJ_BODY, b);
    if (!coupled_[b]) {
      for (int k = 0; k < 36; k++) EXPECT_EQ(mobility_[36 * b + k], 0) << name;
      continue;
    }
    // W = J A^-1 J^T, J accel
    Matrix jac = Jacobian(m_, d_, b), jt(nv * 6);
    for (int r = 0; r < 6; r++) {
      for (int i = 0; i < nv; i++) jt[i * 6 + r] = jac[r * nv + i];
    }
    Matrix x = DenseSolve(a, jt, nv, 6);
    double w[36], scale = 0;
    for (int r = 0; r < 6; r++) {
      for (int c = 0; c < 6; c++) {
        w[6 * r + c] = 0;
        for (int i = 0; i < nv; i++) w[6 * r + c] += jac[r * nv + i] * x[i * 6 + c];
        scale = std::fmax(scale, std::fabs(w[6 * r + c]));
      }
    }
    ASSERT_GT(scale, 0) << name;
    for (int k = 0; k < 36; k++) {
      // float rounding of the largest entry
      EXPECT_NEAR(mobility_[36 * b + k], w[k], 2e-7 * scale) << name << " entry " << k;
    }
    for (int r = 0; r < 6; r++) {
      double ja = 0, size = 0;
      for (int i = 0; i < nv; i++) {
        ja += jac[r * nv + i] * accel[i];
        size += std::fabs(jac[r * nv + i] * accel[i]);
      }
      EXPECT_NEAR(body_accel_[6 * b + r], ja, 2e-7 * size + 1e-12) << name << " row " << r;
    }
  }
}

TEST_P(BodyDynamics, FeedbackMatchesTheDenseSolve) {
  // an impulse wrench and its time integral on every coupled body; qvel gains A^-1 J^T w h and
  // qpos moves by A^-1 J^T q plus, on the dofs of coupled bodies, the substeps' lag of accel
  int nv = m_->nv, nbody = m_->nbody, nsub = 4;
  double h = m_->opt.timestep;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> wrench(6 * nbody), integral(6 * nbody);
  for (int k = 0; k < 6 * nbody; k++) {
    wrench[k] = u(rng);
    integral[k] = 1e-6 * u(rng);
  }
  std::vector<mjtNum> qpos0(d_->qpos, d_->qpos + m_->nq), qvel0(d_->qvel, d_->qvel + nv);
  mjg_body_feedback(m_, d_, coupled_.data(), factor_.data(), accel_.data(), wrench.data(),
                    integral.data(), nsub);

  Matrix impulse(nv), moved_by(nv), moved(nv);
  for (int b = 1; b < nbody; b++) {
    if (!coupled_[b]) continue;
    Matrix jac = Jacobian(m_, d_, b);
    for (int i = 0; i < nv; i++) {
      for (int r = 0; r < 6; r++) {
        impulse[i] += jac[r * nv + i] * wrench[6 * b + r] * h;
        moved_by[i] += jac[r * nv + i] * integral[6 * b + r];
        if (jac[r * nv + i] != 0) moved[i] = 1;
      }
    }
  }
  Matrix a = DenseStepMatrix(m_, d_);
  Matrix dv = DenseSolve(a, impulse, nv, 1), dq = DenseSolve(a, moved_by, nv, 1);
  for (int i = 0; i < nv; i++) {
    EXPECT_NEAR(d_->qvel[i], qvel0[i] + dv[i], 1e-10 * (1 + std::fabs(dv[i]))) << "dof " << i;
    dq[i] -= moved[i] * 0.5 * h * h * (1 - 1.0 / nsub) * accel_[i];
  }
  std::vector<mjtNum> qpos(qpos0);
  mj_integratePos(m_, qpos.data(), dq.data(), 1);
  for (int i = 0; i < m_->nq; i++) EXPECT_NEAR(d_->qpos[i], qpos[i], 1e-12) << "qpos " << i;
}

INSTANTIATE_TEST_SUITE_P(Integrators, BodyDynamics,
                         testing::Values("Euler", "implicitfast", "implicit", "RK4"),
                         [](const testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
