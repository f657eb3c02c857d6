// plugin/grain_types.c: grain types from MJCF meshes, against closed forms.
// - a box gets the mass rho 8abc and the principal moments m (b^2 + c^2) / 3 ... to 1e-12, with
//   faces or as the convex hull of its vertices;
// - the same box moved off its origin and turned gives the same type about its centre of mass,
//   to the float rounding of mujoco's mesh_vert (mujoco moves a mesh to its own inertial frame);
// - a box whose grid would have far distances too deep gets the exact depth at every node inside;
// - a cube's 16 spheres fit it as scripts/bench/bench_clump measured (kernels/README.md);
// - a non-convex L-shaped prism gets its mass, centre of mass and principal moments from two
//   boxes by the parallel-axis rule, also where mujoco takes it for a shell, and spheres in both
//   legs;
// - the spheres of each are fitted as grn_clump_fit promises, against the shape's exact depth:
//   centres inside it, no radius below its centre's depth, none reaching closer than half a cell
//   to the edge of the fit's grid; sampled on a fine lattice, the clump keeps the shape's volume
//   (within 10 %, the cube 5 %) and the volume in one but not the other is the deviation the fit
//   reports (within 0.01);
// - the same model gives the same spheres bit for bit, the grid built once;
// - unknown and repeated names, open, misoriented and inside-out meshes, grids too fine or too
//   coarse, bad clump_spheres and density are refused with messages naming the mesh and cause.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include "grn_mesh_util.h"
#include "mjg_test_util.h"

extern "C" {
#include "geoms.h"
#include "grain_types.h"
}

