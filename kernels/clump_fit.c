// a clump of spheres fitted to a mesh from its signed distance grid, in two steps.
//
// the centres: greedy over inscribed spheres. candidates: the nodes on the ridges of the distance
// field, where the depth grows by less than GRN_CLUMP_RIDGE per unit length towards every
// neighbour (off a ridge, a node's inscribed sphere lies nearly within the sphere of the neighbour
// it grows towards, so it never covers more). the greedy loop adds, one at a time, the candidate
// whose inscribed sphere most reduces the volume the clump misses. a sphere's gain only shrinks as
// others are added (covering is submodular), so a gain evaluated against fewer spheres bounds the
// gain now: only the candidates whose stale bound leads are evaluated again (lazy greedy, minoux
// 1978), which picks the same spheres as evaluating every candidate. the work is bounded: each
// candidate is evaluated at most once per sphere placed, a large sphere's gain is estimated from
// every few nodes (GRN_CLUMP_REACH), and at most GRN_CLUMP_MAX_SPHERES are placed.
//
// the radii: inscribed spheres leave an angular shape's corners and edges out (a cube misses a
// fifth of its volume at 16), and a clump that misses its corners packs as a rounded grain. so each
// radius is then refitted, in turn, to the one that leaves the least volume in one of mesh and
// clump but not the other, the others fixed (coordinate descent; it never makes the fit worse): a
// sphere grows out of the surface where it covers more of the mesh than it adds outside, as dem
// clump generators let spheres reach out so the clump keeps the mesh's volume. radii from the
// node's depth up, in steps of GRN_CLUMP_DR cells, only as far as the grid's nodes reach.
//
// volumes are sums over the nodes of occupancies: a node at signed distance s from a surface holds
// clamp(1/2 - s / cell, 0, 1) of its cell's volume, which integrates a flat surface exactly. the
// clump's occupancy uses the signed distance to the union of its spheres, min_i |x - c_i| - r_i.

#include "clump_fit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sdf_mesh.h"

// a node is on a ridge when its depth grows slower than this; on the meshes measured, 0.8 to 0.97
// pick the same spheres as taking every node, in a half to a quarter of the time
#define GRN_CLUMP_RIDGE 0.9
// a gain estimate walks at most this many steps from the centre; against 24, the deviations
// differ by under a point at 48 and 96 cells per size, the time a third to a fifth
#define GRN_CLUMP_REACH 12
// the radii tried for a sphere: its depth, then steps of GRN_CLUMP_DR cells, at most
// GRN_CLUMP_RADII in all
#define GRN_CLUMP_DR 0.25
#define GRN_CLUMP_RADII 64
// passes of refitting every radius at most; on the meshes measured the radii settle in two or three
#define GRN_CLUMP_PASSES 3

typedef struct grnClumpBuild_ {
  const float* sdf;            // the grid's signed distances (nodes)
  int n[3];                    // node counts
  size_t stride[3];            // node index steps along x, y, z
  double cell;                 // node spacing [m]
  float* clump;                // occupancy of each node by the spheres placed (nodes)
  int ncand;                   // number of candidates
  int* node;                   // node of each candidate, in node order (ncand)
  double* gain;                // each candidate's gain [cells] when last evaluated (ncand)
  int* stamp;                  // spheres placed when it was evaluated (ncand)
  int* heap;                   // candidates, the largest gain first (ncand)
  int* at;                     // node of each sphere placed (max_spheres)
  double* r;                   // radius [cells] of each sphere placed (max_spheres)
  int* near;                   // spheres near the one refitted (max_spheres)
  double by_radius[2 * GRN_CLUMP_RADII + 1];  // a gain's sums per radius
} grnClumpBuild;

// write a refusal's reason to msg
static grnStatus refuse(char* msg, int msg_size, const char* fmt, ...) {
  if (msg && msg_size > 0) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(msg, (size_t)msg_size, fmt, args);
    va_end(args);
  }
  return grnERR_ARG;
}

