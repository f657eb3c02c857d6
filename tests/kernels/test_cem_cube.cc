// a fitted fields file as the solver reads it: models/assets/cube.cem (a 1 cm cube with itself,
// written by python -m mjgranular.cem fit, the command in scripts/bench/README.md), through
// cem_file.c and grn_cem_contact, against the fields' definition evaluated here on its own in
// double precision from the file's numbers: phi from the distance net, the normal from phi's
// gradient in t by central differences, the lever across the normal from phi's change under
// small finite turns of the second grain about its mesh origin, the point's height along the
// normal from the arm net; at poses near contact (turned and shifted), for both grains of a pair.
// How well the fitted fields match the cube's exact contacts: scripts/bench/README.md.
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cem_file.h"
#include "clump_fit.h"
#include "cube_rest.h"
#include "grn_cem.h"
#include "grn_mesh_util.h"
#include "grn_test_util.h"
#include "mesh_mass.h"
#include "sdf_mesh.h"

namespace {

using Vec = std::array<double, 3>;
using Mat = std::array<std::array<double, 3>, 3>;

Vec Add(Vec a, Vec b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec Sub(Vec a, Vec b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec Scale(Vec a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
double Dot(Vec a, Vec b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec Cross(Vec a, Vec b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
Vec Column(const Mat& r, int k) { return {r[0][k], r[1][k], r[2][k]}; }
Mat Mul(const Mat& a, const Mat& b) {
  Mat c{};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      for (int k = 0; k < 3; k++) c[i][j] += a[i][k] * b[k][j];
    }
  }
  return c;
}
// the rotation by the vector w (axis times angle), rodrigues
Mat Rotation(Vec w) {
  double angle = std::sqrt(Dot(w, w));
  Mat r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  if (angle == 0) return r;
  Vec k = Scale(w, 1 / angle);
  double c = std::cos(angle), s = std::sin(angle);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double skew = i == j ? 0 : (i == 0 && j == 1 ? -k[2] : i == 1 && j == 0 ? k[2]
                                  : i == 0 && j == 2 ? k[1] : i == 2 && j == 0 ? -k[1]
                                  : i == 1 && j == 2 ? -k[0] : k[0]);
      r[i][j] = c * (i == j) + s * skew + (1 - c) * k[i] * k[j];
    }
  }
  return r;
}

// the unit quaternion of a rotation matrix
grnQuat Quaternion(const Mat& r) {
  double qw = 0.5 * std::sqrt(std::fmax(0, 1 + r[0][0] + r[1][1] + r[2][2]));
  double qx = 0.5 * std::sqrt(std::fmax(0, 1 + r[0][0] - r[1][1] - r[2][2]));
  double qy = 0.5 * std::sqrt(std::fmax(0, 1 - r[0][0] + r[1][1] - r[2][2]));
  double qz = 0.5 * std::sqrt(std::fmax(0, 1 - r[0][0] - r[1][1] + r[2][2]));
  qx = std::copysign(qx, r[2][1] - r[1][2]);
  qy = std::copysign(qy, r[0][2] - r[2][0]);
  qz = std::copysign(qz, r[1][0] - r[0][1]);
  return grn_quat_normalize(grn_quat((float)qw, (float)qx, (float)qy, (float)qz));
}

// a net of the file evaluated in double
std::vector<double> Net(const grnCemNet& net, const std::vector<double>& x) {
  std::vector<double> a = x;
  const float* p = net.numbers;
  for (int l = 0; l < net.nlayer; l++) {
    int in = net.width[l], out = net.width[l + 1];
    std::vector<double> y(out);
    for (int o = 0; o < out; o++) {
      double s = p[out * in + o];
      for (int k = 0; k < in; k++) s += (double)p[o * in + k] * a[k];
      y[o] = l + 1 < net.nlayer ? s / (1 + std::exp(-s)) : s;
    }
    p += out * in + out;
    a = y;
  }
  return a;
}

// the nets' input at b's mesh frame (t, r) in a's: t / L, r's first two columns, r^T t / L
std::vector<double> Input(Vec t, const Mat& r, double len) {
  return {t[0] / len, t[1] / len, t[2] / len, r[0][0], r[1][0], r[2][0], r[0][1], r[1][1],
          r[2][1], Dot(Column(r, 0), t) / len, Dot(Column(r, 1), t) / len,
          Dot(Column(r, 2), t) / len};
}

// phi of the pair at b's mesh frame (t, r) in a's
double Phi(const grnCemPair& pair, Vec t, const Mat& r) {
  return pair.scale * Net(pair.distance, Input(t, r, pair.scale))[0];
}

// the contact by the definition: normal from a toward b, depth, point (a's frame)
struct Contact {
  Vec n;
  double depth;
  Vec point;
};

Contact Defined(const grnCemPair& pair, Vec t, const Mat& r) {
  const double h = 1e-6 * pair.scale, turn = 1e-5;
  Vec g, m;
  for (int k = 0; k < 3; k++) {
    Vec e = {0, 0, 0};
    e[k] = h;
    g[k] = (Phi(pair, Add(t, e), r) - Phi(pair, Sub(t, e), r)) / (2 * h);
    Vec w = {0, 0, 0};
    w[k] = turn;
    m[k] = (Phi(pair, t, Mul(Rotation(w), r)) - Phi(pair, t, Mul(Rotation(Scale(w, -1)), r))) /
           (2 * turn);
  }
  double glen = std::sqrt(Dot(g, g));
  Vec n = Scale(g, 1 / glen);
  m = Scale(m, 1 / glen);
  double len = pair.scale;
  std::vector<double> arm = Net(pair.arm, Input(t, r, len));
  Vec across = Add(t, Cross(n, m));
  across = Sub(across, Scale(n, Dot(across, n)));
  double along = 0.5 * (len * arm[0] + Dot(t, n) + len * arm[1]);
  return {n, -Phi(pair, t, r), Add(across, Scale(n, along))};
}

// models/assets/cube.cem read and packed as the solver holds it (the cube's mesh frame its own)
void ReadCube(grnCemFile* f, std::vector<float>* fields) {
  char why[512];
  std::string path = std::string(MJGRANULAR_MODELS_DIR) + "/assets/cube.cem";
  ASSERT_EQ(grn_cem_file_read(path.c_str(), f, why, sizeof(why)), 0) << why;
  ASSERT_EQ(f->npair, 1);
  ASSERT_STREQ(f->name[0], "cube");
  int file_type = 0;
  grnCemFrame frame = {{0, 0, 0}, {1, 0, 0, 0}, 0.0062f};
  fields->resize((size_t)grn_cem_pack(f, 1, &file_type, &frame, nullptr));
  grn_cem_pack(f, 1, &file_type, &frame, fields->data());
}

// the cube of half side half as the plugin makes its grain type (plugin/grain_types.c): the body
// frame its mesh's principal frame (the pose of that frame in the cube's: com, axes), count
// spheres fitted on a grid of 24 cells per cube root of its volume with the plugin's margin, moved
// into the body frame
struct CubeClump {
  std::vector<float> spheres;  // (n x 4) centre in the body frame, radius
  grnVec3 com;                 // the body frame in the cube's
  grnQuat axes;
};

CubeClump FitCubeClump(double half, int count) {
  grn_test::Mesh m = grn_test::BoxMesh({half, half, half});
  grnMassProps mp;
  EXPECT_EQ(grn_mesh_mass(m.v.data(), m.nv(), m.f.data(), m.nf(), 1, &mp), grnMESH_OK);
  float cell = (float)(std::cbrt(mp.volume) / 24);
  float margin = (float)grn_test::PluginMargin(m, cell);
  grnGrid grid;
  EXPECT_EQ(grn_sdf_mesh_build(m.v.data(), m.nv(), m.f.data(), m.nf(), cell, margin, &grid),
            grnOK);
  CubeClump c;
  c.spheres.resize(4 * (size_t)count);
  grnClumpFit fit;
  EXPECT_EQ(grn_clump_fit(&grid, count, 0, c.spheres.data(), &fit, nullptr, 0), grnOK);
  grn_sdf_mesh_free(&grid);
  c.spheres.resize(4 * (size_t)fit.count);
  for (size_t e = 0; e < c.spheres.size(); e += 4) {  // into the body frame
    double x[3] = {c.spheres[e], c.spheres[e + 1], c.spheres[e + 2]}, b[3];
    grn_mesh_to_body(&mp, x, b);
    for (int j = 0; j < 3; j++) c.spheres[e + j] = (float)b[j];
  }
  c.com = grn_v3((float)mp.com[0], (float)mp.com[1], (float)mp.com[2]);
  c.axes = grn_quat((float)mp.quat[0], (float)mp.quat[1], (float)mp.quat[2], (float)mp.quat[3]);
  return c;
}

// the clump's spheres of a cube placed at (x, q) in a's cube frame: centre and radius in a's frame
std::vector<std::array<double, 4>> Placed(const CubeClump& c, grnVec3 x, grnQuat q) {
  std::vector<std::array<double, 4>> out;
  for (size_t e = 0; e < c.spheres.size(); e += 4) {
    grnVec3 p = grn_add(x, grn_quat_rotate(q, grn_add(c.com, grn_quat_rotate(
                                                   c.axes, grn_load3(&c.spheres[e])))));
    out.push_back({p.x, p.y, p.z, c.spheres[e + 3]});
  }
  return out;
}

// the clump model's contact between cube a (at the origin unturned) and cube b at (x, q), from
// the sphere pairs between the two clumps: depth the largest overlap r_i + r_j - |c_j - c_i|
// (negative where no pair overlaps: the gap), the normal the overlap-weighted mean of the
// overlapping pairs' normals (c_j - c_i) / |c_j - c_i|, from a toward b (where none overlaps, the
// nearest pair's), the point the same mean of the pairs' points (the middle of each overlap)
Contact ClumpContact(const CubeClump& c, grnVec3 x, grnQuat q) {
  std::vector<std::array<double, 4>> a = Placed(c, grn_v3(0, 0, 0), grn_quat(1, 0, 0, 0)),
                                     b = Placed(c, x, q);
  Contact out = {{0, 0, 0}, -INFINITY, {0, 0, 0}};
  Vec sum_n = {0, 0, 0}, sum_p = {0, 0, 0}, nearest = {0, 0, 0};
  double weight = 0;
  for (const auto& i : a) {
    for (const auto& j : b) {
      Vec ci = {i[0], i[1], i[2]}, d = Sub({j[0], j[1], j[2]}, ci);
      double dist = std::sqrt(Dot(d, d)), overlap = i[3] + j[3] - dist;
      Vec n = Scale(d, 1 / dist);
      if (overlap > out.depth) {
        out.depth = overlap;
        nearest = n;
      }
      if (overlap > 0) {
        sum_n = Add(sum_n, Scale(n, overlap));
        sum_p = Add(sum_p, Scale(Add(ci, Scale(n, i[3] - overlap / 2)), overlap));
        weight += overlap;
      }
    }
  }
  out.n = weight > 0 ? Scale(sum_n, 1 / std::sqrt(Dot(sum_n, sum_n))) : nearest;
  out.point = weight > 0 ? Scale(sum_p, 1 / weight) : out.point;
  return out;
}

TEST(CemCube, SolverContactIsTheFieldsDefinition) {
  grnCemFile f;
  std::vector<float> fields;
  ReadCube(&f, &fields);
  const grnCemPair& pair = f.pair[0];
  double len = pair.scale;

  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 40; trial++) {
    // b about a side from a in a random direction, turned at random
    Vec dir = {u(rng), u(rng), u(rng)};
    Vec t = Scale(dir, 0.0105 / std::sqrt(Dot(dir, dir)));
    Vec w = {u(rng), u(rng), u(rng)};
    Mat r = Rotation(Scale(w, 2.5));
    Contact want = Defined(pair, t, r);
    grnQuat qb = Quaternion(r);  // a at the origin unturned
    grnVec3 xb = grn_v3((float)t[0], (float)t[1], (float)t[2]);
    // asked by a (normal toward a) and by b (toward b): the same contact
    grnCemContact by_a = grn_cem_contact(fields.data(), 0, grn_v3(0, 0, 0),
                                         grn_quat(1, 0, 0, 0), 0, xb, qb, 0);
    grnCemContact by_b = grn_cem_contact(fields.data(), 0, xb, qb, 0, grn_v3(0, 0, 0),
                                         grn_quat(1, 0, 0, 0), 0);
    Vec n_a = {-by_a.n.x, -by_a.n.y, -by_a.n.z};
    EXPECT_NEAR(by_a.depth, want.depth, 2e-5 * len) << "trial " << trial;
    EXPECT_GT(Dot(n_a, want.n), std::cos(0.2 * grn_test::kPi / 180)) << "trial " << trial;
    Vec p = {by_a.point.x, by_a.point.y, by_a.point.z};
    EXPECT_LT(std::sqrt(Dot(Sub(p, want.point), Sub(p, want.point))), 1e-3 * len)
        << "trial " << trial;
    // asked by b, grain b goes first (a pair of one type): a's pose in b's frame
    Mat rt{};
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) rt[i][j] = r[j][i];
    }
    Vec tb = {-Dot(Column(r, 0), t), -Dot(Column(r, 1), t), -Dot(Column(r, 2), t)};
    Contact want_b = Defined(pair, tb, rt);
    EXPECT_NEAR(by_b.depth, want_b.depth, 2e-5 * len) << "trial " << trial;
    Vec n_b = {by_b.n.x, by_b.n.y, by_b.n.z};  // toward b: minus b's normal turned into the world
    Vec turned = {Dot({r[0][0], r[0][1], r[0][2]}, want_b.n), Dot({r[1][0], r[1][1], r[1][2]},
                  want_b.n), Dot({r[2][0], r[2][1], r[2][2]}, want_b.n)};
    EXPECT_GT(Dot(n_b, Scale(turned, -1)), std::cos(0.2 * grn_test::kPi / 180))
        << "trial " << trial;
  }
  grn_cem_file_free(&f);
}

