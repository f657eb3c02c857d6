// plugin/terrain.c through MuJoCo: the plugin loads from MJCF, mj_step moves the grains with the
// right substeps, mj_resetData restores the initial bed bit for bit, plugin_state carries
// everything, bad states are refused without crashing, and compute applies stored wrenches.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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

double MeanZ(const mjModel* m, mjData* d) {
  auto g = GrainsOf(m, d);
  double z = 0;
  for (int i = 0; i < g.n(); i++) z += g.pos(i)[2];
  return z / g.n();
}

TEST(Terrain, LoadsFromMjcfString) {
  std::string error;
  auto m = LoadXml(TerrainXml(mjg_test::SmallBed(), mjg_test::WalledBox(0.045)), &error);
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(m->nplugin, 1);
  DataPtr d(mj_makeData(m.get()));
  ASSERT_TRUE(d);
  auto g = GrainsOf(m.get(), d.get());
  // the default count is exactly the fill box's bed, the state is header + 15 cap + 6 nbody plus
  // the contact state
  EXPECT_GT(g.n(), 100);
  EXPECT_EQ(g.n(), g.cap);
  EXPECT_EQ(m->plugin_statenum[0], mjg_test::kHeader + mjg_test::kGrainNums * g.cap +
                                       6 * m->nbody + mjg_test::kContactPerGrain * g.cap);
  EXPECT_EQ(g.state[2], 5);  // layout version
}

TEST(Terrain, StepMakesGrainsFallOntoTheFloor) {
  auto m = LoadXml(TerrainXml(mjg_test::SmallBed(), mjg_test::WalledBox(0.045)));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  double z0 = MeanZ(m.get(), d.get());
  for (int k = 0; k < 25; k++) mj_step(m.get(), d.get());
  double z1 = MeanZ(m.get(), d.get());
  EXPECT_LT(z1, z0 - 1e-4);
  for (int k = 0; k < 250; k++) mj_step(m.get(), d.get());
  // the bed came down and rests on the floor inside the walls
  auto g = GrainsOf(m.get(), d.get());
  double r = 0.004, zmin = 1, vmax = 0;
  for (int i = 0; i < g.n(); i++) {
    const mjtNum* p = g.pos(i);
    zmin = std::min(zmin, p[2]);
    EXPECT_LT(std::fabs(p[0]), 0.045) << "grain " << i;
    EXPECT_LT(std::fabs(p[1]), 0.045) << "grain " << i;
    for (int j = 0; j < 3; j++) vmax = std::max(vmax, std::fabs(g.vel(i)[j]));
  }
  EXPECT_GT(zmin, 0.9 * r);
  EXPECT_LT(zmin, 1.1 * r);
  EXPECT_LT(MeanZ(m.get(), d.get()), z1);
  EXPECT_TRUE(std::isfinite(vmax));
}

TEST(Terrain, ResetRestoresTheInitialBedBitForBit) {
  auto m = LoadXml(TerrainXml(mjg_test::SmallBed(), mjg_test::WalledBox(0.045)));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  std::vector<mjtNum> initial = StateCopy(m.get(), d.get());
  for (int k = 0; k < 10; k++) mj_step(m.get(), d.get());
  std::vector<mjtNum> stepped = StateCopy(m.get(), d.get());
  EXPECT_NE(std::memcmp(initial.data(), stepped.data(), initial.size() * sizeof(mjtNum)), 0);
  mj_resetData(m.get(), d.get());
  std::vector<mjtNum> reset = StateCopy(m.get(), d.get());
  ASSERT_EQ(reset.size(), initial.size());
  EXPECT_EQ(std::memcmp(initial.data(), reset.data(), initial.size() * sizeof(mjtNum)), 0);

  // a second mjData starts from the same bed, and steps the same way
  DataPtr d2(mj_makeData(m.get()));
  EXPECT_EQ(StateCopy(m.get(), d2.get()), initial);
  for (int k = 0; k < 10; k++) mj_step(m.get(), d2.get());
  EXPECT_EQ(StateCopy(m.get(), d2.get()), stepped);
}

