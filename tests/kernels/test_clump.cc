// rigid clumps of spheres (grn_set_clumps, grn_clump.h) against analytic mechanics: a clump in
// free space keeps its energy and angular momentum and flips about its intermediate axis only; a
// flat clump and a box fitted from its mesh on an incline stick below the friction angle and
// slide at g (sin - mu cos) above (projected jacobi and dem); a rod leaning on a wall (a ladder)
// and two rods leaning on each other stand or slide by their friction, within 2 degrees and 10%
// of the static limits; one resting on the floor does not rock or creep; a cube dropped on a
// corner settles on a face; two clumps colliding keep linear and angular momentum; a
// single-sphere clump rolls as a sphere does; a clump's spheres never touch each other, and the
// pairs between clumps are those brute force finds; pours are the same bit for bit on any thread
// count and on the gpu.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <omp.h>

#include "clump_fit.h"
#include "granular.h"
#include "grn_mesh_util.h"
#include "grn_test_util.h"
#include "mesh_mass.h"
#include "sdf_mesh.h"

namespace {

using grn_test::Deg;
using grn_test::kG;
using grn_test::MakeSolver;
using grn_test::SolverPtr;

constexpr float kR = 0.005f;         // sphere radius [m]
constexpr float kDensity = 2500;     // [kg/m^3]

// a clump type with its spheres, mass and principal moments, computed from its spheres as solid
// spheres of kDensity (their overlaps counted twice: any positive mass and moments will do, as
// long as the tests use the same ones)
struct ClumpType {
  std::vector<float> spheres;        // (n x 4) centre, radius
  float mass = 0;
  float inertia[3] = {0, 0, 0};      // about the body axes, which must be principal
  grnClumpType View() const {
    grnClumpType t;
    t.nsphere = (int)(spheres.size() / 4);
    t.spheres = spheres.data();
    t.mass = mass;
    std::copy(inertia, inertia + 3, t.inertia);
    return t;
  }
};

// spheres of radius r at the given centres, with the mass and moments of the spheres (the
// centres symmetric under each axis's reflection, so the axes are principal and the centre of
// mass is the origin)
ClumpType SymmetricClump(const std::vector<float>& centres, float r) {
  ClumpType t;
  double ms = kDensity * 4.0 / 3.0 * grn_test::kPi * r * r * r;
  double moment[3] = {0, 0, 0};
  for (size_t e = 0; e + 2 < centres.size(); e += 3) {
    const float* c = centres.data() + e;
    t.spheres.insert(t.spheres.end(), {c[0], c[1], c[2], r});
    for (int a = 0; a < 3; a++) {
      double d2 = 0;
      for (int b = 0; b < 3; b++) d2 += b == a ? 0 : (double)c[b] * c[b];
      moment[a] += 0.4 * ms * r * r + ms * d2;
    }
  }
  t.mass = (float)(ms * (double)(centres.size() / 3));
  for (int a = 0; a < 3; a++) t.inertia[a] = (float)moment[a];
  return t;
}

// a flat plate: four spheres at (+-a, +-a, 0)
ClumpType Plate(float a) {
  return SymmetricClump({-a, -a, 0, a, -a, 0, -a, a, 0, a, a, 0}, kR);
}

// a cube: eight spheres at (+-a, +-a, +-a)
ClumpType Cube(float a) {
  std::vector<float> c;
  for (int k = -1; k <= 1; k += 2) {
    for (int j = -1; j <= 1; j += 2) {
      for (int i = -1; i <= 1; i += 2) c.insert(c.end(), {i * a, j * a, k * a});
    }
  }
  return SymmetricClump(c, kR);
}

// a bar with unequal moments about its three axes: six spheres along x, two rows along y, one
// layer
ClumpType Bar() {
  std::vector<float> c;
  for (int i = 0; i < 3; i++) {
    for (int j = -1; j <= 1; j += 2) c.insert(c.end(), {(i - 1) * 2 * kR, j * 0.8f * kR, 0});
  }
  return SymmetricClump(c, kR);
}

// params of a solver of clumps whose spheres are at most radius in size (dem: its default
// substep for that size)
grnParams ClumpParams(int model, int max_clumps, int capacity, float radius = kR) {
  grnParams p;
  grn_default_params(&p);
  p.model = model;
  p.radius = radius;
  p.density = kDensity;
  p.capacity = capacity;
  p.max_clumps = max_clumps;
  if (model == grnMODEL_DEM) p.dt = (float)(GRN_DEM_DT_FRACTION * grn_dem_time_scale(&p, radius));
  return p;
}

// a solver of params p over a floor with friction mu, under gravity tilted by theta: an incline
// whose downhill is x
SolverPtr OnIncline(grnParams p, double theta, float mu) {
  p.gravity[0] = (float)(kG * std::sin(theta));
  p.gravity[2] = (float)(-kG * std::cos(theta));
  p.friction = mu;
  SolverPtr s = MakeSolver(p);
  grnShape floor = grn_test::StaticShape(grnSHAPE_PLANE);
  floor.friction = mu;
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &floor), grnOK);
  return s;
}

// one clump's state
struct Clump {
  double pos[3], orient[4], vel[3], angvel[3];
};

std::vector<Clump> ReadClumps(const grnSolver* s) {
  int n = grn_clump_count(s);
  std::vector<float> x(3 * n), q(4 * n), v(3 * n), w(3 * n);
  EXPECT_EQ(grn_get_clumps(s, x.data(), q.data(), v.data(), w.data()), grnOK);
  std::vector<Clump> out(n);
  for (int c = 0; c < n; c++) {
    for (int a = 0; a < 3; a++) {
      out[c].pos[a] = x[3 * c + a];
      out[c].vel[a] = v[3 * c + a];
      out[c].angvel[a] = w[3 * c + a];
    }
    for (int a = 0; a < 4; a++) out[c].orient[a] = q[4 * c + a];
  }
  return out;
}

