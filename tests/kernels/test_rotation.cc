// grain rotation against analytic results: a solid sphere on an incline rolls without slipping
// (its orientation turning by distance / radius; or slides and spins up above 3.5 mu), rolling
// and spinning resistance of a shape stop and hold it at the rates the constant resisting
// moments give (and torsion between two grains with r_eff), a crowd in free space conserves
// angular momentum, and grains of mixed radii find their contacts and collide with their own
// masses.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_test_util.h"

namespace {

using grn_test::Grains;
using grn_test::MakeSolver;
using grn_test::Read;
using grn_test::SolverPtr;

using grn_test::Deg;
using grn_test::kEps;
using grn_test::kG;
using grn_test::kPi;

//---------------------------------- one grain on a plane ------------------------------------------

// a plane and the gravity that make an incline of angle theta, in one of two ways. tilt_plane:
// the plane is rotated and gravity points down; otherwise the plane is the floor and gravity is
// tilted. n: the plane's normal, down: the downhill direction, axis = n x down: the axis a grain
// rolling downhill turns about (rolling without slip: v = r w x n, so w = (v / r) axis)
struct Incline {
  grnParams params;
  grnShape plane;
  double n[3], down[3], axis[3];
};

Incline MakeIncline(double theta, bool tilt_plane, float mu) {
  Incline in;
  grn_default_params(&in.params);
  in.params.capacity = 1;
  in.params.friction = mu;
  double c = std::cos(theta), sn = std::sin(theta);
  if (tilt_plane) {
    in.plane = grn_test::TiltedPlane(theta, mu);
    const double n[3] = {sn, 0, c}, down[3] = {c, 0, -sn};
    std::copy(n, n + 3, in.n);
    std::copy(down, down + 3, in.down);
  } else {
    in.plane = grn_test::StaticShape(grnSHAPE_PLANE);
    in.plane.friction = mu;
    in.params.gravity[0] = (float)(kG * sn);
    in.params.gravity[2] = (float)(-kG * c);
    const double n[3] = {0, 0, 1}, down[3] = {1, 0, 0};
    std::copy(n, n + 3, in.n);
    std::copy(down, down + 3, in.down);
  }
  in.axis[0] = in.n[1] * in.down[2] - in.n[2] * in.down[1];
  in.axis[1] = in.n[2] * in.down[0] - in.n[0] * in.down[2];
  in.axis[2] = in.n[0] * in.down[1] - in.n[1] * in.down[0];
  return in;
}

// one grain's trace, every substep: time, velocity along down, angular velocity about axis and
// about n, displacement along down, and the angle its orientation has turned about axis (the sum
// of each substep's turn, read from the orientations)
struct Trace {
  std::vector<double> t, v, w, spin, s, turned;
  double off_axis = 0;   // largest turn in one substep about an axis normal to axis [rad]
  double off_plane = 0;  // largest |distance from the plane - r| [m]
  double side = 0;       // largest |displacement across the slope| [m]
};

// the grain placed resting on the plane with velocity v0 down the slope, angular velocity w0
// about axis and spin0 about n, stepped for the given time
Trace RunOnPlane(const Incline& in, double seconds, double v0 = 0, double w0 = 0,
                 double spin0 = 0) {
  Trace tr;
  SolverPtr s = MakeSolver(in.params);
  if (!s) return tr;
  const float r = in.params.radius;
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &in.plane), grnOK);
  float x0[3], vel[3], w[3];
  for (int a = 0; a < 3; a++) {
    x0[a] = (float)(r * in.n[a]);
    vel[a] = (float)(v0 * in.down[a]);
    w[a] = (float)(w0 * in.axis[a] + spin0 * in.n[a]);
  }
  EXPECT_EQ(grn_set_grains(s.get(), 1, x0, vel), grnOK);
  EXPECT_EQ(grn_set_angvel(s.get(), w), grnOK);
  const double dt = in.params.dt;
  const int steps = (int)std::lround(seconds / dt);
  std::vector<float> q = Read(s.get()).orient;
  double turned = 0;
  for (int k = 1; k <= steps; k++) {
    EXPECT_EQ(grn_advance(s.get(), 1), grnOK);
    Grains g = Read(s.get());
    // this substep's turn, g.orient q^-1, as a rotation vector
    const float* p = g.orient.data();
    double dw = p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
    double dv[3] = {-p[0] * q[1] + p[1] * q[0] - p[2] * q[3] + p[3] * q[2],
                    -p[0] * q[2] + p[1] * q[3] + p[2] * q[0] - p[3] * q[1],
                    -p[0] * q[3] - p[1] * q[2] + p[2] * q[1] + p[3] * q[0]};
    double along = 0, across = 0;
    for (int a = 0; a < 3; a++) along += dv[a] * in.axis[a];
    for (int a = 0; a < 3; a++) across += std::pow(dv[a] - along * in.axis[a], 2);
    turned += 2 * std::atan2(along, dw);
    tr.off_axis = std::max(tr.off_axis, 2 * std::sqrt(across));
    tr.turned.push_back(turned);
    q = g.orient;
    double v = 0, wa = 0, wn = 0, h = 0, x = 0, y = 0;
    for (int a = 0; a < 3; a++) {
      v += g.vel[a] * in.down[a];
      wa += g.angvel[a] * in.axis[a];
      wn += g.angvel[a] * in.n[a];
      h += g.pos[a] * in.n[a];
      x += (g.pos[a] - x0[a]) * in.down[a];
      y += (g.pos[a] - x0[a]) * in.axis[a];
    }
    tr.t.push_back(k * dt);
    tr.v.push_back(v);
    tr.w.push_back(wa);
    tr.spin.push_back(wn);
    tr.s.push_back(x);
    tr.off_plane = std::max(tr.off_plane, std::fabs(h - r));
    tr.side = std::max(tr.side, std::fabs(y));
  }
  return tr;
}

