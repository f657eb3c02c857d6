// the sorted cell list (grn_sorted.h, params.broadphase = grnBROADPHASE_SORTED), and the hash
// beside it: grn_find_pairs must return exactly the pairs a brute-force O(N^2) check finds within
// each pair's contact distance, whatever the radii, the table size (cells sharing buckets) and
// where the grains are;
// and a whole simulation must equal the hash broadphase's bit for bit in deterministic mode,
// since each grain's contacts are its smallest partners in index order whatever order the walk
// meets them in, and every order that results depend on is the caller's, whatever order the
// sorted solver keeps its grains in.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_data.h"  // GRN_MAX_NEIGHBORS
#include "grn_hash.h"  // the sorted list's buckets
#include "grn_solver.h"  // the solver's own order of its grains
#include "grn_test_util.h"

namespace {

using grn_test::Grains;
using grn_test::MakeSolver;
using grn_test::Read;
using grn_test::SolverPtr;
using grn_test::FoundPairs;
using grn_test::Pair;

// every pair (i < j) closer than its contact distance (r_i + r_j)(1 + margin / 2), in the
// solver's float arithmetic
std::vector<Pair> BrutePairs(const std::vector<float>& pos, const std::vector<float>& rad,
                             float margin) {
  int n = (int)rad.size();
  std::vector<Pair> out;
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      float rx = pos[3 * i] - pos[3 * j];
      float ry = pos[3 * i + 1] - pos[3 * j + 1];
      float rz = pos[3 * i + 2] - pos[3 * j + 2];
      float sum = rad[i] + rad[j], cut = sum + 0.5f * margin * sum;
      if (rx * rx + ry * ry + rz * rz < cut * cut) out.emplace_back(i, j);
    }
  }
  return out;
}

// the grains (radii in (0, R]) in a solver with each broadphase of hash_size buckets (0: the
// default) against brute force; returns how many pairs there are
size_t ExpectBrutePairsWith(const std::vector<float>& pos, const std::vector<float>& rad,
                            int hash_size, int broadphase) {
  grnParams p;
  grn_default_params(&p);
  p.broadphase = broadphase;
  p.capacity = std::max((int)rad.size(), 1);
  p.hash_size = hash_size;
  SolverPtr s = MakeSolver(p);
  EXPECT_TRUE(s);
  if (!s) return 0;
  EXPECT_EQ(grn_set_grains(s.get(), (int)rad.size(), pos.data(), nullptr), grnOK);
  EXPECT_EQ(grn_set_radii(s.get(), rad.data()), grnOK);
  std::vector<Pair> want = BrutePairs(pos, rad, p.margin), got = FoundPairs(s.get());
  std::vector<Pair> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                      std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << missing.size() << " of " << want.size() << " missing, first ("
                               << missing[0].first << ", " << missing[0].second << ")";
  EXPECT_TRUE(extra.empty()) << extra.size() << " extra, first (" << extra[0].first << ", "
                             << extra[0].second << ")";
  return want.size();
}

// the same with both broadphases
size_t ExpectBrutePairs(const std::vector<float>& pos, const std::vector<float>& rad,
                        int hash_size) {
  size_t pairs = 0;
  for (int broadphase : {grnBROADPHASE_HASH, grnBROADPHASE_SORTED}) {
    SCOPED_TRACE(broadphase == grnBROADPHASE_HASH ? "hash" : "sorted");
    pairs = ExpectBrutePairsWith(pos, rad, hash_size, broadphase);
  }
  return pairs;
}

// n grains of radii uniform in [rmin, R] at uniform positions in a cube of side `side` [m]
void RandomBed(int n, float side, float rmin, unsigned seed, std::vector<float>* pos,
               std::vector<float>* rad) {
  grnParams p;
  grn_default_params(&p);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> ux(-0.5f * side, 0.5f * side), ur(rmin, p.radius);
  for (int i = 0; i < n; i++) {
    for (int a = 0; a < 3; a++) pos->push_back(ux(rng));
    rad->push_back(ur(rng));
  }
}

