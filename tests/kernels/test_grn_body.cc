// kernels/grn_body.h through the solver: the force and torque grn_shape_contact_wrench gives
// a body are exactly what the grains take from it (Newton's third law), summed over the substeps
// of an advance by grn_get_wrenches. Grain-grain impulses cancel in pairs, so over an advance the
// grains' momentum changes by gravity's impulse minus each body's force times the advance time.
// With a mobility the body answers the grains within the substep: collisions with a free body
// give what rigid-body mechanics gives (perfectly inelastic, with the body's rotation).
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_test_util.h"

namespace {

struct SolverDeleter {
  void operator()(grnSolver* s) const { grn_destroy(s); }
};
using SolverPtr = std::unique_ptr<grnSolver, SolverDeleter>;

// a shape with wrench slot body, identity orientation, at rest at pos
grnShape BodyShape(int type, int body, float x, float y, float z) {
  grnShape s;
  std::memset(&s, 0, sizeof(s));
  s.type = type;
  s.mat[0] = s.mat[4] = s.mat[8] = 1;
  s.pos[0] = s.com[0] = x;
  s.pos[1] = s.com[1] = y;
  s.pos[2] = s.com[2] = z;
  s.friction = 0.5f;
  s.body = body;
  s.grid = -1;
  return s;
}

// a jittered lattice of n grains of radius r filling [lo, hi], moving at vel
void Pile(int n, const float lo[3], const float hi[3], float r, const float vel[3],
          unsigned seed, std::vector<float>* pos, std::vector<float>* v) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.05f * r, 0.05f * r);
  pos->clear();
  v->clear();
  float step = 2.02f * r;
  for (float z = lo[2]; z <= hi[2]; z += step) {
    for (float y = lo[1]; y <= hi[1]; y += step) {
      for (float x = lo[0]; x <= hi[0]; x += step) {
        if ((int)pos->size() == 3 * n) return;
        pos->insert(pos->end(), {x + u(rng), y + u(rng), z + u(rng)});
        v->insert(v->end(), {vel[0], vel[1], vel[2]});
      }
    }
  }
}

// total momentum of the grains (3), in double, and the sum of magnitudes (the rounding scale)
void Momentum(const std::vector<float>& vel, float m, double p[3], double* scale) {
  p[0] = p[1] = p[2] = 0;
  *scale = 0;
  for (size_t i = 0; i < vel.size(); i += 3) {
    for (int a = 0; a < 3; a++) {
      p[a] += (double)m * vel[i + a];
      *scale += std::fabs((double)m * vel[i + a]);
    }
  }
}

SolverPtr MakeSolver(int capacity, float radius, int max_bodies, float friction) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = capacity;
  p.radius = radius;
  p.friction = friction;
  p.max_bodies = max_bodies;
  p.max_shapes = 8;
  grnSolver* s = nullptr;
  EXPECT_EQ(grn_create(&p, grn_test::TestBackend(), &s), grnOK);
  return SolverPtr(s);
}

TEST(GrnBody, GrainMomentumChangeIsMinusTheBodyImpulse) {
  // a pile falling onto a box (body 0, static pose) and struck by a moving, spinning sphere
  // (body 1); no other shapes, so every impulse the grains take from outside comes from a body
  const float r = 0.005f;
  SolverPtr s = MakeSolver(1000, r, 2, 0.5f);
  ASSERT_TRUE(s);
  const grnParams* p = grn_params(s.get());
  float lo[3] = {-0.05f, -0.05f, 0.0f}, hi[3] = {0.05f, 0.05f, 0.06f}, v0[3] = {0, 0, -0.5f};
  std::vector<float> pos, vel;
  Pile(800, lo, hi, r, v0, 7, &pos, &vel);
  int n = (int)pos.size() / 3;
  ASSERT_GT(n, 500);
  ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), vel.data()), grnOK);
  grnShape shapes[2] = {BodyShape(grnSHAPE_BOX, 0, 0, 0, -0.02f),
                        BodyShape(grnSHAPE_SPHERE, 1, 0.06f, 0.0f, 0.03f)};
  shapes[0].size[0] = shapes[0].size[1] = 0.08f;
  shapes[0].size[2] = 0.0149f;  // top face just under the lowest grains
  shapes[0].rbound = 0.2f;
  shapes[1].size[0] = 0.03f;
  shapes[1].rbound = 0.03f;
  shapes[1].linvel[0] = -1.0f;
  shapes[1].angvel[2] = 20.0f;
  ASSERT_EQ(grn_set_shapes(s.get(), 2, shapes), grnOK);

  const float m = grn_grain_mass(s.get());
  const int nsub = 6;
  const double time = nsub * (double)p->dt;
  double total_force[2] = {0, 0};
  for (int step = 0; step < 8; step++) {
    std::vector<float> before(3 * n), after(3 * n);
    ASSERT_EQ(grn_get_grains(s.get(), nullptr, before.data()), grnOK);
    ASSERT_EQ(grn_advance(s.get(), nsub), grnOK);
    ASSERT_EQ(grn_get_grains(s.get(), nullptr, after.data()), grnOK);
    double wrench[12];
    ASSERT_EQ(grn_get_wrenches(s.get(), wrench), grnOK);

    // grain momentum change = gravity's impulse - sum of body forces x time
    double p0[3], p1[3], scale0, scale1;
    Momentum(before, m, p0, &scale0);
    Momentum(after, m, p1, &scale1);
    double scale = scale0 + scale1 + n * m * 9.81 * time;
    for (int a = 0; a < 3; a++) {
      double gravity = (double)n * m * p->gravity[a] * time;
      double body = (wrench[a] + wrench[6 + a]) * time;
      EXPECT_NEAR(p1[a] - p0[a], gravity - body, 2e-6 * scale)
          << "step " << step << " axis " << a << ": body impulse " << body;
    }
    total_force[0] += std::fabs(wrench[2]);
    total_force[1] += std::fabs(wrench[6]);
    // the next advance starts from where this one ended
    for (auto& sh : shapes) {
      for (int a = 0; a < 3; a++) {
        sh.pos[a] += sh.linvel[a] * (float)time;
        sh.com[a] += sh.linvel[a] * (float)time;
      }
    }
    ASSERT_EQ(grn_set_shapes(s.get(), 2, shapes), grnOK);
  }
  // both bodies were hit: the box holds the pile up, the sphere knocks grains aside
  EXPECT_GT(total_force[0], 1.0);
  EXPECT_GT(total_force[1], 0.1);
}

