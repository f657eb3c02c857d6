// the position-based model (grn_contact_pbd.h, model pbd) against its analytic mechanics, with
// both kinds of passes (newton, and the seed's averaged ones of grn_pbd_averaged.h): a contact is
// a spring-damper integrated by implicit euler whatever the number of jacobi passes (the p2
// seed's eqs. 19-28), coulomb friction with a static and a kinetic coefficient, the coupling
// impulse on a body.
#include <cmath>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_test_util.h"

namespace {

using namespace grn_test;

// both kinds of passes, and their names
const grnPbdPasses kPasses[] = {grnPBD_NEWTON, grnPBD_AVERAGED};
const char* PassesName(grnPbdPasses passes) {
  return passes == grnPBD_NEWTON ? "newton" : "averaged";
}

// the pbd params: one grain size (r 5 mm, sand density), no gravity unless told, the given
// stiffness, restitution and passes
grnParams PbdParams(int capacity, double stiffness, double restitution, grnPbdPasses passes) {
  grnParams p;
  grn_default_params(&p);
  p.model = grnMODEL_PBD;
  p.pbd_passes = passes;
  p.capacity = capacity;
  p.stiffness = (float)stiffness;
  p.restitution = (float)restitution;
  p.gravity[2] = 0;
  return p;
}

double GrainMass(const grnParams& p) {
  return p.density * 4.0 / 3.0 * kPi * p.radius * p.radius * p.radius;
}

// the damping coefficient c of the pbd springs: 2 zeta sqrt(k m), zeta the hooke law's ratio for
// the restitution (the same mapping as dem's)
double Damping(const grnParams& p, double mass) {
  return 2 * grn_dem_damping_ratio(grnLAW_HOOKE, p.restitution) * std::sqrt(p.stiffness * mass);
}

// a grain of radius r touching a static floor plane z <= 0 at z = r, moving down at v0, no
// gravity: the overlap x = r - z under a spring k and damper c, m x'' = -k x - c x', by implicit
// euler (seed eq. 19): v' = (v + dt (-k x) / m) / (1 + dt c / m + dt^2 k / m), x' = x + dt v'
// (v the overlap's rate). the model's heights follow this recurrence at any number of jacobi
// passes while the contact pushes (the recurrence's force k x + c v stays >= 0; the model never
// pulls): in the newton passes a lone contact's newton step is exact, so the passes after the
// first change nothing; in the averaged ones the seed's relaxation factors (eq. 28) make the
// passes together exact
TEST(Pbd, AContactIsASpringDamperByImplicitEulerAtAnyIterationCount) {
  const double k = 20, v0 = 0.1;
  for (grnPbdPasses passes : kPasses) {
    for (int iterations : {1, 3, 10}) {
      SCOPED_TRACE(testing::Message() << PassesName(passes) << ", " << iterations << " iterations");
      grnParams p = PbdParams(1, k, 0.5, passes);
      p.iterations = iterations;
      SolverPtr s = MakeSolver(p);
      grnShape floor = StaticShape(grnSHAPE_PLANE);
      floor.friction = 0;
      ASSERT_EQ(grn_set_shapes(s.get(), 1, &floor), grnOK);
      const float pos[3] = {0, 0, p.radius}, vel[3] = {0, 0, (float)-v0};
      ASSERT_EQ(grn_set_grains(s.get(), 1, pos, vel), grnOK);
      const double m = GrainMass(p), c = Damping(p, m), dt = p.dt;
      double x = 0, v = v0, peak = 0, worst = 0;
      int steps = 0;
      for (; steps < 100000; steps++) {
        double vn = (v - dt * k * x / m) / (1 + dt * c / m + dt * dt * k / m);
        double xn = x + dt * vn;
        if (k * xn + c * vn < 0 || xn <= 0) break;
        ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
        Grains g = Read(s.get());
        worst = std::fmax(worst, std::fabs((p.radius - g.pos[2]) - xn));
        x = xn;
        v = vn;
        peak = std::fmax(peak, x);
      }
      ASSERT_GT(steps, 20) << "the contact must last many substeps";
      // float positions near r: a few ulps of r per substep
      EXPECT_LT(worst, 1e-3 * peak);
      std::printf("[ measure  ] pbd spring-damper, %s passes, %d iterations: %d substeps in "
                  "contact, peak overlap %.4g m, largest difference from implicit euler %.3g m\n",
                  PassesName(passes), iterations, steps, peak, worst);
    }
  }
}

// a grain on a plane tilted by theta (static friction mu_s = 0.6 on the plane, the grains'
// kinetic-to-static ratio 0.5, so mu_k = 0.3), gravity 9.81. it has no rotation (p2's grains), so
// coulomb friction alone decides: at rest below the static angle (25 deg: tan = 0.466 < 0.6) it
// stays; sliding (started at 0.5 m/s down the slope, or from rest above the static angle, 35 deg)
// it accelerates at g (sin theta - mu_k cos theta), the kinetic coefficient
struct Incline {
  double creep;               // displacement along the slope over the second half second [m]
  double accel;               // mean acceleration along the slope over that half second [m/s^2]
};

Incline RunIncline(grnPbdPasses passes, double theta, double v_start) {
  grnParams p = PbdParams(1, 2e4, 0.5, passes);
  p.friction = 0.6f;
  p.kinetic_friction = 0.3f;
  p.gravity[2] = -9.81f;
  SolverPtr s = MakeSolver(p);
  grnShape plane = TiltedPlane(theta, p.friction);
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &plane), grnOK);
  const double n[3] = {std::sin(theta), 0, std::cos(theta)};
  const double down[3] = {std::cos(theta), 0, -std::sin(theta)};
  float pos[3], vel[3];
  for (int a = 0; a < 3; a++) {
    pos[a] = (float)(n[a] * p.radius);
    vel[a] = (float)(down[a] * v_start);
  }
  EXPECT_EQ(grn_set_grains(s.get(), 1, pos, vel), grnOK);
  const int half = (int)std::lround(0.5 / p.dt);
  auto along = [&](const std::vector<float>& x) {
    return x[0] * down[0] + x[1] * down[1] + x[2] * down[2];
  };
  EXPECT_EQ(grn_advance(s.get(), half), grnOK);
  Grains a = Read(s.get());
  EXPECT_EQ(grn_advance(s.get(), half), grnOK);
  Grains b = Read(s.get());
  Incline out;
  out.creep = along(b.pos) - along(a.pos);
  out.accel = (along(b.vel) - along(a.vel)) / (half * p.dt);
  return out;
}

