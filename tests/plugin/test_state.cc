// state round trips through MuJoCo's own API, both contact models and broadphases, on the
// backend auto picks (a gpu where one is usable, where the grains stay on the device between
// steps): mj_getState / mj_setState with mjSTATE_FULLPHYSICS restore the grains bit for bit,
// mj_copyData gives an independent copy that steps identically, mj_resetData restores the initial
// bed, two mjData of one model step to identical plugin_state (same thread count), and a state
// written into plugin_state in any way is the one the next step starts from. The scene has a
// coupled free body resting in the bed so the two-way coupling (the box answering the grains
// within each step) is part of every step.
// Prints the cost of mj_getState / mj_setState at the size of models/sandbox.xml ("measured:").
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
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
using mjg_test::ModelPtr;
using mjg_test::StateCopy;

constexpr int kSpec = mjSTATE_FULLPHYSICS;

// a small bed (a few hundred grains) in a walled box and a heavy free cube dropped into it; the
// contact model of key model and the broadphase of key broadphase (NULL: the default)
ModelPtr Scene(const char* model = "pj", const char* broadphase = nullptr,
               const std::map<std::string, std::string>& more = {}) {
  std::map<std::string, std::string> config = {
      {"fill", "-0.04 -0.04 0.005  0.04 0.04 0.04"}, {"radius", "0.004"}, {"model", model}};
  if (broadphase) config["broadphase"] = broadphase;
  for (const auto& [key, value] : more) config[key] = value;
  std::string error;
  auto m = LoadXml(mjg_test::TerrainXml(
                       config,
                       mjg_test::WalledBox(0.04) +
                           "<body name=\"cube\" pos=\"0 0 0.06\"><freejoint/>"
                           "<geom type=\"box\" size=\"0.015 0.015 0.015\" density=\"8000\"/>"
                           "</body>"),
                   &error);
  EXPECT_TRUE(m) << error;
  return m;
}

std::vector<mjtNum> GetState(const mjModel* m, const mjData* d) {
  std::vector<mjtNum> s(mj_stateSize(m, kSpec));
  mj_getState(m, d, s.data(), kSpec);
  return s;
}

