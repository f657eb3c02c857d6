// the deterministic param: with it (the default) each grain's contacts are sorted by partner
// (grn_collide.h), without it they come in the order the hash walk meets them. Both must find the
// same contacts with the same impulses up to float rounding, the contact-state check of
// grn_set_contacts (granular.c) must hold each mode to its own list order, and
// grn_convert_contacts must move a contact state between capacities (sorting it) so that a run
// continues bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_solver.h"  // grn_contact_offset
#include "grn_test_util.h"

namespace {

using grn_test::Grains;
using grn_test::MakeSolver;
using grn_test::Read;
using grn_test::SolverPtr;

constexpr int kGrains = 1500;

grnParams Params(int deterministic) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = kGrains;
  p.deterministic = deterministic;
  return p;
}

// a dense, moving bed in a container: a jittered lattice at 2.02 radii, so most grains touch
// several others, with random velocities
SolverPtr Bed(int deterministic) {
  grnParams p = Params(deterministic);
  SolverPtr s = MakeSolver(p);
  if (!s) return s;
  const float r = p.radius, c[3] = {0, 0, 0.1f}, h[3] = {0.04f, 0.04f, 0.1f};
  std::vector<grnShape> walls = grn_test::Container(c, h, 0.5f);
  const float lo[3] = {-0.04f + 1.05f * r, -0.04f + 1.05f * r, 1.05f * r};
  const float hi[3] = {0.04f - 1.05f * r, 0.04f - 1.05f * r, 0.2f};
  std::vector<float> pos = grn_test::JitteredLattice(kGrains, lo, hi, 2.02f * r, 0.005f * r, 7);
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(-0.05f, 0.05f);
  std::vector<float> vel(pos.size());
  for (float& v : vel) v = u(rng);
  EXPECT_EQ(grn_set_shapes(s.get(), (int)walls.size(), walls.data()), grnOK);
  EXPECT_EQ(grn_set_grains(s.get(), (int)(pos.size() / 3), pos.data(), vel.data()), grnOK);
  return s;
}

// a solver's contact state as bytes, and views of its arrays
struct Contacts {
  std::vector<char> bytes;
  int cap;
  char* at(int a) { return bytes.data() + grn_contact_offset(a, cap); }
  int* npair() { return (int*)at(grnCONTACT_npair); }
  int* pair(int k, int i) { return (int*)at(grnCONTACT_pair) + (size_t)k * cap + i; }
  float* imp(int k, int i) { return (float*)at(grnCONTACT_pair_lin) + 3 * ((size_t)k * cap + i); }
};

Contacts Get(const grnSolver* s) {
  Contacts c;
  c.cap = grn_params(s)->capacity;
  c.bytes.resize(grn_contact_state_bytes(c.cap));
  EXPECT_EQ(grn_get_contacts(s, c.bytes.data()), grnOK);
  return c;
}

double MaxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); i++) m = std::fmax(m, std::fabs((double)a[i] - b[i]));
  return m;
}

// grain i's partners that come after a larger one (0 when sorted)
int Inversions(Contacts& c, int i) {
  int count = 0;
  for (int k = 1; k < c.npair()[i]; k++) count += *c.pair(k, i) < *c.pair(k - 1, i);
  return count;
}

TEST(Deterministic, IsTheDefault) {
  grnParams p;
  grn_default_params(&p);
  EXPECT_EQ(p.deterministic, 1);
  p.deterministic = 2;
  char msg[128];
  EXPECT_EQ(grn_check_params(&p, msg, sizeof(msg)), grnERR_ARG);
  EXPECT_NE(std::strstr(msg, "deterministic"), nullptr) << msg;
}

TEST(Deterministic, UnorderedFindsTheSameContactsAndImpulses) {
  SolverPtr ordered = Bed(1), unordered = Bed(0);
  ASSERT_TRUE(ordered && unordered);
  const int n = grn_count(ordered.get());
  ASSERT_GT(n, 900);
  // two substeps: the second warm starts from the first's contacts (the search by partner)
  for (int k = 0; k < 2; k++) {
    ASSERT_EQ(grn_advance(ordered.get(), 1), grnOK);
    ASSERT_EQ(grn_advance(unordered.get(), 1), grnOK);
  }
  Contacts a = Get(ordered.get()), b = Get(unordered.get());
  long contacts = 0, inverted = 0;
  double largest = 0, worst = 0;
  for (int i = 0; i < n; i++) {
    ASSERT_EQ(a.npair()[i], b.npair()[i]) << "grain " << i;
    EXPECT_EQ(Inversions(a, i), 0) << "ordered partners of grain " << i;
    inverted += Inversions(b, i);
    // the same partner with the same impulse, wherever its slot
    std::map<int, const float*> by_partner;
    for (int k = 0; k < b.npair()[i]; k++) by_partner[*b.pair(k, i)] = b.imp(k, i);
    for (int k = 0; k < a.npair()[i]; k++, contacts++) {
      auto it = by_partner.find(*a.pair(k, i));
      ASSERT_NE(it, by_partner.end()) << "grain " << i << " partner " << *a.pair(k, i);
      for (int x = 0; x < 3; x++) {
        largest = std::fmax(largest, std::fabs(a.imp(k, i)[x]));
        worst = std::fmax(worst, std::fabs(a.imp(k, i)[x] - it->second[x]));
      }
    }
  }
  EXPECT_GT(contacts, 3L * n) << "a dense bed";
  EXPECT_GT(inverted, 0) << "the unordered path keeps the walk's order";
  EXPECT_GT(largest, 0.0);
  EXPECT_LE(worst, 1e-4 * largest) << "impulses differ beyond rounding";
  Grains ga = Read(ordered.get()), gb = Read(unordered.get());
  EXPECT_LE(MaxDiff(ga.pos, gb.pos), 1e-7) << "positions [m]";
  EXPECT_LE(MaxDiff(ga.vel, gb.vel), 1e-4) << "velocities [m/s]";
}

