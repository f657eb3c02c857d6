// plugin/boundaries.c through MuJoCo: world-body planes and boxes hold the grains, the domain key
// keeps them in its box (its walls only under a vertical cyclic boundary), and geoms that collide
// with nothing are ignored.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "mjg_test_util.h"

namespace {

using mjg_test::DataPtr;
using mjg_test::GrainsOf;
using mjg_test::LoadXml;
using mjg_test::TerrainXml;

struct Extent {
  double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9};
};

Extent Simulate(const std::string& xml, int steps) {
  std::string error;
  auto m = LoadXml(xml, &error);
  EXPECT_TRUE(m) << error;
  Extent e;
  if (!m) return e;
  DataPtr d(mj_makeData(m.get()));
  for (int k = 0; k < steps; k++) mj_step(m.get(), d.get());
  auto g = GrainsOf(m.get(), d.get());
  for (int i = 0; i < g.n(); i++) {
    for (int a = 0; a < 3; a++) {
      e.lo[a] = std::min(e.lo[a], g.pos(i)[a]);
      e.hi[a] = std::max(e.hi[a], g.pos(i)[a]);
    }
  }
  return e;
}

const double kR = 0.004;

TEST(Boundaries, TiltedPlaneAndBoxesHoldTheGrains) {
  // a floor tilted about x by 0.2 rad through the origin, and a box the grains land on
  std::string world =
      "<geom type=\"plane\" size=\"1 1 0.1\" euler=\"0.2 0 0\"/>"
      "<geom type=\"box\" pos=\"0 0 0.2\" size=\"0.2 0.2 0.02\"/>";
  auto config = mjg_test::SmallBed();
  config["fill"] = "-0.04 -0.04 0.25 0.04 0.04 0.28";
  Extent e = Simulate(TerrainXml(config, world), 150);
  // on top of the box (top face at z = 0.22), not through it
  EXPECT_GT(e.lo[2], 0.22 + 0.9 * kR);
}

TEST(Boundaries, DomainKeepsGrainsInside) {
  // no geoms at all: the domain box is floor and walls
  auto config = mjg_test::SmallBed();
  config["domain"] = "-0.05 -0.05 0 0.05 0.05 0.2";
  Extent e = Simulate(TerrainXml(config), 250);
  for (int a = 0; a < 2; a++) {
    EXPECT_GT(e.lo[a], -0.05 + 0.9 * kR);
    EXPECT_LT(e.hi[a], 0.05 - 0.9 * kR);
  }
  EXPECT_GT(e.lo[2], 0.9 * kR);
}

TEST(Boundaries, CyclicZLeavesTheDomainWallsAndJoinsItsBottomToItsTop) {
  // the domain's floor and lid give way to the cyclic boundary: the bed falls for 0.5 s through
  // a 20 cm column, wrapping round, between the walls, and every grain stays
  auto config = mjg_test::SmallBed();
  config["domain"] = "-0.05 -0.05 0 0.05 0.05 0.2";
  config["cyclic_z"] = "0 0.2";
  std::string error;
  auto m = LoadXml(TerrainXml(config), &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  const int n = g.n();
  ASSERT_GT(n, 100);
  int wrapped = 0;
  for (int k = 0; k < 250; k++) {
    std::vector<double> z(n);
    for (int i = 0; i < n; i++) z[i] = g.pos(i)[2];
    mj_step(m.get(), d.get());
    ASSERT_EQ(g.n(), n);
    for (int i = 0; i < n; i++) {
      if (g.pos(i)[2] > z[i] + 0.1) wrapped++;
    }
  }
  Extent e;
  double vz = 0;
  for (int i = 0; i < n; i++) {
    for (int a = 0; a < 3; a++) {
      e.lo[a] = std::min(e.lo[a], g.pos(i)[a]);
      e.hi[a] = std::max(e.hi[a], g.pos(i)[a]);
    }
    vz += g.vel(i)[2] / n;
  }
  for (int a = 0; a < 2; a++) {
    EXPECT_GT(e.lo[a], -0.05 + 0.9 * kR);
    EXPECT_LT(e.hi[a], 0.05 - 0.9 * kR);
  }
  EXPECT_GE(e.lo[2], 0.0);
  EXPECT_LE(e.hi[2], 0.2);
  // falling all along (free fall would give -4.9 m/s), each grain through the seam 4 to 6 times
  EXPECT_LT(vz, -3.0);
  EXPECT_GE(wrapped, 3 * n);
}

TEST(Boundaries, VisualGeomsAreIgnored) {
  // a plane that collides with nothing is no floor
  std::string world = "<geom type=\"plane\" size=\"1 1 0.1\" contype=\"0\" conaffinity=\"0\"/>";
  Extent e = Simulate(TerrainXml(mjg_test::SmallBed(), world), 100);
  EXPECT_LT(e.lo[2], -0.01);
}

}  // namespace
