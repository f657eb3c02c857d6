// cuda backend (kernels/cuda/): without a usable device it is refused with a status and no
// crash (this runs everywhere); with one, it computes what the cpu backend computes from the same
// bed, shapes and grids (these skip, saying why, where there is no device).
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_test_util.h"

namespace {

using grn_test::Grains;
using grn_test::MaxDiff;
using grn_test::Read;
using grn_test::SolverPtr;
using grn_test::StaticShape;

// at most n grains on a lattice of the given spacing over [lo, hi], each moved by up to jitter
std::vector<float> JitteredLattice(int n, const float lo[3], const float hi[3], float spacing,
                                   float jitter, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-jitter, jitter);
  std::vector<float> pos;
  for (float z = lo[2]; z <= hi[2]; z += spacing) {
    for (float y = lo[1]; y <= hi[1]; y += spacing) {
      for (float x = lo[0]; x <= hi[0]; x += spacing) {
        if ((int)pos.size() == 3 * n) return pos;
        pos.push_back(x + u(rng));
        pos.push_back(y + u(rng));
        pos.push_back(z + u(rng));
      }
    }
  }
  return pos;
}

constexpr float kRadius = 0.005f;

grnParams BedParams() {
  grnParams p;
  grn_default_params(&p);
  p.capacity = 4000;
  p.radius = kRadius;
  p.iterations = 10;
  p.max_shapes = 8;
  p.max_bodies = 2;
  return p;
}

SolverPtr Make(const grnParams& p, grnBackend backend) {
  grnSolver* s = nullptr;
  grnStatus st = grn_create(&p, backend, &s);
  EXPECT_EQ(st, grnOK) << grn_backend_name(backend) << ": " << grn_status_string(st);
  return SolverPtr(s);
}

// a moving shape of a body
grnShape BodyShape(int type, int body, float x, float y, float z) {
  grnShape s = StaticShape(type);
  s.pos[0] = s.com[0] = x;
  s.pos[1] = s.com[1] = y;
  s.pos[2] = s.com[2] = z;
  s.body = body;
  s.friction = 0.6f;
  return s;
}

// signed distances of a box with half-extents h, sampled on a grid around it
struct BoxGrid {
  std::vector<float> values;
  grnGrid grid;
};

BoxGrid SampleBox(const float h[3], float cell) {
  BoxGrid b;
  int n[3];
  for (int a = 0; a < 3; a++) {
    n[a] = (int)std::ceil(2 * (h[a] + 2 * cell) / cell) + 1;
    b.grid.origin[a] = -(h[a] + 2 * cell);
  }
  b.grid.nx = n[0];
  b.grid.ny = n[1];
  b.grid.nz = n[2];
  b.grid.cell = cell;
  for (int k = 0; k < n[2]; k++) {
    for (int j = 0; j < n[1]; j++) {
      for (int i = 0; i < n[0]; i++) {
        float p[3] = {b.grid.origin[0] + i * cell, b.grid.origin[1] + j * cell,
                      b.grid.origin[2] + k * cell};
        float q[3], out = 0, in = -1e30f;
        for (int a = 0; a < 3; a++) {
          q[a] = std::fabs(p[a]) - h[a];
          out += q[a] > 0 ? q[a] * q[a] : 0;
          in = std::fmax(in, q[a]);
        }
        b.values.push_back(in > 0 ? std::sqrt(out) : in);
      }
    }
  }
  b.grid.values = b.values.data();
  return b;
}

// a bed of slightly overlapping grains with random velocities in a container, and every kind of
// shape: static walls, floor, capsule, cylinder, ellipsoid; a sinking, spinning sphere (body 0)
// and a sliding sampled box (body 1)
struct Bed {
  std::vector<float> pos, vel;
  std::vector<grnShape> shapes;
  BoxGrid box;
};

