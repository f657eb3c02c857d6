// cpu backend (cpu/solver_cpu.c): the same inputs give bit-identical grains and wrenches when run
// twice in one process, though the hash lists are built by racing threads; and the one-loop
// iteration (grnParams.one_loop) gives bit for bit what the split passes give.
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_solver.h"  // the contact state's layout
#include "grn_test_util.h"

namespace {

using grn_test::Grains;
using grn_test::MakeSolver;
using grn_test::Read;
using grn_test::SameBits;
using grn_test::SolverPtr;

struct Outcome {
  Grains grains;
  std::vector<double> wrenches;  // after each advance, (nadvance x max_bodies x 6)
};

grnParams Params(int one_loop = 0) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = 1000;
  p.max_bodies = 2;
  p.one_loop = one_loop;
  return p;
}

// 1000 grains falling into a container while a sphere on body 1 sweeps through them; four
// advances of 50 substeps, the sphere's pose updated between advances as a host would
void Simulate(grnSolver* s, Outcome* out) {
  grnParams p = Params();
  const float c[3] = {0, 0, 0.15f}, h[3] = {0.05f, 0.05f, 0.15f};
  std::vector<grnShape> shapes = grn_test::Container(c, h, 0.5f);
  shapes.push_back(grn_test::StaticShape(grnSHAPE_SPHERE));
  grnShape& ball = shapes.back();
  ball.size[0] = 0.02f;
  ball.rbound = 0.02f;
  ball.body = 1;
  ball.friction = 0.4f;
  ball.linvel[0] = 0.3f;
  ball.angvel[2] = 2.0f;
  const float r = p.radius, in = 0.05f - 1.2f * r;
  const float lo[3] = {-in, -in, 1.2f * r}, hi[3] = {in, in, 0.3f - 1.2f * r};
  std::vector<float> pos = grn_test::JitteredLattice(p.capacity, lo, hi, 2.2f * r, 0.1f * r, 3);
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-0.2f, 0.2f);
  std::vector<float> vel(pos.size());
  for (float& v : vel) v = u(rng);
  ASSERT_EQ(grn_set_grains(s, (int)(pos.size() / 3), pos.data(), vel.data()), grnOK);
  for (int k = 0; k < 4; k++) {
    float t = k * 50 * p.dt;
    ball.pos[0] = ball.com[0] = -0.03f + ball.linvel[0] * t;
    ball.pos[2] = ball.com[2] = 0.03f;
    ASSERT_EQ(grn_set_shapes(s, (int)shapes.size(), shapes.data()), grnOK);
    ASSERT_EQ(grn_advance(s, 50), grnOK);
    std::vector<double> w(6 * p.max_bodies);
    ASSERT_EQ(grn_get_wrenches(s, w.data()), grnOK);
    out->wrenches.insert(out->wrenches.end(), w.begin(), w.end());
  }
  out->grains = Read(s);
}

TEST(SolverCpu, SameInputsGiveIdenticalResults) {
  Outcome first, second, again;
  {
    SolverPtr s = MakeSolver(Params());
    ASSERT_TRUE(s);
    Simulate(s.get(), &first);
    // the same solver, reloaded with the same inputs
    Simulate(s.get(), &again);
  }
  {
    SolverPtr s = MakeSolver(Params());
    ASSERT_TRUE(s);
    Simulate(s.get(), &second);
  }
  ASSERT_FALSE(HasFatalFailure());
  // the sphere did push on the grains, so the wrenches are a real check
  double push = 0;
  for (size_t i = 6; i < first.wrenches.size(); i += 12) push += std::fabs(first.wrenches[i]);
  EXPECT_GT(push, 0.0);
  EXPECT_TRUE(SameBits(first.grains.pos, second.grains.pos)) << "positions differ";
  EXPECT_TRUE(SameBits(first.grains.vel, second.grains.vel)) << "velocities differ";
  EXPECT_TRUE(SameBits(first.wrenches, second.wrenches)) << "wrenches differ";
  EXPECT_TRUE(SameBits(first.grains.pos, again.grains.pos)) << "positions differ on reuse";
  EXPECT_TRUE(SameBits(first.grains.vel, again.grains.vel)) << "velocities differ on reuse";
  EXPECT_TRUE(SameBits(first.wrenches, again.wrenches)) << "wrenches differ on reuse";
}

