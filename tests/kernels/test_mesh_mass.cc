// mass properties of closed meshes (mesh_mass.h) against analytic solids:
// - a box of 12 triangles, and an L-shaped prism (two boxes composed by the parallel-axis
//   theorem), exactly to double rounding, off-diagonal products of inertia included;
// - a cylinder of 64 facets: exactly the prism of its polygon, and the analytic cylinder within
//   the faceting error (mass within 0.5%, inertia within 2%);
// - principal moments and axes: a box rotated by a known quaternion gives the rotated axes, the
//   L-shape's axes lie along its diagonal of symmetry;
// - the central inertia does not change when the mesh moves;
// - open, misoriented, inside-out, flat and malformed meshes are refused with their status.
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

#include "mesh_mass.h"

namespace {

const double kPi = 3.14159265358979323846;
const double kDensity = 2500;  // gravel [kg/m^3]

struct Mesh {
  std::vector<float> v;  // (nv x 3)
  std::vector<int> f;    // (nf x 3), counter-clockwise seen from outside
  int nv() const { return (int)v.size() / 3; }
  int nf() const { return (int)f.size() / 3; }
};

grnMeshStatus MassOf(const Mesh& m, grnMassProps* mp) {
  return grn_mesh_mass(m.v.data(), m.nv(), m.f.data(), m.nf(), kDensity, mp);
}

// a prism of height h over a counter-clockwise polygon (x, y pairs) whose caps are split into
// the triangles cap (counter-clockwise, polygon indices), from z = 0 to h
Mesh Prism(const std::vector<double>& poly, const std::vector<int>& cap, double h) {
  Mesh m;
  int n = (int)poly.size() / 2;
  for (double z : {0.0, h}) {
    for (int i = 0; i < n; i++) {
      m.v.insert(m.v.end(), {(float)poly[2 * i], (float)poly[2 * i + 1], (float)z});
    }
  }
  for (size_t t = 0; t < cap.size(); t += 3) {
    m.f.insert(m.f.end(), {cap[t], cap[t + 2], cap[t + 1]});              // bottom faces down
    m.f.insert(m.f.end(), {n + cap[t], n + cap[t + 1], n + cap[t + 2]});  // top faces up
  }
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    m.f.insert(m.f.end(), {i, j, n + j, i, n + j, n + i});
  }
  return m;
}

// a fan of triangles over a convex polygon of n vertices
std::vector<int> Fan(int n) {
  std::vector<int> cap;
  for (int i = 1; i + 1 < n; i++) cap.insert(cap.end(), {0, i, i + 1});
  return cap;
}

// the box [0, a] x [0, b] x [0, c], 12 triangles
Mesh Box(double a, double b, double c) { return Prism({0, 0, a, 0, a, b, 0, b}, Fan(4), c); }

// the mesh moved by x -> rot x + shift, rot row-major
Mesh Moved(Mesh m, const double* rot, const double* shift) {
  for (int k = 0; k < m.nv(); k++) {
    double p[3] = {m.v[3 * k], m.v[3 * k + 1], m.v[3 * k + 2]};
    for (int i = 0; i < 3; i++) {
      m.v[3 * k + i] = (float)(rot[3 * i] * p[0] + rot[3 * i + 1] * p[1] + rot[3 * i + 2] * p[2] +
                               shift[i]);
    }
  }
  return m;
}

// rotation matrix (row-major) of a unit quaternion (w, x, y, z)
std::array<double, 9> QuatMatrix(const double* q) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
          2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
          2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}

// a solid's mass properties composed from parts by the parallel-axis theorem
struct Solid {
  double mass = 0;
  double com[3] = {0, 0, 0};
  double inertia[9] = {0};  // about com
};

// a box of sides a b c and density kDensity centred at (x, y, z)
Solid BoxSolid(double a, double b, double c, double x, double y, double z) {
  Solid s;
  s.mass = kDensity * a * b * c;
  s.com[0] = x; s.com[1] = y; s.com[2] = z;
  s.inertia[0] = s.mass * (b * b + c * c) / 12;
  s.inertia[4] = s.mass * (a * a + c * c) / 12;
  s.inertia[8] = s.mass * (a * a + b * b) / 12;
  return s;
}

Solid Compose(const Solid& p, const Solid& q) {
  Solid s;
  s.mass = p.mass + q.mass;
  for (int i = 0; i < 3; i++) s.com[i] = (p.mass * p.com[i] + q.mass * q.com[i]) / s.mass;
  for (const Solid* part : {&p, &q}) {
    double d[3], d2 = 0;
    for (int i = 0; i < 3; i++) d[i] = part->com[i] - s.com[i], d2 += d[i] * d[i];
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        double shift = part->mass * ((i == j) * d2 - d[i] * d[j]);
        s.inertia[3 * i + j] += part->inertia[3 * i + j] + shift;
      }
    }
  }
  return s;
}

