// signed distance functions of the primitives and the grid lookup (grn_sdf.h). Each closed form
// is checked against an independent brute force: the surface as parametric patches, sampled
// densely and refined by a shrinking pattern search in double precision, with the side from the
// shape's defining inequality. At random points inside and outside, and at the awkward points
// (centre, axes, planes of symmetry, near the surface, far away):
// - the value matches the brute-force signed distance to float precision;
// - the gradient is a unit vector, and p - f(p) grad(p) lies on the surface: the gradient points
//   from the nearest surface point to p (outside) and from p to it (inside).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_sdf.h"

namespace {

using V3 = std::array<double, 3>;
const double kPi = 3.14159265358979323846;

// a surface patch: (u, v) in [0, 1]^2 (or periodic in v) to a point
struct Patch {
  std::function<V3(double, double)> at;
  bool periodic_v;  // v wraps around (no clamping)
};

double Dist(const V3& a, const V3& b) {
  double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return std::sqrt(dx * dx + dy * dy + dz * dz);
}

// unsigned distance from p to a patch: dense samples, then a pattern search from each of the few
// best samples (several starts get around the parametrization's singular poles)
double PatchDistance(const Patch& s, const V3& p, V3* nearest) {
  const int n = 20, starts = 4;
  std::vector<std::array<double, 3>> samples;  // distance, u, v
  for (int i = 0; i <= n; i++) {
    for (int j = 0; j <= n; j++) {
      samples.push_back({Dist(s.at((double)i / n, (double)j / n), p), (double)i / n,
                         (double)j / n});
    }
  }
  std::partial_sort(samples.begin(), samples.begin() + starts, samples.end());
  double best = INFINITY;
  for (int k = 0; k < starts; k++) {
    double d = samples[k][0], bu = samples[k][1], bv = samples[k][2], step = 1.0 / n;
    while (step > 1e-10) {
      bool moved = false;
      for (int du = -1; du <= 1; du++) {
        for (int dv = -1; dv <= 1; dv++) {
          if (!du && !dv) continue;
          double u = std::min(1.0, std::max(0.0, bu + du * step));
          double v = bv + dv * step;
          if (!s.periodic_v) v = std::min(1.0, std::max(0.0, v));
          double e = Dist(s.at(u, v), p);
          if (e < d) { d = e; bu = u; bv = v; moved = true; }
        }
      }
      if (!moved) step *= 0.5;
    }
    if (d < best) {
      best = d;
      if (nearest) *nearest = s.at(bu, bv);
    }
  }
  return best;
}

// a primitive as the brute force sees it
struct Shape {
  const char* name;
  int type;
  float size[3];
  std::vector<Patch> patches;
  std::function<bool(const V3&)> inside;
  double scale;  // largest dimension
};

double BruteDistance(const Shape& s, const V3& p, V3* nearest = nullptr) {
  double best = INFINITY;
  for (const Patch& pt : s.patches) {
    V3 q;
    double d = PatchDistance(pt, p, &q);
    if (d < best) {
      best = d;
      if (nearest) *nearest = q;
    }
  }
  return best;
}

double BruteSigned(const Shape& s, const V3& p) {
  double d = BruteDistance(s, p);
  return s.inside(p) ? -d : d;
}

// a face of the cube [-1, 1]^3 (normal axis a, side sg) with its z coordinate limited to
// [zlo, zhi], projected onto the unit sphere and then mapped: a sphere parametrization with no
// singular poles
Patch CubeSphere(int a, int sg, double zlo, double zhi, std::function<V3(const V3&)> map) {
  return {[=](double u, double v) {
            V3 c;
            int ua = (a + 1) % 3, va = (a + 2) % 3;
            c[a] = sg;
            c[ua] = ua == 2 ? zlo + (zhi - zlo) * u : 2 * u - 1;
            c[va] = va == 2 ? zlo + (zhi - zlo) * v : 2 * v - 1;
            double n = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            return map(V3{c[0] / n, c[1] / n, c[2] / n});
          },
          false};
}

// the six faces: a whole ellipsoid
std::vector<Patch> EllipsoidPatches(double a, double b, double c) {
  std::vector<Patch> out;
  for (int ax = 0; ax < 3; ax++) {
    for (int sg = -1; sg <= 1; sg += 2) {
      out.push_back(CubeSphere(ax, sg, -1, 1, [=](const V3& s) {
        return V3{a * s[0], b * s[1], c * s[2]};
      }));
    }
  }
  return out;
}

// a hemisphere of radius r centred at (0, 0, z0), on the side zs (+1: z >= z0)
std::vector<Patch> Hemisphere(double r, double z0, int zs) {
  std::vector<Patch> out;
  auto map = [=](const V3& s) { return V3{r * s[0], r * s[1], z0 + r * s[2]}; };
  double zlo = zs > 0 ? 0 : -1, zhi = zs > 0 ? 1 : 0;
  out.push_back(CubeSphere(2, zs, -1, 1, map));
  for (int ax = 0; ax < 2; ax++) {
    for (int sg = -1; sg <= 1; sg += 2) out.push_back(CubeSphere(ax, sg, zlo, zhi, map));
  }
  return out;
}

Shape MakeSphere(float r) {
  Shape s{"sphere", grnSHAPE_SPHERE, {r, 0, 0}, EllipsoidPatches(r, r, r), nullptr, r};
  s.inside = [r](const V3& p) { return p[0] * p[0] + p[1] * p[1] + p[2] * p[2] < r * r; };
  return s;
}

Shape MakeEllipsoid(float a, float b, float c) {
  Shape s{"ellipsoid", grnSHAPE_ELLIPSOID, {a, b, c}, EllipsoidPatches(a, b, c), nullptr,
          std::max(a, std::max(b, c))};
  s.inside = [a, b, c](const V3& p) {
    double x = p[0] / a, y = p[1] / b, z = p[2] / c;
    return x * x + y * y + z * z < 1;
  };
  return s;
}

Shape MakeBox(float hx, float hy, float hz) {
  Shape s{"box", grnSHAPE_BOX, {hx, hy, hz}, {}, nullptr, std::max(hx, std::max(hy, hz))};
  double h[3] = {hx, hy, hz};
  for (int a = 0; a < 3; a++) {
    for (int sg = -1; sg <= 1; sg += 2) {
      int ua = (a + 1) % 3, va = (a + 2) % 3;
      s.patches.push_back({[=](double u, double v) {
                             V3 q;
                             q[a] = sg * h[a];
                             q[ua] = h[ua] * (2 * u - 1);
                             q[va] = h[va] * (2 * v - 1);
                             return q;
                           },
                           false});
    }
  }
  s.inside = [h](const V3& p) {
    return std::fabs(p[0]) < h[0] && std::fabs(p[1]) < h[1] && std::fabs(p[2]) < h[2];
  };
  return s;
}

Shape MakeCylinder(float r, float half) {
  Shape s{"cylinder", grnSHAPE_CYLINDER, {r, half, 0}, {}, nullptr, std::max(r, half)};
  // side: z = half (2u - 1), phi periodic; caps: an annulus (radius r / 4 to r) and a square
  // over the middle, both free of singular points
  s.patches.push_back({[=](double u, double v) {
                         return V3{r * std::cos(2 * kPi * v), r * std::sin(2 * kPi * v),
                                   half * (2 * u - 1)};
                       },
                       true});
  for (int sg = -1; sg <= 1; sg += 2) {
    s.patches.push_back({[=](double u, double v) {
                           double rho = r * (0.25 + 0.75 * u);
                           return V3{rho * std::cos(2 * kPi * v), rho * std::sin(2 * kPi * v),
                                     (double)sg * half};
                         },
                         true});
    s.patches.push_back({[=](double u, double v) {
                           return V3{r * (u - 0.5), r * (v - 0.5), (double)sg * half};
                         },
                         false});
  }
  s.inside = [r, half](const V3& p) {
    return p[0] * p[0] + p[1] * p[1] < (double)r * r && std::fabs(p[2]) < half;
  };
  return s;
}

Shape MakeCapsule(float r, float half) {
  Shape s{"capsule", grnSHAPE_CAPSULE, {r, half, 0}, {}, nullptr, r + half};
  s.patches.push_back({[=](double u, double v) {
                         return V3{r * std::cos(2 * kPi * v), r * std::sin(2 * kPi * v),
                                   half * (2 * u - 1)};
                       },
                       true});
  for (int zs = -1; zs <= 1; zs += 2) {
    for (const Patch& pt : Hemisphere(r, zs * half, zs)) s.patches.push_back(pt);
  }
  s.inside = [r, half](const V3& p) {
    // the definition: closer than r to the axis segment
    double z = std::min((double)half, std::max(-(double)half, p[2]));
    double dx = p[0], dy = p[1], dz = p[2] - z;
    return dx * dx + dy * dy + dz * dz < (double)r * r;
  };
  return s;
}

// the code under test, for a shape
float Sdf(const Shape& s, const V3& p, grnVec3* grad) {
  grnShape sh;
  std::memset(&sh, 0, sizeof(sh));
  sh.type = s.type;
  for (int i = 0; i < 3; i++) sh.size[i] = s.size[i];
  sh.grid = -1;
  return grn_sdf_shape(&sh, nullptr, grn_v3((float)p[0], (float)p[1], (float)p[2]), grad);
}

// compare value and gradient with the brute force at p; returns the value error
double CheckPoint(const Shape& s, const V3& p) {
  grnVec3 g;
  float f = Sdf(s, p, &g);
  double ref = BruteSigned(s, p);
  // float rounding of the point and of the arithmetic, relative to the shape and the point
  double tol = 4e-6 * (s.scale + std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
  EXPECT_NEAR(f, ref, tol) << s.name << " at " << p[0] << " " << p[1] << " " << p[2];
  double gn = std::sqrt((double)g.x * g.x + (double)g.y * g.y + (double)g.z * g.z);
  EXPECT_NEAR(gn, 1.0, 1e-5) << s.name << " gradient norm at " << p[0] << " " << p[1] << " "
                             << p[2];
  // the point f(p) back along the gradient is on the surface
  V3 q = {p[0] - f * g.x, p[1] - f * g.y, p[2] - f * g.z};
  double off = BruteDistance(s, q);
  EXPECT_LT(off, 2e-5 * s.scale + 1e-4 * std::fabs(ref))
      << s.name << " gradient does not lead to the surface at " << p[0] << " " << p[1] << " "
      << p[2] << " f " << f << " grad " << g.x << " " << g.y << " " << g.z;
  return std::fabs(f - ref);
}

// random points in a box 1.6x the shape, plus points near the surface from both sides
void CheckRandom(const Shape& s, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  double ext[3];
  for (int i = 0; i < 3; i++) ext[i] = 1.6 * s.scale;
  double worst = 0;
  int inside = 0;
  for (int k = 0; k < n; k++) {
    V3 p = {ext[0] * u(rng), ext[1] * u(rng), ext[2] * u(rng)};
    if (k % 3 == 0) {
      // a point near the surface: a surface sample pushed off along a random direction
      const Patch& pt = s.patches[k % s.patches.size()];
      V3 q = pt.at(0.5 + 0.5 * u(rng), 0.5 + 0.5 * u(rng));
      double amp = s.scale * 0.02 * u(rng);
      for (int i = 0; i < 3; i++) p[i] = q[i] + amp * u(rng);
    }
    inside += s.inside(p);
    worst = std::max(worst, CheckPoint(s, p));
  }
  EXPECT_GT(inside, n / 20) << s.name << ": too few points inside to test";
  std::printf("%-9s size %.3f %.3f %.3f: %d points (%d inside), max |error| %.2e m\n", s.name,
              s.size[0], s.size[1], s.size[2], n, inside, worst);
}

TEST(SdfPrimitives, SphereMatchesBruteForce) {
  CheckRandom(MakeSphere(0.1f), 200, 1);
  CheckPoint(MakeSphere(0.1f), {0, 0, 0});
}

TEST(SdfPrimitives, BoxMatchesBruteForce) {
  Shape s = MakeBox(0.1f, 0.05f, 0.02f);
  CheckRandom(s, 200, 2);
  // centre, face centres, edges, corners
  for (V3 p : {V3{0, 0, 0}, V3{0.1, 0, 0}, V3{0.12, 0.06, 0}, V3{0.11, 0.06, 0.03},
               V3{0.05, 0.01, 0.0199}, V3{-0.099, 0.049, -0.019}}) {
    CheckPoint(s, p);
  }
}

TEST(SdfPrimitives, CylinderMatchesBruteForce) {
  Shape s = MakeCylinder(0.05f, 0.1f);
  CheckRandom(s, 200, 3);
  // axis, rim, caps, deep inside nearer the side or nearer a cap
  for (V3 p : {V3{0, 0, 0}, V3{0, 0, 0.15}, V3{0.06, 0, 0.11}, V3{0.03, 0.02, 0.0},
               V3{0.0, 0.01, 0.09}, V3{0.05, 0, 0.1}}) {
    CheckPoint(s, p);
  }
}

TEST(SdfPrimitives, CapsuleMatchesBruteForce) {
  Shape s = MakeCapsule(0.04f, 0.08f);
  CheckRandom(s, 200, 4);
  // on the axis inside and beyond the ends, at the junction of side and cap
  for (V3 p : {V3{0, 0, 0}, V3{0, 0, 0.1}, V3{0, 0, 0.2}, V3{0.05, 0, 0.08},
               V3{0.01, 0.0, -0.1}}) {
    CheckPoint(s, p);
  }
}

TEST(SdfPrimitives, EllipsoidMatchesBruteForce) {
  // unsorted axes, a prolate and an oblate spheroid (repeated axes), a sphere, a flat one
  const float sizes[][3] = {{0.1f, 0.3f, 0.2f}, {0.05f, 0.05f, 0.2f}, {0.2f, 0.2f, 0.05f},
                            {0.1f, 0.1f, 0.1f}, {0.3f, 0.02f, 0.1f}};
  unsigned seed = 10;
  for (const auto& sz : sizes) {
    Shape s = MakeEllipsoid(sz[0], sz[1], sz[2]);
    CheckRandom(s, 120, seed++);
    // the centre, points on each axis and on each plane of symmetry, inside and outside
    // (inside, near the centre, the nearest point leaves the axis: the degenerate cases)
    std::vector<V3> special = {{0, 0, 0}};
    for (int a = 0; a < 3; a++) {
      for (double f : {0.01, 0.3, 0.7, 0.999, 1.001, 1.5, 4.0}) {
        V3 p = {0, 0, 0};
        p[a] = f * sz[a];
        special.push_back(p);
        p[a] = -p[a];
        special.push_back(p);
      }
      for (double f : {0.05, 0.4, 0.9, 1.3}) {
        V3 p = {0, 0, 0};
        p[a] = f * sz[a] * 0.6;
        p[(a + 1) % 3] = f * sz[(a + 1) % 3] * 0.6;
        special.push_back(p);
      }
    }
    for (const V3& p : special) CheckPoint(s, p);
  }
}

TEST(SdfPrimitives, EllipsoidCentreIsTheSmallestSemiAxis) {
  grnVec3 g;
  const float sz[3] = {0.3f, 0.1f, 0.2f};
  float f = grn_sdf_ellipsoid(grn_v3(0, 0, 0), sz, &g);
  EXPECT_NEAR(f, -0.1f, 1e-6f);
  EXPECT_NEAR(std::fabs(g.y), 1.0f, 1e-6f);
}

TEST(SdfPrimitives, PlaneIsHeightAboveIt) {
  grnVec3 g;
  EXPECT_FLOAT_EQ(grn_sdf_plane(grn_v3(3, -2, 0.25f), &g), 0.25f);
  EXPECT_FLOAT_EQ(g.z, 1.0f);
  EXPECT_FLOAT_EQ(grn_sdf_plane(grn_v3(0, 0, -0.5f), &g), -0.5f);
}

TEST(SdfPrimitives, BoxInsideIsDistanceToTheWalls) {
  grnVec3 g;
  const float h[3] = {0.2f, 0.1f, 0.3f};
  // inside the container: positive, gradient away from the nearest wall
  EXPECT_NEAR(grn_sdf_boxinside(grn_v3(0.15f, 0, 0), h, &g), 0.05f, 1e-6f);
  EXPECT_NEAR(g.x, -1.0f, 1e-6f);
  EXPECT_NEAR(grn_sdf_boxinside(grn_v3(0.25f, 0, 0), h, &g), -0.05f, 1e-6f);
}

// a grid view sampling f at the nodes
struct TestGrid {
  std::vector<float> v;
  grnGridView view;
  TestGrid(int nx, int ny, int nz, float cell, const float* org,
           const std::function<double(double, double, double)>& f) {
    v.resize((size_t)nx * ny * nz);
    for (int k = 0; k < nz; k++) {
      for (int j = 0; j < ny; j++) {
        for (int i = 0; i < nx; i++) {
          v[i + (size_t)nx * (j + (size_t)ny * k)] =
              (float)f(org[0] + i * cell, org[1] + j * cell, org[2] + k * cell);
        }
      }
    }
    view.nx = nx;
    view.ny = ny;
    view.nz = nz;
    for (int i = 0; i < 3; i++) view.origin[i] = org[i];
    view.cell = cell;
    view.values = v.data();
  }
};

TEST(SdfGrid, ReproducesLinearFieldsAndTheirGradient) {
  // trilinear interpolation is exact for a linear field, anywhere in the box
  const float org[3] = {-0.1f, -0.05f, 0.02f};
  const double n[3] = {0.48, -0.6, 0.64};  // unit
  TestGrid g(9, 7, 5, 0.02f, org, [&](double x, double y, double z) {
    return n[0] * x + n[1] * y + n[2] * z - 0.01;
  });
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  for (int k = 0; k < 500; k++) {
    double p[3] = {org[0] + 0.16 * u(rng), org[1] + 0.12 * u(rng), org[2] + 0.08 * u(rng)};
    grnVec3 gr;
    float f = grn_sdf_grid(grn_v3((float)p[0], (float)p[1], (float)p[2]), &g.view, &gr);
    EXPECT_NEAR(f, n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - 0.01, 2e-6);
    EXPECT_NEAR(gr.x, n[0], 1e-4);
    EXPECT_NEAR(gr.y, n[1], 1e-4);
    EXPECT_NEAR(gr.z, n[2], 1e-4);
  }
  // nodes are read back, the last node included
  grnVec3 gr;
  EXPECT_NEAR(grn_sdf_grid(grn_v3(org[0] + 8 * 0.02f, org[1] + 6 * 0.02f, org[2] + 4 * 0.02f),
                           &g.view, &gr),
              g.v.back(), 1e-7);
  EXPECT_EQ(grn_sdf_grid(grn_v3(org[0], org[1], org[2]), &g.view, &gr), g.v.front());
}

TEST(SdfGrid, OutsideTheBoxAddsTheDistanceToIt) {
  // a sphere sampled on a grid; beyond the grid the value grows with the distance to the box
  const float org[3] = {-0.1f, -0.1f, -0.1f};
  TestGrid g(21, 21, 21, 0.01f, org, [](double x, double y, double z) {
    return std::sqrt(x * x + y * y + z * z) - 0.05;
  });
  grnVec3 gr;
  // straight out of a face: value at the face plus the distance, gradient along the normal
  // (up to the interpolant's tangential slope, a one-sided difference on a node line)
  float f = grn_sdf_grid(grn_v3(0.13f, 0, 0), &g.view, &gr);
  EXPECT_NEAR(f, 0.05 + 0.03, 1e-5);
  EXPECT_NEAR(gr.x, 1.0f, 0.01f);
  // beyond a corner: the value at the corner plus the distance to it
  f = grn_sdf_grid(grn_v3(0.13f, 0.12f, -0.14f), &g.view, &gr);
  double corner = std::sqrt(3 * 0.01) - 0.05;
  double out = std::sqrt(0.03 * 0.03 + 0.02 * 0.02 + 0.04 * 0.04);
  EXPECT_NEAR(f, corner + out, 1e-5);
  EXPECT_NEAR(std::sqrt(gr.x * gr.x + gr.y * gr.y + gr.z * gr.z), 1.0f, 1e-5f);
  EXPECT_GT(gr.x, 0);
  EXPECT_GT(gr.y, 0);
  EXPECT_LT(gr.z, 0);
  // continuous across the box boundary
  float in = grn_sdf_grid(grn_v3(0.0999f, 0.02f, 0.01f), &g.view, &gr);
  float on = grn_sdf_grid(grn_v3(0.1001f, 0.02f, 0.01f), &g.view, &gr);
  EXPECT_NEAR(in, on, 3e-4f);
  // a nan point reads some value without reading outside the grid
  grn_sdf_grid(grn_v3(NAN, 0, 0), &g.view, &gr);
}

TEST(SdfGrid, SphereGridIsWithinInterpolationErrorOfTheSphere) {
  // trilinear reads of sampled exact distances: second-order error, well within a cell
  const float cell = 0.01f, org[3] = {-0.1f, -0.1f, -0.1f};
  TestGrid g(21, 21, 21, cell, org, [](double x, double y, double z) {
    return std::sqrt(x * x + y * y + z * z) - 0.05;
  });
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  double worst = 0, worst_near = 0;
  for (int k = 0; k < 2000; k++) {
    double p[3] = {u(rng), u(rng), u(rng)};
    double r = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (r < 0.02) continue;  // the kink at the centre
    grnVec3 gr;
    float f = grn_sdf_grid(grn_v3((float)p[0], (float)p[1], (float)p[2]), &g.view, &gr);
    double e = std::fabs(f - (r - 0.05));
    worst = std::max(worst, e);
    if (std::fabs(r - 0.05) < 0.02) worst_near = std::max(worst_near, e);
    // the normal is close to radial
    EXPECT_GT((gr.x * p[0] + gr.y * p[1] + gr.z * p[2]) / r, 0.98);
  }
  EXPECT_LT(worst, 0.2 * cell);
  EXPECT_LT(worst_near, 0.1 * cell);
}

TEST(SdfShape, DispatchMatchesTheDirectCalls) {
  grnShape s;
  std::memset(&s, 0, sizeof(s));
  s.size[0] = 0.1f;
  s.size[1] = 0.2f;
  s.size[2] = 0.15f;
  grnVec3 p = grn_v3(0.07f, -0.12f, 0.3f), g0, g1;
  s.type = grnSHAPE_PLANE;
  EXPECT_EQ(grn_sdf_shape(&s, nullptr, p, &g0), grn_sdf_plane(p, &g1));
  s.type = grnSHAPE_SPHERE;
  EXPECT_EQ(grn_sdf_shape(&s, nullptr, p, &g0), grn_sdf_sphere(p, 0.1f, &g1));
  s.type = grnSHAPE_CAPSULE;
  EXPECT_EQ(grn_sdf_shape(&s, nullptr, p, &g0), grn_sdf_capsule(p, 0.1f, 0.2f, &g1));
  s.type = grnSHAPE_BOX;
  EXPECT_EQ(grn_sdf_shape(&s, nullptr, p, &g0), grn_sdf_box(p, s.size, &g1));
  s.type = grnSHAPE_CYLINDER;
  EXPECT_EQ(grn_sdf_shape(&s, nullptr, p, &g0), grn_sdf_cylinder(p, 0.1f, 0.2f, &g1));
  s.type = grnSHAPE_ELLIPSOID;
  EXPECT_EQ(grn_sdf_shape(&s, nullptr, p, &g0), grn_sdf_ellipsoid(p, s.size, &g1));
  s.type = grnSHAPE_BOXINSIDE;
  EXPECT_EQ(grn_sdf_shape(&s, nullptr, p, &g0), grn_sdf_boxinside(p, s.size, &g1));
  const float org[3] = {-0.1f, -0.1f, -0.1f};
  TestGrid tg(3, 3, 3, 0.1f, org, [](double x, double, double) { return x; });
  s.type = grnSHAPE_GRID;
  s.grid = 0;
  EXPECT_EQ(grn_sdf_shape(&s, &tg.view, p, &g0), grn_sdf_grid(p, &tg.view, &g1));
  s.type = grnNSHAPE;
  EXPECT_GT(grn_sdf_shape(&s, nullptr, p, &g0), 1e29f);
}

}  // namespace