// the rotation matrix of orientation q (w x y z), body to world
void Rotation(const double q[4], double r[3][3]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  const double m[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                          {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                          {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
  std::copy(&m[0][0], &m[0][0] + 9, &r[0][0]);
}

// v turned from the world into the body frame of orientation q: R^T v
void ToBody(const double q[4], const double v[3], double out[3]) {
  double r[3][3];
  Rotation(q, r);
  for (int a = 0; a < 3; a++) out[a] = r[0][a] * v[0] + r[1][a] * v[1] + r[2][a] * v[2];
}

// the world direction of body axis a of orientation q
void BodyAxis(const double q[4], int a, double out[3]) {
  double r[3][3];
  Rotation(q, r);
  for (int b = 0; b < 3; b++) out[b] = r[b][a];
}

// one clump of type t put into s at x with orientation q, velocity v, angular velocity w
void SetOne(grnSolver* s, const ClumpType& t, const float x[3], const float q[4],
            const float v[3], const float w[3]) {
  grnClumpType view = t.View();
  int type = 0;
  ASSERT_EQ(grn_set_clumps(s, &view, 1, 1, &type, x, q, v, w), grnOK);
}

//---------------------------------- free rotation -------------------------------------------------

// rotational energy and world angular momentum of a clump of type t
void Rotational(const ClumpType& t, const Clump& c, double* energy, double mom[3]) {
  double wb[3];
  ToBody(c.orient, c.angvel, wb);
  double lb[3], e = 0;
  for (int a = 0; a < 3; a++) {
    lb[a] = t.inertia[a] * wb[a];
    e += 0.5 * lb[a] * wb[a];
  }
  *energy = e;
  // L = R (I w_b)
  double r[3][3];
  Rotation(c.orient, r);
  for (int a = 0; a < 3; a++) mom[a] = r[a][0] * lb[0] + r[a][1] * lb[1] + r[a][2] * lb[2];
}

// a bar spun about one of its axes (with a small disturbance) in zero gravity: energy and angular
// momentum kept within 1e-5 over 10,000 substeps; returns the least share of the spin the axis
// kept (the body angular velocity's component along it over its start)
double SpinAbout(int axis, int model) {
  ClumpType bar = Bar();
  // the moments must be distinct for the intermediate axis to be unstable
  EXPECT_LT(bar.inertia[0], bar.inertia[1]);
  EXPECT_LT(bar.inertia[1], bar.inertia[2]);
  grnParams p = ClumpParams(model, 1, 16);
  p.gravity[2] = 0;
  p.dt = 5e-4f;  // no contacts: dem's substep need not resolve one
  SolverPtr s = MakeSolver(p);
  const float x[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0}, v[3] = {0, 0, 0};
  float w[3] = {0.02f, 0.02f, 0.02f};
  w[axis] = 20;  // rad/s; 0.01 rad per substep at the pj default
  SetOne(s.get(), bar, x, q, v, w);
  double e0, l0[3];
  Rotational(bar, ReadClumps(s.get())[0], &e0, l0);
  double least = 1;
  for (int k = 0; k < 100; k++) {
    EXPECT_EQ(grn_advance(s.get(), 100), grnOK);
    Clump c = ReadClumps(s.get())[0];
    double e, l[3], wb[3];
    Rotational(bar, c, &e, l);
    EXPECT_NEAR(e, e0, 1e-5 * e0) << "substep " << 100 * (k + 1);
    for (int a = 0; a < 3; a++) EXPECT_NEAR(l[a], l0[a], 1e-5 * std::fabs(l0[axis]));
    ToBody(c.orient, c.angvel, wb);
    least = std::min(least, wb[axis] / w[axis]);
    for (int a = 0; a < 3; a++) EXPECT_NEAR(c.pos[a], 0, 1e-9);
  }
  // the spheres stay on the clump: their distances apart unchanged
  grn_test::Grains g = grn_test::Read(s.get());
  for (int e = 0; e < 6; e++) {
    for (int f = e + 1; f < 6; f++) {
      double d0 = 0, d = 0;
      for (int a = 0; a < 3; a++) {
        double b0 = bar.spheres[4 * e + a] - bar.spheres[4 * f + a];
        double b = g.pos[3 * e + a] - g.pos[3 * f + a];
        d0 += b0 * b0;
        d += b * b;
      }
      // to float rounding: the turned offsets are the body ones through a unit quaternion
      EXPECT_NEAR(std::sqrt(d), std::sqrt(d0), 8 * grn_test::kEps * std::sqrt(d0));
    }
  }
  return least;
}

TEST(Clump, FreeSpinIsStableAboutTheMajorAndMinorAxesOnly) {
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    SCOPED_TRACE(model == grnMODEL_PJ ? "pj" : "dem");
    EXPECT_GT(SpinAbout(0, model), 0.99);
    EXPECT_GT(SpinAbout(2, model), 0.99);
    // about the intermediate axis the spin reverses (the tennis-racket flip)
    EXPECT_LT(SpinAbout(1, model), -0.9);
  }
}

//---------------------------------- friction on an incline ----------------------------------------

// a plate clump resting on the floor under gravity tilted by theta (the incline's frame: x
// downhill), floor friction mu; returns the downhill displacement over [t0, t0 + t] and the
// largest tilt of the plate (its body z from the floor's normal) [rad]
struct Slide {
  double moved, tilt, t;
};

Slide SlidePlate(int model, double theta, float mu, double t0, double t) {
  grnParams p = ClumpParams(model, 1, 16);
  SolverPtr s = OnIncline(p, theta, mu);
  const float x[3] = {0, 0, kR}, q[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
  SetOne(s.get(), Plate(1.5f * kR), x, q, zero, zero);
  int n0 = (int)std::lround(t0 / p.dt), n = (int)std::lround(t / p.dt);
  EXPECT_EQ(grn_advance(s.get(), n0), grnOK);
  double x0 = ReadClumps(s.get())[0].pos[0], tilt = 0;
  for (int k = 0; k < 20; k++) {
    EXPECT_EQ(grn_advance(s.get(), n / 20), grnOK);
    double up[3];
    BodyAxis(ReadClumps(s.get())[0].orient, 2, up);
    tilt = std::max(tilt, std::acos(std::min(1.0, up[2])));
  }
  Slide out;
  out.moved = ReadClumps(s.get())[0].pos[0] - x0;
  out.tilt = tilt;
  out.t = (n / 20) * 20 * p.dt;
  return out;
}

TEST(Clump, PlateOnAnInclineSticksBelowTheFrictionAngle) {
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    SCOPED_TRACE(model == grnMODEL_PJ ? "pj" : "dem");
    // tan 20 deg = 0.36 < mu = 0.5: held by friction after settling
    Slide s = SlidePlate(model, Deg(20), 0.5f, 0.2, 1.0);
    EXPECT_LT(std::fabs(s.moved), 1e-4 * 4 * kR) << "crept " << s.moved << " m";
    EXPECT_LT(s.tilt, 1e-3);
  }
}

TEST(Clump, PlateOnAnInclineSlidesAtGTimesSinMinusMuCos) {
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    SCOPED_TRACE(model == grnMODEL_PJ ? "pj" : "dem");
    double theta = Deg(35);
    float mu = 0.5f;
    // from rest at t0: s = a t^2 / 2 after the release transient, measured over [0.05, 0.35] s
    Slide a = SlidePlate(model, theta, mu, 0.05, 0.3);
    double v0_slide = kG * (std::sin(theta) - mu * std::cos(theta)) * 0.05;
    double accel = kG * (std::sin(theta) - mu * std::cos(theta));
    double expect = v0_slide * a.t + 0.5 * accel * a.t * a.t;
    EXPECT_NEAR(a.moved, expect, 0.02 * expect);
    EXPECT_LT(a.tilt, 1e-2);  // it slides, it does not tip (that needs tan theta > 1.5)
  }
}

// a box of half-extents 8 x 6 x 4 mm as the plugin makes a grain type of a mesh: its mass and
// principal moments from the mesh at kDensity (its axes ascend with the moments already, its
// centre is the origin), 16 spheres fitted to it on a grid of 24 cells per cube root of its
// volume, the margin half its smallest extent
ClumpType FittedBox() {
  grn_test::Mesh m = grn_test::BoxMesh({0.008, 0.006, 0.004});
  grnMassProps mp;
  EXPECT_EQ(grn_mesh_mass(m.v.data(), m.nv(), m.f.data(), m.nf(), kDensity, &mp), grnMESH_OK);
  grnGrid grid;
  float cell = (float)(std::cbrt(mp.volume) / 24);
  EXPECT_EQ(grn_sdf_mesh_build(m.v.data(), m.nv(), m.f.data(), m.nf(), cell, 0.004f, &grid),
            grnOK);
  ClumpType t;
  t.spheres.resize(16 * 4);
  grnClumpFit fit;
  EXPECT_EQ(grn_clump_fit(&grid, 16, 0, t.spheres.data(), &fit, nullptr, 0), grnOK);
  grn_sdf_mesh_free(&grid);
  t.spheres.resize(4 * (size_t)fit.count);
  t.mass = (float)mp.mass;
  for (int a = 0; a < 3; a++) t.inertia[a] = (float)mp.principal[a];
  return t;
}

// the fitted box on the floor under gravity tilted by theta, friction mu, released from rest with
// its lowest sphere on the floor: its downhill displacement over [t0, t0 + t] and its downhill
// velocity at t0
struct BoxSlide {
  double moved, v0;
};

BoxSlide SlideFittedBox(int model, double theta, float mu, double t0, double t) {
  ClumpType box = FittedBox();
  float largest = 0, lowest = 1;
  for (size_t e = 0; e < box.spheres.size(); e += 4) {
    largest = std::max(largest, box.spheres[e + 3]);
    lowest = std::min(lowest, box.spheres[e + 2] - box.spheres[e + 3]);
  }
  grnParams p = ClumpParams(model, 1, 16, largest);
  SolverPtr s = OnIncline(p, theta, mu);
  const float x[3] = {0, 0, -lowest}, q[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
  SetOne(s.get(), box, x, q, zero, zero);
  EXPECT_EQ(grn_advance(s.get(), (int)std::lround(t0 / p.dt)), grnOK);
  Clump c0 = ReadClumps(s.get())[0];
  EXPECT_EQ(grn_advance(s.get(), (int)std::lround(t / p.dt)), grnOK);
  return {ReadClumps(s.get())[0].pos[0] - c0.pos[0], c0.vel[0]};
}

// the fitted spheres bulge out of the box's bottom face unequally (the fit matches the mesh's
// volume, not its symmetry), so the box does not rest on its face but on three spheres, 1 degree
// off it, and friction's moment rocks it onto the three it slides on within the first 0.03 s, by
// 0.05 s 3 (pj) to 11 (dem) per cent faster than from rest at g (sin - mu cos): the analytic
// truth is the acceleration once it slides on them, measured as 2 (moved - v0 t) / t^2
TEST(Clump, FittedBoxOnAnInclineSticksOrSlidesAtGTimesSinMinusMuCos) {
  float mu = 0.5f;
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    SCOPED_TRACE(model == grnMODEL_PJ ? "pj" : "dem");
    EXPECT_LT(std::fabs(SlideFittedBox(model, Deg(20), mu, 0.2, 1.0).moved), 1e-4 * 0.016);
    double theta = Deg(35), a = kG * (std::sin(theta) - mu * std::cos(theta)), t = 0.3;
    BoxSlide slide = SlideFittedBox(model, theta, mu, 0.05, t);
    EXPECT_NEAR(2 * (slide.moved - slide.v0 * t) / (t * t), a, 0.02 * a);
  }
}

//---------------------------------- leaning rods (the seed's fig. 3 in 3d) ------------------------

constexpr int kRodSpheres = 5;
constexpr double kRodLength = 2 * (kRodSpheres - 1) * kR;  // between its end spheres' centres

// a rod: kRodSpheres spheres in a row along x, touching
ClumpType Rod() {
  std::vector<float> c;
  for (int e = 0; e < kRodSpheres; e++) c.insert(c.end(), {(2 * e - (kRodSpheres - 1)) * kR, 0, 0});
  return SymmetricClump(c, kR);
}

// the orientation turning body x to (cos phi, 0, -sin phi): a turn by phi about y
std::vector<float> TurnAboutY(double phi) {
  return {(float)std::cos(phi / 2), 0, (float)std::sin(phi / 2), 0};
}

// how far the rods' centres went over [t0, t0 + t] at most, and how far the lowest fell [m]
struct Lean {
  double drift, fall;
};

Lean RunLean(grnSolver* s, double dt, double t0, double t) {
  EXPECT_EQ(grn_advance(s, (int)std::lround(t0 / dt)), grnOK);
  std::vector<Clump> a = ReadClumps(s);
  EXPECT_EQ(grn_advance(s, (int)std::lround(t / dt)), grnOK);
  std::vector<Clump> b = ReadClumps(s);
  Lean out{0, 0};
  for (size_t c = 0; c < a.size(); c++) {
    double d2 = 0;
    for (int k = 0; k < 3; k++) d2 += (b[c].pos[k] - a[c].pos[k]) * (b[c].pos[k] - a[c].pos[k]);
    out.drift = std::max(out.drift, std::sqrt(d2));
    out.fall = std::max(out.fall, a[c].pos[2] - b[c].pos[2]);
  }
  return out;
}

// a rod leaning on a wall (the plane x = 0) from the floor at theta above it, friction mu on both
// (a ladder): run from rest
Lean LadderAt(int model, double theta, float mu) {
  grnParams p = ClumpParams(model, 1, kRodSpheres);
  p.friction = mu;
  SolverPtr s = MakeSolver(p);
  grnShape planes[2] = {grn_test::StaticShape(grnSHAPE_PLANE), grn_test::TiltedPlane(Deg(90), mu)};
  planes[0].friction = mu;
  EXPECT_EQ(grn_set_shapes(s.get(), 2, planes), grnOK);
  // the bottom sphere on the floor, the top one on the wall; body x from bottom to top
  double l = kRodLength;
  const float x[3] = {(float)(kR + l * std::cos(theta) / 2), 0,
                      (float)(kR + l * std::sin(theta) / 2)};
  std::vector<float> q = TurnAboutY(theta - grn_test::kPi);
  const float zero[3] = {0, 0, 0};
  SetOne(s.get(), Rod(), x, q.data(), zero, zero);
  return RunLean(s.get(), p.dt, 0.05, 1.0);
}

// the least angle above the floor at which a ladder stands, friction mu at the floor and the
// wall, its ends spheres of radius r, length l between their centres: at the limit both frictions
// are mu times their normal forces, so the floor's normal force is m g / (1 + mu^2) and the
// wall's mu times that; the moments about the floor contact balance when
// mu z_t + mu^2 x_b = (1 + mu^2) (x_b - r) / 2, x_b = r + l cos theta, z_t = r + l sin theta
double LadderCriticalAngle(double mu, double r, double l) {
  auto margin = [&](double theta) {
    double xb = r + l * std::cos(theta), zt = r + l * std::sin(theta);
    return mu * zt + mu * mu * xb - (1 + mu * mu) * (xb - r) / 2;
  };
  double lo = 0, hi = grn_test::kPi / 2;  // margin < 0 (slides) at lo, > 0 at hi
  for (int k = 0; k < 60; k++) {
    double mid = 0.5 * (lo + hi);
    (margin(mid) < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

TEST(Clump, LadderStandsOrSlidesByItsFrictionCoefficient) {
  float mu = 0.3f;
  double critical = LadderCriticalAngle(mu, kR, kRodLength);
  // a ladder of no thickness: the textbook tan theta = (1 - mu^2) / (2 mu)
  double m = mu;
  EXPECT_NEAR(LadderCriticalAngle(m, 0, kRodLength), std::atan((1 - m * m) / (2 * m)), 1e-12);
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    SCOPED_TRACE(model == grnMODEL_PJ ? "pj" : "dem");
    Lean stands = LadderAt(model, critical + Deg(2), mu);
    EXPECT_LT(stands.drift, 0.01 * kR) << "stood at " << (critical + Deg(2)) * 180 / grn_test::kPi;
    Lean slides = LadderAt(model, critical - Deg(2), mu);
    EXPECT_GT(slides.fall, kR) << "slid at " << (critical - Deg(2)) * 180 / grn_test::kPi;
  }
}

// two rods leaning on each other (their top spheres touching above x = 0), each at theta above
// the floor, floor friction mu: by symmetry their contact pushes horizontally, with the force h
// that balances the moments about the foot, h z_t = m g l cos(theta) / 2; the feet hold while
// mu m g >= h: mu >= l cos(theta) / (2 (r + l sin(theta)))
Lean AFrame(int model, double theta, float mu) {
  grnParams p = ClumpParams(model, 2, 2 * kRodSpheres);
  p.friction = mu;
  SolverPtr s = MakeSolver(p);
  grnShape floor = grn_test::StaticShape(grnSHAPE_PLANE);
  floor.friction = mu;
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &floor), grnOK);
  double l = kRodLength, cx = kR + l * std::cos(theta) / 2, cz = kR + l * std::sin(theta) / 2;
  const float x[6] = {(float)-cx, 0, (float)cz, (float)cx, 0, (float)cz};
  std::vector<float> left = TurnAboutY(-theta), right = TurnAboutY(theta - grn_test::kPi);
  std::vector<float> q = left;
  q.insert(q.end(), right.begin(), right.end());
  ClumpType rod = Rod();
  grnClumpType view = rod.View();
  const int type[2] = {0, 0};
  EXPECT_EQ(grn_set_clumps(s.get(), &view, 1, 2, type, x, q.data(), nullptr, nullptr), grnOK);
  return RunLean(s.get(), p.dt, 0.05, 1.0);
}

TEST(Clump, TwoRodsLeaningOnEachOtherStandOnlyAboveTheCriticalFriction) {
  double theta = Deg(60), l = kRodLength;
  double critical = l * std::cos(theta) / (2 * (kR + l * std::sin(theta)));
  EXPECT_NEAR(critical, 0.252, 0.001);
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    SCOPED_TRACE(model == grnMODEL_PJ ? "pj" : "dem");
    Lean stands = AFrame(model, theta, (float)(1.1 * critical));
    EXPECT_LT(stands.drift, 0.01 * kR);
    Lean slides = AFrame(model, theta, (float)(0.9 * critical));
    EXPECT_GT(slides.fall, kR);
  }
}

