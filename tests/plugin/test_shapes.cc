// key shape through MuJoCo: grains shaped like MJCF meshes (rigid clumps of spheres), mixed with
// spheres, against what holds independently of the solver:
// - bad shape, shape_mix, clump_spheres and the keys mesh grains need are refused naming the key;
// - a bed's grain types follow shape_mix within binomial bounds, each type's radius is its bound
//   (a cube's: half its diagonal) and mesh grains start in random orientations;
// - cubes dropped apart come to rest on a face: the four lowest corners of each cube's mesh,
//   placed by the grain's pose, lie as high above the floor as the fitted spheres reach out of
//   the cube's faces (0.08 half side), the other four a side above those (pj and dem), and the
//   height map reads the tops of their spheres above their top faces (not the tops of their
//   bounding spheres);
// - a step from a copied state is bit for bit the step from the original; a reset writes the
//   initial bed again;
// - the viewer draws each mesh grain as its mesh, placed so that the mesh's centroid is the
//   grain's centre of mass, and each sphere as a sphere;
// - a grain's type or orientation that the step cannot use is refused naming the grain;
// - shape sphere, said or not, is the same bed and the same steps bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "mjg_test_util.h"

extern "C" {
#include "grain_types.h"
}

namespace {

using mjg_test::DataPtr;
using mjg_test::LoadXml;
using mjg_test::ModelPtr;

const double kHalf = 0.005;  // half the side of the test cube [m]
const int kSpheres = 8;      // spheres per cube clump in these tests (key clump_spheres)

// a cube mesh of half side kHalf (vertices only: mujoco makes the hull)
std::string CubeAsset() {
  std::string v;
  for (int i = 0; i < 8; i++) {
    for (int a = 0; a < 3; a++) v += ((i >> a) & 1 ? "0.005 " : "-0.005 ");
  }
  return "<asset><mesh name=\"cube\" vertex=\"" + v + "\"/></asset>";
}

// a terrain of the given keys, the cube mesh as an asset, a floor and walls around [-h, h]^2, and
// extra MJCF after the world body
std::string ShapeXml(std::map<std::string, std::string> config, double h = 0.05,
                     const std::string& extra = "") {
  if (!config.count("clump_spheres")) config["clump_spheres"] = std::to_string(kSpheres);
  std::string xml = mjg_test::TerrainXml(config, mjg_test::WalledBox(h),
                                         "<option timestep=\"0.002\"/>" + CubeAsset());
  return xml.insert(xml.rfind("</mujoco>"), extra);
}

// a height map of kCells x kCells 1 cm cells over [-0.09, 0.09]^2, empty cells at the floor (0)
const int kCells = 18;
const char* kHeightMap =
    "<extension><plugin plugin=\"mjgranular.heightmap\"><instance name=\"hm\">"
    "<config key=\"region\" value=\"-0.09 -0.09 0.09 0.09\"/>"
    "<config key=\"size\" value=\"18 18\"/></instance></plugin></extension>"
    "<sensor><plugin name=\"height\" instance=\"hm\"/></sensor>";

// the message of a model that fails to load
std::string LoadError(const std::map<std::string, std::string>& config) {
  std::string error;
  ModelPtr m = LoadXml(ShapeXml(config), &error);
  EXPECT_FALSE(m) << "loaded";
  return error;
}

TEST(Shapes, BadShapesAreRefusedNamingTheKey) {
  const std::map<std::string, std::string> base = {
      {"fill", "-0.04 -0.04 0.01 0.04 0.04 0.05"}, {"count", "400"}};
  struct Bad {
    std::map<std::string, std::string> keys;
    std::vector<std::string> says;
  };
  const Bad bad[] = {
      {{{"shape", "cube rock"}}, {"'shape'", "'rock'", "neither 'sphere' nor"}},
      {{{"shape", "cube cube"}}, {"'shape'", "'cube' twice"}},
      {{{"shape", "cube sphere"}, {"shape_mix", "0.5 0.6"}}, {"'shape_mix'", "sum to 1"}},
      {{{"shape", "cube sphere"}, {"shape_mix", "1"}}, {"'shape_mix'", "2 numbers"}},
      {{{"shape", "cube sphere"}, {"shape_mix", "-0.5 1.5"}}, {"'shape_mix'", ">= 0"}},
      {{{"shape", "cube"}, {"radius", "0.003 0.005"}}, {"'radius'", "one radius"}},
      {{{"shape", "cube"}, {"model", "pbd"}}, {"'shape'", "pbd"}},
      {{{"shape", "cube"}, {"clump_spheres", "0"}}, {"'clump_spheres'"}},
      {{{"shape", "cube"}, {"clump_spheres", "1025"}}, {"'clump_spheres'"}},
      {{{"shape", "cube"}, {"fill", "-0.004 -0.004 0 0.004 0.004 0.1"}},
       {"'fill'", "thinner than one grain"}},
      {{{"shape", "cube"}, {"count", "3"}}, {"'fill'", "more than key 'count'"}},
  };
  for (const Bad& b : bad) {
    std::map<std::string, std::string> keys = base;
    for (const auto& [k, v] : b.keys) keys[k] = v;
    std::string error = LoadError(keys);
    for (const std::string& s : b.says) {
      EXPECT_NE(error.find(s), std::string::npos) << "'" << s << "' not in: " << error;
    }
  }
  // with meshes the capacity must be given: mujoco sizes plugin_state before it compiles them
  std::string error = LoadError({{"fill", "-0.04 -0.04 0.01 0.04 0.04 0.05"}, {"shape", "cube"}});
  EXPECT_NE(error.find("'count' is missing"), std::string::npos) << error;
}

// a loaded shape model and its data after reset
struct Scene {
  ModelPtr m;
  DataPtr d;
  mjg_test::Grains g;
  explicit Scene(const std::map<std::string, std::string>& config, double h = 0.05,
                 const std::string& extra = "") {
    std::string error;
    m = LoadXml(ShapeXml(config, h, extra), &error);
    EXPECT_TRUE(m) << error;
    if (!m) return;
    d = DataPtr(mj_makeData(m.get()));
    bool meshes = config.count("shape") && config.at("shape").find("cube") != std::string::npos;
    g = mjg_test::GrainsOf(m.get(), d.get(), meshes ? kSpheres : 1);
  }
  void Step(int n) {
    for (int i = 0; i < n; i++) mj_step(m.get(), d.get());
  }
};

TEST(Shapes, TypesFollowShapeMixAndMeshGrainsStartTurned) {
  Scene s({{"fill", "-0.15 -0.15 0.01 0.15 0.15 0.15"}, {"count", "2000"},
           {"shape", "sphere cube"}, {"shape_mix", "0.25 0.75"}, {"radius", "0.004"}},
          0.16);
  ASSERT_TRUE(s.m);
  int n = s.g.n(), spheres = 0;
  ASSERT_GT(n, 400);
  std::vector<double> first;
  int turned = 0;
  for (int i = 0; i < n; i++) {
    mjtNum type = *s.g.type(i), *q = s.g.orient(i);
    ASSERT_TRUE(type == 0 || type == 1) << type;
    EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1, 1e-6);
    if (type == 0) {
      spheres++;
      EXPECT_EQ(*s.g.radius(i), 0.004f);
    } else {
      EXPECT_NEAR(*s.g.radius(i), kHalf * std::sqrt(3.0), 1e-6);
      turned += std::fabs(q[0]) < 0.99;
    }
  }
  // binomial: mean n / 4, standard deviation sqrt(n 3/16); four of them
  double sd = std::sqrt(n * 3.0 / 16);
  EXPECT_NEAR(spheres, n / 4.0, 4 * sd) << n << " grains";
  EXPECT_GT(turned, (n - spheres) * 9 / 10);
}