Bed MakeBed(int n) {
  Bed b;
  const float lo[3] = {-0.045f, -0.045f, 0.006f}, hi[3] = {0.045f, 0.045f, 0.12f};
  b.pos = JitteredLattice(n, lo, hi, 1.96f * kRadius, 0.0004f, 11);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-0.05f, 0.05f);
  for (size_t i = 0; i < b.pos.size(); i++) b.vel.push_back(u(rng));

  const float c[3] = {0, 0, 0.1f}, h[3] = {0.05f, 0.05f, 0.1f};
  grnShape walls = StaticShape(grnSHAPE_BOXINSIDE);
  for (int a = 0; a < 3; a++) {
    walls.pos[a] = c[a];
    walls.size[a] = h[a];
  }
  walls.friction = 0.4f;
  b.shapes.push_back(walls);
  grnShape floor = StaticShape(grnSHAPE_PLANE);
  floor.friction = 0.5f;
  b.shapes.push_back(floor);
  grnShape capsule = BodyShape(grnSHAPE_CAPSULE, -1, 0.03f, -0.03f, 0.02f);
  capsule.size[0] = 0.008f;
  capsule.size[1] = 0.02f;
  b.shapes.push_back(capsule);
  grnShape cylinder = BodyShape(grnSHAPE_CYLINDER, -1, -0.03f, 0.03f, 0.02f);
  cylinder.size[0] = 0.01f;
  cylinder.size[1] = 0.015f;
  b.shapes.push_back(cylinder);
  grnShape ellipsoid = BodyShape(grnSHAPE_ELLIPSOID, -1, 0.03f, 0.03f, 0.03f);
  ellipsoid.size[0] = 0.012f;
  ellipsoid.size[1] = 0.008f;
  ellipsoid.size[2] = 0.01f;
  b.shapes.push_back(ellipsoid);
  grnShape sphere = BodyShape(grnSHAPE_SPHERE, 0, 0.01f, -0.01f, 0.1f);
  sphere.size[0] = 0.025f;
  sphere.rbound = 0.025f;
  sphere.linvel[2] = -0.3f;
  sphere.angvel[0] = 2.0f;
  b.shapes.push_back(sphere);
  const float bh[3] = {0.015f, 0.01f, 0.02f};
  b.box = SampleBox(bh, 0.004f);
  grnShape box = BodyShape(grnSHAPE_GRID, 1, -0.025f, 0, 0.05f);
  box.linvel[0] = 0.2f;
  box.rbound = std::sqrt(bh[0] * bh[0] + bh[1] * bh[1] + bh[2] * bh[2]) + 0.01f;
  b.shapes.push_back(box);
  return b;
}

// a solver on backend with the bed loaded
SolverPtr Load(const grnParams& p, grnBackend backend, const Bed& bed) {
  SolverPtr s = Make(p, backend);
  if (!s) return s;
  int id = -1;
  EXPECT_EQ(grn_add_grid(s.get(), &bed.box.grid, &id), grnOK);
  std::vector<grnShape> shapes = bed.shapes;
  for (grnShape& sh : shapes) {
    if (sh.type == grnSHAPE_GRID) sh.grid = id;
  }
  EXPECT_EQ(grn_set_grains(s.get(), (int)(bed.pos.size() / 3), bed.pos.data(), bed.vel.data()),
            grnOK);
  EXPECT_EQ(grn_set_shapes(s.get(), (int)shapes.size(), shapes.data()), grnOK);
  return s;
}

std::vector<double> Wrenches(const grnSolver* s) {
  std::vector<double> w(6 * (size_t)grn_params(s)->max_bodies);
  EXPECT_EQ(grn_get_wrenches(s, w.data()), grnOK);
  return w;
}

double MaxAbs(const std::vector<double>& a) {
  double m = 0;
  for (double x : a) m = std::fmax(m, std::fabs(x));
  return m;
}

// two solvers that ran the same substeps from bed: the grains moved, and the two agree to float
// rounding in positions, velocities and the bodies' wrenches
void ExpectAgreeToRounding(const grnSolver* a, const grnSolver* b, const Bed& bed) {
  Grains ga = Read(a), gb = Read(b);
  EXPECT_GT(MaxDiff(ga.pos, bed.pos), 1e-6);
  EXPECT_LE(MaxDiff(ga.pos, gb.pos), 1e-6) << "positions [m]";
  EXPECT_LE(MaxDiff(ga.vel, gb.vel), 1e-4) << "velocities [m/s]";
  std::vector<double> wa = Wrenches(a), wb = Wrenches(b);
  EXPECT_GT(MaxAbs(wa), 0) << "the bodies touch grains";
  EXPECT_LE(MaxDiff(wa, wb), 1e-4 * MaxAbs(wa) + 1e-9) << "wrenches [N, N m]";
}

//---------------------------------- everywhere ----------------------------------------------------

TEST(CudaBackend, InfoSaysSomething) {
  EXPECT_GT(std::strlen(grn_cuda_info()), 0u);
}

TEST(CudaBackend, RequestWithoutDeviceIsRefused) {
  if (grn_cuda_usable() == grnOK) {
    GTEST_SKIP() << "a cuda device is usable here: " << grn_cuda_info();
  }
  grnParams p = BedParams();
  int sentinel = 0;
  grnSolver* s = reinterpret_cast<grnSolver*>(&sentinel);  // must come back NULL
  grnStatus st = grn_create(&p, grnBACKEND_CUDA, &s);
  EXPECT_TRUE(st == grnERR_NO_DEVICE || st == grnERR_UNAVAILABLE) << grn_status_string(st);
  EXPECT_EQ(st, grn_cuda_usable());
  EXPECT_EQ(s, nullptr);

  // auto falls back to the cpu
  SolverPtr a = Make(p, grnBACKEND_AUTO);
  ASSERT_TRUE(a);
  EXPECT_EQ(grn_backend(a.get()), grnBACKEND_CPU);
}