// share of a node's cell inside a surface at signed distance s (in cells) from the node
static inline double occupancy(double s) {
  double o = 0.5 - s;
  return o < 0 ? 0 : (o > 1 ? 1 : o);
}

static inline void node_ijk(const grnClumpBuild* b, size_t id, int* ijk) {
  ijk[0] = (int)(id % b->stride[1]);
  ijk[1] = (int)(id / b->stride[1] % (size_t)b->n[1]);
  ijk[2] = (int)(id / b->stride[2]);
}

//---------------------------------- candidates ----------------------------------------------------

// a node a cell deep or more whose depth grows slower than GRN_CLUMP_RIDGE towards every neighbour
static int on_ridge(const grnClumpBuild* b, size_t id) {
  double depth = -b->sdf[id] / b->cell;
  if (!(depth >= 1)) return 0;
  int c[3];
  node_ijk(b, id, c);
  for (int q = 0; q < 27; q++) {
    int o[3] = {q % 3 - 1, q / 3 % 3 - 1, q / 9 - 1}, in = 1;
    for (int a = 0; a < 3; a++) in &= c[a] + o[a] >= 0 && c[a] + o[a] < b->n[a];
    if (!in || q == 13) continue;
    size_t nb = id + o[0] * (ptrdiff_t)b->stride[0] + o[1] * (ptrdiff_t)b->stride[1] +
                o[2] * (ptrdiff_t)b->stride[2];
    double grow = -b->sdf[nb] / b->cell - depth;
    if (grow >= GRN_CLUMP_RIDGE * sqrt((double)(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]))) {
      return 0;
    }
  }
  return 1;
}

//---------------------------------- gains ---------------------------------------------------------

// largest radius [cells] the grid can measure for a sphere centred on node id: the nodes half a
// cell beyond it, where its occupancy vanishes, must lie inside the grid
static double reach_limit(const grnClumpBuild* b, size_t id) {
  int o[3];
  node_ijk(b, id, o);
  int room = o[0];
  for (int a = 0; a < 3; a++) {
    room = o[a] < room ? o[a] : room;
    room = b->n[a] - 1 - o[a] < room ? b->n[a] - 1 - o[a] : room;
  }
  return room - 0.5;
}

// the radii r0 + k GRN_CLUMP_DR, k < nr, for a sphere at distance d [cells] from a node whose
// mesh occupancy is mesh and whose clump occupancy without the sphere is old: what each radius
// reduces the volume in one of mesh and clump but not the other by, added to by. a node is covered
// fully by the radii from d + 1/2 on (by[k], the gain from radius k on: a running sum over the
// radii takes it), in part by those within half a cell of d (by[nr + 1 + k], at radius k alone)
static inline void accumulate(double* by, int nr, double r0, double d, double mesh, double old) {
  if (!(old < 1)) return;
  double first = ceil((d - 0.5 - r0) / GRN_CLUMP_DR), full = ceil((d + 0.5 - r0) / GRN_CLUMP_DR);
  if (first >= nr) return;
  int kf = full < nr ? (full > 0 ? (int)full : 0) : nr, k0 = first > 0 ? (int)first : 0;
  double was = fabs(mesh - old);
  by[kf] += was - fabs(mesh - 1);
  for (int q = k0; q < kf; q++) {
    double now = occupancy(d - (r0 + q * GRN_CLUMP_DR));
    if (now > old) by[nr + 1 + q] += was - fabs(mesh - now);
  }
}

// the radius index of the largest gain in by (the smallest radius of equal gains: no sphere larger
// than needed), its gain in *gain
static int best_radius(const double* by, int nr, double* gain) {
  double best = -INFINITY, run = 0;
  int pick = 0;
  for (int k = 0; k < nr; k++) {
    run += by[k];
    if (run + by[nr + 1 + k] > best) best = run + by[nr + 1 + k], pick = k;
  }
  *gain = best;
  return pick;
}