//---------------------------------- resting and settling ------------------------------------------

TEST(Clump, PlateRestingOnTheFloorNeitherRocksNorCreeps) {
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    SCOPED_TRACE(model == grnMODEL_PJ ? "pj" : "dem");
    grnParams p = ClumpParams(model, 1, 16);
    SolverPtr s = MakeSolver(p);
    grnShape floor = grn_test::StaticShape(grnSHAPE_PLANE);
    floor.friction = 0.5f;
    ASSERT_EQ(grn_set_shapes(s.get(), 1, &floor), grnOK);
    const float x[3] = {0, 0, kR}, q[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
    SetOne(s.get(), Plate(1.5f * kR), x, q, zero, zero);
    ASSERT_EQ(grn_advance(s.get(), (int)std::lround(0.1 / p.dt)), grnOK);
    Clump c0 = ReadClumps(s.get())[0];
    ASSERT_EQ(grn_advance(s.get(), (int)std::lround(2.0 / p.dt)), grnOK);
    Clump c = ReadClumps(s.get())[0];
    double size = 5 * kR;  // across the plate
    for (int a = 0; a < 3; a++) EXPECT_NEAR(c.pos[a], c0.pos[a], 1e-4 * size);
    double dot = 0;
    for (int a = 0; a < 4; a++) dot += c.orient[a] * c0.orient[a];
    EXPECT_LT(2 * std::acos(std::min(1.0, std::fabs(dot))), 1e-4) << "turned";
  }
}

