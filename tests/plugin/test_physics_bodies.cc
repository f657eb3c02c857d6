// physics validation of two-way coupling, through MuJoCo with the solver's default settings
// (10 projected Jacobi iterations, 0.5 ms granular substeps), and again with the dem model at its
// defaults (hertz-mindlin, its substep from the rayleigh time) and the boxes with the pbd model:
// - a dense box dropped on a bed sinks into it, comes to rest and stays at rest; a light box
//   floats higher than the heavy one;
// - the horizontal force on a blade pushed through a bed at low speed grows with depth like
//   depth^2 (passive earth pressure: F = K gamma w d^2 / 2) and hardly depends on the speed.
// Each test prints its measured numbers on one line starting with "measured:".
#include <algorithm>
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

// the height below which a fraction q of the grains in the x range [xlo, xhi] lie, plus a radius
double Surface(const mjModel* m, mjData* d, double xlo, double xhi, double r, double q = 0.9) {
  auto g = GrainsOf(m, d);
  std::vector<double> z;
  for (int i = 0; i < g.n(); i++) {
    if (g.pos(i)[0] > xlo && g.pos(i)[0] < xhi) z.push_back(g.pos(i)[2]);
  }
  if (z.empty()) return 0;
  std::sort(z.begin(), z.end());
  return z[(size_t)(q * (z.size() - 1))] + r;
}

//---------------------------------- boxes dropped on a bed ----------------------------------------

struct Drop {
  double surface;             // bed surface away from the box [m]
  double bottom;              // the box's underside at the end [m]
  double moved;               // how far it moved over the last second [m]
  double speed;               // its largest speed over the last second [m/s]
};

// a bed 12 cm x 12 cm, about 4.6 cm deep, of 1,014 grains (radius 4 mm, 2500 kg/m^3, bulk
// density about 1500 kg/m^3) and a 4 cm cube of the given density dropped from 1 cm above it;
// land seconds to land and settle, then a second watched; keys: more config (the model, its
// iterations).
Drop DropCube(double density, double land = 0.5,
              const std::map<std::string, std::string>& keys = {}) {
  const double r = 0.004, half = 0.02;
  char cube[256];
  std::snprintf(cube, sizeof(cube), "<body name=\"cube\" pos=\"0 0 0.09\"><freejoint/>"
                "<geom type=\"box\" size=\"0.02 0.02 0.02\" density=\"%g\"/></body>", density);
  std::string error;
  std::map<std::string, std::string> config = {{"fill", "-0.06 -0.06 0.004  0.06 0.06 0.06"},
                                               {"radius", "0.004"}};
  for (const auto& kv : keys) config[kv.first] = kv.second;
  auto m = LoadXml(mjg_test::TerrainXml(config, mjg_test::WalledBox(0.06) + cube,
                                        "<option timestep=\"5e-4\"/>"),
                   &error);
  EXPECT_TRUE(m) << error;
  if (!m) return Drop{0, 0, 0, 0};
  DataPtr d(mj_makeData(m.get()));
  const int body = mj_name2id(m.get(), mjOBJ_BODY, "cube");
  const int dof = m->jnt_dofadr[m->body_jntadr[body]];
  const double h = m->opt.timestep;
  for (int k = 0; k < (int)std::lround(land / h); k++) mj_step(m.get(), d.get());
  double start = d->xpos[3 * body + 2], speed = 0;
  for (int k = 0; k < (int)std::lround(1.0 / h); k++) {
    mj_step(m.get(), d.get());
    speed = std::max(speed, mju_norm3(d->qvel + dof));
  }
  // the surface along the walls, more than 3 cm from the cube's centre
  auto g = GrainsOf(m.get(), d.get());
  std::vector<double> z;
  for (int i = 0; i < g.n(); i++) {
    if (std::max(std::fabs(g.pos(i)[0]), std::fabs(g.pos(i)[1])) > 0.035) z.push_back(g.pos(i)[2]);
  }
  std::sort(z.begin(), z.end());
  double surface = z.empty() ? 0 : z[(size_t)(0.9 * (z.size() - 1))] + r;
  return Drop{surface, d->xpos[3 * body + 2] - half, start - d->xpos[3 * body + 2], speed};
}

