// plugin/bed.c through MuJoCo: the initial bed fills the fill box without overlaps, is the same
// for the same seed and differs for another seed.
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
using mjg_test::StateCopy;
using mjg_test::TerrainXml;

std::vector<mjtNum> BedFor(const std::map<std::string, std::string>& config) {
  std::string error;
  auto m = LoadXml(TerrainXml(config), &error);
  EXPECT_TRUE(m) << error;
  if (!m) return {};
  DataPtr d(mj_makeData(m.get()));
  return StateCopy(m.get(), d.get());
}

TEST(Bed, FillsTheBoxWithoutOverlap) {
  const double r = 0.004, lo[3] = {-0.03, -0.02, 0.01}, hi[3] = {0.03, 0.02, 0.05};
  auto m = LoadXml(TerrainXml({{"fill", "-0.03 -0.02 0.01 0.03 0.02 0.05"}, {"radius", "0.004"}}));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  // lattice of spacing 2.2 r: floor((extent - 2 r) / 2.2 r) + 1 per axis
  int expect = 1;
  for (int a = 0; a < 3; a++) expect *= static_cast<int>(std::floor((hi[a] - lo[a] - 2 * r) /
                                                                    (2.2 * r) + 1e-9)) + 1;
  ASSERT_EQ(g.n(), expect);
  for (int i = 0; i < g.n(); i++) {
    for (int a = 0; a < 3; a++) {
      EXPECT_GE(g.pos(i)[a], lo[a] + r - 1e-7);
      EXPECT_LE(g.pos(i)[a], hi[a] - r + 1e-7);
      EXPECT_EQ(g.vel(i)[a], 0);
      // values are floats, as the solver holds them
      EXPECT_EQ(g.pos(i)[a], static_cast<float>(g.pos(i)[a]));
    }
    for (int j = i + 1; j < g.n(); j++) {
      double dd = 0;
      for (int a = 0; a < 3; a++) dd += std::pow(g.pos(i)[a] - g.pos(j)[a], 2);
      ASSERT_GT(std::sqrt(dd), 2 * r) << "grains " << i << " and " << j << " overlap";
    }
  }
}

TEST(Bed, SeededAndReproducible) {
  auto config = mjg_test::SmallBed();
  auto a = BedFor(config);
  auto b = BedFor(config);
  EXPECT_EQ(a, b);
  config["seed"] = "7";
  auto c = BedFor(config);
  ASSERT_EQ(a.size(), c.size());
  EXPECT_NE(a, c);
}

}  // namespace