// one loop finds each grain's contacts again in every iteration and solves each contact from both
// sides; split passes solve each pair once and hand the partner the negative. the contact law is
// odd, so the two must agree exactly
TEST(SolverCpu, OneLoopGivesTheSameResultsAsSplitPasses) {
  Outcome split, one_loop;
  {
    SolverPtr s = MakeSolver(Params(0));
    ASSERT_TRUE(s);
    Simulate(s.get(), &split);
  }
  {
    SolverPtr s = MakeSolver(Params(1));
    ASSERT_TRUE(s);
    Simulate(s.get(), &one_loop);
  }
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_TRUE(SameBits(split.grains.pos, one_loop.grains.pos)) << "positions differ";
  EXPECT_TRUE(SameBits(split.grains.vel, one_loop.grains.vel)) << "velocities differ";
  EXPECT_TRUE(SameBits(split.wrenches, one_loop.wrenches)) << "wrenches differ";
}

// fewer grains set over a bed in contact: no grain keeps a contact count from before (the counts
// past the new n included), so the contact state read back is one any solver takes back
TEST(SolverCpu, FewerGrainsLeaveNoStaleContacts) {
  SolverPtr s = MakeSolver(Params());
  ASSERT_TRUE(s);
  Outcome out;
  Simulate(s.get(), &out);
  const int cap = Params().capacity, n = 400;
  std::vector<char> buf(grn_contact_state_bytes(cap));
  ASSERT_EQ(grn_get_contacts(s.get(), buf.data()), grnOK);
  const int* npair =
      reinterpret_cast<const int*>(buf.data() + grn_contact_offset(grnCONTACT_npair, cap));
  int touching = 0;
  for (int i = n; i < cap; i++) touching += npair[i] > 0;
  ASSERT_GT(touching, 100);  // the bed was in contact past the grains kept

  ASSERT_EQ(grn_set_grains(s.get(), n, out.grains.pos.data(), out.grains.vel.data()), grnOK);
  ASSERT_EQ(grn_get_contacts(s.get(), buf.data()), grnOK);
  for (int i = 0; i < cap; i++) ASSERT_EQ(npair[i], 0) << "grain " << i;
  ASSERT_EQ(grn_advance(s.get(), 5), grnOK);
  ASSERT_EQ(grn_get_contacts(s.get(), buf.data()), grnOK);
  for (int i = n; i < cap; i++) ASSERT_EQ(npair[i], 0) << "grain " << i;
  EXPECT_EQ(grn_set_contacts(s.get(), buf.data()), grnOK);
}

// a saved state and its contact state, restored
struct Saved {
  Grains grains;
  std::vector<char> contacts;
};

// (the buffer filled with a pattern first, so that a byte the state leaves unwritten shows)
Saved Save(const grnSolver* s) {
  Saved v{Read(s), std::vector<char>(grn_contact_state_bytes(grn_params(s)->capacity), '\xa5')};
  EXPECT_EQ(grn_get_contacts(s, v.contacts.data()), grnOK);
  return v;
}

void Restore(grnSolver* s, const Saved& v) {
  grn_test::Write(s, v.grains);
  ASSERT_EQ(grn_set_contacts(s, v.contacts.data()), grnOK);
}

// the largest grain-grain contact count of a contact state: the slot rows it uses
int PairRowsUsed(const Saved& v, int cap) {
  const int* npair =
      reinterpret_cast<const int*>(v.contacts.data() + grn_contact_offset(grnCONTACT_npair, cap));
  return *std::max_element(npair, npair + cap);
}

