// projected jacobi contact (grn_contact_pj.h) with symplectic euler (grn_integrate.h), validated
// against analytic results: free fall, resting contact, head-on collision, the friction cone on
// an incline, a poured bed that settles, and a pile at rest that stays at rest.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_test_util.h"

namespace {

using grn_test::Grains;
using grn_test::MakeSolver;
using grn_test::MaxSpeed;
using grn_test::Read;
using grn_test::SolverPtr;

using grn_test::kG;

// default params for a few grains
grnParams SmallParams(int capacity) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = capacity;
  return p;
}

// float spacing (unit in the last place) at magnitude x
double Ulp(double x) { return std::nextafter((float)std::fabs(x), 1e30f) - (float)std::fabs(x); }

//---------------------------------- free fall -----------------------------------------------------

// symplectic euler from (x0, v0) under constant g after n steps of dt:
//   v_n = v0 + n g dt,  x_n = x0 + n dt v0 + g dt^2 n (n + 1) / 2
// which trails the analytic x0 + v0 t + g t^2 / 2 by g dt t / 2 (first order in dt)
TEST(ContactPJ, FreeFallMatchesAnalyticTrajectory) {
  grnParams p = SmallParams(1);
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float x0[3] = {0.1f, -0.2f, 1.0f}, v0[3] = {0.3f, -0.1f, 0.5f};
  ASSERT_EQ(grn_set_grains(s.get(), 1, x0, v0), grnOK);
  const double dt = p.dt, g[3] = {p.gravity[0], p.gravity[1], p.gravity[2]};
  const int chunk = 50, nchunk = 40;  // 2000 substeps: 1 s
  double worst_analytic = 0, worst_discrete = 0;
  for (int c = 1; c <= nchunk; c++) {
    ASSERT_EQ(grn_advance(s.get(), chunk), grnOK);
    Grains gr = Read(s.get());
    long n = (long)c * chunk;
    double t = n * dt;
    for (int a = 0; a < 3; a++) {
      double analytic = x0[a] + v0[a] * t + 0.5 * g[a] * t * t;
      double discrete = x0[a] + n * dt * v0[a] + g[a] * dt * dt * 0.5 * n * (n + 1);
      double vdiscrete = v0[a] + n * g[a] * dt;
      // float slack, a worst case over n steps: step k rounds x by half an ulp of |x|, and v by
      // half an ulp of |v|, an error that then moves x for the remaining n - k steps of dt
      // (sum: n^2 dt / 4 ulp(v) = n t / 4 ulp(v)); |x|, |v| bounded by the triangle inequality
      double xmax = std::fabs(x0[a]) + std::fabs(v0[a]) * t + 0.5 * std::fabs(g[a]) * t * t;
      double vmax = std::fabs(v0[a]) + std::fabs(g[a]) * t;
      double slack = 0.5 * n * Ulp(xmax) + 0.25 * n * t * Ulp(vmax) + Ulp(xmax);
      // first-order error bound g dt t plus float slack
      EXPECT_LE(std::fabs(gr.pos[a] - analytic), std::fabs(g[a]) * dt * t + slack)
          << "axis " << a << " t " << t;
      EXPECT_NEAR(gr.pos[a], discrete, slack) << "axis " << a << " t " << t;
      EXPECT_NEAR(gr.vel[a], vdiscrete, 0.5 * n * Ulp(vmax) + Ulp(vmax)) << "axis " << a;
      worst_analytic = std::max(worst_analytic, std::fabs(gr.pos[a] - analytic));
      worst_discrete = std::max(worst_discrete, std::fabs(gr.pos[a] - discrete));
    }
  }
  std::printf("[ measure  ] free fall 1 s: |x - analytic| max %.3g m (bound g dt t = %.3g m), "
              "|x - discrete| max %.3g m\n", worst_analytic, kG * dt * 1.0, worst_discrete);
}

//---------------------------------- resting contact -----------------------------------------------

struct RestTrace {
  double max_pen = 0;         // deepest penetration r - clearance over the run [m]
  double final_pen = 0;       // at the end [m]
  double late_range = 0;      // largest extent of the centre's motion over the last 0.5 s [m]
  double late_max_speed = 0;  // over the last 0.5 s [m/s]
};