TEST(Clump, CubeDroppedOnACornerSettlesOnAFace) {
  grnParams p = ClumpParams(grnMODEL_PJ, 1, 16);
  SolverPtr s = MakeSolver(p);
  grnShape floor = grn_test::StaticShape(grnSHAPE_PLANE);
  floor.friction = 0.5f;
  ASSERT_EQ(grn_set_shapes(s.get(), 1, &floor), grnOK);
  // the body diagonal (1, 1, 1) turned to 5 degrees off the vertical: about the axis
  // (1, -1, 0) / sqrt 2 (the diagonal's cross product with z) by the angle between them less 5
  // degrees; the cube lands on the corner sphere at the other end of the diagonal
  double angle = std::acos(1 / std::sqrt(3.0)) - Deg(5);
  float q[4] = {(float)std::cos(angle / 2), (float)(std::sin(angle / 2) / std::sqrt(2.0)),
                (float)(-std::sin(angle / 2) / std::sqrt(2.0)), 0};
  const float x[3] = {0, 0, 0.03f}, zero[3] = {0, 0, 0};
  SetOne(s.get(), Cube(kR), x, q, zero, zero);
  ASSERT_EQ(grn_advance(s.get(), (int)std::lround(1.5 / p.dt)), grnOK);
  Clump c = ReadClumps(s.get())[0];
  // one body axis vertical within 2 degrees, at rest, its centre at face height (a + r)
  double best = 0;
  for (int a = 0; a < 3; a++) {
    double e[3];
    BodyAxis(c.orient, a, e);
    best = std::max(best, std::fabs(e[2]));
  }
  EXPECT_GT(best, std::cos(Deg(2)));
  EXPECT_NEAR(c.pos[2], 2 * kR, 0.02 * kR);
  EXPECT_LT(grn_test::MaxSpeed({(float)c.vel[0], (float)c.vel[1], (float)c.vel[2]}), 1e-3);
}

