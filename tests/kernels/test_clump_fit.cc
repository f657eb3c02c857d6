// sphere clumps fitted to meshes from their signed distance grids (clump_fit.h), checked against
// shapes whose volumes and distances are known in closed form:
// - an icosphere fits with one sphere at its centre and of its radius, and the fit's volumes are
//   the mesh's and the sphere's;
// - an elongated box alone gets the one ball that minimises the volume in one but not the other:
//   half its surface inside the box (its radius 4/3 the half-width, by quadrature); it fits better
//   (volume and surface deviation fall) as spheres are added, on the same centres;
// - a cube at 16 and 32 spheres misses less than hand-built clumps of 9 and 21 inscribed spheres
//   do, and its clump keeps the cube's volume within 5 % (inscribed spheres missed 22 and 15 %);
// - an L-shaped prism gets spheres in both legs, centred inside the exact L, none smaller than
//   inscribed, and keeps the L's volume within 10 %;
// - no sphere reaches beyond what the grid measures (half a cell inside its edge);
// - the fit stops at the tolerance; the same input gives the same spheres bit for bit;
// - bad input is refused with grnERR_ARG and a reason.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "clump_fit.h"
#include "granular.h"
#include "grn_mesh_util.h"
#include "sdf_mesh.h"

namespace {

using grn_test::BoxMesh;
using grn_test::Icosphere;
using grn_test::LDepth;
using grn_test::LPrism;
using grn_test::Mesh;
using grn_test::PluginMargin;
using grn_test::V3;
const double kPi = 3.14159265358979323846;

// a grid built from a mesh with the plugin's margin (or margin [m]), released at scope exit
struct Built {
  grnGrid g;
  Built(const Mesh& m, double cell, double margin = -1) {
    if (margin < 0) margin = PluginMargin(m, cell);
    EXPECT_EQ(grn_sdf_mesh_build(m.v.data(), m.nv(), m.f.data(), m.nf(), (float)cell,
                                 (float)margin, &g),
              grnOK);
  }
  ~Built() { grn_sdf_mesh_free(&g); }
};

// a fit's outcome: status, spheres (count x 4), figures, reason
struct Fit {
  grnStatus st;
  std::vector<float> s;
  grnClumpFit fit;
  std::string msg;
};

Fit FitClump(const grnGrid& g, int most, double tolerance = 0) {
  Fit f;
  f.s.assign(4 * (size_t)std::max(most, 1), NAN);
  std::memset(&f.fit, 0, sizeof(f.fit));
  char msg[256];
  f.st = grn_clump_fit(&g, most, tolerance, f.s.data(), &f.fit, msg, sizeof(msg));
  f.msg = msg;
  if (f.st == grnOK) f.s.resize(4 * (size_t)f.fit.count);
  return f;
}

// volume enclosed by a closed outward mesh: the divergence theorem over its triangles
double MeshVolume(const Mesh& m) {
  double v = 0;
  for (int t = 0; t < m.nf(); t++) {
    V3 a = m.vert(m.f[3 * t]), b = m.vert(m.f[3 * t + 1]), c = m.vert(m.f[3 * t + 2]);
    v += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
          a[2] * (b[0] * c[1] - b[1] * c[0])) / 6;
  }
  return v;
}

void Print(const char* name, int most, const grnClumpFit& f) {
  std::printf("  %-8s K %2d: %2d spheres, volume deviation %6.2f %%, surface mean %5.2f %% max "
              "%5.2f %% of the size %.4f m\n",
              name, most, f.count, 100 * f.volume_deviation, 100 * f.surface_mean,
              100 * f.surface_max, f.size);
}

//---------------------------------- shapes --------------------------------------------------------

// fraction of the surface of a sphere of radius r, centred on the axis of the square prism
// |y|, |z| < h, that lies inside it: a midpoint sum over z (uniform on a sphere's surface), the
// share of each circle of latitude within |y| < h in closed form
double ShareInsideSquarePrism(double r, double h) {
  const int n = 20000;
  double sum = 0;
  for (int q = 0; q < n; q++) {
    double u = -1 + (q + 0.5) * 2 / n, rho = r * std::sqrt(1 - u * u);
    if (std::fabs(r * u) >= h) continue;
    sum += rho <= h ? 1 : 2 * std::asin(h / rho) / kPi;
  }
  return sum / n;
}