TEST(Terrain, SubstepsFollowTheGranularTimestep) {
  // one grain in free fall: the substep count changes the position, never the time covered
  const double g = 9.81, h = 0.002;
  auto config = [](const char* timestep) {
    return TerrainXml({{"fill", "-0.004 -0.004 0.5  0.004 0.004 0.508"}, {"radius", "0.004"},
                       {"timestep", timestep}});
  };
  const char* timesteps[] = {"5e-4", "3e-4", "0.002", "0.01"};
  const int substeps[] = {4, 7, 1, 1};
  for (int c = 0; c < 4; c++) {
    std::string error;
    auto m = LoadXml(config(timesteps[c]), &error);
    ASSERT_TRUE(m) << error;
    DataPtr d(mj_makeData(m.get()));
    auto gr = GrainsOf(m.get(), d.get());
    ASSERT_EQ(gr.n(), 1);
    double z0 = gr.pos(0)[2];
    mj_step(m.get(), d.get());
    int n = substeps[c];
    double dt = h / n;
    // symplectic euler: v = -g h, z = z0 - g dt^2 n (n + 1) / 2
    EXPECT_NEAR(gr.vel(0)[2], -g * h, 1e-6) << "timestep " << timesteps[c];
    EXPECT_NEAR(gr.pos(0)[2], z0 - g * dt * dt * n * (n + 1) / 2, 1e-7)
        << "timestep " << timesteps[c];
  }
}

TEST(Terrain, MjCopyDataStepsIdentically) {
  auto m = LoadXml(TerrainXml(mjg_test::SmallBed(), mjg_test::WalledBox(0.045)));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  for (int k = 0; k < 5; k++) mj_step(m.get(), d.get());
  DataPtr copy(mj_copyData(nullptr, m.get(), d.get()));
  ASSERT_TRUE(copy);
  EXPECT_NE(copy->plugin_data[0], d->plugin_data[0]);  // its own solver
  for (int k = 0; k < 5; k++) {
    mj_step(m.get(), d.get());
    mj_step(m.get(), copy.get());
  }
  EXPECT_EQ(StateCopy(m.get(), d.get()), StateCopy(m.get(), copy.get()));
}

TEST(Terrain, NonFiniteStateIsRefusedWithAWarning) {
  auto m = LoadXml(TerrainXml(mjg_test::SmallBed(), mjg_test::WalledBox(0.045)));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  g.pos(3)[1] = std::nan("");
  std::vector<mjtNum> before = StateCopy(m.get(), d.get());
  {
    mjg_test::WarningCapture warnings;
    mj_step(m.get(), d.get());
    mj_step(m.get(), d.get());
    // one warning for the run of failures, the state left as it was
    EXPECT_EQ(warnings.Messages().size(), 1u) << warnings.All();
    EXPECT_NE(warnings.All().find("non-finite"), std::string::npos) << warnings.All();
  }
  std::vector<mjtNum> after = StateCopy(m.get(), d.get());
  EXPECT_EQ(std::memcmp(before.data(), after.data(), before.size() * sizeof(mjtNum)), 0);

  // a grain count out of range is refused the same way
  g.state[0] = g.cap + 1;
  {
    mjg_test::WarningCapture warnings;
    mj_resetData(m.get(), d.get());
    g.state[0] = -3;
    mj_step(m.get(), d.get());
    EXPECT_EQ(warnings.Messages().size(), 1u) << warnings.All();
  }
  EXPECT_EQ(g.state[0], -3);
}

