// grain orientations against exact rotations: grn_quat_exp equals (cos(a/2), sin(a/2) axis) from
// a nanoradian to a hundred radians; a free grain spinning at constant angular velocity turns by
// exactly w t about the world axis (turns compose in the world frame: from a tilted start the
// result is exp(w t) q0, not q0 exp(w t)); the solver takes, keeps and returns orientations bit
// for bit, refuses ones that are not unit quaternions, and starts new grains at the identity; the
// cpu's vectorised dem integration of a range of grains equals the per-grain one (the gpu's) bit
// for bit.
// (A sphere rolling down an incline turning by distance / radius: test_rotation.cc.)
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_contact_dem.h"
#include "grn_rigid.h"
#include "grn_test_util.h"

namespace {

using grn_test::MakeSolver;
using grn_test::Read;
using grn_test::SolverPtr;

// a quaternion in double (w, x, y, z)
struct Quat {
  double w, x, y, z;
};

Quat Mul(const Quat& a, const Quat& b) {
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
          a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

// the rotation by angle |r| about r / |r|, in double with the library's sin and cos
Quat Exact(double rx, double ry, double rz) {
  double a = std::sqrt(rx * rx + ry * ry + rz * rz);
  if (a == 0) return {1, 0, 0, 0};
  double s = std::sin(a / 2) / a;
  return {std::cos(a / 2), s * rx, s * ry, s * rz};
}

// the angle [rad] of the rotation that takes orientation b to orientation a (q and -q are one
// orientation)
double AngleBetween(const Quat& a, const float* b) {
  double dot = a.w * b[0] + a.x * b[1] + a.y * b[2] + a.z * b[3];
  double na = std::sqrt(a.w * a.w + a.x * a.x + a.y * a.y + a.z * a.z);
  double nb = std::sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2] +
                        (double)b[3] * b[3]);
  return 2 * std::acos(std::fmin(1.0, std::fabs(dot) / (na * nb)));
}

// grn_quat_exp halves r k times to |r| <= 0.5, sums the series and squares k times. the series
// part is within a few float roundings (3 ulp of 1: 3.6e-7); each squaring doubles the angle's
// error. so the bound is 3.6e-7 rad times 2^k, with at least 1 ulp of the result's components
TEST(Orientation, QuatExpIsTheExactRotation) {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal;
  const double angles[] = {0, 1e-9, 1e-6, 1e-3, 0.05, 0.3, 0.5, 0.7, 1, 2, 3, 3.14159, 6, 10, 100};
  for (double a : angles) {
    for (int trial = 0; trial < 20; trial++) {
      double u[3] = {normal(rng), normal(rng), normal(rng)};
      double len = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
      float r[3];
      for (int c = 0; c < 3; c++) r[c] = (float)(a * u[c] / len);
      grnQuat q = grn_quat_exp(grn_v3(r[0], r[1], r[2]));
      const float got[4] = {q.w, q.x, q.y, q.z};
      Quat want = Exact(r[0], r[1], r[2]);  // of the float vector given
      int k = 0;
      for (double h = a; h > 0.5; h /= 2) k++;
      double bound = 3.6e-7 * std::ldexp(1.0, k);
      EXPECT_LE(AngleBetween(want, got), bound) << "angle " << a << ", trial " << trial;
      double norm = std::sqrt((double)q.w * q.w + (double)q.x * q.x + (double)q.y * q.y +
                              (double)q.z * q.z);
      EXPECT_NEAR(norm, 1.0, 1e-6 * std::ldexp(1.0, k)) << "angle " << a;
    }
  }
  // a non-finite rotation vector ends, as nan
  grnQuat bad = grn_quat_exp(grn_v3(std::numeric_limits<float>::infinity(), 0, 0));
  EXPECT_TRUE(std::isnan(bad.w) || std::isnan(bad.x));
}