// the geoms the viewer draws for the grains after d's state
std::vector<mjvGeom> GrainGeoms(const mjModel* m, mjData* d) {
  mjvOption opt;
  mjvCamera cam;
  mjv_defaultOption(&opt);
  mjv_defaultCamera(&cam);
  mjvScene scn;
  mjv_defaultScene(&scn);
  mjv_makeScene(m, &scn, 20000);
  mjv_updateScene(m, d, &opt, nullptr, &cam, mjCAT_ALL, &scn);
  std::vector<mjvGeom> out;
  for (int i = 0; i < scn.ngeom; i++) {
    if (scn.geoms[i].category == mjCAT_DECOR && scn.geoms[i].objid == -1 &&
        (scn.geoms[i].type == mjGEOM_MESH || scn.geoms[i].type == mjGEOM_SPHERE)) {
      out.push_back(scn.geoms[i]);
    }
  }
  mjv_freeScene(&scn);
  return out;
}

// mesh vertex v placed by geom g
void PlaceVertex(const mjModel* m, const mjvGeom& g, int v, double out[3]) {
  int mesh = g.dataid / 2;
  const float* x = m->mesh_vert + 3 * (m->mesh_vertadr[mesh] + v);
  for (int r = 0; r < 3; r++) {
    out[r] = g.pos[r];
    for (int c = 0; c < 3; c++) out[r] += g.mat[3 * r + c] * x[c];
  }
}

