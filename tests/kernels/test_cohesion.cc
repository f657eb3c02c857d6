// cohesion and sleeping against independent truth: a cohesive vertical cut (the default model
// with adhesion) stands above a critical adhesion that scales as dimensional analysis says, and
// the pbd model's sleeping holds a settled pile still while a pile carried in a scoop moves with
// it and a grain left unsupported falls.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_test_util.h"

namespace {

using namespace grn_test;

// wall-clock seconds, for the run times the tests print
double Seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

// the largest and the mean distance between the grains of two position arrays (n x 3)
void Displacements(const std::vector<float>& a, const std::vector<float>& b, double* max,
                   double* mean) {
  EXPECT_EQ(a.size(), b.size());
  size_t n = a.size() / 3;
  double m = 0, sum = 0;
  for (size_t i = 0; i < n; i++) {
    double d2 = 0;
    for (int k = 0; k < 3; k++) d2 += std::pow((double)a[3 * i + k] - b[3 * i + k], 2);
    m = std::fmax(m, std::sqrt(d2));
    sum += std::sqrt(d2);
  }
  *max = m;
  if (mean) *mean = n ? sum / n : 0;
}

double MaxDisplacement(const std::vector<float>& a, const std::vector<float>& b) {
  double m;
  Displacements(a, b, &m, nullptr);
  return m;
}

// random velocities in [-amp, amp] per component (n x 3), deterministic
std::vector<float> RandomVelocities(int n, float amp, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-amp, amp);
  std::vector<float> vel(3 * (size_t)n);
  for (auto& v : vel) v = u(rng);
  return vel;
}

//---------------------------------- a cohesive vertical cut ---------------------------------------
//
// a block of grains on a floor against a back wall (x = 0), held at its front (x = width) by a
// retaining wall that is then removed, in the default model (rigid grains, projected jacobi) with
// adhesion a: a touching contact may pull with up to a pi r_min^2 and resists sliding, rolling and
// spinning as if loaded that much more. the block's top stands (moves less than r in 2 s) above a
// critical adhesion and collapses below it.
//
// the scaling of the critical adhesion. the block is the same packing of the same grains scaled
// with r, so whether it stands is a question of statics in which every length is a multiple of r:
// each grain weighs W = 4/3 pi r^3 rho g, each contact may pull with A = a pi r^2, and the rest is
// dimensionless (friction and rolling coefficients, the packing, the height in grains, the bond's
// range GRN_ADHESION_RANGE as a share of r). forces divided by W leave one group,
// A / W = 3 a / (4 rho g r), so the block stands or falls with Bo = a / (rho g r) (a granular bond
// number) alone: a_crit = Bo_c rho g r, twice the adhesion in pa for twice the radius, in
// proportion to the density. (the substep, the only dimensional parameter that does not scale,
// changes how a block falls, not whether its statics hold; the test keeps the default one.) for
// context, the classical result agrees: rankine's vertical cut in a soil of cohesion c, friction
// angle phi and unit weight gamma stands up to H_c = 4 c / gamma tan(45 deg + phi / 2) (terzaghi,
// 2.67 c / gamma with tension cracks); a granular soil's cohesion is its bond force over the area
// per contact, c ~ a pi r^2 / r^2 ~ a, gamma = solid fraction x rho g, and H = (grains) x 2r, so
// the critical cohesion of a block of a given height in grains is c_crit ~ gamma H ~ rho g r.
//
// the test measures Bo_c at r = 5 mm and sand density by bracketing on a grid of factor sqrt 2,
// then checks at twice the radius and at 0.4 times the density that Bo = 1.5 x the bracket's top
// stands and 0.6 x its bottom collapses. measured (cpu): the block collapses at Bo = 1.41 and
// stands at 2, a_c in (173, 245] pa (a finer grid: collapses at 1.41, stands at 1.68; at twice
// the radius it stands at 1.41 and collapses at 1.19, the same to within a quarter octave). at one
// radius, another density at the same Bo scales every force and mass of the rigid model alike
// (the same motion up to rounding), so that check guards that adhesion acts as a stress against
// the weight, whatever the units of the grains' mass.
//
// the block: 306 grains (6 wide, 3 deep, 17 layers poured, about 11 grains tall once settled).
// the side walls (y) are removed with the retaining wall: adhesion acts between grains and every
// shape, and side walls left in place hold the block up by their own adhesion (measured on a block
// 4 grains deep: with them it stood at every Bo tried down to 0.5), so the block stands free at
// its sides.

