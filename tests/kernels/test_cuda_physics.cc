// cuda backend against the cpu backend over whole experiments: a bed poured and settled for 2 s
// ends with the same packing and surface, and a blade pushed through a settled bed feels the same
// average force. these skip, saying why, where there is no usable device.
#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_solver.h"  // grn_cuda_usable
#include "grn_test_util.h"

namespace {

using grn_test::Grains;
using grn_test::SolverPtr;

constexpr int kGrains = 2000;
constexpr float kHalf = 0.06f, kHeight = 0.8f;

#define SKIP_WITHOUT_DEVICE()                                                   \
  if (grn_cuda_usable() != grnOK) {                                             \
    GTEST_SKIP() << "no usable cuda device: " << grn_cuda_info();               \
  }

grnParams Params() {
  grnParams p;
  grn_default_params(&p);
  p.capacity = kGrains;
  p.max_bodies = 1;
  return p;
}

SolverPtr Make(const grnParams& p, grnBackend backend) {
  grnSolver* s = nullptr;
  EXPECT_EQ(grn_create(&p, backend, &s), grnOK);
  return SolverPtr(s);
}

// the container, and grains poured from a tall jittered lattice
void Pour(grnSolver* s, const grnParams& p) {
  const float c[3] = {0, 0, 0.5f * kHeight}, h[3] = {kHalf, kHalf, 0.5f * kHeight};
  std::vector<grnShape> box = grn_test::Container(c, h, p.friction);
  ASSERT_EQ(grn_set_shapes(s, (int)box.size(), box.data()), grnOK);
  const float r = p.radius, in = kHalf - 1.2f * r;
  const float lo[3] = {-in, -in, 1.2f * r}, hi[3] = {in, in, kHeight - 1.2f * r};
  std::vector<float> pos = grn_test::JitteredLattice(kGrains, lo, hi, 3 * r, 0.45f * r, 3);
  ASSERT_EQ(grn_set_grains(s, kGrains, pos.data(), nullptr), grnOK);
}

// grain centres in the core of the bed (2 diameters from walls and floor, 3 below the top) times
// a grain's volume over the core's volume
double CorePacking(const std::vector<float>& pos, float r) {
  double top = 0;
  for (size_t i = 2; i < pos.size(); i += 3) top = std::max(top, (double)pos[i]);
  const double a = kHalf - 4 * r, z0 = 4 * r, z1 = top - 6 * r;
  int inside = 0;
  for (size_t i = 0; i < pos.size(); i += 3) {
    if (std::fabs(pos[i]) < a && std::fabs(pos[i + 1]) < a && pos[i + 2] > z0 &&
        pos[i + 2] < z1) {
      inside++;
    }
  }
  return inside * (4.0 / 3.0 * M_PI * r * r * r) / (4 * a * a * (z1 - z0));
}

// highest grain top in each of 6 x 6 columns over the container
std::vector<double> Surface(const std::vector<float>& pos, float r) {
  const int n = 6;
  std::vector<double> top(n * n, 0);
  for (size_t i = 0; i < pos.size(); i += 3) {
    int cx = std::min(n - 1, std::max(0, (int)((pos[i] + kHalf) / (2 * kHalf) * n)));
    int cy = std::min(n - 1, std::max(0, (int)((pos[i + 1] + kHalf) / (2 * kHalf) * n)));
    top[cx + n * cy] = std::max(top[cx + n * cy], (double)pos[i + 2] + r);
  }
  return top;
}

TEST(CudaPhysics, SettledBedHasTheCpuPackingAndSurface) {
  SKIP_WITHOUT_DEVICE();
  grnParams p = Params();
  SolverPtr cpu = Make(p, grnBACKEND_CPU), gpu = Make(p, grnBACKEND_CUDA);
  ASSERT_TRUE(cpu && gpu);
  Pour(cpu.get(), p);
  Pour(gpu.get(), p);
  const int steps = (int)std::lround(2.0 / p.dt);
  ASSERT_EQ(grn_advance(cpu.get(), steps), grnOK);
  ASSERT_EQ(grn_advance(gpu.get(), steps), grnOK);
  Grains a = grn_test::Read(cpu.get()), b = grn_test::Read(gpu.get());
  const double phi_a = CorePacking(a.pos, p.radius), phi_b = CorePacking(b.pos, p.radius);
  EXPECT_NEAR(phi_b, phi_a, 0.01 * phi_a);
  std::vector<double> sa = Surface(a.pos, p.radius), sb = Surface(b.pos, p.radius);
  double worst = 0;
  for (size_t i = 0; i < sa.size(); i++) worst = std::max(worst, std::fabs(sa[i] - sb[i]));
  EXPECT_LE(worst, p.radius);
  std::printf("[ measure  ] settled 2 s: packing cpu %.4f cuda %.4f; surface columns differ by at "
              "most %.3g r\n", phi_a, phi_b, worst / p.radius);
}

// average vertical force on a square blade (body 0) pressed down into the bed at 5 cm/s from
// just above its surface for 0.5 s, its pose updated every 10 substeps as a host would
double BladeForce(grnSolver* s, const grnParams& p, const std::vector<grnShape>& walls,
                  float surface) {
  const float v = 0.05f;
  grnShape blade = grn_test::StaticShape(grnSHAPE_BOX);
  blade.size[0] = blade.size[1] = 0.03f;
  blade.size[2] = 0.004f;
  blade.rbound = std::sqrt(2 * 0.03f * 0.03f + 0.004f * 0.004f);
  blade.body = 0;
  blade.friction = p.friction;
  blade.linvel[2] = -v;
  const int chunk = 10, chunks = (int)std::lround(0.5 / p.dt) / chunk;
  double sum = 0;
  for (int k = 0; k < chunks; k++) {
    blade.pos[2] = blade.com[2] = surface + 0.006f - v * k * chunk * p.dt;
    std::vector<grnShape> shapes = walls;
    shapes.push_back(blade);
    EXPECT_EQ(grn_set_shapes(s, (int)shapes.size(), shapes.data()), grnOK);
    EXPECT_EQ(grn_advance(s, chunk), grnOK);
    double w[6];
    EXPECT_EQ(grn_get_wrenches(s, w), grnOK);
    sum += w[2];
  }
  return sum / chunks;
}

TEST(CudaPhysics, PushedBladeFeelsTheCpuForce) {
  SKIP_WITHOUT_DEVICE();
  grnParams p = Params();
  // one settled bed, grains and contacts, loaded into both backends
  SolverPtr bed = Make(p, grnBACKEND_CPU);
  ASSERT_TRUE(bed);
  Pour(bed.get(), p);
  ASSERT_EQ(grn_advance(bed.get(), (int)std::lround(1.5 / p.dt)), grnOK);
  Grains g = grn_test::Read(bed.get());
  std::vector<char> contacts(grn_contact_state_bytes(p.capacity));
  ASSERT_EQ(grn_get_contacts(bed.get(), contacts.data()), grnOK);
  const float c[3] = {0, 0, 0.5f * kHeight}, h[3] = {kHalf, kHalf, 0.5f * kHeight};
  std::vector<grnShape> walls = grn_test::Container(c, h, p.friction);

  std::vector<float> z;
  for (int i = 0; i < kGrains; i++) z.push_back(g.pos[3 * i + 2]);
  std::sort(z.begin(), z.end());
  const float surface = z[(size_t)(0.98 * kGrains)] + p.radius;

  double force[2];
  const grnBackend backends[2] = {grnBACKEND_CPU, grnBACKEND_CUDA};
  for (int b = 0; b < 2; b++) {
    SolverPtr s = Make(p, backends[b]);
    ASSERT_TRUE(s);
    ASSERT_EQ(grn_set_grains(s.get(), kGrains, g.pos.data(), g.vel.data()), grnOK);
    ASSERT_EQ(grn_set_contacts(s.get(), contacts.data()), grnOK);
    force[b] = BladeForce(s.get(), p, walls, surface);
  }
  EXPECT_GT(force[0], 0) << "the bed must push back on the blade";
  EXPECT_NEAR(force[1], force[0], 0.05 * std::fabs(force[0]));
  std::printf("[ measure  ] blade pressed at 5 cm/s, 0.5 s: mean force z cpu %.4g N, cuda %.4g N\n",
              force[0], force[1]);
}

}  // namespace