// one grain, at rest at x0, stepped for 1 s among static shapes; clearance(x) is the distance
// from a centre at x to the nearest boundary it rests on
template <typename Clearance>
RestTrace Rest(const std::vector<grnShape>& shapes, const float x0[3], Clearance clearance) {
  grnParams p = SmallParams(1);
  SolverPtr s = MakeSolver(p);
  RestTrace tr;
  if (!s) return tr;
  EXPECT_EQ(grn_set_shapes(s.get(), (int)shapes.size(), shapes.data()), grnOK);
  EXPECT_EQ(grn_set_grains(s.get(), 1, x0, nullptr), grnOK);
  const int steps = (int)std::lround(1.0 / p.dt);
  double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
  for (int k = 1; k <= steps; k++) {
    EXPECT_EQ(grn_advance(s.get(), 1), grnOK);
    Grains g = Read(s.get());
    double pen = p.radius - clearance(g.pos.data());
    tr.max_pen = std::max(tr.max_pen, pen);
    tr.final_pen = pen;
    if (k > steps / 2) {
      for (int a = 0; a < 3; a++) {
        lo[a] = std::min(lo[a], (double)g.pos[a]);
        hi[a] = std::max(hi[a], (double)g.pos[a]);
        tr.late_range = std::max(tr.late_range, hi[a] - lo[a]);
      }
      tr.late_max_speed = std::max(tr.late_max_speed, MaxSpeed(g.vel));
    }
  }
  return tr;
}

// "no jitter": over the last half second the grain moves less than 0.1% of a radius and its
// speed stays below 0.1% of sqrt(2 g r), the speed of a fall by one radius. resting contact is
// an equilibrium of the solver, so anything left is noise, and noise of this size would move
// the grain by a radius only in ~1000 radius-fall times. (a contact lost for one substep shows
// as a speed of g dt = 4.9 mm/s, 1.6% of sqrt(2 g r).)
void ExpectRests(const RestTrace& tr, float r, const char* what) {
  double vref = std::sqrt(2 * kG * r);
  EXPECT_LE(tr.final_pen, 0.01 * r) << what << ": sank more than 1% of r after 1 s";
  EXPECT_LE(tr.max_pen, 0.01 * r) << what << ": penetrated more than 1% of r at some time";
  EXPECT_GE(tr.final_pen, -0.01 * r) << what << ": did not come down to rest on the boundary";
  EXPECT_LE(tr.late_range, 1e-3 * r) << what << ": position jitters";
  EXPECT_LE(tr.late_max_speed, 1e-3 * vref) << what << ": speed jitters";
  std::printf("[ measure  ] %s: penetration final %.3g r, max %.3g r; last 0.5 s: motion range "
              "%.3g r, max speed %.3g m/s (%.3g sqrt(2 g r))\n", what, tr.final_pen / r,
              tr.max_pen / r, tr.late_range / r, tr.late_max_speed, tr.late_max_speed / vref);
}

// one grain on the floor plane (static, identity orientation) from height z0
RestTrace RestOnFloor(float z0) {
  grnShape floor = grn_test::StaticShape(grnSHAPE_PLANE);
  floor.friction = 0.5f;
  const float x0[3] = {0.01f, -0.02f, z0};
  return Rest({floor}, x0, [](const float* x) { return (double)x[2]; });
}

TEST(ContactPJ, GrainPlacedOnFloorNeitherSinksNorJitters) {
  grnParams p = SmallParams(1);
  ExpectRests(RestOnFloor(p.radius), p.radius, "grain placed on floor");
}

TEST(ContactPJ, GrainDroppedOnFloorComesToRest) {
  grnParams p = SmallParams(1);
  // from 2 cm: lands at about 0.63 m/s, must not sink in or bounce about
  ExpectRests(RestOnFloor(p.radius + 0.02f), p.radius, "grain dropped 2 cm onto floor");
}

