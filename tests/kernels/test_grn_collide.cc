// narrowphase (grn_collide.h): the neighbour lists, reused over substeps until a grain has moved
// half the skin, must give every grain exactly the contacts a brute-force O(N^2) check finds at
// the positions of each substep, and so the same results whatever the skin; a grain with more
// shape contacts than slots keeps the ones that hold it.
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_solver.h"  // grn_contact_offset: the contact-state buffer
#include "grn_test_util.h"

namespace {

using grn_test::MakeSolver;
using grn_test::SolverPtr;

constexpr int kGrains = 600;

grnParams Params(float skin) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = kGrains;
  p.skin = skin;
  return p;
}

// grains in a container: a loose random column moving at up to 0.4 m/s (some substeps keep the
// lists, some rebuild them), plus 40 grains: with clump, heaped on one spot, more than a
// neighbour list holds, so those grains search the hash instead (and the lists are never kept
// past a substep); else in a line above the column
void Load(grnSolver* s, std::vector<grnShape>* walls, bool clump = true) {
  const grnParams* p = grn_params(s);
  const float r = p->radius, c[3] = {0, 0, 0.15f}, h[3] = {0.04f, 0.04f, 0.15f};
  *walls = grn_test::Container(c, h, 0.5f);
  const float in = 0.04f - 1.2f * r;
  const float lo[3] = {-in, -in, 1.2f * r}, hi[3] = {in, in, 0.28f};
  std::vector<float> pos =
      grn_test::JitteredLattice(kGrains - 40, lo, hi, 2.6f * r, 0.2f * r, 11);
  ASSERT_EQ(pos.size(), 3u * (kGrains - 40));
  std::mt19937 rng(12);
  std::normal_distribution<float> heap(0.0f, 0.4f * r);
  for (int i = 0; i < 40; i++) {
    pos.push_back(0.02f + heap(rng));
    pos.push_back(0.02f + heap(rng));
    pos.push_back(0.15f + (clump ? heap(rng) : 0.15f + 2.6f * r * (i + 1)));
  }
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> vel(pos.size());
  for (float& v : vel) v = u(rng);
  ASSERT_EQ(grn_set_shapes(s, (int)walls->size(), walls->data()), grnOK);
  ASSERT_EQ(grn_set_grains(s, (int)(pos.size() / 3), pos.data(), vel.data()), grnOK);
}

// each grain's partners closer than the cutoff (strict <, float arithmetic as the solver), by
// index, at most the slots a grain has
std::vector<std::vector<int>> BrutePartners(const std::vector<float>& pos, float cutoff) {
  int n = (int)(pos.size() / 3);
  float cut2 = cutoff * cutoff;
  std::vector<std::vector<int>> out(n);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      if (j == i) continue;
      float rx = pos[3 * i] - pos[3 * j];
      float ry = pos[3 * i + 1] - pos[3 * j + 1];
      float rz = pos[3 * i + 2] - pos[3 * j + 2];
      if (rx * rx + ry * ry + rz * rz < cut2) out[i].push_back(j);
    }
    if (out[i].size() > GRN_MAX_PAIRS) out[i].resize(GRN_MAX_PAIRS);
  }
  return out;
}

// each grain's partners in the contact state of the last substep (the contacts found at the
// positions it started from)
std::vector<std::vector<int>> SolverPartners(const grnSolver* s) {
  int cap = grn_params(s)->capacity, n = grn_count(s);
  std::vector<char> buf(grn_contact_state_bytes(cap));
  EXPECT_EQ(grn_get_contacts(s, buf.data()), grnOK);
  const int* npair = (const int*)(buf.data() + grn_contact_offset(grnCONTACT_npair, cap));
  const int* pair = (const int*)(buf.data() + grn_contact_offset(grnCONTACT_pair, cap));
  std::vector<std::vector<int>> out(n);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < npair[i]; k++) out[i].push_back(pair[GRN_STATE_SLOT(k, i, cap)]);
  }
  return out;
}