// relative error of x against a nonzero reference
double Rel(double x, double ref) { return std::fabs(x - ref) / std::fabs(ref); }

// largest deviation of two inertia tensors, relative to the largest moment of the reference
double TensorError(const double* a, const double* ref) {
  double scale = std::fmax(ref[0], std::fmax(ref[4], ref[8])), err = 0;
  for (int k = 0; k < 9; k++) err = std::fmax(err, std::fabs(a[k] - ref[k]) / scale);
  return err;
}

// |cos| of the angle between column j of a and column k of b (3 x 3 row-major)
double ColumnCos(const double* a, int j, const double* b, int k) {
  return std::fabs(a[j] * b[k] + a[3 + j] * b[3 + k] + a[6 + j] * b[6 + k]);
}

const double kExact = 1e-12;  // double rounding over a few dozen triangles

//---------------------------------- analytic solids -----------------------------------------------

TEST(MeshMass, BoxIsExact) {
  grnMassProps mp;
  ASSERT_EQ(MassOf(Box(3, 2, 1), &mp), grnMESH_OK);
  Solid box = BoxSolid(3, 2, 1, 1.5, 1, 0.5);
  EXPECT_LT(Rel(mp.volume, 6), kExact);
  EXPECT_LT(Rel(mp.mass, box.mass), kExact);
  for (int i = 0; i < 3; i++) EXPECT_NEAR(mp.com[i], box.com[i], kExact);
  EXPECT_LT(TensorError(mp.inertia, box.inertia), kExact);
  std::printf("[ measure  ] box: mass error %.2g, inertia error %.2g\n",
              Rel(mp.mass, box.mass), TensorError(mp.inertia, box.inertia));
  // principal moments ascending: about x (sides 2 and 1), y (3 and 1), z (3 and 2)
  EXPECT_LT(Rel(mp.principal[0], box.inertia[0]), kExact);
  EXPECT_LT(Rel(mp.principal[1], box.inertia[4]), kExact);
  EXPECT_LT(Rel(mp.principal[2], box.inertia[8]), kExact);
}

TEST(MeshMass, LShapedPrismIsTwoBoxes) {
  // the L: [0, 2] x [0, 1] and [0, 1] x [1, 2], 0.5 high; its caps fanned from the inner corner
  double h = 0.5;
  Mesh l = Prism({0, 0, 2, 0, 2, 1, 1, 1, 1, 2, 0, 2}, {3, 4, 5, 3, 5, 0, 3, 0, 1, 3, 1, 2}, h);
  grnMassProps mp;
  ASSERT_EQ(MassOf(l, &mp), grnMESH_OK);
  Solid ref = Compose(BoxSolid(2, 1, h, 1, 0.5, h / 2), BoxSolid(1, 1, h, 0.5, 1.5, h / 2));
  EXPECT_LT(Rel(mp.volume, 3 * h), kExact);
  EXPECT_LT(Rel(mp.mass, ref.mass), kExact);
  for (int i = 0; i < 3; i++) EXPECT_NEAR(mp.com[i], ref.com[i], kExact);
  EXPECT_LT(TensorError(mp.inertia, ref.inertia), kExact);
  std::printf("[ measure  ] L-shape: mass error %.2g, inertia error %.2g\n",
              Rel(mp.mass, ref.mass), TensorError(mp.inertia, ref.inertia));
  EXPECT_GT(std::fabs(ref.inertia[1]), 0.05 * ref.inertia[8]);  // a real product of inertia

  // the diagonal x = y is a line of symmetry: the in-plane axes lie along and across it
  const double kDiag[9] = {std::sqrt(0.5), std::sqrt(0.5), 0, std::sqrt(0.5), -std::sqrt(0.5), 0,
                           0, 0, 1};
  int along_z = 0, along_diag = 0, across = 0;
  for (int j = 0; j < 3; j++) {
    along_diag += ColumnCos(mp.axes, j, kDiag, 0) > 1 - kExact;
    across += ColumnCos(mp.axes, j, kDiag, 1) > 1 - kExact;
    along_z += ColumnCos(mp.axes, j, kDiag, 2) > 1 - kExact;
  }
  EXPECT_EQ(along_diag + across + along_z, 3);
  EXPECT_EQ(along_diag * across * along_z, 1);
}