// least-squares slope of y against t over the samples [lo, hi)
double Slope(const std::vector<double>& t, const std::vector<double>& y, size_t lo, size_t hi) {
  double n = 0, st = 0, sy = 0, stt = 0, sty = 0;
  for (size_t k = lo; k < hi; k++) {
    n++, st += t[k], sy += y[k], stt += t[k] * t[k], sty += t[k] * y[k];
  }
  return (n * sty - st * sy) / (n * stt - st * st);
}

const char* How(bool tilt_plane) { return tilt_plane ? "plane" : "gravity"; }

//---------------------------------- rolling down an incline ---------------------------------------

// a solid sphere (I = 2/5 m r^2) released on an incline with friction rolls without slipping:
//   m a = m g sin(theta) - f,  I a / r = f r   =>   a = 5/7 g sin(theta),  f = 2/7 m g sin(theta)
// which the cone allows while f <= mu m g cos(theta), i.e. tan(theta) <= 3.5 mu. a grain that
// did not turn would slide at g (sin - mu cos) (0 below the friction angle: it stays put); one
// whose contact point slipped would fall between. the velocity fit over 1 s is exact for a
// constant acceleration under symplectic euler, and one contact is solved exactly by the
// iteration, so 2% leaves room only for the fit's float noise.
TEST(Rotation, SphereOnInclineRollsWithoutSlipping) {
  const float mu = 0.5f;
  for (double deg : {10.0, 20.0, 30.0, 45.0}) {
    for (bool tilt_plane : {true, false}) {
      SCOPED_TRACE(testing::Message() << deg << " deg, " << How(tilt_plane) << " tilted");
      double th = Deg(deg);
      ASSERT_LT(std::tan(th), 3.5 * mu);
      Incline in = MakeIncline(th, tilt_plane, mu);
      const double r = in.params.radius;
      Trace tr = RunOnPlane(in, 1.0);
      double want = 5.0 / 7.0 * kG * std::sin(th);
      double a = Slope(tr.t, tr.v, 0, tr.t.size());
      double alpha = Slope(tr.t, tr.w, 0, tr.t.size());
      EXPECT_NEAR(a, want, 0.02 * want);
      // no slip: w = v / r throughout, checked at the end (after 1 s, v = a t)
      double v = tr.v.back(), w = tr.w.back();
      EXPECT_NEAR(w * r, v, 0.02 * std::fabs(v));
      EXPECT_NEAR(alpha * r, want, 0.02 * want);
      EXPECT_LE(tr.off_plane, 0.01 * r);
      EXPECT_LE(tr.side, 1e-3 * r);
      std::printf("[ measure  ] rolling, %.0f deg (%s tilted), mu %.2f: a %.5g m/s^2 vs 5/7 g sin "
                  "%.5g (%+.3g%%); w r / v at 1 s %.6f; alpha r %.5g; max |height - r| %.3g r\n",
                  deg, How(tilt_plane), mu, a, want, 100 * (a / want - 1), w * r / v, alpha * r,
                  tr.off_plane / r);
    }
  }
}

// rolling without slipping, the orientation turns about axis by the distance rolled over the
// radius (the sphere's surface unrolls onto the plane). 10 and 30 degrees for 1 s roll 120 and 350
// radii: a turn composed in the wrong frame, a missing half angle or a sign misses by all of it.
// the angle is summed from the substeps' turns as read back from the solver; the orientation and
// the position both move by the same substep velocities, so they agree to float rounding
// (measured: within 1e-6).
TEST(Rotation, RollingSphereTurnsByTheDistanceOverItsRadius) {
  const float mu = 0.5f;
  for (double deg : {10.0, 30.0}) {
    for (bool tilt_plane : {true, false}) {
      SCOPED_TRACE(testing::Message() << deg << " deg, " << How(tilt_plane) << " tilted");
      Incline in = MakeIncline(Deg(deg), tilt_plane, mu);
      const double r = in.params.radius;
      Trace tr = RunOnPlane(in, 1.0);
      ASSERT_FALSE(tr.turned.empty());
      double want = tr.s.back() / r, got = tr.turned.back();
      std::printf("[ measure  ] rolling %.0f deg (%s tilted) 1 s: turned %.6g rad vs distance / "
                  "radius %.6g (%+.3g%%); largest off-axis turn in a substep %.3g rad\n",
                  deg, How(tilt_plane), got, want, 100 * (got / want - 1), tr.off_axis);
      EXPECT_GT(want, 30.0);
      EXPECT_NEAR(got, want, 1e-5 * want);
      EXPECT_LT(tr.off_axis, 1e-5);
    }
  }
}