TEST(GrnCollide, NeighbourListsFindExactlyTheBruteForceContacts) {
  SolverPtr s = MakeSolver(Params(0.5f));
  ASSERT_TRUE(s);
  std::vector<grnShape> walls;
  Load(s.get(), &walls);
  ASSERT_FALSE(HasFatalFailure());
  const grnParams* p = grn_params(s.get());
  const float cutoff = 2 * p->radius + p->margin * p->radius;
  std::vector<float> pos(3 * kGrains);
  int contacts = 0, crowded = 0;
  for (int step = 0; step < 100; step++) {
    // the contacts of a substep are found at the positions it starts from
    ASSERT_EQ(grn_get_grains(s.get(), pos.data(), nullptr), grnOK);
    ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
    std::vector<std::vector<int>> want = BrutePartners(pos, cutoff);
    std::vector<std::vector<int>> got = SolverPartners(s.get());
    for (int i = 0; i < kGrains; i++) {
      ASSERT_EQ(got[i], want[i]) << "grain " << i << " at substep " << step;
      contacts += (int)want[i].size();
      crowded += want[i].size() == GRN_MAX_PAIRS;
    }
  }
  // the scene has contacts, and grains with more partners than slots
  EXPECT_GT(contacts, 100 * kGrains / 2);
  EXPECT_GT(crowded, 0);
}

// two grains closing head-on, each as fast as the other, from just beyond the list distance: the
// lists must be rebuilt before together they close the skin (each moves half of it)
TEST(GrnCollide, HeadOnPairIsListedBeforeItTouches) {
  grnParams p = Params(0.5f);
  p.gravity[2] = 0;
  SolverPtr s = MakeSolver(p);
  ASSERT_TRUE(s);
  const float cutoff = 2 * p.radius + p.margin * p.radius, reach = cutoff + p.skin * p.radius;
  const float gap = 1.01f * reach, speed = 0.02f * p.radius / p.dt;
  const float pos[6] = {-0.5f * gap, 0, 0, 0.5f * gap, 0, 0};
  const float vel[6] = {speed, 0, 0, -speed, 0, 0};
  ASSERT_EQ(grn_set_grains(s.get(), 2, pos, vel), grnOK);
  std::vector<float> now(6);
  int touching = 0;
  for (int step = 0; step < 60; step++) {
    ASSERT_EQ(grn_get_grains(s.get(), now.data(), nullptr), grnOK);
    ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
    std::vector<std::vector<int>> want = BrutePartners(now, cutoff);
    ASSERT_EQ(SolverPartners(s.get()), want) << "substep " << step;
    touching += !want[0].empty();
  }
  EXPECT_GT(touching, 0) << "the grains never came within the cutoff";
}

TEST(GrnCollide, SkinDoesNotChangeResults) {
  std::vector<float> want_pos, want_vel;
  for (float skin : {0.0f, 0.1f, 0.5f, 2.0f}) {
    SCOPED_TRACE(testing::Message() << "skin " << skin);
    SolverPtr s = MakeSolver(Params(skin));
    ASSERT_TRUE(s);
    std::vector<grnShape> walls;
    Load(s.get(), &walls);
    ASSERT_FALSE(HasFatalFailure());
    for (int k = 0; k < 8; k++) ASSERT_EQ(grn_advance(s.get(), 10), grnOK);
    grn_test::Grains g = grn_test::Read(s.get());
    if (want_pos.empty()) {
      want_pos = g.pos, want_vel = g.vel;
      continue;
    }
    // bitwise: every substep had the same contacts, in the same order
    EXPECT_EQ(std::memcmp(g.pos.data(), want_pos.data(), want_pos.size() * sizeof(float)), 0);
    EXPECT_EQ(std::memcmp(g.vel.data(), want_vel.data(), want_vel.size() * sizeof(float)), 0);
  }
}