// a loose bed of mixed radii [R / 4, R] at the default table, and at tables so small that many
// cells share a bucket (1: every grain in one bucket), where the walk must keep only the
// visited cell's grains
TEST(GrnSorted, MixedRadiiMatchBruteForceAtEveryTableSize) {
  for (int hash_size : {0, 1, 7, 1021}) {
    SCOPED_TRACE(hash_size);
    std::vector<float> pos, rad;
    RandomBed(hash_size == 1 ? 600 : 3000, hash_size == 1 ? 0.06f : 0.1f, 0.00125f,
              31 + hash_size, &pos, &rad);
    EXPECT_GE(ExpectBrutePairs(pos, rad, hash_size), 200u) << "too sparse to test anything";
  }
}

// grains far outside the bed: touching pairs hundreds of metres out on every side, a pair beyond
// the cells' clamp (1e9 cells; both grains in the clamped cell, one touching pair at the same
// point and two grains apart, which must not pair), with a bed at the origin
TEST(GrnSorted, FarGrainsMatchBruteForce) {
  std::vector<float> pos, rad;
  RandomBed(1500, 0.08f, 0.002f, 41, &pos, &rad);
  const float r = 0.004f;
  const float far[][3] = {{500, -500, 250}, {-800, 300, -900}, {0, 0, 1000}};
  for (const float* c : far) {
    pos.insert(pos.end(), {c[0], c[1], c[2], c[0] + 1.5f * r, c[1], c[2]});
    rad.insert(rad.end(), {r, r});
  }
  pos.insert(pos.end(), {1e12f, 1e12f, -1e12f, 1e12f, 1e12f, -1e12f, 2e12f, 1e12f, -1e12f});
  rad.insert(rad.end(), {r, r, r});
  size_t pairs = ExpectBrutePairs(pos, rad, 0);
  EXPECT_GE(pairs, 100u);
  // the far pairs are among them: 3 touching pairs and the coincident one beyond the clamp
  std::vector<Pair> far_pairs;
  int n = (int)rad.size();
  for (const Pair& q : BrutePairs(pos, rad, 0.1f)) {
    if (q.first >= 1500) far_pairs.push_back(q);
  }
  EXPECT_EQ(far_pairs.size(), 4u);
  EXPECT_EQ(far_pairs.back(), Pair(n - 3, n - 2));
}

// the sorted list's buckets: every cell of a box widened by one cell each way gets its own bucket
// when the table has as many as the widened box has cells, in row order (x fastest), whatever
// side of the origin the box is on
TEST(GrnSorted, BoxCellsHaveTheirOwnBucketsInRowOrder) {
  const int boxes[][6] = {
      {-7, -5, -3, 6, 4, 9}, {0, 0, 0, 0, 0, 0}, {1000, -2000, 5, 1010, -1990, 8}};
  for (const int* box : boxes) {
    int n[3];
    for (int a = 0; a < 3; a++) n[a] = box[3 + a] - box[a] + 3;
    const unsigned table = (unsigned)(n[0] * n[1] * n[2]);
    unsigned expect = 0;
    for (int z = box[2] - 1; z <= box[5] + 1; z++) {
      for (int y = box[1] - 1; y <= box[4] + 1; y++) {
        for (int x = box[0] - 1; x <= box[3] + 1; x++) {
          ASSERT_EQ(grn_box_cell(x, y, z, box, table), expect++) << x << " " << y << " " << z;
        }
      }
    }
    EXPECT_EQ(expect, table);
  }
}

// the sorted list is the default, as measured (scripts/bench/README.md, bench_cpu --broadphase)
TEST(GrnSorted, SortedIsTheDefault) {
  grnParams p;
  grn_default_params(&p);
  EXPECT_EQ(p.broadphase, grnBROADPHASE_SORTED);
}