TEST(MeshMass, FacetedCylinderIsItsPrismAndNearlyACylinder) {
  const int n = 64;
  const double r = 0.01, h = 0.03;
  std::vector<double> poly;
  for (int i = 0; i < n; i++) {
    poly.push_back(r * std::cos(2 * kPi * i / n));
    poly.push_back(r * std::sin(2 * kPi * i / n));
  }
  grnMassProps mp;
  ASSERT_EQ(MassOf(Prism(poly, Fan(n), h), &mp), grnMESH_OK);

  // the prism of the regular n-gon of circumradius r: area n/2 r^2 sin(2 pi / n), polar second
  // moment per unit area r^2 (1 + 2 cos^2(pi / n)) / 6, the same about every in-plane axis / 2
  // (tolerance: the polygon's vertices are rounded to float)
  double area = n / 2.0 * r * r * std::sin(2 * kPi / n);
  double polar = r * r * (1 + 2 * std::pow(std::cos(kPi / n), 2)) / 6;
  double mass = kDensity * area * h;
  double izz = mass * polar, ixx = mass * (polar / 2 + h * h / 12);
  const double kFloat = 1e-6;
  EXPECT_LT(Rel(mp.mass, mass), kFloat);
  EXPECT_LT(Rel(mp.inertia[0], ixx), kFloat);
  EXPECT_LT(Rel(mp.inertia[4], ixx), kFloat);
  EXPECT_LT(Rel(mp.inertia[8], izz), kFloat);
  EXPECT_NEAR(mp.com[2], h / 2, kFloat * h);
  EXPECT_LT(std::hypot(mp.com[0], mp.com[1]), kFloat * r);

  // the cylinder: the inscribed polygon is short of the circle's area by 1 - sin(t) / t <= t^2/6
  // and of its polar moment by at most t^2 / 3 (t = 2 pi / n, 0.16% and 0.32% at 64 facets)
  double t = 2 * kPi / n;
  double cyl_mass = kDensity * kPi * r * r * h;
  double cyl_izz = cyl_mass * r * r / 2, cyl_ixx = cyl_mass * (r * r / 4 + h * h / 12);
  double mass_short = 1 - mp.mass / cyl_mass;
  EXPECT_GT(mass_short, 0);
  EXPECT_LT(mass_short, t * t / 6);
  EXPECT_LT(mass_short, 0.005);
  std::printf("[ measure  ] %d-facet cylinder: against its prism mass %.2g, izz %.2g, ixx %.2g; "
              "short of the cylinder: mass %.4g (t^2/6 %.4g), izz %.4g, ixx %.4g (t^2/3 %.4g)\n",
              n, Rel(mp.mass, mass), Rel(mp.inertia[8], izz), Rel(mp.inertia[0], ixx), mass_short,
              t * t / 6, 1 - mp.inertia[8] / cyl_izz, 1 - mp.inertia[0] / cyl_ixx, t * t / 3);
  for (auto [got, want] : {std::pair{mp.inertia[0], cyl_ixx}, {mp.inertia[4], cyl_ixx},
                           {mp.inertia[8], cyl_izz}}) {
    EXPECT_GT(1 - got / want, 0);
    EXPECT_LT(1 - got / want, t * t / 3);
    EXPECT_LT(1 - got / want, 0.02);
  }
  // a cylinder 3 r high turns most easily about its axis: the first principal axis
  EXPECT_GT(std::fabs(mp.axes[6]), 1 - kFloat);
  EXPECT_LT(Rel(mp.principal[0], izz), kFloat);
}

//---------------------------------- principal axes and frames -------------------------------------

TEST(MeshMass, RotatedBoxGivesRotatedAxes) {
  double q0[4] = {0.9, 0.3, -0.2, 0.4}, norm = 0;
  for (double x : q0) norm += x * x;
  for (double& x : q0) x /= std::sqrt(norm);
  std::array<double, 9> rot = QuatMatrix(q0);
  const double shift[3] = {0.25, -0.5, 1};
  grnMassProps mp;
  ASSERT_EQ(MassOf(Moved(Box(3, 2, 1), rot.data(), shift), &mp), grnMESH_OK);
  Solid box = BoxSolid(3, 2, 1, 0, 0, 0);
  const double kFloat = 1e-6;  // the rotated vertices are rounded to float
  for (int j = 0; j < 3; j++) {
    EXPECT_LT(Rel(mp.principal[j], box.inertia[4 * j]), kFloat);
    // the box's x, y, z edges have the ascending moments: the rotation's columns
    EXPECT_GT(ColumnCos(mp.axes, j, rot.data(), j), 1 - kFloat) << "axis " << j;
  }
  // right-handed, and the quaternion is the same rotation as the axes
  std::array<double, 9> from_quat = QuatMatrix(mp.quat);
  for (int k = 0; k < 9; k++) EXPECT_NEAR(from_quat[k], mp.axes[k], 1e-12);
  EXPECT_NEAR(mp.quat[0] * mp.quat[0] + mp.quat[1] * mp.quat[1] + mp.quat[2] * mp.quat[2] +
              mp.quat[3] * mp.quat[3], 1, 1e-14);
  EXPECT_GE(mp.quat[0], 0);
  // the centre of mass is the moved centre
  for (int i = 0; i < 3; i++) {
    double c = rot[3 * i] * 1.5 + rot[3 * i + 1] * 1 + rot[3 * i + 2] * 0.5 + shift[i];
    EXPECT_NEAR(mp.com[i], c, kFloat);
  }
}

