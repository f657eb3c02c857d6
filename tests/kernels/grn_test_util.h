// helpers shared by the kernel tests: an owning solver handle, shape builders, grain layouts.
#ifndef MJGRANULAR_TESTS_KERNELS_GRN_TEST_UTIL_H_
#define MJGRANULAR_TESTS_KERNELS_GRN_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"

namespace grn_test {

constexpr double kG = 9.81;                     // standard gravity [m/s^2] (the solver's default)
constexpr double kPi = 3.14159265358979323846;
constexpr double kEps = 1.0 / (1 << 24);       // float unit roundoff

// degrees in radians
inline double Deg(double deg) { return deg * kPi / 180; }

// a solver that is destroyed when it goes out of scope
struct SolverDeleter {
  void operator()(grnSolver* s) const { grn_destroy(s); }
};
using SolverPtr = std::unique_ptr<grnSolver, SolverDeleter>;

// the backend the physics tests run on: cpu, or cuda when GRN_TEST_BACKEND=cuda (the ctest
// entry kernel_physics_on_cuda reruns them so where a device is usable)
inline grnBackend TestBackend() {
  const char* b = std::getenv("GRN_TEST_BACKEND");
  return b && std::strcmp(b, "cuda") == 0 ? grnBACKEND_CUDA : grnBACKEND_CPU;
}

// largest |a - b| over two arrays of equal size
template <typename T>
double MaxDiff(const std::vector<T>& a, const std::vector<T>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); i++) {
    m = std::fmax(m, std::fabs((double)a[i] - (double)b[i]));
  }
  return m;
}

// a pair of grains (i < j)
using Pair = std::pair<int, int>;

// the pairs grn_find_pairs reports, sorted; checks the count query against the listing, and the
// (i < j), listed-once contract
inline std::vector<Pair> FoundPairs(grnSolver* s) {
  int total = -1;
  EXPECT_EQ(grn_find_pairs(s, nullptr, 0, &total), grnOK);
  std::vector<int> buf(2 * (size_t)std::max(total, 1));
  int again = -1;
  EXPECT_EQ(grn_find_pairs(s, buf.data(), total, &again), grnOK);
  EXPECT_EQ(again, total);
  std::vector<Pair> out;
  for (int k = 0; k < total; k++) {
    EXPECT_LT(buf[2 * k], buf[2 * k + 1]) << "pair " << k << " not ordered i < j";
    out.emplace_back(buf[2 * k], buf[2 * k + 1]);
  }
  std::sort(out.begin(), out.end());
  EXPECT_TRUE(std::adjacent_find(out.begin(), out.end()) == out.end()) << "duplicate pairs";
  return out;
}

// skip the current test, saying why, where no cuda device is usable
#define SKIP_WITHOUT_CUDA()                                                      \
  do {                                                                           \
    if (grn_cuda_usable() != grnOK) {                                            \
      GTEST_SKIP() << "no usable cuda device: " << grn_cuda_info();              \
    }                                                                            \
  } while (0)

// create a solver on the test backend or fail the current test
inline SolverPtr MakeSolver(const grnParams& p) {
  grnSolver* s = nullptr;
  grnStatus st = grn_create(&p, TestBackend(), &s);
  EXPECT_EQ(st, grnOK) << grn_status_string(st);
  return SolverPtr(s);
}

// a static shape at the origin with identity orientation
inline grnShape StaticShape(int type) {
  grnShape s;
  std::memset(&s, 0, sizeof(s));
  s.type = type;
  s.mat[0] = s.mat[4] = s.mat[8] = 1;
  s.body = -1;
  s.grid = -1;
  return s;
}

// a static plane through the origin whose normal is rotated by theta about +y: normal
// (sin theta, 0, cos theta), downhill along (cos theta, 0, -sin theta)
inline grnShape TiltedPlane(double theta, float friction) {
  grnShape s = StaticShape(grnSHAPE_PLANE);
  float c = (float)std::cos(theta), sn = (float)std::sin(theta);
  const float mat[9] = {c, 0, sn, 0, 1, 0, -sn, 0, c};  // rotation about y, row-major
  std::memcpy(s.mat, mat, sizeof(mat));
  s.friction = friction;
  return s;
}