// above tan(theta) = 3.5 mu the cone cannot hold the contact point: the grain slides with
//   a = g (sin(theta) - mu cos(theta))
// while the kinetic friction mu m g cos(theta), acting at the contact point, spins it up at
//   alpha = mu m g cos(theta) r / I = 5 mu g cos(theta) / (2 r)
// and w r (5/2 mu g cos t) never catches up with v (g (sin - mu cos) t). both within 2%: one
// contact on the cone's edge is solved exactly, the motion has constant accelerations, and a
// wrong lever arm, a missing 2/5 or friction left off the rotation all miss by far more.
TEST(Rotation, SphereOnSteepInclineSlidesAndSpinsUp) {
  const float mu = 0.1f;
  for (double deg : {30.0, 45.0}) {
    for (bool tilt_plane : {true, false}) {
      SCOPED_TRACE(testing::Message() << deg << " deg, " << How(tilt_plane) << " tilted");
      double th = Deg(deg);
      ASSERT_GT(std::tan(th), 3.5 * mu);
      Incline in = MakeIncline(th, tilt_plane, mu);
      const double r = in.params.radius;
      Trace tr = RunOnPlane(in, 1.0);
      double want_a = kG * (std::sin(th) - mu * std::cos(th));
      double want_alpha = 5 * mu * kG * std::cos(th) / (2 * r);
      double a = Slope(tr.t, tr.v, 0, tr.t.size());
      double alpha = Slope(tr.t, tr.w, 0, tr.t.size());
      EXPECT_NEAR(a, want_a, 0.02 * want_a);
      EXPECT_NEAR(alpha, want_alpha, 0.02 * want_alpha);
      // the distance after 1 s agrees with the same acceleration (a t^2 / 2)
      EXPECT_NEAR(tr.s.back(), 0.5 * want_a, 0.02 * 0.5 * want_a);
      EXPECT_LE(tr.off_plane, 0.01 * r);
      std::printf("[ measure  ] sliding, %.0f deg (%s tilted), mu %.2f: a %.5g m/s^2 vs %.5g "
                  "(%+.3g%%); alpha %.5g rad/s^2 vs 5 mu g cos / 2r %.5g (%+.3g%%); slip at 1 s "
                  "%.4g m/s\n", deg, How(tilt_plane), mu, a, want_a, 100 * (a / want_a - 1),
                  alpha, want_alpha, 100 * (alpha / want_alpha - 1),
                  tr.v.back() - r * tr.w.back());
    }
  }
}

//---------------------------------- rolling resistance --------------------------------------------

// rolling resistance of the plane, shape.roll_friction = mu_r r [m]: a rolling moment of at most
// mu_r r N against the rolling. rolling without slip down the incline with the moment at its
// bound,
//   m a = m g sin - f,   I a / r = f r - mu_r r N,   N = m g cos
//   =>  (1 + 2/5) a = g (sin - mu_r cos)  =>  a = 5/7 g (sin(theta) - mu_r cos(theta))
// with f = 2/5 m a + mu_r N, inside the cone mu N for the angles below. at rest, f = m g sin
// and the moment f r must stay within mu_r r N: held while tan(theta) < mu_r. a plane without
// the moment would roll at 5/7 g sin (27% faster at 30 deg), one that resisted the slip instead
// of the rolling would not hold the grain below mu_r.
TEST(Rotation, RollingResistanceHoldsThenSlowsRolling) {
  const float mu = 0.5f, mu_r = 0.2f;
  for (bool tilt_plane : {true, false}) {
    for (double deg : {5.0, 10.0}) {
      SCOPED_TRACE(testing::Message() << deg << " deg, " << How(tilt_plane) << " tilted");
      double th = Deg(deg);
      ASSERT_LT(std::tan(th), mu_r);
      Incline in = MakeIncline(th, tilt_plane, mu);
      const double r = in.params.radius;
      in.plane.roll_friction = (float)(mu_r * r);
      Trace tr = RunOnPlane(in, 1.0);
      EXPECT_LE(std::fabs(tr.s.back()), 1e-3 * r) << "the grain did not stay put";
      EXPECT_LE(tr.off_plane, 0.01 * r);
      std::printf("[ measure  ] rolling resistance mu_r %.2f, %.0f deg (%s tilted, tan %.3f): "
                  "moved %.3g r in 1 s, w at 1 s %.3g rad/s\n", mu_r, deg, How(tilt_plane),
                  std::tan(th), tr.s.back() / r, tr.w.back());
    }
    for (double deg : {20.0, 30.0}) {
      SCOPED_TRACE(testing::Message() << deg << " deg, " << How(tilt_plane) << " tilted");
      double th = Deg(deg);
      double want = 5.0 / 7.0 * kG * (std::sin(th) - mu_r * std::cos(th));
      ASSERT_GT(std::tan(th), mu_r);
      ASSERT_LT(0.4 * want / kG + mu_r * std::cos(th), mu * std::cos(th));  // f inside the cone
      Incline in = MakeIncline(th, tilt_plane, mu);
      const double r = in.params.radius;
      in.plane.roll_friction = (float)(mu_r * r);
      Trace tr = RunOnPlane(in, 1.0);
      double a = Slope(tr.t, tr.v, 0, tr.t.size());
      EXPECT_NEAR(a, want, 0.02 * want);
      double v = tr.v.back(), w = tr.w.back();
      EXPECT_NEAR(w * r, v, 0.02 * std::fabs(v)) << "the grain slips";
      EXPECT_LE(tr.off_plane, 0.01 * r);
      std::printf("[ measure  ] rolling resistance mu_r %.2f, %.0f deg (%s tilted): a %.5g m/s^2 "
                  "vs 5/7 g (sin - mu_r cos) %.5g (%+.3g%%); w r / v at 1 s %.6f\n", mu_r, deg,
                  How(tilt_plane), a, want, 100 * (a / want - 1), w * r / v);
    }
  }
}