// the floor of a container is a floor too: a grain resting in the middle of it, along the edge
// where it meets a wall, and in a corner, touching one, two and three of its faces
TEST(ContactPJ, GrainInContainerRestsOnFloorEdgeAndCorner) {
  const float r = SmallParams(1).radius, h = 0.05f;
  const float c[3] = {0, 0, h}, half[3] = {h, h, h};
  std::vector<grnShape> box = grn_test::Container(c, half, 0.5f);
  // distance from the centre to the nearest of floor and side walls
  auto clearance = [h](const float* x) {
    return std::min({(double)x[2], h - std::fabs((double)x[0]), h - std::fabs((double)x[1])});
  };
  const float floor[3] = {0.01f, -0.02f, r}, edge[3] = {h - r, -0.02f, r},
              corner[3] = {-(h - r), h - r, r};
  ExpectRests(Rest(box, floor, clearance), r, "grain on a container floor");
  ExpectRests(Rest(box, edge, clearance), r, "grain in a container's floor-wall edge");
  ExpectRests(Rest(box, corner, clearance), r, "grain in a container's corner");
}

//---------------------------------- head-on collision ---------------------------------------------

// two equal grains approach along x at unequal speeds without gravity: the sum of their
// velocities (momentum / mass) stays what it was, and once the collision has resolved they no
// longer overlap
TEST(ContactPJ, HeadOnCollisionConservesMomentumAndLeavesNoOverlap) {
  grnParams p = SmallParams(2);
  p.gravity[2] = 0;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float r = p.radius;
  const float pos[6] = {-0.02f, 0.001f, 0.3f, 0.02f, 0.001f, 0.3f};
  const float vel[6] = {1.0f, 0, 0, -0.5f, 0, 0};
  ASSERT_EQ(grn_set_grains(s.get(), 2, pos, vel), grnOK);
  const double p0[3] = {0.5, 0, 0};
  double worst_dp = 0, worst_overlap_after = 0, min_dist = 1e30;
  bool touched = false;
  // gap 0.04 - 2 r closes at 1.5 m/s in 0.02 s; run 0.1 s
  for (int k = 0; k < 200; k++) {
    ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
    Grains g = Read(s.get());
    for (int a = 0; a < 3; a++) {
      double dp = std::fabs((double)g.vel[a] + g.vel[3 + a] - p0[a]);
      worst_dp = std::max(worst_dp, dp);
      // float precision of a sum of two velocities of order 1 m/s
      EXPECT_LE(dp, 4 * Ulp(1.0)) << "momentum changed at substep " << k << " axis " << a;
    }
    double dx = g.pos[3] - g.pos[0], dy = g.pos[4] - g.pos[1], dz = g.pos[5] - g.pos[2];
    double dist = std::sqrt(dx * dx + dy * dy + dz * dz);
    min_dist = std::min(min_dist, dist);
    if (dist < 2 * r * 1.01) touched = true;
    // the approach has been stopped by 0.03 s; from then on there must be no overlap left
    if (k * p.dt > 0.03) worst_overlap_after = std::max(worst_overlap_after, 2 * r - dist);
  }
  Grains g = Read(s.get());
  EXPECT_TRUE(touched) << "the grains never met";
  // overlap no larger than float resolution of the positions (~4e-9 m here), with room: 1e-4 r
  EXPECT_LE(worst_overlap_after, 1e-4 * r) << "overlap remains after the collision";
  // the two grains no longer approach each other
  EXPECT_GE(g.vel[3] - g.vel[0], -1e-6f);
  std::printf("[ measure  ] head-on: max |dp|/m %.3g m/s, min distance %.6g r (2 r = touching), "
              "max overlap after 0.03 s %.3g r, final velocities %.6g %.6g m/s\n", worst_dp,
              min_dist / r, worst_overlap_after / r, g.vel[0], g.vel[3]);
}