constexpr double kCutRadius = 0.005;  // grain radius of the measured block [m]
constexpr double kSand = 2500;        // density of the measured block [kg/m^3]

struct Block {
  std::vector<float> pos;   // settled grains at kCutRadius (n x 3)
  double width, depth;      // container: x in [0, width], y in [-depth / 2, depth / 2] [m]
};

// the container's floor and four walls: floor, back wall (x = 0), retaining wall (x = width),
// side walls (y), in grn_box_planes' order
std::vector<grnShape> BlockWalls(double width, double depth, float friction) {
  const float c[3] = {(float)(width / 2), 0, 1};
  const float h[3] = {(float)(width / 2), (float)(depth / 2), 1};
  return Container(c, h, friction);
}

// the block, poured once: a jittered lattice thrown into the container with random velocities,
// settled frictionless for 0.4 s (a dense random packing), then with the default friction for
// 0.5 s until at rest
const Block& SettledBlock() {
  static Block block = [] {
    const int nx = 6, ny = 3, nz = 17, n = nx * ny * nz;
    const double r = kCutRadius, spacing = 2.4 * r;
    Block b;
    b.width = nx * spacing;
    b.depth = ny * spacing;
    const float lo[3] = {(float)(1.1 * r), (float)(-b.depth / 2 + 1.1 * r), (float)(1.1 * r)};
    const float hi[3] = {(float)(b.width - 1.1 * r), (float)(b.depth / 2 - 1.1 * r),
                         (float)(1.1 * r + nz * spacing)};
    std::vector<float> pos = JitteredLattice(n, lo, hi, (float)spacing, (float)(0.15 * r), 1);
    EXPECT_EQ((int)pos.size(), 3 * n);
    std::vector<float> vel = RandomVelocities(n, 0.2f, 2);
    grnParams p;
    grn_default_params(&p);
    p.radius = (float)r;
    p.capacity = n;
    // frictionless pour
    grnParams slick = p;
    slick.friction = slick.rolling_friction = slick.torsional_friction = 0;
    SolverPtr s = MakeSolver(slick);
    std::vector<grnShape> walls = BlockWalls(b.width, b.depth, 0);
    EXPECT_EQ(grn_set_shapes(s.get(), (int)walls.size(), walls.data()), grnOK);
    EXPECT_EQ(grn_set_grains(s.get(), n, pos.data(), vel.data()), grnOK);
    EXPECT_EQ(grn_advance(s.get(), (int)std::lround(0.4 / p.dt)), grnOK);
    // to rest with friction
    SolverPtr rough = MakeSolver(p);
    walls = BlockWalls(b.width, b.depth, p.friction);
    EXPECT_EQ(grn_set_shapes(rough.get(), (int)walls.size(), walls.data()), grnOK);
    Write(rough.get(), Read(s.get()));
    EXPECT_EQ(grn_advance(rough.get(), (int)std::lround(0.5 / p.dt)), grnOK);
    Grains g = Read(rough.get());
    EXPECT_LT(MaxSpeed(g.vel), 0.01) << "the block must be at rest before the cut";
    b.pos = g.pos;
    return b;
  }();
  return block;
}

