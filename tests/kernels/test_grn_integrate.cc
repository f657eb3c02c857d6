// kernels/grn_integrate.h through the solver: the vertical cyclic boundary moves a grain that
// leaves one end of the column by one period and leaves its velocity alone, so over many wraps
// no grain is lost and the grains' momentum is what the forces on them give.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_test_util.h"

namespace {

using grn_test::MakeSolver;
using grn_test::SolverPtr;

grnParams CyclicParams(int capacity, float radius, float lo, float hi) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = capacity;
  p.radius = radius;
  p.max_shapes = 8;
  p.cyclic_z[0] = lo;
  p.cyclic_z[1] = hi;
  return p;
}

TEST(GrnIntegrate, CyclicBoundaryCarriesAGrainAcrossWithItsVelocity) {
  // one free grain 0.2 mm above the bottom falling at 2 m/s, one 0.3 mm under the top rising:
  // after one substep each has moved by its new velocity, less or plus one period
  const float lo = -0.1f, hi = 0.3f, period = hi - lo;
  SolverPtr s = MakeSolver(CyclicParams(2, 0.005f, lo, hi));
  ASSERT_TRUE(s);
  const grnParams* p = grn_params(s.get());
  const float pos[6] = {0.01f, 0.02f, lo + 2e-4f, -0.05f, 0.03f, hi - 3e-4f};
  const float vel[6] = {0.3f, -0.2f, -2.0f, 0.1f, 0.4f, 1.5f};
  ASSERT_EQ(grn_set_grains(s.get(), 2, pos, vel), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
  float after_pos[6], after_vel[6];
  ASSERT_EQ(grn_get_grains(s.get(), after_pos, after_vel), grnOK);
  const float shift[2] = {period, -period};
  for (int i = 0; i < 2; i++) {
    SCOPED_TRACE(i == 0 ? "through the bottom" : "through the top");
    for (int a = 0; a < 3; a++) {
      // velocity: gravity only, the same as without the boundary
      float v = vel[3 * i + a] + p->gravity[a] * p->dt;
      EXPECT_FLOAT_EQ(after_vel[3 * i + a], v) << "axis " << a;
      double x = (double)pos[3 * i + a] + (double)v * p->dt + (a == 2 ? shift[i] : 0);
      EXPECT_NEAR(after_pos[3 * i + a], x, 1e-6) << "axis " << a;
    }
    EXPECT_GE(after_pos[3 * i + 2], lo);
    EXPECT_LE(after_pos[3 * i + 2], hi);
  }
}

TEST(GrnIntegrate, CyclicBoundaryKeepsEveryGrainAndItsMomentumOverManyWraps) {
  // a pile between four frictionless walls with no floor, the bottom of its 10 cm column joined
  // to the top, falls for 0.6 s. the walls push only sideways and grain-grain impulses cancel in
  // pairs, so with the boundary leaving velocities alone the vertical momentum is gravity's
  // impulse exactly, and the unwrapped centre of mass follows symplectic euler's free fall
  const float r = 0.005f, lo = 0.0f, hi = 0.1f, period = hi - lo;
  SolverPtr s = MakeSolver(CyclicParams(400, r, lo, hi));
  ASSERT_TRUE(s);
  const grnParams* p = grn_params(s.get());
  const float box_lo[3] = {-0.04f, -0.04f, lo}, box_hi[3] = {0.04f, 0.04f, hi};
  grnShape planes[6];
  ASSERT_EQ(grn_box_planes(box_lo, box_hi, 0, 0.0f, planes), 5);
  ASSERT_EQ(grn_set_shapes(s.get(), 4, planes + 1), grnOK);  // the walls, not the floor

  const float fill_lo[3] = {-0.034f, -0.034f, 0.03f}, fill_hi[3] = {0.034f, 0.034f, 0.095f};
  std::vector<float> pos = grn_test::JitteredLattice(400, fill_lo, fill_hi, 2.02f * r, 0.05f * r,
                                                     3);
  const int n = (int)pos.size() / 3;
  ASSERT_GT(n, 250);
  ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), nullptr), grnOK);

  double zcm0 = 0;
  for (int i = 0; i < n; i++) zcm0 += pos[3 * i + 2];
  zcm0 /= n;
  std::vector<double> unwrapped(n);
  for (int i = 0; i < n; i++) unwrapped[i] = pos[3 * i + 2];
  std::vector<float> now(3 * n), v(3 * n);
  long wraps = 0;
  const int nsub = 1200;
  for (int k = 0; k < nsub; k++) {
    ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
    ASSERT_EQ(grn_count(s.get()), n);
    ASSERT_EQ(grn_get_grains(s.get(), now.data(), v.data()), grnOK);
    for (int i = 0; i < n; i++) {
      float z = now[3 * i + 2];
      ASSERT_TRUE(z >= lo && z <= hi) << "grain " << i << " at z " << z << " substep " << k;
      double dz = (double)z - (double)pos[3 * i + 2];
      double jump = period * std::round(dz / period);
      if (jump != 0) wraps++;
      unwrapped[i] += dz - jump;
      pos[3 * i + 2] = z;
    }
  }
  // every grain went round many times
  EXPECT_GT(wraps, 12L * n);

  // free fall as the solver rounds it: v += g dt in float, z += v dt
  float vfree = 0;
  double zfree = zcm0;
  for (int k = 0; k < nsub; k++) {
    vfree += p->gravity[2] * p->dt;
    zfree += (double)vfree * p->dt;
  }

  // vertical momentum per grain mass: gravity's impulse
  double pz = 0;
  for (int i = 0; i < n; i++) pz += v[3 * i + 2];
  EXPECT_NEAR(pz / n, vfree, 1e-6 * std::fabs(vfree));

  // unwrapped centre of mass
  double zcm = 0;
  for (int i = 0; i < n; i++) zcm += unwrapped[i];
  zcm /= n;
  EXPECT_NEAR(zcm, zfree, 1e-5 * std::fabs(zfree - zcm0));
}

}  // namespace