TEST(MeshMass, CentralInertiaIgnoresWhereTheMeshLies) {
  // dyadic coordinates and shift: the moved vertices are exact in float
  Mesh l = Prism({0, 0, 2, 0, 2, 1, 1, 1, 1, 2, 0, 2}, {3, 4, 5, 3, 5, 0, 3, 0, 1, 3, 1, 2}, 0.5);
  const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, shift[3] = {1000.5, -250.25, 64};
  grnMassProps here, there;
  ASSERT_EQ(MassOf(l, &here), grnMESH_OK);
  ASSERT_EQ(MassOf(Moved(l, id, shift), &there), grnMESH_OK);
  EXPECT_LT(Rel(there.mass, here.mass), kExact);
  for (int i = 0; i < 3; i++) EXPECT_NEAR(there.com[i] - shift[i], here.com[i], kExact);
  EXPECT_LT(TensorError(there.inertia, here.inertia), kExact);
  for (int k = 0; k < 9; k++) EXPECT_NEAR(there.axes[k], here.axes[k], kExact);
}

//---------------------------------- refusals ------------------------------------------------------

TEST(MeshMass, RefusesMeshesThatBoundNoSolid) {
  grnMassProps mp;
  Mesh box = Box(1, 1, 1);

  Mesh open = box;  // one triangle missing
  open.f.resize(open.f.size() - 3);
  EXPECT_EQ(MassOf(open, &mp), grnMESH_OPEN);
  EXPECT_EQ(mp.mass, 0);

  Mesh inside_out = box;  // every face inward
  for (int t = 0; t < inside_out.nf(); t++) {
    std::swap(inside_out.f[3 * t + 1], inside_out.f[3 * t + 2]);
  }
  EXPECT_EQ(MassOf(inside_out, &mp), grnMESH_INSIDE_OUT);

  Mesh flipped = box;  // one face inward
  std::swap(flipped.f[1], flipped.f[2]);
  EXPECT_EQ(MassOf(flipped, &mp), grnMESH_MISORIENTED);

  Mesh doubled = box;  // a face twice: its edges in three triangles
  doubled.f.insert(doubled.f.end(), box.f.begin(), box.f.begin() + 3);
  EXPECT_EQ(MassOf(doubled, &mp), grnMESH_OPEN);

  Mesh flat;  // a closed surface of two triangles back to back
  flat.v = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  flat.f = {0, 1, 2, 0, 2, 1};
  EXPECT_EQ(MassOf(flat, &mp), grnMESH_INSIDE_OUT);

  Mesh bad_index = box;
  bad_index.f[4] = box.nv();
  EXPECT_EQ(MassOf(bad_index, &mp), grnMESH_BAD_INDEX);
  bad_index.f[4] = bad_index.f[3];
  EXPECT_EQ(MassOf(bad_index, &mp), grnMESH_BAD_INDEX);

  Mesh nan = box;
  nan.v[4] = NAN;
  EXPECT_EQ(MassOf(nan, &mp), grnMESH_NONFINITE);

  EXPECT_EQ(grn_mesh_mass(box.v.data(), box.nv(), box.f.data(), 0, kDensity, &mp), grnMESH_ARG);
  EXPECT_EQ(grn_mesh_mass(box.v.data(), box.nv(), box.f.data(), box.nf(), 0, &mp), grnMESH_ARG);
  EXPECT_EQ(grn_mesh_mass(nullptr, box.nv(), box.f.data(), box.nf(), kDensity, &mp), grnMESH_ARG);
  EXPECT_EQ(grn_mesh_mass(box.v.data(), box.nv(), box.f.data(), box.nf(), kDensity, nullptr),
            grnMESH_ARG);
  for (int s = grnMESH_OK; s <= grnMESH_MEMORY; s++) {
    EXPECT_STRNE(grn_mesh_status_string((grnMeshStatus)s), "unknown status");
  }
}

}  // namespace