// a sphere rolling on the floor at v0 (w0 = v0 / r, no slip) against the floor's rolling moment
// mu_r r N decelerates at 5/7 mu_r g (the incline's result at theta = 0, the moment now against
// the motion), so it stops after
//   s = v0^2 / (2 a) = 7 v0^2 / (10 mu_r g)
// and then stays stopped: the moment only resists, it never rolls the grain back. the stop is
// resolved to a substep (v0 dt = 1.5e-4 m of 0.064 m: 0.2%), so 3% is room for the slope of the
// last substeps; a sliding-only floor would roll on for ever, a moment that acted on the speed
// of the centre (f = mu_r N) would stop it in 2/7 of the distance.
TEST(Rotation, RollingResistanceStopsARollingSphere) {
  const float mu = 0.5f, mu_r = 0.1f;
  const double v0 = 0.3;
  for (bool tilt_plane : {true, false}) {
    SCOPED_TRACE(testing::Message() << How(tilt_plane));
    Incline in = MakeIncline(0, tilt_plane, mu);
    const double r = in.params.radius;
    in.plane.roll_friction = (float)(mu_r * r);
    // 1.2 s: the stop comes at 7 v0 / (5 mu_r g) = 0.43 s
    Trace tr = RunOnPlane(in, 1.2, v0, v0 / r);
    const double want_s = 7 * v0 * v0 / (10 * mu_r * kG), want_t = 7 * v0 / (5 * mu_r * kG);
    size_t stop = 0;
    while (stop < tr.v.size() && tr.v[stop] > 1e-3 * v0) stop++;
    ASSERT_LT(stop, tr.v.size()) << "never stopped";
    double s_stop = tr.s[stop], t_stop = tr.t[stop];
    EXPECT_NEAR(s_stop, want_s, 0.03 * want_s);
    EXPECT_NEAR(t_stop, want_t, 0.03 * want_t);
    double a = -Slope(tr.t, tr.v, 0, stop * 9 / 10);
    const double want_a = 5.0 / 7.0 * mu_r * kG;
    EXPECT_NEAR(a, want_a, 0.03 * want_a);
    // stays stopped: from 0.1 s after the stop to the end it moves by less than 1e-3 r
    size_t later = stop + (size_t)std::lround(0.1 / in.params.dt);
    ASSERT_LT(later, tr.s.size());
    double creep = std::fabs(tr.s.back() - tr.s[later]);
    double vmax = 0, wmax = 0;
    for (size_t k = later; k < tr.v.size(); k++) {
      vmax = std::max(vmax, std::fabs(tr.v[k]));
      wmax = std::max(wmax, std::fabs(tr.w[k]));
    }
    EXPECT_LE(creep, 1e-3 * r) << "creeps after stopping";
    EXPECT_LE(vmax, 1e-3 * v0);
    EXPECT_LE(wmax * r, 1e-3 * v0);
    std::printf("[ measure  ] rolling on floor (%s), v0 %.2f m/s, mu_r %.2f: stopped after %.5g m "
                "vs 7 v0^2 / (10 mu_r g) %.5g (%+.3g%%) at %.4g s vs %.4g; deceleration %.5g vs "
                "%.5g (%+.3g%%); afterwards moved %.3g r, max v %.3g m/s, max w r %.3g m/s\n",
                How(tilt_plane), v0, mu_r, s_stop, want_s, 100 * (s_stop / want_s - 1), t_stop,
                want_t, a, want_a, 100 * (a / want_a - 1), creep / r, vmax, wmax * r);
  }
}