namespace {

using grn_test::BoxMesh;
using grn_test::LDepth;
using grn_test::LPrism;
using grn_test::Mesh;
using grn_test::V3;
using mjg_test::LoadXml;
using mjg_test::ModelPtr;

const double kRho = 2500;  // grain density [kg/m^3]

// a rigid motion applied to a test mesh's vertices before mujoco sees them: x -> pos + R(quat) x
struct Pose {
  V3 pos = {0, 0, 0};
  std::array<double, 4> quat = {1, 0, 0, 0};
};

// x turned by the unit quaternion quat (w x y z)
V3 Apply(const std::array<double, 4>& quat, const V3& x) {
  double q[4] = {quat[0], quat[1], quat[2], quat[3]}, v[3] = {x[0], x[1], x[2]}, r[3];
  mju_normalize4(q);
  mju_rotVecQuat(r, v, q);
  return {r[0], r[1], r[2]};
}

// x turned back by quat
V3 ApplyInverse(const std::array<double, 4>& quat, const V3& x) {
  return Apply({quat[0], -quat[1], -quat[2], -quat[3]}, x);
}

// <mesh> of a test mesh moved by pose; faces left out to let mujoco take the convex hull
std::string MeshXml(const std::string& name, const Mesh& mesh, const Pose& pose = Pose(),
                    bool faces = true) {
  std::string xml = "<mesh name=\"" + name + "\" vertex=\"";
  char buf[64];
  for (int v = 0; v < mesh.nv(); v++) {
    V3 x = Apply(pose.quat, mesh.vert(v));
    for (int i = 0; i < 3; i++) {
      std::snprintf(buf, sizeof(buf), "%.17g ", pose.pos[i] + x[i]);
      xml += buf;
    }
  }
  xml += "\"";
  if (faces) {
    xml += " face=\"";
    for (int f : mesh.f) xml += std::to_string(f) + " ";
    xml += "\"";
  }
  return xml + "/>";
}

// a model holding the meshes as assets, nothing else
ModelPtr MeshModel(const std::string& assets) {
  std::string error;
  ModelPtr m = LoadXml("<mujoco><asset>" + assets + "</asset><worldbody/></mujoco>", &error);
  EXPECT_TRUE(m) << error;
  return m;
}

// the outcome of mjg_grain_types_build, freed at scope exit
struct Types {
  int rc;
  mjgGrainTypes t;
  std::string msg;
  Types(const mjModel* m, std::vector<const char*> names, int spheres = MJG_CLUMP_SPHERES_DEFAULT,
        double density = kRho) {
    char buf[1024];
    rc = mjg_grain_types_build(m, names.data(), (int)names.size(), density, spheres, &t, buf,
                               sizeof(buf));
    msg = buf;
  }
  ~Types() { mjg_grain_types_free(&t); }
};

// a point of a type's body frame in the frame the mesh was written in (the body pose in mujoco's
// mesh_vert frame, composed with mesh_pos, mesh_quat)
V3 AssetFromBody(const mjModel* m, const mjgGrainType& t, const V3& body) {
  const mjtNum* mq = m->mesh_quat + 4 * t.mesh;
  V3 x = Apply({t.quat[0], t.quat[1], t.quat[2], t.quat[3]}, body);
  for (int i = 0; i < 3; i++) x[i] += t.pos[i];
  x = Apply({mq[0], mq[1], mq[2], mq[3]}, x);
  for (int i = 0; i < 3; i++) x[i] += m->mesh_pos[3 * t.mesh + i];
  return x;
}

// sphere s's centre in the frame the mesh was written in
V3 AssetPoint(const mjModel* m, const mjgGrainType& t, int s) {
  const float* c = t.sphere + 4 * s;
  return AssetFromBody(m, t, {c[0], c[1], c[2]});
}

// the centre of mass (the body frame's origin) in the frame the mesh was written in
V3 AssetCom(const mjModel* m, const mjgGrainType& t) { return AssetFromBody(m, t, {0, 0, 0}); }

// depth of p inside the box of half-extents h centred at the origin (negative outside)
double BoxDepth(const V3& p, const V3& h) {
  return std::min({h[0] - std::fabs(p[0]), h[1] - std::fabs(p[1]), h[2] - std::fabs(p[2])});
}

// the grid a type's spheres were fitted on, as grain_types.c asks the plugin's cache for it: the
// mesh's mujoco vertices at the type's cell, the margin half the smallest extent of their bounding
// box in whole cells, at least two. found in the cache (no grid built), so it is the fit's own
struct FitGrid {
  const grnGrid* g = nullptr;
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  FitGrid(const mjModel* m, const mjgGrainType& t) {
    const float* vert = m->mesh_vert + 3 * (size_t)m->mesh_vertadr[t.mesh];
    int nvert = m->mesh_vertnum[t.mesh];
    for (int v = 0; v < nvert; v++) {
      for (int i = 0; i < 3; i++) {
        lo[i] = std::fmin(lo[i], vert[3 * v + i]);
        hi[i] = std::fmax(hi[i], vert[3 * v + i]);
      }
    }
    float cell = (float)t.cell;
    float depth = 0.5f * std::fmin(hi[0] - lo[0], std::fmin(hi[1] - lo[1], hi[2] - lo[2]));
    float margin = cell * std::fmax(2.0f, std::ceil(depth / cell));
    long long builds = mjg_mesh_grid_builds();
    g = mjg_mesh_grid_acquire(vert, nvert, m->mesh_face + 3 * (size_t)m->mesh_faceadr[t.mesh],
                              m->mesh_facenum[t.mesh], cell, margin, nullptr, 0);
    EXPECT_TRUE(g);
    EXPECT_EQ(mjg_mesh_grid_builds(), builds) << "not the grid the spheres were fitted on";
  }
  ~FitGrid() { mjg_mesh_grid_release(g); }
};

// a point of a type's body frame in mujoco's mesh_vert frame, the frame of its grid
V3 GridFromBody(const mjgGrainType& t, const float* c) {
  V3 x = Apply({t.quat[0], t.quat[1], t.quat[2], t.quat[3]}, {c[0], c[1], c[2]});
  return {x[0] + t.pos[0], x[1] + t.pos[1], x[2] + t.pos[2]};
}

// volumes [m^3] inside the mesh, inside the union of the spheres and in one but not the other
struct Volumes {
  double mesh = 0, clump = 0, xor_ = 0;
};

// what the new fit promises, against the exact depth(p) of a point p in the frame the mesh was
// written in (negative outside), its spheres' centres and radii only: every centre inside the
// mesh; no radius below its centre's depth (to the grid's interpolation, 0.1 cell); none reaching
// closer than half a cell to the edge of the grid the fit measured on (grn_clump_fit). and the
// volumes of mesh and clump sampled at the centres of a lattice of step [m] over the mesh's box
// [lo, hi] in that frame grown to hold every sphere
template <typename Depth>
Volumes ExpectFitted(const mjModel* m, const mjgGrainType& t, Depth depth, V3 lo, V3 hi,
                     double step, const char* name) {
  FitGrid grid(m, t);
  const int n[3] = {grid.g->nx, grid.g->ny, grid.g->nz};
  double deepest_short = -INFINITY, room = INFINITY, shallowest = INFINITY;
  std::vector<std::array<double, 4>> ball(t.nsphere);
  for (int s = 0; s < t.nsphere; s++) {
    const float* c = t.sphere + 4 * s;
    V3 p = AssetPoint(m, t, s), q = GridFromBody(t, c);
    shallowest = std::min(shallowest, depth(p) / t.cell);
    deepest_short = std::max(deepest_short, (depth(p) - c[3]) / t.cell);
    for (int i = 0; i < 3; i++) {
      double edge_lo = grid.g->origin[i], edge_hi = edge_lo + (n[i] - 1) * (double)grid.g->cell;
      room = std::min({room, (q[i] - c[3] - edge_lo) / t.cell, (edge_hi - q[i] - c[3]) / t.cell});
      lo[i] = std::min(lo[i], p[i] - c[3]);
      hi[i] = std::max(hi[i], p[i] + c[3]);
    }
    ball[s] = {p[0], p[1], p[2], (double)c[3] * c[3]};
  }
  EXPECT_GT(shallowest, 0) << name << ": a centre outside the mesh";
  EXPECT_LE(deepest_short, 0.1) << name << ": a radius below its centre's depth";
  EXPECT_GE(room, 0.5 * (1 - 1e-5)) << name << ": a sphere beyond what the grid measures";

  Volumes v;
  int cells[3];
  for (int i = 0; i < 3; i++) cells[i] = (int)std::ceil((hi[i] - lo[i]) / step);
  for (int k = 0; k < cells[2]; k++) {
    for (int j = 0; j < cells[1]; j++) {
      for (int i = 0; i < cells[0]; i++) {
        V3 p = {lo[0] + (i + 0.5) * step, lo[1] + (j + 0.5) * step, lo[2] + (k + 0.5) * step};
        bool in_mesh = depth(p) > 0, in_clump = false;
        for (int s = 0; s < t.nsphere && !in_clump; s++) {
          double dx = p[0] - ball[s][0], dy = p[1] - ball[s][1], dz = p[2] - ball[s][2];
          in_clump = dx * dx + dy * dy + dz * dz <= ball[s][3];
        }
        v.mesh += in_mesh;
        v.clump += in_clump;
        v.xor_ += in_mesh != in_clump;
      }
    }
  }
  double dv = step * step * step;
  v.mesh *= dv;
  v.clump *= dv;
  v.xor_ *= dv;
  std::printf("  %-6s centres %.2f cells deep at least, radii at most %.3f cells below their "
              "depth, %.2f cells from the grid's edge; sampled at %.3g m: clump volume %+.2f %% "
              "of the mesh's (fit %+.2f %%), deviation %.2f %% (fit %.2f %%)\n",
              name, shallowest, deepest_short, room, step,
              100 * (v.clump / v.mesh - 1), 100 * (t.fit.clump_volume / t.fit.mesh_volume - 1),
              100 * v.xor_ / v.mesh, 100 * t.fit.volume_deviation);
  return v;
}

// the clump keeps the mesh's volume within 10 % (kernels' clump fit test: an L within 10 %, a
// cube within 5), and the volume deviation the fit measures on its grid's nodes is the one
// sampled at about a quarter cell, within 0.01 (the two differ by the spheres' surface over the
// cell). the step is not a fraction of the cell, lest the lattice fall on the spheres' surfaces
// (centres on nodes, radii in quarter cells) all at once
template <typename Depth>
void ExpectKeepsVolume(const mjModel* m, const mjgGrainType& t, Depth depth, V3 lo, V3 hi,
                       double volume, const char* name) {
  Volumes v = ExpectFitted(m, t, depth, lo, hi, t.cell / 4.3, name);
  EXPECT_NEAR(v.clump / volume, 1, 0.10) << name;
  EXPECT_NEAR(v.xor_ / volume, t.fit.volume_deviation, 0.01) << name;
}

void Print(const char* name, const mjgGrainType& t) {
  std::printf("  %-6s %2d spheres on a %.3g m grid: volume deviation %6.2f %%, surface mean "
              "%5.2f %% max %5.2f %%\n",
              name, t.nsphere, t.cell, 100 * t.fit.volume_deviation, 100 * t.fit.surface_mean,
              100 * t.fit.surface_max);
}

// the principal moments, ascending, of the box of half-extents h and mass m
V3 BoxMoments(const V3& h, double mass) {
  V3 i = {mass * (h[1] * h[1] + h[2] * h[2]) / 3, mass * (h[0] * h[0] + h[2] * h[2]) / 3,
          mass * (h[0] * h[0] + h[1] * h[1]) / 3};
  std::sort(i.begin(), i.end());
  return i;
}

// half-extents of a few millimetres in powers of two of a metre, exact in float (so mujoco's float
// vertices are the box's own), unequal and not sorted, so the body frame must reorder the axes
const V3 kHalf = {3.0 / 512, 1.0 / 128, 1.0 / 256};

// a body axis of a type in the frame the mesh was written in
V3 AssetAxis(const mjModel* m, const mjgGrainType& t, const V3& axis) {
  const mjtNum* mq = m->mesh_quat + 4 * t.mesh;
  return Apply({mq[0], mq[1], mq[2], mq[3]}, Apply({t.quat[0], t.quat[1], t.quat[2], t.quat[3]},
                                                   axis));
}

//---------------------------------- boxes ---------------------------------------------------------

TEST(GrainTypes, BoxHasItsMassAndPrincipalMomentsWithFacesOrAsAHull) {
  const double mass = kRho * 8 * kHalf[0] * kHalf[1] * kHalf[2];
  const V3 moments = BoxMoments(kHalf, mass);
  ModelPtr m = MeshModel(MeshXml("faces", BoxMesh(kHalf)) +
                         MeshXml("hull", BoxMesh(kHalf), Pose(), false));
  ASSERT_TRUE(m);
  Types types(m.get(), {"faces", "hull"});
  ASSERT_EQ(types.rc, 0) << types.msg;
  ASSERT_EQ(types.t.ntype, 2);
  for (int k = 0; k < 2; k++) {
    const mjgGrainType& t = types.t.type[k];
    EXPECT_EQ(m->mesh_facenum[t.mesh], 12);
    EXPECT_NEAR(t.mass / mass, 1, 1e-12);
    EXPECT_NEAR(t.volume / (mass / kRho), 1, 1e-12);
    for (int i = 0; i < 3; i++) {
      EXPECT_NEAR(t.inertia[i] / moments[i], 1, 1e-12) << "moment " << i;
      EXPECT_NEAR(t.pos[i], 0, 1e-12 * kHalf[0]);
    }
    // the body's x axis, of the least moment, is the box's longest (y): reordered, not only
    // recentred
    EXPECT_NEAR(std::fabs(AssetAxis(m.get(), t, {1, 0, 0})[1]), 1, 1e-12);
    std::printf("  %-5s mass error %.2g, moments' errors %.2g %.2g %.2g\n", k ? "hull" : "faces",
                t.mass / mass - 1, t.inertia[0] / moments[0] - 1, t.inertia[1] / moments[1] - 1,
                t.inertia[2] / moments[2] - 1);
    // the spheres fitted to the box: its volume kept, and the deviation the fit reports the one
    // sampled
    EXPECT_EQ(t.nsphere, MJG_CLUMP_SPHERES_DEFAULT);
    ExpectKeepsVolume(m.get(), t, [](const V3& p) { return BoxDepth(p, kHalf); },
                      {-kHalf[0], -kHalf[1], -kHalf[2]}, kHalf, mass / kRho,
                      k ? "hull" : "faces");
  }
}

TEST(GrainTypes, MovedAndTurnedBoxGivesTheSameTypeAboutItsCentreOfMass) {
  const double mass = kRho * 8 * kHalf[0] * kHalf[1] * kHalf[2];
  const V3 moments = BoxMoments(kHalf, mass);
  Pose pose;
  pose.pos = {0.3, -0.2, 0.1};
  pose.quat = {0.9, 0.1, -0.3, 0.2};
  ModelPtr m = MeshModel(MeshXml("box", BoxMesh(kHalf)) + MeshXml("moved", BoxMesh(kHalf), pose));
  ASSERT_TRUE(m);
  Types types(m.get(), {"box", "moved"});
  ASSERT_EQ(types.rc, 0) << types.msg;
  const mjgGrainType &box = types.t.type[0], &t = types.t.type[1];
  // mujoco stores mesh_vert in float after moving the mesh to its inertial frame: each vertex is
  // off by up to half a float ulp of the box's size (3e-8 relative), the mass and moments by a few
  const double tol = 1e-6;
  EXPECT_NEAR(t.mass / mass, 1, tol);
  for (int i = 0; i < 3; i++) EXPECT_NEAR(t.inertia[i] / moments[i], 1, tol) << "moment " << i;
  V3 com = AssetCom(m.get(), t);
  for (int i = 0; i < 3; i++) EXPECT_NEAR(com[i], pose.pos[i], tol * kHalf[1]);
  // the body's x axis (least moment) along the turned box's longest edge, y
  EXPECT_NEAR(std::fabs(ApplyInverse(pose.quat, AssetAxis(m.get(), t, {1, 0, 0}))[1]), 1, tol);
  std::printf("  moved: mass error %.2g, moments' errors %.2g %.2g %.2g, centre of mass off by "
              "%.2g m\n", t.mass / mass - 1, t.inertia[0] / moments[0] - 1,
              t.inertia[1] / moments[1] - 1, t.inertia[2] / moments[2] - 1,
              std::hypot(com[0] - pose.pos[0], com[1] - pose.pos[1], com[2] - pose.pos[2]));
  // its spheres fitted to the box about the centre of mass. mujoco turned the mesh back to its
  // principal frame, so the grid is the unmoved box's but for the rounding of the vertices, and
  // the fit as good (ties broken otherwise at most)
  double reach = std::hypot(kHalf[0], kHalf[1], kHalf[2]);
  ExpectKeepsVolume(m.get(), t, [&](const V3& p) {
    return BoxDepth(ApplyInverse(pose.quat, {p[0] - pose.pos[0], p[1] - pose.pos[1],
                                             p[2] - pose.pos[2]}), kHalf);
  }, {pose.pos[0] - reach, pose.pos[1] - reach, pose.pos[2] - reach},
     {pose.pos[0] + reach, pose.pos[1] + reach, pose.pos[2] + reach}, mass / kRho, "moved");
  EXPECT_NEAR(t.fit.volume_deviation, box.fit.volume_deviation, 0.005);
  Print("box", box);
  Print("moved", t);
}

TEST(GrainTypes, GridIsExactInsideWhereFarDistancesWouldBeUpperBounds) {
  // on a grid of only a few cells of exact distances inside this box, nodes deep in it took
  // distances propagated from the wrong face, up to 0.9 cell too deep, and three spheres started
  // from those depths reached 0.9 cell out of it. the fit starts each radius from its centre's
  // depth on the grid: every node inside must hold the box's exact depth
  const V3 half = {0.005, 0.0075, 0.0025};
  ModelPtr m = MeshModel(MeshXml("box", BoxMesh(half)));
  ASSERT_TRUE(m);
  Types types(m.get(), {"box"});
  ASSERT_EQ(types.rc, 0) << types.msg;
  const mjgGrainType& t = types.t.type[0];
  FitGrid grid(m.get(), t);
  const grnGrid& g = *grid.g;
  double worst = 0;
  int inside = 0;
  for (int k = 0; k < g.nz; k++) {
    for (int j = 0; j < g.ny; j++) {
      for (int i = 0; i < g.nx; i++) {
        // the node's depth in the box as mujoco holds it (turned to its inertial frame)
        const int ijk[3] = {i, j, k};
        double depth = INFINITY;
        for (int a = 0; a < 3; a++) {
          double x = g.origin[a] + ijk[a] * (double)g.cell - 0.5 * (grid.lo[a] + grid.hi[a]);
          depth = std::min(depth, 0.5 * (grid.hi[a] - grid.lo[a]) - std::fabs(x));
        }
        if (depth <= 0) continue;
        inside++;
        float value = g.values[i + (size_t)g.nx * (j + (size_t)g.ny * k)];
        worst = std::max(worst, std::fabs(value + depth) / g.cell);
      }
    }
  }
  EXPECT_GT(inside, 0);
  EXPECT_LE(worst, 1e-4);
  std::printf("  box231: %d nodes inside, their distances off the exact depth by %.2g cell at "
              "most\n", inside, worst);
  ExpectKeepsVolume(m.get(), t, [&](const V3& p) { return BoxDepth(p, half); },
                    {-half[0], -half[1], -half[2]}, half, 8 * half[0] * half[1] * half[2],
                    "box231");
  Print("box231", t);
}

TEST(GrainTypes, CubeFillsAsTheBenchMeasured) {
  const V3 half = {0.05, 0.05, 0.05};
  ModelPtr m = MeshModel(MeshXml("cube", BoxMesh(half)));
  ASSERT_TRUE(m);
  Types types(m.get(), {"cube"});
  ASSERT_EQ(types.rc, 0) << types.msg;
  const mjgGrainType& t = types.t.type[0];
  Print("cube", t);
  ASSERT_EQ(t.nsphere, 16);
  // the grid is the bench's (24 cells per cube root of the volume, the plugin's margin, centred
  // on the cube) and the fit is deterministic, so only the table's rounding separates them
  EXPECT_NEAR(t.fit.volume_deviation, 0.147, 0.0005 + 1e-6);
  EXPECT_NEAR(t.fit.surface_mean, 0.023, 0.0005 + 1e-6);
  EXPECT_NEAR(t.fit.surface_max, 0.13, 0.005 + 1e-6);

  // sampled at 120 points along the cube's side: the clump keeps the cube's volume within 5 %
  // (kernels' clump fit test; inscribed spheres missed 22 %), and the deviation the fit reports
  // is the one sampled, within 0.01
  const double volume = 8 * half[0] * half[1] * half[2];
  Volumes v = ExpectFitted(m.get(), t, [&](const V3& p) { return BoxDepth(p, half); },
                           {-half[0], -half[1], -half[2]}, half, 2 * half[0] / 120, "cube");
  EXPECT_NEAR(v.mesh / volume, 1, 1e-9);
  EXPECT_NEAR(v.clump / volume, 1, 0.05);
  EXPECT_NEAR(v.xor_ / volume, t.fit.volume_deviation, 0.01);
}

//---------------------------------- a non-convex mesh ---------------------------------------------

TEST(GrainTypes, LShapedPrismIsTwoBoxes) {
  // LPrism(a, t, hz): [0, a] x [0, t] and [0, t] x [t, a], 2 hz high
  const double a = 0.02, w = 0.008, hz = 0.004;
  // once more with mujoco's inertia of the surface as a shell: mujoco moves that mesh to the
  // shell's centre of mass, which is not the solid's
  std::string shell = MeshXml("shell", LPrism(a, w, hz));
  shell.insert(std::strlen("<mesh"), " inertia=\"shell\"");
  ModelPtr m = MeshModel(MeshXml("L", LPrism(a, w, hz)) + shell);
  ASSERT_TRUE(m);
  Types types(m.get(), {"L", "shell"});
  ASSERT_EQ(types.rc, 0) << types.msg;

  // the two boxes: masses, centres, and the inertia about the L's centre of mass by the
  // parallel-axis rule
  const double dims[2][3] = {{a, w, 2 * hz}, {w, a - w, 2 * hz}};
  const double centre[2][3] = {{a / 2, w / 2, 0}, {w / 2, (a + w) / 2, 0}};
  double mass = 0, com[3] = {0, 0, 0}, inertia[3][3] = {};
  for (int b = 0; b < 2; b++) {
    double mb = kRho * dims[b][0] * dims[b][1] * dims[b][2];
    mass += mb;
    for (int i = 0; i < 3; i++) com[i] += mb * centre[b][i];
  }
  for (int i = 0; i < 3; i++) com[i] /= mass;
  for (int b = 0; b < 2; b++) {
    double mb = kRho * dims[b][0] * dims[b][1] * dims[b][2], d[3];
    for (int i = 0; i < 3; i++) d[i] = centre[b][i] - com[i];
    double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (int i = 0; i < 3; i++) {
      const double* l = dims[b];
      inertia[i][i] += mb * (l[(i + 1) % 3] * l[(i + 1) % 3] + l[(i + 2) % 3] * l[(i + 2) % 3])
                       / 12;
      for (int j = 0; j < 3; j++) inertia[i][j] += mb * ((i == j) * d2 - d[i] * d[j]);
    }
  }
  // symmetric about x = y: the axes are the diagonals and z, the moments Ixx -+ Ixy and Izz
  V3 moments = {inertia[0][0] + inertia[0][1], inertia[0][0] - inertia[0][1], inertia[2][2]};
  std::sort(moments.begin(), moments.end());

  // mujoco moved the L to its own inertial frame in float: the tolerance of the moved box
  const double tol = 1e-6;
  for (int k = 0; k < 2; k++) {
    const mjgGrainType& t = types.t.type[k];
    const char* name = k ? "shell" : "L";
    V3 c = AssetCom(m.get(), t);
    const mjtNum* mujoco_com = m->mesh_pos + 3 * t.mesh;
    EXPECT_NEAR(t.mass / mass, 1, tol) << name;
    for (int i = 0; i < 3; i++) {
      EXPECT_NEAR(c[i], com[i], tol * a) << name << " axis " << i;
      EXPECT_NEAR(t.inertia[i] / moments[i], 1, tol) << name << " moment " << i;
    }
    std::printf("  %s: mass error %.2g, centre of mass off by %.2g m (mujoco's mesh_pos by %.2g "
                "m), moments' errors %.2g %.2g %.2g\n", name, t.mass / mass - 1,
                std::hypot(c[0] - com[0], c[1] - com[1], c[2] - com[2]),
                std::hypot(mujoco_com[0] - com[0], mujoco_com[1] - com[1],
                           mujoco_com[2] - com[2]),
                t.inertia[0] / moments[0] - 1, t.inertia[1] / moments[1] - 1,
                t.inertia[2] / moments[2] - 1);

    // its spheres in both legs, fitted to the exact L
    int leg_x = 0, leg_y = 0;
    for (int s = 0; s < t.nsphere; s++) {
      V3 p = AssetPoint(m.get(), t, s);
      leg_x += p[0] > w;
      leg_y += p[1] > w;
    }
    EXPECT_GE(leg_x, t.nsphere / 4) << name;
    EXPECT_GE(leg_y, t.nsphere / 4) << name;
    Print(name, t);
    std::printf("  %s: spheres in the x leg %d, the y leg %d\n", name, leg_x, leg_y);
    ExpectKeepsVolume(m.get(), t, [&](const V3& p) { return LDepth(p, a, w, hz); },
                      {0, 0, -hz}, {a, a, hz}, mass / kRho, name);
  }
}

//---------------------------------- behaviour -----------------------------------------------------

TEST(GrainTypes, SameModelSameSpheresAndTheGridBuiltOnce) {
  ModelPtr m = MeshModel(MeshXml("L", LPrism(0.02, 0.008, 0.004)));
  ASSERT_TRUE(m);
  Types first(m.get(), {"L"});
  long long builds = mjg_mesh_grid_builds();
  Types second(m.get(), {"L"});
  ASSERT_EQ(first.rc, 0) << first.msg;
  ASSERT_EQ(second.rc, 0) << second.msg;
  EXPECT_EQ(mjg_mesh_grid_builds(), builds);
  const mjgGrainType &a = first.t.type[0], &b = second.t.type[0];
  ASSERT_EQ(a.nsphere, b.nsphere);
  EXPECT_EQ(std::memcmp(a.sphere, b.sphere, 4 * sizeof(float) * a.nsphere), 0);
  EXPECT_EQ(std::memcmp(&a.fit, &b.fit, sizeof(a.fit)), 0);

  // fewer spheres asked, fewer placed
  Types few(m.get(), {"L"}, 4);
  ASSERT_EQ(few.rc, 0) << few.msg;
  EXPECT_EQ(few.t.type[0].nsphere, 4);
  EXPECT_GT(few.t.type[0].fit.volume_deviation, a.fit.volume_deviation);
}

// the refusal of names from m, which must name every string in expect
void ExpectRefused(const mjModel* m, std::vector<const char*> names,
                   std::vector<std::string> expect, int spheres = MJG_CLUMP_SPHERES_DEFAULT,
                   double density = kRho) {
  Types types(m, names, spheres, density);
  EXPECT_EQ(types.rc, -1);
  EXPECT_EQ(types.t.ntype, 0);
  EXPECT_EQ(types.t.type, nullptr);
  for (const std::string& e : expect) {
    EXPECT_NE(types.msg.find(e), std::string::npos) << "'" << e << "' not in: " << types.msg;
  }
  std::printf("  refused: %s\n", types.msg.c_str());
}

TEST(GrainTypes, BadMeshesAndLimitsAreRefusedNamingMeshAndCause) {
  Mesh open = BoxMesh(kHalf), flipped = BoxMesh(kHalf), inside_out = BoxMesh(kHalf);
  open.f.resize(open.f.size() - 3);
  std::swap(flipped.f[0], flipped.f[1]);
  for (size_t f = 0; f < inside_out.f.size(); f += 3) {
    std::swap(inside_out.f[f], inside_out.f[f + 1]);
  }
  // a plate 111 cells wide and 1.1 thick at 24 cells per cube root of its volume
  Mesh plate = BoxMesh({0.1, 0.1, 0.001});
  // four 1 cm cubes at the corners of a tetrahedron of 1.4 m edges (apart along every principal
  // axis): a grid at their size over a metre holds 1e9 nodes
  Mesh spread;
  const V3 corners[4] = {{0, 0, 0}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}};
  for (const V3& c : corners) {
    Mesh cube = BoxMesh({0.005, 0.005, 0.005}, c);
    for (int f : cube.f) spread.f.push_back(f + spread.nv());
    spread.v.insert(spread.v.end(), cube.v.begin(), cube.v.end());
  }
  ModelPtr m = MeshModel(MeshXml("box", BoxMesh(kHalf)) + MeshXml("open", open) +
                         MeshXml("flipped", flipped) + MeshXml("inside_out", inside_out) +
                         MeshXml("plate", plate) + MeshXml("spread", spread));
  ASSERT_TRUE(m);

