// the bed_file key (plugin/bedfile.c) through MuJoCo: a bed saved from one run (written here by
// an independent writer of the format in plugin/bedfile.h) starts a new model with exactly the
// saved grains and contacts, so it continues bit for bit as the saved run did; and every bad file
// is refused at load with a warning naming the key and the cause, without a crash.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
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

constexpr int kMaxPairs = 16, kMaxShape = 4;  // the solver's contact slots per grain

// a bed file's content, as the format describes it
struct BedFile {
  uint32_t version = 3;
  uint32_t flags = 0;
  int32_t n = 0;
  double radius = 0.004;
  std::vector<float> pos, vel, angvel;  // (n x 3); angvel from version 2 on
  std::vector<float> orient;            // (n x 4), from version 3 on
  std::vector<float> radii;             // (n), from version 2 on
  // from version 4 on: solver spheres per grain, grain types, their fingerprint, each grain's
  // type (n)
  uint32_t spheres = 1, ntype = 1;
  uint64_t fingerprint = 0;
  std::vector<uint32_t> types;
  std::vector<char> contacts;           // layout for capacity n spheres, when flags & 1
};

template <typename T>
void Put(std::vector<char>* out, const T& v) {
  const char* b = reinterpret_cast<const char*>(&v);  // x86: little-endian already
  out->insert(out->end(), b, b + sizeof(T));
}

std::vector<char> Encode(const BedFile& f) {
  std::vector<char> out;
  const char magic[8] = {'M', 'J', 'G', 'B', 'E', 'D', 0, 0};
  out.insert(out.end(), magic, magic + 8);
  Put(&out, f.version);
  Put(&out, f.flags);
  Put(&out, f.n);
  Put(&out, (uint32_t)0);
  Put(&out, f.radius);
  if (f.version > 3) {
    Put(&out, f.spheres);
    Put(&out, f.ntype);
    Put(&out, f.fingerprint);
  }
  for (float v : f.pos) Put(&out, v);
  for (float v : f.vel) Put(&out, v);
  for (float v : f.angvel) Put(&out, v);
  for (float v : f.orient) Put(&out, v);
  for (float v : f.radii) Put(&out, v);
  for (uint32_t t : f.types) Put(&out, t);
  out.insert(out.end(), f.contacts.begin(), f.contacts.end());
  return out;
}