// the plugin uploads every step what it downloaded: the solver may keep its neighbour lists then,
// and the run must go on bit for bit as if nothing had been uploaded
TEST(GrnCollide, UploadingTheSolversOwnGrainsChangesNothing) {
  SolverPtr a = MakeSolver(Params(0.5f)), b = MakeSolver(Params(0.5f));
  ASSERT_TRUE(a && b);
  std::vector<grnShape> walls;
  Load(a.get(), &walls, false);
  Load(b.get(), &walls, false);
  ASSERT_FALSE(HasFatalFailure());
  std::vector<char> contacts(grn_contact_state_bytes(kGrains));
  for (int step = 0; step < 20; step++) {
    ASSERT_EQ(grn_advance(a.get(), 4), grnOK);
    grn_test::Grains g = grn_test::Read(b.get());
    ASSERT_EQ(grn_get_contacts(b.get(), contacts.data()), grnOK);
    grn_test::Write(b.get(), g);
    ASSERT_EQ(grn_set_contacts(b.get(), contacts.data()), grnOK);
    ASSERT_EQ(grn_advance(b.get(), 4), grnOK);
    grn_test::Grains ga = grn_test::Read(a.get()), gb = grn_test::Read(b.get());
    ASSERT_EQ(std::memcmp(ga.pos.data(), gb.pos.data(), ga.pos.size() * sizeof(float)), 0)
        << "step " << step;
    ASSERT_EQ(std::memcmp(ga.vel.data(), gb.vel.data(), ga.vel.size() * sizeof(float)), 0)
        << "step " << step;
    ASSERT_EQ(ga.angvel, gb.angvel) << "step " << step;
  }
}

// an upload that moves grains (here each grain onto the next one's spot, a permutation, and one
// grain dropped onto another) must not reuse lists built for the old positions, even when the
// grains had hardly moved since the lists were built
TEST(GrnCollide, UploadThatMovesGrainsFindsTheBruteForceContacts) {
  SolverPtr s = MakeSolver(Params(0.5f));
  ASSERT_TRUE(s);
  std::vector<grnShape> walls;
  Load(s.get(), &walls, false);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(grn_advance(s.get(), 4), grnOK);
  // at rest, then one substep: the lists are fresh and nothing has moved far since
  grn_test::Grains g = grn_test::Read(s.get());
  std::vector<float> rest(g.vel.size(), 0.0f);
  ASSERT_EQ(grn_set_grains(s.get(), kGrains, g.pos.data(), rest.data()), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
  g = grn_test::Read(s.get());
  const grnParams* p = grn_params(s.get());
  const float cutoff = 2 * p->radius + p->margin * p->radius;
  std::vector<float> moved(g.pos.size());
  for (int i = 0; i < kGrains; i++) {
    for (int c = 0; c < 3; c++) moved[3 * i + c] = g.pos[3 * ((i + 1) % kGrains) + c];
  }
  for (int c = 0; c < 3; c++) moved[c] = moved[3 * 300 + c] + (c == 0 ? 1.5f * p->radius : 0);
  ASSERT_EQ(grn_set_grains(s.get(), kGrains, moved.data(), rest.data()), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
  std::vector<std::vector<int>> want = BrutePartners(moved, cutoff), got = SolverPartners(s.get());
  ASSERT_FALSE(want[0].empty());
  for (int i = 0; i < kGrains; i++) ASSERT_EQ(got[i], want[i]) << "grain " << i;
}

// neighbour lists hold each pair within its own contact distance, so new radii need new lists even
// where the grains did not move: two small grains apart, one substep (lists built), the same
// positions put back with radii that make them overlap: the contact is found and pushes them apart
// (fails when the lists are kept: nothing would resolve the overlap)
TEST(GrnCollide, NewRadiiAtTheSamePositionsFindTheirContacts) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = 2;
  p.gravity[2] = 0;
  SolverPtr s = grn_test::MakeSolver(p);
  ASSERT_TRUE(s);
  const float pos[6] = {0, 0, 0, 0.006f, 0, 0}, small[2] = {0.001f, 0.001f};
  ASSERT_EQ(grn_set_grains(s.get(), 2, pos, nullptr), grnOK);
  ASSERT_EQ(grn_set_radii(s.get(), small), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 1), grnOK);
  grn_test::Grains g = grn_test::Read(s.get());
  ASSERT_EQ(std::memcmp(g.pos.data(), pos, sizeof(pos)), 0);  // nothing moved
  const float big[2] = {0.005f, 0.005f};
  ASSERT_EQ(grn_set_grains(s.get(), 2, g.pos.data(), g.vel.data()), grnOK);
  ASSERT_EQ(grn_set_radii(s.get(), big), grnOK);
  ASSERT_EQ(grn_advance(s.get(), 200), grnOK);
  g = grn_test::Read(s.get());
  double dist = std::fabs((double)g.pos[3] - g.pos[0]);
  EXPECT_GT(dist, 0.0099) << "the overlap of the new radii was not resolved";
}

