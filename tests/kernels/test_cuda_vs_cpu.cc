// the cuda backend against the cpu backend where a broken gpu would show (issue 16): whole pours
// compared byte for byte (ordered mode runs the same per-grain functions in the same order on both,
// --fmad=false against -ffp-contract=off), the paths the small tests never reach (the ordered
// wrench with several grains per thread, overflowing neighbour lists and contact slots, unordered
// mode, two-way coupling, solvers on several host threads) and both contact models. the gpu tests
// skip, saying why, where no cuda device is usable, before any cpu work; the CpuOnly tests check
// the cpu half of a claim here.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "granular.h"
#include "grn_rigid.h"   // the quaternion arithmetic the solver turns grains by
#include "grn_solver.h"  // grn_contact_offset, grn_math.h
#include "grn_test_util.h"

namespace {

using grn_test::MaxDiff;
using grn_test::SolverPtr;

constexpr float kR = 0.005f;  // grain radius [m]

//---------------------------------- scenes and runs -----------------------------------------------

// a solver's parameters, its bed and shapes, and the bodies' dynamics (empty: kinematic bodies)
struct Scene {
  grnParams params;
  std::vector<float> pos, vel, angvel;  // angvel empty: the grains start without spin
  std::vector<grnShape> shapes;
  std::vector<float> mobility, accel;  // (max_bodies x 36), (max_bodies x 6)
};

// everything a run leaves: grains, contact state, each body's wrench and impulse integral
struct Outcome {
  int n = 0;
  std::vector<float> pos, vel, angvel, orient;
  std::vector<char> contacts;
  std::vector<double> wrench, impint;
};

// a solver on backend; a cpu solver takes omp_get_max_threads() threads when created, so threads
// > 0 sets that for the creation only
SolverPtr Create(const grnParams& p, grnBackend backend, int threads = 0) {
  const int before = omp_get_max_threads();
  if (threads > 0) omp_set_num_threads(threads);
  grnSolver* s = nullptr;
  grnStatus st = grn_create(&p, backend, &s);
  omp_set_num_threads(before);
  EXPECT_EQ(st, grnOK) << grn_backend_name(backend) << ": " << grn_status_string(st);
  return SolverPtr(s);
}

SolverPtr Load(const Scene& sc, grnBackend backend, int threads = 0) {
  SolverPtr s = Create(sc.params, backend, threads);
  if (!s) return s;
  EXPECT_EQ(grn_set_shapes(s.get(), (int)sc.shapes.size(), sc.shapes.data()), grnOK);
  EXPECT_EQ(grn_set_grains(s.get(), (int)(sc.pos.size() / 3), sc.pos.data(), sc.vel.data()),
            grnOK);
  if (!sc.angvel.empty()) {
    EXPECT_EQ(grn_set_angvel(s.get(), sc.angvel.data()), grnOK);
  }
  if (!sc.mobility.empty()) {
    EXPECT_EQ(grn_set_body_dynamics(s.get(), sc.mobility.data(),
                                    sc.accel.empty() ? nullptr : sc.accel.data()), grnOK);
  }
  return s;
}

Outcome Collect(const grnSolver* s) {
  Outcome o;
  o.n = grn_count(s);
  grn_test::Grains g = grn_test::Read(s);
  o.pos = g.pos;
  o.vel = g.vel;
  o.angvel = g.angvel;
  o.orient = g.orient;
  o.contacts.resize(grn_contact_state_bytes(grn_params(s)->capacity));
  EXPECT_EQ(grn_get_contacts(s, o.contacts.data()), grnOK);
  const int nb = grn_params(s)->max_bodies;
  o.wrench.resize(6 * (size_t)nb);
  o.impint.resize(6 * (size_t)nb);
  if (nb) {
    EXPECT_EQ(grn_get_wrenches(s, o.wrench.data()), grnOK);
    EXPECT_EQ(grn_get_impulse_integrals(s, o.impint.data()), grnOK);
  }
  return o;
}

// the scene advanced nsub substeps in one call on backend (cpu: with threads threads)
Outcome RunScene(const Scene& sc, grnBackend backend, int nsub, int threads = 0) {
  SolverPtr s = Load(sc, backend, threads);
  if (!s) return Outcome();
  grnStatus st = grn_advance(s.get(), nsub);
  EXPECT_EQ(st, grnOK) << grn_backend_name(backend) << ": " << grn_status_string(st);
  return Collect(s.get());
}

// a pour: grains on a jittered lattice in a walled box, about 60 layers deep, with random
// velocities up to 0.2 m/s; a sphere (body 0) moves sideways through the bed spinning (grains
// carved out around it), a box (body 1) comes down fast onto the top. the grains collide, land and
// pile; every contact kind and both bodies are busy from the first substeps
Scene Pour(int n, int model, unsigned seed) {
  Scene sc;
  grnParams& p = sc.params;
  grn_default_params(&p);
  p.model = model;
  p.capacity = n;
  p.radius = kR;
  p.max_shapes = 8;
  p.max_bodies = 2;
  if (model == grnMODEL_DEM) p.dt = (float)(GRN_DEM_DT_FRACTION * grn_dem_time_scale(&p, kR));

  // gaps of 0.2 r (pj), 0.02 r (dem, whose substep is 15 times shorter: contacts as soon)
  const float a = (model == grnMODEL_DEM ? 2.02f : 2.2f) * kR;
  const int side = std::max(8, (int)std::ceil(std::sqrt(n / 60.0)));
  const float half = 0.5f * side * a + kR;
  const float layers = (float)n / (side * side);
  const float R = 0.3f * half, sx = -0.3f * half, sz = 1.2f * kR + 0.4f * layers * a;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jit(-0.05f * kR, 0.05f * kR), vel(-0.2f, 0.2f);
  float top = 0;
  for (int k = 0; (int)sc.pos.size() < 3 * n; k++) {
    for (int j = 0; j < side && (int)sc.pos.size() < 3 * n; j++) {
      for (int i = 0; i < side && (int)sc.pos.size() < 3 * n; i++) {
        float x = -0.5f * side * a + a * (i + 0.5f) + jit(rng);
        float y = -0.5f * side * a + a * (j + 0.5f) + jit(rng);
        float z = 1.2f * kR + a * k + jit(rng);
        float dx = x - sx, dz = z - sz;
        if (dx * dx + y * y + dz * dz < (R + a - kR) * (R + a - kR)) continue;
        sc.pos.insert(sc.pos.end(), {x, y, z});
        top = std::max(top, z + kR);
      }
    }
  }
  for (size_t i = 0; i < sc.pos.size(); i++) sc.vel.push_back(vel(rng));

  const float c[3] = {0, 0, top}, h[3] = {half, half, top};
  sc.shapes = grn_test::Container(c, h, 0.5f);
  grnShape sphere = grn_test::StaticShape(grnSHAPE_SPHERE);
  sphere.size[0] = R;
  sphere.rbound = R;
  sphere.pos[0] = sphere.com[0] = sx;
  sphere.pos[2] = sphere.com[2] = sz;
  sphere.linvel[0] = 0.5f;
  sphere.angvel[2] = 5.0f;
  sphere.friction = 0.6f;
  sphere.spin_friction = sphere.roll_friction = -1;
  sphere.body = 0;
  sc.shapes.push_back(sphere);
  grnShape box = grn_test::StaticShape(grnSHAPE_BOX);
  box.size[0] = box.size[1] = 0.25f * half;
  box.size[2] = 0.02f;
  box.rbound = std::sqrt(2 * box.size[0] * box.size[0] + box.size[2] * box.size[2]);
  box.pos[2] = box.com[2] = top + box.size[2] + 0.1f * kR;
  box.linvel[2] = -3.0f;
  box.friction = 0.5f;
  box.spin_friction = box.roll_friction = -1;
  box.body = 1;
  sc.shapes.push_back(box);
  return sc;
}

// the pour's sphere made a free body of density 2000 kg/m^3 under gravity (two-way coupled), the
// box left kinematic (zero mobility)
void MakeSphereMobile(Scene* sc) {
  const float R = sc->shapes[sc->shapes.size() - 2].size[0];
  const double M = 2000 * 4.0 / 3.0 * grn_test::kPi * R * R * R, I = 0.4 * M * R * R;
  sc->mobility.assign(36 * (size_t)sc->params.max_bodies, 0.0f);
  sc->accel.assign(6 * (size_t)sc->params.max_bodies, 0.0f);
  for (int a = 0; a < 6; a++) sc->mobility[6 * a + a] = (float)(a < 3 ? 1 / M : 1 / I);
  sc->accel[2] = -9.81f;
}

//---------------------------------- comparisons ---------------------------------------------------

// which contact-state array a byte offset of a buffer for capacity cap falls in
std::string ContactArrayAt(size_t byte, int cap) {
  for (int a = 0; a < grnNCONTACT_ARRAYS; a++) {
    if (byte < grn_contact_offset(a + 1, cap)) return grn_contact_arrays[a].name;
  }
  return "past the end";
}

// a and b are the same byte for byte: grains (orientations too) and contact state (the first
// difference named)
void ExpectBitwise(const Outcome& a, const Outcome& b, int cap, const std::string& what) {
  ASSERT_EQ(a.n, b.n) << what;
  ASSERT_GT(a.n, 0) << what;
  const std::vector<float>* arrays[4][2] = {{&a.pos, &b.pos}, {&a.vel, &b.vel},
                                            {&a.angvel, &b.angvel}, {&a.orient, &b.orient}};
  const char* names[4] = {"positions", "velocities", "angular velocities", "orientations"};
  const size_t width[4] = {3, 3, 3, 4};
  for (int k = 0; k < 4; k++) {
    const std::vector<float>& x = *arrays[k][0];
    const std::vector<float>& y = *arrays[k][1];
    ASSERT_EQ(x.size(), y.size());
    if (std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0) continue;
    size_t i = 0;
    while (std::memcmp(&x[i], &y[i], sizeof(float)) == 0) i++;
    size_t count = 0;
    for (size_t j = 0; j < x.size(); j++) count += std::memcmp(&x[j], &y[j], sizeof(float)) != 0;
    const size_t g = i / width[k];
    ADD_FAILURE() << what << ": " << names[k] << " differ in " << count << " numbers, first grain "
                  << g << " component " << i % width[k] << ": " << x[i] << " vs " << y[i]
                  << " (its spin " << a.angvel[3 * g] << " " << a.angvel[3 * g + 1] << " "
                  << a.angvel[3 * g + 2] << " rad/s)";
  }
  ASSERT_EQ(a.contacts.size(), b.contacts.size());
  if (std::memcmp(a.contacts.data(), b.contacts.data(), a.contacts.size()) != 0) {
    size_t i = 0;
    while (a.contacts[i] == b.contacts[i]) i++;
    ADD_FAILURE() << what << ": contact states differ, first at byte " << i << " (array "
                  << ContactArrayAt(i, cap) << ")";
  }
}

// largest |a - b| of each quantity of two runs of one scene
struct Spread {
  double pos = 0, vel = 0, angvel = 0, wrench = 0, impint = 0;
};

Spread Diff(const Outcome& a, const Outcome& b) {
  Spread s;
  s.pos = MaxDiff(a.pos, b.pos);
  s.vel = MaxDiff(a.vel, b.vel);
  s.angvel = MaxDiff(a.angvel, b.angvel);
  s.wrench = MaxDiff(a.wrench, b.wrench);
  s.impint = MaxDiff(a.impint, b.impint);
  return s;
}

Spread Max(const Spread& a, const Spread& b) {
  Spread s;
  s.pos = std::fmax(a.pos, b.pos);
  s.vel = std::fmax(a.vel, b.vel);
  s.angvel = std::fmax(a.angvel, b.angvel);
  s.wrench = std::fmax(a.wrench, b.wrench);
  s.impint = std::fmax(a.impint, b.impint);
  return s;
}

// the rounding envelope: a run whose only difference from a reference is the order of its float
// sums (unordered contact lists, atomics, another split of the body sums over threads) departs
// from it by a rounding perturbation that the contacts then grow. the cpu gives samples of that
// departure for the same scene, at the same substep count: E = the largest difference among runs
// that differ only in such orders (run-to-run thread races, thread counts, a 1-ulp change of an
// input of the same kind). a gpu run is one more such sample; its first perturbation is a few
// ulps like theirs, and growth over the same substeps acts on it alike, so it stays within a
// small factor of E. kEnvelope = 10 leaves a factor of about 3 in the size of the seed perturbation
// beyond the largest sample (growth is at most linear in the seed while it stays small, which the
// power check below enforces), plus a factor of 3 for sampling. a broken gpu path (a lost
// impulse, a body that does not answer) departs by the physics' own scale, orders of magnitude
// above it: the test checks that kEnvelope E stays far below that scale, else it could not tell
constexpr double kEnvelope = 10;

void ExpectWithinEnvelope(const Outcome& gpu, const Outcome& ref, const Spread& e,
                          const std::string& what) {
  Spread d = Diff(gpu, ref);
  std::printf("[ measure  ] %s: gpu - cpu %.3g m, %.3g m/s, %.3g rad/s, wrench %.3g, impulse "
              "integral %.3g; cpu envelope %.3g m, %.3g m/s, %.3g rad/s, %.3g, %.3g\n",
              what.c_str(), d.pos, d.vel, d.angvel, d.wrench, d.impint, e.pos, e.vel, e.angvel,
              e.wrench, e.impint);
  EXPECT_LE(d.pos, kEnvelope * e.pos) << what << ": positions [m]";
  EXPECT_LE(d.vel, kEnvelope * e.vel) << what << ": velocities [m/s]";
  EXPECT_LE(d.angvel, kEnvelope * e.angvel) << what << ": angular velocities [rad/s]";
  EXPECT_LE(d.wrench, kEnvelope * e.wrench) << what << ": wrenches [N, N m]";
  EXPECT_LE(d.impint, kEnvelope * e.impint) << what << ": impulse integrals";
}

// the envelope can tell a broken run from a rounded one: kEnvelope E is small against the
// motion (a grain's radius; the largest speed; the bodies' own wrench and impulse integral)
void ExpectEnvelopeHasPower(const Outcome& ref, const Spread& e, int nsub_with_bodies) {
  double wmax = 0, imax = 0;
  for (double w : ref.wrench) wmax = std::fmax(wmax, std::fabs(w));
  for (double w : ref.impint) imax = std::fmax(imax, std::fabs(w));
  EXPECT_GT(e.pos, 0) << "the orders differ, so the envelope cannot be empty";
  EXPECT_LT(kEnvelope * e.pos, 0.1 * kR) << "positions [m]: too long a run to tell rounding";
  EXPECT_LT(kEnvelope * e.vel, 0.1 * grn_test::MaxSpeed(ref.vel)) << "velocities [m/s]";
  EXPECT_GT(wmax, 0) << "the bodies touch grains";
  EXPECT_LT(kEnvelope * e.wrench, 0.1 * wmax) << "wrenches";
  if (nsub_with_bodies) {
    EXPECT_GT(imax, 0);
    EXPECT_LT(kEnvelope * e.impint, 0.1 * imax) << "impulse integrals";
  }
}

// grains with at least one grain contact, from a contact state
int GrainsInContact(const Outcome& o, int cap) {
  const int* npair = (const int*)(o.contacts.data() + grn_contact_offset(grnCONTACT_npair, cap));
  int count = 0;
  for (int i = 0; i < o.n; i++) count += npair[i] > 0;
  return count;
}

//---------------------------------- bitwise pours -------------------------------------------------

// ordered mode without mobile bodies: every grain's result is a function of the grains and shapes
// alone, computed by the same functions in the same order on both backends, so the pour must
// come out byte for byte the same (positions, velocities, spins and the contact state). with the
// default sorted broadphase the solvers keep their grains in their lists' order (grn_sorted.h):
// this also checks the gpu's gather kernels and its wrench sums over the caller's order
TEST(CudaVsCpu, PourIsBitwiseTheCpusBothModels) {
  SKIP_WITHOUT_CUDA();
  const int n = 300000, nsub = 200;
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    const std::string what = model == grnMODEL_PJ ? "pj pour" : "dem pour";
    Scene sc = Pour(n, model, 21);
    ASSERT_EQ((int)sc.pos.size(), 3 * n);
    Outcome cpu = RunScene(sc, grnBACKEND_CPU, nsub);
    Outcome gpu = RunScene(sc, grnBACKEND_CUDA, nsub);
    ExpectBitwise(cpu, gpu, n, what);
    // the comparison is over a busy bed: grains moved, touched each other and the bodies
    EXPECT_GT(MaxDiff(cpu.pos, sc.pos), kR) << what;
    EXPECT_GT(GrainsInContact(cpu, n), n / 10) << what;
    EXPECT_NE(cpu.wrench[2], 0.0) << what << ": the sphere touches grains";
    EXPECT_NE(cpu.wrench[8], 0.0) << what << ": the box touches grains";
  }
}

