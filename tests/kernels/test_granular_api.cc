// public api (granular.c): lifetime, parameter checks, status strings, grain and shape input,
// capacity and argument errors. every bad input is refused with a status, none crashes.
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_test_util.h"

namespace {

using grn_test::MakeSolver;
using grn_test::SolverPtr;

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

grnParams Defaults() {
  grnParams p;
  grn_default_params(&p);
  return p;
}

//---------------------------------- lifetime ------------------------------------------------------

TEST(GranularApi, DestroyNullIsAllowed) {
  grn_destroy(nullptr);
  SUCCEED();
}

TEST(GranularApi, CreateDestroyCpu) {
  grnParams p = Defaults();
  grnSolver* s = nullptr;
  ASSERT_EQ(grn_create(&p, grnBACKEND_CPU, &s), grnOK);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(grn_backend(s), grnBACKEND_CPU);
  EXPECT_EQ(grn_count(s), 0);
  EXPECT_GT(grn_memory_bytes(s), (size_t)0);
  grn_destroy(s);
}

TEST(GranularApi, CreateWithNullArgumentsIsRefused) {
  grnParams p = Defaults();
  EXPECT_EQ(grn_create(&p, grnBACKEND_CPU, nullptr), grnERR_ARG);
  grnSolver* s = reinterpret_cast<grnSolver*>(0x1);
  EXPECT_EQ(grn_create(nullptr, grnBACKEND_CPU, &s), grnERR_ARG);
  EXPECT_EQ(s, nullptr) << "*out must be NULL on failure";
}

TEST(GranularApi, UnknownBackendIsRefused) {
  grnParams p = Defaults();
  grnSolver* s = reinterpret_cast<grnSolver*>(0x1);
  EXPECT_EQ(grn_create(&p, (grnBackend)42, &s), grnERR_ARG);
  EXPECT_EQ(s, nullptr);
  s = reinterpret_cast<grnSolver*>(0x1);
  EXPECT_EQ(grn_create(&p, (grnBackend)-1, &s), grnERR_ARG);
  EXPECT_EQ(s, nullptr);
}

// auto resolves to a real backend; cuda either works or says why not, with *out NULL
TEST(GranularApi, AutoAndCudaBackendsResolveOrExplain) {
  grnParams p = Defaults();
  grnSolver* s = nullptr;
  ASSERT_EQ(grn_create(&p, grnBACKEND_AUTO, &s), grnOK);
  EXPECT_NE(grn_backend(s), grnBACKEND_AUTO);
  grn_destroy(s);
  s = reinterpret_cast<grnSolver*>(0x1);
  grnStatus st = grn_create(&p, grnBACKEND_CUDA, &s);
  if (st == grnOK) {
    EXPECT_EQ(grn_backend(s), grnBACKEND_CUDA);
    grn_destroy(s);
  } else {
    EXPECT_TRUE(st == grnERR_UNAVAILABLE || st == grnERR_NO_DEVICE || st == grnERR_DEVICE)
        << grn_status_string(st);
    EXPECT_EQ(s, nullptr);
  }
}

TEST(GranularApi, NullSolverIsRefusedEverywhere) {
  float buf[3] = {0, 0, 0};
  double w[6];
  int n = 0, pairs[2];
  grnShape sh = grn_test::StaticShape(grnSHAPE_PLANE);
  grnGrid g;
  std::memset(&g, 0, sizeof(g));
  EXPECT_EQ(grn_set_grains(nullptr, 1, buf, nullptr), grnERR_ARG);
  EXPECT_EQ(grn_get_grains(nullptr, buf, buf), grnERR_ARG);
  EXPECT_EQ(grn_set_shapes(nullptr, 1, &sh), grnERR_ARG);
  EXPECT_EQ(grn_add_grid(nullptr, &g, &n), grnERR_ARG);
  EXPECT_EQ(grn_advance(nullptr, 1), grnERR_ARG);
  EXPECT_EQ(grn_get_wrenches(nullptr, w), grnERR_ARG);
  EXPECT_EQ(grn_find_pairs(nullptr, pairs, 1, &n), grnERR_ARG);
  EXPECT_EQ(grn_count(nullptr), 0);
  EXPECT_EQ(grn_memory_bytes(nullptr), (size_t)0);
  EXPECT_EQ(grn_params(nullptr), nullptr);
  EXPECT_EQ(grn_grain_mass(nullptr), 0.0f);
}

//---------------------------------- status and backend names --------------------------------------

TEST(GranularApi, EveryStatusHasItsOwnString) {
  const grnStatus all[] = {grnOK,          grnERR_ARG,    grnERR_MEMORY,   grnERR_UNAVAILABLE,
                           grnERR_NO_DEVICE, grnERR_DEVICE, grnERR_NONFINITE};
  std::set<std::string> seen;
  for (grnStatus st : all) {
    const char* text = grn_status_string(st);
    ASSERT_NE(text, nullptr);
    EXPECT_GT(std::strlen(text), 0u);
    EXPECT_TRUE(seen.insert(text).second) << "duplicate string " << text;
  }
  EXPECT_STREQ(grn_status_string(grnOK), "ok");
  // an out-of-range code still gives a string
  ASSERT_NE(grn_status_string((grnStatus)1234), nullptr);
  ASSERT_NE(grn_status_string((grnStatus)-1), nullptr);
}

TEST(GranularApi, BackendNames) {
  EXPECT_STREQ(grn_backend_name(grnBACKEND_AUTO), "auto");
  EXPECT_STREQ(grn_backend_name(grnBACKEND_CPU), "cpu");
  EXPECT_STREQ(grn_backend_name(grnBACKEND_CUDA), "cuda");
  ASSERT_NE(grn_backend_name((grnBackend)99), nullptr);
}

//---------------------------------- parameters ----------------------------------------------------

TEST(GranularApi, DefaultParamsAreValid) {
  grnParams p = Defaults();
  char msg[128] = "x";
  EXPECT_EQ(grn_check_params(&p, msg, sizeof(msg)), grnOK);
  EXPECT_STREQ(msg, "") << "msg is cleared on success";
  EXPECT_EQ(grn_check_params(&p, nullptr, 0), grnOK);
  EXPECT_GT(p.capacity, 0);
  EXPECT_GT(p.radius, 0);
  EXPECT_GT(p.dt, 0);
  EXPECT_LT(p.gravity[2], 0);
}

struct BadParam {
  const char* name;     // what is wrong
  const char* field;    // the word the message must contain
  void (*apply)(grnParams*);
};

// each bad value is refused by grn_check_params with a message naming the field, and by
// grn_create with grnERR_ARG and a NULL solver
TEST(GranularApi, BadParamsAreRefusedWithAStatusAndTheField) {
  const BadParam bad[] = {
      {"zero capacity", "capacity", [](grnParams* p) { p->capacity = 0; }},
      {"negative capacity", "capacity", [](grnParams* p) { p->capacity = -5; }},
      {"capacity above 2^26", "67108864", [](grnParams* p) { p->capacity = (1 << 26) + 1; }},
      {"zero radius", "radius", [](grnParams* p) { p->radius = 0; }},
      {"negative radius", "radius", [](grnParams* p) { p->radius = -0.01f; }},
      {"nan radius", "radius", [](grnParams* p) { p->radius = kNaN; }},
      {"infinite radius", "radius", [](grnParams* p) { p->radius = kInf; }},
      {"zero density", "density", [](grnParams* p) { p->density = 0; }},
      {"nan density", "density", [](grnParams* p) { p->density = kNaN; }},
      {"a mass a float cannot invert", "density 1e-37", [](grnParams* p) { p->density = 1e-37f; }},
      {"an inertia a float cannot invert", "radius 1e-10",
       [](grnParams* p) { p->radius = 1e-10f; }},
      {"negative friction", "friction", [](grnParams* p) { p->friction = -0.1f; }},
      {"nan friction", "friction", [](grnParams* p) { p->friction = kNaN; }},
      {"zero dt", "dt", [](grnParams* p) { p->dt = 0; }},
      {"negative dt", "dt", [](grnParams* p) { p->dt = -1e-4f; }},
      {"infinite dt", "dt", [](grnParams* p) { p->dt = kInf; }},
      {"zero iterations", "iterations", [](grnParams* p) { p->iterations = 0; }},
      {"negative iterations", "iterations", [](grnParams* p) { p->iterations = -3; }},
      {"baumgarte above 1", "baumgarte", [](grnParams* p) { p->baumgarte = 1.5f; }},
      {"negative baumgarte", "baumgarte", [](grnParams* p) { p->baumgarte = -0.1f; }},
      {"nan baumgarte", "baumgarte", [](grnParams* p) { p->baumgarte = kNaN; }},
      {"negative margin", "margin", [](grnParams* p) { p->margin = -0.1f; }},
      {"nan margin", "margin", [](grnParams* p) { p->margin = kNaN; }},
      {"negative skin", "skin", [](grnParams* p) { p->skin = -0.1f; }},
      {"skin above 4", "skin", [](grnParams* p) { p->skin = 5; }},
      {"nan skin", "skin", [](grnParams* p) { p->skin = kNaN; }},
      {"nan gravity", "gravity", [](grnParams* p) { p->gravity[1] = kNaN; }},
      {"infinite gravity", "gravity (0, 0, -inf)", [](grnParams* p) { p->gravity[2] = -kInf; }},
      {"negative hash size", "hash", [](grnParams* p) { p->hash_size = -1; }},
      {"hash size above 2^30", "hash", [](grnParams* p) { p->hash_size = (1 << 30) + 1; }},
      {"unknown broadphase", "broadphase", [](grnParams* p) { p->broadphase = 2; }},
      {"negative broadphase", "broadphase", [](grnParams* p) { p->broadphase = -1; }},
      {"one_loop not 0 or 1", "one_loop", [](grnParams* p) { p->one_loop = 2; }},
      {"negative max_shapes", "shape", [](grnParams* p) { p->max_shapes = -1; }},
      {"negative max_bodies", "", [](grnParams* p) { p->max_bodies = -1; }},
      {"nan cyclic_z", "cyclic_z", [](grnParams* p) { p->cyclic_z[0] = kNaN; }},
      {"cyclic_z shorter than two grains", "cyclic_z",
       [](grnParams* p) { p->cyclic_z[0] = 0; p->cyclic_z[1] = 3.9f * p->radius; }},
  };
  for (const BadParam& b : bad) {
    SCOPED_TRACE(b.name);
    grnParams p = Defaults();
    b.apply(&p);
    char msg[128] = "";
    EXPECT_EQ(grn_check_params(&p, msg, sizeof(msg)), grnERR_ARG);
    EXPECT_GT(std::strlen(msg), 0u);
    EXPECT_NE(std::string(msg).find(b.field), std::string::npos) << "message: " << msg;
    EXPECT_EQ(grn_check_params(&p, nullptr, 0), grnERR_ARG) << "null msg";
    grnSolver* s = reinterpret_cast<grnSolver*>(0x1);
    EXPECT_EQ(grn_create(&p, grnBACKEND_CPU, &s), grnERR_ARG);
    EXPECT_EQ(s, nullptr);
  }
}

TEST(GranularApi, CheckParamsTruncatesLongMessages) {
  grnParams p = Defaults();
  p.radius = -1;
  char msg[8];
  std::memset(msg, 'x', sizeof(msg));
  EXPECT_EQ(grn_check_params(&p, msg, 4), grnERR_ARG);
  EXPECT_EQ(msg[3], '\0') << "message is terminated within msg_size";
  EXPECT_EQ(msg[4], 'x') << "nothing written past msg_size";
  EXPECT_EQ(grn_check_params(nullptr, msg, sizeof(msg)), grnERR_ARG);
}

TEST(GranularApi, ParamsAreKeptAndHashSizeDefaultsToTwiceCapacity) {
  grnParams p = Defaults();
  p.capacity = 123;
  p.radius = 0.002f;
  p.hash_size = 0;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const grnParams* q = grn_params(s.get());
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->capacity, 123);
  EXPECT_EQ(q->radius, 0.002f);
  EXPECT_EQ(q->hash_size, 246);
  // mass of a sphere of the given density
  double m = p.density * 4.0 / 3.0 * M_PI * std::pow((double)p.radius, 3);
  EXPECT_NEAR(grn_grain_mass(s.get()), m, 1e-6 * m);
}

