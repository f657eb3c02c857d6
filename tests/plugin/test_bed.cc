// plugin/bed.c through MuJoCo: the initial bed fills the fill box without overlaps, is the same
// for the same seed and differs for another seed.
#include <cmath>
#include <cstdio>
#include <map>
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

// a fill box of more grains than a long long counts is refused as too many grains, naming the
// limit: a box 1e30 m long (its lattice length beyond long long) and one 1e10 m on every side
// (its lattice lengths' product beyond long long) were refused as thinner than one grain
TEST(Bed, AFillBoxBeyondCountingIsRefusedAsTooManyGrains) {
  for (const char* fill : {"-1e30 -0.02 0.01 1e30 0.02 0.05", "-1e10 -1e10 0 1e10 1e10 1e10"}) {
    std::string error;
    EXPECT_FALSE(LoadXml(TerrainXml({{"fill", fill}, {"radius", "0.004"}}), &error)) << fill;
    EXPECT_NE(error.find("'fill'"), std::string::npos) << fill << ": " << error;
    EXPECT_NE(error.find("more than the limit"), std::string::npos) << fill << ": " << error;
  }
}

// key radius "rmin rmax": radii drawn uniformly in the range, seeded; the grains then settle as
// spheres of their own radii: no pair overlaps by more than a small share of the smaller radius
// (a solver that used one radius for all would leave the larger grains overlapping by up to
// rmax - rmin, here 1 mm, a third of rmin)
TEST(Bed, MixedSizesDrawRadiiInTheRangeAndSettleAsTheirOwnSpheres) {
  const double rmin = 0.003, rmax = 0.004;
  std::map<std::string, std::string> config = {
      {"fill", "-0.03 -0.03 0.005 0.03 0.03 0.05"}, {"radius", "0.003 0.004"}, {"spacing", "3"},
      {"seed", "5"}};
  std::string error;
  auto m = LoadXml(TerrainXml(config, mjg_test::WalledBox(0.035)), &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  ASSERT_EQ(g.n(), 100);  // a 5 x 5 x 4 lattice of spacing 3 rmax
  double lo = 1, hi = 0, mean = 0;
  for (int i = 0; i < g.n(); i++) {
    double r = *g.radius(i);
    EXPECT_GE(r, (float)rmin);
    EXPECT_LE(r, (float)rmax);
    lo = std::fmin(lo, r), hi = std::fmax(hi, r), mean += r / g.n();
  }
  // uniform in the range: the extremes near its ends, the mean near its middle
  EXPECT_LT(lo, rmin + 0.05 * (rmax - rmin));
  EXPECT_GT(hi, rmax - 0.05 * (rmax - rmin));
  EXPECT_NEAR(mean, 0.5 * (rmin + rmax), 0.05 * (rmax - rmin));
  // the same seed gives the same radii, another seed others
  EXPECT_EQ(BedFor(config), StateCopy(m.get(), d.get()));
  config["seed"] = "6";
  EXPECT_NE(BedFor(config), StateCopy(m.get(), d.get()));

  for (int k = 0; k < 400; k++) mj_step(m.get(), d.get());  // 0.8 s: poured and settled
  double worst = 0;
  for (int i = 0; i < g.n(); i++) {
    for (int j = i + 1; j < g.n(); j++) {
      double dd = 0;
      for (int a = 0; a < 3; a++) dd += std::pow(g.pos(i)[a] - g.pos(j)[a], 2);
      double overlap = *g.radius(i) + *g.radius(j) - std::sqrt(dd);
      worst = std::fmax(worst, overlap / std::fmin(*g.radius(i), *g.radius(j)));
    }
  }
  EXPECT_LT(worst, 0.05);
  // and touch as their own spheres: the grains in the bottom layer rest with their centres one
  // own radius up (one radius for all would hold the smaller ones up to rmax - rmin, a third of
  // rmin, above it); a few small grains wedged between larger ones rest higher
  int low = 0, on_floor = 0;
  for (int i = 0; i < g.n(); i++) {
    double r = *g.radius(i), z = g.pos(i)[2];
    if (z > 1.5 * rmin) continue;
    low++;
    if (std::fabs(z - r) < 0.01 * r) on_floor++;
  }
  EXPECT_GT(low, 10);
  EXPECT_GE(on_floor, 0.8 * low);
  double off = low ? 1 - (double)on_floor / low : 1;
  std::printf("[ measure  ] %d grains, radii %.5f to %.5f m (mean %.5f); largest overlap after "
              "0.8 s %.4f of the smaller radius; of %d grains in the bottom layer %d rest on the "
              "floor (centre within 0.01 r of its own radius; %.0f%% do not)\n", g.n(), lo, hi, mean,
              worst, low, on_floor, 100 * off);
}

}  // namespace