// a floor of coplanar, overlapping boxes (as the silo benchmark's floor around its orifice) with
// a wall listed after them: a grain sliding over that floor into the wall touches more shapes
// than it has slots (GRN_MAX_SHAPE_CONTACTS); it must keep the wall, the deepest, where keeping
// the first found let it pass through the wall. pj and dem; the wall face is the truth
TEST(GrnCollide, GrainOnAFloorOfManyPiecesIsStoppedByTheWall) {
  constexpr int kPieces = GRN_MAX_SHAPE_CONTACTS + 2;
  constexpr float kFace = 0.02f;  // the wall's face [m]
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    grnParams p;
    grn_default_params(&p);
    p.capacity = 1;
    p.model = model;
    p.max_shapes = kPieces + 1;
    if (model == grnMODEL_DEM) {
      p.dt = (float)(GRN_DEM_DT_FRACTION * grn_dem_time_scale(&p, p.radius));
    }
    SolverPtr s = MakeSolver(p);
    ASSERT_TRUE(s);
    std::vector<grnShape> shapes;
    for (int k = 0; k < kPieces; k++) {
      grnShape floor = grn_test::StaticShape(grnSHAPE_BOX);
      const float size[3] = {0.05f, 0.05f, 0.01f}, pos[3] = {-0.002f * k, 0.001f * k, -0.01f};
      std::memcpy(floor.size, size, sizeof(size));
      std::memcpy(floor.pos, pos, sizeof(pos));
      floor.friction = 0.3f;
      shapes.push_back(floor);
    }
    grnShape wall = grn_test::StaticShape(grnSHAPE_BOX);
    const float size[3] = {0.01f, 0.05f, 0.05f}, pos[3] = {kFace + 0.01f, 0, 0.05f};
    std::memcpy(wall.size, size, sizeof(size));
    std::memcpy(wall.pos, pos, sizeof(pos));
    wall.friction = 0.3f;
    shapes.push_back(wall);
    ASSERT_EQ(grn_set_shapes(s.get(), (int)shapes.size(), shapes.data()), grnOK);
    const float x0[3] = {0, 0, p.radius}, v0[3] = {0.5f, 0, 0};
    ASSERT_EQ(grn_set_grains(s.get(), 1, x0, v0), grnOK);
    // 0.2 s in steps of about a millisecond: the grain reaches the wall after some 0.04 s
    int per = std::max(1, (int)std::lround(1e-3 / p.dt));
    double reach = 0;
    for (double t = 0; t < 0.2; t += per * p.dt) {
      ASSERT_EQ(grn_advance(s.get(), per), grnOK);
      grn_test::Grains g = grn_test::Read(s.get());
      reach = std::max(reach, (double)g.pos[0] + p.radius);
    }
    EXPECT_LT(reach, kFace + 0.1 * p.radius)
        << (model == grnMODEL_PJ ? "pj" : "dem") << ": the grain went into the wall";
    EXPECT_GT(reach, kFace - 0.1 * p.radius)
        << (model == grnMODEL_PJ ? "pj" : "dem") << ": the grain never reached the wall";
  }
}

}  // namespace