// a static open container: the floor and four walls of a box with half-extents h centred at c,
// as five planes
inline std::vector<grnShape> Container(const float c[3], const float h[3], float friction) {
  const float lo[3] = {c[0] - h[0], c[1] - h[1], c[2] - h[2]};
  const float hi[3] = {c[0] + h[0], c[1] + h[1], c[2] + h[2]};
  std::vector<grnShape> walls(6);
  walls.resize(grn_box_planes(lo, hi, 0, friction, walls.data()));
  return walls;
}

// bitwise equality, so that -0 / +0 and nan payloads would count as differences too
template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// grain positions, velocities and angular velocities read back from a solver
struct Grains {
  std::vector<float> pos, vel, angvel;
  std::vector<float> orient;  // (n x 4) unit quaternions w x y z
};

inline Grains Read(const grnSolver* s) {
  Grains g;
  g.pos.resize(3 * (size_t)grn_count(s));
  g.vel.resize(3 * (size_t)grn_count(s));
  g.angvel.resize(3 * (size_t)grn_count(s));
  g.orient.resize(4 * (size_t)grn_count(s));
  EXPECT_EQ(grn_get_grains(s, g.pos.data(), g.vel.data()), grnOK);
  EXPECT_EQ(grn_get_angvel(s, g.angvel.data()), grnOK);
  EXPECT_EQ(grn_get_orientations(s, g.orient.data()), grnOK);
  return g;
}

// a grain at rest at the identity orientation, at (x, y, z), appended to g
inline void AppendAtRest(Grains* g, float x, float y, float z) {
  g->pos.insert(g->pos.end(), {x, y, z});
  g->vel.insert(g->vel.end(), {0, 0, 0});
  g->angvel.insert(g->angvel.end(), {0, 0, 0});
  g->orient.insert(g->orient.end(), {1, 0, 0, 0});
}

// grains read by Read put into a solver (the contact state cleared, as grn_set_grains does)
inline void Write(grnSolver* s, const Grains& g) {
  int n = (int)(g.pos.size() / 3);
  ASSERT_EQ(grn_set_grains(s, n, g.pos.data(), g.vel.data()), grnOK);
  ASSERT_EQ(grn_set_angvel(s, g.angvel.data()), grnOK);
  ASSERT_EQ(grn_set_orientations(s, g.orient.data()), grnOK);
}

// largest speed among the grains
inline double MaxSpeed(const std::vector<float>& vel) {
  double m = 0;
  for (size_t i = 0; i + 2 < vel.size(); i += 3) {
    m = std::fmax(m, std::sqrt((double)vel[i] * vel[i] + (double)vel[i + 1] * vel[i + 1] +
                               (double)vel[i + 2] * vel[i + 2]));
  }
  return m;
}

// n grains at random non-overlapping positions in the box [lo, hi]: a jittered lattice of
// spacing `spacing` (> 2 r leaves a gap of spacing - 2 r - 2 jitter between neighbours), shuffled,
// the first n kept; returns fewer than n when the box is too small
inline std::vector<float> JitteredLattice(int n, const float lo[3], const float hi[3],
                                          float spacing, float jitter, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-jitter, jitter);
  std::vector<float> sites;
  int nx = (int)std::floor((hi[0] - lo[0]) / spacing) + 1;
  int ny = (int)std::floor((hi[1] - lo[1]) / spacing) + 1;
  int nz = (int)std::floor((hi[2] - lo[2]) / spacing) + 1;
  for (int k = 0; k < nz; k++) {
    for (int j = 0; j < ny; j++) {
      for (int i = 0; i < nx; i++) {
        sites.push_back(lo[0] + i * spacing + u(rng));
        sites.push_back(lo[1] + j * spacing + u(rng));
        sites.push_back(lo[2] + k * spacing + u(rng));
      }
    }
  }
  // keep the lowest n sites (so a pour fills from the bottom), order within a layer random
  int count = (int)(sites.size() / 3);
  if (count > n) count = n;
  sites.resize(3 * (size_t)count);
  std::vector<int> order(count);
  for (int i = 0; i < count; i++) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<float> out(3 * (size_t)count);
  for (int i = 0; i < count; i++) {
    for (int a = 0; a < 3; a++) out[3 * i + a] = sites[3 * order[i] + a];
  }
  return out;
}

}  // namespace grn_test

#endif  // MJGRANULAR_TESTS_KERNELS_GRN_TEST_UTIL_H_