// no grains and one grain: no pairs, and substeps run
TEST(GrnSorted, NoGrainAndOneGrain) {
  for (int n : {0, 1}) {
    SCOPED_TRACE(n);
    grnParams p;
    grn_default_params(&p);
    p.broadphase = grnBROADPHASE_SORTED;
    p.capacity = 4;
    SolverPtr s = MakeSolver(p);
    ASSERT_TRUE(s);
    const float pos[3] = {0, 0, 0.1f};
    ASSERT_EQ(grn_set_grains(s.get(), n, pos, nullptr), grnOK);
    int total = -1;
    EXPECT_EQ(grn_find_pairs(s.get(), nullptr, 0, &total), grnOK);
    EXPECT_EQ(total, 0);
    ASSERT_EQ(grn_advance(s.get(), 3), grnOK);
    Grains g = Read(s.get());
    if (n == 1) {
      EXPECT_LT(g.pos[2], 0.1f) << "the grain falls";
    }
  }
}

// a run's whole outcome: grains, contact state, the body's wrench over the last substep, and the
// magnitude of its force summed over all substeps [N]; the radii, the pairs grn_find_pairs gives
// at the end and the solver's own order of its grains (the caller's index of each)
struct Outcome {
  Grains grains;
  std::vector<char> contacts;
  std::vector<double> wrench;
  double force = 0;
  std::vector<float> rad;
  std::vector<Pair> pairs;
  std::vector<int> order;
  float margin = 0;  // the solver's speculative margin (grnConsts), which the pairs are within
};

// the caller's index of each of the solver's grains, in the solver's order (identity where it
// keeps the caller's)
std::vector<int> SolverOrder(const grnSolver* s) {
  std::vector<int> uid(grn_count(s));
  for (int i = 0; i < grn_count(s); i++) uid[i] = i;
  if (s->params.broadphase == grnBROADPHASE_SORTED && !uid.empty()) {
    EXPECT_EQ(s->ops->read(s, grn_solver_array("uid"), 0, uid.data(), uid.size() * sizeof(int)),
              grnOK);
  }
  return uid;
}

// share of consecutive grains of `order` (caller's indices) whose cells, w wide, are the same or
// neighbours
double NeighbourShare(const std::vector<float>& pos, const std::vector<int>& order, float w) {
  int near = 0;
  for (size_t e = 0; e + 1 < order.size(); e++) {
    bool touching = true;
    for (int a = 0; a < 3; a++) {
      float ca = std::rint(pos[3 * order[e] + a] / w);
      float cb = std::rint(pos[3 * order[e + 1] + a] / w);
      touching = touching && std::fabs(ca - cb) <= 1;
    }
    near += touching;
  }
  return order.size() > 1 ? (double)near / (double)(order.size() - 1) : 1.0;
}

// the sorted solver's own order runs through space: a dense bed about the origin given in random
// order, once its list is built (one substep, nothing moves), puts nearly all consecutive grains
// in the same or neighbouring cells (row order over the grains' box: all but the row ends and
// cells left empty), where the caller's order almost never does
TEST(GrnSorted, TheSolversOwnOrderKeepsNeighboursTogether) {
  grnParams p;
  grn_default_params(&p);
  const float r = p.radius;
  const float lo[3] = {-20 * r, -20 * r, -10 * r}, hi[3] = {20 * r, 20 * r, 10 * r};
  std::vector<float> pos = grn_test::JitteredLattice(3000, lo, hi, 2.05f * r, 0.01f * r, 71);
  const int n = (int)pos.size() / 3;
  ASSERT_EQ(n, 3000);
  p.capacity = n;
  p.broadphase = grnBROADPHASE_SORTED;
  p.gravity[2] = 0;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), nullptr), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
  ASSERT_TRUE(Read(s.get()).pos == pos) << "the grains stayed where they were";
  std::vector<int> caller(n);
  for (int i = 0; i < n; i++) caller[i] = i;
  const float w = 1.0f / s->consts.inv_list_cell;
  EXPECT_GT(NeighbourShare(pos, SolverOrder(s.get()), w), 0.9) << "the solver's order";
  EXPECT_LT(NeighbourShare(pos, caller, w), 0.1) << "the caller's (random) order";
}