// the same with the hash broadphase (its buckets linked lists the gpu's threads push grains onto
// by compare-and-swap; the solvers keep the caller's order)
TEST(CudaVsCpu, HashPourIsBitwiseTheCpus) {
  SKIP_WITHOUT_CUDA();
  const int n = 100000, nsub = 100;
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    const std::string what = model == grnMODEL_PJ ? "pj hash pour" : "dem hash pour";
    Scene sc = Pour(n, model, 23);
    sc.params.broadphase = grnBROADPHASE_HASH;
    Outcome cpu = RunScene(sc, grnBACKEND_CPU, nsub);
    Outcome gpu = RunScene(sc, grnBACKEND_CUDA, nsub);
    ExpectBitwise(cpu, gpu, n, what);
    EXPECT_GT(GrainsInContact(cpu, n), n / 10) << what;
    EXPECT_NE(cpu.wrench[2], 0.0) << what << ": the sphere touches grains";
  }
}

// the cpu half of the claim above: in ordered mode without mobile bodies the grains do not
// depend on how the cpu splits them over threads (the gpu splits them another way again)
TEST(CudaVsCpuCpuOnly, OrderedPourDoesNotDependOnTheThreadCount) {
  const int n = 6000, nsub = 60;
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    const std::string what = model == grnMODEL_PJ ? "pj pour" : "dem pour";
    Scene sc = Pour(n, model, 22);
    Outcome one = RunScene(sc, grnBACKEND_CPU, nsub, 1);
    Outcome two = RunScene(sc, grnBACKEND_CPU, nsub, 2);
    ExpectBitwise(one, two, n, what + ", 1 vs 2 threads");
    EXPECT_GT(MaxDiff(one.pos, sc.pos), 0.1 * kR) << what;
    EXPECT_GT(GrainsInContact(one, n), n / 20) << what;
  }
}