// a sphere spinning about the vertical on the floor: the floor's spin moment, at most
// spin_friction N, slows it at
//   I dw/dt = -spin_friction m g   =>   dw/dt = 5 spin_friction g / (2 r^2)
// until it stops (and stays stopped). a spin of the contact point does not slide it, so without
// spin friction nothing slows it: it keeps its spin to float rounding (a floor that turned its
// sliding friction, or the rolling moment, against the spin would stop it).
TEST(Rotation, SpinFrictionStopsASpinningSphere) {
  const float mu = 0.5f;
  const double w0 = 100, spin = 2e-4;  // [rad/s], [m]
  Incline in = MakeIncline(0, true, mu);
  const double r = in.params.radius;
  const double want = 5 * spin * kG / (2 * r * r), want_t = w0 / want;  // 196 rad/s^2, 0.51 s
  in.plane.spin_friction = (float)spin;
  Trace tr = RunOnPlane(in, 1.0, 0, 0, w0);
  size_t stop = 0;
  while (stop < tr.spin.size() && tr.spin[stop] > 1e-3 * w0) stop++;
  ASSERT_LT(stop, tr.spin.size()) << "never stopped";
  double decel = -Slope(tr.t, tr.spin, 0, stop * 9 / 10);
  EXPECT_NEAR(decel, want, 0.02 * want);
  EXPECT_NEAR(tr.t[stop], want_t, 0.02 * want_t);
  double after = 0, vmax = 0;
  for (size_t k = stop + 1; k < tr.spin.size(); k++) {
    after = std::max(after, std::fabs(tr.spin[k]));
  }
  for (double v : tr.v) vmax = std::max(vmax, std::fabs(v));
  EXPECT_LE(after, 1e-3 * w0) << "the spin came back";
  EXPECT_LE(std::fabs(tr.s.back()), 1e-3 * r) << "spinning moved the grain";
  EXPECT_LE(tr.side, 1e-3 * r) << "spinning moved the grain";

  // no spin friction: still spinning at w0 after 1 s
  in.plane.spin_friction = 0;
  Trace free_tr = RunOnPlane(in, 1.0, 0, 0, w0);
  double lost = w0 - free_tr.spin.back();
  EXPECT_LE(std::fabs(lost), 1e-5 * w0) << "spin lost without spin friction";
  EXPECT_LE(std::fabs(free_tr.s.back()), 1e-3 * r);
  std::printf("[ measure  ] spinning on floor, w0 %.0f rad/s, spin_friction %.3g m: dw/dt %.5g "
              "rad/s^2 vs 5 s g / (2 r^2) %.5g (%+.3g%%), stopped at %.4g s vs %.4g, max |w| "
              "after %.3g rad/s; without spin friction lost %.3g rad/s in 1 s\n", w0, spin,
              decel, want, 100 * (decel / want - 1), tr.t[stop], want_t, after, lost);
}

// torsional friction between grains: a small grain (R / 2) resting on top of a big one (R) that
// rests on the floor, spun about the vertical. the moment between them is at most
// torsional_friction r_eff N with r_eff = r_a r_b / (r_a + r_b) = R / 3 and N = m_b g, so
//   dw/dt = torsional_friction r_eff m_b g / I_b = 5 torsional_friction r_eff g / (2 r_b^2)
// while the floor's spin friction (large) holds the big grain still. an r_eff of the mean radius
// (3 R / 4) or of R / 2 would slow it 2.25 or 1.5 times as fast; a moment on one grain only
// would leave the big one turning against the floor's hold.
TEST(Rotation, TorsionalFrictionBetweenStackedGrainsStopsTheSpin) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = 2;
  p.torsional_friction = 0.1f;
  const float R = p.radius, rb = 0.5f * R;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  grnShape floor = grn_test::StaticShape(grnSHAPE_PLANE);
  floor.friction = 0.5f;
  floor.spin_friction = 2 * R;
  ASSERT_EQ(grn_set_shapes(s.get(), 1, &floor), grnOK);
  const float pos[6] = {0, 0, R, 0, 0, 2 * R + rb}, radii[2] = {R, rb};
  const double w0 = 100;
  const float w[6] = {0, 0, 0, 0, 0, (float)w0};
  ASSERT_EQ(grn_set_grains(s.get(), 2, pos, nullptr), grnOK);
  ASSERT_EQ(grn_set_radii(s.get(), radii), grnOK);
  ASSERT_EQ(grn_set_angvel(s.get(), w), grnOK);
  const double reff = (double)R * rb / (R + rb);
  const double want = 5 * p.torsional_friction * reff * kG / (2 * (double)rb * rb);
  const double want_t = w0 / want;  // 0.15 s
  std::vector<double> t, spin;
  double big_spin = 0, drift = 0;
  const int steps = (int)std::lround(0.4 / p.dt);
  for (int k = 1; k <= steps; k++) {
    ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
    Grains g = Read(s.get());
    t.push_back(k * p.dt);
    spin.push_back(g.angvel[5]);
    big_spin = std::max(big_spin, (double)std::fabs(g.angvel[2]));
    for (int i = 0; i < 2; i++) {
      drift = std::max({drift, std::hypot((double)g.pos[3 * i], (double)g.pos[3 * i + 1])});
    }
  }
  size_t stop = 0;
  while (stop < spin.size() && spin[stop] > 1e-3 * w0) stop++;
  ASSERT_LT(stop, spin.size()) << "never stopped";
  double decel = -Slope(t, spin, 0, stop * 9 / 10);
  EXPECT_NEAR(decel, want, 0.02 * want);
  EXPECT_NEAR(t[stop], want_t, 0.02 * want_t);
  EXPECT_LE(std::fabs(spin.back()), 1e-3 * w0) << "spin came back";
  EXPECT_LE(big_spin, 1e-3 * w0) << "the floor did not hold the big grain";
  EXPECT_LE(drift, 1e-3 * R) << "the stack moved sideways";
  std::printf("[ measure  ] stacked grains R, R/2, torsional friction %.2f: dw/dt %.5g rad/s^2 vs "
              "5 mu_t r_eff g / (2 r^2) %.5g (%+.3g%%), stopped at %.4g s vs %.4g; big grain's "
              "spin at most %.3g rad/s, sideways drift %.3g R\n", p.torsional_friction, decel,
              want, 100 * (decel / want - 1), t[stop], want_t, big_spin, drift / R);
}

//---------------------------------- angular momentum in a crowd -----------------------------------