// bitwise equality of two mjtNum arrays; reports the first difference
::testing::AssertionResult Bitwise(const std::vector<mjtNum>& a, const std::vector<mjtNum>& b) {
  if (a.size() != b.size()) {
    return ::testing::AssertionFailure() << "sizes " << a.size() << " vs " << b.size();
  }
  for (size_t i = 0; i < a.size(); i++) {
    if (std::memcmp(&a[i], &b[i], sizeof(mjtNum)) != 0) {
      return ::testing::AssertionFailure() << "first difference at " << i << ": " << a[i]
                                           << " vs " << b[i];
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<mjtNum> Vec(const mjtNum* p, int n) { return std::vector<mjtNum>(p, p + n); }

int CubeBody(const mjModel* m) { return mj_name2id(m, mjOBJ_BODY, "cube"); }

TEST(State, SceneCouplesTheCube) {
  auto m = Scene();
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  EXPECT_GT(g.n(), 100);
  EXPECT_LT(g.n(), 1000);
  // the cube lands on the grains during steps 20 to 60 (the window the tests below replay):
  // they push it up
  double lift = 0;
  for (int k = 0; k < 60; k++) {
    mj_step(m.get(), d.get());
    if (k >= 20) lift = std::max(lift, g.wrench(CubeBody(m.get()))[2]);
  }
  EXPECT_GT(lift, 0.0);
}

// mj_getState after 20 steps, then mj_setState back replays the next k steps bit for bit; the
// states of those steps into *first
void ExpectReplaysBitForBit(const mjModel* m, std::vector<mjtNum>* saved,
                            std::vector<std::vector<mjtNum>>* first) {
  DataPtr d(mj_makeData(m));
  const int k = 40;
  for (int i = 0; i < 20; i++) mj_step(m, d.get());  // the cube lands in the next k
  *saved = GetState(m, d.get());
  ASSERT_GT(saved->size(), (size_t)m->plugin_statenum[0]);

  for (int i = 0; i < k; i++) {
    mj_step(m, d.get());
    first->push_back(GetState(m, d.get()));
  }
  auto end_plugin = StateCopy(m, d.get());
  auto end_qpos = Vec(d->qpos, m->nq), end_qvel = Vec(d->qvel, m->nv);
  EXPECT_FALSE(Bitwise(*saved, first->back()));  // the state did change

  mj_setState(m, d.get(), saved->data(), kSpec);
  EXPECT_TRUE(Bitwise(GetState(m, d.get()), *saved));
  for (int i = 0; i < k; i++) {
    mj_step(m, d.get());
    ASSERT_TRUE(Bitwise(GetState(m, d.get()), (*first)[i])) << "step " << i;
  }
  EXPECT_TRUE(Bitwise(StateCopy(m, d.get()), end_plugin));
  EXPECT_TRUE(Bitwise(Vec(d->qpos, m->nq), end_qpos));
  EXPECT_TRUE(Bitwise(Vec(d->qvel, m->nv), end_qvel));
}

TEST(State, GetSetStateReplaysBitForBit) {
  auto m = Scene();
  ASSERT_TRUE(m);
  std::vector<mjtNum> saved;
  std::vector<std::vector<mjtNum>> first;
  ExpectReplaysBitForBit(m.get(), &saved, &first);
}

// the cohesive models replay bit for bit too: pj with adhesion, pbd with adhesion and sleeping
// (its awake flags are found again each substep from the state)
TEST(State, CohesiveModelsReplayBitForBit) {
  const std::map<std::string, std::string> pj = {{"adhesion", "300"}};
  const std::map<std::string, std::string> pbd = {{"adhesion", "300"}, {"sleep", "2e-6"}};
  for (const auto& [model, keys] : {std::make_pair("pj", pj), std::make_pair("pbd", pbd)}) {
    SCOPED_TRACE(model);
    auto m = Scene(model, nullptr, keys);
    ASSERT_TRUE(m);
    std::vector<mjtNum> saved;
    std::vector<std::vector<mjtNum>> first;
    ExpectReplaysBitForBit(m.get(), &saved, &first);
  }
}

// the float32 values of contact-state array `name` (its slots, grain-major within each slot) in
// a full-physics state of m, from the library's exported layout
float* ContactArray(const mjModel* m, std::vector<mjtNum>* state, const char* name, size_t* count) {
  void* lib = dlopen(MJGRANULAR_PLUGIN_PATH, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_TRUE(lib) << dlerror();
  if (!lib) return nullptr;
  using Layout = int (*)(int, int, const char**, long long*, int*, int*, int*);
  auto layout = (Layout)dlsym(lib, "mjgranular_contact_array");
  using Part = int (*)(const mjModel*, int, const char*, long long*, long long*);
  auto part = (Part)dlsym(lib, "mjgranular_state_part");
  float* out = nullptr;
  long long at = 0, length = 0, cap = 0, offset = 0;
  part(m, 0, "contacts", &at, &length);
  part(m, 0, "grain_capacity", &offset, &cap);
  // the plugin state follows the rest of the full-physics state
  mjtNum* block = state->data() + state->size() - m->plugin_statenum[0];
  const char* array;
  int slots, width, is_float;
  for (int a = 0; layout(a, (int)cap, &array, &offset, &slots, &width, &is_float) == 0; a++) {
    if (std::strcmp(array, name)) continue;
    out = (float*)((char*)(block + at) + offset);
    *count = (size_t)slots * cap * width;
  }
  dlclose(lib);
  return out;
}

// dem: the tangential springs are part of the state (bed and cube in contact carry them), and
// the replay needs them: a state with its springs released goes another way
TEST(State, DemReplaysBitForBitWithItsTangentialSprings) {
  auto m = Scene("dem");
  ASSERT_TRUE(m);
  std::vector<mjtNum> saved;
  std::vector<std::vector<mjtNum>> first;
  ExpectReplaysBitForBit(m.get(), &saved, &first);
  size_t count = 0;
  float* springs = ContactArray(m.get(), &saved, "pair_lin", &count);
  ASSERT_TRUE(springs);
  size_t loaded = 0;
  for (size_t i = 0; i < count; i++) loaded += springs[i] != 0;
  EXPECT_GT(loaded, 100u);
  std::fill(springs, springs + count, 0.0f);
  DataPtr d(mj_makeData(m.get()));
  mj_setState(m.get(), d.get(), saved.data(), kSpec);
  for (int i = 0; i < 10; i++) mj_step(m.get(), d.get());
  EXPECT_FALSE(Bitwise(GetState(m.get(), d.get()), first[9]));
}

// the sorted broadphase: a restored state goes on bit for bit (the state holds the grains in the
// user's order, which the solver maps into its own, the list's), and the run is the hash
// broadphase's, bit for bit, for every contact model
TEST(State, SortedBroadphaseReplaysBitForBitAndEqualsTheHash) {
  for (const char* model : {"pj", "dem", "pbd"}) {
    SCOPED_TRACE(model);
    auto sorted = Scene(model, "sorted"), hash = Scene(model, "hash");
    ASSERT_TRUE(sorted && hash);
    std::vector<mjtNum> saved, saved_hash;
    std::vector<std::vector<mjtNum>> first, first_hash;
    ExpectReplaysBitForBit(sorted.get(), &saved, &first);
    ExpectReplaysBitForBit(hash.get(), &saved_hash, &first_hash);
    EXPECT_TRUE(Bitwise(saved, saved_hash));
    ASSERT_EQ(first.size(), first_hash.size());
    for (size_t i = 0; i < first.size(); i++) {
      ASSERT_TRUE(Bitwise(first[i], first_hash[i])) << "step " << i;
    }
  }
}

TEST(State, SetStateIntoAFreshDataReplays) {
  auto m = Scene();
  ASSERT_TRUE(m);
  DataPtr a(mj_makeData(m.get())), b(mj_makeData(m.get()));
  for (int i = 0; i < 20; i++) mj_step(m.get(), a.get());
  auto saved = GetState(m.get(), a.get());
  mj_setState(m.get(), b.get(), saved.data(), kSpec);
  for (int i = 0; i < 30; i++) {
    mj_step(m.get(), a.get());
    mj_step(m.get(), b.get());
  }
  EXPECT_TRUE(Bitwise(StateCopy(m.get(), a.get()), StateCopy(m.get(), b.get())));
  EXPECT_TRUE(Bitwise(GetState(m.get(), a.get()), GetState(m.get(), b.get())));
}

TEST(State, CopyDataIsIndependentAndStepsIdentically) {
  auto m = Scene();
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  for (int i = 0; i < 15; i++) mj_step(m.get(), d.get());
  DataPtr c(mj_copyData(nullptr, m.get(), d.get()));
  ASSERT_TRUE(c);
  EXPECT_NE(c->plugin_state, d->plugin_state);
  EXPECT_TRUE(Bitwise(StateCopy(m.get(), c.get()), StateCopy(m.get(), d.get())));
  // interleaved: both step, each from its own state
  for (int i = 0; i < 30; i++) {
    mj_step(m.get(), d.get());
    mj_step(m.get(), c.get());
    ASSERT_TRUE(Bitwise(GetState(m.get(), c.get()), GetState(m.get(), d.get()))) << "step " << i;
  }
  // independent: stepping the copy alone leaves the original untouched
  auto before = GetState(m.get(), d.get());
  for (int i = 0; i < 10; i++) mj_step(m.get(), c.get());
  EXPECT_TRUE(Bitwise(GetState(m.get(), d.get()), before));
  EXPECT_FALSE(Bitwise(GetState(m.get(), c.get()), before));
  // and the original catches up to the same state
  for (int i = 0; i < 10; i++) mj_step(m.get(), d.get());
  EXPECT_TRUE(Bitwise(GetState(m.get(), d.get()), GetState(m.get(), c.get())));
}

TEST(State, ResetRestoresTheInitialBed) {
  auto m = Scene();
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  auto initial_plugin = StateCopy(m.get(), d.get());
  auto initial = GetState(m.get(), d.get());
  for (int i = 0; i < 60; i++) mj_step(m.get(), d.get());
  EXPECT_FALSE(Bitwise(StateCopy(m.get(), d.get()), initial_plugin));
  mj_resetData(m.get(), d.get());
  EXPECT_TRUE(Bitwise(StateCopy(m.get(), d.get()), initial_plugin));
  EXPECT_TRUE(Bitwise(GetState(m.get(), d.get()), initial));
  // and it replays the same trajectory as a fresh mjData
  DataPtr fresh(mj_makeData(m.get()));
  for (int i = 0; i < 30; i++) {
    mj_step(m.get(), d.get());
    mj_step(m.get(), fresh.get());
  }
  EXPECT_TRUE(Bitwise(GetState(m.get(), d.get()), GetState(m.get(), fresh.get())));
}

TEST(State, TwoDataStepIdentically) {
  auto m = Scene();
  ASSERT_TRUE(m);
  DataPtr a(mj_makeData(m.get()));
  for (int i = 0; i < 80; i++) mj_step(m.get(), a.get());
  DataPtr b(mj_makeData(m.get()));
  for (int i = 0; i < 80; i++) mj_step(m.get(), b.get());
  EXPECT_TRUE(Bitwise(StateCopy(m.get(), a.get()), StateCopy(m.get(), b.get())));
  EXPECT_TRUE(Bitwise(GetState(m.get(), a.get()), GetState(m.get(), b.get())));
}

// the next steps after a state is written into plugin_state must start from that state, whoever
// wrote it: on a gpu the grains stay on the device between steps, and the upload is skipped only
// for the state the instance downloaded itself. These write in three ways the device's copy could
// outlive.

// a grain moved by hand (nothing else in the state touched) moves from where it was put
TEST(State, AGrainWrittenByHandIsWhereTheNextStepStarts) {
  auto m = Scene();
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  for (int i = 0; i < 20; i++) mj_step(m.get(), d.get());
  auto g = GrainsOf(m.get(), d.get());
  int top = 0;  // the highest grain: nothing above it within the 2 cm it is lifted
  for (int i = 1; i < g.n(); i++) top = g.pos(i)[2] > g.pos(top)[2] ? i : top;
  const double lifted = g.pos(top)[2] + 0.02;
  g.pos(top)[2] = lifted;
  for (int k = 0; k < 3; k++) g.vel(top)[k] = 0;
  mj_step(m.get(), d.get());
  // one step of free fall from rest: g dt^2 / 2, to within the substeps' discretisation
  double fall = 9.81 * m->opt.timestep * m->opt.timestep;
  EXPECT_LE(g.pos(top)[2], lifted);
  EXPECT_GE(g.pos(top)[2], lifted - fall);
}

// a step refused for a bad grain leaves the state as it was; restoring the last good state then
// continues as a fresh mjData set to it does
TEST(State, AStepRefusedForABadGrainLeavesNothingBehind) {
  auto m = Scene();
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get())), fresh(mj_makeData(m.get()));
  for (int i = 0; i < 20; i++) mj_step(m.get(), d.get());
  auto saved = GetState(m.get(), d.get());
  auto g = GrainsOf(m.get(), d.get());
  for (int bad = 0; bad < 2; bad++) {
    mjg_test::WarningCapture warnings;
    // a radius above the key's (refused after the positions went in), or a nan velocity
    if (bad == 0) g.radius(0)[0] = 0.008;
    if (bad == 1) g.vel(0)[1] = std::nan("");
    auto before = StateCopy(m.get(), d.get());
    mj_step(m.get(), d.get());
    EXPECT_NE(warnings.All().find("grains not advanced"), std::string::npos) << warnings.All();
    EXPECT_TRUE(Bitwise(StateCopy(m.get(), d.get()), before)) << "bad " << bad;
    // the good state back, stepped once (a run of failures warns once)
    mj_setState(m.get(), d.get(), saved.data(), kSpec);
    mj_step(m.get(), d.get());
  }
  mj_setState(m.get(), d.get(), saved.data(), kSpec);
  mj_setState(m.get(), fresh.get(), saved.data(), kSpec);
  for (int i = 0; i < 10; i++) {
    mj_step(m.get(), d.get());
    mj_step(m.get(), fresh.get());
  }
  EXPECT_TRUE(Bitwise(GetState(m.get(), d.get()), GetState(m.get(), fresh.get())));
}

// a state of another mjData at the same step count, set in, is continued, not the own one
TEST(State, AnotherRunsStateAtTheSameStepIsContinued) {
  auto m = Scene();
  ASSERT_TRUE(m);
  DataPtr a(mj_makeData(m.get())), b(mj_makeData(m.get()));
  GrainsOf(m.get(), b.get()).vel(0)[2] = -0.5;  // b's run differs from a's
  for (int i = 0; i < 20; i++) {
    mj_step(m.get(), a.get());
    mj_step(m.get(), b.get());
  }
  ASSERT_FALSE(Bitwise(GetState(m.get(), a.get()), GetState(m.get(), b.get())));
  auto from_a = GetState(m.get(), a.get());
  mj_setState(m.get(), b.get(), from_a.data(), kSpec);
  for (int i = 0; i < 10; i++) {
    mj_step(m.get(), a.get());
    mj_step(m.get(), b.get());
  }
  EXPECT_TRUE(Bitwise(GetState(m.get(), a.get()), GetState(m.get(), b.get())));
}

// mj_getState / mj_setState at the size of models/sandbox.xml (20,808 grains)
TEST(State, MeasuredCostAtSandboxSize) {
  std::string error;
  auto m = LoadXml(mjg_test::TerrainXml(
                       {{"fill", "-0.15 -0.15 0.004  0.15 0.15 0.164"}, {"radius", "0.004"},
                        {"backend", "cpu"}},
                       "<geom type=\"plane\" size=\"1 1 0.1\"/>"),
                   &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  const int n = GrainsOf(m.get(), d.get()).n();
  const int size = mj_stateSize(m.get(), kSpec);
  std::vector<mjtNum> s(size);
  const int reps = 50;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; i++) mj_getState(m.get(), d.get(), s.data(), kSpec);
  auto t1 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; i++) mj_setState(m.get(), d.get(), s.data(), kSpec);
  auto t2 = std::chrono::steady_clock::now();
  double get_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / reps;
  double set_us = std::chrono::duration<double, std::micro>(t2 - t1).count() / reps;
  std::printf("measured: %d grains, FULLPHYSICS state %d mjtNums (%.2f MB): mj_getState %.0f us, "
              "mj_setState %.0f us per call\n",
              n, size, size * sizeof(mjtNum) / 1e6, get_us, set_us);
  EXPECT_EQ(n, 20808);
}

}  // namespace
