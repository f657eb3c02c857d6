// triangle meshes the kernel tests build: icospheres, boxes and an L-shaped prism, closed and
// outward-facing; the grid margin the plugin fits a mesh's clump with.
#ifndef MJGRANULAR_TESTS_KERNELS_GRN_MESH_UTIL_H_
#define MJGRANULAR_TESTS_KERNELS_GRN_MESH_UTIL_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace grn_test {

using V3 = std::array<double, 3>;

struct Mesh {
  std::vector<float> v;  // (nv x 3)
  std::vector<int> f;    // (nf x 3)
  int nv() const { return (int)v.size() / 3; }
  int nf() const { return (int)f.size() / 3; }
  V3 vert(int i) const { return {v[3 * i], v[3 * i + 1], v[3 * i + 2]}; }
};

// sphere of radius r: an icosahedron with each triangle split in four `level` times, outward
inline Mesh Icosphere(int level, double r) {
  const double t = (1 + std::sqrt(5.0)) / 2;
  std::vector<V3> p = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                       {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<std::array<int, 3>> f = {
      {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
      {3, 8, 9},  {4, 9, 5},  {2, 4, 11},  {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  auto unit = [](V3 a) {
    double n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    return V3{a[0] / n, a[1] / n, a[2] / n};
  };
  for (V3& a : p) a = unit(a);
  for (int l = 0; l < level; l++) {
    std::map<std::pair<int, int>, int> mid;
    auto midpoint = [&](int a, int b) {
      auto key = std::make_pair(std::min(a, b), std::max(a, b));
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      p.push_back(unit({p[a][0] + p[b][0], p[a][1] + p[b][1], p[a][2] + p[b][2]}));
      return mid[key] = (int)p.size() - 1;
    };
    std::vector<std::array<int, 3>> g;
    for (auto& tr : f) {
      int ab = midpoint(tr[0], tr[1]), bc = midpoint(tr[1], tr[2]), ca = midpoint(tr[2], tr[0]);
      g.push_back({tr[0], ab, ca});
      g.push_back({tr[1], bc, ab});
      g.push_back({tr[2], ca, bc});
      g.push_back({ab, bc, ca});
    }
    f = g;
  }
  Mesh m;
  for (V3& a : p) {
    for (int i = 0; i < 3; i++) m.v.push_back((float)(r * a[i]));
  }
  for (auto& tr : f) m.f.insert(m.f.end(), tr.begin(), tr.end());
  return m;
}

// box with half-extents h centred at c: 8 vertices, 12 outward triangles
inline Mesh BoxMesh(const V3& h, const V3& c = {0, 0, 0}) {
  Mesh m;
  for (int k = 0; k < 8; k++) {
    m.v.push_back((float)(c[0] + (k & 1 ? h[0] : -h[0])));
    m.v.push_back((float)(c[1] + (k & 2 ? h[1] : -h[1])));
    m.v.push_back((float)(c[2] + (k & 4 ? h[2] : -h[2])));
  }
  const int f[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6},   // -z, +z
                        {0, 1, 4}, {1, 5, 4}, {2, 6, 3}, {3, 6, 7},   // -y, +y
                        {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};  // -x, +x
  for (auto& t : f) m.f.insert(m.f.end(), t, t + 3);
  return m;
}

// an L-shaped prism: the polygon (0, 0) (a, 0) (a, t) (t, t) (t, a) (0, a), two legs of length a
// and width t (t < a) meeting at the origin, extruded over z in [-hz, hz]; 12 vertices, 20
// outward triangles
inline Mesh LPrism(double a, double t, double hz) {
  const double xy[6][2] = {{0, 0}, {a, 0}, {a, t}, {t, t}, {t, a}, {0, a}};
  Mesh m;
  for (int top = 0; top < 2; top++) {
    for (auto& p : xy) {
      m.v.insert(m.v.end(), {(float)p[0], (float)p[1], (float)(top ? hz : -hz)});
    }
  }
  // the caps: a fan from the corner (0, 0), which sees every vertex; the bottom one flipped
  for (int k = 1; k < 5; k++) {
    m.f.insert(m.f.end(), {6, 6 + k, 6 + k + 1});
    m.f.insert(m.f.end(), {0, k + 1, k});
  }
  // the sides: the polygon is counter-clockwise, so (bottom i, bottom j, top j) faces outward
  for (int i = 0; i < 6; i++) {
    int j = (i + 1) % 6;
    m.f.insert(m.f.end(), {i, j, 6 + j});
    m.f.insert(m.f.end(), {i, 6 + j, 6 + i});
  }
  return m;
}

// exact depth of p inside the L prism of LPrism(a, t, hz) (-1 outside): the nearer of the
// polygon's edges and the caps
inline double LDepth(const V3& p, double a, double t, double hz) {
  auto in_l = [&](double x, double y) {
    return (x >= 0 && x <= a && y >= 0 && y <= t) || (x >= 0 && x <= t && y >= 0 && y <= a);
  };
  const double xy[6][2] = {{0, 0}, {a, 0}, {a, t}, {t, t}, {t, a}, {0, a}};
  double edge = INFINITY;
  for (int i = 0; i < 6; i++) {
    const double *u = xy[i], *v = xy[(i + 1) % 6];
    double ex = v[0] - u[0], ey = v[1] - u[1], px = p[0] - u[0], py = p[1] - u[1];
    double s = std::fmin(1, std::fmax(0, (px * ex + py * ey) / (ex * ex + ey * ey)));
    edge = std::fmin(edge, std::hypot(px - s * ex, py - s * ey));
  }
  if (!in_l(p[0], p[1]) || std::fabs(p[2]) > hz) return -1;
  return std::fmin(edge, hz - std::fabs(p[2]));
}

// the plugin's grid margin (plugin/grain_types.c): half the smallest extent of the mesh's bounding
// box in whole cells, at least two, room for the spheres to reach out of the mesh
inline double PluginMargin(const Mesh& m, double cell) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < m.nv(); v++) {
    for (int a = 0; a < 3; a++) {
      lo[a] = std::fmin(lo[a], m.v[3 * v + a]);
      hi[a] = std::fmax(hi[a], m.v[3 * v + a]);
    }
  }
  double depth = 0.5 * std::fmin(hi[0] - lo[0], std::fmin(hi[1] - lo[1], hi[2] - lo[2]));
  return cell * std::fmax(2, std::ceil(depth / cell));
}

}  // namespace grn_test

#endif  // MJGRANULAR_TESTS_KERNELS_GRN_MESH_UTIL_H_