// masses and moments of inertia of the grains from their radii: m = grn_grain_mass (r / R)^3,
// I = 2/5 m r^2
void MassesFromRadii(const grnSolver* s, const std::vector<float>& radii, std::vector<double>* m,
                     std::vector<double>* inertia) {
  const double m0 = grn_grain_mass(s), big = grn_params(s)->radius;
  m->resize(radii.size());
  inertia->resize(radii.size());
  for (size_t i = 0; i < radii.size(); i++) {
    double q = radii[i] / big;
    (*m)[i] = m0 * q * q * q;
    (*inertia)[i] = 0.4 * (*m)[i] * radii[i] * radii[i];
  }
}

// each grain's number of grains within its contact distance (r_i + r_j)(1 + margin / 2), taken
// 1% wider so that none is missed
std::vector<int> ContactCounts(const std::vector<float>& pos, const std::vector<float>& radii,
                               float margin) {
  int n = (int)radii.size();
  std::vector<int> count(n, 0);
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      double d2 = 0;
      for (int a = 0; a < 3; a++) d2 += std::pow((double)pos[3 * i + a] - pos[3 * j + a], 2);
      double cut = 1.01 * ((double)radii[i] + radii[j]) * (1 + 0.5 * margin);
      if (d2 < cut * cut) count[i]++, count[j]++;
    }
  }
  return count;
}

// momentum and angular momentum about the origin of grains of masses m and inertias I, in double;
// with contact counts c, also the rounding bounds of one substep from this state (below)
struct Momenta {
  double p[3] = {0, 0, 0}, l[3] = {0, 0, 0};
  double pscale = 0, lscale = 0;  // sum m |v|; sum |x| m |v| + I |w| + r m |v|
  double pround = 0, lround = 0;  // the same sums with each grain's terms times eps (c + 2)
  double pvar = 0, lvar = 0;      // sums of (c + 2) (eps x each grain's terms)^2 / 3
};

Momenta Momentum(const Grains& g, const std::vector<double>& m, const std::vector<double>& inertia,
                 const std::vector<float>& radii, const std::vector<int>& c) {
  Momenta q;
  for (size_t i = 0; i < m.size(); i++) {
    const float *x = &g.pos[3 * i], *v = &g.vel[3 * i], *w = &g.angvel[3 * i];
    double mv[3] = {m[i] * v[0], m[i] * v[1], m[i] * v[2]};
    double xmv[3] = {x[1] * mv[2] - x[2] * mv[1], x[2] * mv[0] - x[0] * mv[2],
                     x[0] * mv[1] - x[1] * mv[0]};
    for (int a = 0; a < 3; a++) {
      q.p[a] += mv[a];
      q.l[a] += xmv[a] + inertia[i] * w[a];
    }
    double nx = std::sqrt((double)x[0] * x[0] + (double)x[1] * x[1] + (double)x[2] * x[2]);
    double nw = std::sqrt((double)w[0] * w[0] + (double)w[1] * w[1] + (double)w[2] * w[2]);
    double nmv = std::sqrt(mv[0] * mv[0] + mv[1] * mv[1] + mv[2] * mv[2]);
    double li = nx * nmv + inertia[i] * nw + radii[i] * nmv;
    double k = c.empty() ? 0 : kEps * (c[i] + 2);
    q.pscale += nmv;
    q.lscale += li;
    q.pround += k * nmv;
    q.lround += k * li;
    q.pvar += k * kEps * nmv * nmv / 3;
    q.lvar += k * kEps * li * li / 3;
  }
  return q;
}