// the heavy box sank into the bed but not through it; the light one floats higher, near the
// surface
void ExpectHeavySinksLightFloats(const Drop& heavy, const Drop& light) {
  std::printf("measured: heavy cube: surface %.4f m, bottom %.4f m (%.1f mm below the surface), "
              "moved %.2f mm in the last second, max speed %.2f mm/s; light cube: surface %.4f m, "
              "bottom %.4f m (%.1f mm below), moved %.2f mm, max speed %.2f mm/s\n",
              heavy.surface, heavy.bottom, 1000 * (heavy.surface - heavy.bottom),
              1000 * heavy.moved, 1000 * heavy.speed, light.surface, light.bottom,
              1000 * (light.surface - light.bottom), 1000 * light.moved, 1000 * light.speed);
  EXPECT_LT(heavy.bottom, heavy.surface - 0.005);
  EXPECT_GT(heavy.bottom, 0.008);
  EXPECT_GT(light.bottom, heavy.bottom + 0.004);
  EXPECT_GT(light.bottom, light.surface - 0.01);
}

TEST(PhysicsBodies, DenseBoxSinksLightBoxFloatsHigher) {
  // aluminium (2700 kg/m^3, 173 g, 1.06 kPa on its face) and wood (700 kg/m^3, 45 g, 0.27 kPa)
  ExpectHeavySinksLightFloats(DropCube(2700), DropCube(700));
}

// the bodies answer the grains within each substep (implicit coupling), so a resting box and the
// grains under it agree on its motion; what is left is the solver's convergence under the box's
// load, which at 10 Jacobi iterations lets the bed creep at about 1 mm/s (measured), so the cubes
// rest on a bed solved with 30.
TEST(PhysicsBodies, DenseAndLightBoxesComeToRest) {
  Drop heavy = DropCube(2700, 2.5, {{"iterations", "30"}});
  Drop light = DropCube(700, 2.5, {{"iterations", "30"}});
  std::printf("measured: max speed over the last second: heavy %.3f mm/s, light %.3f mm/s\n",
              1000 * heavy.speed, 1000 * light.speed);
  EXPECT_LT(heavy.speed, 1e-3);
  EXPECT_LT(light.speed, 1e-3);
}

// dem: the elastic bed bears the boxes the same way, and its springs (tangential history, the
// rolling springs) hold them still: no creep to converge away
TEST(PhysicsBodies, DemBoxesSinkFloatAndComeToRest) {
  Drop heavy = DropCube(2700, 1.5, {{"model", "dem"}});
  Drop light = DropCube(700, 1.5, {{"model", "dem"}});
  ExpectHeavySinksLightFloats(heavy, light);
  EXPECT_LT(heavy.speed, 1e-3);
  EXPECT_LT(light.speed, 1e-3);
}

// pbd: its grains do not rotate, so the fill's cubic lattice would stand as a crystal (a box
// rests on top of it without sinking, measured), which no sand is; its beds are poured instead:
// about as many grains (1,100) from a lattice 3 radii apart in a box as much taller, settled for
// 1 s at load (`settle`). a box at rest on them is held from the first pass by the contacts'
// impulses carried over from the last substep; like pj, the passes need 30 iterations to hold it
// still (at 10 the boxes shook at up to 45 mm/s, measured). a poured bed of grains that do not
// rotate is loose, so the boxes sink deeper than into pj's beds (the light one too)
TEST(PhysicsBodies, PbdBoxesSinkAndComeToRest) {
  const std::map<std::string, std::string> poured = {
      {"model", "pbd"}, {"iterations", "30"}, {"spacing", "3"},
      {"fill", "-0.06 -0.06 0.004  0.06 0.06 0.146"}, {"settle", "1"}};
  Drop heavy = DropCube(2700, 1.5, poured);
  Drop light = DropCube(700, 1.5, poured);
  std::printf("measured: heavy cube: surface %.4f m, bottom %.4f m, max speed %.3f mm/s; light "
              "cube: surface %.4f m, bottom %.4f m, max speed %.3f mm/s\n",
              heavy.surface, heavy.bottom, 1000 * heavy.speed, light.surface, light.bottom,
              1000 * light.speed);
  EXPECT_LT(heavy.bottom, heavy.surface - 0.005);
  EXPECT_GT(heavy.bottom, 0.008);
  EXPECT_GT(light.bottom, heavy.bottom + 0.004);
  EXPECT_LT(heavy.speed, 1e-3);
  EXPECT_LT(light.speed, 1e-3);
}

//---------------------------------- a blade pushed through a bed ----------------------------------

// how a blade test's bed is made: the model's config lines, the fill box's top [m], how long the
// bed settles with the blade standing in it [s], and the seeds of the beds each figure averages
// (0: the plugin's default seed)
struct BladeSpec {
  std::string keys;
  double fill_top = 0.07;
  double settle = 0.15;
  std::vector<int> seeds = {0};
};