//---------------------------------- with a device -------------------------------------------------

TEST(CudaBackend, AutoPicksCuda) {
  SKIP_WITHOUT_CUDA();
  grnParams p = BedParams();
  SolverPtr s = Make(p, grnBACKEND_AUTO);
  ASSERT_TRUE(s);
  EXPECT_EQ(grn_backend(s.get()), grnBACKEND_CUDA);
  // device arrays counted: well over 100 bytes a grain
  EXPECT_GT(grn_memory_bytes(s.get()), (size_t)p.capacity * 100);
}

TEST(CudaBackend, GrainsRoundTrip) {
  SKIP_WITHOUT_CUDA();
  grnParams p = BedParams();
  SolverPtr s = Make(p, grnBACKEND_CUDA);
  ASSERT_TRUE(s);
  Bed bed = MakeBed(1000);
  int n = (int)(bed.pos.size() / 3);
  ASSERT_EQ(grn_set_grains(s.get(), n, bed.pos.data(), bed.vel.data()), grnOK);
  Grains g = Read(s.get());
  EXPECT_EQ(g.pos, bed.pos);
  EXPECT_EQ(g.vel, bed.vel);
  // no velocities: at rest
  ASSERT_EQ(grn_set_grains(s.get(), n, bed.pos.data(), nullptr), grnOK);
  g = Read(s.get());
  EXPECT_EQ(MaxDiff(g.vel, std::vector<float>(g.vel.size(), 0.0f)), 0.0);
  // no grains: an advance is a no-op
  ASSERT_EQ(grn_set_grains(s.get(), 0, nullptr, nullptr), grnOK);
  EXPECT_EQ(grn_advance(s.get(), 3), grnOK);
  EXPECT_EQ(grn_count(s.get()), 0);
}

TEST(CudaBackend, SamePairsAsCpu) {
  SKIP_WITHOUT_CUDA();
  grnParams p = BedParams();
  Bed bed = MakeBed(3000);
  SolverPtr cpu = Load(p, grnBACKEND_CPU, bed), gpu = Load(p, grnBACKEND_CUDA, bed);
  ASSERT_TRUE(cpu && gpu);
  int max = 64 * p.capacity, ncpu = -1, ngpu = -1;
  std::vector<int> pc(2 * (size_t)max), pg(2 * (size_t)max);
  ASSERT_EQ(grn_find_pairs(cpu.get(), pc.data(), max, &ncpu), grnOK);
  ASSERT_EQ(grn_find_pairs(gpu.get(), pg.data(), max, &ngpu), grnOK);
  EXPECT_GT(ncpu, 0);
  ASSERT_EQ(ncpu, ngpu);
  pc.resize(2 * (size_t)ncpu);
  pg.resize(2 * (size_t)ngpu);
  EXPECT_EQ(pc, pg);
}

TEST(CudaBackend, OneSubstepAgreesWithCpu) {
  SKIP_WITHOUT_CUDA();
  grnParams p = BedParams();
  Bed bed = MakeBed(3000);
  SolverPtr cpu = Load(p, grnBACKEND_CPU, bed), gpu = Load(p, grnBACKEND_CUDA, bed);
  ASSERT_TRUE(cpu && gpu);
  ASSERT_EQ(grn_advance(cpu.get(), 1), grnOK);
  ASSERT_EQ(grn_advance(gpu.get(), 1), grnOK);
  ExpectAgreeToRounding(cpu.get(), gpu.get(), bed);
}

TEST(CudaBackend, ManySubstepsStayCloseToCpu) {
  SKIP_WITHOUT_CUDA();
  grnParams p = BedParams();
  Bed bed = MakeBed(3000);
  SolverPtr cpu = Load(p, grnBACKEND_CPU, bed), gpu = Load(p, grnBACKEND_CUDA, bed);
  ASSERT_TRUE(cpu && gpu);
  for (int step = 0; step < 10; step++) {
    ASSERT_EQ(grn_advance(cpu.get(), 4), grnOK);
    ASSERT_EQ(grn_advance(gpu.get(), 4), grnOK);
  }
  Grains c = Read(cpu.get()), g = Read(gpu.get());
  EXPECT_LE(MaxDiff(c.pos, g.pos), 0.1 * kRadius) << "positions after 40 substeps [m]";
  std::vector<double> wc = Wrenches(cpu.get()), wg = Wrenches(gpu.get());
  EXPECT_LE(MaxDiff(wc, wg), 0.05 * MaxAbs(wc) + 1e-6) << "wrenches of the last step";
}