  ExpectRefused(m.get(), {"box", "rock"}, {"rock", "no mesh named"});
  ExpectRefused(m.get(), {"box", nullptr}, {"no mesh named ''"});
  ExpectRefused(m.get(), {"box", "box"}, {"'box'", "named twice"});
  ExpectRefused(m.get(), {"open"}, {"'open'", "not closed"});
  ExpectRefused(m.get(), {"flipped"}, {"'flipped'", "not consistently oriented"});
  ExpectRefused(m.get(), {"inside_out"}, {"'inside_out'", "inside out"});
  ExpectRefused(m.get(), {"plate"}, {"'plate'", "too thin"});
  ExpectRefused(m.get(), {"spread"}, {"'spread'", "more than the limit", "spread thin"});
  ExpectRefused(m.get(), {"box"}, {"0 spheres per clump", "outside 1 .. 1024"}, 0);
  ExpectRefused(m.get(), {"box"}, {"1025 spheres per clump"}, GRN_CLUMP_MAX_SPHERES + 1);
  ExpectRefused(m.get(), {"box"}, {"density"}, MJG_CLUMP_SPHERES_DEFAULT, 0);
  ExpectRefused(m.get(), {"box"}, {"density"}, MJG_CLUMP_SPHERES_DEFAULT, NAN);
  ExpectRefused(nullptr, {"box"}, {"no model"});

  // nothing named is no types, and no refusal
  Types none(m.get(), {});
  EXPECT_EQ(none.rc, 0) << none.msg;
  EXPECT_EQ(none.t.ntype, 0);
}

}  // namespace