//---------------------------------- the wrench of many grains per thread ------------------------

// grains alone against three planes of three bodies (a floor: body 0, a ceiling: body 5, a wall:
// body 66, whose mask bit aliases body 2's), no gravity, each moving onto its plane at one of
// four speeds; a sphere of body 69 that nothing touches. grain i is on a grid of spacing 3 r, so
// it touches no other grain (the list reach is 2.6 r)
Scene AgainstThreePlanes(int n) {
  Scene sc;
  grnParams& p = sc.params;
  grn_default_params(&p);
  p.capacity = n;
  p.radius = kR;
  p.gravity[2] = 0;
  p.max_shapes = 4;
  p.max_bodies = 70;
  const float s = 3 * kR;
  const int side = (int)std::ceil(std::sqrt(n / 3.0));
  for (int i = 0; i < n; i++) {
    const int g = i / 3, a = g % side, b = g / side;
    const float v = 0.1f + 0.05f * (g % 4);
    switch (i % 3) {
      case 0: sc.pos.insert(sc.pos.end(), {0.5f + s * a, s * b, kR});
              sc.vel.insert(sc.vel.end(), {0, 0, -v}); break;
      case 1: sc.pos.insert(sc.pos.end(), {0.5f + s * a, s * b, 10 - kR});
              sc.vel.insert(sc.vel.end(), {0, 0, v}); break;
      default: sc.pos.insert(sc.pos.end(), {kR, s * a, 1 + s * b});
               sc.vel.insert(sc.vel.end(), {-v, 0, 0});
    }
  }
  grnShape floor = grn_test::StaticShape(grnSHAPE_PLANE);
  floor.friction = 0.5f;
  floor.spin_friction = floor.roll_friction = -1;
  floor.body = 0;
  grnShape ceiling = floor;  // normal -z: rotated by pi about x
  const float flip[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1};
  std::memcpy(ceiling.mat, flip, sizeof(flip));
  ceiling.pos[2] = 10;
  ceiling.com[0] = 1;
  ceiling.com[1] = 2;
  ceiling.com[2] = 10;
  ceiling.body = 5;
  grnShape wall = floor;     // normal +x
  const float turn[9] = {0, 0, 1, 0, 1, 0, -1, 0, 0};
  std::memcpy(wall.mat, turn, sizeof(turn));
  wall.com[1] = 1;
  wall.com[2] = 5;
  wall.body = 66;
  grnShape ball = grn_test::StaticShape(grnSHAPE_SPHERE);
  ball.size[0] = ball.rbound = 0.1f;
  ball.pos[0] = ball.com[0] = -5;
  ball.pos[2] = ball.com[2] = 5;
  ball.body = 69;
  sc.shapes = {floor, ceiling, wall, ball};
  return sc;
}