TEST(Deterministic, CrowdedGrainsKeepTheirSmallestPartners) {
  // 24 grains in a ball of one radius: every pair within the cutoff, 23 neighbours each, more
  // than the 16 slots. the ordered path keeps each grain's 16 smallest partner indices
  grnParams p = Params(1);
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const int n = 24;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> pos;
  while ((int)pos.size() < 3 * n) {
    float x = u(rng), y = u(rng), z = u(rng);
    if (x * x + y * y + z * z > 1) continue;
    pos.insert(pos.end(), {x * p.radius, y * p.radius, 0.5f + z * p.radius});
  }
  ASSERT_EQ(grn_set_grains(s.get(), n, pos.data(), nullptr), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
  Contacts c = Get(s.get());
  for (int i = 0; i < n; i++) {
    ASSERT_EQ(c.npair()[i], 16) << "grain " << i;
    std::vector<int> want;
    for (int j = 0; j < n && (int)want.size() < 16; j++) {
      if (j != i) want.push_back(j);
    }
    std::vector<int> got;
    for (int k = 0; k < 16; k++) got.push_back(*c.pair(k, i));
    EXPECT_EQ(got, want) << "grain " << i;
  }
}

TEST(Deterministic, ContactStateCheckFollowsTheMode) {
  SolverPtr ordered = Bed(1), unordered = Bed(0);
  ASSERT_TRUE(ordered && unordered);
  ASSERT_EQ(grn_advance(unordered.get(), 1), grnOK);
  Contacts c = Get(unordered.get());
  Grains g = Read(unordered.get());
  const int n = grn_count(unordered.get());

  // walk-ordered lists: accepted by the unordered solver, refused by the ordered one
  ASSERT_EQ(grn_set_grains(unordered.get(), n, g.pos.data(), g.vel.data()), grnOK);
  EXPECT_EQ(grn_set_contacts(unordered.get(), c.bytes.data()), grnOK);
  ASSERT_EQ(grn_set_grains(ordered.get(), n, g.pos.data(), g.vel.data()), grnOK);
  EXPECT_EQ(grn_set_contacts(ordered.get(), c.bytes.data()), grnERR_ARG);

  // sorted per grain (impulses along), both accept them
  std::vector<char> sorted(c.bytes.size());
  ASSERT_EQ(grn_convert_contacts(c.bytes.data(), c.cap, sorted.data(), c.cap, n), grnOK);
  c.bytes = sorted;
  for (int i = 0; i < n; i++) ASSERT_EQ(Inversions(c, i), 0) << "grain " << i;
  EXPECT_EQ(grn_set_contacts(ordered.get(), c.bytes.data()), grnOK);
  EXPECT_EQ(grn_set_contacts(unordered.get(), c.bytes.data()), grnOK);

  // a partner listed twice is refused by both
  int i = 0;
  while (i < n && c.npair()[i] < 2) i++;
  ASSERT_LT(i, n);
  *c.pair(1, i) = *c.pair(0, i);
  EXPECT_EQ(grn_set_contacts(ordered.get(), c.bytes.data()), grnERR_ARG);
  EXPECT_EQ(grn_set_contacts(unordered.get(), c.bytes.data()), grnERR_ARG);
}

// a refused contact state: grn_check_contacts says which grain, which contact and what is wrong
TEST(Deterministic, ContactStateCheckSaysWhatIsWrong) {
  for (int deterministic : {1, 0}) {
    SolverPtr s = Bed(deterministic);
    ASSERT_TRUE(s);
    ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
    Contacts good = Get(s.get());
    const int n = grn_count(s.get());
    int i = 0;
    while (i < n && good.npair()[i] < 2) i++;
    ASSERT_LT(i, n);
    const std::string grain = "grain " + std::to_string(i);
    struct Bad {
      const char* what;
      void (*apply)(Contacts* c, int i, int n);
      std::vector<std::string> says;
    };
    const Bad bad[] = {
      {"more contacts than slots", [](Contacts* c, int i, int) { c->npair()[i] = 17; },
       {grain + " ", "17 grain", "slots"}},
      {"a partner that is no grain", [](Contacts* c, int i, int n) { *c->pair(1, i) = n + 4; },
       {grain + ", contact 1: partner " + std::to_string(n + 4), "not a grain in use"}},
      {"a partner listed twice", [](Contacts* c, int i, int) { *c->pair(1, i) = *c->pair(0, i); },
       {grain + ", contact 1", deterministic ? "order" : "twice"}},
      {"an impulse that is not finite", [](Contacts* c, int i, int) { c->imp(1, i)[2] = NAN; },
       {grain + ", contact 1: pair_lin is not finite"}},
    };
    for (const Bad& b : bad) {
      Contacts c = good;
      b.apply(&c, i, n);
      char msg[256] = "";
      EXPECT_EQ(grn_check_contacts(s.get(), c.bytes.data(), msg, sizeof(msg)), grnERR_ARG);
      EXPECT_EQ(grn_set_contacts(s.get(), c.bytes.data()), grnERR_ARG) << b.what;
      for (const std::string& text : b.says) {
        EXPECT_NE(std::string(msg).find(text), std::string::npos)
            << b.what << ", deterministic " << deterministic << ": " << msg;
      }
    }
    char msg[8] = "x";
    EXPECT_EQ(grn_check_contacts(s.get(), good.bytes.data(), msg, sizeof(msg)), grnOK);
    EXPECT_STREQ(msg, "");
  }
}

TEST(Deterministic, ConvertedContactsContinueBitForBit) {
  SolverPtr a = Bed(1);
  ASSERT_TRUE(a);
  ASSERT_EQ(grn_advance(a.get(), 3), grnOK);
  const int n = grn_count(a.get());
  Contacts c = Get(a.get());
  Grains g = Read(a.get());

  // to capacity n (a bed file's layout), then to a larger solver
  const int big = 2 * kGrains;
  std::vector<char> tight(grn_contact_state_bytes(n)), wide(grn_contact_state_bytes(big));
  ASSERT_EQ(grn_convert_contacts(c.bytes.data(), kGrains, tight.data(), n, n), grnOK);
  ASSERT_EQ(grn_convert_contacts(tight.data(), n, wide.data(), big, n), grnOK);
  grnParams p = Params(1);
  p.capacity = big;
  SolverPtr b = MakeSolver(p);
  ASSERT_TRUE(b);
  const float c0[3] = {0, 0, 0.1f}, h[3] = {0.04f, 0.04f, 0.1f};
  std::vector<grnShape> walls = grn_test::Container(c0, h, 0.5f);
  ASSERT_EQ(grn_set_shapes(b.get(), (int)walls.size(), walls.data()), grnOK);
  grn_test::Write(b.get(), g);
  ASSERT_EQ(grn_set_contacts(b.get(), wide.data()), grnOK);

  // both continue alike, bit for bit (the warm start is part of it: without it they differ)
  ASSERT_EQ(grn_advance(a.get(), 5), grnOK);
  ASSERT_EQ(grn_advance(b.get(), 5), grnOK);
  EXPECT_EQ(Read(a.get()).pos, Read(b.get()).pos);
  EXPECT_EQ(Read(a.get()).vel, Read(b.get()).vel);
  EXPECT_EQ(Read(a.get()).angvel, Read(b.get()).angvel);
  EXPECT_EQ(Read(a.get()).orient, Read(b.get()).orient);
  SolverPtr cold = MakeSolver(p);
  ASSERT_TRUE(cold);
  ASSERT_EQ(grn_set_shapes(cold.get(), (int)walls.size(), walls.data()), grnOK);
  grn_test::Write(cold.get(), g);
  ASSERT_EQ(grn_advance(cold.get(), 5), grnOK);
  EXPECT_NE(Read(a.get()).vel, Read(cold.get()).vel);

  // bad arguments and counts beyond the slots are refused
  EXPECT_EQ(grn_convert_contacts(c.bytes.data(), kGrains, tight.data(), n - 1, n), grnERR_ARG);
  EXPECT_EQ(grn_convert_contacts(nullptr, kGrains, tight.data(), n, n), grnERR_ARG);
  c.npair()[0] = 17;
  EXPECT_EQ(grn_convert_contacts(c.bytes.data(), kGrains, tight.data(), n, n), grnERR_ARG);
}

TEST(Deterministic, UnorderedBedSettlesLikeTheOrderedOne) {
  SolverPtr ordered = Bed(1), unordered = Bed(0);
  ASSERT_TRUE(ordered && unordered);
  ASSERT_EQ(grn_advance(ordered.get(), 400), grnOK);
  ASSERT_EQ(grn_advance(unordered.get(), 400), grnOK);
  Grains a = Read(ordered.get()), b = Read(unordered.get());
  // 0.2 s: rounding has grown into different grain paths, the bed is the same
  double za = 0, zb = 0;
  for (size_t i = 2; i < a.pos.size(); i += 3) za += a.pos[i], zb += b.pos[i];
  const int n = (int)(a.pos.size() / 3);
  const float r = Params(1).radius;
  EXPECT_NEAR(za / n, zb / n, 0.05 * r) << "mean height [m]";
  EXPECT_LT(grn_test::MaxSpeed(b.vel), 2 * grn_test::MaxSpeed(a.vel) + 0.01) << "[m/s]";
}

}  // namespace