// one grain in empty space, no gravity, spinning at w about a fixed world axis from orientation
// q0, advanced `steps` substeps: its orientation (the angular velocity stays to the bit)
std::vector<float> Spin(const float w[3], const float q0[4], int steps, double* dt) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = 1;
  p.gravity[0] = p.gravity[1] = p.gravity[2] = 0;
  *dt = p.dt;
  SolverPtr s = MakeSolver(p);
  if (!s) return {};
  const float x[3] = {0, 0, 1};
  EXPECT_EQ(grn_set_grains(s.get(), 1, x, nullptr), grnOK);
  EXPECT_EQ(grn_set_angvel(s.get(), w), grnOK);
  EXPECT_EQ(grn_set_orientations(s.get(), q0), grnOK);
  EXPECT_EQ(grn_advance(s.get(), steps), grnOK);
  grn_test::Grains g = Read(s.get());
  for (int c = 0; c < 3; c++) EXPECT_EQ(g.angvel[c], w[c]);
  return g.orient;
}

// constant spin: the orientation after n substeps is exp(w n dt) q0 (world frame). each substep's
// turn is within a few float roundings of exact (about 5e-7 rad, renormalised so the norm never
// drifts); over 10,000 substeps the errors stay under 1e-4 rad however they add up, while a
// turn in the body frame misses by the tilt (0.6 rad here), a wrong factor of 2 by radians.
TEST(Orientation, FreeSpinTurnsByTheAngularVelocityInTheWorldFrame) {
  const float w[3] = {3.0f, -4.0f, 12.0f};  // |w| = 13 rad/s
  const double tilt = 0.6;                   // q0: 0.6 rad about x
  const float q0[4] = {(float)std::cos(tilt / 2), (float)std::sin(tilt / 2), 0, 0};
  const int steps = 10000;
  double dt = 0;
  std::vector<float> q = Spin(w, q0, steps, &dt);
  ASSERT_EQ(q.size(), 4u);
  const double t = steps * dt;
  Quat turn = Exact(w[0] * t, w[1] * t, w[2] * t), start = {q0[0], q0[1], q0[2], q0[3]};
  double err = AngleBetween(Mul(turn, start), q.data());
  double body_frame = AngleBetween(Mul(start, turn), q.data());
  double norm = std::sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                          (double)q[3] * q[3]);
  std::printf("[ measure  ] free spin, |w| 13 rad/s, %d substeps of %g s (%.1f turns): angle "
              "error %.3g rad (body-frame composition would be %.3g rad off); |q| - 1 = %.2g\n",
              steps, dt, 13 * t / (2 * M_PI), err, body_frame, norm - 1);
  EXPECT_LT(err, 1e-4);
  EXPECT_GT(body_frame, 0.1) << "the test tells the frames apart";
  EXPECT_NEAR(norm, 1.0, 1e-6);
}

TEST(Orientation, KeptBitForBitRefusedWhenNotUnitAndResetByNewGrains) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = 3;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float x[9] = {0, 0, 1, 0.1f, 0, 1, 0.2f, 0, 1};
  ASSERT_EQ(grn_set_grains(s.get(), 3, x, nullptr), grnOK);
  // new grains: the identity
  std::vector<float> q(12);
  ASSERT_EQ(grn_get_orientations(s.get(), q.data()), grnOK);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(q[4 * i], 1.0f);
    EXPECT_EQ(q[4 * i + 1], 0.0f);
    EXPECT_EQ(q[4 * i + 2], 0.0f);
    EXPECT_EQ(q[4 * i + 3], 0.0f);
  }
  // any unit quaternions (within the tolerance) come back bit for bit
  std::vector<float> set = {0.5f, 0.5f, 0.5f, 0.5f, 0, 0, 0, -1, 0.6f, 0, 0.8f, 0.0004f};
  ASSERT_EQ(grn_set_orientations(s.get(), set.data()), grnOK);
  ASSERT_EQ(grn_get_orientations(s.get(), q.data()), grnOK);
  EXPECT_EQ(q, set);
  // refused, and nothing changed: a norm off by more than the tolerance, zero, nan, inf
  const float off = (float)(1 + 2 * GRN_ORIENTATION_TOLERANCE);
  const float bad[4][4] = {{off, 0, 0, 0}, {0, 0, 0, 0},
                           {std::numeric_limits<float>::quiet_NaN(), 0, 0, 0},
                           {std::numeric_limits<float>::infinity(), 0, 0, 0}};
  const grnStatus why[4] = {grnERR_ARG, grnERR_ARG, grnERR_NONFINITE, grnERR_NONFINITE};
  for (int b = 0; b < 4; b++) {
    std::vector<float> t = set;
    for (int c = 0; c < 4; c++) t[4 + c] = bad[b][c];
    EXPECT_EQ(grn_set_orientations(s.get(), t.data()), why[b]) << "case " << b;
    ASSERT_EQ(grn_get_orientations(s.get(), q.data()), grnOK);
    EXPECT_EQ(q, set) << "case " << b;
  }
  EXPECT_EQ(grn_set_orientations(s.get(), nullptr), grnERR_ARG);
  EXPECT_EQ(grn_get_orientations(nullptr, q.data()), grnERR_ARG);
  // grn_set_grains starts its grains at the identity again
  ASSERT_EQ(grn_set_grains(s.get(), 2, x, nullptr), grnOK);
  ASSERT_EQ(grn_get_orientations(s.get(), q.data()), grnOK);
  for (int i = 0; i < 2; i++) EXPECT_EQ(q[4 * i], 1.0f) << "grain " << i;
}