// a crowd of grains of mixed radii with random velocities and spins in free space, friction,
// rolling and torsional friction all on: every contact puts equal and opposite impulses on its
// two grains at one contact point (the arms r_i d / (r_i + r_j) and r_j d / (r_i + r_j) meet) and
// equal and opposite moments, so linear momentum and angular momentum about any fixed point,
//   L = sum x_i x m_i v_i + I_i w_i,
// are conserved by every substep, to float rounding (symplectic euler moves x by the new v dt,
// which adds v x m v = 0). the baumgarte correction is off here: it moves penetrating grains
// apart along n without a velocity, which turns L by (b dt n) x m (v_i - v_j), a real
// non-conservation of the split impulse, not rounding (at the default 0.2 this crowd's |dL| is
// 14 times larger, over the bound). a torque with the wrong arm, a moment on
// one grain only, or a tangential impulse that spun the grains with the wrong lever arm break L
// by a share of the angular impulse exchanged.
//
// the bound: a substep rounds each grain's v and w once when stored, after summing its c contact
// impulses and torques (c more roundings, each of relative size eps at most of the grain's
// terms), and its x once: L about the crowd's centre takes c + 2 errors of at most eps (|x| m |v|
// + I |w| + r m |v|) per grain per substep (r: the torques' arm), P of eps m |v|. rounding errors
// are independent and uniform in [-eps, eps] (variance eps^2 / 3 of the term), so they add up as
// a random walk: sigma^2 = sum over grains and substeps of (c + 2) (eps term)^2 / 3, and the
// bound is 10 sigma (the largest excursion of a walk over the run lies within a few sigma). the
// worst case, every error of the same sign, is printed too: a contact point off by the gap of a
// speculative contact (arms r_i and r_j instead of meeting) stays below it but not below 10 sigma.
TEST(Rotation, CrowdConservesAngularMomentum) {
  const int n = 512, nsub = 100;
  grnParams p;
  grn_default_params(&p);
  p.capacity = n;
  p.gravity[2] = 0;
  p.friction = 0.5f;
  p.rolling_friction = 0.3f;
  p.torsional_friction = 0.3f;
  p.baumgarte = 0;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float R = p.radius;
  const float lo[3] = {-0.04f, -0.04f, -0.04f}, hi[3] = {0.04f, 0.04f, 0.04f};
  std::vector<float> pos = grn_test::JitteredLattice(n, lo, hi, 2.1f * R, 0.02f * R, 5);
  ASSERT_EQ((int)pos.size(), 3 * n);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f), ur(0.6f * R, R);
  std::vector<float> vel(3 * n), w(3 * n), radii(n);
  for (float& v : vel) v = u(rng);
  for (float& x : w) x = u(rng) / R;  // surface speeds up to 0.5 m/s, like the centres'
  for (float& x : radii) x = ur(rng);
  ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), vel.data()), grnOK);
  ASSERT_EQ(grn_set_radii(s.get(), radii.data()), grnOK);
  ASSERT_EQ(grn_set_angvel(s.get(), w.data()), grnOK);
  std::vector<double> m, inertia;
  MassesFromRadii(s.get(), radii, &m, &inertia);

  const Momenta start = Momentum(Read(s.get()), m, inertia, radii, {});
  double var_p = 0, var_l = 0, worst_case_p = 0, worst_case_l = 0, worst_p = 0, worst_l = 0;
  int cmax = 0;
  Grains g = Read(s.get());
  for (int k = 0; k < nsub; k++) {
    std::vector<int> c = ContactCounts(g.pos, radii, p.margin);
    cmax = std::max(cmax, *std::max_element(c.begin(), c.end()));
    Momenta before = Momentum(g, m, inertia, radii, c);
    var_p += before.pvar;
    var_l += before.lvar;
    worst_case_p += before.pround;
    worst_case_l += before.lround;
    ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
    g = Read(s.get());
    Momenta now = Momentum(g, m, inertia, radii, {});
    for (int a = 0; a < 3; a++) {
      worst_p = std::max(worst_p, std::fabs(now.p[a] - start.p[a]));
      worst_l = std::max(worst_l, std::fabs(now.l[a] - start.l[a]));
    }
  }
  const double bound_p = 10 * std::sqrt(var_p), bound_l = 10 * std::sqrt(var_l);
  EXPECT_LE(worst_p, bound_p) << "linear momentum not conserved";
  EXPECT_LE(worst_l, bound_l) << "angular momentum not conserved";
  // the contacts did exchange angular momentum between the grains' spins and their orbits
  double spin0 = 0, dspin = 0;
  for (int i = 0; i < n; i++) {
    for (int a = 0; a < 3; a++) {
      spin0 += inertia[i] * std::fabs(w[3 * i + a]);
      dspin += inertia[i] * std::fabs(g.angvel[3 * i + a] - w[3 * i + a]);
    }
  }
  EXPECT_GT(dspin, 0.1 * spin0) << "the spins hardly changed: no rotation coupling";
  std::printf("[ measure  ] crowd of %d, radii [0.6 R, R], %d substeps: |dP| %.3g of sum m|v| "
              "%.4g kg m/s (bound 10 sigma %.3g, worst case %.3g); |dL| %.3g of scale %.4g "
              "kg m^2/s (bound 10 sigma %.3g, worst case %.3g; up to %d contacts a grain); spins "
              "changed by %.3g of sum I|w| %.3g\n", n, nsub, worst_p, start.pscale, bound_p,
              worst_case_p, worst_l, start.lscale, bound_l, worst_case_l, cmax, dspin, spin0);
}

//---------------------------------- mixed radii ---------------------------------------------------

using Pair = std::pair<int, int>;

