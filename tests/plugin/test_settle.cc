// the settle key (plugin/settle.c) through MuJoCo: the bed settles among the static boundaries at
// model load and comes to rest without entering them; every reset and every mjData of the model
// gets that bed bit for bit; and it is settled once per process for each input (counted by the
// library's exported mjgranular_settle_runs), also when threads compile the model at once.
#include <algorithm>
#include <cmath>
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
using mjg_test::ModelPtr;
using mjg_test::StateCopy;

constexpr double kRadius = 0.004;

// beds settled so far in this process, read from the library
long long SettleRuns() { return mjg_test::LibraryCount("mjgranular_settle_runs"); }

// a loose, strongly jittered lattice (it pours into a random bed) in a domain box, over a floor
// plane, with a low world box (a post) that the bed buries; each test its own seed, so its input is
// new to the process
std::string SettleXml(const std::string& settle, int seed, const std::string& timestep = "0.002") {
  return mjg_test::TerrainXml(
      {{"fill", "-0.04 -0.04 0.005  0.04 0.04 0.06"}, {"radius", "0.004"}, {"spacing", "3"},
       {"domain", "-0.045 -0.045 0  0.045 0.045 0.2"}, {"settle", settle},
       {"seed", std::to_string(seed)}, {"backend", "cpu"}},
      "<geom name=\"floor\" type=\"plane\" size=\"1 1 0.1\"/>"
      "<geom name=\"post\" type=\"box\" pos=\"0.01 0 0.006\" size=\"0.008 0.008 0.006\"/>",
      "<option timestep=\"" + timestep + "\"/>");
}

ModelPtr Load(const std::string& xml) {
  std::string error;
  auto m = LoadXml(xml, &error);
  EXPECT_TRUE(m) << error;
  return m;
}