// the configurations two cubes rest in (cube_rest.h), as the solver sees them through the fitted
// fields, against the cubes' exact contact (the agreement of the shape models on resting
// configurations: normal within 5 degrees, depth within 10% of a radius).
// scripts/bench/README.md, "Resting configurations", has the same set's means and largest errors.
TEST(CemCube, RestingContactsAreTheCubesOwn) {
  grnCemFile f;
  std::vector<float> fields;
  ReadCube(&f, &fields);
  const double half = 0.005, radius = 2 * half * std::cbrt(3 / (4 * grn_test::kPi));
  for (int k = 0; k < CUBE_REST_COUNT; k++) {
    CubeRest rest = cube_rest(half, k);
    grnCemContact c = grn_cem_contact(fields.data(), 0, grn_v3(0, 0, 0), grn_quat(1, 0, 0, 0),
                                      0, rest.x, rest.q, 0);
    Vec toward_b = {-c.n.x, -c.n.y, -c.n.z};  // the solver's normal points toward the asker, a
    Vec normal = {rest.normal.x, rest.normal.y, rest.normal.z};
    std::string what = std::string(rest.corner ? "corner on face" : "face on face") +
                       " normal (" + std::to_string(normal[0]) + ", " +
                       std::to_string(normal[1]) + ", " + std::to_string(normal[2]) + ") at " +
                       std::to_string(rest.across[0]) + " " + std::to_string(rest.across[1]) +
                       ", spin " + std::to_string(rest.spin) + ", depth " +
                       std::to_string(rest.depth);
    EXPECT_GT(Dot(toward_b, normal), std::cos(5 * grn_test::kPi / 180)) << what;
    EXPECT_NEAR(c.depth, rest.depth, 0.1 * radius) << what;
  }
  grn_cem_file_free(&f);
}