// each body's wrench over one substep summed on the host from the contact state and the grains'
// positions (which the wrench phase reads before the grains move), with the solver's own float
// expressions per contact (grn_shape_contact_wrench: the plane's normal is its frame's z), the
// terms summed in double; ok is false when some body's terms would not sum exactly in double
std::vector<double> BruteForceWrench(const Scene& sc, const Outcome& o, bool* ok) {
  const int cap = sc.params.capacity, nb = sc.params.max_bodies;
  const char* b = o.contacts.data();
  const int* nshape = (const int*)(b + grn_contact_offset(grnCONTACT_nshape, cap));
  const int* sc_shape = (const int*)(b + grn_contact_offset(grnCONTACT_sc_shape, cap));
  const float* lin = (const float*)(b + grn_contact_offset(grnCONTACT_sc_lin, cap));
  const float* rot = (const float*)(b + grn_contact_offset(grnCONTACT_sc_rot, cap));
  const float inv_dt = -1.0f / sc.params.dt;
  std::vector<std::vector<double>> terms(6 * (size_t)nb);
  for (int i = 0; i < o.n; i++) {
    for (int k = 0; k < nshape[i]; k++) {
      size_t slot = GRN_STATE_SLOT(k, i, cap);
      const grnShape& sh = sc.shapes[sc_shape[slot]];
      if (sh.body < 0) continue;
      grnVec3 n = grn_mulmat(sh.mat, grn_v3(0, 0, 1));
      grnVec3 point = grn_sub(grn_load3(&sc.pos[3 * (size_t)i]), grn_scale(n, kR));
      grnVec3 r = grn_sub(point, grn_load3(sh.com));
      grnVec3 f = grn_scale(grn_load3(lin + 3 * slot), inv_dt);
      grnVec3 t = grn_add(grn_cross(r, f), grn_scale(grn_load3(rot + 3 * slot), inv_dt));
      const float w[6] = {f.x, f.y, f.z, t.x, t.y, t.z};
      for (int j = 0; j < 6; j++) terms[6 * sh.body + j].push_back(w[j]);
    }
  }
  // every float term of magnitude >= 2^e is a multiple of 2^(e - 23), so all terms are multiples
  // of q = 2^(e_min - 23) for the smallest nonzero one; when the sum of their magnitudes is at
  // most 2^53 q, every partial sum, in any order, is exact in double: any correct reduction gives
  // exactly this sum, bit for bit
  *ok = true;
  std::vector<double> out(6 * (size_t)nb, 0.0);
  for (size_t c = 0; c < terms.size(); c++) {
    double sum = 0, mag = 0, q = HUGE_VAL;
    for (double t : terms[c]) {
      sum += t;
      mag += std::fabs(t);
      if (t != 0) q = std::fmin(q, std::ldexp(1.0, std::ilogb(t) - 23));
    }
    if (mag > std::ldexp(q, 53)) *ok = false;
    out[c] = sum;
  }
  return out;
}

