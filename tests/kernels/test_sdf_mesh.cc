// mesh signed distance grids (sdf_mesh.h), checked against shapes whose true distance is known
// and against brute force over every triangle, written here independently of the code under test:
// - the tree's nearest-triangle distance equals brute force; its winding number is ~1 inside a
//   closed mesh, ~0 outside, and close to the brute-force sum of solid angles;
// - a sphere from a subdivided icosahedron and a box from 12 triangles, read through
//   grn_sdf_grid, agree with the true sphere / box distance within one grid cell;
// - nodes within the band carry the exact signed distance to the mesh; beyond it an upper bound;
// - inside / outside stay right with a small hole, a larger hole, inverted faces and overlapping
//   closed parts;
// - bad input is refused with grnERR_ARG.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_mesh_util.h"
#include "grn_sdf.h"
#include "sdf_mesh.h"

namespace {

using V3 = std::array<double, 3>;
const double kPi = 3.14159265358979323846;
using grn_test::BoxMesh;
using grn_test::Icosphere;
using grn_test::Mesh;

Mesh Append(Mesh a, const Mesh& b) {
  int base = a.nv();
  a.v.insert(a.v.end(), b.v.begin(), b.v.end());
  for (int i : b.f) a.f.push_back(base + i);
  return a;
}

Mesh Flipped(Mesh m) {
  for (int t = 0; t < m.nf(); t++) std::swap(m.f[3 * t + 1], m.f[3 * t + 2]);
  return m;
}

// the mesh without the triangles whose centroid satisfies drop
template <class F>
Mesh Without(const Mesh& m, F drop) {
  Mesh out;
  out.v = m.v;
  for (int t = 0; t < m.nf(); t++) {
    V3 c = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
      V3 a = m.vert(m.f[3 * t + k]);
      for (int i = 0; i < 3; i++) c[i] += a[i] / 3;
    }
    if (!drop(c)) out.f.insert(out.f.end(), m.f.begin() + 3 * t, m.f.begin() + 3 * t + 3);
  }
  return out;
}