// the two shape models on the configurations of two cubes lying face on face (cube_rest.h): the
// cube as the plugin fits its clump, here of 64 spheres, against the cubes' exact contact and the
// fields' (the agreement of the shape models: normal within 5 degrees, depth within 10%
// of a radius). At the default 16 spheres the clump's spheres reach 0.5 mm out of its faces (0.1
// radius and more of overlap between cubes that just touch), and at any count the clump rounds
// the corners off, so a corner on a face is not compared (scripts/bench/README.md, "Resting
// configurations")
TEST(CemCube, ClumpAndFieldsAgreeOnCubesLyingFlat) {
  grnCemFile f;
  std::vector<float> fields;
  ReadCube(&f, &fields);
  const double half = 0.005, radius = 2 * half * std::cbrt(3 / (4 * grn_test::kPi));
  auto degrees = [](Vec u, Vec v) {
    return std::acos(std::fmin(1, Dot(u, v) / std::sqrt(Dot(u, u) * Dot(v, v)))) * 180 /
           grn_test::kPi;
  };
  CubeClump clump = FitCubeClump(half, 64);
  // normal [deg] and depth [radii] against the exact contact, then against the fields': sums, most
  double sum[4] = {}, most[4] = {};
  for (int k = 0; k < CUBE_REST_FACES; k++) {
    CubeRest rest = cube_rest(half, k);
    grnCemContact c = grn_cem_contact(fields.data(), 0, grn_v3(0, 0, 0), grn_quat(1, 0, 0, 0), 0,
                                      rest.x, rest.q, 0);
    Vec cem = {-c.n.x, -c.n.y, -c.n.z};  // the solver's normal points toward the asker, a
    Vec exact = {rest.normal.x, rest.normal.y, rest.normal.z};
    Contact got = ClumpContact(clump, rest.x, rest.q);
    double e[4] = {degrees(got.n, exact), std::fabs(got.depth - rest.depth) / radius,
                   degrees(got.n, cem), std::fabs(got.depth - c.depth) / radius};
    std::string what = "normal (" + std::to_string(exact[0]) + ", " + std::to_string(exact[1]) +
                       ", " + std::to_string(exact[2]) + ") at " +
                       std::to_string(rest.across[0]) + " " + std::to_string(rest.across[1]) +
                       ", spin " + std::to_string(rest.spin) + ", depth " +
                       std::to_string(rest.depth) + ": the clump's " + std::to_string(got.depth) +
                       ", the fields' " + std::to_string(c.depth);
    EXPECT_LT(e[0], 5) << what;
    EXPECT_LT(e[1], 0.1) << what;
    EXPECT_LT(e[2], 5) << what;
    EXPECT_LT(e[3], 0.1) << what;
    for (int i = 0; i < 4; i++) {
      sum[i] += e[i];
      most[i] = std::fmax(most[i], e[i]);
    }
  }
  std::printf("  face on face (%d): the clump against the exact contact: normal %.2f, largest "
              "%.2f deg, depth %.3f, largest %.3f radius; against the fields': %.2f, %.2f deg, "
              "%.3f, %.3f radius\n", CUBE_REST_FACES, sum[0] / CUBE_REST_FACES, most[0],
              sum[1] / CUBE_REST_FACES, most[1], sum[2] / CUBE_REST_FACES, most[2],
              sum[3] / CUBE_REST_FACES, most[3]);
  grn_cem_file_free(&f);
}

}  // namespace