// how far the union of the spheres (n x 4) reaches beyond the box of half-extents half
double Beyond(const std::vector<float>& s, const V3& half) {
  double worst = -INFINITY;
  for (size_t e = 0; e < s.size(); e += 4) {
    for (int a = 0; a < 3; a++) worst = std::fmax(worst, std::fabs(s[e + a]) + s[e + 3] - half[a]);
  }
  return worst;
}

//---------------------------------- shapes --------------------------------------------------------

TEST(ClumpFit, SphereMeshFitsOneSphereOfItsCentreAndRadius) {
  const double r = 0.05, cell = r / 12;
  Mesh m = Icosphere(3, r);
  Built b(m, cell);
  Fit f = FitClump(b.g, 1);
  ASSERT_EQ(f.st, grnOK) << f.msg;
  ASSERT_EQ(f.fit.count, 1);
  EXPECT_LT(std::sqrt(f.s[0] * f.s[0] + f.s[1] * f.s[1] + f.s[2] * f.s[2]), cell);
  EXPECT_NEAR(f.s[3], r, cell);
  // the figures: the mesh's volume and size, the sphere's volume; the ball of radius r holds the
  // icosphere and misses it by their volumes' difference, which the fit does no worse than
  double mesh = MeshVolume(m), ball = 4 * kPi / 3 * std::pow(f.s[3], 3);
  EXPECT_NEAR(f.fit.mesh_volume / mesh, 1, 0.01);
  EXPECT_NEAR(f.fit.clump_volume / ball, 1, 0.02);
  EXPECT_NEAR(f.fit.size, std::cbrt(6 * mesh / kPi), 0.01 * f.fit.size);
  EXPECT_LE(f.fit.volume_deviation, 4 * kPi / 3 * r * r * r / mesh - 1);
  // every point of the surface within a cell of the sphere
  EXPECT_LT(f.fit.surface_max * f.fit.size, cell);
  Print("sphere", 1, f.fit);
}

TEST(ClumpFit, ElongatedBoxFitsBetterWithMoreSpheres) {
  const V3 half = {0.1, 0.025, 0.025};
  const double cell = std::cbrt(8 * half[0] * half[1] * half[2]) / 24;
  Built b(BoxMesh(half), cell);
  const int most[5] = {1, 4, 8, 16, 32};
  Fit prev;
  for (int q = 0; q < 5; q++) {
    Fit f = FitClump(b.g, most[q]);
    ASSERT_EQ(f.st, grnOK) << f.msg;
    Print("box4x1", most[q], f.fit);
    EXPECT_EQ(f.fit.count, most[q]);
    std::printf("    reaches %.2f cells beyond the box\n", Beyond(f.s, half) / cell);
    if (q == 0) {
      // one ball: the volume in one of box and ball but not the other changes with the radius by
      // the ball's surface outside less its surface inside, so the best ball has half inside
      double lo = half[1], hi = 2 * half[1];
      for (int it = 0; it < 60; it++) {
        double mid = (lo + hi) / 2;
        (ShareInsideSquarePrism(mid, half[1]) > 0.5 ? lo : hi) = mid;
      }
      EXPECT_NEAR(lo / half[1], 4.0 / 3, 1e-3);
      EXPECT_NEAR(f.s[3], lo, cell);
      // and it misses less than the inscribed ball, 1 - (pi / 6) d^3 / (l d^2)
      EXPECT_LT(f.fit.volume_deviation, 1 - kPi / 6 * half[1] / half[0]);
      prev = f;
      continue;
    }
    if (most[q] == 4) {
      // four inscribed balls in a row, tangent, miss 1 - 4 (pi / 6) d / l = 47.6 %
      EXPECT_LT(f.fit.volume_deviation, 1 - 4 * kPi / 6 * half[1] / half[0]);
    }
    EXPECT_LT(f.fit.volume_deviation, prev.fit.volume_deviation);
    EXPECT_LT(f.fit.surface_mean, prev.fit.surface_mean);
    // greedy: the fit with more spheres has the centres of the fit with fewer first
    ASSERT_GE(f.s.size(), prev.s.size());
    for (size_t e = 0; e < prev.s.size(); e += 4) {
      EXPECT_EQ(std::memcmp(&f.s[e], &prev.s[e], 3 * sizeof(float)), 0) << "sphere " << e / 4;
    }
    prev = f;
  }
}