//---------------------------------- collisions ----------------------------------------------------

// linear momentum and angular momentum about the origin of clumps of types[type[c]]
void Momenta(const std::vector<ClumpType>& types, const std::vector<int>& type,
             const std::vector<Clump>& cs, double lin[3], double ang[3]) {
  for (int a = 0; a < 3; a++) lin[a] = ang[a] = 0;
  for (size_t c = 0; c < cs.size(); c++) {
    const ClumpType& t = types[type[c]];
    double e, l[3];
    Rotational(t, cs[c], &e, l);
    const double* x = cs[c].pos;
    double p[3];
    for (int a = 0; a < 3; a++) p[a] = t.mass * cs[c].vel[a];
    lin[0] += p[0]; lin[1] += p[1]; lin[2] += p[2];
    ang[0] += x[1] * p[2] - x[2] * p[1] + l[0];
    ang[1] += x[2] * p[0] - x[0] * p[2] + l[1];
    ang[2] += x[0] * p[1] - x[1] * p[0] + l[2];
  }
}

TEST(Clump, CollisionKeepsLinearAndAngularMomentum) {
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    SCOPED_TRACE(model == grnMODEL_PJ ? "pj" : "dem");
    grnParams p = ClumpParams(model, 2, 32);
    p.gravity[2] = 0;
    SolverPtr s = MakeSolver(p);
    std::vector<ClumpType> types = {Bar(), Cube(kR)};
    std::vector<grnClumpType> views = {types[0].View(), types[1].View()};
    std::vector<int> type = {0, 1};
    // off-centre: the bar hits the cube's edge, both start to spin
    const float x[6] = {-0.02f, 0.003f, 0.001f, 0.02f, 0, 0};
    const float q[8] = {1, 0, 0, 0, 0.9f, 0.1f, 0.3f, 0.2f};
    float qn[8];
    for (int c = 0; c < 2; c++) {
      double n = 0;
      for (int a = 0; a < 4; a++) n += (double)q[4 * c + a] * q[4 * c + a];
      for (int a = 0; a < 4; a++) qn[4 * c + a] = (float)(q[4 * c + a] / std::sqrt(n));
    }
    const float v[6] = {0.5f, 0, 0, -0.3f, 0.02f, 0}, w[6] = {0, 0, 3, 1, 0, 0};
    ASSERT_EQ(grn_set_clumps(s.get(), views.data(), 2, 2, type.data(), x, qn, v, w), grnOK);
    double lin0[3], ang0[3];
    Momenta(types, type, ReadClumps(s.get()), lin0, ang0);
    ASSERT_EQ(grn_advance(s.get(), (int)std::lround(0.1 / p.dt)), grnOK);
    std::vector<Clump> cs = ReadClumps(s.get());
    // they met: the bar no longer moves at its start velocity
    EXPECT_LT(cs[0].vel[0], 0.45);
    double lin[3], ang[3];
    Momenta(types, type, cs, lin, ang);
    double pscale = types[0].mass * 0.5, lscale = pscale * 0.02;
    for (int a = 0; a < 3; a++) {
      EXPECT_NEAR(lin[a], lin0[a], 1e-5 * pscale);
      EXPECT_NEAR(ang[a], ang0[a], 1e-4 * lscale);
    }
  }
}