// many grains with random velocities in free space collide with one another: every pair's
// impulses are equal and opposite, so total momentum is conserved
TEST(ContactPJ, CrowdCollisionConservesMomentum) {
  const int n = 512;
  grnParams p = SmallParams(n);
  p.gravity[2] = 0;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float lo[3] = {-0.04f, -0.04f, -0.04f}, hi[3] = {0.04f, 0.04f, 0.04f};
  std::vector<float> pos = grn_test::JitteredLattice(n, lo, hi, 2.1f * p.radius, 0.02f * p.radius,
                                                     5);
  ASSERT_EQ((int)pos.size(), 3 * n);
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  std::vector<float> vel(3 * n);
  for (float& v : vel) v = u(rng);
  ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), vel.data()), grnOK);
  auto momentum = [&](const std::vector<float>& v, double* m, double* mabs) {
    m[0] = m[1] = m[2] = 0;
    *mabs = 0;
    for (int i = 0; i < 3 * n; i++) {
      m[i % 3] += v[i];
      *mabs += std::fabs(v[i]);
    }
  };
  double m0[3], abs0;
  momentum(vel, m0, &abs0);
  ASSERT_EQ(grn_advance(s.get(), 100), grnOK);
  Grains g = Read(s.get());
  double m1[3], abs1;
  momentum(g.vel, m1, &abs1);
  double worst = 0;
  for (int a = 0; a < 3; a++) worst = std::max(worst, std::fabs(m1[a] - m0[a]));
  // float rounding: about an ulp of each velocity per contact update; allow 1e-6 of sum |v|
  EXPECT_LE(worst, 1e-6 * abs0);
  // collisions happened: inelastic contacts remove kinetic energy
  EXPECT_LT(abs1, 0.99 * abs0);
  std::printf("[ measure  ] crowd of %d: |delta momentum|/m %.3g m/s of sum |v| %.4g m/s "
              "(after: %.4g)\n", n, worst, abs0, abs1);
}

// friction on an incline, with rotation: tests/kernels/test_rotation.cc

//---------------------------------- wrench on a body ----------------------------------------------

// grains resting on a plane that belongs to a body push on it with their weight: the average
// force is -n m g and the torque about the body com is (contact point - com) x force
TEST(ContactPJ, RestingGrainsPushOnBodyWithTheirWeight) {
  grnParams p = SmallParams(3);
  p.max_bodies = 2;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  grnShape floor = grn_test::StaticShape(grnSHAPE_PLANE);
  floor.friction = 0.5f;
  floor.body = 1;
  floor.com[0] = 0.01f;
  ASSERT_EQ(grn_set_shapes(s.get(), 1, &floor), grnOK);
  const float r = p.radius;
  const float pos[9] = {0.05f, 0, r, -0.03f, 0.02f, r, 0.0f, -0.04f, r};
  ASSERT_EQ(grn_set_grains(s.get(), 3, pos, nullptr), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 200), grnOK);  // settle
  ASSERT_EQ(grn_advance(s.get(), 20), grnOK);
  double w[12];
  ASSERT_EQ(grn_get_wrenches(s.get(), w), grnOK);
  double m = grn_grain_mass(s.get()), weight = 3 * m * kG;
  // body 0 has no shape
  for (int i = 0; i < 6; i++) EXPECT_EQ(w[i], 0.0);
  const double* f = w + 6;
  const double* t = w + 9;
  EXPECT_NEAR(f[0], 0, 1e-3 * weight);
  EXPECT_NEAR(f[1], 0, 1e-3 * weight);
  EXPECT_NEAR(f[2], -weight, 1e-3 * weight);
  // torque of -m g z at each contact point (x, y, 0) about com (0.01, 0, 0)
  double tx = 0, ty = 0;
  for (int i = 0; i < 3; i++) {
    double rx = pos[3 * i] - 0.01, ry = pos[3 * i + 1];
    tx += ry * (-m * kG);
    ty += -rx * (-m * kG);
  }
  EXPECT_NEAR(t[0], tx, 1e-3 * weight * 0.05);
  EXPECT_NEAR(t[1], ty, 1e-3 * weight * 0.05);
  EXPECT_NEAR(t[2], 0, 1e-3 * weight * 0.05);
  std::printf("[ measure  ] wrench of 3 resting grains: force z %.6g N (weight %.6g N), torque "
              "(%.4g %.4g %.4g) N m vs (%.4g %.4g 0)\n", f[2], weight, t[0], t[1], t[2], tx, ty);
}

//---------------------------------- a poured bed --------------------------------------------------