std::string WriteFile(const std::string& name, const std::vector<char>& bytes) {
  std::string path = ::testing::TempDir() + "mjg_bed_" + name + ".bin";
  FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_TRUE(f);
  if (f) {
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  return path;
}

// the contact state of the first n grains of a plugin_state block of capacity cap, relaid for
// capacity n: every array is slot-major, slot k of grain i at k cap + i. version 1 files end
// after the sixth array (no angular impulses)
std::vector<char> ContactsForN(const char* block, int cap, int n, int version) {
  struct Array { int slots, width; };  // slots per grain, 4-byte numbers per slot
  const Array arrays[] = {{1, 1}, {1, 1}, {kMaxPairs, 1}, {kMaxShape, 1}, {kMaxPairs, 3},
                          {kMaxShape, 3}, {kMaxPairs, 3}, {kMaxShape, 3}};
  std::vector<char> out;
  size_t offset = 0;
  for (int i = 0; i < (version == 1 ? 6 : 8); i++) {
    const Array& a = arrays[i];
    for (int k = 0; k < a.slots; k++) {
      const char* src = block + offset + 4 * a.width * ((size_t)k * cap);
      out.insert(out.end(), src, src + 4 * a.width * (size_t)n);
    }
    offset += 4 * (size_t)a.width * a.slots * cap;
  }
  return out;
}

// a file of the grains (and contacts) in d's state, in format version 4, 3 (no types), 2 (no
// orientations either) or 1 (no spins either)
BedFile Save(const mjModel* m, mjData* d, bool contacts, int version = 4) {
  auto g = GrainsOf(m, d);
  BedFile f;
  f.version = version;
  f.n = g.n();
  for (int i = 0; i < f.n; i++) {
    for (int a = 0; a < 3; a++) {
      f.pos.push_back((float)g.pos(i)[a]);
      f.vel.push_back((float)g.vel(i)[a]);
      if (version > 1) f.angvel.push_back((float)g.angvel(i)[a]);
    }
    for (int a = 0; version > 2 && a < 4; a++) f.orient.push_back((float)g.orient(i)[a]);
    if (version > 1) f.radii.push_back((float)*g.radius(i));
    if (version > 3) f.types.push_back((uint32_t)*g.type(i));
  }
  if (contacts) {
    f.flags = 1;
    const char* block = (const char*)(g.state + mjg_test::kHeader + mjg_test::kGrainNums * g.cap +
                                      6 * m->nbody);
    f.contacts = ContactsForN(block, g.cap, f.n, version);
  }
  return f;
}

const std::string kWorld = mjg_test::WalledBox(0.045);

// the saved run: a small bed, settled at load, then stepped a little so it also moves
ModelPtr SavedRun() {
  std::string error;
  auto m = LoadXml(mjg_test::TerrainXml({{"fill", "-0.04 -0.04 0.005  0.04 0.04 0.04"},
                                         {"radius", "0.004"}, {"settle", "0.2"},
                                         {"backend", "cpu"}},
                                        kWorld),
                   &error);
  EXPECT_TRUE(m) << error;
  return m;
}

std::string BedXml(const std::string& path, std::map<std::string, std::string> extra = {}) {
  extra["bed_file"] = path;
  extra["radius"] = extra.count("radius") ? extra["radius"] : "0.004";
  extra["backend"] = "cpu";
  return mjg_test::TerrainXml(extra, kWorld);
}

TEST(BedFile, LoadsTheSavedBedExactlyAndContinuesAsTheSavedRun) {
  auto saved = SavedRun();
  ASSERT_TRUE(saved);
  DataPtr a(mj_makeData(saved.get()));
  for (int k = 0; k < 10; k++) mj_step(saved.get(), a.get());
  std::string path = WriteFile("exact", Encode(Save(saved.get(), a.get(), true)));

  std::string error;
  auto m = LoadXml(BedXml(path), &error);
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(m->plugin_statenum[0], saved->plugin_statenum[0]) << "capacity: the file's grains";
  DataPtr b(mj_makeData(m.get()));
  auto ga = GrainsOf(saved.get(), a.get()), gb = GrainsOf(m.get(), b.get());
  ASSERT_EQ(gb.n(), ga.n());
  double speed = 0;
  for (int i = 0; i < ga.n(); i++) {
    for (int x = 0; x < 3; x++) {
      ASSERT_EQ(gb.pos(i)[x], ga.pos(i)[x]) << "grain " << i;
      ASSERT_EQ(gb.vel(i)[x], ga.vel(i)[x]) << "grain " << i;
      speed = std::fmax(speed, std::fabs(ga.vel(i)[x]));
    }
  }
  EXPECT_GT(speed, 0.0) << "velocities are part of the check";
  double turned = 0;
  for (int i = 0; i < ga.n(); i++) turned = std::fmax(turned, 1 - std::fabs(ga.orient(i)[0]));
  EXPECT_GT(turned, 0.0) << "orientations are part of the check";
  // the whole state but the wrenches of the step before: the same contact state too
  auto sa = StateCopy(saved.get(), a.get()), sb = StateCopy(m.get(), b.get());
  mjtNum* wrenches = sa.data() + (ga.wrench(0) - ga.state);
  for (int i = 0; i < 6 * saved->nbody; i++) wrenches[i] = 0;
  EXPECT_EQ(sb, sa);

  // the saved run and the loaded bed step alike, bit for bit
  for (int k = 0; k < 20; k++) {
    mj_step(saved.get(), a.get());
    mj_step(m.get(), b.get());
  }
  EXPECT_EQ(StateCopy(m.get(), b.get()), StateCopy(saved.get(), a.get()));
  // and a reset gives the file's bed again
  mj_resetData(m.get(), b.get());
  EXPECT_EQ(StateCopy(m.get(), b.get()), sb);
}

// a version 1 file (saved before grains rotated) loads at zero spin, its contacts with no
// angular impulses
TEST(BedFile, VersionOneLoadsAtZeroSpin) {
  auto saved = SavedRun();
  ASSERT_TRUE(saved);
  DataPtr a(mj_makeData(saved.get()));
  for (int k = 0; k < 10; k++) mj_step(saved.get(), a.get());
  BedFile v1 = Save(saved.get(), a.get(), true, 1), v2 = Save(saved.get(), a.get(), true);
  std::string error;
  auto m = LoadXml(BedXml(WriteFile("v1", Encode(v1))), &error);
  ASSERT_TRUE(m) << error;
  DataPtr b(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), b.get());
  ASSERT_EQ(g.n(), v1.n);
  double spin = 0, saved_spin = 0;
  for (int i = 0; i < v1.n; i++) {
    for (int x = 0; x < 3; x++) {
      ASSERT_EQ(g.pos(i)[x], v1.pos[3 * i + x]);
      spin = std::fmax(spin, std::fabs(g.angvel(i)[x]));
      saved_spin = std::fmax(saved_spin, std::fabs(v2.angvel[3 * i + x]));
    }
  }
  EXPECT_EQ(spin, 0.0);
  EXPECT_GT(saved_spin, 0.0);  // the saved run did spin its grains: version 1 dropped that
  // the grain contacts and their impulses came through: the run goes on from them
  const int32_t* npair = (const int32_t*)(g.state + mjg_test::kHeader +
                                          mjg_test::kGrainNums * g.cap + 6 * m->nbody);
  int contacts = 0;
  for (int i = 0; i < g.n(); i++) contacts += npair[i];
  EXPECT_GT(contacts, g.n());
  for (int k = 0; k < 10; k++) mj_step(m.get(), b.get());
  EXPECT_EQ(b->warning[mjWARN_BADQACC].number, 0);
}