// a state the step cannot use is refused with one warning that says what is wrong (which slot,
// grain or key), and left as it was
TEST(Terrain, AStateOrStepItCannotUseIsRefusedSayingWhy) {
  struct Bad {
    const char* what;
    void (*apply)(mjModel* m, const mjg_test::Grains& g);
    std::vector<std::string> says;
  };
  const Bad bad[] = {
    {"a state of another layout", [](mjModel*, const mjg_test::Grains& g) { g.state[2] = 3; },
     {"layout version 3", "5"}},
    {"a contact with a partner that is no grain",
     [](mjModel* m, const mjg_test::Grains& g) {
       // grain 1's contact counts (npair, then nshape, one int32 per grain), then its slot 0
       int32_t* c = reinterpret_cast<int32_t*>(g.contacts(m->nbody));
       c[1] = 1;
       c[2 * g.cap + 1] = g.n() + 7;
     },
     {"grain 1", "partner"}},
    {"a grain radius beyond the key's",
     [](mjModel*, const mjg_test::Grains& g) { *g.radius(2) = 0.005; }, {"radius", "grain 2"}},
    {"an option timestep of 20,000 substeps",
     [](mjModel* m, const mjg_test::Grains&) { m->opt.timestep = 10; },
     {"'timestep'", "10000"}},
  };
  for (const Bad& b : bad) {
    auto m = LoadXml(TerrainXml(mjg_test::SmallBed(), mjg_test::WalledBox(0.045)));
    ASSERT_TRUE(m);
    DataPtr d(mj_makeData(m.get()));
    auto g = GrainsOf(m.get(), d.get());
    b.apply(m.get(), g);
    std::vector<mjtNum> before = StateCopy(m.get(), d.get());
    mjg_test::WarningCapture warnings;
    mj_step(m.get(), d.get());
    EXPECT_EQ(warnings.Messages().size(), 1u) << b.what << ":\n" << warnings.All();
    for (const std::string& text : b.says) {
      EXPECT_NE(warnings.All().find(text), std::string::npos)
          << b.what << ": the warning does not say " << text << ":\n" << warnings.All();
    }
    EXPECT_EQ(StateCopy(m.get(), d.get()), before) << b.what;
  }
}

// grains written by hand into the free slots of a count-only bed fall as spheres of the key's
// radius (every slot starts with it); a radius beyond the key's is refused with a warning
TEST(Terrain, GrainsWrittenIntoFreeSlotsHaveTheKeysRadius) {
  auto m = LoadXml(TerrainXml({{"count", "2"}, {"radius", "0.004"}}, mjg_test::WalledBox(0.045)));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  ASSERT_EQ(g.n(), 0);
  EXPECT_EQ(*g.radius(0), (float)0.004);
  EXPECT_EQ(*g.radius(1), (float)0.004);
  g.state[0] = 2;
  g.pos(0)[2] = 0.01;
  g.pos(1)[0] = 0.02;
  g.pos(1)[2] = 0.01;
  for (int k = 0; k < 250; k++) mj_step(m.get(), d.get());  // 0.5 s: fallen and at rest
  EXPECT_NEAR(g.pos(0)[2], 0.004, 1e-5);
  EXPECT_NEAR(g.pos(1)[2], 0.004, 1e-5);

  *g.radius(1) = 0.005;
  std::vector<mjtNum> before = StateCopy(m.get(), d.get());
  {
    mjg_test::WarningCapture warnings;
    mj_step(m.get(), d.get());
    EXPECT_NE(warnings.All().find("radius"), std::string::npos) << warnings.All();
  }
  EXPECT_EQ(StateCopy(m.get(), d.get()), before);
}

TEST(Terrain, SandboxModelLoads) {
  std::string error;
  mjg_test::LoadPlugin();
  char err[1024] = "";
  mjModel* raw = mj_loadXML(MJGRANULAR_MODELS_DIR "/sandbox.xml", nullptr, err, sizeof(err));
  mjg_test::ModelPtr m(raw);
  ASSERT_TRUE(m) << err;
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  EXPECT_GE(g.n(), 20000);
  mj_step(m.get(), d.get());
  for (int i = 0; i < g.n(); i++) ASSERT_TRUE(std::isfinite(g.pos(i)[2]));
}

}  // namespace