// one substep of the three-plane bed on backend; its wrenches against the brute-force sum
void ExpectExactWrench(const Scene& sc, grnBackend backend, int deterministic,
                       std::vector<double>* wrench_out) {
  Scene run = sc;
  run.params.deterministic = deterministic;
  const std::string what = std::string(grn_backend_name(backend)) +
                           (deterministic ? ", ordered" : ", unordered (atomic sums on a gpu)");
  Outcome o = RunScene(run, backend, 1);
  ASSERT_EQ(o.n, sc.params.capacity) << what;
  bool exact = false;
  std::vector<double> brute = BruteForceWrench(sc, o, &exact);
  ASSERT_TRUE(exact) << "the terms would not sum exactly: the test's bed is wrong";
  for (int b : {0, 5, 66}) {
    for (int j = 0; j < 6; j++) {
      EXPECT_EQ(o.wrench[6 * b + j], brute[6 * b + j]) << what << ": body " << b << " component "
                                                       << j;
    }
    EXPECT_NE(brute[6 * b + (b == 66 ? 0 : 2)], 0.0) << "body " << b << " is pushed";
  }
  for (size_t j = 0; j < o.wrench.size(); j++) {
    if (j / 6 == 0 || j / 6 == 5 || j / 6 == 66) continue;
    EXPECT_EQ(o.wrench[j], 0.0) << what << ": body " << j / 6 << " touches nothing";
  }
  if (wrench_out) *wrench_out = o.wrench;
}

// n = 300000 grains: the ordered gpu wrench (at most GRN_CUDA_WRENCH_BLOCKS = 512 blocks of 256
// threads, 131072 threads) gives each thread 2 or 3 grains, and the unordered one adds with
// double atomics. the bed is made so that the sums are exact in any order, so each must equal the
// brute-force sum bit for bit (and the cpu's)
TEST(CudaVsCpu, WrenchOfSeveralGrainsPerThreadIsTheExactSum) {
  SKIP_WITHOUT_CUDA();
  Scene sc = AgainstThreePlanes(300000);
  std::vector<double> cpu, gpu;
  ExpectExactWrench(sc, grnBACKEND_CPU, 1, &cpu);
  ExpectExactWrench(sc, grnBACKEND_CUDA, 1, &gpu);
  ExpectExactWrench(sc, grnBACKEND_CUDA, 0, nullptr);
  EXPECT_EQ(cpu, gpu);
}

// the harness of the test above on the cpu alone: its per-thread partial sums are exact too
TEST(CudaVsCpuCpuOnly, WrenchIsTheExactSum) {
  Scene sc = AgainstThreePlanes(30000);
  ExpectExactWrench(sc, grnBACKEND_CPU, 1, nullptr);
  ExpectExactWrench(sc, grnBACKEND_CPU, 0, nullptr);
}

//---------------------------------- overflowing lists and slots ---------------------------------