TEST(ClumpFit, CubeMissesLessThanHandBuiltClumpsAndKeepsItsVolume) {
  // bounds: a ball in a cube misses 1 - pi / 6 = 47.6 %; with the 8 balls in the corners that
  // touch three faces, of radius 0.29 of the side (the best), the 9 miss 26.0 %; with 12 more at
  // the edges' middles touching two faces, radius 0.19 of the side, the 21 miss 19.95 % (sums
  // over 120^3 cell midpoints). The fit misses less with 16 and 32.
  const double side = 0.1, cell = side / 24;
  Built b(BoxMesh({side / 2, side / 2, side / 2}), cell);
  Fit f16 = FitClump(b.g, 16), f32 = FitClump(b.g, 32);
  ASSERT_EQ(f16.st, grnOK) << f16.msg;
  ASSERT_EQ(f32.st, grnOK) << f32.msg;
  Print("cube", 16, f16.fit);
  Print("cube", 32, f32.fit);
  EXPECT_NEAR(f32.fit.mesh_volume / (side * side * side), 1, 0.01);
  EXPECT_LT(f16.fit.volume_deviation, 0.260);
  EXPECT_LT(f32.fit.volume_deviation, 0.1995);
  // the clump's volume is the cube's within 5 %: it reaches out where the corners are cut
  EXPECT_NEAR(f16.fit.clump_volume / (side * side * side), 1, 0.05);
  EXPECT_NEAR(f32.fit.clump_volume / (side * side * side), 1, 0.05);
  const V3 half = {side / 2, side / 2, side / 2};
  std::printf("  reaches %.2f and %.2f cells beyond the cube\n", Beyond(f16.s, half) / cell,
              Beyond(f32.s, half) / cell);
}

TEST(ClumpFit, LShapePutsSpheresInBothLegsCentredInsideAndKeepsItsVolume) {
  const double a = 0.1, t = 0.04, hz = 0.02, cell = t / 16;
  Built b(LPrism(a, t, hz), cell);
  const int most = 16;
  Fit f = FitClump(b.g, most);
  ASSERT_EQ(f.st, grnOK) << f.msg;
  Print("L", most, f.fit);
  ASSERT_EQ(f.fit.count, most);
  int leg_x = 0, leg_y = 0;
  double least = INFINITY, most_out = -INFINITY;
  for (int s = 0; s < f.fit.count; s++) {
    V3 c = {f.s[4 * s], f.s[4 * s + 1], f.s[4 * s + 2]};
    double r = f.s[4 * s + 3], depth = LDepth(c, a, t, hz);
    EXPECT_GT(depth, 0) << "sphere " << s << " centred outside the L";
    EXPECT_GE(r, cell);
    least = std::fmin(least, r - depth);
    most_out = std::fmax(most_out, r - depth);
    leg_x += c[0] > t;
    leg_y += c[1] > t;
  }
  // no sphere smaller than the inscribed one, to the grid's interpolation
  EXPECT_GE(least, -0.1 * cell);
  // the legs are alike: each holds a fair share
  EXPECT_GE(leg_x, most / 4);
  EXPECT_GE(leg_y, most / 4);
  // the clump's volume is the L's within 10 % (inscribed spheres missed a third)
  double volume = (a * t + (a - t) * t) * 2 * hz;
  EXPECT_NEAR(f.fit.clump_volume / volume, 1, 0.10);
  std::printf("  spheres in the x leg %d, the y leg %d; radius beyond the depth %.3f to %.3f "
              "cells\n", leg_x, leg_y, least / cell, most_out / cell);
}

TEST(ClumpFit, SpheresReachNoFurtherThanTheGridMeasures) {
  // the elongated box's best single ball (radius 4/3 its half-width, 2.5 cells beyond its sides)
  // on a grid of one cell's margin: the ball takes the largest radius whose reach ends half a cell
  // inside the outermost nodes, where its occupancy of the nodes vanishes (radii in quarter cells)
  const V3 half = {0.1, 0.025, 0.025};
  const double cell = std::cbrt(8 * half[0] * half[1] * half[2]) / 24;
  Built b(BoxMesh(half), cell, cell);
  Fit f = FitClump(b.g, 1);
  ASSERT_EQ(f.st, grnOK) << f.msg;
  const int n[3] = {b.g.nx, b.g.ny, b.g.nz};
  double room = INFINITY;
  for (int a = 0; a < 3; a++) {
    double lo = b.g.origin[a], hi = lo + (n[a] - 1) * (double)b.g.cell;
    room = std::fmin(room, std::fmin(f.s[a] - f.s[3] - lo, hi - f.s[a] - f.s[3]));
  }
  std::printf("  the ball ends %.3f cells inside the grid's edge, %.2f cells beyond the box\n",
              room / cell, Beyond(f.s, half) / cell);
  EXPECT_LT(f.s[3], 4.0 / 3 * half[1]);
  EXPECT_GE(room, 0.5 * cell * (1 - 1e-5));
  EXPECT_LT(room, 0.75 * cell);
}