// the cut: the settled block scaled by `scale` (grains of radius scale x kCutRadius), density rho,
// adhesion bo rho g r, against the floor and the back wall only. returns how far its top layer
// (the grains within 2 r of the highest) has moved at most after 2 s, in radii, or as soon as it
// passes one radius (a collapse)
double CutTopMotion(const Block& b, double scale, double rho, double bo) {
  const double r = scale * kCutRadius;
  grnParams p;
  grn_default_params(&p);
  p.radius = (float)r;
  p.density = (float)rho;
  p.adhesion = (float)(bo * rho * kG * r);
  const int n = (int)(b.pos.size() / 3);
  p.capacity = n;
  SolverPtr s = MakeSolver(p);
  std::vector<float> pos(b.pos);
  for (auto& x : pos) x = (float)(x * scale);
  std::vector<grnShape> walls = BlockWalls(scale * b.width, scale * b.depth, p.friction);
  const grnShape kept[2] = {walls[0], walls[1]};  // floor, back wall
  EXPECT_EQ(grn_set_shapes(s.get(), 2, kept), grnOK);
  EXPECT_EQ(grn_set_grains(s.get(), n, pos.data(), nullptr), grnOK);
  double top = 0;
  for (int i = 0; i < n; i++) top = std::fmax(top, pos[3 * i + 2]);
  double moved = 0;
  const int chunk = (int)std::lround(0.1 / p.dt);
  for (int k = 0; k < 20 && moved <= r; k++) {
    EXPECT_EQ(grn_advance(s.get(), chunk), grnOK);
    Grains g = Read(s.get());
    moved = 0;
    for (int i = 0; i < n; i++) {
      if (pos[3 * i + 2] < top - 2 * r) continue;
      double d2 = 0;
      for (int a = 0; a < 3; a++) d2 += std::pow((double)g.pos[3 * i + a] - pos[3 * i + a], 2);
      moved = std::fmax(moved, std::sqrt(d2));
    }
  }
  return moved / r;
}

TEST(Cohesion, VerticalCutStandsAboveACriticalAdhesionThatScalesAsRhoGR) {
  const double t0 = Seconds();
  const Block& b = SettledBlock();
  double height = 0;
  for (size_t i = 2; i < b.pos.size(); i += 3) height = std::fmax(height, (double)b.pos[i]);
  std::printf("[ measure  ] cut block: %d grains, %.1f r tall, %.1f r wide, %.1f r deep, "
              "settled in %.1f s\n", (int)(b.pos.size() / 3), height / kCutRadius + 1,
              b.width / kCutRadius, b.depth / kCutRadius, Seconds() - t0);

  // the bracket at r = 5 mm, sand density, on the grid Bo = 2^(k / 2), from Bo = 2 toward the
  // threshold: lo the largest Bo seen to collapse, hi the smallest seen to stand
  auto stands = [&](double scale, double rho, double bo, double* moved) {
    *moved = CutTopMotion(b, scale, rho, bo);
    return *moved < 1.0;
  };
  double lo = 0, hi = 0, moved;
  int k = 2;
  bool up = false;
  for (int step = 0; step < 12 && (lo == 0 || hi == 0); step++, k += up ? 1 : -1) {
    double bo = std::pow(2.0, k / 2.0);
    bool stood = stands(1, kSand, bo, &moved);
    std::printf("[ measure  ] cut at Bo = a / (rho g r) = %.3f: top moved %.3g r (%s)\n", bo,
                moved, stood ? "stands" : "collapses");
    (stood ? hi : lo) = bo;
    if (step == 0) up = !stood;
  }
  ASSERT_GT(lo, 0) << "no collapse found";
  ASSERT_GT(hi, 0) << "no standing cut found";
  ASSERT_LT(lo, hi) << "stand and collapse are not separated by a threshold";
  std::printf("[ measure  ] critical adhesion of the cut at r %.3g m, rho %.0f: Bo_c in "
              "(%.3f, %.3f], a_c in (%.1f, %.1f] Pa\n", kCutRadius, kSand, lo, hi,
              lo * kSand * kG * kCutRadius, hi * kSand * kG * kCutRadius);

  // the scaling: the same Bo stands and collapses at twice the radius and at another density
  const struct { double scale, rho; } cases[] = {{2, kSand}, {1, 0.4 * kSand}};
  for (const auto& c : cases) {
    const double bo_up = 1.5 * hi, bo_down = 0.6 * lo, g_r = c.rho * kG * c.scale * kCutRadius;
    double up_moved, down_moved;
    bool up_stands = stands(c.scale, c.rho, bo_up, &up_moved);
    bool down_stands = stands(c.scale, c.rho, bo_down, &down_moved);
    std::printf("[ measure  ] cut at r %.3g m, rho %.0f: a = %.1f Pa (Bo %.2f) top moved %.3g r; "
                "a = %.1f Pa (Bo %.2f) top moved %.3g r\n", c.scale * kCutRadius, c.rho,
                bo_up * g_r, bo_up, up_moved, bo_down * g_r, bo_down, down_moved);
    EXPECT_TRUE(up_stands) << "r x" << c.scale << ", rho " << c.rho << ": Bo " << bo_up
                           << " should stand, top moved " << up_moved << " r";
    EXPECT_FALSE(down_stands) << "r x" << c.scale << ", rho " << c.rho << ": Bo " << bo_down
                              << " should collapse, top moved " << down_moved << " r";
  }
  std::printf("[ measure  ] cut test: %.1f s\n", Seconds() - t0);
}

