// the sensor plugins mjgranular.heightmap and mjgranular.wrench through MuJoCo: values land in
// sensordata, the height map of a settled flat bed equals the bed height within one grain radius,
// and the wrench sensor is bitwise the wrench slot of plugin_state (bad configs: the table in
// test_refusals.cc).
#include <algorithm>
#include <cmath>
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

constexpr double kRadius = 0.004;

// a walled bed of a few hundred grains, a free box above it, the sensors given as MJCF
std::string SensorXml(const std::string& heightmap_config, const std::string& wrench_sensor,
                      const std::string& extra_extension = "") {
  std::string xml =
      "<mujoco><option timestep=\"0.002\"/><extension>"
      "<plugin plugin=\"mjgranular.terrain\"><instance name=\"sand\">"
      "<config key=\"fill\" value=\"-0.04 -0.04 0.005  0.04 0.04 0.04\"/>"
      "<config key=\"radius\" value=\"0.004\"/></instance></plugin>"
      "<plugin plugin=\"mjgranular.heightmap\"><instance name=\"hm\">" + heightmap_config +
      "</instance></plugin><plugin plugin=\"mjgranular.wrench\"/>" + extra_extension +
      "</extension><worldbody><plugin instance=\"sand\"/>" + mjg_test::WalledBox(0.045) +
      "<body name=\"box\" pos=\"0 0 0.06\"><freejoint/>"
      "<geom type=\"box\" size=\"0.012 0.012 0.012\" density=\"1000\"/></body>"
      "</worldbody><sensor><plugin name=\"height\" instance=\"hm\"/>" + wrench_sensor +
      "</sensor></mujoco>";
  return xml;
}

std::string Config(const std::map<std::string, std::string>& config) {
  std::string s;
  for (const auto& [k, v] : config) s += "<config key=\"" + k + "\" value=\"" + v + "\"/>";
  return s;
}

const char* kWrench =
    "<plugin name=\"wrench\" plugin=\"mjgranular.wrench\" objtype=\"body\" objname=\"box\"/>";

// the grains topple from their lattice into an uneven bed (they rotate), so the truth is brute
// force: per cell the highest grain top of the grains whose centres lie in it
TEST(Sensors, HeightMapOfASettledBedIsTheHighestGrainTopPerCell) {
  std::string error;
  auto m = LoadXml(SensorXml(Config({{"region", "-0.045 -0.045 0.045 0.045"}, {"size", "6 6"}}),
                             kWrench),
                   &error);
  ASSERT_TRUE(m) << error;
  int hs = mj_name2id(m.get(), mjOBJ_SENSOR, "height");
  ASSERT_GE(hs, 0);
  EXPECT_EQ(m->sensor_dim[hs], 36);
  DataPtr d(mj_makeData(m.get()));
  // keep the box out of the way: the bed settles alone
  d->qpos[2] = 1.0;
  for (int k = 0; k < 150; k++) mj_step(m.get(), d.get());  // 0.3 s
  d->qpos[2] = 1.0;
  mju_zero(d->qvel, m->nv);
  mj_forward(m.get(), d.get());

  auto g = GrainsOf(m.get(), d.get());
  ASSERT_GT(g.n(), 200);
  const double lo = -0.045, cell = 0.09 / 6;
  std::vector<double> want(36, -1e30);
  for (int i = 0; i < g.n(); i++) {
    int ix = (int)std::floor((g.pos(i)[0] - lo) / cell);
    int iy = (int)std::floor((g.pos(i)[1] - lo) / cell);
    if (ix < 0 || ix >= 6 || iy < 0 || iy >= 6) continue;
    want[iy * 6 + ix] = std::max(want[iy * 6 + ix], g.pos(i)[2] + *g.radius(i));
  }
  const mjtNum* h = d->sensordata + m->sensor_adr[hs];
  double lowest = 1e30, highest = -1e30;
  for (int iy = 1; iy < 5; iy++) {
    for (int ix = 1; ix < 5; ix++) {
      EXPECT_DOUBLE_EQ(h[iy * 6 + ix], want[iy * 6 + ix]) << "cell " << ix << " " << iy;
      lowest = std::min(lowest, want[iy * 6 + ix]);
      highest = std::max(highest, want[iy * 6 + ix]);
    }
  }
  // a bed: every interior cell has grains, tops within a few radii
  EXPECT_GT(lowest, 2 * kRadius);
  std::printf("interior cell tops from %.5f to %.5f m\n", lowest, highest);
}