// n grains on a cubic lattice of spacing a (jittered by 0.01 r) in a walled box, random
// velocities up to 0.1 m/s
Scene Lattice(int n, int model, float a, float skin, unsigned seed) {
  Scene sc;
  grnParams& p = sc.params;
  grn_default_params(&p);
  p.model = model;
  p.capacity = n;
  p.radius = kR;
  p.skin = skin;
  p.max_shapes = 8;
  if (model == grnMODEL_DEM) p.dt = (float)(GRN_DEM_DT_FRACTION * grn_dem_time_scale(&p, kR));
  const int side = (int)std::ceil(std::cbrt((double)n));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jit(-0.01f * kR, 0.01f * kR), vel(-0.1f, 0.1f);
  for (int i = 0; i < n; i++) {
    const int x = i % side, y = (i / side) % side, z = i / (side * side);
    sc.pos.insert(sc.pos.end(), {a * (x - 0.5f * (side - 1)) + jit(rng),
                                 a * (y - 0.5f * (side - 1)) + jit(rng),
                                 2 * kR + a * z + jit(rng)});
  }
  for (size_t i = 0; i < sc.pos.size(); i++) sc.vel.push_back(vel(rng));
  const float half = 0.5f * a * side + 2 * kR, c[3] = {0, 0, 0.5f}, h[3] = {half, half, 0.5f};
  sc.shapes = grn_test::Container(c, h, 0.5f);
  return sc;
}

// how many of up to 300 grains spread over the bed have more than `more` others closer than dist
int Crowded(const Scene& sc, float dist, int more) {
  const int n = (int)(sc.pos.size() / 3), step = std::max(1, n / 300);
  int crowded = 0;
  for (int i = 0; i < n; i += step) {
    int count = 0;
    for (int j = 0; j < n; j++) {
      float d2 = 0;
      for (int a = 0; a < 3; a++) {
        float d = sc.pos[3 * i + a] - sc.pos[3 * j + a];
        d2 += d * d;
      }
      count += j != i && d2 < dist * dist;
    }
    crowded += count > more;
  }
  return crowded;
}

// neighbour lists that overflow (more than GRN_MAX_NEIGHBORS = 32 grains within the list reach:
// nnbr = -1, the grain walks the list hash every substep), with fewer contacts than slots: a
// touching lattice (6 contacts) with the largest skin, 4 r (reach 6.1 r, about 120 grains)
TEST(CudaVsCpu, OverflowingNeighbourListsAreBitwiseTheCpus) {
  SKIP_WITHOUT_CUDA();
  const int n = 20000, nsub = 40;
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    const std::string what = model == grnMODEL_PJ ? "pj" : "dem";
    Scene sc = Lattice(n, model, 1.98f * kR, 4.0f, 31);
    const float reach = 2 * kR * (1 + 0.5f * (model == grnMODEL_PJ ? sc.params.margin : 0)) +
                        sc.params.skin * kR;
    ASSERT_GT(Crowded(sc, reach, GRN_MAX_NEIGHBORS), 150) << "lists must overflow";
    Outcome cpu = RunScene(sc, grnBACKEND_CPU, nsub);
    Outcome gpu = RunScene(sc, grnBACKEND_CUDA, nsub);
    ExpectBitwise(cpu, gpu, n, what + ", overflowing neighbour lists");
    EXPECT_GT(GrainsInContact(cpu, n), n / 2) << what;
  }
}

// the pairs a contact state holds: each grain's slots, a pair listed by both grains once
long DistinctPairs(const Outcome& o, int cap) {
  const int* npair = (const int*)(o.contacts.data() + grn_contact_offset(grnCONTACT_npair, cap));
  const int* pair = (const int*)(o.contacts.data() + grn_contact_offset(grnCONTACT_pair, cap));
  long count = 0;
  for (int i = 0; i < o.n; i++) {
    for (int k = 0; k < npair[i]; k++) {
      int j = pair[GRN_STATE_SLOT(k, i, cap)];
      bool mirrored = false;
      for (int m = 0; m < npair[j]; m++) mirrored |= pair[GRN_STATE_SLOT(m, j, cap)] == i;
      count += j > i || !mirrored;
    }
  }
  return count;
}

// contact slots that overflow (more than GRN_MAX_PAIRS = 16 grains within the contact distance:
// each grain keeps its 16 smallest partners) in a dense, overlapping lattice of spacing 1.2 r
// (pj: 26 within 2.1 r, dem: 18 within 2 r), its lists overflowing too. a grain's kept partners
// need not keep it, so pj's bed has more than 8 pairs a grain, all of which the gpu must solve
// as the cpu does; dem's grains each compute their own contacts, and a contact one grain dropped
// takes the partner's springs when it comes back
TEST(CudaVsCpu, OverflowingContactSlotsAreBitwiseTheCpus) {
  SKIP_WITHOUT_CUDA();
  const int n = 20000, nsub = 5;
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    const std::string what = model == grnMODEL_PJ ? "pj" : "dem";
    Scene sc = Lattice(n, model, 1.2f * kR, 0.5f, 32);
    const float cutoff = 2 * kR * (1 + 0.5f * (model == grnMODEL_PJ ? sc.params.margin : 0));
    ASSERT_GT(Crowded(sc, cutoff, GRN_MAX_PAIRS), 150) << "slots must overflow";
    Outcome cpu = RunScene(sc, grnBACKEND_CPU, nsub);
    Outcome gpu = RunScene(sc, grnBACKEND_CUDA, nsub);
    const long pairs = DistinctPairs(cpu, n);
    std::printf("[ measure  ] %s dense lattice: %ld distinct contacts, %.2f a grain\n",
                what.c_str(), pairs, (double)pairs / n);
    ExpectBitwise(cpu, gpu, n, what + ", overflowing contact slots");
  }
}