//---------------------------------- behaviour -----------------------------------------------------

TEST(ClumpFit, StopsOnceTheToleranceIsMet) {
  const double side = 0.1, cell = side / 24, tolerance = 0.25;
  Built b(BoxMesh({side / 2, side / 2, side / 2}), cell);
  Fit f = FitClump(b.g, 32, tolerance);
  ASSERT_EQ(f.st, grnOK) << f.msg;
  ASSERT_GT(f.fit.count, 1);
  EXPECT_LT(f.fit.count, 32);
  EXPECT_LE(f.fit.volume_deviation, tolerance);
  // one sphere fewer does not meet it
  Fit fewer = FitClump(b.g, f.fit.count - 1);
  ASSERT_EQ(fewer.st, grnOK) << fewer.msg;
  EXPECT_GT(fewer.fit.volume_deviation, tolerance);
}

TEST(ClumpFit, SameInputSameSpheresBitForBit) {
  const double cell = 0.04 / 16;
  Built b1(LPrism(0.1, 0.04, 0.02), cell), b2(LPrism(0.1, 0.04, 0.02), cell);
  Fit f1 = FitClump(b1.g, 32), f2 = FitClump(b2.g, 32);
  ASSERT_EQ(f1.st, grnOK) << f1.msg;
  ASSERT_EQ(f2.st, grnOK) << f2.msg;
  ASSERT_EQ(f1.s.size(), f2.s.size());
  EXPECT_EQ(std::memcmp(f1.s.data(), f2.s.data(), sizeof(float) * f1.s.size()), 0);
  EXPECT_EQ(std::memcmp(&f1.fit, &f2.fit, sizeof(f1.fit)), 0);
}

TEST(ClumpFit, BadInputIsRefused) {
  const double cell = 0.005;
  Built b(BoxMesh({0.05, 0.05, 0.05}), cell);
  auto refused = [](const Fit& f, const char* word) {
    EXPECT_EQ(f.st, grnERR_ARG);
    EXPECT_NE(f.msg.find(word), std::string::npos) << f.msg;
  };
  refused(FitClump(b.g, 0), "most spheres");
  refused(FitClump(b.g, -3), "most spheres");
  refused(FitClump(b.g, GRN_CLUMP_MAX_SPHERES + 1), "most spheres");
  refused(FitClump(b.g, 8, -0.1), "tolerance");
  refused(FitClump(b.g, 8, 1), "tolerance");
  refused(FitClump(b.g, 8, NAN), "tolerance");

  // nulls
  grnClumpFit fit;
  float s[4];
  EXPECT_EQ(grn_clump_fit(nullptr, 1, 0, s, &fit, nullptr, 0), grnERR_ARG);
  EXPECT_EQ(grn_clump_fit(&b.g, 1, 0, nullptr, &fit, nullptr, 0), grnERR_ARG);
  EXPECT_EQ(grn_clump_fit(&b.g, 1, 0, s, nullptr, nullptr, 0), grnERR_ARG);

  // bad grids: too few nodes, a bad cell, a non-finite value
  std::vector<float> values(b.g.values, b.g.values + (size_t)b.g.nx * b.g.ny * b.g.nz);
  grnGrid g = b.g;
  g.values = values.data();
  g.nz = 1;
  refused(FitClump(g, 8), "nodes");
  g = b.g;
  g.values = values.data();
  g.cell = 0;
  refused(FitClump(g, 8), "cell");
  values[values.size() / 2] = NAN;
  g = b.g;
  g.values = values.data();
  refused(FitClump(g, 8), "non-finite");

  // no node inside
  std::vector<float> outside(values.size(), 0.01f);
  g.values = outside.data();
  refused(FitClump(g, 8), "no node inside");

  // a slab 1.5 cells thick: nodes inside, none a cell deep
  Built thin(BoxMesh({0.05, 0.05, 0.75 * cell}), cell);
  refused(FitClump(thin.g, 8), "too coarse");
}

}  // namespace