// volume fraction of the box [lo, hi] covered by grains of radius r, by sampling a regular grid
// of points (spacing r / 6) and counting those inside a grain
double PackingFraction(const std::vector<float>& pos, float r, const double lo[3],
                       const double hi[3]) {
  // grains binned by cells of one diameter for the point queries
  const double cell = 2 * r;
  auto key = [](long i, long j, long k) { return (i * 4096 + j) * 4096 + k; };
  auto bin = [&](double x) { return (long)std::floor(x / cell) + 2048; };
  std::unordered_map<long, std::vector<int>> bins;
  int n = (int)(pos.size() / 3);
  for (int g = 0; g < n; g++) {
    bins[key(bin(pos[3 * g]), bin(pos[3 * g + 1]), bin(pos[3 * g + 2]))].push_back(g);
  }
  const double step = r / 6.0;
  long inside = 0, total = 0;
  for (double px = lo[0] + step / 2; px < hi[0]; px += step) {
    for (double py = lo[1] + step / 2; py < hi[1]; py += step) {
      for (double pz = lo[2] + step / 2; pz < hi[2]; pz += step) {
        total++;
        bool hit = false;
        for (long a = bin(px) - 1; a <= bin(px) + 1 && !hit; a++) {
          for (long b = bin(py) - 1; b <= bin(py) + 1 && !hit; b++) {
            for (long c = bin(pz) - 1; c <= bin(pz) + 1 && !hit; c++) {
              auto it = bins.find(key(a, b, c));
              if (it == bins.end()) continue;
              for (int g : it->second) {
                double dx = px - pos[3 * g], dy = py - pos[3 * g + 1], dz = pz - pos[3 * g + 2];
                if (dx * dx + dy * dy + dz * dz < (double)r * r) {
                  hit = true;
                  break;
                }
              }
            }
          }
        }
        inside += hit;
      }
    }
  }
  return total ? (double)inside / total : 0;
}

// glass beads: sliding friction about 0.3 (the packing fractions quoted below are measured for
// such beads)
constexpr float kGlassBeadFriction = 0.3f;

