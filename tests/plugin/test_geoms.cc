// plugin/geoms.c through MuJoCo: mesh vertices are in the geom frame after compiling (what the
// mesh grids rely on), meshes hold grains as world boundaries and as parts of bodies in any pose,
// a grid too fine for a mesh is refused naming sdf_cell, a grid is built once per process for each
// mesh and spacing, and the scoop scene loads.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
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
using mjg_test::TerrainXml;

// an irregular convex polytope well away from its own origin (so mujoco must move it to its
// centre of mass and turn it to its principal axes)
const char* kPolytope =
    "0.10 0.20 0.30  0.16 0.21 0.30  0.11 0.27 0.31  0.10 0.21 0.36  0.17 0.28 0.37  "
    "0.15 0.20 0.35  0.12 0.26 0.38";

TEST(Geoms, MeshVerticesAreInTheGeomFrame) {
  std::string xml =
      std::string("<mujoco><asset><mesh name=\"poly\" vertex=\"") + kPolytope + "\"/></asset>"
      "<worldbody><body pos=\"0.3 -0.2 0.5\" euler=\"20 -35 50\"><freejoint/>"
      "<geom type=\"mesh\" mesh=\"poly\" pos=\"0.01 0.02 -0.03\" euler=\"-10 5 80\"/>"
      "</body></worldbody></mujoco>";
  std::string error;
  auto m = LoadXml(xml, &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  mj_forward(m.get(), d.get());

  // where the MJCF puts each vertex: body frame, then geom pos and euler (degrees, xyz)
  mjtNum body_mat[9], geom_quat[4], geom_mat[9];
  mjtNum body_euler[3] = {20, -35, 50}, geom_euler[3] = {-10, 5, 80}, body_quat[4];
  for (int i = 0; i < 3; i++) {
    body_euler[i] *= mjPI / 180;
    geom_euler[i] *= mjPI / 180;
  }
  mju_euler2Quat(body_quat, body_euler, "xyz");
  mju_euler2Quat(geom_quat, geom_euler, "xyz");
  mju_quat2Mat(body_mat, body_quat);
  mju_quat2Mat(geom_mat, geom_quat);
  const mjtNum body_pos[3] = {0.3, -0.2, 0.5}, geom_pos[3] = {0.01, 0.02, -0.03};
  std::vector<std::array<double, 3>> expected;
  std::vector<double> v;
  for (double x : std::vector<double>{0.10, 0.20, 0.30, 0.16, 0.21, 0.30, 0.11, 0.27, 0.31, 0.10,
                                      0.21, 0.36, 0.17, 0.28, 0.37, 0.15, 0.20, 0.35, 0.12, 0.26,
                                      0.38}) {
    v.push_back(x);
  }
  for (size_t k = 0; k < v.size(); k += 3) {
    mjtNum in_geom[3] = {v[k], v[k + 1], v[k + 2]}, in_body[3], world[3];
    mju_mulMatVec3(in_body, geom_mat, in_geom);
    mju_addTo3(in_body, geom_pos);
    mju_mulMatVec3(world, body_mat, in_body);
    mju_addTo3(world, body_pos);
    expected.push_back({world[0], world[1], world[2]});
  }

  // the compiled mesh vertices through the geom's world pose land on those points
  ASSERT_EQ(m->nmesh, 1);
  ASSERT_GT(m->mesh_facenum[0], 0);
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[0];
  EXPECT_GT(mju_norm3(m->mesh_pos), 0.1);  // the compiler did move the mesh
  int found = 0;
  for (int i = 0; i < m->mesh_vertnum[0]; i++) {
    mjtNum local[3] = {vert[3 * i], vert[3 * i + 1], vert[3 * i + 2]}, world[3];
    mju_mulMatVec3(world, d->geom_xmat, local);
    mju_addTo3(world, d->geom_xpos);
    double best = 1e9;
    for (const auto& e : expected) {
      best = std::min(best, std::hypot(world[0] - e[0], world[1] - e[1], world[2] - e[2]));
    }
    EXPECT_LT(best, 1e-6) << "vertex " << i;
    found += best < 1e-6;
  }
  EXPECT_EQ(found, (int)expected.size());
}

// faces of an axis-aligned box mesh with corners lo, hi (outward normals)
std::string BoxMesh(const char* name, const double lo[3], const double hi[3]) {
  char buf[1024];
  std::snprintf(buf, sizeof(buf),
                "<mesh name=\"%s\" vertex=\"%g %g %g %g %g %g %g %g %g %g %g %g "
                "%g %g %g %g %g %g %g %g %g %g %g %g\" "
                "face=\"0 2 1 1 2 3 4 5 6 5 7 6 0 1 4 1 5 4 2 6 3 3 6 7 "
                "0 4 2 2 4 6 1 3 5 3 7 5\"/>",
                name, lo[0], lo[1], lo[2], hi[0], lo[1], lo[2], lo[0], hi[1], lo[2], hi[0], hi[1],
                lo[2], lo[0], lo[1], hi[2], hi[0], lo[1], hi[2], lo[0], hi[1], hi[2], hi[0],
                hi[1], hi[2]);
  return buf;
}

// the lowest grain above the footprint |x|, |y| < half, and the lowest grain elsewhere
void LowestGrains(const mjModel* m, mjData* d, double half, double* inside, double* outside) {
  auto g = GrainsOf(m, d);
  *inside = *outside = 1e9;
  for (int i = 0; i < g.n(); i++) {
    const mjtNum* p = g.pos(i);
    bool over = std::fabs(p[0]) < half && std::fabs(p[1]) < half;
    double& z = over ? *inside : *outside;
    z = std::min(z, (double)p[2]);
  }
}

TEST(Geoms, MeshesHoldGrainsInAnyPose) {
  // a mesh slab 6 cm square, its vertices given off-centre (2 cm to 8 cm), placed by a body pose
  // turned 30 degrees about z so its footprint is centred on the origin; it holds the grains
  // poured on it 2 cm above the floor, and the grains that miss it fall to the floor. The same
  // slab as a world geom does the same.
  const double lo[3] = {0.02, 0.02, 0.0}, hi[3] = {0.08, 0.08, 0.02}, r = 0.004;
  const double c = std::cos(mjPI / 6), s = std::sin(mjPI / 6);
  // the slab centre (0.05, 0.05) turned by 30 degrees, moved to the origin
  double cx = c * 0.05 - s * 0.05, cy = s * 0.05 + c * 0.05;
  char pose[256];
  std::snprintf(pose, sizeof(pose), "pos=\"%g %g 0\" euler=\"0 0 30\"", -cx, -cy);
  const std::string asset = "<asset>" + BoxMesh("slab", lo, hi) + "</asset>";
  const std::string where[2] = {
      std::string("<body name=\"table\" ") + pose + "><geom type=\"mesh\" mesh=\"slab\"/></body>",
      std::string("<geom type=\"mesh\" mesh=\"slab\" ") + pose + "/>"};
  for (int k = 0; k < 2; k++) {
    std::string xml = TerrainXml(
        {{"fill", "-0.035 -0.035 0.03  0.035 0.035 0.05"}, {"radius", "0.004"}},
        "<geom type=\"plane\" size=\"1 1 0.1\"/>" + where[k]);
    xml.insert(xml.find("<extension>"), asset);
    std::string error;
    auto m = LoadXml(xml, &error);
    ASSERT_TRUE(m) << error;
    DataPtr d(mj_makeData(m.get()));
    for (int i = 0; i < 150; i++) mj_step(m.get(), d.get());
    double inside, outside;
    // the inner 2 cm of the footprint (the slab is a 3 cm half-width square, turned)
    LowestGrains(m.get(), d.get(), 0.02, &inside, &outside);
    EXPECT_GT(inside, 0.02 + 0.9 * r) << (k ? "world geom" : "body geom");
    EXPECT_LT(inside, 0.02 + 1.2 * r) << (k ? "world geom" : "body geom");
    EXPECT_LT(outside, 1.2 * r) << (k ? "world geom" : "body geom");
  }
}

// mesh grids built so far in this process, read from the library
long long GridBuilds() { return mjg_test::LibraryCount("mjgranular_grid_builds"); }

// a bed over a world mesh slab 4 cm square with its far corner at (far, far) (each test its own,
// so that its mesh is new to the process), grids `cell` apart
std::string SlabXml(double far, const std::string& cell) {
  const double lo[3] = {-0.02, -0.02, 0.0}, hi[3] = {far, far, 0.01};
  std::string xml = TerrainXml(
      {{"fill", "-0.015 -0.015 0.02  0.015 0.015 0.04"}, {"radius", "0.004"}, {"sdf_cell", cell}},
      "<geom type=\"plane\" size=\"1 1 0.1\"/><geom type=\"mesh\" mesh=\"slab\"/>");
  xml.insert(xml.find("<extension>"), "<asset>" + BoxMesh("slab", lo, hi) + "</asset>");
  return xml;
}

TEST(Geoms, AMeshGridIsBuiltOncePerProcessAndShared) {
  const long long before = GridBuilds();
  ASSERT_GE(before, 0) << "mjgranular_grid_builds not exported";
  std::string error;
  auto m = LoadXml(SlabXml(0.021, "0.002"), &error);  // compiling makes an mjData: builds it
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(GridBuilds(), before + 1);
  DataPtr a(mj_makeData(m.get())), b(mj_makeData(m.get()));
  EXPECT_EQ(GridBuilds(), before + 1) << "a new mjData built the grid again";
  for (int i = 0; i < 50; i++) {
    mj_step(m.get(), a.get());
    mj_step(m.get(), b.get());
  }
  EXPECT_EQ(StateCopy(m.get(), a.get()), StateCopy(m.get(), b.get()));
  // the same mesh in a model compiled again: found; another spacing or mesh is another grid
  auto again = LoadXml(SlabXml(0.021, "0.002"));
  EXPECT_EQ(GridBuilds(), before + 1);
  auto finer = LoadXml(SlabXml(0.021, "0.001"));
  auto other = LoadXml(SlabXml(0.022, "0.002"));
  ASSERT_TRUE(again && finer && other);
  EXPECT_EQ(GridBuilds(), before + 3);
}

TEST(Geoms, ThreadsCompilingAMeshAtOnceBuildItsGridOnce) {
  const long long before = GridBuilds();
  auto states = mjg_test::StatesOfThreadsCompiling(SlabXml(0.023, "0.002"), 4, 20);
  EXPECT_EQ(GridBuilds(), before + 1);
  for (size_t t = 0; t < states.size(); t++) {
    ASSERT_FALSE(states[t].empty()) << "thread " << t;
    EXPECT_EQ(states[t], states[0]) << "thread " << t;
  }
}

TEST(Geoms, GridTooFineForAMeshIsRefusedNamingSdfCell) {
  const double lo[3] = {0, 0, 0}, hi[3] = {0.5, 0.5, 0.5};
  std::string xml = TerrainXml(
      {{"fill", "-0.02 -0.02 0.6  0.02 0.02 0.64"}, {"radius", "0.004"}, {"sdf_cell", "0.0005"}},
      "<body name=\"big\"><freejoint/><geom type=\"mesh\" mesh=\"big\"/></body>");
  xml.insert(xml.find("<extension>"), "<asset>" + BoxMesh("big", lo, hi) + "</asset>");
  std::string error;
  auto m = LoadXml(xml, &error);
  EXPECT_FALSE(m);
  EXPECT_NE(error.find("'sdf_cell'"), std::string::npos) << error;
  EXPECT_NE(error.find("'big'"), std::string::npos) << error;
}

TEST(Geoms, ScoopModelLoadsAndItsMeshPushesGrains) {
  // the scoop mesh (scripts/examples/make_scoop.py) gets its grid when the model loads; driven into
  // the bed it pushes the grains and feels them
  mjg_test::LoadPlugin();
  char err[1024] = "";
  auto t0 = std::chrono::steady_clock::now();
  ModelPtr m(mj_loadXML(MJGRANULAR_MODELS_DIR "/scoop.xml", nullptr, err, sizeof(err)));
  ASSERT_TRUE(m) << err;
  DataPtr d(mj_makeData(m.get()));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("load_and_make_data_seconds", std::to_string(seconds));
  EXPECT_LT(seconds, 5.0);
  ASSERT_EQ(m->nmesh, 1);
  ASSERT_GE(m->nkey, 1);
  auto g = GrainsOf(m.get(), d.get());
  EXPECT_GT(g.n(), 2000);
  EXPECT_LT(g.n(), 6000);

  // settle briefly, then drive the scoop forward at 0.2 m/s through the bed
  for (int k = 0; k < 50; k++) mj_step(m.get(), d.get());
  int scoop = mj_name2id(m.get(), mjOBJ_BODY, "scoop");
  double peak = 0;
  for (int k = 0; k < 100; k++) {
    // the servo's filtered target (its activation) and its input, moved together
    d->ctrl[0] = d->act[0] = 0.2 * k * m->opt.timestep;
    mj_step(m.get(), d.get());
    peak = std::max(peak, -g.wrench(scoop)[0]);
  }
  EXPECT_GT(d->qpos[0], 0.02);
  EXPECT_GT(peak, 0.05);  // the grains resist the push (force along -x)
  for (int i = 0; i < g.n(); i++) ASSERT_TRUE(std::isfinite(g.pos(i)[2]));
}

// a grain rolling on a floor at v0 (spin v0 / r, no slip): a floor of the default condim 3 is as
// rough as the grains (rolling resistance rolling_friction r, so it stops after 7 v0^2 / (10 mu_r
// g), 3.6 mm at 0.1 m/s and mu_r 0.2); with condim 6 the floor's own rolling friction applies,
// here 0: it rolls on (1 s: 0.1 m)
TEST(Geoms, FloorRollingResistanceFollowsItsCondim) {
  const double v0 = 0.1, r = 0.004, mu_r = 0.2, g = 9.81;
  for (const char* floor : {"", "condim=\"6\" friction=\"0.5 0 0\""}) {
    SCOPED_TRACE(floor);
    std::string world = std::string("<geom type=\"plane\" size=\"1 1 0.1\" ") + floor + "/>";
    auto m = LoadXml(TerrainXml({{"count", "1"}, {"radius", "0.004"}, {"rolling_friction", "0.2"},
                                 {"backend", "cpu"}}, world));
    ASSERT_TRUE(m);
    DataPtr d(mj_makeData(m.get()));
    auto grains = GrainsOf(m.get(), d.get());
    grains.state[0] = 1;
    grains.pos(0)[2] = r;
    grains.vel(0)[0] = v0;
    grains.angvel(0)[1] = v0 / r;  // rolling along +x: w = y v / r
    for (int k = 0; k < 500; k++) mj_step(m.get(), d.get());  // 1 s
    double travel = grains.pos(0)[0];
    if (!floor[0]) {
      EXPECT_NEAR(travel, 7 * v0 * v0 / (10 * mu_r * g), 0.03 * 7 * v0 * v0 / (10 * mu_r * g));
    } else {
      EXPECT_NEAR(travel, v0 * 1.0, 0.01 * v0);
    }
    std::printf("[ measure  ] floor %s: rolled %.5f m in 1 s\n", floor[0] ? floor : "(condim 3)",
                travel);
  }
}

}  // namespace