// grains far apart in zero gravity, spinning at rates from 1e-3 to 1e5 rad/s about random axes
// (the turn by w dt halved and squared up to 7 times at the fastest): no contact touches them, so
// what a backend does to the orientations alone shows
Scene FreeSpinningGrains(int n, int model) {
  Scene sc = Lattice(n, model, 4 * kR, 0.5f, 7);
  for (float& g : sc.params.gravity) g = 0;
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> exponent(-3, 5);
  std::normal_distribution<float> axis(0, 1);
  for (int i = 0; i < n; i++) {
    float u[3] = {axis(rng), axis(rng), axis(rng)};
    const float scale =
        std::pow(10.0f, exponent(rng)) / std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (float c : u) sc.angvel.push_back(c * scale);
  }
  return sc;
}

// the cpu turns each grain by exactly grn_rigid.h's arithmetic, rounded as written, which is what
// the gpu computes (a gcc 12 x86-64-v3 build once fused grn_quat_mul's alternating subtractions and
// additions into vfmaddsub despite -ffp-contract=off: kernels/ compiles without slp vectorisation)
TEST(CudaVsCpuCpuOnly, FreeGrainsTurnByTheQuaternionArithmeticAsWritten) {
  const int n = 4096, nsub = 50;
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    Scene sc = FreeSpinningGrains(n, model);
    SolverPtr s = Load(sc, grnBACKEND_CPU);
    ASSERT_TRUE(s);
    const float dt = grn_params(s.get())->dt;
    ASSERT_EQ(grn_advance(s.get(), nsub), grnOK);
    Outcome cpu = Collect(s.get());
    ASSERT_EQ(cpu.angvel, sc.angvel) << "a grain touched another or a wall";
    int differ = 0, first = -1;
    for (int i = 0; i < n; i++) {
      const grnVec3 turn = grn_scale(grn_load3(sc.angvel.data() + 3 * i), dt);
      grnQuat q = grn_quat(1, 0, 0, 0);
      for (int k = 0; k < nsub; k++) q = grn_quat_normalize(grn_quat_mul(grn_quat_exp(turn), q));
      const float want[4] = {q.w, q.x, q.y, q.z};
      if (std::memcmp(want, cpu.orient.data() + 4 * i, sizeof(want)) != 0) {
        differ++;
        if (first < 0) first = i;
      }
    }
    EXPECT_EQ(differ, 0) << (model == grnMODEL_PJ ? "pj" : "dem") << ": grains turned otherwise, "
                         << "the first " << first;
  }
}

TEST(CudaVsCpu, FreeGrainsTurnBitwiseTheCpus) {
  SKIP_WITHOUT_CUDA();
  const int n = 4096, nsub = 50;
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    Scene sc = FreeSpinningGrains(n, model);
    Outcome cpu = RunScene(sc, grnBACKEND_CPU, nsub);
    Outcome gpu = RunScene(sc, grnBACKEND_CUDA, nsub);
    ASSERT_EQ(cpu.angvel, sc.angvel) << "a grain touched another or a wall";
    ExpectBitwise(cpu, gpu, n, model == grnMODEL_PJ ? "pj, free spinning grains"
                                                    : "dem, free spinning grains");
  }
}

//---------------------------------- within rounding -----------------------------------------------

// substeps of the envelope tests: short enough that the rounding has not grown to the physics'
// scale (pj: 40 substeps, 20 ms; at 200 the unordered spread is 0.05 r and 7% of the largest
// speed, too close to tell), long enough for the bodies and most grains to touch (dem: 200 of
// its shorter substeps, 6 ms)
constexpr int kEnvelopeGrains = 60000;
int EnvelopeSubsteps(int model) { return model == grnMODEL_DEM ? 200 : 40; }

// unordered mode: contacts in the order the hash walk meets them (on a gpu, as racing threads
// built the lists), wrenches by atomics: the same contacts and impulses up to the order of float
// sums. reference: the cpu in ordered mode; envelope: two unordered cpu runs (racing threads at
// two thread counts) against it and each other
TEST(CudaVsCpu, UnorderedPourStaysWithinRoundingOfTheCpu) {
  SKIP_WITHOUT_CUDA();
  // two thread counts that race, whatever OMP_NUM_THREADS says (scripts/test.sh gives ctest one)
  const int threads = std::max(4, omp_get_max_threads()), fewer = threads / 2;
  for (int model : {grnMODEL_PJ, grnMODEL_DEM}) {
    const std::string what = model == grnMODEL_PJ ? "pj unordered" : "dem unordered";
    Scene ordered = Pour(kEnvelopeGrains, model, 41), unordered = ordered;
    unordered.params.deterministic = 0;
    const int nsub = EnvelopeSubsteps(model);
    Outcome ref = RunScene(ordered, grnBACKEND_CPU, nsub);
    Outcome u1 = RunScene(unordered, grnBACKEND_CPU, nsub, threads);
    Outcome u2 = RunScene(unordered, grnBACKEND_CPU, nsub, fewer);
    Spread e = Max(Max(Diff(u1, ref), Diff(u2, ref)), Diff(u1, u2));
    ExpectEnvelopeHasPower(ref, e, 0);
    Outcome gpu = RunScene(unordered, grnBACKEND_CUDA, nsub);
    ExpectWithinEnvelope(gpu, ref, e, what);
  }
}

