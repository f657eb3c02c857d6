// plugin/bodies.c (and its use in terrain.c) through MuJoCo: which bodies couple (the `bodies` key
// and its default), the velocity the grains see (the body's end-of-step velocity, linear and
// angular, at the right point), Newton's third law between grains and bodies across mj_step, and
// one-way coupling, which moves grains but applies nothing to the bodies.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "mjg_test_util.h"

namespace {

using mjg_test::DataPtr;
using mjg_test::GrainsOf;
using mjg_test::LoadXml;
using mjg_test::ModelPtr;
using mjg_test::StateCopy;
using mjg_test::TerrainXml;

int BodyId(const mjModel* m, const char* name) { return mj_name2id(m, mjOBJ_BODY, name); }

double Norm6(const mjtNum* w) {
  double s = 0;
  for (int i = 0; i < 6; i++) s += w[i] * w[i];
  return std::sqrt(s);
}

// two free spheres sitting in the small bed, one that collides and one that collides with nothing
std::string TwoSpheres() {
  return mjg_test::WalledBox(0.045) +
         "<body name=\"probe\" pos=\"-0.015 0 0.02\"><freejoint/>"
         "<geom type=\"sphere\" size=\"0.012\" density=\"2000\"/></body>"
         "<body name=\"ghost\" pos=\"0.015 0 0.02\"><freejoint/>"
         "<geom type=\"sphere\" size=\"0.012\" density=\"2000\" contype=\"0\" conaffinity=\"0\"/>"
         "</body>"
         "<body name=\"probe2\" pos=\"0 0.02 0.03\"><freejoint/>"
         "<geom type=\"box\" size=\"0.008 0.008 0.008\" density=\"2000\"/></body>";
}

TEST(Bodies, DefaultCouplesEveryBodyWithCollisionGeoms) {
  std::string error;
  auto m = LoadXml(TerrainXml(mjg_test::SmallBed(), TwoSpheres()), &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  for (int k = 0; k < 50; k++) mj_step(m.get(), d.get());
  auto g = GrainsOf(m.get(), d.get());
  // the bodies start among the grains and fall with them: the colliding ones come to lean on
  // them, the visual one does not
  EXPECT_GT(Norm6(g.wrench(BodyId(m.get(), "probe"))), 1e-3);
  EXPECT_GT(Norm6(g.wrench(BodyId(m.get(), "probe2"))), 1e-3);
  EXPECT_EQ(Norm6(g.wrench(BodyId(m.get(), "ghost"))), 0);
  EXPECT_EQ(Norm6(g.wrench(0)), 0);  // the world's walls are static boundaries
}

TEST(Bodies, KeyNamesTheCoupledBodies) {
  auto config = mjg_test::SmallBed();
  config["bodies"] = "  probe2\t";
  std::string error;
  auto m = LoadXml(TerrainXml(config, TwoSpheres()), &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  for (int k = 0; k < 3; k++) mj_step(m.get(), d.get());
  auto g = GrainsOf(m.get(), d.get());
  // only the named body feels the grains it starts among
  EXPECT_EQ(Norm6(g.wrench(BodyId(m.get(), "probe"))), 0);
  EXPECT_GT(Norm6(g.wrench(BodyId(m.get(), "probe2"))), 0);
}

TEST(Bodies, UnknownNamesAndTheWorldAreRefusedNamingKeyAndName) {
  const char* bad[][2] = {{"probe nosuchbody", "nosuchbody"}, {"world", "world"}};
  for (const auto& b : bad) {
    auto config = mjg_test::SmallBed();
    config["bodies"] = b[0];
    std::string error;
    auto m = LoadXml(TerrainXml(config, TwoSpheres()), &error);
    EXPECT_FALSE(m) << b[0];
    EXPECT_NE(error.find("'bodies'"), std::string::npos) << error;
    EXPECT_NE(error.find(std::string("'") + b[1] + "'"), std::string::npos) << error;
  }
}

// a plate on a slide joint along x, driven by a motor, and one grain ahead of it; no gravity
std::string PlateAndGrain(const char* coupling) {
  return TerrainXml(
      {{"fill", "0.02 -0.004 -0.004  0.028 0.004 0.004"}, {"radius", "0.004"},
       {"coupling", coupling}},
      "<body name=\"plate\" pos=\"0 0 0\"><joint name=\"x\" type=\"slide\" axis=\"1 0 0\"/>"
      "<geom type=\"box\" size=\"0.005 0.03 0.03\" mass=\"1\"/></body>",
      "<option timestep=\"0.002\" gravity=\"0 0 0\"/>"
      "<actuator><motor joint=\"x\"/></actuator>");
}

TEST(Bodies, GrainsSeeTheEndOfStepVelocity) {
  // the plate accelerates at 50 m/s^2 from 0.5 m/s: once it carries the grain, the grain moves
  // with the plate's velocity at the end of each step (what mujoco moved the plate with), not the
  // velocity at its start, which lags by a h = 0.1 m/s
  std::string error;
  auto m = LoadXml(PlateAndGrain("one-way"), &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  ASSERT_EQ(g.n(), 1);
  const double a = 50, h = m->opt.timestep;
  d->qvel[0] = 0.5;
  d->ctrl[0] = a * m->body_mass[1];
  int hit = -1, carried = 0;
  for (int k = 0; k < 30; k++) {
    mj_step(m.get(), d.get());
    if (hit < 0 && g.vel(0)[0] > 0) hit = k;
    if (hit < 0 || k < hit + 3) continue;  // the impact's penetration is pushed out first
    carried++;
    EXPECT_NEAR(g.vel(0)[0], d->qvel[0], 0.1 * a * h) << "step " << k;
    // and the plate's true sweep matches what the grains saw: they stay touching
    double gap = g.pos(0)[0] - 0.004 - (d->qpos[0] + 0.005);
    EXPECT_NEAR(gap, 0, 1e-5) << "step " << k;
  }
  EXPECT_GT(carried, 10);
}

TEST(Bodies, TwoWayPlateOnAStiffVelocityServoCarriesTheGrainWithIt) {
  // implicitfast integrates a velocity servo's gain implicitly, so while the servo accelerates
  // the plate (its target rising at 20 m/s^2) qacc is about three times what changed qvel: the
  // coupling must use the integrator's matrix M + h kv, or the grains would see a plate moving
  // at a velocity it never had. Pushed by the plate, the grain moves at the plate's velocity and
  // stays touching it.
  std::string xml = PlateAndGrain("two-way");
  xml.replace(xml.find("<actuator><motor joint=\"x\"/></actuator>"),
              std::string("<actuator><motor joint=\"x\"/></actuator>").size(),
              "<actuator><velocity joint=\"x\" kv=\"1000\"/></actuator>");
  xml.replace(xml.find("timestep=\"0.002\""), std::string("timestep=\"0.002\"").size(),
              "timestep=\"0.002\" integrator=\"implicitfast\"");
  std::string error;
  auto m = LoadXml(xml, &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  ASSERT_EQ(g.n(), 1);
  int hit = -1, carried = 0;
  for (int k = 0; k < 40; k++) {
    d->ctrl[0] = 0.3 + 20 * d->time;
    mj_step(m.get(), d.get());
    if (hit < 0 && g.vel(0)[0] > 0) hit = k;
    if (hit < 0 || k < hit + 3) continue;
    carried++;
    EXPECT_NEAR(g.vel(0)[0], d->qvel[0], 1e-3) << "step " << k;
    double gap = g.pos(0)[0] - 0.004 - (d->qpos[0] + 0.005);
    EXPECT_NEAR(gap, 0, 1e-5) << "step " << k;
  }
  EXPECT_GT(carried, 10);
  EXPECT_NEAR(d->qvel[0], 0.3 + 20 * d->time, 0.1);  // the servo keeps up with its target
}

TEST(Bodies, GrainsSeeTheAngularVelocityAboutTheJoint) {
  // a paddle on a hinge about z through the origin, its centre of mass at x = 0.04, turning at
  // 5 rad/s; a grain in its path at radius 0.04 is swept along at omega x r = 0.2 m/s along y
  std::string error;
  auto m = LoadXml(
      TerrainXml({{"fill", "0.036 0.006 -0.004  0.044 0.014 0.004"}, {"radius", "0.004"},
                  {"coupling", "one-way"}},
                 "<body name=\"paddle\"><joint type=\"hinge\" axis=\"0 0 1\" damping=\"0\"/>"
                 "<geom type=\"box\" pos=\"0.04 0 0\" size=\"0.02 0.002 0.02\" mass=\"1\"/>"
                 "</body>",
                 "<option timestep=\"0.001\" gravity=\"0 0 0\"/>"),
      &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  ASSERT_EQ(g.n(), 1);
  const double omega = 5;
  d->qvel[0] = omega;
  for (int k = 0; k < 40; k++) mj_step(m.get(), d.get());
  // the paddle has turned 0.2 rad, the last half of it and carries the grain: velocity omega x r
  double r = std::hypot(g.pos(0)[0], g.pos(0)[1]);
  double angle = std::atan2(g.pos(0)[1], g.pos(0)[0]);
  double vt = -std::sin(angle) * g.vel(0)[0] + std::cos(angle) * g.vel(0)[1];
  EXPECT_NEAR(vt, omega * r, 0.1 * omega * r);
  EXPECT_NEAR(d->qvel[0], omega, 1e-12);  // one-way: the grain does not slow the paddle
}

// total grain momentum (3) and the sum of its magnitudes
void GrainMomentum(const mjModel* m, mjData* d, double mass, double p[3], double* scale) {
  auto g = GrainsOf(m, d);
  p[0] = p[1] = p[2] = 0;
  *scale = 0;
  for (int i = 0; i < g.n(); i++) {
    for (int a = 0; a < 3; a++) {
      p[a] += mass * g.vel(i)[a];
      *scale += std::fabs(mass * g.vel(i)[a]);
    }
  }
}

TEST(Bodies, NewtonsThirdLawAcrossMjStep) {
  // no world geoms: grains and a free ball only feel gravity and each other. Over each step the
  // grains' momentum changes by gravity's impulse minus the stored force x h, and in the same
  // step the ball receives exactly that force x h on top of gravity's impulse
  const double r = 0.004, density = 2500;
  std::string error;
  auto m = LoadXml(
      TerrainXml({{"fill", "-0.03 -0.03 0.0  0.03 0.03 0.04"}, {"radius", "0.004"}},
                 "<body name=\"ball\" pos=\"0 0 -0.02\"><freejoint/>"
                 "<geom type=\"sphere\" size=\"0.02\" mass=\"0.05\"/></body>"),
      &error);
  ASSERT_TRUE(m) << error;
  DataPtr d(mj_makeData(m.get()));
  const int ball = BodyId(m.get(), "ball");
  const double h = m->opt.timestep, gz = m->opt.gravity[2], mass_ball = m->body_mass[ball];
  const float rf = (float)r;
  const double grain = (double)((float)density * 4.0f / 3.0f * 3.14159265358979f * rf * rf * rf);
  auto g = GrainsOf(m.get(), d.get());
  const int n = g.n();
  d->qvel[2] = 1.0;  // the ball rises into the falling grains
  double peak = 0;
  for (int k = 0; k < 40; k++) {
    double p0[3], p1[3], s0, s1, v0[3];
    GrainMomentum(m.get(), d.get(), grain, p0, &s0);
    for (int a = 0; a < 3; a++) v0[a] = d->qvel[a];
    mj_step(m.get(), d.get());
    GrainMomentum(m.get(), d.get(), grain, p1, &s1);
    const mjtNum* f = g.wrench(ball);
    for (int a = 0; a < 3; a++) {
      // grains: gravity minus the ball's share
      double gravity = a == 2 ? n * grain * gz * h : 0;
      EXPECT_NEAR(p1[a] - p0[a], gravity - f[a] * h, 1e-6 * (s0 + s1 + n * grain * 9.81 * h))
          << "step " << k << " axis " << a;
      // ball: gravity plus the grains' force over this step
      double expected = mass_ball * (a == 2 ? gz : 0) * h + f[a] * h;
      EXPECT_NEAR(mass_ball * (d->qvel[a] - v0[a]), expected, 1e-9) << "step " << k;
    }
    peak = std::fmax(peak, std::fabs(f[2]));
  }
  EXPECT_GT(peak, 0.1);  // the ball did push the grains
}

// a free box dropped through the small bed, coupled one way or named out of the coupling
std::vector<mjtNum> DropThroughBed(const char* coupling, const char* bodies, std::string* grains,
                                   double* wrench_norm) {
  auto config = mjg_test::SmallBed();
  config["coupling"] = coupling;
  config["bodies"] = bodies;
  std::string error;
  auto m = LoadXml(
      TerrainXml(config, mjg_test::WalledBox(0.045) +
                             "<body name=\"box\" pos=\"0 0 0.08\"><freejoint/>"
                             "<geom type=\"box\" size=\"0.012 0.012 0.012\" density=\"3000\"/>"
                             "</body><body name=\"other\" pos=\"0 0 1\"><freejoint/>"
                             "<geom type=\"sphere\" size=\"0.01\"/></body>"),
      &error);
  EXPECT_TRUE(m) << error;
  if (!m) return {};
  DataPtr d(mj_makeData(m.get()));
  *wrench_norm = 0;
  auto g = GrainsOf(m.get(), d.get());
  int box = BodyId(m.get(), "box");
  std::vector<mjtNum> trajectory;
  for (int k = 0; k < 120; k++) {
    mj_step(m.get(), d.get());
    *wrench_norm = std::fmax(*wrench_norm, Norm6(g.wrench(box)));
    trajectory.insert(trajectory.end(), d->qpos, d->qpos + m->nq);
    trajectory.insert(trajectory.end(), d->qvel, d->qvel + m->nv);
  }
  std::vector<mjtNum> state = StateCopy(m.get(), d.get());
  grains->assign(reinterpret_cast<const char*>(state.data()),
                 reinterpret_cast<const char*>(state.data() + (g.wrench(0) - g.state)));
  return trajectory;
}

TEST(Bodies, OneWayMovesGrainsButAppliesNoForce) {
  // one-way: the box falls exactly as if it were not coupled at all, bit for bit, while the
  // grains it ploughs through move differently and its wrench is still measured
  std::string grains_one_way, grains_uncoupled, grains_two_way;
  double w1, w0, w2;
  auto one_way = DropThroughBed("one-way", "box", &grains_one_way, &w1);
  auto uncoupled = DropThroughBed("one-way", "other", &grains_uncoupled, &w0);
  auto two_way = DropThroughBed("two-way", "box", &grains_two_way, &w2);
  ASSERT_FALSE(one_way.empty());
  EXPECT_EQ(one_way, uncoupled);
  EXPECT_NE(grains_one_way, grains_uncoupled);
  EXPECT_GT(w1, 0.1);
  // two-way: the grains push back
  EXPECT_NE(one_way, two_way);
  EXPECT_GT(w2, 0.1);
}

TEST(Bodies, DropModelLoadsAndSteps) {
  mjg_test::LoadPlugin();
  char err[1024] = "";
  ModelPtr m(mj_loadXML(MJGRANULAR_MODELS_DIR "/drop.xml", nullptr, err, sizeof(err)));
  ASSERT_TRUE(m) << err;
  DataPtr d(mj_makeData(m.get()));
  auto g = GrainsOf(m.get(), d.get());
  EXPECT_GT(g.n(), 2000);
  EXPECT_LT(g.n(), 5000);
  for (int k = 0; k < 5; k++) mj_step(m.get(), d.get());
  for (int i = 0; i < g.n(); i++) ASSERT_TRUE(std::isfinite(g.pos(i)[2]));
}

}  // namespace
