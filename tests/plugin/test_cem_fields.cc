// keys shape_model and cem_fields through MuJoCo (mesh grains meeting by configuration-space
// contact fields):
// - the keys' misuse is refused naming the key: cem without mesh grains, without the dem model or
//   without a fields file; a fields file with shape_model clump; a file that cannot be read, that
//   has no fields for a mesh of the terrain, whose mesh differs from the model's (fingerprint), or
//   that lacks a pair of the terrain's meshes;
// - a terrain with fields loads, its grains' solver spheres led by their bounds (the contact
//   state sized for them), and a step from a copied state is bit for bit the step from the
//   original (the fields' tangential springs in plugin_state).
// Fitted fields against a cube's exact geometry: tests/kernels/test_cem_cube.cc.
#include <dlfcn.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "grn_cem_util.h"
#include "mjg_test_util.h"

extern "C" {
#include "cem_fields.h"
}

namespace {

using grn_cem_test::FileBytes;
using grn_cem_test::OctahedronNet;
using grn_cem_test::WriteTemp;
using grn_cem_test::ZeroArmNet;
using mjg_test::DataPtr;
using mjg_test::LoadXml;
using mjg_test::ModelPtr;

const double kHalf = 0.005;  // half the side of the cubes [m]

// two meshes: a cube of half side kHalf and a box twice as long
std::string Assets() {
  std::string cube, box;
  for (int i = 0; i < 8; i++) {
    for (int a = 0; a < 3; a++) {
      double s = (i >> a) & 1 ? kHalf : -kHalf;
      cube += std::to_string(s) + " ";
      box += std::to_string(a == 0 ? 2 * s : s) + " ";
    }
  }
  return "<asset><mesh name=\"cube\" vertex=\"" + cube + "\"/><mesh name=\"box\" vertex=\"" +
         box + "\"/></asset>";
}

std::string Xml(const std::map<std::string, std::string>& config) {
  return mjg_test::TerrainXml(config, mjg_test::WalledBox(0.04),
                              "<option timestep=\"0.002\"/>" + Assets());
}

// the fingerprint of each mesh as the plugin reads it from the compiled model
uint64_t Fingerprint(const char* mesh) {
  ModelPtr m = LoadXml("<mujoco>" + Assets() + "</mujoco>");
  EXPECT_TRUE(m);
  return m ? mjg_cem_mesh_fingerprint(m.get(), mj_name2id(m.get(), mjOBJ_MESH, mesh)) : 0;
}

// a fields file for the meshes named (all pairs, or all but the last), octahedron fields that
// push cubes apart when their centres come within about a side
std::string FieldsFile(const std::vector<std::string>& meshes, const char* tag,
                       bool all_pairs = true, uint64_t fingerprint_xor = 0,
                       const char* magic = nullptr) {
  std::vector<grn_cem_test::FileType> types;
  for (const std::string& name : meshes) {
    types.push_back({name, Fingerprint(name.c_str()) ^ fingerprint_xor, 0.02f});
  }
  std::vector<grn_cem_test::FilePair> pairs;
  for (int a = 0; a < (int)meshes.size(); a++) {
    for (int b = a; b < (int)meshes.size(); b++) {
      pairs.push_back({a, b, 0.04f, OctahedronNet(40, 2.4f * kHalf / 0.04f), ZeroArmNet()});
    }
  }
  if (!all_pairs) pairs.pop_back();
  std::string bytes = FileBytes(types, pairs);
  if (magic) bytes.replace(0, 8, magic);
  return WriteTemp(bytes, tag);
}

const std::map<std::string, std::string> kBase = {
    {"fill", "-0.03 -0.03 0.01 0.03 0.03 0.04"}, {"count", "60"}, {"shape", "cube"},
    {"clump_spheres", "8"}, {"model", "dem"}, {"shape_model", "cem"}};

std::map<std::string, std::string> With(std::map<std::string, std::string> config,
                                        const std::map<std::string, std::string>& more) {
  for (const auto& [key, value] : more) config[key] = value;
  return config;
}

// the load error of a config and the warnings of its loading (init's refusals come as warnings)
std::string LoadError(const std::map<std::string, std::string>& config) {
  mjg_test::WarningCapture capture;
  std::string error;
  ModelPtr m = LoadXml(Xml(config), &error);
  EXPECT_FALSE(m) << "loaded";
  return error + "\n" + capture.All();
}

TEST(CemFields, MisusedKeysAreRefusedNamingTheKey) {
  std::string good = FieldsFile({"cube"}, "good");
  struct Bad {
    std::map<std::string, std::string> config;
    const char* key;
    const char* cause;
  } cases[] = {
      {With(kBase, {{"cem_fields", good}, {"shape", "sphere"}}), "'shape_model'", "mesh grains"},
      {With(kBase, {{"cem_fields", good}, {"model", "pj"}}), "'shape_model'", "model 'dem'"},
      {kBase, "'cem_fields'", "is missing"},
      {With(kBase, {{"cem_fields", good}, {"shape_model", "clump"}}), "'cem_fields'",
       "shape_model 'cem' only"},
      {With(kBase, {{"shape_model", "polyhedra"}}), "'shape_model'", "clump"},
      {With(kBase, {{"cem_fields", "/nonexistent/f.cem"}}), "'cem_fields'", "cannot be opened"},
      {With(kBase, {{"cem_fields", FieldsFile({"box"}, "other")}}), "'cem_fields'",
       "no fields for mesh 'cube'"},
      {With(kBase, {{"cem_fields", FieldsFile({"cube"}, "changed", true, 1)}}), "'cem_fields'",
       "not the one its fields were fitted to"},
      {With(kBase, {{"cem_fields", FieldsFile({"cube", "box"}, "short", false)},
                    {"shape", "cube box"}}),
       "'cem_fields'", "lacks the fields of a pair"},
      {With(kBase, {{"cem_fields", FieldsFile({"cube"}, "former", true, 0, "MJGCEM01")}}),
       "'cem_fields'", "9-wide net input (MJGCEM01): refit"},
  };
  for (const Bad& c : cases) {
    std::string error = LoadError(c.config);
    EXPECT_NE(error.find(c.key), std::string::npos) << error;
    EXPECT_NE(error.find(c.cause), std::string::npos) << error;
  }
}

TEST(CemFields, TerrainLoadsAndACopiedStateStepsBitForBit) {
  std::string fields = FieldsFile({"cube", "box"}, "load");
  mjg_test::WarningCapture capture;
  std::string error;
  ModelPtr m = LoadXml(Xml(With(kBase, {{"cem_fields", fields}, {"shape", "cube box sphere"},
                                        {"radius", "0.004"}})), &error);
  ASSERT_TRUE(m) << error << capture.All();
  DataPtr d(mj_makeData(m.get()));
  // the contact state holds 8 spheres and the bound of each grain
  void* lib = dlopen(MJGRANULAR_PLUGIN_PATH, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_TRUE(lib) << dlerror();
  using Part = int (*)(const mjModel*, int, const char*, long long*, long long*);
  auto part = (Part)dlsym(lib, "mjgranular_state_part");
  long long offset = 0, length = 0;
  ASSERT_EQ(part(m.get(), 0, "contact_capacity", &offset, &length), 0);
  dlclose(lib);
  EXPECT_EQ(length, 60 * 9);
  for (int i = 0; i < 100; i++) mj_step(m.get(), d.get());
  DataPtr copy(mj_copyData(nullptr, m.get(), d.get()));
  for (int i = 0; i < 50; i++) {
    mj_step(m.get(), d.get());
    mj_step(m.get(), copy.get());
  }
  std::vector<mjtNum> a = mjg_test::StateCopy(m.get(), d.get());
  std::vector<mjtNum> b = mjg_test::StateCopy(m.get(), copy.get());
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(mjtNum)), 0);
}

}  // namespace