TEST(GranularApi, MemoryGrowsWithCapacity) {
  grnParams p = Defaults();
  p.capacity = 1000;
  SolverPtr small = MakeSolver(p);
  p.capacity = 100000;
  SolverPtr large = MakeSolver(p);
  ASSERT_TRUE(small && large);
  // at least positions and velocities of every grain
  EXPECT_GE(grn_memory_bytes(large.get()), (size_t)100000 * 6 * sizeof(float));
  EXPECT_GT(grn_memory_bytes(large.get()), 50 * grn_memory_bytes(small.get()));
}

//---------------------------------- grains --------------------------------------------------------

TEST(GranularApi, SetGetGrainsRoundTrip) {
  grnParams p = Defaults();
  p.capacity = 100;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  std::vector<float> pos(3 * 57), vel(3 * 57);
  for (size_t i = 0; i < pos.size(); i++) {
    pos[i] = -1.5f + 0.0137f * (float)i;
    vel[i] = 0.25f - 0.003f * (float)i;
  }
  ASSERT_EQ(grn_set_grains(s.get(), 57, pos.data(), vel.data()), grnOK);
  EXPECT_EQ(grn_count(s.get()), 57);
  std::vector<float> pos2(pos.size(), kNaN), vel2(vel.size(), kNaN);
  ASSERT_EQ(grn_get_grains(s.get(), pos2.data(), vel2.data()), grnOK);
  EXPECT_EQ(pos, pos2);
  EXPECT_EQ(vel, vel2);
  // either output may be NULL
  std::vector<float> only(pos.size(), kNaN);
  EXPECT_EQ(grn_get_grains(s.get(), only.data(), nullptr), grnOK);
  EXPECT_EQ(only, pos);
  EXPECT_EQ(grn_get_grains(s.get(), nullptr, only.data()), grnOK);
  EXPECT_EQ(only, vel);
  EXPECT_EQ(grn_get_grains(s.get(), nullptr, nullptr), grnOK);
}