//---------------------------------- sleeping (pbd) ------------------------------------------------
//
// the p2 seed's settings: 10 jacobi passes, error reduction 0.5, the default grains (r 5 mm, sand
// density, friction 0.5) and springs. sleeping at 0.02 r per substep (1e-4 m; the seed used
// 3e-4 m): a grain moving slower than 0.2 m/s at the default substep is held unless it is awake.

constexpr double kR = 0.005;                // grain radius of the pbd tests [m]
constexpr double kSleep = 0.02 * kR;        // sleep threshold [m per substep]

grnParams SleepParams(int capacity, double sleep) {
  grnParams p;
  grn_default_params(&p);
  p.model = grnMODEL_PBD;
  p.capacity = capacity;
  p.iterations = 10;
  p.error_reduction = 0.5f;
  p.sleep = (float)sleep;
  return p;
}

// the pile's container: floor and four walls of a box 16 r square centred on the z axis
std::vector<grnShape> PileBox() {
  const float c[3] = {0, 0, 0.5f}, h[3] = {(float)(8 * kR), (float)(8 * kR), 0.5f};
  return Container(c, h, 0.5f);
}

// 300 grains poured into the box (a jittered lattice thrown in with random velocities) and
// settled for 2 s with sleeping off, once
const Grains& SettledPile() {
  static Grains pile = [] {
    const int n = 300;
    grnParams p = SleepParams(n, 0);
    SolverPtr s = MakeSolver(p);
    std::vector<grnShape> box = PileBox();
    EXPECT_EQ(grn_set_shapes(s.get(), (int)box.size(), box.data()), grnOK);
    const float lo[3] = {(float)(-7 * kR), (float)(-7 * kR), (float)(1.2 * kR)};
    const float hi[3] = {(float)(7 * kR), (float)(7 * kR), (float)(40 * kR)};
    std::vector<float> pos = JitteredLattice(n, lo, hi, (float)(2.4 * kR), (float)(0.15 * kR), 3);
    EXPECT_EQ((int)pos.size(), 3 * n);
    std::vector<float> vel = RandomVelocities(n, 0.2f, 4);
    EXPECT_EQ(grn_set_grains(s.get(), n, pos.data(), vel.data()), grnOK);
    EXPECT_EQ(grn_advance(s.get(), (int)std::lround(2.0 / p.dt)), grnOK);
    return Read(s.get());
  }();
  return pile;
}