//---------------------------------- spheres as clumps ---------------------------------------------

// a single-sphere clump rolls down an incline as a free sphere does (rolling resistance off)
TEST(Clump, SingleSphereClumpRollsAsASphere) {
  double theta = Deg(15);
  auto run = [&](bool clump) {
    grnParams p = ClumpParams(grnMODEL_PJ, clump ? 1 : 0, 1);
    p.rolling_friction = 0;
    p.torsional_friction = 0;
    SolverPtr s = OnIncline(p, theta, 0.5f);  // the floor rolls freely too (StaticShape)
    const float x[3] = {0, 0, kR}, q[4] = {1, 0, 0, 0}, zero[3] = {0, 0, 0};
    if (clump) {
      SetOne(s.get(), SymmetricClump({0, 0, 0}, kR), x, q, zero, zero);
    } else {
      EXPECT_EQ(grn_set_grains(s.get(), 1, x, nullptr), grnOK);
    }
    EXPECT_EQ(grn_advance(s.get(), 1000), grnOK);
    grn_test::Grains g = grn_test::Read(s.get());
    return std::vector<double>{g.pos[0], g.vel[0], g.angvel[1]};
  };
  std::vector<double> sphere = run(false), clump = run(true);
  // rolling without slip: a = 5/7 g sin theta
  double t = 1000 * 5e-4, a = 5.0 / 7.0 * kG * std::sin(theta);
  EXPECT_NEAR(sphere[1], a * t, 0.01 * a * t);
  for (int k = 0; k < 3; k++) EXPECT_NEAR(clump[k], sphere[k], 1e-4 * std::fabs(sphere[k]));
}

//---------------------------------- contacts between clumps ---------------------------------------