V3 Sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double Dot(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
V3 Cross(const V3& a, const V3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double Norm(const V3& a) { return std::sqrt(Dot(a, a)); }

double SegmentDistance(const V3& p, const V3& a, const V3& b) {
  V3 ab = Sub(b, a);
  double l2 = Dot(ab, ab), t = l2 > 0 ? Dot(Sub(p, a), ab) / l2 : 0;
  t = std::min(1.0, std::max(0.0, t));
  return Norm(Sub(p, {a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]}));
}

// distance to a triangle: to its plane when the foot is inside (same side of all three edges),
// else to the nearest edge
double TriangleDistance(const V3& p, const V3& a, const V3& b, const V3& c) {
  V3 n = Cross(Sub(b, a), Sub(c, a));
  double nn = Norm(n);
  double best = std::min({SegmentDistance(p, a, b), SegmentDistance(p, b, c),
                          SegmentDistance(p, c, a)});
  if (nn > 1e-300) {
    double h = Dot(Sub(p, a), n) / nn;
    V3 foot = {p[0] - h * n[0] / nn, p[1] - h * n[1] / nn, p[2] - h * n[2] / nn};
    bool in = Dot(Cross(Sub(b, a), Sub(foot, a)), n) >= 0 &&
              Dot(Cross(Sub(c, b), Sub(foot, b)), n) >= 0 &&
              Dot(Cross(Sub(a, c), Sub(foot, c)), n) >= 0;
    if (in) best = std::min(best, std::fabs(h));
  }
  return best;
}

double BruteDistance(const Mesh& m, const V3& p) {
  double best = INFINITY;
  for (int t = 0; t < m.nf(); t++) {
    best = std::min(best, TriangleDistance(p, m.vert(m.f[3 * t]), m.vert(m.f[3 * t + 1]),
                                           m.vert(m.f[3 * t + 2])));
  }
  return best;
}

// winding number: the sum of the triangles' signed solid angles over 4 pi
double BruteWinding(const Mesh& m, const V3& p) {
  double w = 0;
  for (int t = 0; t < m.nf(); t++) {
    V3 a = Sub(m.vert(m.f[3 * t]), p), b = Sub(m.vert(m.f[3 * t + 1]), p);
    V3 c = Sub(m.vert(m.f[3 * t + 2]), p);
    double la = Norm(a), lb = Norm(b), lc = Norm(c);
    double num = Dot(a, Cross(b, c));
    double den = la * lb * lc + Dot(a, b) * lc + Dot(b, c) * la + Dot(c, a) * lb;
    w += 2 * std::atan2(num, den);
  }
  return w / (4 * kPi);
}

// a built grid, released at scope exit
struct Built {
  grnGrid g;
  grnStatus st;
  Built(const Mesh& m, float cell, float margin) {
    st = grn_sdf_mesh_build(m.v.data(), m.nv(), m.f.data(), m.nf(), cell, margin, &g);
  }
  ~Built() { grn_sdf_mesh_free(&g); }
  grnGridView View() const {
    grnGridView v;
    v.nx = g.nx;
    v.ny = g.ny;
    v.nz = g.nz;
    std::memcpy(v.origin, g.origin, sizeof(v.origin));
    v.cell = g.cell;
    v.values = g.values;
    return v;
  }
  V3 Node(int i, int j, int k) const {
    return {g.origin[0] + (double)i * g.cell, g.origin[1] + (double)j * g.cell,
            g.origin[2] + (double)k * g.cell};
  }
  float Value(int i, int j, int k) const {
    return g.values[i + (size_t)g.nx * (j + (size_t)g.ny * k)];
  }
  V3 Lo() const { return {g.origin[0], g.origin[1], g.origin[2]}; }
  V3 Hi() const { return Node(g.nx - 1, g.ny - 1, g.nz - 1); }
};

float Read(const grnGridView& v, const V3& p) {
  grnVec3 g;
  return grn_sdf_grid(grn_v3((float)p[0], (float)p[1], (float)p[2]), &v, &g);
}

//---------------------------------- tree ----------------------------------------------------------

TEST(MeshTree, NearestDistanceMatchesBruteForce) {
  for (const Mesh& m : {Icosphere(3, 0.1), BoxMesh({0.1, 0.05, 0.03})}) {
    grnMeshTree* tr = nullptr;
    ASSERT_EQ(grn_mesh_tree_create(m.v.data(), m.nv(), m.f.data(), m.nf(), &tr), grnOK);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(-0.15, 0.15);
    int hint = -1;
    for (int k = 0; k < 400; k++) {
      V3 p = {u(rng), u(rng), u(rng)};
      int tri = -1;
      double d = grn_mesh_tree_distance(tr, p.data(), k % 2 ? hint : -1, &tri);
      double ref = BruteDistance(m, p);
      EXPECT_NEAR(d, ref, 1e-9) << "at " << p[0] << " " << p[1] << " " << p[2];
      ASSERT_GE(tri, 0);
      ASSERT_LT(tri, m.nf());
      EXPECT_NEAR(TriangleDistance(p, m.vert(m.f[3 * tri]), m.vert(m.f[3 * tri + 1]),
                                   m.vert(m.f[3 * tri + 2])),
                  ref, 1e-9);
      hint = tri;
    }
    grn_mesh_tree_free(tr);
  }
  grn_mesh_tree_free(nullptr);
}

TEST(MeshTree, WindingNumberIsOneInsideZeroOutside) {
  Mesh closed = Icosphere(3, 0.1);
  Mesh holey = Without(closed, [](const V3& c) { return c[2] > 0.09; });  // a cap off
  ASSERT_LT(holey.nf(), closed.nf());
  for (const Mesh* m : {&closed, &holey}) {
    grnMeshTree* tr = nullptr;
    ASSERT_EQ(grn_mesh_tree_create(m->v.data(), m->nv(), m->f.data(), m->nf(), &tr), grnOK);
    std::mt19937 rng(2);
    std::uniform_real_distribution<double> u(-0.2, 0.2);
    double worst = 0;
    for (int k = 0; k < 300; k++) {
      V3 p = {u(rng), u(rng), u(rng)};
      double w = grn_mesh_tree_winding(tr, p.data()), ref = BruteWinding(*m, p);
      worst = std::max(worst, std::fabs(w - ref));
      double r = Norm(p);
      if (m == &closed && r < 0.095) {
        EXPECT_NEAR(w, 1.0, 0.05);
      }
      if (m == &closed && r > 0.105) {
        EXPECT_NEAR(w, 0.0, 0.05);
      }
    }
    EXPECT_LT(worst, 0.05);
    std::printf("winding number, %s mesh: max |hierarchical - brute force| %.4f\n",
                m == &closed ? "closed" : "holey", worst);
    grn_mesh_tree_free(tr);
  }
}

//---------------------------------- grids of known shapes -----------------------------------------

TEST(MeshGrid, CoversTheBoundingBoxPlusMargin) {
  Mesh m = BoxMesh({0.1, 0.05, 0.03}, {0.2, -0.1, 0.05});
  const float cell = 0.007f, margin = 0.012f;
  Built b(m, cell, margin);
  ASSERT_EQ(b.st, grnOK);
  V3 lo = b.Lo(), hi = b.Hi(), blo = {0.1, -0.15, 0.02}, bhi = {0.3, -0.05, 0.08};
  for (int i = 0; i < 3; i++) {
    EXPECT_LE(lo[i], blo[i] - margin + 1e-6);
    EXPECT_GE(hi[i], bhi[i] + margin - 1e-6);
    EXPECT_LT(hi[i] - lo[i], bhi[i] - blo[i] + 2 * margin + cell + 1e-6);
    EXPECT_NEAR(0.5 * (lo[i] + hi[i]), 0.5 * (blo[i] + bhi[i]), 1e-6);  // centred
  }
  EXPECT_EQ(b.g.cell, cell);
}

// reads at random points of the grid box against the true distance: within one cell everywhere,
// tighter near the surface; returns the worst error near the surface (|d| < margin)
double CheckAgainstTruth(const Built& b, double (*truth)(const V3&), double margin, int n,
                         const char* name) {
  grnGridView view = b.View();
  V3 lo = b.Lo(), hi = b.Hi();
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  double worst = 0, worst_near = 0;
  for (int k = 0; k < n; k++) {
    V3 p;
    for (int i = 0; i < 3; i++) p[i] = lo[i] + (hi[i] - lo[i]) * u(rng);
    double d = truth(p), f = Read(view, p), e = std::fabs(f - d);
    worst = std::max(worst, e);
    if (std::fabs(d) < margin) worst_near = std::max(worst_near, e);
    EXPECT_LT(e, b.g.cell) << name << " at " << p[0] << " " << p[1] << " " << p[2] << " true "
                           << d << " grid " << f;
    if (std::fabs(d) > b.g.cell) {
      EXPECT_EQ(f < 0, d < 0) << name << " sign at " << p[0] << " " << p[1] << " " << p[2];
    }
  }
  std::printf("%s: grid %d x %d x %d, cell %.1f mm: max |grid - true| %.3f mm everywhere, "
              "%.3f mm within %.0f mm of the surface\n",
              name, b.g.nx, b.g.ny, b.g.nz, 1e3 * b.g.cell, 1e3 * worst, 1e3 * worst_near,
              1e3 * margin);
  return worst_near;
}

double SphereTruth(const V3& p) { return Norm(p) - 0.1; }

double BoxTruth(const V3& p) {
  const double h[3] = {0.1, 0.06, 0.04};
  double q[3], out = 0, in = -INFINITY;
  for (int i = 0; i < 3; i++) {
    q[i] = std::fabs(p[i]) - h[i];
    out += q[i] > 0 ? q[i] * q[i] : 0;
    in = std::max(in, q[i]);
  }
  return in > 0 ? std::sqrt(out) : in;
}

TEST(MeshGrid, IcosphereReadsTheSphereDistanceWithinACell) {
  // 5120 triangles; the polyhedron is within 0.1 mm of the sphere
  Built b(Icosphere(4, 0.1), 0.005f, 0.01f);
  ASSERT_EQ(b.st, grnOK);
  double near = CheckAgainstTruth(b, SphereTruth, 0.01, 4000, "icosphere");
  EXPECT_LT(near, 0.1 * b.g.cell);
}

TEST(MeshGrid, TwelveTriangleBoxReadsTheBoxDistanceWithinACell) {
  Built b(BoxMesh({0.1, 0.06, 0.04}), 0.005f, 0.01f);
  ASSERT_EQ(b.st, grnOK);
  CheckAgainstTruth(b, BoxTruth, 0.01, 4000, "box");
}

TEST(MeshGrid, NodesAreExactInTheBandAndUpperBoundsBeyond) {
  // (with margin 8 mm and cell 4 mm the band is max(margin, 4 cells) = 16 mm)
  Mesh m = Icosphere(3, 0.1);
  const float cell = 0.004f, margin = 0.008f;
  const double band = 4 * cell;
  Built b(m, cell, margin);
  ASSERT_EQ(b.st, grnOK);
  std::mt19937 rng(4);
  int checked_band = 0, checked_far = 0, exact_far = 0;
  double worst_far = 0;
  for (int k = 0; k < 3000; k++) {
    int i = (int)(rng() % b.g.nx), j = (int)(rng() % b.g.ny), kk = (int)(rng() % b.g.nz);
    V3 p = b.Node(i, j, kk);
    double d = BruteDistance(m, p), w = BruteWinding(m, p);
    double ref = w > 0.5 ? -d : d;
    float f = b.Value(i, j, kk);
    if (d < band - 1e-6) {
      EXPECT_NEAR(f, ref, 2e-7 + 2e-6 * d) << "band node " << i << " " << j << " " << kk;
      checked_band++;
    } else {
      EXPECT_EQ(f < 0, ref < 0);
      EXPECT_GE(std::fabs(f), d - 1e-6);
      worst_far = std::max(worst_far, std::fabs(f) - d);
      exact_far += std::fabs(f) - d < 1e-6;
      checked_far++;
    }
  }
  EXPECT_GT(checked_band, 300);
  EXPECT_GT(checked_far, 300);
  EXPECT_LT(worst_far, 0.5 * cell);
  std::printf("nodes: %d in the band exact, %d beyond: %d exact, the others at most %.3f mm "
              "(%.2f cell) above the true distance\n",
              checked_band, checked_far, exact_far, 1e3 * worst_far, worst_far / cell);
}

//---------------------------------- inside / outside ----------------------------------------------

// points well inside read negative and points well outside positive
void CheckSides(const Mesh& m, double inner, double outer, const char* name) {
  Built b(m, 0.005f, 0.015f);
  ASSERT_EQ(b.st, grnOK) << name;
  grnGridView view = b.View();
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-0.115, 0.115);
  int nin = 0, nout = 0;
  for (int k = 0; k < 6000; k++) {
    V3 p = {u(rng), u(rng), u(rng)};
    double r = Norm(p);
    if (r < inner) {
      EXPECT_LT(Read(view, p), 0) << name << " inside at " << p[0] << " " << p[1] << " " << p[2];
      nin++;
    } else if (r > outer) {
      EXPECT_GT(Read(view, p), 0) << name << " outside at " << p[0] << " " << p[1] << " "
                                  << p[2];
      nout++;
    }
  }
  EXPECT_GT(nin, 500);
  EXPECT_GT(nout, 500);
  // and every node: a node well inside is negative, well outside positive
  int wrong = 0;
  for (int k = 0; k < b.g.nz; k++) {
    for (int j = 0; j < b.g.ny; j++) {
      for (int i = 0; i < b.g.nx; i++) {
        double r = Norm(b.Node(i, j, k));
        float f = b.Value(i, j, k);
        wrong += (r < inner && f >= 0) || (r > outer && f <= 0);
      }
    }
  }
  EXPECT_EQ(wrong, 0) << name;
}