// (a) the settled pile over 1 s with sleeping off and on: on, no grain may move 1e-4 r. off, the
// pile may creep (measured: up to 0.12 r, 0.002 r on average; 1.7 r and 0.25 r with the seed's
// averaged passes); the test reports it. then (c) the container is taken away under both:
// every grain of the sleeping pile falls, none less than 3/4 of free fall in 0.25 s, the pile's
// mean drop within 10% of free fall's (measured: the least 0.96 of free fall and the mean 0.8%
// beyond it with sleeping on, the springs' overlaps pushing the grains apart as they go; 1.00
// and 1.2% beyond with it off; with the seed's averaged passes 0.82 and 4% short, 0.98 and 0.5%
// short. a sleeping grain wakes by its own displacement or by touching an awake grain, so the
// grains of a pile whose support goes wake unevenly: with the seed's passes, after 0.05 s the
// slowest had fallen 2.6 mm against free fall's 12.3 mm)
TEST(Cohesion, SettledPileAsleepDoesNotDriftAndFallsWhenItsContainerGoes) {
  const double t0 = Seconds();
  const Grains& pile = SettledPile();
  const int n = (int)(pile.pos.size() / 3);
  std::vector<grnShape> box = PileBox();
  const int second = (int)std::lround(1.0 / SleepParams(n, 0).dt);
  double drift[2], mean[2];
  SolverPtr solver[2];
  for (int on = 0; on < 2; on++) {
    solver[on] = MakeSolver(SleepParams(n, on ? kSleep : 0));
    grnSolver* s = solver[on].get();
    ASSERT_EQ(grn_set_shapes(s, (int)box.size(), box.data()), grnOK);
    Write(s, pile);
    ASSERT_EQ(grn_advance(s, second), grnOK);
    Grains g = Read(s);
    Displacements(g.pos, pile.pos, &drift[on], &mean[on]);
    if (on) {
      std::printf("[ measure  ] settled pile (%d grains), 1 s with sleeping on (%.3g r): drift "
                  "max %.3g r, mean %.3g r; largest velocity a held grain keeps %.3g m/s\n", n,
                  kSleep / kR, drift[on] / kR, mean[on] / kR, MaxSpeed(g.vel));
    } else {
      std::printf("[ measure  ] settled pile (%d grains), 1 s with sleeping off: drift max "
                  "%.3g r, mean %.3g r\n", n, drift[on] / kR, mean[on] / kR);
    }
  }
  EXPECT_LT(drift[1], 1e-4 * kR);

  // (c) the container goes: every grain falls
  const grnParams& p = *grn_params(solver[1].get());
  const int nsub = (int)std::lround(0.25 / p.dt);
  const double g = -p.gravity[2], free_drop = 0.5 * g * std::pow(nsub * p.dt, 2);
  double least[2], mean_drop[2], most[2];
  for (int on = 0; on < 2; on++) {
    Grains before = Read(solver[on].get());
    ASSERT_EQ(grn_set_shapes(solver[on].get(), 0, nullptr), grnOK);
    ASSERT_EQ(grn_advance(solver[on].get(), nsub), grnOK);
    Grains after = Read(solver[on].get());
    least[on] = 1e9, most[on] = 0, mean_drop[on] = 0;
    for (int i = 0; i < n; i++) {
      double drop = before.pos[3 * i + 2] - after.pos[3 * i + 2];
      least[on] = std::fmin(least[on], drop);
      most[on] = std::fmax(most[on], drop);
      mean_drop[on] += drop / n;
    }
    std::printf("[ measure  ] pile without its container, sleeping %s, 0.25 s: grains fell %.4g "
                "to %.4g m, mean %.4g (free fall %.4g m)\n", on ? "on" : "off", least[on],
                most[on], mean_drop[on], free_drop);
  }
  EXPECT_GT(least[1], 0.75 * free_drop);
  EXPECT_NEAR(mean_drop[1], free_drop, 0.1 * free_drop);
  std::printf("[ measure  ] settled pile tests: %.1f s\n", Seconds() - t0);
}