TEST(Shapes, DrawsMeshGrainsAsTheirMeshes) {
  Scene s({{"fill", "-0.04 -0.04 0.01 0.04 0.04 0.06"}, {"count", "200"},
           {"shape", "cube sphere"}, {"radius", "0.004"}});
  ASSERT_TRUE(s.m);
  s.Step(20);
  std::vector<mjvGeom> geoms = GrainGeoms(s.m.get(), s.d.get());
  ASSERT_EQ((int)geoms.size(), s.g.n());
  int mesh = mj_name2id(s.m.get(), mjOBJ_MESH, "cube");
  for (int i = 0; i < s.g.n(); i++) {
    const mjvGeom& g = geoms[i];
    if (*s.g.type(i) == 1) {
      ASSERT_EQ(g.type, mjGEOM_SPHERE);
      EXPECT_NEAR(g.size[0], 0.004, 1e-7);
      for (int a = 0; a < 3; a++) EXPECT_NEAR(g.pos[a], s.g.pos(i)[a], 1e-6);
      continue;
    }
    ASSERT_EQ(g.type, mjGEOM_MESH);
    EXPECT_EQ(g.dataid, 2 * mesh);
    // the cube's vertex centroid is its centre of mass
    double c[3] = {0, 0, 0}, x[3];
    int nv = s.m->mesh_vertnum[mesh];
    ASSERT_EQ(nv, 8);
    for (int v = 0; v < nv; v++) {
      PlaceVertex(s.m.get(), g, v, x);
      for (int a = 0; a < 3; a++) c[a] += x[a] / nv;
    }
    for (int a = 0; a < 3; a++) EXPECT_NEAR(c[a], s.g.pos(i)[a], 1e-6) << "grain " << i;
  }
}

// how far the spheres of the grain type of mesh `name` (clump_spheres kSpheres) reach out of the
// planes of its mesh's faces [m], the least and the most over the faces
void FaceBulge(const mjModel* m, const char* name, double* least, double* most) {
  mjgGrainTypes types;
  char msg[512];
  ASSERT_EQ(mjg_grain_types_build(m, &name, 1, 2500, kSpheres, &types, msg, sizeof(msg)), 0)
      << msg;
  const mjgGrainType& t = types.type[0];
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[t.mesh];
  const int* face = m->mesh_face + 3 * m->mesh_faceadr[t.mesh];
  *least = INFINITY;
  *most = -INFINITY;
  for (int f = 0; f < m->mesh_facenum[t.mesh]; f++) {
    double p[3][3], e1[3], e2[3], n[3];
    for (int k = 0; k < 3; k++) mju_f2n(p[k], vert + 3 * face[3 * f + k], 3);
    mju_sub3(e1, p[1], p[0]);
    mju_sub3(e2, p[2], p[0]);
    mju_cross(n, e1, e2);
    mju_normalize3(n);
    double bulge = -INFINITY;
    for (int s = 0; s < t.nsphere; s++) {
      // the sphere's centre in mesh_vert's frame: the body frame's pose there
      double c[3], q[4], x[3];
      mju_f2n(c, t.sphere + 4 * s, 3);
      mju_copy4(q, t.quat);
      mju_rotVecQuat(x, c, q);
      mju_addTo3(x, t.pos);
      bulge = std::max(bulge, mju_dot3(n, x) - mju_dot3(n, p[0]) + t.sphere[4 * s + 3]);
    }
    *least = std::min(*least, bulge);
    *most = std::max(*most, bulge);
  }
  mjg_grain_types_free(&types);
}