TEST(Pbd, FrictionIsStaticBelowTheStaticAngleAndKineticWhenSliding) {
  const double g = 9.81, r = 0.005;
  for (grnPbdPasses passes : kPasses) {
    SCOPED_TRACE(PassesName(passes));
    Incline rest = RunIncline(passes, Deg(25), 0);
    EXPECT_LT(std::fabs(rest.creep), 1e-4 * r);
    const struct { double deg, v; } sliding[] = {{25, 0.5}, {35, 0}};
    for (const auto& run : sliding) {
      SCOPED_TRACE(testing::Message() << run.deg << " deg from " << run.v << " m/s");
      double th = Deg(run.deg), want = g * (std::sin(th) - 0.3 * std::cos(th));
      Incline got = RunIncline(passes, th, run.v);
      EXPECT_NEAR(got.accel, want, 0.02 * want);
      std::printf("[ measure  ] pbd grain sliding on %.0f deg, %s passes: a %.5g m/s^2 vs "
                  "g (sin - mu_k cos) %.5g (%+.2f%%)\n", run.deg, PassesName(passes), got.accel,
                  want, 100 * (got.accel / want - 1));
    }
    std::printf("[ measure  ] pbd grain at rest on 25 deg (mu_s 0.6), %s passes: moved %.3g r in "
                "0.5 s\n", PassesName(passes), rest.creep / r);
  }
}

// the impulse a body receives equals minus the momentum the grains got from it (newton's third
// law through the position corrections): 16 grains, apart from each other, fall from different
// heights onto a box (body 0), bounce and settle; over each advance their momentum change is
// gravity's impulse minus the box's (its wrench times the advance's duration)
TEST(Pbd, ABodyReceivesMinusTheImpulseItGivesTheGrains) {
  for (grnPbdPasses passes : kPasses) {
    SCOPED_TRACE(PassesName(passes));
    const int n = 16;
    grnParams p = PbdParams(n, 2e4, 0.3, passes);
    p.gravity[2] = -9.81f;
    p.max_bodies = 1;
    SolverPtr s = MakeSolver(p);
    grnShape box = StaticShape(grnSHAPE_BOX);
    box.size[0] = box.size[1] = 0.05f;
    box.size[2] = 0.01f;
    box.pos[2] = box.com[2] = -0.01f;
    box.friction = 0.5f;
    box.body = 0;
    ASSERT_EQ(grn_set_shapes(s.get(), 1, &box), grnOK);
    std::vector<float> pos(3 * n), vel(3 * n, 0.0f);
    for (int i = 0; i < n; i++) {
      pos[3 * i] = -0.03f + 0.02f * (i % 4);
      pos[3 * i + 1] = -0.03f + 0.02f * (i / 4);
      pos[3 * i + 2] = p.radius + 0.002f * i;
      vel[3 * i] = 0.05f * (i % 3 - 1);  // some slide as they land
    }
    ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), vel.data()), grnOK);
    const double m = GrainMass(p);
    const int nsub = 20;
    double worst = 0, largest = 0;
    for (int step = 0; step < 40; step++) {
      Grains a = Read(s.get());
      ASSERT_EQ(grn_advance(s.get(), nsub), grnOK);
      Grains b = Read(s.get());
      double w[6];
      ASSERT_EQ(grn_get_wrenches(s.get(), w), grnOK);
      for (int ax = 0; ax < 3; ax++) {
        double dp = 0;
        for (int i = 0; i < n; i++) dp += m * ((double)b.vel[3 * i + ax] - a.vel[3 * i + ax]);
        double gravity = n * m * p.gravity[ax] * nsub * p.dt;
        double body = w[ax] * nsub * p.dt;
        worst = std::fmax(worst, std::fabs(dp - gravity + body));
        largest = std::fmax(largest, std::fabs(body));
      }
    }
    ASSERT_GT(largest, 0) << "the grains must land on the box";
    // float velocities of order 0.1 m/s summed over 16 grains: rounding of a few 1e-8 m/s each
    EXPECT_LT(worst, 1e-4 * largest);
    std::printf("[ measure  ] pbd grains on a body, %s passes: largest |momentum change - gravity "
                "+ body impulse| %.3g N s, %.3g of the largest body impulse\n", PassesName(passes),
                worst, worst / largest);
  }
}

}  // namespace