// how many radii from r0 [cells] the sphere at node id may take: up to what the grid measures
static int radii_from(const grnClumpBuild* b, size_t id, double r0) {
  double extra = reach_limit(b, id) - r0;
  return extra > 0 ? 1 + (int)fmin(floor(extra / GRN_CLUMP_DR), GRN_CLUMP_RADII - 1) : 1;
}

// the walk's first and last nodes inside the grid around node o, within reach, o[a] + a multiple
// of step
static void walk_box(const grnClumpBuild* b, const int* o, int reach, int step, int* lo, int* hi) {
  reach = reach / step * step;
  for (int a = 0; a < 3; a++) {
    lo[a] = o[a] - (o[a] < reach ? o[a] / step * step : reach);
    hi[a] = o[a] + (b->n[a] - 1 - o[a] < reach ? (b->n[a] - 1 - o[a]) / step * step : reach);
  }
}

static inline double node_distance(const int* o, int i, int j, int k) {
  return sqrt((double)(i - o[0]) * (i - o[0]) + (double)(j - o[1]) * (j - o[1]) +
              (double)(k - o[2]) * (k - o[2]));
}

// the reduction [cells] of the volume in one of mesh and clump but not the other that the
// inscribed sphere at node id brings (its radius the node's depth). an estimate reads the nodes
// at a stride that keeps the walk within GRN_CLUMP_REACH steps (fixed nodes per candidate, so its
// gains still only shrink); when apply, the sphere joins the clump, reading every node.
static double sphere_gain(grnClumpBuild* b, size_t id, int apply) {
  int o[3], lo[3], hi[3];
  node_ijk(b, id, o);
  double r = -b->sdf[id] / b->cell, by[3] = {0, 0, 0};
  int reach = (int)ceil(r + 0.5);  // occupancy vanishes half a cell beyond the sphere
  int step = apply ? 1 : (reach + GRN_CLUMP_REACH - 1) / GRN_CLUMP_REACH;
  walk_box(b, o, reach, step, lo, hi);
  for (int k = lo[2]; k <= hi[2]; k += step) {
    for (int j = lo[1]; j <= hi[1]; j += step) {
      for (int i = lo[0]; i <= hi[0]; i += step) {
        size_t x = i + j * b->stride[1] + k * b->stride[2];
        double d = node_distance(o, i, j, k), old = b->clump[x];
        accumulate(by, 1, r, d, occupancy(b->sdf[x] / b->cell), old);
        if (apply) b->clump[x] = (float)fmax(old, occupancy(d - r));
      }
    }
  }
  return (by[0] + by[2]) * step * step * step;
}

//---------------------------------- radii refitted ------------------------------------------------

