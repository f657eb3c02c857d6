// spatial hash (grn_hash.h, the cells and buckets both broadphases of grn_collide.h walk):
// grn_find_pairs must return exactly the pairs that a brute-force O(N^2) check finds with the same
// cutoff, 2 r + margin r, strict <, with the hash and with the sorted cell list.
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

using grn_test::MakeSolver;
using grn_test::SolverPtr;
using grn_test::FoundPairs;
using grn_test::Pair;

constexpr float kRadius = 0.005f;
constexpr float kMargin = 0.1f;

// the contact cutoff as the solver computes it, in float
float Cutoff(const grnParams& p) { return 2 * p.radius + p.margin * p.radius; }

// every pair (i < j) with squared distance < cutoff^2, in the float arithmetic of the solver
std::vector<Pair> BrutePairs(const std::vector<float>& pos, float cutoff) {
  int n = (int)(pos.size() / 3);
  float cut2 = cutoff * cutoff;
  std::vector<Pair> out;
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      float rx = pos[3 * i] - pos[3 * j];
      float ry = pos[3 * i + 1] - pos[3 * j + 1];
      float rz = pos[3 * i + 2] - pos[3 * j + 2];
      if (rx * rx + ry * ry + rz * rz < cut2) out.emplace_back(i, j);
    }
  }
  return out;
}

// the cell of a coordinate as the design defines it, round(x / cell), in float (for messages)
int Cell(float x, float inv_cell) { return (int)std::rint(x * inv_cell); }

// describe a pair for a failure message: positions, distance / cutoff, cells round(x / cell)
std::string Describe(const std::vector<float>& pos, Pair p, float cutoff) {
  const float* a = &pos[3 * p.first];
  const float* b = &pos[3 * p.second];
  double d = std::sqrt(std::pow((double)a[0] - b[0], 2) + std::pow((double)a[1] - b[1], 2) +
                       std::pow((double)a[2] - b[2], 2));
  float inv = 1.0f / cutoff;
  char buf[400];
  std::snprintf(buf, sizeof(buf),
                "(%d, %d): a=(%.9g %.9g %.9g) b=(%.9g %.9g %.9g) dist/cutoff=%.9g "
                "cells a=(%d %d %d) b=(%d %d %d), x/cell a=(%.9g %.9g %.9g) "
                "b=(%.9g %.9g %.9g)",
                p.first, p.second, a[0], a[1], a[2], b[0], b[1], b[2], d / cutoff,
                Cell(a[0], inv), Cell(a[1], inv), Cell(a[2], inv), Cell(b[0], inv), Cell(b[1], inv),
                Cell(b[2], inv),
                a[0] * inv, a[1] * inv, a[2] * inv, b[0] * inv, b[1] * inv, b[2] * inv);
  return buf;
}

// load the grains into a solver with the given table size and broadphase and compare its pairs
// against brute force
void ExpectSamePairsWith(const std::vector<float>& pos, int hash_size, int broadphase,
                         size_t min_pairs) {
  grnParams p;
  grn_default_params(&p);
  p.radius = kRadius;
  p.margin = kMargin;
  p.capacity = (int)(pos.size() / 3);
  p.hash_size = hash_size;
  p.broadphase = broadphase;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  ASSERT_EQ(grn_set_grains(s.get(), p.capacity, pos.data(), nullptr), grnOK);
  float cutoff = Cutoff(p);
  std::vector<Pair> want = BrutePairs(pos, cutoff);
  std::vector<Pair> got = FoundPairs(s.get());
  ASSERT_GE(want.size(), min_pairs) << "the set is too sparse to test anything";
  std::vector<Pair> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(extra));
  EXPECT_EQ(got.size(), want.size()) << "hash_size " << hash_size;
  for (size_t k = 0; k < missing.size() && k < 5; k++) {
    ADD_FAILURE() << "missed by the hash: " << Describe(pos, missing[k], cutoff);
  }
  for (size_t k = 0; k < extra.size() && k < 5; k++) {
    ADD_FAILURE() << "not a contact: " << Describe(pos, extra[k], cutoff);
  }
  EXPECT_TRUE(missing.empty() && extra.empty())
      << missing.size() << " missing, " << extra.size() << " extra of " << want.size();
}