// a solver's grains, radii and contact state put into a new solver of params p
SolverPtr Restore(const grnSolver* from, grnParams p, const std::vector<grnShape>& shapes) {
  Grains g = Read(from);
  int n = grn_count(from);
  std::vector<float> rad(n);
  std::vector<char> contacts(grn_contact_state_bytes(p.capacity));
  EXPECT_EQ(grn_get_radii(from, rad.data()), grnOK);
  EXPECT_EQ(grn_get_contacts(from, contacts.data()), grnOK);
  SolverPtr s = MakeSolver(p);
  EXPECT_TRUE(s);
  if (!s) return s;
  EXPECT_EQ(grn_set_shapes(s.get(), (int)shapes.size(), shapes.data()), grnOK);
  grn_test::Write(s.get(), g);
  EXPECT_EQ(grn_set_radii(s.get(), rad.data()), grnOK);
  EXPECT_EQ(grn_set_contacts(s.get(), contacts.data()), grnOK);
  return s;
}

// a mixed-radius bed ([R / 2, R], shuffled lattice order) with random velocities falls into a
// container while a sphere on body 0 ploughs through it; nsub substeps of the model with the
// given broadphase, deterministic; from substep `restore` on (-1: never) in a new solver with
// broadphase `then`, given the first's state as the api reads it
Outcome Run(int model, int one_loop, int broadphase, int nsub, int restore = -1,
            int then = grnBROADPHASE_HASH) {
  grnParams p;
  grn_default_params(&p);
  const int n = 2000;
  p.capacity = n;
  p.model = model;
  p.one_loop = one_loop;
  p.broadphase = broadphase;
  p.max_bodies = 1;
  const float r = p.radius;
  if (model == grnMODEL_DEM) p.dt = (float)(GRN_DEM_DT_FRACTION * grn_dem_time_scale(&p, r / 2));
  SolverPtr s = MakeSolver(p);
  EXPECT_TRUE(s);
  Outcome out;
  if (!s) return out;
  const float c[3] = {0, 0, 0.1f}, h[3] = {0.05f, 0.05f, 0.1f};
  std::vector<grnShape> shapes = grn_test::Container(c, h, 0.5f);
  grnShape ball = grn_test::StaticShape(grnSHAPE_SPHERE);
  ball.size[0] = 0.015f;
  ball.pos[0] = ball.com[0] = -0.03f;
  ball.pos[2] = ball.com[2] = 0.02f;
  ball.linvel[0] = 0.5f;
  ball.friction = 0.5f;
  ball.spin_friction = ball.roll_friction = -1;
  ball.rbound = ball.size[0];
  ball.body = 0;
  shapes.push_back(ball);
  const float lo[3] = {-0.05f + 1.05f * r, -0.05f + 1.05f * r, 1.05f * r};
  const float hi[3] = {0.05f - 1.05f * r, 0.05f - 1.05f * r, 0.2f};
  std::vector<float> pos = grn_test::JitteredLattice(n, lo, hi, 2.05f * r, 0.01f * r, 51);
  std::mt19937 rng(52);
  std::uniform_real_distribution<float> uv(-0.1f, 0.1f), ur(r / 2, r);
  std::vector<float> vel(pos.size()), rad(pos.size() / 3);
  for (float& v : vel) v = uv(rng);
  for (float& x : rad) x = ur(rng);
  EXPECT_EQ(grn_set_shapes(s.get(), (int)shapes.size(), shapes.data()), grnOK);
  EXPECT_EQ(grn_set_grains(s.get(), (int)rad.size(), pos.data(), vel.data()), grnOK);
  EXPECT_EQ(grn_set_radii(s.get(), rad.data()), grnOK);
  // the ball moves on from the pose set each advance, so advance one substep at a time
  out.wrench.resize(6);
  for (int k = 0; k < nsub; k++) {
    if (k == restore) {
      grnParams q = p;
      q.broadphase = then;
      s = Restore(s.get(), q, shapes);
      if (!s) return out;
    }
    shapes.back().pos[0] = shapes.back().com[0] = -0.03f + k * p.dt * ball.linvel[0];
    EXPECT_EQ(grn_set_shapes(s.get(), (int)shapes.size(), shapes.data()), grnOK);
    EXPECT_EQ(grn_advance(s.get(), 1), grnOK);
    EXPECT_EQ(grn_get_wrenches(s.get(), out.wrench.data()), grnOK);
    out.force += std::sqrt(out.wrench[0] * out.wrench[0] + out.wrench[1] * out.wrench[1] +
                           out.wrench[2] * out.wrench[2]);
  }
  out.grains = Read(s.get());
  out.contacts.resize(grn_contact_state_bytes(p.capacity));
  EXPECT_EQ(grn_get_contacts(s.get(), out.contacts.data()), grnOK);
  out.rad.resize(rad.size());
  EXPECT_EQ(grn_get_radii(s.get(), out.rad.data()), grnOK);
  out.pairs = FoundPairs(s.get());
  out.order = SolverOrder(s.get());
  out.margin = s->consts.margin;
  return out;
}