TEST(GranularApi, NullVelocitiesMeanAtRest) {
  grnParams p = Defaults();
  p.capacity = 4;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float pos[6] = {0, 0, 1, 0.1f, 0, 1}, vel[6] = {1, 2, 3, 4, 5, 6};
  ASSERT_EQ(grn_set_grains(s.get(), 2, pos, vel), grnOK);
  ASSERT_EQ(grn_set_grains(s.get(), 2, pos, nullptr), grnOK);
  float out[6];
  ASSERT_EQ(grn_get_grains(s.get(), nullptr, out), grnOK);
  for (float v : out) EXPECT_EQ(v, 0.0f);
}

TEST(GranularApi, CapacityIsEnforced) {
  grnParams p = Defaults();
  p.capacity = 10;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  std::vector<float> pos(3 * 11, 0.5f);
  for (int i = 0; i < 11; i++) pos[3 * i] = 0.1f * i;
  ASSERT_EQ(grn_set_grains(s.get(), 10, pos.data(), nullptr), grnOK);  // exactly full
  EXPECT_EQ(grn_set_grains(s.get(), 11, pos.data(), nullptr), grnERR_ARG);
  EXPECT_EQ(grn_count(s.get()), 10) << "a refused call leaves the grains as they were";
  EXPECT_EQ(grn_set_grains(s.get(), -1, pos.data(), nullptr), grnERR_ARG);
  EXPECT_EQ(grn_set_grains(s.get(), 3, nullptr, nullptr), grnERR_ARG);
  EXPECT_EQ(grn_count(s.get()), 10);
  // zero grains need no array
  EXPECT_EQ(grn_set_grains(s.get(), 0, nullptr, nullptr), grnOK);
  EXPECT_EQ(grn_count(s.get()), 0);
  EXPECT_EQ(grn_advance(s.get(), 3), grnOK);
}