// a version 2 file (saved before orientations were kept) loads with every grain at the identity,
// and everything else as saved
TEST(BedFile, VersionTwoLoadsAtTheIdentityOrientation) {
  auto saved = SavedRun();
  ASSERT_TRUE(saved);
  DataPtr a(mj_makeData(saved.get()));
  for (int k = 0; k < 10; k++) mj_step(saved.get(), a.get());
  BedFile v2 = Save(saved.get(), a.get(), true, 2);
  std::string error;
  auto m = LoadXml(BedXml(WriteFile("v2", Encode(v2))), &error);
  ASSERT_TRUE(m) << error;
  DataPtr b(mj_makeData(m.get()));
  auto ga = GrainsOf(saved.get(), a.get()), gb = GrainsOf(m.get(), b.get());
  ASSERT_EQ(gb.n(), v2.n);
  for (int i = 0; i < v2.n; i++) {
    for (int x = 0; x < 3; x++) {
      ASSERT_EQ(gb.pos(i)[x], ga.pos(i)[x]);
      ASSERT_EQ(gb.angvel(i)[x], ga.angvel(i)[x]);
    }
    ASSERT_EQ(*gb.radius(i), *ga.radius(i));
    const mjtNum identity[4] = {1, 0, 0, 0};
    for (int k = 0; k < 4; k++) ASSERT_EQ(gb.orient(i)[k], identity[k]) << "grain " << i;
  }
  // the contact state came through whole
  const mjtNum* ca = ga.contacts(saved->nbody);
  const mjtNum* cb = gb.contacts(m->nbody);
  for (int i = 0; i < mjg_test::kContactPerGrain * gb.cap; i++) ASSERT_EQ(cb[i], ca[i]);
}

TEST(BedFile, WithoutContactsAndWithRoomToSpare) {
  auto saved = SavedRun();
  ASSERT_TRUE(saved);
  DataPtr a(mj_makeData(saved.get()));
  BedFile f = Save(saved.get(), a.get(), false);
  std::string path = WriteFile("plain", Encode(f));
  std::string error;
  auto m = LoadXml(BedXml(path, {{"count", std::to_string(f.n + 100)}}), &error);
  ASSERT_TRUE(m) << error;
  DataPtr b(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), b.get());
  EXPECT_EQ(g.cap, f.n + 100);
  ASSERT_EQ(g.n(), f.n);
  for (int i = 0; i < f.n; i++) {
    for (int x = 0; x < 3; x++) ASSERT_EQ(g.pos(i)[x], f.pos[3 * i + x]);
  }
  // no contact state in the file: none in the state
  const mjtNum* contacts =
      g.state + mjg_test::kHeader + mjg_test::kGrainNums * g.cap + 6 * m->nbody;
  for (int i = 0; i < mjg_test::kContactPerGrain * g.cap; i++) ASSERT_EQ(contacts[i], 0.0);
}

// load a model with this file (and extra keys); the load must fail, and the error with the
// warnings is returned
std::string Refused(const std::string& name, const std::vector<char>& bytes,
                    std::map<std::string, std::string> extra = {}) {
  mjg_test::WarningCapture capture;
  std::string path = name.empty() ? ::testing::TempDir() + "mjg_bed_missing.bin"
                                  : WriteFile(name, bytes);
  std::string error;
  auto m = LoadXml(BedXml(path, extra), &error);
  EXPECT_FALSE(m) << name << " loaded";
  std::string all = error + "\n" + capture.All();
  EXPECT_NE(all.find("config key 'bed_file' = '" + path + "'"), std::string::npos) << all;
  return all;
}