TEST(GrnBody, TorqueIsTheGrainsAngularImpulseAboutTheCom) {
  // frictionless grains that touch a tilted box one by one (none touch each other), one substep:
  // each impulse is along its contact normal through the grain centre, so the torque about the
  // body's centre of mass is minus the grains' angular momentum change about it
  const float r = 0.005f;
  SolverPtr s = MakeSolver(100, r, 1, 0.0f);
  ASSERT_TRUE(s);
  grnShape box = BodyShape(grnSHAPE_BOX, 0, 0.01f, -0.02f, 0.0f);
  box.friction = 0;
  box.size[0] = 0.1f;
  box.size[1] = 0.1f;
  box.size[2] = 0.02f;
  box.rbound = 0.2f;
  box.com[0] = 0.03f;  // centre of mass off the shape origin
  box.com[2] = -0.01f;
  // tilted 0.3 rad about x
  float c = std::cos(0.3f), sn = std::sin(0.3f);
  float mat[9] = {1, 0, 0, 0, c, -sn, 0, sn, c};
  std::memcpy(box.mat, mat, sizeof(mat));
  ASSERT_EQ(grn_set_shapes(s.get(), 1, &box), grnOK);

  // grains just above the tilted top face, 3 radii apart, falling onto it
  std::vector<float> pos, vel;
  for (int i = 0; i < 5; i++) {
    for (int j = 0; j < 5; j++) {
      float u = -0.05f + 0.025f * i, w = -0.05f + 0.025f * j;
      float local[3] = {u, w, 0.02f + 0.98f * r};  // in the box frame, slightly penetrating
      for (int a = 0; a < 3; a++) {
        pos.push_back(box.pos[a] + mat[3 * a] * local[0] + mat[3 * a + 1] * local[1] +
                      mat[3 * a + 2] * local[2]);
      }
      vel.insert(vel.end(), {0.1f * i, -0.2f, -0.5f - 0.1f * j});
    }
  }
  int n = (int)pos.size() / 3;
  ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), vel.data()), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
  std::vector<float> after(3 * n);
  ASSERT_EQ(grn_get_grains(s.get(), nullptr, after.data()), grnOK);
  double wrench[6];
  ASSERT_EQ(grn_get_wrenches(s.get(), wrench), grnOK);

  const grnParams* p = grn_params(s.get());
  const double m = grn_grain_mass(s.get()), dt = p->dt;
  double torque[3] = {0, 0, 0}, force[3] = {0, 0, 0}, scale = 0;
  for (int i = 0; i < n; i++) {
    double f[3], arm[3];
    for (int a = 0; a < 3; a++) {
      // force on the body: minus the grain's contact impulse per time
      double dv = (double)after[3 * i + a] - vel[3 * i + a] - p->gravity[a] * dt;
      f[a] = -m * dv / dt;
      arm[a] = (double)pos[3 * i + a] - box.com[a];
      force[a] += f[a];
    }
    torque[0] += arm[1] * f[2] - arm[2] * f[1];
    torque[1] += arm[2] * f[0] - arm[0] * f[2];
    torque[2] += arm[0] * f[1] - arm[1] * f[0];
    scale += std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) * 0.1;
  }
  EXPECT_GT(std::fabs(force[2]), 0.01);  // the grains did hit the box
  for (int a = 0; a < 3; a++) {
    EXPECT_NEAR(wrench[a], force[a], 1e-5 * scale * 10) << "force axis " << a;
    EXPECT_NEAR(wrench[3 + a], torque[a], 1e-5 * scale) << "torque axis " << a;
  }
}

}  // namespace