// placed sphere s takes, among the radii from its depth up to what the grid measures, the one
// that leaves the least volume in one of mesh and clump but not the other, the other spheres as
// they are: the clump's occupancy without s is written over the nodes s may reach, then s joins
// at its new radius. every node is read: the difference it balances is small beside the volumes.
// 1 when the radius changed
static int refit(grnClumpBuild* b, int s, int placed) {
  size_t id = (size_t)b->at[s];
  int o[3], lo[3], hi[3];
  node_ijk(b, id, o);
  double r0 = -b->sdf[id] / b->cell;
  int nr = radii_from(b, id, r0), reach = (int)ceil(r0 + (nr - 1) * GRN_CLUMP_DR + 0.5);
  // the other spheres that reach into the walk
  int* near = b->near, nnear = 0, c[3];
  for (int t = 0; t < placed; t++) {
    node_ijk(b, (size_t)b->at[t], c);
    if (t != s && node_distance(o, c[0], c[1], c[2]) < b->r[t] + reach + 1) near[nnear++] = t;
  }
  double* by = b->by_radius;
  for (int k = 0; k <= 2 * nr; k++) by[k] = 0;
  walk_box(b, o, reach, 1, lo, hi);
  for (int k = lo[2]; k <= hi[2]; k++) {
    for (int j = lo[1]; j <= hi[1]; j++) {
      for (int i = lo[0]; i <= hi[0]; i++) {
        double d = node_distance(o, i, j, k);
        if (d - 0.5 >= reach) continue;
        double old = 0;
        for (int q = 0; q < nnear && old < 1; q++) {
          node_ijk(b, (size_t)b->at[near[q]], c);
          old = fmax(old, occupancy(node_distance(c, i, j, k) - b->r[near[q]]));
        }
        size_t x = i + j * b->stride[1] + k * b->stride[2];
        b->clump[x] = (float)old;
        accumulate(by, nr, r0, d, occupancy(b->sdf[x] / b->cell), old);
      }
    }
  }
  double gain, was = b->r[s];
  b->r[s] = r0 + best_radius(by, nr, &gain) * GRN_CLUMP_DR;
  for (int k = lo[2]; k <= hi[2]; k++) {
    for (int j = lo[1]; j <= hi[1]; j++) {
      for (int i = lo[0]; i <= hi[0]; i++) {
        size_t x = i + j * b->stride[1] + k * b->stride[2];
        b->clump[x] = (float)fmax(b->clump[x], occupancy(node_distance(o, i, j, k) - b->r[s]));
      }
    }
  }
  return b->r[s] != was;
}

// the clump of the first count spheres placed: inscribed, then each radius refitted to the
// others in turn until none changes; the volume [cells] in one of mesh and clump but not the other
static double settle(grnClumpBuild* b, int count) {
  size_t nodes = b->stride[2] * (size_t)b->n[2];
  for (size_t x = 0; x < nodes; x++) b->clump[x] = 0;
  for (int q = 0; q < count; q++) {
    b->r[q] = -b->sdf[b->at[q]] / b->cell;
    sphere_gain(b, (size_t)b->at[q], 1);
  }
  for (int pass = 0, changed = 1; changed && pass < GRN_CLUMP_PASSES; pass++) {
    changed = 0;
    for (int q = 0; q < count; q++) changed |= refit(b, q, count);
  }
  double apart = 0;
  for (size_t x = 0; x < nodes; x++) apart += fabs(occupancy(b->sdf[x] / b->cell) - b->clump[x]);
  return apart;
}

//---------------------------------- the heap of candidates ----------------------------------------

// candidate x leads y: a larger gain, ties to the earlier node (deterministic)
static inline int leads(const grnClumpBuild* b, int x, int y) {
  return b->gain[x] > b->gain[y] || (b->gain[x] == b->gain[y] && x < y);
}

static void sift_down(grnClumpBuild* b, int size, int at) {
  for (;;) {
    int best = at, l = 2 * at + 1, r = l + 1;
    if (l < size && leads(b, b->heap[l], b->heap[best])) best = l;
    if (r < size && leads(b, b->heap[r], b->heap[best])) best = r;
    if (best == at) return;
    int t = b->heap[at];
    b->heap[at] = b->heap[best];
    b->heap[best] = t;
    at = best;
  }
}

//---------------------------------- the fit's figures ---------------------------------------------

// signed distance [m] from p to the union of the spheres (n x 4)
static double clump_distance(const float* spheres, int n, const double* p) {
  double best = INFINITY;
  for (int s = 0; s < n; s++) {
    const float* c = spheres + 4 * s;
    double dx = p[0] - c[0], dy = p[1] - c[1], dz = p[2] - c[2];
    best = fmin(best, sqrt(dx * dx + dy * dy + dz * dz) - c[3]);
  }
  return best;
}