// the same with both broadphases
void ExpectSamePairs(const std::vector<float>& pos, int hash_size, size_t min_pairs = 1) {
  for (int broadphase : {grnBROADPHASE_HASH, grnBROADPHASE_SORTED}) {
    SCOPED_TRACE(broadphase == grnBROADPHASE_HASH ? "hash" : "sorted");
    ExpectSamePairsWith(pos, hash_size, broadphase, min_pairs);
  }
}

// n points uniform in a cube of side `side` centred at c
std::vector<float> Uniform(int n, float side, const float c[3], unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.5f * side, 0.5f * side);
  std::vector<float> pos(3 * (size_t)n);
  for (int i = 0; i < n; i++) {
    for (int a = 0; a < 3; a++) pos[3 * i + a] = c[a] + u(rng);
  }
  return pos;
}

// nclusters gaussian blobs of sigma about a radius: most grains overlap many others; a few
// grains are exact duplicates (distance 0)
std::vector<float> Clusters(int nclusters, int per, float spread, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> centre(-spread, spread);
  std::normal_distribution<float> g(0.0f, kRadius);
  std::vector<float> pos;
  for (int c = 0; c < nclusters; c++) {
    float cx = centre(rng), cy = centre(rng), cz = centre(rng);
    for (int i = 0; i < per; i++) {
      pos.push_back(cx + g(rng));
      pos.push_back(cy + g(rng));
      pos.push_back(cz + g(rng));
    }
  }
  for (int k = 0; k < 5; k++) {
    pos.push_back(pos[3 * k]);
    pos.push_back(pos[3 * k + 1]);
    pos.push_back(pos[3 * k + 2]);
  }
  return pos;
}

// about three neighbours within the cutoff per grain: density 3 / (4/3 pi cutoff^3)
float SideForNeighbours(int n, double neighbours) {
  double cut = 2 * kRadius + kMargin * kRadius;
  double density = neighbours / (4.0 / 3.0 * M_PI * cut * cut * cut);
  return (float)std::cbrt(n / density);
}

TEST(GrnHash, RandomSetsMatchBruteForce) {
  const float origin[3] = {0, 0, 0};
  for (unsigned seed = 1; seed <= 4; seed++) {
    SCOPED_TRACE(seed);
    ExpectSamePairs(Uniform(3000, SideForNeighbours(3000, 3), origin, seed), 0, 1000);
  }
}

TEST(GrnHash, DenseClustersMatchBruteForce) {
  for (unsigned seed = 1; seed <= 3; seed++) {
    SCOPED_TRACE(seed);
    ExpectSamePairs(Clusters(12, 150, 0.05f, seed), 0, 10000);
  }
}

// a random set spread over several octants, all coordinates negative, and far from the origin
TEST(GrnHash, NegativeCoordinatesMatchBruteForce) {
  const float straddle[3] = {0, 0, 0};
  const float negative[3] = {-0.7f, -1.3f, -0.2f};
  const float far[3] = {-123.4f, 57.0f, -310.0f};
  float side = SideForNeighbours(2000, 3);
  ExpectSamePairs(Uniform(2000, side, straddle, 11), 0, 500);
  ExpectSamePairs(Uniform(2000, side, negative, 12), 0, 500);
  ExpectSamePairs(Uniform(2000, side, far, 13), 0, 500);
  // every grain below -side: no coordinate near zero
  std::vector<float> pos = Uniform(2000, side, negative, 14);
  for (float x : pos) ASSERT_LT(x, 0.0f);
}

// small tables put many cells into one bucket; the walk must still keep only its own cell
TEST(GrnHash, HashCollisionsMatchBruteForce) {
  const float origin[3] = {0.01f, -0.02f, 0.03f};
  std::vector<float> uniform = Uniform(1500, SideForNeighbours(1500, 3), origin, 21);
  std::vector<float> clusters = Clusters(6, 120, 0.04f, 22);
  for (int hash_size : {1, 2, 7, 64, 1021}) {
    SCOPED_TRACE(hash_size);
    ExpectSamePairs(uniform, hash_size, 300);
    ExpectSamePairs(clusters, hash_size, 3000);
  }
}