// (c) a lone grain resting on a floor with sleeping on, asleep, loses the floor: held grains keep
// their velocity, so it is held while its displacement over a substep, v dt with v gaining g dt
// each substep, is below the threshold (the first N = ceil(sleep / (g dt^2)) - 1 substeps), then
// falls with the velocity it kept. its drop after M substeps is sum_{k=N+1..M} k g dt^2 (the
// symplectic euler of free fall without the held substeps), computed here in double
TEST(Cohesion, UnsupportedGrainFallsAfterAFewSubsteps) {
  grnParams p = SleepParams(1, kSleep);
  SolverPtr s = MakeSolver(p);
  grnShape floor = StaticShape(grnSHAPE_PLANE);
  floor.friction = 0.5f;
  ASSERT_EQ(grn_set_shapes(s.get(), 1, &floor), grnOK);
  const float start[3] = {0, 0, (float)kR};
  ASSERT_EQ(grn_set_grains(s.get(), 1, start, nullptr), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 200), grnOK);
  Grains rest = Read(s.get());
  ASSERT_EQ(grn_advance(s.get(), 100), grnOK);
  Grains still = Read(s.get());
  ASSERT_EQ(still.pos, rest.pos) << "the grain on the floor must be asleep";
  // the floor goes
  ASSERT_EQ(grn_set_shapes(s.get(), 0, nullptr), grnOK);
  const int nsub = 400;
  ASSERT_EQ(grn_advance(s.get(), nsub), grnOK);
  Grains fall = Read(s.get());
  const double g = -p.gravity[2], dt = p.dt;
  double v = still.vel[2], expect = 0, free_drop = 0;
  int held = 0;
  for (int k = 1; k <= nsub; k++) {
    v -= g * dt;
    free_drop -= v * dt;
    if (std::fabs(v * dt) < kSleep) {
      held++;
    } else {
      expect -= v * dt;
    }
  }
  double drop = still.pos[2] - fall.pos[2];
  std::printf("[ measure  ] unsupported sleeping grain: held %d substeps (%.3g s), then fell "
              "%.6g m in %.3g s (expected %.6g, free fall %.6g)\n", held, held * dt, drop,
              nsub * dt, expect, free_drop);
  EXPECT_NEAR(drop, expect, 1e-4 * expect);
  EXPECT_EQ(fall.pos[0], still.pos[0]);
  EXPECT_EQ(fall.pos[1], still.pos[1]);
}

// (b) a load carried in a moving scoop: the pile's box moved as a kinematic body (its planes' pos
// advanced by linvel x the advance's duration before each advance), up and sideways along
// (0.8, 0, 0.6), its speed ramped from 0 over 0.25 s (0.2 m/s^2 or 2 m/s^2, well below mu g, so
// nothing slides) and then held for 1 s. the load is an fcc stack that fits the box (layers of
// 8 x 8 and 7 x 7 grains, 290 grains): a random pile in the pbd model creeps by itself (measured:
// a settled random pile in a static box moves up to 1-2 r in 1 s with sleeping off, at 10 as at
// 30 passes), which would hide whether sleeping lets the scoop leave grains behind; the stack is
// held by the walls alone and does not creep.
// the slow speed, 0.05 m/s, moves the scoop a quarter of the sleep threshold per substep, so the
// load's grains stay awake only as the header promises, through their contacts with the moving
// box (up to `iterations` contacts away); the fast one, 0.5 m/s, moves 2.5 thresholds per
// substep. every grain's mean velocity over the last half second must be the scoop's within 1%,
// the load must keep its place in the box (every grain within 0.01 r of where it started, in the
// scoop's frame), and at the slow speed the run with sleeping on must match the same run with
// sleeping off (no grain ever held) within 1e-3 r. measured: mean velocities within 0.013% (slow)
// and 0.002% (fast), displacements in the scoop's frame below 7e-4 r, the slow run identical bit
// for bit to the one with sleeping off
struct Carried {
  std::vector<float> pos;     // grains at the end (n x 3)
  double speed_err;           // largest |mean velocity over the last 0.5 s - scoop's| [m/s]
  double shape_err;           // largest displacement in the scoop's frame since the start [m]
};