// how many slots past their grain's count hold a nonzero byte (grn_get_contacts zeroes them all,
// so that equal contacts give equal bytes)
long UnzeroedUnusedSlots(const Saved& v, int cap) {
  const char* b = v.contacts.data();
  const int* count[2] = {
      reinterpret_cast<const int*>(b + grn_contact_offset(grnCONTACT_npair, cap)),
      reinterpret_cast<const int*>(b + grn_contact_offset(grnCONTACT_nshape, cap))};
  long bad = 0;
  for (int a = 0; a < grnNCONTACT_ARRAYS; a++) {
    const grnArrayDesc* desc = grn_contact_arrays + a;
    const int slots = grn_unit_slots(desc->unit);
    if (slots == 1) continue;
    const int* used = count[desc->unit == grnUNIT_PAIR_SLOT ? 0 : 1];
    const size_t width = desc->size * desc->width;
    const char* arr = b + grn_contact_offset(a, cap);
    for (int k = 0; k < slots; k++) {
      for (int i = 0; i < cap; i++) {
        if (k < used[i]) continue;
        const char* e = arr + width * GRN_STATE_SLOT(k, i, cap);
        bad += std::any_of(e, e + width, [](char x) { return x != 0; });
      }
    }
  }
  return bad;
}

// grn_set_contacts writes only the slot rows the state uses, grn_get_contacts reads only those:
// an early state (few contacts) restored into a solver whose slots held a dense bed's contacts
// goes on exactly as in a fresh solver, and reads back as it was saved
TEST(SolverCpu, ARestoredStateGoesOnExactlyOverSlotsThatHeldMoreContacts) {
  grnParams p = Params();
  const float c[3] = {0, 0, 0.15f}, h[3] = {0.05f, 0.05f, 0.15f};
  const std::vector<grnShape> shapes = grn_test::Container(c, h, 0.5f);
  const float r = p.radius, in = 0.05f - 1.2f * r;
  const float lo[3] = {-in, -in, 1.2f * r}, hi[3] = {in, in, 0.3f - 1.2f * r};
  std::vector<float> pos = grn_test::JitteredLattice(p.capacity, lo, hi, 2.2f * r, 0.1f * r, 5);
  std::vector<float> vel(pos.size(), 0.0f);
  auto Fresh = [&]() {
    SolverPtr s = MakeSolver(p);
    EXPECT_TRUE(s);
    EXPECT_EQ(grn_set_shapes(s.get(), (int)shapes.size(), shapes.data()), grnOK);
    return s;
  };
  SolverPtr used = Fresh();
  ASSERT_EQ(grn_set_grains(used.get(), p.capacity, pos.data(), vel.data()), grnOK);
  ASSERT_EQ(grn_advance(used.get(), 40), grnOK);
  const Saved early = Save(used.get());
  ASSERT_EQ(grn_advance(used.get(), 400), grnOK);  // the grains land and pile: more contacts each
  const Saved dense = Save(used.get());
  ASSERT_GT(PairRowsUsed(dense, p.capacity), PairRowsUsed(early, p.capacity) + 2);

  EXPECT_EQ(UnzeroedUnusedSlots(early, p.capacity), 0);
  EXPECT_EQ(UnzeroedUnusedSlots(dense, p.capacity), 0);

  Restore(used.get(), early);
  EXPECT_TRUE(SameBits(Save(used.get()).contacts, early.contacts)) << "read back otherwise";
  ASSERT_EQ(grn_advance(used.get(), 100), grnOK);
  SolverPtr fresh = Fresh();
  Restore(fresh.get(), early);
  ASSERT_EQ(grn_advance(fresh.get(), 100), grnOK);
  const Saved a = Save(used.get()), b = Save(fresh.get());
  EXPECT_TRUE(SameBits(a.grains.pos, b.grains.pos)) << "positions differ";
  EXPECT_TRUE(SameBits(a.grains.vel, b.grains.vel)) << "velocities differ";
  EXPECT_TRUE(SameBits(a.grains.angvel, b.grains.angvel)) << "spins differ";
  EXPECT_TRUE(SameBits(a.contacts, b.contacts)) << "contact states differ";
  EXPECT_EQ(UnzeroedUnusedSlots(a, p.capacity), 0);
}

}  // namespace