// a channel 20 cm long, 5 cm wide, filled up to fill_top with grains of radius 3 mm (7 cm: about
// 2,000 grains at the default spacing); a blade 6 mm thick spanning the channel, its bottom at
// height bottom, standing against the west wall on a slide joint along x, driven by a stiff
// position servo
std::string BladeXml(double bottom, const BladeSpec& spec, int seed) {
  char buf[2048], seed_line[96] = "";
  if (seed) {
    std::snprintf(seed_line, sizeof(seed_line), "<config key=\"seed\" value=\"%d\"/>", seed);
  }
  std::snprintf(
      buf, sizeof(buf),
      "<mujoco><option timestep=\"0.002\"/>"
      "<extension><plugin plugin=\"mjgranular.terrain\"><instance name=\"sand\">"
      "<config key=\"fill\" value=\"-0.092 -0.025 0.003  0.1 0.025 %g\"/>"
      "<config key=\"radius\" value=\"0.003\"/>%s%s"
      "</instance></plugin></extension>"
      "<worldbody><plugin instance=\"sand\"/>"
      "<geom type=\"plane\" size=\"1 1 0.1\"/>"
      "<geom type=\"box\" pos=\" 0.11 0 0.1\" size=\"0.01 0.045 0.1\"/>"
      "<geom type=\"box\" pos=\"-0.11 0 0.1\" size=\"0.01 0.045 0.1\"/>"
      "<geom type=\"box\" pos=\"0  0.035 0.1\" size=\"0.12 0.01 0.1\"/>"
      "<geom type=\"box\" pos=\"0 -0.035 0.1\" size=\"0.12 0.01 0.1\"/>"
      "<body name=\"blade\" pos=\"-0.097 0 %g\" gravcomp=\"1\">"
      "<joint name=\"x\" type=\"slide\" axis=\"1 0 0\"/>"
      "<geom type=\"box\" size=\"0.003 0.022 0.05\" mass=\"1\"/></body>"
      "</worldbody>"
      "<actuator><position joint=\"x\" kp=\"20000\" dampratio=\"1\"/></actuator></mujoco>",
      spec.fill_top, spec.keys.c_str(), seed_line, bottom + 0.05);
  return buf;
}

const double kBladeR = 0.003;
// surface of the settled bed (checked in each run): the fill's lattice topples as its grains roll,
// so the bed settles to 4.8 cm, not the 5.4 cm the standing lattice of non-rotating grains kept
const double kBladeSurface = 0.0476;

struct BladeRun {
  double depth;               // blade bottom below the bed surface [m]
  double force;               // mean horizontal force against the push over the window [N]
};

// push the blade at speed v (servo target moving at v) for travel metres; the force is averaged
// while the blade's displacement is in (window, travel]
BladeRun PushBlade(const mjModel* m, mjData* d, double v, double travel, double window) {
  const double h = m->opt.timestep;
  const int blade = mj_name2id(m, mjOBJ_BODY, "blade");
  auto g = GrainsOf(m, d);
  double sum = 0;
  int count = 0;
  double t0 = d->time;
  while (d->qpos[0] < travel) {
    d->ctrl[0] = v * (d->time + h - t0);
    mj_step(m, d);
    if (d->qpos[0] > window) {
      sum += -g.wrench(blade)[0];
      count++;
    }
    if (d->time - t0 > 2 * travel / v) break;  // stuck
  }
  return BladeRun{0, count ? sum / count : 0};
}

// a fresh bed of one seed with the blade bottom `depth` below the settled surface, settled
struct BladeBed {
  mjg_test::ModelPtr m;
  DataPtr d;
  double depth;
};

BladeBed SettledBlade(double depth, const BladeSpec& spec, int seed) {
  BladeBed b;
  std::string error;
  b.m = LoadXml(BladeXml(kBladeSurface - depth, spec, seed), &error);
  EXPECT_TRUE(b.m) << error;
  if (!b.m) return b;
  b.d.reset(mj_makeData(b.m.get()));
  for (int k = 0; k < (int)std::lround(spec.settle / b.m->opt.timestep); k++) {
    mj_step(b.m.get(), b.d.get());
  }
  double surface = Surface(b.m.get(), b.d.get(), -0.06, 0.1, kBladeR);
  b.depth = surface - (b.d->xpos[3 * 1 + 2] - 0.05);
  return b;
}