TEST(GranularApi, NonFiniteGrainsAreRefused) {
  grnParams p = Defaults();
  p.capacity = 4;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float good[6] = {0, 0, 1, 0.1f, 0, 1};
  ASSERT_EQ(grn_set_grains(s.get(), 2, good, nullptr), grnOK);
  for (int k = 0; k < 6; k++) {
    for (float bad : {kNaN, kInf, -kInf}) {
      SCOPED_TRACE(testing::Message() << "component " << k << " = " << bad);
      float pos[6], vel[6] = {0, 0, 0, 0, 0, 0};
      std::memcpy(pos, good, sizeof(pos));
      pos[k] = bad;
      EXPECT_EQ(grn_set_grains(s.get(), 2, pos, nullptr), grnERR_NONFINITE);
      std::memcpy(pos, good, sizeof(pos));
      vel[k] = bad;
      EXPECT_EQ(grn_set_grains(s.get(), 2, pos, vel), grnERR_NONFINITE);
    }
  }
  // the grains are those of the last accepted call
  float out[6];
  ASSERT_EQ(grn_get_grains(s.get(), out, nullptr), grnOK);
  for (int k = 0; k < 6; k++) EXPECT_EQ(out[k], good[k]);
  EXPECT_EQ(grn_count(s.get()), 2);
}