TEST(CudaBackend, RepeatableRunToRun) {
  SKIP_WITHOUT_CUDA();
  grnParams p = BedParams();
  Bed bed = MakeBed(3000);
  SolverPtr a = Load(p, grnBACKEND_CUDA, bed), b = Load(p, grnBACKEND_CUDA, bed);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(grn_advance(a.get(), 8), grnOK);
  ASSERT_EQ(grn_advance(b.get(), 8), grnOK);
  // the hash lists differ from run to run, the results do not: neighbours are sorted by index and
  // the wrench is summed in a fixed order
  EXPECT_EQ(Read(a.get()).pos, Read(b.get()).pos);
  EXPECT_EQ(Wrenches(a.get()), Wrenches(b.get()));
}

TEST(CudaBackend, UnorderedAgreesWithOrderedToRounding) {
  SKIP_WITHOUT_CUDA();
  grnParams p = BedParams(), q = BedParams();
  q.deterministic = 0;  // neighbours in walk order, wrenches by atomic adds
  Bed bed = MakeBed(3000);
  SolverPtr a = Load(p, grnBACKEND_CUDA, bed), b = Load(q, grnBACKEND_CUDA, bed);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(grn_advance(a.get(), 2), grnOK);
  ASSERT_EQ(grn_advance(b.get(), 2), grnOK);
  ExpectAgreeToRounding(a.get(), b.get(), bed);
}

// the device filled with valid solvers (capacities within the params' limit) until one does not
// fit: that one is grnERR_MEMORY, naming the failed call; auto then falls back to the cpu saying
// why; and all memory comes back (the same solvers fit again afterwards)
TEST(CudaBackend, OutOfMemoryIsAStatus) {
  SKIP_WITHOUT_CUDA();
  std::vector<SolverPtr> held;
  int smallest = 0;
  for (int capacity : {1 << 24, 1 << 20, 1 << 16}) {
    grnParams p = BedParams();
    p.capacity = capacity;
    grnStatus st = grnOK;
    for (int k = 0; k < 64 && st == grnOK; k++) {
      grnSolver* s = nullptr;
      st = grn_create(&p, grnBACKEND_CUDA, &s);
      EXPECT_EQ(st == grnOK, s != nullptr);
      if (s) held.emplace_back(s);
    }
    ASSERT_EQ(st, grnERR_MEMORY) << grn_status_message(st);
    EXPECT_NE(std::string(grn_status_message(st)).find("out of memory"), std::string::npos)
        << grn_status_message(st);
    smallest = capacity;
  }
  size_t filled = held.size();

  // auto: the cpu, with a note; an explicit cuda request stays refused
  grnParams p = BedParams();
  p.capacity = smallest;
  grnSolver* s = nullptr;
  ASSERT_EQ(grn_create(&p, grnBACKEND_AUTO, &s), grnOK);
  SolverPtr fallback(s);
  EXPECT_EQ(grn_backend(s), grnBACKEND_CPU);
  EXPECT_NE(std::string(grn_backend_note(s)).find("out of memory"), std::string::npos)
      << grn_backend_note(s);
  fallback.reset();

  // everything freed: as many solvers fit again, and a small one runs
  held.clear();
  for (int capacity : {1 << 24, 1 << 20}) {
    p.capacity = capacity;
    s = nullptr;
    EXPECT_EQ(grn_create(&p, grnBACKEND_CUDA, &s), grnOK) << capacity;
    grn_destroy(s);
  }
  EXPECT_GT(filled, 2u);
  SolverPtr ok = Make(BedParams(), grnBACKEND_CUDA);
  ASSERT_TRUE(ok);
  EXPECT_EQ(grn_advance(ok.get(), 2), grnOK);
}

// an index the machine lacks is refused as no device, naming the index and the count
TEST(CudaBackend, AMissingDeviceIndexIsRefused) {
  SKIP_WITHOUT_CUDA();
  grnParams p = BedParams();
  p.device = 1000;
  grnSolver* s = nullptr;
  EXPECT_EQ(grn_create(&p, grnBACKEND_CUDA, &s), grnERR_NO_DEVICE);
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(std::string(grn_status_message(grnERR_NO_DEVICE)).find("1000"), std::string::npos)
      << grn_status_message(grnERR_NO_DEVICE);
  // auto falls back, saying why
  ASSERT_EQ(grn_create(&p, grnBACKEND_AUTO, &s), grnOK);
  EXPECT_EQ(grn_backend(s), grnBACKEND_CPU);
  EXPECT_NE(std::string(grn_backend_note(s)).find("1000"), std::string::npos);
  grn_destroy(s);
}

}  // namespace