// the models' beds: pj and dem settle the fill's lattice with the blade in it; pbd's grains do
// not rotate, so its lattice would stand as a crystal (the force on a blade then grew as
// depth^0.3, measured): its beds are poured, about as many grains from a lattice 3 radii apart in
// a box as much taller, settled for 1 s. they interlock, and the force comes in slips of up to
// half its value (measured), so one bed's mean over 1.5 cm of travel moves by 10 to 27% with the
// bed's seed alone; each pbd figure averages three beds
const BladeSpec kPjBlade = {""};
const BladeSpec kDemBlade = {"<config key=\"model\" value=\"dem\"/>"};
const BladeSpec kPbdBlade = {
    "<config key=\"model\" value=\"pbd\"/><config key=\"spacing\" value=\"3\"/>", 0.178, 1.0,
    {1, 2, 3}};

void ExpectBladeForceGrowsWithDepthSquared(const BladeSpec& spec) {
  // depths 1.5 to 3.5 cm (5 to 12 grain diameters; the blade bottom stays over 2 diameters above
  // the floor, whose support would add to the force), pushed 3.5 cm at 7 cm/s; force averaged over
  // the last 2.5 cm (and the spec's beds); least-squares slope of log force against log depth
  const double depths[] = {0.015, 0.02, 0.03, 0.035};
  std::vector<double> x, y;
  std::string line;
  for (double depth : depths) {
    double depth_sum = 0, force_sum = 0;
    for (int seed : spec.seeds) {
      BladeBed b = SettledBlade(depth, spec, seed);
      ASSERT_TRUE(b.m);
      BladeRun run = PushBlade(b.m.get(), b.d.get(), 0.07, 0.035, 0.01);
      ASSERT_GT(run.force, 0) << "depth " << b.depth << ", seed " << seed;
      depth_sum += b.depth;
      force_sum += run.force;
    }
    double beds = (double)spec.seeds.size();
    x.push_back(std::log(depth_sum / beds));
    y.push_back(std::log(force_sum / beds));
    char buf[96];
    std::snprintf(buf, sizeof(buf), " depth %.4f m: %.3f N;", depth_sum / beds, force_sum / beds);
    line += buf;
  }
  double n = x.size(), sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); i++) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  std::printf("measured:%s exponent %.3f\n", line.c_str(), slope);
  EXPECT_GT(slope, 1.5) << line;
  EXPECT_LT(slope, 2.5) << line;
}

TEST(PhysicsBodies, BladeForceGrowsWithDepthSquared) {
  ExpectBladeForceGrowsWithDepthSquared(kPjBlade);
}

TEST(PhysicsBodies, DemBladeForceGrowsWithDepthSquared) {
  ExpectBladeForceGrowsWithDepthSquared(kDemBlade);
}

TEST(PhysicsBodies, PbdBladeForceGrowsWithDepthSquared) {
  ExpectBladeForceGrowsWithDepthSquared(kPbdBlade);
}

void ExpectBladeForceHardlyChangesWithSpeed(const BladeSpec& spec) {
  // each settled bed, the blade 3 cm deep, pushed 2.5 cm at 2 cm/s and at 8 cm/s from copies of
  // the same state; force averaged over the last 1.5 cm (and the spec's beds)
  double slow = 0, fast = 0, depth = 0;
  std::string line;
  for (int seed : spec.seeds) {
    BladeBed b = SettledBlade(0.03, spec, seed);
    ASSERT_TRUE(b.m);
    DataPtr copy(mj_copyData(nullptr, b.m.get(), b.d.get()));
    BladeRun s = PushBlade(b.m.get(), b.d.get(), 0.02, 0.025, 0.01);
    BladeRun f = PushBlade(b.m.get(), copy.get(), 0.08, 0.025, 0.01);
    char buf[96];
    std::snprintf(buf, sizeof(buf), " bed %d: %.3f / %.3f N;", seed, s.force, f.force);
    line += buf;
    slow += s.force;
    fast += f.force;
    depth += b.depth;
  }
  double beds = (double)spec.seeds.size(), change = std::fabs(fast - slow) / slow;
  std::printf("measured: depth %.4f m, 2 cm/s: %.3f N, 8 cm/s: %.3f N, change %.0f%% (%s)\n",
              depth / beds, slow / beds, fast / beds, 100 * change, line.c_str());
  EXPECT_LT(change, 0.2);
}

TEST(PhysicsBodies, BladeForceHardlyChangesWithSpeed) {
  ExpectBladeForceHardlyChangesWithSpeed(kPjBlade);
}

TEST(PhysicsBodies, DemBladeForceHardlyChangesWithSpeed) {
  ExpectBladeForceHardlyChangesWithSpeed(kDemBlade);
}

TEST(PhysicsBodies, PbdBladeForceHardlyChangesWithSpeed) {
  ExpectBladeForceHardlyChangesWithSpeed(kPbdBlade);
}

}  // namespace