TEST(Shapes, DroppedCubesRestOnAFace) {
  for (const char* model : {"pj", "dem"}) {
    SCOPED_TRACE(model);
    // one layer, 6 bounding radii apart: cubes that topple and bounce meet no other (at 4, dem's
    // bounces let a few come to lean on a neighbour or a wall)
    Scene s({{"fill", "-0.09 -0.09 0.002 0.09 0.09 0.022"}, {"count", "100"}, {"shape", "cube"},
             {"spacing", "6"}, {"model", model}, {"friction", "0.5"}},
            0.1, kHeightMap);
    ASSERT_TRUE(s.m);
    ASSERT_GT(s.g.n(), 9);
    s.Step(1250);  // 2.5 s
    std::vector<mjvGeom> geoms = GrainGeoms(s.m.get(), s.d.get());
    ASSERT_EQ((int)geoms.size(), s.g.n());
    double least = NAN, most = NAN;
    FaceBulge(s.m.get(), "cube", &least, &most);
    std::printf("  the spheres reach %.3f to %.3f half sides out of the faces\n", least / kHalf,
                most / kHalf);
    int hs = mj_name2id(s.m.get(), mjOBJ_SENSOR, "height");
    ASSERT_GE(hs, 0);
    const mjtNum* height = s.d->sensordata + s.m->sensor_adr[hs];
    std::vector<int> centres(kCells * kCells, 0);
    for (int i = 0; i < s.g.n(); i++) {
      std::vector<double> z;
      for (int v = 0; v < 8; v++) {
        double x[3];
        PlaceVertex(s.m.get(), geoms[i], v, x);
        z.push_back(x[2]);
      }
      std::sort(z.begin(), z.end());
      // four corners as high above the floor as the spheres reach out of the face below them,
      // four a side higher (to a fiftieth of the half side: the contacts' overlap, and a face's
      // tilt on its spheres)
      for (int v = 0; v < 4; v++) {
        EXPECT_GE(z[v], least - 0.02 * kHalf) << "grain " << i;
        EXPECT_LE(z[v], most + 0.02 * kHalf) << "grain " << i;
        EXPECT_NEAR(z[v + 4] - z[v], 2 * kHalf, 0.02 * kHalf) << "grain " << i;
      }
      EXPECT_LT(mju_norm3(s.g.vel(i)), 1e-3) << "grain " << i;
      // the height map's cell of its centre: the top face and as far as the spheres reach out of
      // it (the one cube there)
      int cx = (int)std::floor((s.g.pos(i)[0] + 0.09) / 0.01);
      int cy = (int)std::floor((s.g.pos(i)[1] + 0.09) / 0.01);
      if (cx < 0 || cx >= kCells || cy < 0 || cy >= kCells) continue;
      int c = cy * kCells + cx;
      centres[c]++;
      EXPECT_GE(height[c], z[7] + least - 0.02 * kHalf) << "grain " << i;
      EXPECT_LE(height[c], z[4] + most + 0.02 * kHalf) << "grain " << i;
    }
    for (int c = 0; c < kCells * kCells; c++) {
      if (!centres[c]) {
        EXPECT_EQ(height[c], 0) << "cell " << c;  // the floor
      }
      EXPECT_LE(centres[c], 1) << "cell " << c;
    }
  }
}