// volumes over the nodes, and the distance from the mesh surface to the clump's surface (either
// side: spheres reach out) at the nodes within a cell of the surface, each moved onto it along
// the grid's gradient (central differences)
static void measure(const grnClumpBuild* b, const grnGrid* g, const float* spheres,
                    grnClumpFit* fit) {
  size_t count = b->stride[2] * (size_t)b->n[2];
  double mesh = 0, clump = 0, apart = 0, sum = 0, worst = 0, h = b->cell;
  long samples = 0;
  for (size_t id = 0; id < count; id++) {
    double a = occupancy(b->sdf[id] / h), c = b->clump[id];
    mesh += a;
    clump += c;
    apart += fabs(a - c);
    double s = b->sdf[id];
    if (!(fabs(s) < h)) continue;
    int ijk[3];
    node_ijk(b, id, ijk);
    double grad[3], norm = 0, p[3];
    for (int a3 = 0; a3 < 3; a3++) {
      int up = ijk[a3] + 1 < b->n[a3], down = ijk[a3] > 0;
      double vu = b->sdf[id + up * b->stride[a3]], vd = b->sdf[id - down * b->stride[a3]];
      grad[a3] = (vu - vd) / ((up + down) * h);
      norm += grad[a3] * grad[a3];
    }
    if (!(norm > 0)) continue;
    norm = sqrt(norm);
    for (int a3 = 0; a3 < 3; a3++) p[a3] = g->origin[a3] + ijk[a3] * h - s * grad[a3] / norm;
    double e = fabs(clump_distance(spheres, fit->count, p));
    sum += e;
    worst = fmax(worst, e);
    samples++;
  }
  double cell3 = h * h * h;
  fit->mesh_volume = mesh * cell3;
  fit->clump_volume = clump * cell3;
  fit->volume_deviation = mesh > 0 ? apart / mesh : 0;
  fit->size = cbrt(6 * fit->mesh_volume / 3.14159265358979323846);
  fit->surface_mean = samples && fit->size > 0 ? sum / samples / fit->size : 0;
  fit->surface_max = fit->size > 0 ? worst / fit->size : 0;
}

//---------------------------------- the fit -------------------------------------------------------

static void build_free(grnClumpBuild* b) {
  free(b->clump);
  free(b->node);
  free(b->gain);
  free(b->at);
  free(b->r);
  free(b->near);
  free(b->stamp);
  free(b->heap);
}