Carried CarryInScoop(const Grains& load, double speed, double sleep) {
  const int n = (int)(load.pos.size() / 3);
  grnParams p = SleepParams(n, sleep);
  SolverPtr s = MakeSolver(p);
  Write(s.get(), load);
  const std::vector<grnShape> box = PileBox();
  const double dir[3] = {0.8, 0, 0.6};
  const int nsub = 10, ramp = 50, total = 250, last = 100;  // advances of 5 ms
  const double step = nsub * p.dt;
  double off[3] = {0, 0, 0};
  std::vector<float> mid;
  for (int k = 0; k < total; k++) {
    double v = speed * std::fmin(1.0, (k + 0.5) / ramp);
    std::vector<grnShape> moved = box;
    for (auto& sh : moved) {
      for (int a = 0; a < 3; a++) {
        sh.pos[a] += (float)off[a];
        sh.com[a] = sh.pos[a];
        sh.linvel[a] = (float)(v * dir[a]);
      }
    }
    EXPECT_EQ(grn_set_shapes(s.get(), (int)moved.size(), moved.data()), grnOK);
    EXPECT_EQ(grn_advance(s.get(), nsub), grnOK);
    for (int a = 0; a < 3; a++) off[a] += v * dir[a] * step;
    if (k + 1 == total - last) mid = Read(s.get()).pos;
  }
  Carried c;
  c.pos = Read(s.get()).pos;
  c.speed_err = c.shape_err = 0;
  for (int i = 0; i < n; i++) {
    double dv = 0, dx = 0;
    for (int a = 0; a < 3; a++) {
      double mean_v = ((double)c.pos[3 * i + a] - mid[3 * i + a]) / (last * step);
      dv += std::pow(mean_v - speed * dir[a], 2);
      dx += std::pow((double)c.pos[3 * i + a] - off[a] - load.pos[3 * i + a], 2);
    }
    c.speed_err = std::fmax(c.speed_err, std::sqrt(dv));
    c.shape_err = std::fmax(c.shape_err, std::sqrt(dx));
  }
  return c;
}

TEST(Cohesion, LoadInAMovingScoopIsCarriedAtItsSpeedWithSleepingOn) {
  const double t0 = Seconds();
  // the stack, settled 0.5 s in the static box
  std::vector<float> pos;
  for (int l = 0; l < 5; l++) {
    const int m = l % 2 == 0 ? 8 : 7;
    const double o = l % 2 == 0 ? 0 : kR;
    for (int j = 0; j < m; j++) {
      for (int i = 0; i < m; i++) {
        pos.push_back((float)(-7 * kR + o + 2 * kR * i));
        pos.push_back((float)(-7 * kR + o + 2 * kR * j));
        pos.push_back((float)(kR + l * std::sqrt(2.0) * kR));
      }
    }
  }
  const int n = (int)(pos.size() / 3);
  Grains load;
  {
    grnParams p = SleepParams(n, 0);
    SolverPtr s = MakeSolver(p);
    std::vector<grnShape> box = PileBox();
    ASSERT_EQ(grn_set_shapes(s.get(), (int)box.size(), box.data()), grnOK);
    ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), nullptr), grnOK);
    ASSERT_EQ(grn_advance(s.get(), (int)std::lround(0.5 / p.dt)), grnOK);
    load = Read(s.get());
    ASSERT_LT(MaxDisplacement(load.pos, pos), 0.1 * kR) << "the stack must stand in the box";
  }
  const double dt = SleepParams(n, 0).dt;
  for (double speed : {0.05, 0.5}) {
    SCOPED_TRACE(testing::Message() << "scoop at " << speed << " m/s");
    Carried on = CarryInScoop(load, speed, kSleep);
    std::printf("[ measure  ] load of %d grains in a scoop at %.2f m/s (%.2f sleep thresholds per "
                "substep), sleeping on: mean velocities within %.3g%% of the scoop's, largest "
                "displacement in the scoop's frame %.3g r\n", n, speed, speed * dt / kSleep,
                100 * on.speed_err / speed, on.shape_err / kR);
    EXPECT_LT(on.speed_err, 0.01 * speed);
    EXPECT_LT(on.shape_err, 0.01 * kR);
    if (speed * dt < kSleep) {
      Carried off = CarryInScoop(load, speed, 0);
      double diff = MaxDisplacement(on.pos, off.pos);
      std::printf("[ measure  ] the same with sleeping off: largest difference %.3g r\n",
                  diff / kR);
      EXPECT_LT(diff, 1e-3 * kR);
    }
  }
  std::printf("[ measure  ] scoop tests: %.1f s\n", Seconds() - t0);
}

}  // namespace