// the pairs grn_find_pairs finds among 64 clumps packed close with the broadphase given, against
// brute force over the spheres of different clumps
void ExpectPairsBetweenClumps(int broadphase) {
  grnParams p = ClumpParams(grnMODEL_PJ, 64, 512);
  p.broadphase = broadphase;
  SolverPtr s = MakeSolver(p);
  std::vector<ClumpType> types = {Bar(), Cube(kR), Plate(1.2f * kR)};
  std::vector<grnClumpType> views;
  for (const ClumpType& t : types) views.push_back(t.View());
  std::vector<int> type;
  std::vector<float> x, q;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int c = 0; c < 64; c++) {
    type.push_back(c % 3);
    // packed closely, overlapping: a cube of 4 x 4 x 4 sites 3 r apart
    x.insert(x.end(), {(c % 4) * 3 * kR, (c / 4 % 4) * 3 * kR, (c / 16) * 3 * kR});
    float qq[4] = {u(rng), u(rng), u(rng), u(rng)};
    float n = std::sqrt(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]);
    for (float& e : qq) e /= n;
    q.insert(q.end(), qq, qq + 4);
  }
  ASSERT_EQ(grn_set_clumps(s.get(), views.data(), 3, 64, type.data(), x.data(), q.data(),
                           nullptr, nullptr), grnOK);
  grn_test::Grains g = grn_test::Read(s.get());
  std::vector<float> rad(grn_count(s.get()));
  ASSERT_EQ(grn_get_radii(s.get(), rad.data()), grnOK);
  // each sphere's clump, from the layout: clump by clump
  std::vector<int> owner;
  for (int c = 0; c < 64; c++) owner.insert(owner.end(), views[type[c]].nsphere, c);
  ASSERT_EQ((int)owner.size(), grn_count(s.get()));
  std::vector<grn_test::Pair> brute;
  int within = 0;
  for (int i = 0; i < (int)owner.size(); i++) {
    for (int j = i + 1; j < (int)owner.size(); j++) {
      double d2 = 0;
      for (int a = 0; a < 3; a++) {
        double dx = g.pos[3 * i + a] - g.pos[3 * j + a];
        d2 += dx * dx;
      }
      double sum = rad[i] + rad[j], cut = sum + 0.5 * p.margin * sum;
      if (d2 >= cut * cut) continue;
      if (owner[i] == owner[j]) {
        within++;
        continue;
      }
      brute.emplace_back(i, j);
    }
  }
  EXPECT_GT(within, 64);  // the clumps' own spheres overlap, and are not pairs
  EXPECT_GT(brute.size(), 64u);
  EXPECT_EQ(grn_test::FoundPairs(s.get()), brute);
}

TEST(Clump, PairsAreBetweenClumpsOnlyAsBruteForceFindsThem) {
  for (int broadphase : {grnBROADPHASE_HASH, grnBROADPHASE_SORTED}) {
    SCOPED_TRACE(broadphase == grnBROADPHASE_HASH ? "hash" : "sorted");
    ExpectPairsBetweenClumps(broadphase);
  }
}

//---------------------------------- determinism and the gpu ---------------------------------------

// everything a clump run leaves: clumps, spheres, contact state
struct ClumpOutcome {
  std::vector<float> clumps;  // per clump: centre, orientation, velocity, angular velocity
  std::vector<float> pos;     // the spheres' centres
  std::vector<char> contacts;
};

// n cubes, bars and plates on a lattice in a box, turned and moving at random, run for nsub
// substeps on backend (a cpu solver with threads threads)
ClumpOutcome ClumpPour(int n, int model, grnBackend backend, int threads, int nsub) {
  grnParams p = ClumpParams(model, n, 8 * n);
  p.friction = 0.4f;
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  grnSolver* raw = nullptr;
  EXPECT_EQ(grn_create(&p, backend, &raw), grnOK);
  omp_set_num_threads(before);
  SolverPtr s(raw);
  ClumpOutcome out;
  if (!s) return out;
  const float centre[3] = {0, 0, 0.3f}, half[3] = {0.1f, 0.1f, 0.3f};
  std::vector<grnShape> walls = grn_test::Container(centre, half, 0.4f);
  EXPECT_EQ(grn_set_shapes(s.get(), (int)walls.size(), walls.data()), grnOK);
  std::vector<ClumpType> types = {Cube(kR), Bar(), Plate(1.2f * kR)};
  std::vector<grnClumpType> views;
  for (const ClumpType& t : types) views.push_back(t.View());
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<int> type;
  std::vector<float> x, q, v, w;
  const int row = 5;  // 7 r apart in x and y
  for (int c = 0; c < n; c++) {
    type.push_back(c % 7 == 0 ? 1 : c % 7 == 1 ? 2 : 0);
    x.insert(x.end(), {(c % row - 2) * 7 * kR, (c / row % row - 2) * 7 * kR,
                       0.02f + (c / (row * row)) * 7 * kR});
    float qq[4] = {u(rng), u(rng), u(rng), u(rng)};
    float norm = std::sqrt(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]);
    for (float& e : qq) e /= norm;
    q.insert(q.end(), qq, qq + 4);
    v.insert(v.end(), {0.5f * u(rng), 0.5f * u(rng), 0.5f * u(rng)});
    w.insert(w.end(), {20 * u(rng), 20 * u(rng), 20 * u(rng)});
  }
  EXPECT_EQ(grn_set_clumps(s.get(), views.data(), 3, n, type.data(), x.data(), q.data(),
                           v.data(), w.data()), grnOK);
  EXPECT_EQ(grn_advance(s.get(), nsub), grnOK);
  std::vector<float> cx(3 * n), cq(4 * n), cv(3 * n), cw(3 * n);
  EXPECT_EQ(grn_get_clumps(s.get(), cx.data(), cq.data(), cv.data(), cw.data()), grnOK);
  for (int c = 0; c < n; c++) {
    out.clumps.insert(out.clumps.end(), cx.begin() + 3 * c, cx.begin() + 3 * c + 3);
    out.clumps.insert(out.clumps.end(), cq.begin() + 4 * c, cq.begin() + 4 * c + 4);
    out.clumps.insert(out.clumps.end(), cv.begin() + 3 * c, cv.begin() + 3 * c + 3);
    out.clumps.insert(out.clumps.end(), cw.begin() + 3 * c, cw.begin() + 3 * c + 3);
  }
  out.pos.resize(3 * (size_t)grn_count(s.get()));
  EXPECT_EQ(grn_get_grains(s.get(), out.pos.data(), nullptr), grnOK);
  out.contacts.resize(grn_contact_state_bytes(p.capacity));
  EXPECT_EQ(grn_get_contacts(s.get(), out.contacts.data()), grnOK);
  return out;
}

// substeps of the pours below: 0.05 s, in which neighbours 2 r apart meet
int PourSubsteps(int model) { return model == grnMODEL_DEM ? 1700 : 100; }