// a blow-up during a step is reported, not crashed on: gravity near FLT_MAX overflows the
// velocity to infinity within two substeps
TEST(GranularApi, BlowUpDuringAdvanceIsReported) {
  grnParams p = Defaults();
  p.capacity = 1;
  p.dt = 1;
  p.gravity[2] = -3e38f;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float pos[3] = {0, 0, 0};
  ASSERT_EQ(grn_set_grains(s.get(), 1, pos, nullptr), grnOK);
  EXPECT_EQ(grn_advance(s.get(), 4), grnERR_NONFINITE);
}

//---------------------------------- shapes, grids, advance, wrenches, pairs -----------------------

TEST(GranularApi, BadShapesAreRefused) {
  grnParams p = Defaults();
  p.max_shapes = 2;
  p.max_bodies = 1;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  grnShape sh[3] = {grn_test::StaticShape(grnSHAPE_PLANE), grn_test::StaticShape(grnSHAPE_SPHERE),
                    grn_test::StaticShape(grnSHAPE_BOX)};
  EXPECT_EQ(grn_set_shapes(s.get(), 2, sh), grnOK);
  EXPECT_EQ(grn_set_shapes(s.get(), 3, sh), grnERR_ARG) << "more than max_shapes";
  EXPECT_EQ(grn_set_shapes(s.get(), -1, sh), grnERR_ARG);
  EXPECT_EQ(grn_set_shapes(s.get(), 1, nullptr), grnERR_ARG);
  EXPECT_EQ(grn_set_shapes(s.get(), 0, nullptr), grnOK);
  grnShape bad = grn_test::StaticShape(grnNSHAPE);
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &bad), grnERR_ARG) << "unknown type";
  bad = grn_test::StaticShape(-1);
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &bad), grnERR_ARG) << "negative type";
  bad = grn_test::StaticShape(grnSHAPE_GRID);
  bad.grid = 0;
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &bad), grnERR_ARG) << "grid never added";
  bad = grn_test::StaticShape(grnSHAPE_SPHERE);
  bad.body = 1;
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &bad), grnERR_ARG) << "body >= max_bodies";
  bad.body = 0;
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &bad), grnOK);
}