grnStatus grn_clump_fit(const grnGrid* grid, int max_spheres, double tolerance, float* spheres,
                        grnClumpFit* fit, char* msg, int msg_size) {
  if (msg && msg_size > 0) msg[0] = '\0';
  if (!grid || !grid->values || !spheres || !fit) {
    return refuse(msg, msg_size, "a null grid, grid values, spheres or fit");
  }
  if (max_spheres < 1 || max_spheres > GRN_CLUMP_MAX_SPHERES) {
    return refuse(msg, msg_size, "the most spheres is %d, not within 1..%d", max_spheres,
                  GRN_CLUMP_MAX_SPHERES);
  }
  if (!(tolerance >= 0 && tolerance < 1)) {
    return refuse(msg, msg_size, "the tolerance is %g, not within [0, 1)", tolerance);
  }
  if (grid->nx < 2 || grid->ny < 2 || grid->nz < 2 ||
      (double)grid->nx * grid->ny * grid->nz > GRN_SDF_MAX_NODES) {
    return refuse(msg, msg_size, "the grid has %d x %d x %d nodes, not 2 to %d in all", grid->nx,
                  grid->ny, grid->nz, GRN_SDF_MAX_NODES);
  }
  if (!(grid->cell > 0) || !isfinite(grid->cell) || !isfinite(grid->origin[0]) ||
      !isfinite(grid->origin[1]) || !isfinite(grid->origin[2])) {
    return refuse(msg, msg_size, "the grid's cell or origin is not positive and finite");
  }
  grnClumpBuild b = {0};
  b.sdf = grid->values;
  b.n[0] = grid->nx;
  b.n[1] = grid->ny;
  b.n[2] = grid->nz;
  b.stride[0] = 1;
  b.stride[1] = (size_t)grid->nx;
  b.stride[2] = (size_t)grid->nx * grid->ny;
  b.cell = grid->cell;
  size_t count = b.stride[2] * (size_t)grid->nz;
  size_t inside = 0;
  for (size_t id = 0; id < count; id++) {
    if (!isfinite(b.sdf[id])) return refuse(msg, msg_size, "the grid holds a non-finite value");
    inside += b.sdf[id] < 0;
  }
  if (!inside) return refuse(msg, msg_size, "the grid has no node inside the mesh");

  // the candidates: ridge nodes, in node order
  b.clump = (float*)calloc(count, sizeof(float));
  b.node = (int*)malloc(sizeof(int) * inside);
  if (!b.clump || !b.node) {
    build_free(&b);
    return grnERR_MEMORY;
  }
  for (size_t id = 0; id < count; id++) {
    if (on_ridge(&b, id)) b.node[b.ncand++] = (int)id;
  }
  if (!b.ncand) {
    build_free(&b);
    return refuse(msg, msg_size,
                  "the grid is too coarse to hold one sphere: no node is a cell (%g) inside the "
                  "mesh", grid->cell);
  }
  b.gain = (double*)malloc(sizeof(double) * b.ncand);
  b.stamp = (int*)malloc(sizeof(int) * b.ncand);
  b.heap = (int*)malloc(sizeof(int) * b.ncand);
  b.at = (int*)malloc(sizeof(int) * max_spheres);
  b.r = (double*)malloc(sizeof(double) * max_spheres);
  b.near = (int*)malloc(sizeof(int) * max_spheres);
  if (!b.gain || !b.stamp || !b.heap || !b.at || !b.r || !b.near) {
    build_free(&b);
    return grnERR_MEMORY;
  }

  // every candidate's gain alone, then the heap
  double missing = 0;
  for (size_t id = 0; id < count; id++) missing += occupancy(b.sdf[id] / b.cell);
  double target = tolerance * missing;
  for (int c = 0; c < b.ncand; c++) {
    b.gain[c] = sphere_gain(&b, (size_t)b.node[c], 0);
    b.stamp[c] = 0;
    b.heap[c] = c;
  }
  for (int at = b.ncand / 2 - 1; at >= 0; at--) sift_down(&b, b.ncand, at);

  // greedy: the leading candidate, evaluated against the spheres placed so far, joins the clump
  int size = b.ncand, placed = 0;
  while (placed < max_spheres && size > 0 && missing > target) {
    int top = b.heap[0];
    if (b.stamp[top] != placed) {
      b.gain[top] = sphere_gain(&b, (size_t)b.node[top], 0);
      b.stamp[top] = placed;
      sift_down(&b, size, 0);
      continue;
    }
    if (!(b.gain[top] > 0)) break;
    missing -= sphere_gain(&b, (size_t)b.node[top], 1);
    b.at[placed] = b.node[top];
    placed++;
    b.heap[0] = b.heap[--size];
    sift_down(&b, size, 0);
  }

  // the fewest of them whose refitted clump meets the tolerance, by bisection (more spheres fit
  // better, as measured), else all
  if (target > 0) {
    int lo = 0, hi = placed;  // lo spheres miss the target; hi meet it or are all
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (settle(&b, mid) <= target) hi = mid;
      else lo = mid;
    }
    placed = hi;
  }
  settle(&b, placed);
  for (int q = 0; q < placed; q++) {
    int ijk[3];
    node_ijk(&b, (size_t)b.at[q], ijk);
    float* s = spheres + 4 * q;
    for (int a = 0; a < 3; a++) s[a] = (float)(grid->origin[a] + ijk[a] * (double)grid->cell);
    s[3] = (float)(b.r[q] * b.cell);
  }

  fit->count = placed;
  measure(&b, grid, spheres, fit);
  build_free(&b);
  return grnOK;
}