TEST(MeshSign, ClosedIcosphere) { CheckSides(Icosphere(4, 0.1), 0.09, 0.11, "closed"); }

TEST(MeshSign, SmallHoleKeepsTheSides) {
  // two adjacent triangles removed (about 3 x 6 mm)
  Mesh m = Icosphere(4, 0.1);
  Mesh holey = m;
  holey.f.erase(holey.f.begin(), holey.f.begin() + 6);
  ASSERT_EQ(holey.nf(), m.nf() - 2);
  CheckSides(holey, 0.09, 0.11, "small hole");
}

TEST(MeshSign, LargerHoleKeepsTheSidesAwayFromIt) {
  // a cap of about 25 degrees off the top (5% of the surface): the sides hold away from the
  // opening, where inside and outside meet through the hole
  Mesh m = Without(Icosphere(4, 0.1), [](const V3& c) { return c[2] > 0.09; });
  Built b(m, 0.005f, 0.015f);
  ASSERT_EQ(b.st, grnOK);
  grnGridView view = b.View();
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> u(-0.115, 0.115);
  for (int k = 0; k < 4000; k++) {
    V3 p = {u(rng), u(rng), u(rng)};
    double r = Norm(p);
    if (p[2] > 0.06) continue;  // near the opening
    if (r < 0.09) {
      EXPECT_LT(Read(view, p), 0) << p[0] << " " << p[1] << " " << p[2];
    }
    if (r > 0.11) {
      EXPECT_GT(Read(view, p), 0) << p[0] << " " << p[1] << " " << p[2];
    }
  }
}