namespace {

// mobility of a free rigid body of mass mass and inertia diag(inertia) (world-aligned): impulse
// wrench [p; q] -> [p / mass; I^-1 q]
std::vector<float> FreeBodyMobility(float mass, const float inertia[3]) {
  std::vector<float> w(36, 0.0f);
  for (int a = 0; a < 3; a++) {
    w[6 * a + a] = 1 / mass;
    w[6 * (a + 3) + a + 3] = 1 / inertia[a];
  }
  return w;
}

// one grain of velocity v0 (along -z) meets a free sphere of mass big_mass whose centre is offset
// sideways by lever; no gravity, no friction. Returns the grain's velocity after nsub substeps and
// the body's velocity change from the wrench (force x time / mass, torque x time / inertia).
struct Hit {
  float grain_v[3];
  double body_dv[6];
};

Hit HitMobileSphere(float v0, float big_mass, float lever, int iterations) {
  const float r = 0.005f, big_r = 0.02f;
  grnParams p;
  grn_default_params(&p);
  p.capacity = 1;
  p.radius = r;
  p.friction = 0;
  p.gravity[2] = 0;
  p.iterations = iterations;
  p.max_bodies = 1;
  p.max_shapes = 1;
  grnSolver* raw = nullptr;
  EXPECT_EQ(grn_create(&p, grn_test::TestBackend(), &raw), grnOK);
  SolverPtr s(raw);
  grnShape ball = BodyShape(grnSHAPE_SPHERE, 0, 0, 0, 0);
  ball.size[0] = big_r;
  ball.rbound = big_r;
  ball.friction = 0;
  ball.com[0] = lever;  // centre of mass off the sphere's centre: the push turns the body
  const float inertia[3] = {2e-5f, 3e-5f, 4e-5f};
  std::vector<float> mob = FreeBodyMobility(big_mass, inertia);
  EXPECT_EQ(grn_set_body_dynamics(s.get(), mob.data(), nullptr), grnOK);
  EXPECT_EQ(grn_set_shapes(s.get(), 1, &ball), grnOK);
  // the grain touches the top of the sphere at x = 0, moving down
  float pos[3] = {0, 0, big_r + r}, vel[3] = {0, 0, -v0};
  EXPECT_EQ(grn_set_grains(s.get(), 1, pos, vel), grnOK);
  const int nsub = 1;
  EXPECT_EQ(grn_advance(s.get(), nsub), grnOK);
  Hit hit;
  EXPECT_EQ(grn_get_grains(s.get(), nullptr, hit.grain_v), grnOK);
  double wrench[6];
  EXPECT_EQ(grn_get_wrenches(s.get(), wrench), grnOK);
  for (int a = 0; a < 3; a++) {
    hit.body_dv[a] = wrench[a] * nsub * p.dt / big_mass;
    hit.body_dv[3 + a] = wrench[3 + a] * nsub * p.dt / inertia[a];
  }
  return hit;
}

}  // namespace

TEST(GrnBody, MobileBodyTakesAPerfectlyInelasticHit) {
  // a grain of mass m at v0 against a free body of mass M through its centre of mass: hard
  // contact stops the approach, so both move on at the common velocity m v0 / (m + M)
  const float v0 = 0.3f, r = 0.005f;
  const float m = 2500 * 4.0f / 3.0f * 3.14159265f * r * r * r;
  for (float big : {2 * m, 10 * m, 100 * m}) {
    Hit hit = HitMobileSphere(v0, big, 0, 10);
    double common = -(double)m * v0 / (m + big);
    EXPECT_NEAR(hit.grain_v[2], common, 1e-3 * v0) << "M/m " << big / m;
    EXPECT_NEAR(hit.body_dv[2], common, 1e-3 * v0) << "M/m " << big / m;
    EXPECT_NEAR(hit.body_dv[0], 0, 1e-6);
  }
}

TEST(GrnBody, OffCentreHitTurnsTheBodyAsRigidBodyMechanicsSays) {
  // the contact normal passes lever = 1 cm beside the centre of mass: the impulse P solves
  // v0 = P (1/m + 1/M + (r x n) . I^-1 (r x n)), the condition that the contact stops approaching
  const float v0 = 0.3f, r = 0.005f, lever = 0.01f, big = 0.05f;
  const float m = 2500 * 4.0f / 3.0f * 3.14159265f * r * r * r;
  Hit hit = HitMobileSphere(v0, big, lever, 40);
  // arm from the com to the contact point (0, 0, 0.02) is (-lever, 0, 0.02), normal +z:
  // r x n = (0, lever, 0), about the y axis of inertia 3e-5
  double k = 1 / m + 1 / big + lever * lever / 3e-5;
  double impulse = v0 / k;
  EXPECT_NEAR(hit.grain_v[2], -v0 + impulse / m, 2e-3 * v0);
  EXPECT_NEAR(hit.body_dv[2], -impulse / big, 2e-3 * v0);
  EXPECT_NEAR(hit.body_dv[4], -impulse * lever / 3e-5, 2e-3 * v0 / lever);
  // after the hit the contact point of the body moves with the grain along the normal
  double point_vz = hit.body_dv[2] - hit.body_dv[4] * (-lever);
  EXPECT_NEAR(point_vz, hit.grain_v[2], 2e-3 * v0);
}
