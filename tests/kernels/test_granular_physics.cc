// granular physics that only emerges from several grains together: a stack of grains is an
// unstable equilibrium without rolling resistance and falls over, and stands with it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_test_util.h"

namespace {

using grn_test::Grains;
using grn_test::MakeSolver;
using grn_test::MaxSpeed;
using grn_test::Read;
using grn_test::SolverPtr;

constexpr double kG = 9.81;

// grains of the given radii at random non-overlapping positions in the box [lo, hi] (inset by
// each grain's radius), placed in order by random sequential addition with a clearance of
// 0.05 of the larger radius; false when some grain finds no room in 2000 tries
bool RandomPlacement(const std::vector<float>& radii, const float lo[3], const float hi[3],
                     unsigned seed, std::vector<float>* pos) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  size_t n = radii.size();
  pos->assign(3 * n, 0);
  for (size_t i = 0; i < n; i++) {
    float r = radii[i];
    bool placed = false;
    for (int attempt = 0; attempt < 2000 && !placed; attempt++) {
      float x[3];
      for (int a = 0; a < 3; a++) x[a] = lo[a] + r + u(rng) * (hi[a] - lo[a] - 2 * r);
      placed = true;
      for (size_t j = 0; j < i && placed; j++) {
        float gap = 1.05f * (r + radii[j]);
        float dx = x[0] - (*pos)[3 * j], dy = x[1] - (*pos)[3 * j + 1];
        float dz = x[2] - (*pos)[3 * j + 2];
        placed = dx * dx + dy * dy + dz * dz >= gap * gap;
      }
      if (placed) std::copy(x, x + 3, pos->begin() + 3 * i);
    }
    if (!placed) return false;
  }
  return true;
}

//---------------------------------- a stack of grains falls over ----------------------------------

constexpr int kBed = 400, kStack = 5;

// params of the stack tests: rolling resistance between grains as given, none about the normal
grnParams StackParams(float rolling) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = kBed + kStack;
  p.rolling_friction = rolling;
  p.torsional_friction = 0;
  return p;
}

// a container 8 diameters square (planes, friction as the grains')
std::vector<grnShape> StackBox(const grnParams& p) {
  const float half = 8 * p.radius;
  const float c[3] = {0, 0, 0.5f}, h[3] = {half, half, 0.5f};
  return grn_test::Container(c, h, p.friction);
}

// kBed grains poured from random sites into the container and settled for 1.5 s, then one more
// dropped onto the middle of the bed from just above it and settled for 1 s more: the stack's
// bottom grain, resting in a pocket of the bed (last in the list). without rolling resistance,
// so the bed is at rest as it is in the run without (adding resistance only holds it better).
Grains SettledBase() {
  grnParams p = StackParams(0);
  const float r = p.radius, d = 2 * r;
  SolverPtr s = MakeSolver(p);
  if (!s) return Grains();
  std::vector<grnShape> box = StackBox(p);
  EXPECT_EQ(grn_set_shapes(s.get(), (int)box.size(), box.data()), grnOK);
  const float half = 8 * r, lo[3] = {-half, -half, 0}, hi[3] = {half, half, 0.2f};
  std::vector<float> pos;
  EXPECT_TRUE(RandomPlacement(std::vector<float>(kBed, r), lo, hi, 3, &pos));
  EXPECT_EQ(grn_set_grains(s.get(), kBed, pos.data(), nullptr), grnOK);
  EXPECT_EQ(grn_advance(s.get(), (int)std::lround(1.5 / p.dt)), grnOK);
  Grains g = Read(s.get());
  // the new grain on the centre axis, a tenth of a radius above the first bed grain it would meet
  double z = r;
  for (int i = 0; i < kBed; i++) {
    double h2 = (double)g.pos[3 * i] * g.pos[3 * i] + (double)g.pos[3 * i + 1] * g.pos[3 * i + 1];
    if (h2 < (double)d * d) z = std::max(z, g.pos[3 * i + 2] + std::sqrt(d * d - h2));
  }
  g.pos.insert(g.pos.end(), {0, 0, (float)(z + 0.1 * r)});
  g.vel.insert(g.vel.end(), {0, 0, 0});
  g.angvel.insert(g.angvel.end(), {0, 0, 0});
  grn_test::Write(s.get(), g);
  EXPECT_EQ(grn_advance(s.get(), (int)std::lround(1.0 / p.dt)), grnOK);
  return Read(s.get());
}