TEST(MeshSign, InvertedFacesGiveTheSameGrid) {
  Mesh m = Icosphere(3, 0.1);
  Built a(m, 0.006f, 0.01f), b(Flipped(m), 0.006f, 0.01f);
  ASSERT_EQ(a.st, grnOK);
  ASSERT_EQ(b.st, grnOK);
  // the same sides everywhere; the same values in the band (max(margin, 4 cells)), up to the
  // rounding of the vertex order (beyond it the propagated upper bounds may take other paths)
  size_t n = (size_t)a.g.nx * a.g.ny * a.g.nz, differ = 0;
  for (size_t i = 0; i < n; i++) {
    bool band = std::fabs(a.g.values[i]) < 4 * 0.006f;
    differ += (band && std::fabs(a.g.values[i] - b.g.values[i]) > 1e-7f) ||
              (a.g.values[i] < 0) != (b.g.values[i] < 0);
  }
  EXPECT_EQ(differ, 0u);
}

TEST(MeshSign, OverlappingClosedPartsAreInside) {
  // two boxes sharing a region, as cad exports often leave them: inside either is inside, even
  // next to the faces of one that lie inside the other
  Mesh m = Append(BoxMesh({0.06, 0.03, 0.03}, {-0.03, 0, 0}), BoxMesh({0.03, 0.06, 0.03},
                                                                       {0.02, 0, 0}));
  Built b(m, 0.004f, 0.01f);
  ASSERT_EQ(b.st, grnOK);
  grnGridView view = b.View();
  for (V3 p : {V3{-0.05, 0, 0}, V3{0.02, 0.05, 0}, V3{0.0, 0, 0}, V3{-0.011, 0.0, 0.01},
               V3{0.029, 0.01, -0.02}, V3{0.02, -0.045, 0.02}}) {
    EXPECT_LT(Read(view, p), 0) << p[0] << " " << p[1] << " " << p[2];
  }
  for (V3 p : {V3{-0.05, 0.05, 0}, V3{0.0, 0.0, 0.045}, V3{0.07, 0, 0}}) {
    EXPECT_GT(Read(view, p), 0) << p[0] << " " << p[1] << " " << p[2];
  }
}

