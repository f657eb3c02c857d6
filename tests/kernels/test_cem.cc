// configuration-space contact fields (grn_cem.h, cem_file.h): a net's gradient against central
// differences; fields files read and bad ones refused; the packed fields give one contact whatever
// the order of the solver's types and whichever grain of a pair asks; the fields' grains meet
// only through their bounds, their spheres only the shapes; two grains meeting by their fields
// keep linear and angular momentum. The fitted fields of a real pair (a cube with itself) against
// the cube's exact geometry: tests/kernels/test_cem_cube.cc.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cem_file.h"
#include "granular.h"
#include "grn_cem.h"
#include "grn_cem_util.h"
#include "grn_test_util.h"

namespace {

using grn_cem_test::FileBytes;
using grn_cem_test::FilePair;
using grn_cem_test::FileType;
using grn_cem_test::Net;
using grn_cem_test::OctahedronNet;
using grn_cem_test::WriteTemp;
using grn_cem_test::ZeroArmNet;
using grn_test::MakeSolver;
using grn_test::SolverPtr;

// the file of bytes read, or a failed test with the reader's message
grnCemFile ReadOk(const std::string& bytes, const char* tag) {
  grnCemFile f;
  char why[256];
  EXPECT_EQ(grn_cem_file_read(WriteTemp(bytes, tag).c_str(), &f, why, sizeof(why)), 0) << why;
  return f;
}

// the field array for solver types mapped to the file's types, with frames
std::vector<float> Pack(const grnCemFile& f, const std::vector<int>& file_type,
                        const std::vector<grnCemFrame>& frame) {
  long long n = grn_cem_pack(&f, (int)file_type.size(), file_type.data(), frame.data(), nullptr);
  EXPECT_GT(n, 0) << "a pair of types with fields lacks its fields";
  if (n <= 0) return {};
  std::vector<float> out((size_t)n);
  grn_cem_pack(&f, (int)file_type.size(), file_type.data(), frame.data(), out.data());
  return out;
}

grnCemFrame Frame(float px, float py, float pz, float qw, float qx, float qy, float qz, float r) {
  grnCemFrame fr = {{px, py, pz}, {qw, qx, qy, qz}, r};
  float n = std::sqrt(qw * qw + qx * qx + qy * qy + qz * qz);
  for (float& q : fr.quat) q /= n;
  return fr;
}

TEST(Cem, NetGradientMatchesCentralDifferences) {
  std::mt19937 rng(7);
  Net net = Net::Random({GRN_CEM_INPUTS, 24, 24, 1}, &rng, 0.4f);
  std::vector<float> packed = net.Packed();
  std::uniform_real_distribution<float> u(-1, 1);
  for (int trial = 0; trial < 20; trial++) {
    float x[GRN_CEM_INPUTS], grad[GRN_CEM_INPUTS], y;
    for (float& v : x) v = u(rng);
    grn_cem_net_eval(packed.data(), x, &y, grad, INFINITY);
    for (int k = 0; k < GRN_CEM_INPUTS; k++) {
      const float h = 1e-2f;
      float xp[GRN_CEM_INPUTS], xm[GRN_CEM_INPUTS], yp, ym;
      std::memcpy(xp, x, sizeof(x));
      std::memcpy(xm, x, sizeof(x));
      xp[k] += h;
      xm[k] -= h;
      grn_cem_net_eval(packed.data(), xp, &yp, nullptr, 0);
      grn_cem_net_eval(packed.data(), xm, &ym, nullptr, 0);
      EXPECT_NEAR(grad[k], (yp - ym) / (2 * h), 2e-3) << "trial " << trial << " input " << k;
    }
  }
}

TEST(Cem, FilesAreReadAndBadOnesRefused) {
  std::mt19937 rng(3);
  std::vector<FileType> types = {{"a", 11, 0.01f}, {"b", 22, 0.02f}};
  FilePair p = {0, 1, 0.03f, Net::Random({GRN_CEM_INPUTS, 8, 1}, &rng, 0.5f),
                Net::Random({GRN_CEM_INPUTS, 8, 2}, &rng, 0.5f)};
  std::string good = FileBytes(types, {p});
  grnCemFile f = ReadOk(good, "good");
  ASSERT_EQ(f.ntype, 2);
  ASSERT_EQ(f.npair, 1);
  EXPECT_STREQ(f.name[1], "b");
  EXPECT_EQ(f.fingerprint[1], 22u);
  EXPECT_EQ(f.bound[0], 0.01f);
  EXPECT_EQ(f.pair[0].scale, 0.03f);
  ASSERT_EQ(f.pair[0].arm.nnumber, (int)p.arm.numbers.size());
  EXPECT_EQ(std::memcmp(f.pair[0].arm.numbers, p.arm.numbers.data(), 4 * p.arm.numbers.size()),
            0);
  grn_cem_file_free(&f);

  // each defect refused with its cause
  FilePair wide = p, nan = p, order = p, width = p;
  wide.distance = Net::Random({GRN_CEM_INPUTS, GRN_CEM_MAX_WIDTH + 1, 1}, &rng, 0.5f);
  nan.arm.numbers[3] = NAN;
  order.a = 1;
  order.b = 0;
  width.arm = Net::Random({GRN_CEM_INPUTS, 8, 3}, &rng, 0.5f);
  struct Case {
    std::string bytes;
    const char* cause;
  } cases[] = {
      {"MJGCEM03" + good.substr(8), "not a fields file"},
      {"MJGCEM01" + good.substr(8), "9-wide net input"},
      {good.substr(0, good.size() - 1), "ends early"},
      {good + "x", "bytes follow"},
      {FileBytes(types, {wide}), "width"},
      {FileBytes(types, {nan}), "not finite"},
      {FileBytes(types, {order}), "second type"},
      {FileBytes(types, {width}), "inputs or outputs"},
  };
  int k = 0;
  for (const Case& c : cases) {
    char why[256] = "";
    grnCemFile bad;
    std::string tag = "bad" + std::to_string(k++);
    EXPECT_EQ(grn_cem_file_read(WriteTemp(c.bytes, tag.c_str()).c_str(), &bad, why, sizeof(why)),
              -1) << c.cause;
    EXPECT_NE(std::strstr(why, c.cause), nullptr) << why;
  }
  char why[256];
  grnCemFile none;
  EXPECT_EQ(grn_cem_file_read("/nonexistent/x.cem", &none, why, sizeof(why)), -1);
  EXPECT_NE(std::strstr(why, "cannot be opened"), nullptr) << why;
}

// a pair of different types with fields that depend on the rotation, and frames off the centres
struct TwoTypes {
  std::vector<float> fields;     // solver types in file order
  std::vector<float> swapped;    // solver types in the other order
};

TwoTypes MakeTwoTypes() {
  std::mt19937 rng(11);
  std::vector<FilePair> pairs;
  for (int a = 0; a < 2; a++) {
    for (int b = a; b < 2; b++) {
      pairs.push_back({a, b, 0.02f, Net::Random({GRN_CEM_INPUTS, 16, 16, 1}, &rng, 0.5f),
                       Net::Random({GRN_CEM_INPUTS, 16, 2}, &rng, 0.5f)});
    }
  }
  grnCemFile f = ReadOk(FileBytes({{"x", 1, 0.01f}, {"y", 2, 0.01f}}, pairs), "two");
  grnCemFrame fx = Frame(0.001f, -0.002f, 0.0005f, 0.9f, 0.1f, -0.3f, 0.2f, 0.006f);
  grnCemFrame fy = Frame(-0.001f, 0.0f, 0.002f, 0.7f, -0.2f, 0.1f, 0.4f, 0.005f);
  TwoTypes t;
  t.fields = Pack(f, {0, 1}, {fx, fy});
  t.swapped = Pack(f, {1, 0}, {fy, fx});
  grn_cem_file_free(&f);
  return t;
}

void ExpectSame(const grnCemContact& a, const grnCemContact& b, float normal_sign) {
  EXPECT_EQ(a.depth, b.depth);
  EXPECT_EQ(a.n.x, normal_sign * b.n.x);
  EXPECT_EQ(a.n.y, normal_sign * b.n.y);
  EXPECT_EQ(a.n.z, normal_sign * b.n.z);
  EXPECT_EQ(a.point.x, b.point.x);
  EXPECT_EQ(a.point.y, b.point.y);
  EXPECT_EQ(a.point.z, b.point.z);
}

TEST(Cem, ContactDoesNotDependOnTypeOrderOrOnWhichGrainAsks) {
  TwoTypes t = MakeTwoTypes();
  ASSERT_FALSE(t.fields.empty() || t.swapped.empty());
  grnVec3 xa = grn_v3(0.01f, 0.02f, -0.01f), xb = grn_v3(0.018f, 0.015f, -0.004f);
  grnQuat qa = grn_quat_normalize(grn_quat(0.8f, 0.3f, -0.1f, 0.5f));
  grnQuat qb = grn_quat_normalize(grn_quat(0.2f, -0.6f, 0.7f, 0.1f));
  // grain a of file type x (solver type 0, or 1 when swapped), grain b of type y
  grnCemContact ab = grn_cem_contact(t.fields.data(), 0, xa, qa, 1, xb, qb, 0);
  grnCemContact ba = grn_cem_contact(t.fields.data(), 1, xb, qb, 0, xa, qa, 0);
  grnCemContact ab_swapped = grn_cem_contact(t.swapped.data(), 1, xa, qa, 0, xb, qb, 0);
  grnCemContact ba_swapped = grn_cem_contact(t.swapped.data(), 0, xb, qb, 1, xa, qa, 0);
  ExpectSame(ab, ba, -1);
  ExpectSame(ab, ab_swapped, 1);
  ExpectSame(ab, ba_swapped, -1);
  EXPECT_NEAR(grn_norm(ab.n), 1, 1e-6);
}

// a solver of two clump types that meet by fields: the eight-sphere cube of half side a led by
// its bound, and a plain sphere; fields: the octahedron net of the cube with itself
struct FieldSolver {
  SolverPtr solver;
  std::vector<float> cube;       // bound, then eight spheres
  std::vector<float> sphere;
  std::vector<float> fields;
  grnClumpType types[2];
};

constexpr float kSphere = 0.002f;  // [m]

FieldSolver MakeFieldSolver(float a, int max_clumps, float gravity) {
  FieldSolver fs;
  float bound = std::sqrt(3.0f) * a + kSphere;
  fs.cube = {0, 0, 0, bound};
  for (int k = -1; k <= 1; k += 2) {
    for (int j = -1; j <= 1; j += 2) {
      for (int i = -1; i <= 1; i += 2) {
        fs.cube.insert(fs.cube.end(), {i * a, j * a, k * a, kSphere});
      }
    }
  }
  fs.sphere = {0, 0, 0, kSphere};
  float side = 2 * (a + kSphere), mass = 2500 * side * side * side;
  float moment = mass * side * side / 6;
  fs.types[0] = {9, fs.cube.data(), mass, {moment, moment, moment}};
  float ms = 2500 * 4.0f / 3 * 3.14159265f * kSphere * kSphere * kSphere;
  float is = 0.4f * ms * kSphere * kSphere;
  fs.types[1] = {1, fs.sphere.data(), ms, {is, is, is}};
  // the cube's pair meets when |t|_1 < 2.2 a (t / L with L = 2 bound)
  float scale = 2 * bound;
  grnCemFile f = ReadOk(FileBytes({{"cube", 0, bound}},
                                  {{0, 0, scale, OctahedronNet(40, 2.2f * a / scale),
                                    ZeroArmNet()}}),
                        "octa");
  grnCemFrame identity = Frame(0, 0, 0, 1, 0, 0, 0, a + kSphere);
  fs.fields = Pack(f, {0, -1}, {identity, identity});
  grn_cem_file_free(&f);

  grnParams p;
  grn_default_params(&p);
  p.model = grnMODEL_DEM;
  p.radius = bound;
  p.capacity = 9 * max_clumps;
  p.max_clumps = max_clumps;
  p.cem_floats = (int)fs.fields.size();
  p.gravity[2] = gravity;
  p.dt = (float)(GRN_DEM_DT_FRACTION * grn_dem_time_scale(&p, kSphere));
  fs.solver = MakeSolver(p);
  EXPECT_EQ(grn_set_cem_fields(fs.solver.get(), fs.fields.data()), grnOK);
  return fs;
}

TEST(Cem, BoundsMeetOnlyBoundsAndSpheresOnlyShapesAndOtherGrains) {
  const float a = 0.004f;
  FieldSolver fs = MakeFieldSolver(a, 3, 0);
  // two cubes whose spheres overlap (they would touch as clumps) and a free sphere touching the
  // second cube's corner sphere
  int type[3] = {0, 0, 1};
  float x[9] = {0, 0, 0, 2 * a + 1.5f * kSphere, 0, 0, 3 * a + 1.5f * kSphere, a, a};
  float q[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  ASSERT_EQ(grn_set_clumps(fs.solver.get(), fs.types, 2, 3, type, x, q, nullptr, nullptr), grnOK);
  std::vector<grn_test::Pair> pairs = grn_test::FoundPairs(fs.solver.get());
  // grains: cube 0 is 0..8 (bound 0), cube 1 is 9..17 (bound 9), the sphere 18
  ASSERT_FALSE(pairs.empty());
  bool bounds = false;
  for (const grn_test::Pair& pr : pairs) {
    bool bound_i = pr.first == 0 || pr.first == 9, bound_j = pr.second == 0 || pr.second == 9;
    EXPECT_EQ(bound_i, bound_j) << pr.first << " " << pr.second;
    if (bound_i) bounds = true;
    // spheres of two cubes never pair: their bounds do
    if (!bound_i && pr.second != 18) ADD_FAILURE() << pr.first << " " << pr.second;
  }
  EXPECT_TRUE(bounds);
  EXPECT_TRUE(std::count(pairs.begin(), pairs.end(), grn_test::Pair(0, 9)) == 1);
  // the sphere meets the corner sphere of cube 1 at (+a, +a, ...) and nothing else
  int with_sphere = 0;
  for (const grn_test::Pair& pr : pairs) with_sphere += pr.second == 18;
  EXPECT_GE(with_sphere, 1);
}

TEST(Cem, BoundIsNoSurfaceForShapes) {
  const float a = 0.004f;
  FieldSolver fs = MakeFieldSolver(a, 1, -9.81f);
  grnShape floor = grn_test::StaticShape(grnSHAPE_PLANE);
  ASSERT_EQ(grn_set_shapes(fs.solver.get(), 1, &floor), grnOK);
  int type = 0;
  // resting on its four lower spheres, whose bound reaches far below the floor
  float x[3] = {0, 0, a + kSphere}, q[4] = {1, 0, 0, 0};
  ASSERT_EQ(grn_set_clumps(fs.solver.get(), fs.types, 2, 1, &type, x, q, nullptr, nullptr), grnOK);
  ASSERT_EQ(grn_advance(fs.solver.get(), 2000), grnOK);
  float pos[3], orient[4];
  ASSERT_EQ(grn_get_clumps(fs.solver.get(), pos, orient, nullptr, nullptr), grnOK);
  // it rests on its spheres (a dem overlap of a few microns), not lifted by its bound
  EXPECT_NEAR(pos[2], a + kSphere, 2e-5);
}

TEST(Cem, GrainsMeetingByFieldsKeepMomentum) {
  const float a = 0.004f;
  FieldSolver fs = MakeFieldSolver(a, 2, 0);
  int type[2] = {0, 0};
  // off centre and turned, so the field's contact point lies off the line of centres
  float x[6] = {-0.012f, 0.002f, 0.001f, 0.012f, -0.001f, 0};
  float q[8] = {1, 0, 0, 0, 0.9f, 0.2f, 0.3f, 0.1f};
  float n = std::sqrt(0.81f + 0.04f + 0.09f + 0.01f);
  for (int k = 4; k < 8; k++) q[k] /= n;
  float v[6] = {0.4f, 0, 0, -0.4f, 0.05f, 0}, w[6] = {0, 0, 5, 2, 0, 0};
  ASSERT_EQ(grn_set_clumps(fs.solver.get(), fs.types, 2, 2, type, x, q, v, w), grnOK);
  float mass = fs.types[0].mass, moment = fs.types[0].inertia[0];
  // momenta of the two cubes (isotropic inertia: L = I w), about the origin
  auto momenta = [&](double lin[3], double ang[3]) {
    float pos[6], vel[6], angvel[6];
    ASSERT_EQ(grn_get_clumps(fs.solver.get(), pos, nullptr, vel, angvel), grnOK);
    for (int k = 0; k < 3; k++) lin[k] = ang[k] = 0;
    for (int c = 0; c < 2; c++) {
      const float* r = pos + 3 * c;
      double p[3] = {mass * vel[3 * c], mass * vel[3 * c + 1], mass * vel[3 * c + 2]};
      lin[0] += p[0]; lin[1] += p[1]; lin[2] += p[2];
      ang[0] += r[1] * p[2] - r[2] * p[1] + moment * angvel[3 * c];
      ang[1] += r[2] * p[0] - r[0] * p[2] + moment * angvel[3 * c + 1];
      ang[2] += r[0] * p[1] - r[1] * p[0] + moment * angvel[3 * c + 2];
    }
  };
  double lin0[3], ang0[3], lin[3], ang[3];
  momenta(lin0, ang0);
  ASSERT_EQ(grn_advance(fs.solver.get(), 4000), grnOK);
  momenta(lin, ang);
  float vel[6];
  ASSERT_EQ(grn_get_clumps(fs.solver.get(), nullptr, nullptr, vel, nullptr), grnOK);
  EXPECT_LT(vel[0], 0.3f) << "they did not meet";
  double pscale = mass * 0.4, lscale = pscale * 0.012;
  for (int k = 0; k < 3; k++) {
    EXPECT_NEAR(lin[k], lin0[k], 1e-5 * pscale);
    EXPECT_NEAR(ang[k], ang0[k], 1e-4 * lscale);
  }
}

TEST(Cem, BadFieldsAndClumpsAreRefused) {
  const float a = 0.004f;
  FieldSolver fs = MakeFieldSolver(a, 2, 0);
  // a field array whose pair offset runs past its end
  std::vector<float> bad = fs.fields;
  int nt = 2, table = 1 + GRN_CEM_TYPE_FLOATS * nt;
  bad[table] = (float)bad.size();
  EXPECT_EQ(grn_set_cem_fields(fs.solver.get(), bad.data()), grnERR_ARG);
  bad = fs.fields;
  bad.back() = NAN;
  EXPECT_EQ(grn_set_cem_fields(fs.solver.get(), bad.data()), grnERR_NONFINITE);
  // a field type whose first sphere is not its bound
  std::vector<float> unbound(fs.cube.begin() + 4, fs.cube.end());
  grnClumpType types[2] = {fs.types[0], fs.types[1]};
  types[0].spheres = unbound.data();
  types[0].nsphere = 8;
  int type = 0;
  float x[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0};
  EXPECT_EQ(grn_set_clumps(fs.solver.get(), types, 2, 1, &type, x, q, nullptr, nullptr),
            grnERR_ARG);
  // params: fields without clumps, or with the pj model
  grnParams p;
  grn_default_params(&p);
  p.cem_floats = 10;
  char msg[256];
  EXPECT_EQ(grn_check_params(&p, msg, sizeof(msg)), grnERR_ARG);
  EXPECT_NE(std::strstr(msg, "cem_floats"), nullptr) << msg;
}

}  // namespace