// how many clumps' spheres touch another clump's, from a contact state of capacity cap
int SpheresInContact(const ClumpOutcome& o, int cap) {
  int count = 0;
  for (int i = 0; i < cap; i++) count += ((const int*)o.contacts.data())[i] > 0;
  return count;
}

// spheres in contact at the end of a pour of n clumps that shows the clumps met: dem's contacts
// last a fraction of the pour (elastic impacts), so fewer of them are open at its end
int MinSpheresInContact(int model, int n) { return model == grnMODEL_DEM ? n / 40 : n / 4; }

TEST(ClumpCpuOnly, OrderedPourDoesNotDependOnTheThreadCount) {
  const int n = 400;  // 2,800 spheres: two threads take part (1,024 each at least)
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    SCOPED_TRACE(model == grnMODEL_PJ ? "pj" : "dem");
    int nsub = PourSubsteps(model);
    ClumpOutcome one = ClumpPour(n, model, grnBACKEND_CPU, 1, nsub);
    ClumpOutcome two = ClumpPour(n, model, grnBACKEND_CPU, 2, nsub);
    EXPECT_TRUE(one.clumps == two.clumps && one.pos == two.pos && one.contacts == two.contacts);
    EXPECT_GT(SpheresInContact(one, 8 * n), MinSpheresInContact(model, n));
  }
}

TEST(Clump, PourIsBitwiseOnTheGpuAndTheCpu) {
  SKIP_WITHOUT_CUDA();
  const int n = 400;
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    SCOPED_TRACE(model == grnMODEL_PJ ? "pj" : "dem");
    int nsub = PourSubsteps(model);
    ClumpOutcome cpu = ClumpPour(n, model, grnBACKEND_CPU, 2, nsub);
    ClumpOutcome gpu = ClumpPour(n, model, grnBACKEND_CUDA, 1, nsub);
    EXPECT_TRUE(cpu.clumps == gpu.clumps) << "clumps differ";
    EXPECT_TRUE(cpu.pos == gpu.pos) << "spheres differ";
    EXPECT_TRUE(cpu.contacts == gpu.contacts) << "contact states differ";
    EXPECT_GT(SpheresInContact(cpu, 8 * n), MinSpheresInContact(model, n));
  }
}

//---------------------------------- refusals ------------------------------------------------------

TEST(Clump, BadClumpsAreRefused) {
  ClumpType plate = Plate(1.5f * kR);
  grnClumpType view = plate.View();
  const float x[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0};
  int type = 0;
  {
    // a solver of spheres takes none
    SolverPtr s = MakeSolver(ClumpParams(grnMODEL_PJ, 0, 16));
    EXPECT_EQ(grn_set_clumps(s.get(), &view, 1, 1, &type, x, q, nullptr, nullptr), grnERR_ARG);
  }
  grnParams pbd = ClumpParams(grnMODEL_PBD, 1, 16);
  char msg[200];
  EXPECT_EQ(grn_check_params(&pbd, msg, sizeof(msg)), grnERR_ARG);
  EXPECT_NE(std::string(msg).find("max_clumps"), std::string::npos) << msg;
  grnParams over = ClumpParams(grnMODEL_PJ, 17, 16);
  EXPECT_EQ(grn_check_params(&over, msg, sizeof(msg)), grnERR_ARG);

  SolverPtr s = MakeSolver(ClumpParams(grnMODEL_PJ, 4, 16));
  EXPECT_EQ(grn_set_grains(s.get(), 1, x, nullptr), grnERR_ARG);  // clumps only
  int bad_type = 1;
  EXPECT_EQ(grn_set_clumps(s.get(), &view, 1, 1, &bad_type, x, q, nullptr, nullptr), grnERR_ARG);
  const float tilted[4] = {1, 0.1f, 0, 0};
  EXPECT_EQ(grn_set_clumps(s.get(), &view, 1, 1, &type, x, tilted, nullptr, nullptr),
            grnERR_ARG);
  const float nan_x[3] = {0, NAN, 0};
  EXPECT_EQ(grn_set_clumps(s.get(), &view, 1, 1, &type, nan_x, q, nullptr, nullptr),
            grnERR_NONFINITE);
  // 5 plates of 4 spheres do not fit 16 grains; 5 clumps do not fit max_clumps 4 either
  std::vector<int> five(5, 0);
  std::vector<float> xs(15, 0), qs;
  for (int c = 0; c < 5; c++) qs.insert(qs.end(), {1, 0, 0, 0});
  EXPECT_EQ(grn_set_clumps(s.get(), &view, 1, 5, five.data(), xs.data(), qs.data(), nullptr,
                           nullptr), grnERR_ARG);
  ClumpType big = plate;
  big.spheres[3] = 2 * kR;  // a sphere larger than params.radius
  grnClumpType big_view = big.View();
  EXPECT_EQ(grn_set_clumps(s.get(), &big_view, 1, 1, &type, x, q, nullptr, nullptr), grnERR_ARG);
  ClumpType massless = plate;
  massless.mass = 0;
  grnClumpType massless_view = massless.View();
  EXPECT_EQ(grn_set_clumps(s.get(), &massless_view, 1, 1, &type, x, q, nullptr, nullptr),
            grnERR_ARG);
  // what was refused left the solver as it was: no clumps
  EXPECT_EQ(grn_clump_count(s.get()), 0);
  EXPECT_EQ(grn_set_clumps(s.get(), &view, 1, 1, &type, x, q, nullptr, nullptr), grnOK);
  EXPECT_EQ(grn_clump_count(s.get()), 1);
  EXPECT_EQ(grn_count(s.get()), 4);
}

}  // namespace
