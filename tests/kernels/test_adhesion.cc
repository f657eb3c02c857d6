// adhesion (grn_adhesion.h) in both cohesive models: the area it acts on, and a grain hanging
// under a plate by adhesion alone, which stays when its weight is below the contact's pull-off
// force and falls when above.
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_test_util.h"

namespace {

using namespace grn_test;

// the seed's interpolated area (pbd) and the rigid contact's (pj), at a few overlaps worked out
// by hand: pi r^2 (1 - (z / r - 1)^2) is 0 at z = 0, 3/4 pi r^2 at r / 2, pi r^2 from r on; a pj
// contact has pi r^2 while its gap is within GRN_ADHESION_RANGE r, else none
TEST(Adhesion, AreaIsTheSeedsInterpolation) {
  const double r = 0.004, full = kPi * r * r;
  EXPECT_EQ(grn_adhesive_area(grnMODEL_PBD, 0, r), 0);
  EXPECT_EQ(grn_adhesive_area(grnMODEL_PBD, -0.1 * r, r), 0);
  EXPECT_NEAR(grn_adhesive_area(grnMODEL_PBD, 0.5 * r, r), 0.75 * full, 1e-6 * full);
  EXPECT_NEAR(grn_adhesive_area(grnMODEL_PBD, 0.1 * r, r), 0.19 * full, 1e-6 * full);
  EXPECT_NEAR(grn_adhesive_area(grnMODEL_PBD, r, r), full, 1e-6 * full);
  EXPECT_NEAR(grn_adhesive_area(grnMODEL_PBD, 2 * r, r), full, 1e-6 * full);
  EXPECT_NEAR(grn_adhesive_area(grnMODEL_PJ, 0, r), full, 1e-6 * full);
  EXPECT_NEAR(grn_adhesive_area(grnMODEL_PJ, -0.5 * GRN_ADHESION_RANGE * r, r), full, 1e-6 * full);
  EXPECT_EQ(grn_adhesive_area(grnMODEL_PJ, -2 * GRN_ADHESION_RANGE * r, r), 0);
}

TEST(Adhesion, DemHasNone) {
  grnParams p;
  grn_default_params(&p);
  p.model = grnMODEL_DEM;
  p.adhesion = 100;
  char msg[128];
  EXPECT_EQ(grn_check_params(&p, msg, sizeof(msg)), grnERR_ARG);
  EXPECT_NE(std::string(msg).find("adhesion"), std::string::npos) << msg;
}

// a grain of radius r under a plate (the underside of a box at z = 0), starting at overlap z0 and
// at rest, gravity g down; returns how far it has dropped after 1 s [m]
double HangingDrop(grnParams p, double g, double z0) {
  p.capacity = 1;
  p.gravity[2] = (float)-g;
  SolverPtr s = MakeSolver(p);
  grnShape plate = StaticShape(grnSHAPE_BOX);
  plate.size[0] = plate.size[1] = plate.size[2] = 0.02f;
  plate.pos[2] = plate.com[2] = 0.02f;
  plate.friction = 0.5f;
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &plate), grnOK);
  const float pos[3] = {0, 0, (float)(z0 - p.radius)};
  EXPECT_EQ(grn_set_grains(s.get(), 1, pos, nullptr), grnOK);
  EXPECT_EQ(grn_advance(s.get(), (int)std::lround(1.0 / p.dt)), grnOK);
  Grains after = Read(s.get());
  return pos[2] - after.pos[2];
}

// pj: a rigid contact pulls with up to adhesion x pi r^2, so the grain hangs iff m g is below it:
// at 0.9 of that force it stays (it moves less than 1e-3 r in 1 s), at 1.1 it falls (more than r)
TEST(Adhesion, PjGrainHangsBelowThePullOffForceAndFallsAbove) {
  grnParams p;
  grn_default_params(&p);
  p.adhesion = 500;
  const double r = p.radius, m = p.density * 4.0 / 3.0 * kPi * r * r * r;
  const double pull = p.adhesion * kPi * r * r;
  for (double ratio : {0.9, 1.1}) {
    double drop = HangingDrop(p, ratio * pull / m, 0);
    std::printf("[ measure  ] pj grain under a plate, weight %.2f x adhesion pi r^2 (%.4g N): "
                "dropped %.3g r in 1 s\n", ratio, pull, drop / r);
    if (ratio < 1) {
      EXPECT_LT(std::fabs(drop), 1e-3 * r);
    } else {
      EXPECT_GT(drop, r);
    }
  }
}

// pbd: the spring pushes the grain off with k z while adhesion holds it with a A(z) = a pi
// (2 r z - z^2) (the seed's area), so the most it can hang is the pull-off force
// max_z (a A(z) - k z) = (2 pi a r - k)^2 / (4 pi a), at z* = r - k / (2 pi a) (for 2 pi a r > k).
// soft springs (dt^2 k / m = 1e-3), so the position-level spring is the continuous one to within
// its damping; the grain starts at z*: at 0.9 of the pull-off force it stays, at 1.1 it falls
TEST(Adhesion, PbdGrainHangsBelowThePullOffForceAndFallsAbove) {
  grnParams p;
  grn_default_params(&p);
  p.model = grnMODEL_PBD;
  p.adhesion = 1000;
  p.stiffness = 5;
  const double r = p.radius, m = p.density * 4.0 / 3.0 * kPi * r * r * r;
  const double a = p.adhesion, k = p.stiffness;
  ASSERT_GT(2 * kPi * a * r, k);
  const double zstar = r - k / (2 * kPi * a);
  const double pull = std::pow(2 * kPi * a * r - k, 2) / (4 * kPi * a);
  for (double ratio : {0.9, 1.1}) {
    double drop = HangingDrop(p, ratio * pull / m, zstar);
    std::printf("[ measure  ] pbd grain under a plate at overlap %.3g r, weight %.2f x the "
                "pull-off force (%.4g N): dropped %.3g r in 1 s\n", zstar / r, ratio, pull,
                drop / r);
    if (ratio < 1) {
      EXPECT_LT(std::fabs(drop), 1e-3 * r);
    } else {
      EXPECT_GT(drop, r);
    }
  }
}

}  // namespace