TEST(Shapes, CopiedStateStepsBitForBitAndResetWritesTheBed) {
  Scene s({{"fill", "-0.04 -0.04 0.01 0.04 0.04 0.06"}, {"count", "200"},
           {"shape", "cube sphere"}, {"radius", "0.004"}});
  ASSERT_TRUE(s.m);
  std::vector<mjtNum> initial = mjg_test::StateCopy(s.m.get(), s.d.get());
  s.Step(30);
  DataPtr copy(mj_copyData(nullptr, s.m.get(), s.d.get()));
  s.Step(30);
  for (int i = 0; i < 30; i++) mj_step(s.m.get(), copy.get());
  std::vector<mjtNum> a = mjg_test::StateCopy(s.m.get(), s.d.get());
  std::vector<mjtNum> b = mjg_test::StateCopy(s.m.get(), copy.get());
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(mjtNum)), 0);
  EXPECT_NE(std::memcmp(a.data(), initial.data(), a.size() * sizeof(mjtNum)), 0);
  mj_resetData(s.m.get(), s.d.get());
  std::vector<mjtNum> reset = mjg_test::StateCopy(s.m.get(), s.d.get());
  EXPECT_EQ(std::memcmp(reset.data(), initial.data(), reset.size() * sizeof(mjtNum)), 0);
}

// a mesh grain's state the step cannot use is refused with one warning naming the grain and what
// is wrong, the state left as it was
TEST(Shapes, AStateWithABadTypeOrOrientationIsRefusedSayingWhy) {
  struct Bad {
    const char* what;
    void (*apply)(const mjg_test::Grains& g);
    std::vector<std::string> says;
  };
  const Bad bad[] = {
      {"a type past the types", [](const mjg_test::Grains& g) { *g.type(3) = 2; },
       {"type of grain 3", "2 grain types"}},
      {"a type between two", [](const mjg_test::Grains& g) { *g.type(1) = 0.5; },
       {"type of grain 1"}},
      {"an orientation not of norm 1", [](const mjg_test::Grains& g) { g.orient(2)[0] = 3; },
       {"orientation of grain 2"}},
  };
  for (const Bad& b : bad) {
    Scene s({{"fill", "-0.04 -0.04 0.01 0.04 0.04 0.06"}, {"count", "200"},
             {"shape", "cube sphere"}, {"radius", "0.004"}});
    ASSERT_TRUE(s.m);
    b.apply(s.g);
    std::vector<mjtNum> before = mjg_test::StateCopy(s.m.get(), s.d.get());
    mjg_test::WarningCapture warnings;
    s.Step(1);
    EXPECT_EQ(warnings.Messages().size(), 1u) << b.what << ":\n" << warnings.All();
    for (const std::string& text : b.says) {
      EXPECT_NE(warnings.All().find(text), std::string::npos)
          << b.what << ": the warning does not say " << text << ":\n" << warnings.All();
    }
    EXPECT_EQ(mjg_test::StateCopy(s.m.get(), s.d.get()), before) << b.what;
  }
}

TEST(Shapes, ShapeSphereIsTheBedOfSpheres) {
  const std::map<std::string, std::string> keys = {{"fill", "-0.04 -0.04 0.01 0.04 0.04 0.05"},
                                                   {"radius", "0.004"}};
  std::map<std::string, std::string> said = keys;
  said["shape"] = "sphere";
  Scene plain(keys), sphere(said);
  ASSERT_TRUE(plain.m && sphere.m);
  plain.Step(50);
  sphere.Step(50);
  std::vector<mjtNum> a = mjg_test::StateCopy(plain.m.get(), plain.d.get());
  std::vector<mjtNum> b = mjg_test::StateCopy(sphere.m.get(), sphere.d.get());
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(mjtNum)), 0);
}

}  // namespace