TEST(BedFile, BadFilesAreRefusedNamingTheKeyAndTheCause) {
  BedFile good;
  good.n = 2;
  good.pos = {0, 0, 0.01f, 0.02f, 0, 0.01f};
  good.vel = {0, 0, 0, 0, 0, 0};
  good.angvel = {0, 0, 0, 0, 0, 0};
  good.orient = {1, 0, 0, 0, 1, 0, 0, 0};
  good.radii = {0.004f, 0.004f};
  std::vector<char> bytes = Encode(good);
  {
    std::string error;
    auto m = LoadXml(BedXml(WriteFile("good", bytes)), &error);
    EXPECT_TRUE(m) << "the reference file loads: " << error;
  }

  EXPECT_NE(Refused("", {}).find("cannot open the file"), std::string::npos);
  EXPECT_NE(Refused("radius", bytes, {{"radius", "0.005"}}).find("radius"), std::string::npos);
  EXPECT_NE(Refused("count", bytes, {{"count", "1"}}).find("more than key 'count'"),
            std::string::npos);
  BedFile nan = good;
  nan.pos[4] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(Refused("nan", Encode(nan)).find("position of grain 1 is not finite"),
            std::string::npos);
  BedFile inf = good;
  inf.vel[0] = std::numeric_limits<float>::infinity();
  EXPECT_NE(Refused("inf", Encode(inf)).find("velocity of grain 0 is not finite"),
            std::string::npos);
  std::vector<char> cut(bytes.begin(), bytes.end() - 5);
  EXPECT_NE(Refused("truncated", cut).find("truncated"), std::string::npos);
  std::vector<char> stub(bytes.begin(), bytes.begin() + 12);
  EXPECT_NE(Refused("stub", stub).find("truncated"), std::string::npos);
  std::vector<char> longer = bytes;
  longer.push_back(0);
  EXPECT_NE(Refused("long", longer).find("too long"), std::string::npos);
  std::vector<char> magic = bytes;
  magic[0] = 'X';
  EXPECT_NE(Refused("magic", magic).find("not a bed file"), std::string::npos);
  BedFile v4 = good;  // a file of grain types: what a terrain of spheres refuses
  v4.version = 4;
  v4.types = {0, 0};
  EXPECT_TRUE(LoadXml(BedXml(WriteFile("v4", Encode(v4))))) << "version 4 of spheres loads";
  v4.types = {0, 1};
  EXPECT_NE(Refused("type", Encode(v4)).find("type of grain 1, 1, is not one of its 1 types"),
            std::string::npos);
  v4.types = {0, 0};
  v4.ntype = 2;
  EXPECT_NE(Refused("ntype", Encode(v4)).find("2 types"), std::string::npos);
  v4.ntype = 1;
  v4.fingerprint = 0x1234;
  EXPECT_NE(Refused("fingerprint", Encode(v4)).find("fingerprint 0000000000001234"),
            std::string::npos);
  v4.fingerprint = 0;
  v4.spheres = 8;
  EXPECT_NE(Refused("spheres", Encode(v4)).find("8 spheres per grain"), std::string::npos);
  v4.spheres = 0;
  EXPECT_NE(Refused("no spheres", Encode(v4)).find("0 solver spheres"), std::string::npos);
  BedFile v5 = good;
  v5.version = 5;
  EXPECT_NE(Refused("version", Encode(v5)).find("format version 5"), std::string::npos);
  BedFile unnormalised = good;
  unnormalised.orient[5] = 0.5f;
  EXPECT_NE(Refused("orientation", Encode(unnormalised))
                .find("orientation of grain 1, (1, 0.5, 0, 0), is not a unit quaternion"),
            std::string::npos);
  BedFile negative = good;
  negative.n = -3;
  EXPECT_NE(Refused("negative", Encode(negative)).find("negative grain count"),
            std::string::npos);
  EXPECT_NE(Refused("both", bytes, {{"fill", "-0.01 -0.01 0.005 0.01 0.01 0.02"}})
                .find("give only one"),
            std::string::npos);

  // contact states: too many contacts for the slots, a partner that is not a grain
  BedFile with = good;
  with.flags = 1;
  with.contacts.assign(568 * 2, 0);
  int32_t npair = 1, partner = 5;
  std::memcpy(with.contacts.data(), &npair, 4);                 // grain 0 has one contact,
  std::memcpy(with.contacts.data() + 4 * 4, &partner, 4);       // slot 0: grain 5 (pair, k 0)
  EXPECT_NE(Refused("partner", Encode(with)).find("does not fit"), std::string::npos);
  npair = 17;
  std::memcpy(with.contacts.data(), &npair, 4);
  EXPECT_NE(Refused("slots", Encode(with)).find("more contacts per grain"), std::string::npos);
}

}  // namespace