// the base with kStack - 1 grains put on its bottom grain, touching, one above the other, each
// moved sideways at random by up to 1e-3 r, run for 2 s with the given rolling resistance; the
// highest of the stack's grains then, as height above the bottom grain's starting centre [m]
double StackTop(const Grains& base, float rolling) {
  grnParams p = StackParams(rolling);
  const float r = p.radius, d = 2 * r;
  SolverPtr s = MakeSolver(p);
  if (!s) return 0;
  std::vector<grnShape> box = StackBox(p);
  EXPECT_EQ(grn_set_shapes(s.get(), (int)box.size(), box.data()), grnOK);
  Grains g = base;
  const float* b = &base.pos[3 * kBed];
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> jitter(-1e-3f * r, 1e-3f * r);
  for (int k = 1; k < kStack; k++) {
    g.pos.insert(g.pos.end(), {b[0] + jitter(rng), b[1] + jitter(rng), b[2] + k * d});
    g.vel.insert(g.vel.end(), {0, 0, 0});
    g.angvel.insert(g.angvel.end(), {0, 0, 0});
  }
  grn_test::Write(s.get(), g);
  EXPECT_EQ(grn_advance(s.get(), (int)std::lround(2.0 / p.dt)), grnOK);
  Grains end = Read(s.get());
  double top = -1e30;
  for (int k = 0; k < kStack; k++) top = std::max(top, (double)end.pos[3 * (kBed + k) + 2] - b[2]);
  return top;
}

// a stack of equal spheres standing on one another is an equilibrium, but an unstable one when
// nothing resists rolling: tilted by a little, each grain's weight on the grain below acts off its
// contact point, and with friction holding the contact the upper grain rolls over it (the
// classic ball balanced on a ball). from a tilt of 1e-3 r the instability grows by e ~ every
// sqrt(r / g) (~0.02 s), so 2 s is many growth times: the stack must have come down.
//
// upright, the top grain's centre is 4 diameters above the bottom grain's (5 grains, one
// diameter apart). three grains still standing would leave a top at 2 d, four at 3 d; so "the
// stack has fallen" is: no grain of the stack above 2.5 d over where the bottom grain stood
// (fallen grains lie on the bed around that height, within a diameter or so).
//
// the contrast: with rolling resistance 0.5 each contact holds a moment up to 0.5 r_eff N =
// r N / 4, while a tilt of 1e-3 r asks for ~1e-3 r N at most, and a tangential force of ~1e-3 N,
// far inside the cone (0.5 N); the bottom grain has come to rest in the bed, which holds the
// stack's weight straight down. so the stack stands: its top stays above 3.5 d (one grain off
// would leave at most 3 d). both runs start from the same bed and the same tilts.
TEST(GranularPhysics, StackOfFiveGrainsFallsOver) {
  Grains base = SettledBase();
  ASSERT_EQ(base.pos.size(), 3u * (kBed + 1));
  const float r = StackParams(0).radius, d = 2 * r;
  const double speed = MaxSpeed(base.vel), vref = std::sqrt(2 * kG * r);
  EXPECT_LE(speed, 0.01 * vref) << "bed and bottom grain not at rest";
  const double top_free = StackTop(base, 0), top_resisted = StackTop(base, 0.5f);
  EXPECT_LT(top_free, 2.5 * d) << "the stack still stands without rolling resistance";
  EXPECT_GT(top_resisted, 3.5 * d) << "the stack fell although rolling resistance can hold it";
  std::printf("[ measure  ] stack of %d on a settled bed (max speed %.3g sqrt(2 g r) before), "
              "after 2 s: highest grain %.3g d above the bottom grain's start (upright 4 d, "
              "fallen < 2.5 d) with rolling friction 0; %.3g d with rolling friction 0.5\n",
              kStack, speed / vref, top_free / d, top_resisted / d);
}

}  // namespace