// bitwise equality of two float or double arrays
template <typename T>
bool Bitwise(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// two outcomes equal bit for bit
void ExpectSameOutcome(const Outcome& hash, const Outcome& sorted) {
  ASSERT_FALSE(hash.grains.pos.empty());
  EXPECT_TRUE(Bitwise(hash.grains.pos, sorted.grains.pos)) << "positions";
  EXPECT_TRUE(Bitwise(hash.grains.vel, sorted.grains.vel)) << "velocities";
  EXPECT_TRUE(Bitwise(hash.grains.angvel, sorted.grains.angvel)) << "angular velocities";
  EXPECT_TRUE(Bitwise(hash.contacts, sorted.contacts)) << "contact state";
  EXPECT_TRUE(Bitwise(hash.wrench, sorted.wrench)) << "the ball's wrench";
  EXPECT_EQ(hash.force, sorted.force) << "the ball's force over the run";
  EXPECT_TRUE(Bitwise(hash.rad, sorted.rad)) << "radii";
  EXPECT_TRUE(hash.pairs == sorted.pairs) << "the pairs found at the end";
}

void ExpectSameRun(int model, int one_loop, int nsub) {
  Outcome hash = Run(model, one_loop, grnBROADPHASE_HASH, nsub);
  Outcome sorted = Run(model, one_loop, grnBROADPHASE_SORTED, nsub);
  ExpectSameOutcome(hash, sorted);
  // not a trivial run: the ball meets grains, and the grains spin (pbd's do not turn)
  EXPECT_GT(hash.force, 0.0) << "the ball ploughs the bed";
  if (model != grnMODEL_PBD) {
    EXPECT_GT(grn_test::MaxSpeed(hash.grains.angvel), 1.0) << "grains spin [rad/s]";
  }
  // the pairs are those of brute force at the end
  EXPECT_TRUE(hash.pairs == BrutePairs(hash.grains.pos, hash.rad, hash.margin))
      << "the pairs found against brute force";
  // the sorted solver keeps an order of its own: a permutation, far from the caller's
  std::vector<int> order = sorted.order;
  int moved = 0;
  for (size_t i = 0; i < order.size(); i++) moved += order[i] != (int)i;
  std::sort(order.begin(), order.end());
  for (size_t i = 0; i < order.size(); i++) ASSERT_EQ(order[i], (int)i) << "not a permutation";
  EXPECT_GT(moved, (int)order.size() / 2) << "grains in an order of the sorted solver's own";
  for (size_t i = 0; i < hash.order.size(); i++) ASSERT_EQ(hash.order[i], (int)i);
}

// the state the api reads from a sorted solver, in the caller's order, goes on bit for bit in a
// new solver with either broadphase, as the hash's run would have
void ExpectRestoredRun(int model, int nsub) {
  Outcome hash = Run(model, 0, grnBROADPHASE_HASH, nsub);
  for (int then : {grnBROADPHASE_SORTED, grnBROADPHASE_HASH}) {
    SCOPED_TRACE(then == grnBROADPHASE_HASH ? "restored into the hash" : "into the sorted");
    ExpectSameOutcome(hash, Run(model, 0, grnBROADPHASE_SORTED, nsub, nsub / 2, then));
  }
}

TEST(GrnSorted, ProjectedJacobiStateReadFromItsOwnOrderGoesOnBitForBit) {
  ExpectRestoredRun(grnMODEL_PJ, 200);
}

TEST(GrnSorted, DemStateReadFromItsOwnOrderGoesOnBitForBit) {
  ExpectRestoredRun(grnMODEL_DEM, 400);
}

TEST(GrnSorted, ProjectedJacobiRunEqualsTheHashBitForBit) {
  ExpectSameRun(grnMODEL_PJ, 0, 200);
}

TEST(GrnSorted, OneLoopRunEqualsTheHashBitForBit) {
  ExpectSameRun(grnMODEL_PJ, 1, 100);
}

TEST(GrnSorted, PbdRunEqualsTheHashBitForBit) {
  ExpectSameRun(grnMODEL_PBD, 0, 200);
}

TEST(GrnSorted, DemRunEqualsTheHashBitForBit) {
  ExpectSameRun(grnMODEL_DEM, 0, 400);
}

// a crowd of small grains (R / 4, random velocities) about big ones: more grains within some
// grains' reach than a neighbour list holds, so those grains walk the broadphase for their
// contacts (from the sorted list's copies of the positions, made at the same substep's build).
// 30 pj substeps, both broadphases, bit for bit
TEST(GrnSorted, CrowdedGrainsBeyondTheNeighbourListEqualTheHashBitForBit) {
  grnParams p;
  grn_default_params(&p);
  const float R = p.radius;
  std::mt19937 rng(61);
  std::uniform_real_distribution<float> u(-1.8f * R, 1.8f * R), uv(-0.1f, 0.1f);
  std::vector<float> pos, rad;
  for (int c = 0; c < 4; c++) {
    float cx = 10 * R * c;
    pos.insert(pos.end(), {cx, 0, 0});
    rad.push_back(R);
    for (int k = 0; k < 150; k++) {
      pos.insert(pos.end(), {cx + u(rng), u(rng), u(rng)});
      rad.push_back(R / 4);
    }
  }
  // some grain has more grains within its reach (contact distance plus the skin) than fit
  const int n = (int)rad.size();
  int most = 0;
  for (int i = 0; i < n; i++) {
    int within = 0;
    for (int j = 0; j < n; j++) {
      float dx = pos[3 * i] - pos[3 * j], dy = pos[3 * i + 1] - pos[3 * j + 1];
      float dz = pos[3 * i + 2] - pos[3 * j + 2], sum = rad[i] + rad[j];
      float reach = sum + 0.5f * p.margin * sum + p.skin * R;
      within += j != i && dx * dx + dy * dy + dz * dz < reach * reach;
    }
    most = std::max(most, within);
  }
  ASSERT_GT(most, GRN_MAX_NEIGHBORS) << "no neighbour list overflows";
  std::vector<float> vel(pos.size());
  for (float& v : vel) v = uv(rng);
  Grains out[2];
  std::vector<char> contacts[2];
  for (int b : {grnBROADPHASE_HASH, grnBROADPHASE_SORTED}) {
    p.capacity = n;
    p.broadphase = b;
    p.gravity[2] = 0;
    SolverPtr s = MakeSolver(p);
    ASSERT_TRUE(s);
    ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), vel.data()), grnOK);
    ASSERT_EQ(grn_set_radii(s.get(), rad.data()), grnOK);
    ASSERT_EQ(grn_advance(s.get(), 30), grnOK);
    out[b] = Read(s.get());
    contacts[b].resize(grn_contact_state_bytes(n));
    ASSERT_EQ(grn_get_contacts(s.get(), contacts[b].data()), grnOK);
  }
  EXPECT_TRUE(Bitwise(out[0].pos, out[1].pos)) << "positions";
  EXPECT_TRUE(Bitwise(out[0].vel, out[1].vel)) << "velocities";
  EXPECT_TRUE(Bitwise(out[0].angvel, out[1].angvel)) << "angular velocities";
  EXPECT_TRUE(Bitwise(contacts[0], contacts[1])) << "contact state";
  double changed = 0;
  for (size_t k = 0; k < vel.size(); k++) {
    changed = std::max(changed, (double)std::fabs(out[0].vel[k] - vel[k]));
  }
  EXPECT_GT(changed, 0.01) << "the grains collide: velocities change [m/s]";
}

}  // namespace
