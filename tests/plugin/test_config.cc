// plugin/config.c through MuJoCo: good values (defaults, white space, exponents) load, and keys
// reach the solver; every bad value is refused naming its key (the table in test_refusals.cc).
#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "mjg_test_util.h"

namespace {

using mjg_test::LoadXml;
using mjg_test::TerrainXml;

// the small bed with one key replaced
std::string WithKey(const char* key, const char* value) {
  auto config = mjg_test::SmallBed();
  config[key] = value;
  return TerrainXml(config, mjg_test::WalledBox(0.045));
}

TEST(Config, CudaIsRefusedWhenUnavailable) {
  // this build may or may not hold a usable cuda backend: either it loads, or the error names
  // the backend key
  std::string error;
  auto m = LoadXml(WithKey("backend", "cuda"), &error);
  if (!m) {
    EXPECT_NE(error.find("'backend'"), std::string::npos) << error;
  } else {
    GTEST_SKIP() << "a cuda device is available";
  }
}

// a capacity whose plugin_state MuJoCo cannot count (an int) is refused naming the key and the
// most grains that fit, which is what the layout allows
TEST(Config, ThePluginStateSizeLimitIsNamedAndExact) {
  std::string error;
  auto small = LoadXml(WithKey("count", "1000"), &error);
  ASSERT_TRUE(small) << error;
  long long per_grain = mjg_test::kGrainNums + mjg_test::kContactPerGrain;
  long long expect = (2147483647ll - mjg_test::kHeader - 6 * small->nbody) / per_grain;
  EXPECT_FALSE(LoadXml(WithKey("count", "67108864"), &error));
  EXPECT_NE(error.find("'count'"), std::string::npos) << error;
  size_t at = error.find("at most ");
  ASSERT_NE(at, std::string::npos) << error;
  EXPECT_EQ(std::atoll(error.c_str() + at + 8), expect) << error;
}

// a device index the machine lacks is refused naming the key
TEST(Config, AMissingCudaDeviceIsRefusedNamingTheKey) {
  auto config = mjg_test::SmallBed();
  config["backend"] = "cuda";
  std::string error;
  // without a usable device the backend is what is missing; with one, the index
  bool cuda = (bool)LoadXml(TerrainXml(config, mjg_test::WalledBox(0.045)), &error);
  config["device"] = "1000";
  auto m = LoadXml(TerrainXml(config, mjg_test::WalledBox(0.045)), &error);
  EXPECT_FALSE(m);
  EXPECT_NE(error.find(cuda ? "'device'" : "'backend'"), std::string::npos) << error;
  if (cuda) {
    EXPECT_NE(error.find("1000"), std::string::npos) << error;
  }
}

TEST(Config, GoodValuesLoad) {
  const std::vector<std::pair<const char*, const char*>> good = {
    {"radius", " 4e-3 "},
    {"density", "1600"},
    {"friction", "0"},
    {"timestep", "0.001"},
    {"iterations", "20"},
    {"baumgarte", "1"},
    {"count", "5000"},
    {"seed", "12345"},
    {"fill", " -0.04  -0.04 0.005\t0.04 0.04 0.04 "},
    {"domain", "-0.045 -0.045 0 0.045 0.045 0.2"},
    {"backend", "cpu"},
    {"backend", "auto"},
    {"sdf_cell", "0.002"},
    {"coupling", "one-way"},
    {"coupling", " two-way "},
    {"bodies", " "},
    {"cyclic_z", " 0 0.2 "},
    {"settle", "0"},
    {"deterministic", " false "},
    {"deterministic", "true"},
    {"model", "dem"},
    {"model", " pj "},
    {"broadphase", "sorted"},
    {"broadphase", " hash "},
  };
  for (const auto& [key, value] : good) {
    std::string error;
    auto m = LoadXml(WithKey(key, value), &error);
    EXPECT_TRUE(m) << key << "='" << value << "': " << error;
  }
}

TEST(Config, CountGivesCapacityBeyondTheBed) {
  std::string error;
  auto m = LoadXml(WithKey("count", "5000"), &error);
  ASSERT_TRUE(m) << error;
  mjg_test::DataPtr d(mj_makeData(m.get()));
  auto g = mjg_test::GrainsOf(m.get(), d.get());
  EXPECT_EQ(g.cap, 5000);
  EXPECT_LT(g.n(), 5000);
  EXPECT_GT(g.n(), 0);
}

// 1 if every grain's grain contacts in the state are in increasing partner order
bool PartnersSorted(const mjModel* m, mjData* d) {
  auto g = mjg_test::GrainsOf(m, d);
  const int* c = (const int*)g.contacts(m->nbody);
  const int *npair = c, *pair = c + 2 * g.cap;  // counts, shape counts, then slot-major partners
  for (int i = 0; i < g.n(); i++) {
    for (int k = 1; k < npair[i]; k++) {
      if (pair[(size_t)k * g.cap + i] < pair[(size_t)(k - 1) * g.cap + i]) return false;
    }
  }
  return true;
}

TEST(Config, DeterministicKeyReachesTheSolver) {
  // a poured, settled bed: random packing, so some hash cells hold two grains, which the walk
  // meets in the reverse of their insertion order
  std::map<std::string, std::string> config = {
      {"fill", "-0.04 -0.04 0.005  0.04 0.04 0.06"}, {"radius", "0.004"}, {"spacing", "3"},
      {"settle", "0.3"}, {"backend", "cpu"}};
  for (const char* value : {"true", "false"}) {
    config["deterministic"] = value;
    std::string error;
    auto m = LoadXml(TerrainXml(config, mjg_test::WalledBox(0.045)), &error);
    ASSERT_TRUE(m) << error;
    mjg_test::DataPtr d(mj_makeData(m.get()));
    for (int k = 0; k < 5; k++) mj_step(m.get(), d.get());
    // true: sorted by partner; false: in the hash walk's order, unsorted somewhere
    EXPECT_EQ(PartnersSorted(m.get(), d.get()), std::string(value) == "true") << value;
  }
}

// the dem keys together: each model loads, keys of the other model load with a warning naming
// them, and an unknown model is refused listing the models
TEST(Config, ModelKeySwitchesTheContactModel) {
  const std::vector<std::pair<std::map<std::string, std::string>, const char*>> cases = {
    {{{"model", "dem"}, {"law", "hooke"}, {"stiffness", "2e4"}, {"restitution", "0.4"}}, ""},
    {{{"model", "dem"}, {"youngs", "1e8"}, {"poisson", "0.25"}}, ""},
    {{{"model", "dem"}, {"iterations", "20"}}, "'iterations' applies to model pj and pbd only"},
    {{{"model", "pj"}, {"restitution", "0.4"}}, "'restitution' applies to model dem and pbd only"},
    {{{"model", "dem"}, {"stiffness", "2e4"}}, "'stiffness' applies to law hooke only"},
    {{{"model", "pbd"}, {"stiffness", "2e4"}, {"iterations", "20"}, {"sleep", "1e-6"},
      {"kinetic_friction", "0.3"}, {"error_reduction", "0"}, {"adhesion", "100"}}, ""},
    {{{"model", "pbd"}, {"baumgarte", "0.1"}}, "'baumgarte' applies to model pj only"},
    {{{"model", "pbd"}, {"law", "hooke"}}, "'law' applies to model dem only"},
    {{{"model", "pj"}, {"sleep", "1e-6"}}, "'sleep' applies to model pbd only"},
    {{{"model", "dem"}, {"kinetic_friction", "0.1"}}, "'kinetic_friction' applies to model pbd"},
    {{{"model", "pbd"}, {"pbd_passes", "averaged"}, {"error_reduction", "0.5"}}, ""},
    {{{"model", "pj"}, {"pbd_passes", "averaged"}}, "'pbd_passes' applies to model pbd only"},
    {{{"model", "pj"}, {"adhesion", "100"}}, ""},
  };
  for (const auto& [keys, warning] : cases) {
    auto config = mjg_test::SmallBed();
    for (const auto& [key, value] : keys) config[key] = value;
    mjg_test::WarningCapture capture;
    std::string error;
    auto m = LoadXml(TerrainXml(config, mjg_test::WalledBox(0.045)), &error);
    ASSERT_TRUE(m) << error;
    mjg_test::DataPtr d(mj_makeData(m.get()));
    if (*warning) {
      EXPECT_NE(capture.All().find(warning), std::string::npos) << capture.All();
    } else {
      EXPECT_EQ(capture.All().find("config key"), std::string::npos) << capture.All();
    }
  }
  std::string error;
  EXPECT_FALSE(LoadXml(WithKey("model", "sph"), &error));
  EXPECT_NE(error.find("'model' = 'sph': must be one of pj, dem, pbd"), std::string::npos) << error;
}

// the cohesive keys' refusals name the key and the reason: adhesion with dem, which has none, and
// a kinetic friction above the static one
TEST(Config, CohesionKeysAreRefusedWhereTheyCannotHold) {
  std::string error;
  auto config = mjg_test::SmallBed();
  config["model"] = "dem";
  config["adhesion"] = "100";
  EXPECT_FALSE(LoadXml(TerrainXml(config, mjg_test::WalledBox(0.045)), &error));
  EXPECT_NE(error.find("'adhesion' = '100': applies to models pj and pbd"), std::string::npos)
      << error;
  config = mjg_test::SmallBed();
  config["model"] = "pbd";
  config["friction"] = "0.4";
  config["kinetic_friction"] = "0.5";
  EXPECT_FALSE(LoadXml(TerrainXml(config, mjg_test::WalledBox(0.045)), &error));
  EXPECT_NE(error.find("'kinetic_friction' = '0.5': must be at most key 'friction'"),
            std::string::npos) << error;
}

// an unknown kind of pbd passes is refused naming the key and listing the kinds
TEST(Config, UnknownPbdPassesAreRefusedNamingTheKey) {
  std::string error;
  EXPECT_FALSE(LoadXml(WithKey("pbd_passes", "gauss-seidel"), &error));
  EXPECT_NE(error.find("'pbd_passes' = 'gauss-seidel': must be one of newton, averaged"),
            std::string::npos)
      << error;
}

// an unknown broadphase is refused naming the key and listing the broadphases
TEST(Config, UnknownBroadphaseIsRefusedListingThem) {
  std::string error;
  EXPECT_FALSE(LoadXml(WithKey("broadphase", "octree"), &error));
  EXPECT_NE(error.find("'broadphase' = 'octree': must be one of hash, sorted"), std::string::npos)
      << error;
}

// the rayleigh time of a sphere of radius r [s] (the dem defaults: 2500 kg/m^3, 5e7 Pa, 0.3)
double RayleighTime(double r) {
  double shear = 5e7 / (2 * 1.3);
  return 3.14159265358979 * r * std::sqrt(2500 / shear) / (0.1631 * 0.3 + 0.8766);
}

// the longest substep of the small bed with these keys, from the library's export, and the
// warnings at load
double Timestep(const std::map<std::string, std::string>& keys, std::string* warnings) {
  auto config = mjg_test::SmallBed();
  for (const auto& [key, value] : keys) config[key] = value;
  mjg_test::WarningCapture capture;
  std::string error;
  auto m = LoadXml(TerrainXml(config, mjg_test::WalledBox(0.045)), &error);
  EXPECT_TRUE(m) << error;
  if (!m) return 0;
  mjg_test::DataPtr d(mj_makeData(m.get()));
  *warnings = capture.All();
  void* lib = dlopen(MJGRANULAR_PLUGIN_PATH, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_TRUE(lib) << dlerror();
  if (!lib) return 0;
  auto timestep = (double (*)(const mjModel*, int))dlsym(lib, "mjgranular_timestep");
  EXPECT_TRUE(timestep) << "mjgranular_timestep not exported";
  double dt = timestep ? timestep(m.get(), 0) : 0;
  dlclose(lib);
  return dt;
}

TEST(Config, DemTimestepDefaultsToAShareOfTheRayleighTimeAndWarnsAboveItsLimit) {
  // default: 0.15 of the rayleigh time of the smallest grains (radius key rmin rmax), computed
  // from the solver's float32 material constants (so to 1e-6)
  std::string warnings;
  for (const char* radius : {"0.004", "0.002 0.004"}) {
    double dt = Timestep({{"model", "dem"}, {"radius", radius}}, &warnings);
    EXPECT_NEAR(dt, 0.15 * RayleighTime(std::atof(radius)), 1e-6 * dt) << radius;
    EXPECT_EQ(warnings.find("config key"), std::string::npos) << warnings;
  }
  // projected jacobi keeps its own default
  EXPECT_EQ(Timestep({{"model", "pj"}}, &warnings), 5e-4);
  // a given timestep is kept; above 0.3 rayleigh times it loads with a warning naming the key
  double limit = 0.3 * RayleighTime(0.004);
  for (double factor : {0.9, 1.1}) {
    char timestep[32];
    std::snprintf(timestep, sizeof(timestep), "%.9g", factor * limit);
    EXPECT_EQ(Timestep({{"model", "dem"}, {"timestep", timestep}}, &warnings),
              std::atof(timestep));
    bool warned = warnings.find("config key 'timestep'") != std::string::npos;
    EXPECT_EQ(warned, factor > 1) << factor << ": " << warnings;
  }
}

}  // namespace