// cell sizes whose boundaries the boundary tests probe: the design's cell, the cutoff itself,
// and the cell granular.c uses, 0.1% wider than the cutoff so that float rounding of x / cell
// can never put two grains in contact two cells apart
std::vector<float> CellSizes(float cutoff) { return {cutoff, cutoff * 1.001f}; }

// grains at and next to the cell boundaries x = (k + 1/2) cell (cells are round(x / cell)),
// with partners at distances just below, at, and just above the cutoff, along the axes and the
// diagonals, on both sides of the origin
TEST(GrnHash, CellBoundaryCasesMatchBruteForce) {
  grnParams p;
  grn_default_params(&p);
  p.radius = kRadius;
  p.margin = kMargin;
  const float cutoff = Cutoff(p);
  // partner distances: around the cutoff, in ulps and in relative steps, and well inside
  std::vector<float> dists = {0.5f * cutoff, 0.99f * cutoff, cutoff * (1 - 1e-6f), cutoff,
                              cutoff * (1 + 1e-6f)};
  float below = cutoff, above = cutoff;
  for (int u = 0; u < 3; u++) {
    below = std::nextafter(below, 0.0f);
    above = std::nextafter(above, 1.0f);
    dists.push_back(below);
    dists.push_back(above);
  }
  const float dirs[][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0}, {0, 0, -1},
                           {1, 1, 0},  {1, -1, 1}, {-1, -1, -1}};
  for (float cell : CellSizes(cutoff)) {
    SCOPED_TRACE(testing::Message() << "boundaries of cell " << cell / cutoff << " cutoff");
    std::vector<float> pos;
    int group = 0;
    for (int k = -3; k <= 2; k++) {
      float b = (k + 0.5f) * cell;
      // the boundary, a few ulps either side, and small relative offsets
      std::vector<float> xs = {b, b + 1e-4f * cell, b - 1e-4f * cell};
      float lo = b, hi = b;
      for (int u = 0; u < 3; u++) {
        lo = std::nextafter(lo, -1e9f);
        hi = std::nextafter(hi, 1e9f);
        xs.push_back(lo);
        xs.push_back(hi);
      }
      for (float x : xs) {
        for (const float* d : dirs) {
          double len = std::sqrt((double)d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
          for (float dist : dists) {
            // each (grain, partner) group in its own neighbourhood, 8 cells from the next, the
            // grain at (or next to) a boundary in all three axes
            float oy = 8 * cell * (float)(group % 40), oz = 8 * cell * (float)(group / 40);
            group++;
            float a[3] = {x, x + oy, x + oz};
            pos.insert(pos.end(), a, a + 3);
            for (int i = 0; i < 3; i++) pos.push_back(a[i] + (float)(dist * d[i] / len));
          }
        }
      }
    }
    ExpectSamePairs(pos, 0, 100);
    ExpectSamePairs(pos, 7, 100);
  }
}

// grains at a boundary, scanned ulp by ulp, each with a partner at the largest float distance
// along x still inside the cutoff: the pair straddles two boundaries and must still be found
// (rounding half to even, or rounding of x / cell, could otherwise put it two cells apart)
TEST(GrnHash, UlpScanAcrossBoundaries) {
  grnParams p;
  grn_default_params(&p);
  p.radius = kRadius;
  p.margin = kMargin;
  const float cutoff = Cutoff(p);
  const float cut2 = cutoff * cutoff;
  for (float cell : CellSizes(cutoff)) {
    SCOPED_TRACE(testing::Message() << "boundaries of cell " << cell / cutoff << " cutoff");
    std::vector<float> pos;
    int group = 0;
    for (int k : {-40, -7, -1, 0, 1, 6, 39}) {
      float x = (k + 0.5f) * cell;
      for (int u = 0; u < 64; u++) x = std::nextafter(x, -1e9f);
      for (int u = 0; u < 128; u++, x = std::nextafter(x, 1e9f)) {
        float d = cutoff;
        while (true) {
          float r = x - (x + d);
          if (r * r < cut2) break;
          d = std::nextafter(d, 0.0f);
        }
        float oy = 8 * cell * (float)(group % 50), oz = 8 * cell * (float)(group / 50);
        group++;
        pos.insert(pos.end(), {x, oy, oz, x + d, oy, oz});
      }
    }
    ExpectSamePairs(pos, 0, 100);
  }
}

}  // namespace