// implicit two-way coupling: the sphere is a free body answering the grains within each substep.
// its answer reads the bodies' impulse sums, which the cpu splits over fixed parts of the grains
// and the gpu over its blocks, so the backends differ by the order of those double sums (the
// rounding to float of the body's velocity change mostly hides it). reference: the cpu (ordered);
// envelope: the cpu with the sphere's mobility 1 ulp larger (a change of the body's answer of the
// size a different rounding makes, in every iterate: so the envelope is never empty)
TEST(CudaVsCpu, MobileBodiesStayWithinRoundingOfTheCpu) {
  SKIP_WITHOUT_CUDA();
  Scene sc = Pour(kEnvelopeGrains, grnMODEL_PJ, 42);
  MakeSphereMobile(&sc);
  Scene nudged = sc;
  for (float& w : nudged.mobility) w = std::nextafter(w, 2 * w);
  Outcome ref = RunScene(sc, grnBACKEND_CPU, EnvelopeSubsteps(grnMODEL_PJ));
  Outcome ulp = RunScene(nudged, grnBACKEND_CPU, EnvelopeSubsteps(grnMODEL_PJ));
  Spread e = Diff(ulp, ref);
  ExpectEnvelopeHasPower(ref, e, EnvelopeSubsteps(grnMODEL_PJ));
  // the coupling matters: the grains slowed the sphere (the body's impulse integral along x
  // opposes its motion)
  EXPECT_LT(ref.impint[0], 0);
  Outcome gpu = RunScene(sc, grnBACKEND_CUDA, EnvelopeSubsteps(grnMODEL_PJ));
  ExpectWithinEnvelope(gpu, ref, e, "pj, free sphere");
}

// the cpu half of the envelope argument: on the cpu, a 1-ulp nudge of the mobility stays within
// the envelope of the unnudged run, far below the physics' scale, and a broken coupling (the
// sphere left kinematic) does not
TEST(CudaVsCpuCpuOnly, MobileEnvelopeSeparatesRoundingFromABrokenCoupling) {
  const int n = 6000, nsub = EnvelopeSubsteps(grnMODEL_PJ);
  Scene sc = Pour(n, grnMODEL_PJ, 43);
  MakeSphereMobile(&sc);
  Scene nudged = sc, broken = sc;
  for (float& w : nudged.mobility) w = std::nextafter(w, 2 * w);
  broken.mobility.clear();
  Outcome ref = RunScene(sc, grnBACKEND_CPU, nsub, 2);
  Outcome ulp = RunScene(nudged, grnBACKEND_CPU, nsub, 2);
  Spread e = Diff(ulp, ref);
  ExpectEnvelopeHasPower(ref, e, nsub);
  Spread d = Diff(RunScene(broken, grnBACKEND_CPU, nsub, 2), ref);
  EXPECT_GT(d.pos, kEnvelope * e.pos) << "a kinematic sphere must fall outside the envelope";
}

// the bodies' sums are taken over fixed parts of the grains, not per thread: a free sphere in a
// pour ends the same bit for bit on 1, 2 and 3 threads (6,000 grains: enough that the solver
// uses them all), its wrench and impulse integral too. the grains are shuffled, so that those
// touching a body are spread over every thread's share (a pour lists them layer by layer). (the
// per-thread sums before were mostly the same too: float terms summed in double are exact while
// their magnitudes span less than 2^29)
TEST(CudaVsCpuCpuOnly, MobileBodiesDoNotDependOnTheThreadCount) {
  const int n = 6000, nsub = EnvelopeSubsteps(grnMODEL_PJ);
  Scene sc = Pour(n, grnMODEL_PJ, 43);
  MakeSphereMobile(&sc);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  const std::vector<float> pos = sc.pos, vel = sc.vel;
  for (int i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) {
      sc.pos[3 * i + c] = pos[3 * order[i] + c];
      sc.vel[3 * i + c] = vel[3 * order[i] + c];
    }
  }
  Outcome one = RunScene(sc, grnBACKEND_CPU, nsub, 1);
  EXPECT_LT(one.impint[0], 0) << "the grains slow the sphere";
  for (int threads : {2, 3}) {
    Outcome more = RunScene(sc, grnBACKEND_CPU, nsub, threads);
    const std::string what = "1 vs " + std::to_string(threads) + " threads, free sphere";
    ExpectBitwise(one, more, n, what);
    EXPECT_EQ(one.wrench, more.wrench) << what;
    EXPECT_EQ(one.impint, more.impint) << what;
  }
}

//---------------------------------- solvers on threads --------------------------------------------

// 8 host threads, each with a cuda solver of its own stepping its own bed (pj and dem pours of
// different seeds) at the same time; each must end as the same bed run alone on one thread does,
// byte for byte (the solvers share the device, nothing else)
TEST(CudaVsCpu, EightSolversOnEightThreadsMatchSingleThreadedRuns) {
  SKIP_WITHOUT_CUDA();
  const int nthread = 8, n = 15000, nsub = 100;
  std::vector<Scene> scenes;
  for (int t = 0; t < nthread; t++) {
    scenes.push_back(Pour(n, t % 2 ? grnMODEL_DEM : grnMODEL_PJ, 100 + t));
  }
  std::vector<Outcome> together(nthread);
  std::vector<std::thread> threads;
  for (int t = 0; t < nthread; t++) {
    threads.emplace_back([&, t] { together[t] = RunScene(scenes[t], grnBACKEND_CUDA, nsub); });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < nthread; t++) {
    Outcome alone = RunScene(scenes[t], grnBACKEND_CUDA, nsub);
    ExpectBitwise(alone, together[t], n, "solver " + std::to_string(t));
    EXPECT_EQ(alone.wrench, together[t].wrench) << "solver " << t;
    EXPECT_GT(MaxDiff(alone.pos, scenes[t].pos), 0.1 * kR) << "solver " << t;
  }
}

}  // namespace