// 2000 grains poured from random positions into a container 12 diameters across and settled
// for 2 s, then stepped for half a second more. one test, so that the pour runs once under ctest.
//
// at rest: the speed of a fall by one radius, sqrt(2 g r) (0.31 m/s for r = 5 mm), is the
// natural scale of grain motion in a bed: a grain displaced by a radius comes back at about
// that speed. a bed at rest holds its grains still to a small fraction of it; 1% of it (3 mm/s)
// moves a grain by less than a radius in 1.6 s, and carries 1e-4 of the energy of that fall.
//
// packing: random close packing of equal spheres is about 0.64, random loose packing about
// 0.55; a settled frictional bed lies between. measured 3 diameters from the walls and the
// floor and 2 below the free surface, where the walls do not order the packing.
//
// stays at rest: stepped half a second more, no grain moves by more than 5% of its radius (creep
// under the relaxed jacobi iteration would show here first, in the grains with most contacts).
//
// contact: the bed pushes into floor and walls by no more than 1% of a radius, the bound the
// single resting grain is held to.
TEST(ContactPJ, PouredBedSettlesAndStaysAtRest) {
  const int kGrains = 2000;
  const float kHalf = 0.06f, kHeight = 0.8f;
  const double kSettle = 2.0, kRest = 0.5;
  grnParams p;
  grn_default_params(&p);
  p.capacity = kGrains;
  p.friction = kGlassBeadFriction;
  const float r = p.radius, d = 2 * r;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float c[3] = {0, 0, 0.5f * kHeight}, h[3] = {kHalf, kHalf, 0.5f * kHeight};
  std::vector<grnShape> box = grn_test::Container(c, h, p.friction);
  // (floor and walls as rough as the grains, grn_box_planes' rule: on a floor with no rolling
  // resistance a grain that rolls never stops, however slowly)
  ASSERT_EQ(grn_set_shapes(s.get(), (int)box.size(), box.data()), grnOK);

  // pour: random sites in a tall column above the floor (a lattice of 1.5 diameters, each site
  // moved at random by up to 0.45 r per axis, so no two grains start in line), random initial
  // velocities up to 0.1 m/s
  float in = kHalf - 1.2f * r;
  const float lo[3] = {-in, -in, 1.2f * r}, hi[3] = {in, in, kHeight - 1.2f * r};
  std::vector<float> pos = grn_test::JitteredLattice(kGrains, lo, hi, 3.0f * r, 0.45f * r, 7);
  ASSERT_EQ((int)pos.size(), 3 * kGrains) << "container too small for the pour";
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  std::vector<float> vel(pos.size());
  for (float& v : vel) v = u(rng);
  ASSERT_EQ(grn_set_grains(s.get(), kGrains, pos.data(), vel.data()), grnOK);

  // settle
  ASSERT_EQ(grn_advance(s.get(), (int)std::lround(kSettle / p.dt)), grnOK);
  Grains bed = Read(s.get());

  // at rest
  const double vref = std::sqrt(2 * kG * r);
  const double vmax = MaxSpeed(bed.vel);
  EXPECT_LE(vmax, 0.01 * vref) << "the bed has not come to rest";

  // packing fraction in the core
  std::vector<float> z;
  for (int i = 0; i < kGrains; i++) z.push_back(bed.pos[3 * i + 2]);
  std::sort(z.begin(), z.end());
  const double surface = z[(size_t)(0.98 * kGrains)];
  const double core_lo[3] = {-kHalf + 3 * d, -kHalf + 3 * d, 3 * d};
  const double core_hi[3] = {kHalf - 3 * d, kHalf - 3 * d, surface - 2 * d};
  ASSERT_GT(core_hi[2] - core_lo[2], 3 * d) << "bed too shallow to measure";
  const double phi = PackingFraction(bed.pos, r, core_lo, core_hi);
  EXPECT_GE(phi, 0.55);
  EXPECT_LE(phi, 0.64);

  // (for the report: the fastest grain away from the container's faces)
  double vmax_inner = 0;
  for (int i = 0; i < kGrains; i++) {
    const float* x = &bed.pos[3 * i];
    if (x[2] < 2 * d || std::fabs(x[0]) > kHalf - 2 * d || std::fabs(x[1]) > kHalf - 2 * d) {
      continue;
    }
    std::vector<float> v(bed.vel.begin() + 3 * i, bed.vel.begin() + 3 * i + 3);
    vmax_inner = std::max(vmax_inner, MaxSpeed(v));
  }

  // no deeper into floor and walls than 1% of a radius
  double floor_pen = 0, wall_pen = 0;
  for (int i = 0; i < kGrains; i++) {
    floor_pen = std::max(floor_pen, r - (double)bed.pos[3 * i + 2]);
    for (int a = 0; a < 2; a++) {
      wall_pen = std::max(wall_pen, (double)std::fabs(bed.pos[3 * i + a]) - (kHalf - r));
    }
  }
  EXPECT_LE(floor_pen, 0.01 * r) << "grains sink into the floor";
  EXPECT_LE(wall_pen, 0.01 * r) << "grains push into the walls";

  // stays at rest
  ASSERT_EQ(grn_advance(s.get(), (int)std::lround(kRest / p.dt)), grnOK);
  Grains after = Read(s.get());
  double drift = 0, mean = 0;
  int worst = 0;
  for (int i = 0; i < kGrains; i++) {
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
      d2 += std::pow((double)after.pos[3 * i + a] - bed.pos[3 * i + a], 2);
    }
    mean += std::sqrt(d2) / kGrains;
    if (std::sqrt(d2) > drift) drift = std::sqrt(d2), worst = i;
  }
  EXPECT_LE(drift, 0.05 * r) << "the pile does not stay at rest";

  std::printf("[ measure  ] poured bed, %d grains, %.1f s: max speed %.3g m/s = %.3g sqrt(2 g r) "
              "(%.3g m/s 2 d or more from floor and walls); packing %.4f in x,y in [%.3g, %.3g] "
              "z in [%.3g, %.3g] m (surface %.3g m); penetration floor %.3g r, walls %.3g r\n",
              kGrains, kSettle, vmax, vmax / vref, vmax_inner, phi, core_lo[0], core_hi[0],
              core_lo[2], core_hi[2], surface, floor_pen / r, wall_pen / r);
  std::printf("[ measure  ] pile at rest, %.1f s more: max drift %.3g r (grain at x %.4g y %.4g "
              "z %.4g m), mean drift %.3g r, max speed after %.3g m/s\n", kRest, drift / r,
              bed.pos[3 * worst], bed.pos[3 * worst + 1], bed.pos[3 * worst + 2], mean / r,
              MaxSpeed(after.vel));
}

}  // namespace