TEST(Sensors, EmptyCellsReadTheFloorOrTheEmptyKey) {
  // a region beside the bed: no grains, the floor plane is at z = 0
  auto m = LoadXml(SensorXml(Config({{"region", "0.2 0.2 0.3 0.3"}, {"size", "2 3"}}), kWrench));
  ASSERT_TRUE(m);
  DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());
  const mjtNum* h = d->sensordata + m->sensor_adr[mj_name2id(m.get(), mjOBJ_SENSOR, "height")];
  for (int c = 0; c < 6; c++) EXPECT_EQ(h[c], 0.0);

  auto m2 = LoadXml(SensorXml(
      Config({{"region", "0.2 0.2 0.3 0.3"}, {"size", "2 3"}, {"empty", "-1"}}), kWrench));
  ASSERT_TRUE(m2);
  DataPtr d2(mj_makeData(m2.get()));
  mj_forward(m2.get(), d2.get());
  const mjtNum* h2 =
      d2->sensordata + m2->sensor_adr[mj_name2id(m2.get(), mjOBJ_SENSOR, "height")];
  for (int c = 0; c < 6; c++) EXPECT_EQ(h2[c], -1.0);
}

TEST(Sensors, WrenchSensorIsTheStoredWrenchOfTheBody) {
  std::string error;
  auto m = LoadXml(SensorXml(Config({{"region", "-0.04 -0.04 0.04 0.04"}, {"size", "2 2"}}),
                             kWrench),
                   &error);
  ASSERT_TRUE(m) << error;
  int ws = mj_name2id(m.get(), mjOBJ_SENSOR, "wrench");
  int box = mj_name2id(m.get(), mjOBJ_BODY, "box");
  ASSERT_GE(ws, 0);
  EXPECT_EQ(m->sensor_dim[ws], 6);
  DataPtr d(mj_makeData(m.get()));
  double fz_max = 0;
  for (int k = 0; k < 150; k++) {
    mj_step(m.get(), d.get());
    mj_forward(m.get(), d.get());
    auto g = GrainsOf(m.get(), d.get());
    const mjtNum* s = d->sensordata + m->sensor_adr[ws];
    ASSERT_EQ(std::memcmp(s, g.wrench(box), 6 * sizeof(mjtNum)), 0) << "step " << k;
    fz_max = std::max(fz_max, static_cast<double>(s[2]));
  }
  // the box landed on the sand: the grains pushed it up
  EXPECT_GT(fz_max, 0.0);
  std::printf("largest upward granular force on the box %.4f N (weight %.4f N)\n", fz_max,
              m->body_subtreemass[box] * 9.81);
}

TEST(Sensors, TerrainAndBodyByConfigKeys) {
  std::string sensor =
      "<plugin name=\"wrench\" plugin=\"mjgranular.wrench\"><config key=\"terrain\" "
      "value=\"sand\"/><config key=\"body\" value=\"box\"/></plugin>";
  std::string error;
  auto m = LoadXml(SensorXml(Config({{"terrain", "sand"}, {"region", "-0.04 -0.04 0.04 0.04"},
                                     {"size", "3 2"}}),
                             sensor),
                   &error);
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(m->sensor_dim[mj_name2id(m.get(), mjOBJ_SENSOR, "height")], 6);
}

}  // namespace