// grn_find_pairs with radii from [R / 4, R] in a dense random set: exactly the pairs closer than
// their contact distance (r_i + r_j)(1 + margin / 2) (grn_pair_cutoff), computed in the solver's
// float arithmetic. a hash or cutoff that used R for every grain would report pairs of small
// grains that do not touch; cells sized for the small grains would miss big ones.
TEST(Rotation, MixedRadiiFindPairsMatchesBruteForce) {
  const int n = 3000;
  grnParams p;
  grn_default_params(&p);
  p.capacity = n;
  const float R = p.radius, margin = p.margin;
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> ur(0.25f * R, R), ux(0, 0.1f);
  // 3000 grains of mean volume 0.42 R^3 in a 0.1 m cube: about as dense as a loose bed
  std::vector<float> pos(3 * n), radii(n);
  for (float& x : pos) x = ux(rng);
  for (float& x : radii) x = ur(rng);
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), nullptr), grnOK);
  ASSERT_EQ(grn_set_radii(s.get(), radii.data()), grnOK);
  std::vector<float> back(n);
  ASSERT_EQ(grn_get_radii(s.get(), back.data()), grnOK);
  ASSERT_EQ(back, radii);

  std::set<Pair> want;
  int small_pairs = 0;  // pairs that a cutoff of 2 R (1 + margin / 2) would also count wrongly
  int near_miss = 0;
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      float rx = pos[3 * i] - pos[3 * j], ry = pos[3 * i + 1] - pos[3 * j + 1];
      float rz = pos[3 * i + 2] - pos[3 * j + 2];
      float d2 = rx * rx + ry * ry + rz * rz;
      float sum = radii[i] + radii[j], cut = sum + 0.5f * margin * sum;
      float big = 2 * R + margin * R;
      if (d2 < cut * cut) {
        want.insert({i, j});
      } else if (d2 < big * big) {
        near_miss++;
        if (sum < R) small_pairs++;
      }
    }
  }
  int total = -1;
  ASSERT_EQ(grn_find_pairs(s.get(), nullptr, 0, &total), grnOK);
  std::vector<int> buf(2 * (size_t)std::max(total, 1));
  ASSERT_EQ(grn_find_pairs(s.get(), buf.data(), total, &total), grnOK);
  std::set<Pair> got;
  for (int k = 0; k < total; k++) {
    EXPECT_LT(buf[2 * k], buf[2 * k + 1]);
    got.insert({std::min(buf[2 * k], buf[2 * k + 1]), std::max(buf[2 * k], buf[2 * k + 1])});
  }
  EXPECT_EQ((int)got.size(), total) << "duplicate pairs";
  ASSERT_GE(want.size(), 1000u) << "too sparse to test anything";
  ASSERT_GE(near_miss, 100) << "no pairs that an equal-radius cutoff would count";
  std::vector<Pair> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << missing.size() << " pairs missing, first " << missing[0].first
                               << " " << missing[0].second;
  EXPECT_TRUE(extra.empty()) << extra.size() << " extra pairs";
  std::printf("[ measure  ] mixed radii [R/4, R], %d grains: %d pairs found, %zu by brute force, "
              "%zu missing, %zu extra; %d pairs within 2 R (1 + margin/2) but apart (%d of them "
              "two small grains)\n", n, total, want.size(), missing.size(), extra.size(),
              near_miss, small_pairs);
}

// a big grain (R) and a small one (R / 4, 1/64 of the mass) meet head on in free space. the
// contact is perfectly inelastic (the approach is stopped, nothing pushes back), so both leave at
// the common velocity
//   v = (m_big v_big + m_small v_small) / (m_big + m_small)
// and momentum with the masses from the radii is conserved to rounding. equal masses would give
// the mean of the two velocities; the masses of radius R for both, the same.
TEST(Rotation, BigAndSmallGrainCollideWithTheirOwnMasses) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = 2;
  p.gravity[2] = 0;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float R = p.radius;
  const float radii[2] = {R, 0.25f * R};
  const float pos[6] = {-0.02f, 0.001f, 0.3f, 0.02f, 0.001f, 0.3f};
  const float vel[6] = {0.2f, 0, 0, -1.0f, 0, 0};
  ASSERT_EQ(grn_set_grains(s.get(), 2, pos, vel), grnOK);
  ASSERT_EQ(grn_set_radii(s.get(), radii), grnOK);
  std::vector<double> m, inertia;
  MassesFromRadii(s.get(), {radii[0], radii[1]}, &m, &inertia);
  const double p0 = m[0] * vel[0] + m[1] * vel[3], common = p0 / (m[0] + m[1]);
  double worst_dp = 0, min_dist = 1e30;
  // the gap 0.04 - 1.25 R closes at 1.2 m/s in 0.028 s; run 0.1 s
  for (int k = 0; k < 200; k++) {
    ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
    Grains g = Read(s.get());
    for (int a = 0; a < 3; a++) {
      double dp = std::fabs(m[0] * g.vel[a] + m[1] * g.vel[3 + a] - (a == 0 ? p0 : 0));
      worst_dp = std::max(worst_dp, dp);
    }
    double dx = g.pos[3] - g.pos[0], dy = g.pos[4] - g.pos[1], dz = g.pos[5] - g.pos[2];
    min_dist = std::min(min_dist, std::sqrt(dx * dx + dy * dy + dz * dz));
  }
  Grains g = Read(s.get());
  const double scale = m[0] * std::fabs(vel[0]) + m[1] * std::fabs(vel[3]);
  // a few roundings of each momentum (the masses here and the solver's 1 / m differ by ~eps)
  EXPECT_LE(worst_dp, 16 * kEps * scale);
  EXPECT_LE(min_dist, 1.26 * R) << "the grains never met";
  EXPECT_GE(min_dist, 1.25 * R * (1 - 1e-3)) << "the small grain went into the big one";
  EXPECT_NEAR(g.vel[0], common, 1e-4 * std::fabs(common));
  EXPECT_NEAR(g.vel[3], common, 1e-4 * std::fabs(common));
  double spin = 0;
  for (float x : g.angvel) spin = std::max(spin, (double)std::fabs(x));
  EXPECT_LE(spin, 1e-6) << "a head-on collision spun the grains";
  std::printf("[ measure  ] big-small head-on (radii R, R/4): final velocities %.7g %.7g m/s vs "
              "common %.7g (mean of the two %.3g); max |dP| %.3g of %.3g kg m/s; min distance "
              "%.6g R (touching 1.25 R)\n", g.vel[0], g.vel[3], common, 0.5 * (vel[0] + vel[3]),
              worst_dp, scale, min_dist / R);
}

}  // namespace