//---------------------------------- solver and bad input ------------------------------------------

TEST(MeshGrid, SolverAcceptsTheGrid) {
  Built b(BoxMesh({0.05, 0.05, 0.05}), 0.005f, 0.01f);
  ASSERT_EQ(b.st, grnOK);
  grnParams p;
  grn_default_params(&p);
  p.capacity = 16;
  grnSolver* s = nullptr;
  ASSERT_EQ(grn_create(&p, grnBACKEND_CPU, &s), grnOK);
  int id = -1;
  EXPECT_EQ(grn_add_grid(s, &b.g, &id), grnOK);
  EXPECT_EQ(id, 0);
  grn_destroy(s);
}

TEST(MeshGrid, BadInputIsRefused) {
  Mesh m = BoxMesh({0.1, 0.1, 0.1});
  grnGrid g;
  auto build = [&](const Mesh& mm, float cell, float margin) {
    std::memset(&g, 0x5a, sizeof(g));
    grnStatus st = grn_sdf_mesh_build(mm.v.data(), mm.nv(), mm.f.data(), mm.nf(), cell, margin,
                                      &g);
    if (st != grnOK) {
      EXPECT_EQ(g.values, nullptr);
      EXPECT_EQ(g.nx, 0);
    }
    grn_sdf_mesh_free(&g);
    return st;
  };
  EXPECT_EQ(build(m, 0.01f, 0.01f), grnOK);
  // no faces, too few vertices
  Mesh empty = m;
  empty.f.clear();
  EXPECT_EQ(build(empty, 0.01f, 0.01f), grnERR_ARG);
  // a nan or infinite vertex
  Mesh bad = m;
  bad.v[4] = NAN;
  EXPECT_EQ(build(bad, 0.01f, 0.01f), grnERR_ARG);
  bad = m;
  bad.v[0] = INFINITY;
  EXPECT_EQ(build(bad, 0.01f, 0.01f), grnERR_ARG);
  // face indices out of range
  bad = m;
  bad.f[5] = m.nv();
  EXPECT_EQ(build(bad, 0.01f, 0.01f), grnERR_ARG);
  bad.f[5] = -1;
  EXPECT_EQ(build(bad, 0.01f, 0.01f), grnERR_ARG);
  // cell and margin
  EXPECT_EQ(build(m, 0, 0.01f), grnERR_ARG);
  EXPECT_EQ(build(m, -0.01f, 0.01f), grnERR_ARG);
  EXPECT_EQ(build(m, NAN, 0.01f), grnERR_ARG);
  EXPECT_EQ(build(m, INFINITY, 0.01f), grnERR_ARG);
  EXPECT_EQ(build(m, 0.01f, -0.01f), grnERR_ARG);
  EXPECT_EQ(build(m, 0.01f, NAN), grnERR_ARG);
  // a grid beyond the node limit (0.2 m at 0.1 mm: 2001^3 nodes), refused before allocating
  EXPECT_EQ(build(m, 1e-4f, 0), grnERR_ARG);
  // a cell so small that the node count overflows an int
  EXPECT_EQ(build(m, 1e-12f, 0), grnERR_ARG);
  // null pointers
  EXPECT_EQ(grn_sdf_mesh_build(nullptr, m.nv(), m.f.data(), m.nf(), 0.01f, 0, &g), grnERR_ARG);
  EXPECT_EQ(grn_sdf_mesh_build(m.v.data(), m.nv(), nullptr, m.nf(), 0.01f, 0, &g), grnERR_ARG);
  EXPECT_EQ(grn_sdf_mesh_build(m.v.data(), m.nv(), m.f.data(), m.nf(), 0.01f, 0, nullptr),
            grnERR_ARG);
  grn_sdf_mesh_free(nullptr);
  // the tree refuses the same meshes
  grnMeshTree* tr = reinterpret_cast<grnMeshTree*>(&g);
  EXPECT_EQ(grn_mesh_tree_create(empty.v.data(), empty.nv(), empty.f.data(), 0, &tr), grnERR_ARG);
  EXPECT_EQ(tr, nullptr);
  bad = m;
  bad.v[7] = NAN;
  EXPECT_EQ(grn_mesh_tree_create(bad.v.data(), bad.nv(), bad.f.data(), bad.nf(), &tr),
            grnERR_ARG);
  EXPECT_EQ(grn_mesh_tree_create(m.v.data(), m.nv(), m.f.data(), m.nf(), nullptr), grnERR_ARG);
}