TEST(GranularApi, GridsAreCheckedAndIndexed) {
  grnParams p = Defaults();
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  std::vector<float> values(4 * 3 * 2, 0.5f);
  grnGrid g;
  std::memset(&g, 0, sizeof(g));
  g.nx = 4, g.ny = 3, g.nz = 2, g.cell = 0.01f, g.values = values.data();
  int id = -1;
  EXPECT_EQ(grn_add_grid(s.get(), &g, &id), grnOK);
  EXPECT_EQ(id, 0);
  EXPECT_EQ(grn_add_grid(s.get(), &g, &id), grnOK);
  EXPECT_EQ(id, 1);
  EXPECT_EQ(grn_add_grid(s.get(), nullptr, &id), grnERR_ARG);
  EXPECT_EQ(grn_add_grid(s.get(), &g, nullptr), grnERR_ARG);
  grnGrid bad = g;
  bad.values = nullptr;
  EXPECT_EQ(grn_add_grid(s.get(), &bad, &id), grnERR_ARG);
  bad = g;
  bad.nx = 1;
  EXPECT_EQ(grn_add_grid(s.get(), &bad, &id), grnERR_ARG);
  bad = g;
  bad.cell = 0;
  EXPECT_EQ(grn_add_grid(s.get(), &bad, &id), grnERR_ARG);
  bad.cell = kNaN;
  EXPECT_EQ(grn_add_grid(s.get(), &bad, &id), grnERR_ARG);
  // a shape may now use grid 1 but not grid 2
  grnShape sh = grn_test::StaticShape(grnSHAPE_GRID);
  sh.grid = 1;
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &sh), grnOK);
  sh.grid = 2;
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &sh), grnERR_ARG);
}

TEST(GranularApi, AdvanceAndWrenchArguments) {
  grnParams p = Defaults();
  p.max_bodies = 2;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  EXPECT_EQ(grn_advance(s.get(), -1), grnERR_ARG);
  EXPECT_EQ(grn_advance(s.get(), 0), grnOK);
  double w[12];
  for (double& x : w) x = 7;
  EXPECT_EQ(grn_get_wrenches(s.get(), w), grnOK);
  for (double x : w) EXPECT_EQ(x, 0.0) << "no grains, no wrench";
  EXPECT_EQ(grn_get_wrenches(s.get(), nullptr), grnERR_ARG);
  // without bodies no array is needed
  p.max_bodies = 0;
  SolverPtr s0 = MakeSolver(p);
  ASSERT_TRUE(s0);
  EXPECT_EQ(grn_get_wrenches(s0.get(), nullptr), grnOK);
}

TEST(GranularApi, FindPairsCountsAllButWritesAtMostMax) {
  grnParams p = Defaults();
  p.capacity = 4;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  // a row of 4 grains 1.5 r apart: 3 neighbouring pairs overlap, and (0, 2), (1, 3) at 3 r
  // do not (cutoff 2.1 r)
  const float r = p.radius;
  const float pos[12] = {0, 0, 0, 1.5f * r, 0, 0, 3 * r, 0, 0, 4.5f * r, 0, 0};
  ASSERT_EQ(grn_set_grains(s.get(), 4, pos, nullptr), grnOK);
  int n = -1;
  EXPECT_EQ(grn_find_pairs(s.get(), nullptr, 0, &n), grnOK);
  EXPECT_EQ(n, 3);
  int pairs[8] = {-7, -7, -7, -7, -7, -7, -7, -7};
  EXPECT_EQ(grn_find_pairs(s.get(), pairs, 2, &n), grnOK);
  EXPECT_EQ(n, 3) << "total count even when max is smaller";
  EXPECT_EQ(pairs[4], -7) << "nothing written past max pairs";
  EXPECT_EQ(grn_find_pairs(s.get(), pairs, 4, &n), grnOK);
  std::set<std::pair<int, int>> got;
  for (int k = 0; k < n; k++) got.insert({pairs[2 * k], pairs[2 * k + 1]});
  EXPECT_EQ(got, (std::set<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_EQ(grn_find_pairs(s.get(), pairs, -1, &n), grnERR_ARG);
  EXPECT_EQ(grn_find_pairs(s.get(), nullptr, 2, &n), grnERR_ARG);
  EXPECT_EQ(grn_find_pairs(s.get(), pairs, 2, nullptr), grnERR_ARG);
}

}  // namespace
