// rigid rotation of a grain (grn_rigid.h) against Euler's equations, for a body with principal
// moments 1, 2, 3 in float, as the solver runs it:
// - spun about its intermediate axis with a tiny perturbation it flips (the tennis-racket
//   instability): the perturbation grows at the rate the linearised equations give, and the flips
//   come when a double-precision rk4 reference and the jacobi-elliptic period say;
// - spun about its major or minor axis it stays: the axis nutates within 2.5 times its start
//   angle to the angular momentum (8 mrad);
// - without torque the world angular momentum stays to the bit, the kinetic energy within 1e-5
//   over 10,000 substeps from 0.001 to 0.3 rad a substep, and |q| within 1e-6 of 1;
// - a constant torque about a principal axis spins the body up at tau / I about that axis.
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "grn_rigid.h"

namespace {

const double kPi = 3.14159265358979323846;
const double kInertia[3] = {1, 2, 3};  // principal moments [kg m^2]
const int kSteps = 10000;

grnVec3 Inertia() { return grn_v3(kInertia[0], kInertia[1], kInertia[2]); }

// a grain in a non-trivial orientation turning at body angular velocity w_body
struct Grain {
  grnQuat q;
  grnVec3 momentum;
};

Grain Spinning(grnVec3 w_body) {
  Grain g;
  g.q = grn_quat_normalize(grn_quat(0.8f, 0.2f, -0.5f, 0.3f));
  g.momentum = grn_quat_rotate(g.q, grn_mul3(Inertia(), w_body));
  return g;
}

// the body angular velocity and the kinetic energy of a grain, from its float state, in double
void BodyRate(const Grain& g, double* w) {
  grnVec3 b = grn_quat_unrotate(g.q, grn_rigid_angvel(g.q, g.momentum, Inertia()));
  w[0] = b.x; w[1] = b.y; w[2] = b.z;
}

double Energy(const Grain& g) {
  grnVec3 w = grn_rigid_angvel(g.q, g.momentum, Inertia());
  return 0.5 * ((double)w.x * g.momentum.x + (double)w.y * g.momentum.y +
                (double)w.z * g.momentum.z);
}

// Euler's equations without torque, I dw/dt = (I w) x w, by rk4 in double with step h: the
// body angular velocity every `every` steps
std::vector<std::array<double, 3>> Reference(const double* w0, double h, int n, int every) {
  auto rate = [](const double* w, double* dw) {
    const double* I = kInertia;
    dw[0] = (I[1] - I[2]) * w[1] * w[2] / I[0];
    dw[1] = (I[2] - I[0]) * w[2] * w[0] / I[1];
    dw[2] = (I[0] - I[1]) * w[0] * w[1] / I[2];
  };
  std::vector<std::array<double, 3>> out;
  double w[3] = {w0[0], w0[1], w0[2]};
  for (int s = 0; s <= n; s++) {
    if (s % every == 0) out.push_back({w[0], w[1], w[2]});
    double k1[3], k2[3], k3[3], k4[3], t[3];
    rate(w, k1);
    for (int i = 0; i < 3; i++) t[i] = w[i] + h / 2 * k1[i];
    rate(t, k2);
    for (int i = 0; i < 3; i++) t[i] = w[i] + h / 2 * k2[i];
    rate(t, k3);
    for (int i = 0; i < 3; i++) t[i] = w[i] + h * k3[i];
    rate(t, k4);
    for (int i = 0; i < 3; i++) w[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return out;
}

// times at which a sampled series changes sign, interpolated linearly between samples dt apart
std::vector<double> SignChanges(const std::vector<double>& x, double dt) {
  std::vector<double> t;
  for (size_t k = 1; k < x.size(); k++) {
    if ((x[k - 1] > 0) != (x[k] > 0)) t.push_back(dt * (k - 1 + x[k - 1] / (x[k - 1] - x[k])));
  }
  return t;
}

// complete elliptic integral of the first kind of complementary modulus kc: pi / (2 agm(1, kc))
double EllipticK(double kc) {
  double a = 1, b = kc;
  for (int i = 0; i < 40; i++) {
    double m = (a + b) / 2;
    b = std::sqrt(a * b);
    a = m;
  }
  return kPi / (2 * a);
}

//---------------------------------- stability of the three axes -----------------------------------

// the body angular velocity over kSteps substeps of dt from w_body, sample 0 the float start
std::vector<std::array<double, 3>> Spin(grnVec3 w_body, float dt) {
  Grain g = Spinning(w_body);
  std::vector<std::array<double, 3>> out(kSteps + 1);
  BodyRate(g, out[0].data());
  for (int s = 1; s <= kSteps; s++) {
    grn_rigid_rotate(&g.q, &g.momentum, Inertia(), grn_v3(0, 0, 0), dt);
    BodyRate(g, out[s].data());
  }
  return out;
}

// the times the body angular velocity about the intermediate axis changes sign
std::vector<double> Flips(const std::vector<std::array<double, 3>>& w, double dt) {
  std::vector<double> wy;
  for (const auto& x : w) wy.push_back(x[1]);
  return SignChanges(wy, dt);
}

TEST(RigidRotation, IntermediateAxisFlipsAtEulersRate) {
  const float w0 = 10, dt = 1e-3f;  // 0.01 rad a substep
  const int fine = 100;             // the rk4 reference's steps per substep
  const double* I = kInertia;

  // a tiny perturbation along the unstable mode of the linearised equations, (1, 0, -1 / sqrt(3)),
  // grows as exp(w0 sqrt((I2 - I1)(I3 - I2) / (I1 I3)) t), measured over [0.1, 0.6] s, where it is
  // still below 0.05 w0; the first flip comes when rk4 in double says. (Smaller perturbations
  // are swamped by float rounding: at 1e-4 w0 the first flip is 0.5% off, at 1e-3 w0 1e-6.)
  float tiny = 1e-3f * w0;
  std::vector<std::array<double, 3>> w = Spin(grn_v3(tiny, w0, -tiny / std::sqrt(3.0f)), dt);
  std::vector<std::array<double, 3>> ref = Reference(w[0].data(), dt / fine, kSteps * fine, fine);
  auto perp = [](const std::array<double, 3>& x) { return std::hypot(x[0], x[2]); };
  double growth = w0 * std::sqrt((I[1] - I[0]) * (I[2] - I[1]) / (I[0] * I[2]));
  int a = 100, b = 600;
  double measured = std::log(perp(w[b]) / perp(w[a])) / ((b - a) * dt);
  double ref_measured = std::log(perp(ref[b]) / perp(ref[a])) / ((b - a) * dt);
  EXPECT_LT(perp(w[b]), 0.05 * w0);
  EXPECT_NEAR(measured / growth, 1, 2e-3);
  EXPECT_NEAR(measured / ref_measured, 1, 3e-4);
  std::vector<double> flips = Flips(w, dt), ref_flips = Flips(ref, dt);
  ASSERT_FALSE(flips.empty());
  ASSERT_FALSE(ref_flips.empty());
  EXPECT_NEAR(flips[0], ref_flips[0], 1e-3 * ref_flips[0]);
  std::printf("[ measure  ] tennis racket, w0 %.0f rad/s, dt %.0e s, perturbation %.0e w0: growth "
              "%.5g /s (rk4 %.5g, linear %.5g), first flip at %.5g s (rk4 %.5g)\n",
              w0, dt, tiny / w0, measured, ref_measured, growth, flips[0], ref_flips[0]);

  // the flips that follow are only as well defined as the energy and momentum, which float
  // holds to ~1e-6: so the flip after flip, against rk4 and the jacobi-elliptic solution (landau
  // & lifshitz 37, l^2 > 2 e I2: w2 = A sn(tau), tau = t sqrt((I3 - I2)(l^2 - 2 e I1) /
  // (I1 I2 I3)), kc^2 = (I3 - I1)(l^2 - 2 e I2) / ((I3 - I2)(l^2 - 2 e I1)), a flip every
  // 2 K(kc) in tau), where l^2 - 2 e I2 is 1e-2 of l^2
  float eps = 0.1f * w0;
  w = Spin(grn_v3(eps, w0, eps), dt);
  ref = Reference(w[0].data(), dt / fine, kSteps * fine, fine);
  double l2_e2i1 = 0, l2_e2i2 = 0;
  for (int i = 0; i < 3; i++) {
    l2_e2i1 += I[i] * (I[i] - I[0]) * w[0][i] * w[0][i];  // l^2 - 2 e I1, without cancellation
    l2_e2i2 += I[i] * (I[i] - I[1]) * w[0][i] * w[0][i];  // l^2 - 2 e I2
  }
  double kc = std::sqrt((I[2] - I[0]) * l2_e2i2 / ((I[2] - I[1]) * l2_e2i1));
  double spacing = 2 * EllipticK(kc) / std::sqrt((I[2] - I[1]) * l2_e2i1 / (I[0] * I[1] * I[2]));
  flips = Flips(w, dt);
  ref_flips = Flips(ref, dt);
  ASSERT_GE(ref_flips.size(), 5u);
  ASSERT_EQ(flips.size(), ref_flips.size());
  double worst = 0;
  for (size_t k = 0; k < flips.size(); k++) {
    worst = std::fmax(worst, std::fabs(flips[k] - ref_flips[k]));
    if (k > 0) {
      EXPECT_NEAR(ref_flips[k] - ref_flips[k - 1], spacing, 1e-6 * spacing);
    }
  }
  EXPECT_LT(worst, 1e-3 * spacing);
  std::printf("[ measure  ] tennis racket, perturbation %.0e w0: %zu flips, every %.6g s (elliptic "
              "%.6g s), worst flip time off rk4 by %.3g s\n",
              eps / w0, flips.size(), (flips.back() - flips[0]) / (flips.size() - 1), spacing,
              worst);
}

TEST(RigidRotation, MajorAndMinorAxesAreStable) {
  const float w0 = 10, eps = 1e-3f * w0, dt = 1e-3f;
  for (int axis : {0, 2}) {
    float w[3] = {eps, eps, eps};
    w[axis] = w0;
    Grain g = Spinning(grn_v3(w[0], w[1], w[2]));
    grnVec3 e = grn_v3(axis == 0, 0, axis == 2);
    grnVec3 start = grn_quat_rotate(g.q, e);
    double worst = 0;
    for (int s = 0; s < kSteps; s++) {
      grn_rigid_rotate(&g.q, &g.momentum, Inertia(), grn_v3(0, 0, 0), dt);
      double c = grn_dot(start, grn_quat_rotate(g.q, e));
      worst = std::fmax(worst, std::acos(std::fmin(c, 1.0)));
    }
    // the axis nutates about the angular momentum, within about twice its start angle to it
    double cone = std::acos(grn_dot(start, grn_scale(g.momentum, 1 / grn_norm(g.momentum))));
    EXPECT_LT(worst, 2.5 * cone) << "axis " << axis;
    EXPECT_LT(worst, 1e-2) << "axis " << axis;
    std::printf("[ measure  ] spin about the %s axis: the axis stays within %.2g rad (%.2g from "
                "the angular momentum at the start)\n", axis == 0 ? "minor" : "major", worst, cone);
  }
}

//---------------------------------- invariants ----------------------------------------------------

TEST(RigidRotation, ConservesEnergyMomentumAndNorm) {
  // the flipping spin (the hardest), at 0.001 to 0.3 rad a substep
  const float w0 = 10;
  for (float dt : {1e-4f, 1e-3f, 1e-2f, 3e-2f}) {
    Grain g = Spinning(grn_v3(1e-3f * w0, w0, 1e-3f * w0));
    grnVec3 l0 = g.momentum;
    double e0 = Energy(g), energy = 0, momentum = 0, norm = 0;
    for (int s = 0; s < kSteps; s++) {
      grn_rigid_rotate(&g.q, &g.momentum, Inertia(), grn_v3(0, 0, 0), dt);
      energy = std::fmax(energy, std::fabs(Energy(g) / e0 - 1));
      // the momentum of the angular velocity the grain turns at, against the start
      grnVec3 l = grn_rigid_momentum(g.q, grn_rigid_angvel(g.q, g.momentum, Inertia()), Inertia());
      momentum = std::fmax(momentum, grn_norm(grn_sub(l, l0)) / grn_norm(l0));
      norm = std::fmax(norm, std::fabs(std::sqrt((double)g.q.w * g.q.w + (double)g.q.x * g.q.x +
                                                 (double)g.q.y * g.q.y + (double)g.q.z * g.q.z) -
                                        1));
    }
    EXPECT_EQ(g.momentum.x, l0.x);
    EXPECT_EQ(g.momentum.y, l0.y);
    EXPECT_EQ(g.momentum.z, l0.z);
    EXPECT_LT(energy, 1e-5) << "dt " << dt;
    EXPECT_LT(momentum, 1e-5) << "dt " << dt;
    EXPECT_LT(norm, 1e-6) << "dt " << dt;
    std::printf("[ measure  ] %d substeps, %.3g rad a substep: energy %.2g, angular momentum "
                "%.2g, |q| - 1 %.2g\n",
                kSteps, w0 * dt, energy, momentum, norm);
  }
}

//---------------------------------- torque --------------------------------------------------------

TEST(RigidRotation, TorqueAboutAPrincipalAxisSpinsItUp) {
  // dt tau = 2^-11 and an orientation that maps the body axes onto the world axes (120 degrees
  // about (1, 1, 1)): the torque's impulses sum exactly in float
  const float dt = 1.0f / 1024, tau = 0.5f;
  const grnQuat q0 = grn_quat(0.5f, 0.5f, 0.5f, 0.5f);
  for (int axis = 0; axis < 3; axis++) {
    Grain g = {q0, grn_v3(0, 0, 0)};
    grnVec3 e = grn_v3(axis == 0, axis == 1, axis == 2);
    grnVec3 dir = grn_quat_rotate(q0, e);  // the axis in the world
    double alpha = tau / kInertia[axis], angle = 0;
    for (int s = 1; s <= kSteps; s++) {
      grn_rigid_rotate(&g.q, &g.momentum, Inertia(), grn_scale(dir, tau), dt);
      angle += 2 * std::atan(0.5 * dt * alpha * s * dt);  // the cayley turn of step s
    }
    // w = tau / I t about the axis, and nothing about the others
    double t = kSteps * dt;
    grnVec3 w = grn_rigid_angvel(g.q, g.momentum, Inertia());
    EXPECT_NEAR(grn_dot(w, dir) / (alpha * t), 1, 1e-6) << "axis " << axis;
    EXPECT_LT(grn_norm(grn_sub(w, grn_scale(dir, grn_dot(w, dir)))), 1e-5 * alpha * t);
    // turned about that axis by the steps' angles (1/2 alpha t^2 to within alpha t dt)
    grnQuat turned = grn_quat_mul(grn_quat(q0.w, -q0.x, -q0.y, -q0.z), g.q);
    grnVec3 u = grn_v3(turned.x, turned.y, turned.z);
    double got = 2 * std::atan2((double)grn_dot(u, e), turned.w);
    EXPECT_LT(grn_norm(grn_sub(u, grn_scale(e, grn_dot(u, e)))), 1e-5) << "axis " << axis;
    EXPECT_NEAR(std::remainder(got - angle, 2 * kPi), 0, 1e-4) << "axis " << axis;
    EXPECT_NEAR(angle, 0.5 * alpha * t * t, alpha * t * dt);
    std::printf("[ measure  ] torque about axis %d: w %.7g rad/s vs tau/I t %.7g, turned %.6g rad "
                "(%.3g off the steps' sum)\n", axis, grn_dot(w, dir), alpha * t, angle,
                std::remainder(got - angle, 2 * kPi));
  }
}

}  // namespace