TEST(MeshGrid, DegenerateTrianglesAreHarmless) {
  // a box plus zero-area triangles: a repeated vertex along an edge, and three collinear
  // vertices above the top face; nodes in the band still carry the exact signed distance
  Mesh m = BoxMesh({0.05, 0.05, 0.05});
  m.f.insert(m.f.end(), {0, 0, 1, 0, 1, 1});
  m.v.insert(m.v.end(), {0.0f, 0.0f, 0.06f, 0.01f, 0.0f, 0.06f, 0.02f, 0.0f, 0.06f});
  int n = m.nv();
  m.f.insert(m.f.end(), {n - 3, n - 2, n - 1});
  Built b(m, 0.005f, 0.01f);
  ASSERT_EQ(b.st, grnOK);
  int checked = 0;
  for (int k = 0; k < b.g.nz; k++) {
    for (int j = 0; j < b.g.ny; j++) {
      for (int i = 0; i < b.g.nx; i++) {
        V3 p = b.Node(i, j, k);
        double d = BruteDistance(m, p);
        if (d > 0.02) continue;  // the band: max(margin, 4 cells)
        bool inside = std::fabs(p[0]) < 0.05 && std::fabs(p[1]) < 0.05 && std::fabs(p[2]) < 0.05;
        EXPECT_NEAR(b.Value(i, j, k), inside ? -d : d, 1e-6) << i << " " << j << " " << k;
        checked++;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