double MaxSpeed(const mjModel* m, mjData* d) {
  auto g = GrainsOf(m, d);
  double v = 0;
  for (int i = 0; i < g.n(); i++) {
    const mjtNum* u = g.vel(i);
    v = std::max(v, std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
  }
  return v;
}

TEST(Settle, BedComesToRestWithoutEnteringTheBoundaries) {
  auto loose = Load(SettleXml("0", 101));
  auto settled = Load(SettleXml("0.6", 101));
  ASSERT_TRUE(loose && settled);
  DataPtr a(mj_makeData(loose.get())), b(mj_makeData(settled.get()));
  auto g0 = GrainsOf(loose.get(), a.get()), g = GrainsOf(settled.get(), b.get());
  ASSERT_EQ(g.n(), g0.n());
  ASSERT_GT(g.n(), 150);

  // it fell: the mean height dropped by several radii (a random pour packs about 0.5, the
  // lattice 0.16)
  double mean0 = 0, mean = 0;
  for (int i = 0; i < g.n(); i++) {
    mean0 += g0.pos(i)[2] / g.n();
    mean += g.pos(i)[2] / g.n();
  }
  EXPECT_LT(mean, mean0 - 3 * kRadius);

  // at rest (it falls 1 cm/s in a millisecond), and still at rest a while later
  EXPECT_LT(MaxSpeed(settled.get(), b.get()), 1e-3);
  for (int k = 0; k < 50; k++) mj_step(settled.get(), b.get());
  EXPECT_LT(MaxSpeed(settled.get(), b.get()), 1e-3);
  mj_resetData(settled.get(), b.get());

  // no grain in the floor, the domain's walls or the post (1% of a radius for float rounding)
  const double tol = 0.01 * kRadius;
  for (int i = 0; i < g.n(); i++) {
    const mjtNum* p = g.pos(i);
    EXPECT_GE(p[2], kRadius - tol) << "grain " << i << " in the floor";
    for (int a = 0; a < 2; a++) {
      EXPECT_LE(std::fabs(p[a]), 0.045 - kRadius + tol) << "grain " << i << " in a wall";
    }
    // distance from the post's surface
    double q[3] = {std::fabs(p[0] - 0.01) - 0.008, std::fabs(p[1]) - 0.008,
                   std::fabs(p[2] - 0.006) - 0.006};
    double out = 0, in = std::max({q[0], q[1], q[2]});
    for (double c : q) out += c > 0 ? c * c : 0;
    double dist = in > 0 ? std::sqrt(out) : in;
    EXPECT_GE(dist, kRadius - tol) << "grain " << i << " in the post";
  }
}

TEST(Settle, EveryResetAndEveryDataGetsTheSameBedBitForBit) {
  auto m = Load(SettleXml("0.3", 102));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  auto first = StateCopy(m.get(), d.get());
  for (int k = 0; k < 30; k++) mj_step(m.get(), d.get());
  EXPECT_NE(StateCopy(m.get(), d.get()), first);
  mj_resetData(m.get(), d.get());
  EXPECT_EQ(StateCopy(m.get(), d.get()), first);
  mj_resetData(m.get(), d.get());
  EXPECT_EQ(StateCopy(m.get(), d.get()), first);
  DataPtr other(mj_makeData(m.get()));
  EXPECT_EQ(StateCopy(m.get(), other.get()), first);
  // the settled contacts come with it: the state holds a warm start (counts first, int32)
  auto g = GrainsOf(m.get(), d.get());
  const char* contacts = (const char*)g.contacts(m->nbody);
  int with_contacts = 0;
  for (int i = 0; i < g.n(); i++) {
    int np;
    std::memcpy(&np, contacts + i * sizeof(int), sizeof(int));
    with_contacts += np > 0;
  }
  EXPECT_GT(with_contacts, g.n() / 2) << "grains with a grain contact in the reset state";
}

TEST(Settle, OncePerInputPerProcess) {
  const long long before = SettleRuns();
  ASSERT_GE(before, 0);
  auto m = Load(SettleXml("0.2", 103));  // compiling makes (and deletes) an mjData: settles
  ASSERT_TRUE(m);
  EXPECT_EQ(SettleRuns(), before + 1);
  DataPtr a(mj_makeData(m.get())), b(mj_makeData(m.get()));
  EXPECT_EQ(SettleRuns(), before + 1) << "a new mjData settled again";
  EXPECT_EQ(StateCopy(m.get(), a.get()), StateCopy(m.get(), b.get()));
  // the same model compiled again: found
  auto again = Load(SettleXml("0.2", 103));
  ASSERT_TRUE(again);
  EXPECT_EQ(SettleRuns(), before + 1);
  DataPtr c(mj_makeData(again.get()));
  EXPECT_EQ(StateCopy(again.get(), c.get()), StateCopy(m.get(), a.get()));
  // another settling time, timestep or bed is another input
  auto longer = Load(SettleXml("0.25", 103));
  auto finer = Load(SettleXml("0.2", 103, "0.001"));
  auto other = Load(SettleXml("0.2", 104));
  ASSERT_TRUE(longer && finer && other);
  EXPECT_EQ(SettleRuns(), before + 4);
}

TEST(Settle, ThreadsCompilingAtOnceSettleOnce) {
  const long long before = SettleRuns();
  auto states = mjg_test::StatesOfThreadsCompiling(SettleXml("0.2", 105), 4, 0);
  EXPECT_EQ(SettleRuns(), before + 1);
  for (size_t t = 0; t < states.size(); t++) {
    ASSERT_FALSE(states[t].empty()) << "thread " << t;
    EXPECT_EQ(states[t], states[0]) << "thread " << t;
  }
}

TEST(Settle, BadValuesAreRefusedNamingTheKey) {
  mjg_test::WarningCapture capture;
  std::string error;
  auto m = LoadXml(SettleXml("-1", 106), &error);
  EXPECT_FALSE(m);
  EXPECT_NE((error + capture.All()).find("config key 'settle' = '-1'"), std::string::npos)
      << error << capture.All();
  m = LoadXml(SettleXml("soon", 106), &error);
  EXPECT_FALSE(m);
  EXPECT_NE((error + capture.All()).find("'settle' = 'soon'"), std::string::npos);
}

}  // namespace