// the cpu integrates dem grains in one vectorised loop over its share, which leaves turns too
// large for grn_quat_exp's series alone (|w dt| > 0.5 rad) to a second pass: after a substep
// of free grains (no contacts: only gravity and spin), both kinds of turn are the same bit for
// bit as grn_dem_integrate_grain gives each grain on its own (as the gpu runs it)
TEST(Orientation, DemIntegrationIsGrainByGrainBitForBit) {
  const int n = 37;  // not a whole number of vectors
  grnParams p;
  grn_default_params(&p);
  p.model = grnMODEL_DEM;
  p.capacity = n;
  p.dt = 1e-3f;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> x(3 * n), v(3 * n), w(3 * n), q(4 * n);
  for (int i = 0; i < n; i++) {
    // a lattice 10 radii apart: no contacts
    x[3 * i] = 10 * p.radius * (i % 4);
    x[3 * i + 1] = 10 * p.radius * (i / 4 % 4);
    x[3 * i + 2] = 10 * p.radius * (i / 16) + 1;
    for (int a = 0; a < 3; a++) {
      v[3 * i + a] = 2 * u(rng);
      w[3 * i + a] = 280 * u(rng);  // turns up to 0.48 rad in a substep
    }
    grn_store_quat(q.data() + 4 * i,
                   grn_quat_normalize(grn_quat(u(rng), u(rng), u(rng), u(rng))));
  }
  w[3 * 5] = 2000;       // 2 rad
  w[3 * 30 + 2] = -9e4;  // 90 rad
  ASSERT_EQ(grn_set_grains(s.get(), n, x.data(), v.data()), grnOK);
  ASSERT_EQ(grn_set_angvel(s.get(), w.data()), grnOK);
  ASSERT_EQ(grn_set_orientations(s.get(), q.data()), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
  grn_test::Grains got = Read(s.get());

  // each grain on its own, from no impulses
  std::vector<float> iter(GRN_ITER * (size_t)n, 0.0f), inv(n, 1), moved(3 * n);
  int nonfinite = 0;
  grnData d{};
  d.pos = x.data();
  d.vel = v.data();
  d.angvel = w.data();
  d.orient = q.data();
  d.iter = iter.data();
  d.inv_mass = d.inv_inertia = inv.data();
  d.nonfinite = &nonfinite;
  grnConsts c{};
  c.dt = p.dt;
  for (int a = 0; a < 3; a++) c.gravity[a] = p.gravity[a];
  for (int i = 0; i < n; i++) grn_dem_integrate_grain(&d, &c, i);
  EXPECT_EQ(nonfinite, 0);
  EXPECT_EQ(0, std::memcmp(got.pos.data(), x.data(), x.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(got.vel.data(), v.data(), v.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(got.angvel.data(), w.data(), w.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(got.orient.data(), q.data(), q.size() * sizeof(float)));
  // the test tells the two turns apart: the large ones' series alone is another rotation
  for (int i : {5, 30}) {
    grnVec3 r = grn_scale(grn_load3(w.data() + 3 * i), c.dt);
    EXPECT_GT(grn_dot(r, r), 0.25f);
    grnQuat series = grn_quat_exp_series(r, grn_dot(r, r)), full = grn_quat_exp(r);
    EXPECT_NE(0, std::memcmp(&series, &full, sizeof(grnQuat))) << "grain " << i;
  }
}

}  // namespace
