// signed distance grids of triangle meshes. a median-split bounding volume hierarchy over the
// triangles answers exact nearest-triangle queries and, with a first-order dipole expansion per
// node, fast generalized winding numbers (barill et al. 2018). a grid is built in three passes:
// 1. band: exact distances at the nodes within the band of the surface, coarse lattice first so
//    that most nodes beyond the band are ruled out by the lipschitz bound without a search;
// 2. far: beyond the band, closest-triangle propagation by fast sweeping (upper bounds);
// 3. sign: winding numbers coarse to fine, a node inheriting its side from the corners of its
//    coarser cell when no surface lies between them, else computed.

#include "sdf_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GRN_TREE_LEAF 4        // most triangles in a leaf
#define GRN_TREE_STACK 128     // traversal stack; the tree is at most ~33 levels deep
#define GRN_WINDING_BETA 1.5   // far field when the distance to a node exceeds beta * its radius
#define GRN_WINDING_BETA_FINE 3.0   // the same, accurate: where the quick one is ambiguous
#define GRN_WINDING_AMBIGUOUS 0.25  // ambiguous: |winding| within this of one half
#define GRN_SDF_BAND_CELLS 4.0 // exact distances at least this many cells from the surface
#define GRN_SDF_LEVELS 2       // winding numbers on lattices of 4, 2, 1 cells, coarse to fine
#define GRN_4PI 12.566370614359172

typedef struct grnTreeNode_ {
  double lo[3], hi[3];         // bounding box of the node's triangles
  double cen[3];               // area-weighted centroid: the expansion centre
  double nrm[3];               // vector area: sum of area-weighted unit normals
  double mom[9];               // first moment sum_t (a n)_t (c_t - cen)^T, row-major
  double rad;                  // radius about cen enclosing the node's triangles
  double area;                 // total area
  int first, count;            // triangles [first, first + count) of a leaf; count 0: interior
  int child;                   // first of the two consecutive children of an interior node
} grnTreeNode;

// a node's bounding box for the nearest-triangle search, compact: rounded outward to float
typedef struct grnTreeBox_ {
  float lo[3];                 // lower corner
  int index;                   // first child (interior) or first triangle (leaf)
  float hi[3];                 // upper corner
  int count;                   // triangles of a leaf; 0: interior
} grnTreeBox;

// a node's expansion for the winding number, compact and in float
typedef struct grnTreeDipole_ {
  float cen[3];                // expansion centre
  float rad2;                  // squared radius about it
  float nrm[3];                // vector area
  int child;                   // first child; -1: a leaf
  float mom[9];                // first moment about the centre, row-major
  int first, count;            // triangles of a leaf
} grnTreeDipole;

struct grnMeshTree_ {
  int ntri;                    // number of triangles
  double* tri;                 // vertices of each triangle in tree order       (ntri x 9)
  double* ball;                // centroid and enclosing radius of each triangle (ntri x 4)
  int* order;                  // input index of each triangle in tree order    (ntri)
  int* rank;                   // tree position of each input triangle          (ntri)
  int nnode;                   // nodes in use
  grnTreeNode* node;           // the tree, root first; freed once built        (2 ntri - 1)
  grnTreeBox* box;             // the nodes' boxes, same order                  (2 ntri - 1)
  grnTreeDipole* dip;          // the nodes' expansions, same order             (2 ntri - 1)
};

//---------------------------------- small vector helpers ------------------------------------------

static inline double dot3(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline void sub3(double* r, const double* a, const double* b) {
  r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}

static inline void cross3(double* r, const double* a, const double* b) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}

//---------------------------------- triangle primitives -------------------------------------------

// squared distance from p to the segment ab
static double segment_dist2(const double* p, const double* a, const double* b) {
  double ab[3], ap[3], d[3];
  sub3(ab, b, a);
  sub3(ap, p, a);
  double len2 = dot3(ab, ab), t = len2 > 0 ? dot3(ap, ab) / len2 : 0;
  t = t < 0 ? 0 : (t > 1 ? 1 : t);
  for (int i = 0; i < 3; i++) d[i] = ap[i] - t * ab[i];
  return dot3(d, d);
}

// squared distance from p to the triangle t (9): voronoi regions of the closest point (ericson,
// real-time collision detection 5.1.5); degenerate triangles fall back to their edges
static double triangle_dist2(const double* p, const double* t) {
  const double *a = t, *b = t + 3, *c = t + 6;
  double ab[3], ac[3], ap[3], bp[3], cp[3], q[3], d[3];
  sub3(ab, b, a);
  sub3(ac, c, a);
  sub3(ap, p, a);
  double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
  if (d1 <= 0 && d2 <= 0) return dot3(ap, ap);  // vertex a
  sub3(bp, p, b);
  double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
  if (d3 >= 0 && d4 <= d3) return dot3(bp, bp);  // vertex b
  sub3(cp, p, c);
  double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
  if (d6 >= 0 && d5 <= d6) return dot3(cp, cp);  // vertex c
  double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
  if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0) {
    // edge ab
    double v = d1 / (d1 - d3);
    for (int i = 0; i < 3; i++) d[i] = ap[i] - v * ab[i];
    return dot3(d, d);
  }
  if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0) {
    // edge ac
    double w = d2 / (d2 - d6);
    for (int i = 0; i < 3; i++) d[i] = ap[i] - w * ac[i];
    return dot3(d, d);
  }
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0 && (d4 - d3) + (d5 - d6) > 0) {
    // edge bc
    double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int i = 0; i < 3; i++) d[i] = bp[i] - w * (c[i] - b[i]);
    return dot3(d, d);
  }
  double denom = va + vb + vc;
  if (!(denom > 1e-300) || va < 0 || vb < 0 || vc < 0) {
    // degenerate (zero-area) triangle: the nearest of its edges
    double e0 = segment_dist2(p, a, b), e1 = segment_dist2(p, b, c), e2 = segment_dist2(p, c, a);
    return fmin(e0, fmin(e1, e2));
  }
  // face interior
  double v = vb / denom, w = vc / denom;
  for (int i = 0; i < 3; i++) q[i] = a[i] + v * ab[i] + w * ac[i];
  sub3(d, p, q);
  return dot3(d, d);
}

// solid angle of the triangle t (9) seen from p, signed positive when p is behind its
// counter-clockwise face (van oosterom and strackee 1983)
static double triangle_solid_angle(const double* p, const double* t) {
  double a[3], b[3], c[3], bc[3];
  sub3(a, t, p);
  sub3(b, t + 3, p);
  sub3(c, t + 6, p);
  double la = sqrt(dot3(a, a)), lb = sqrt(dot3(b, b)), lc = sqrt(dot3(c, c));
  cross3(bc, b, c);
  double det = dot3(a, bc);
  double den = la * lb * lc + dot3(a, b) * lc + dot3(b, c) * la + dot3(c, a) * lb;
  return 2 * atan2(det, den);
}

// squared distance from p to a float box
static inline float tree_box_dist2(const float* p, const grnTreeBox* b) {
  float s = 0;
  for (int i = 0; i < 3; i++) {
    float e = p[i] < b->lo[i] ? b->lo[i] - p[i] : (p[i] > b->hi[i] ? p[i] - b->hi[i] : 0.0f);
    s += e * e;
  }
  return s;
}

//---------------------------------- tree build ----------------------------------------------------

// reorder idx[0, n) so that idx[k] holds the element of rank k by key[3 * idx + axis]
static void select_kth(int* idx, int n, int k, const double* key, int axis) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = key[3 * idx[(lo + hi) / 2] + axis];
    int i = lo, j = hi;
    while (i <= j) {
      while (key[3 * idx[i] + axis] < pivot) i++;
      while (key[3 * idx[j] + axis] > pivot) j--;
      if (i <= j) {
        int tmp = idx[i]; idx[i] = idx[j]; idx[j] = tmp;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

// expansion data of a node from its own triangles (leaf) or its children (interior)
static void node_moments(grnMeshTree* tr, grnTreeNode* nd) {
  double area = 0, cen[3] = {0, 0, 0}, nrm[3] = {0, 0, 0}, s[9] = {0};
  if (nd->count) {
    // leaf: sum over triangles of the vector area and its first moment about the origin
    for (int t = nd->first; t < nd->first + nd->count; t++) {
      const double* v = tr->tri + 9 * t;
      double e1[3], e2[3], an[3], c[3];
      sub3(e1, v + 3, v);
      sub3(e2, v + 6, v);
      cross3(an, e1, e2);
      for (int i = 0; i < 3; i++) {
        an[i] *= 0.5;
        c[i] = (v[i] + v[3 + i] + v[6 + i]) / 3;
      }
      double a = sqrt(dot3(an, an));
      area += a;
      for (int i = 0; i < 3; i++) {
        cen[i] += a * c[i];
        nrm[i] += an[i];
        for (int j = 0; j < 3; j++) s[3 * i + j] += an[i] * c[j];
      }
    }
  } else {
    // interior: combine the children, moving their moments back to the origin
    for (int ch = 0; ch < 2; ch++) {
      const grnTreeNode* c = tr->node + nd->child + ch;
      area += c->area;
      for (int i = 0; i < 3; i++) {
        cen[i] += c->area * c->cen[i];
        nrm[i] += c->nrm[i];
        for (int j = 0; j < 3; j++) s[3 * i + j] += c->mom[3 * i + j] + c->nrm[i] * c->cen[j];
      }
    }
  }
  // expansion centre: the area-weighted centroid, or the box centre when the area is zero
  for (int i = 0; i < 3; i++) {
    cen[i] = area > 0 ? cen[i] / area : 0.5 * (nd->lo[i] + nd->hi[i]);
    cen[i] = fmin(fmax(cen[i], nd->lo[i]), nd->hi[i]);
  }
  nd->area = area;
  memcpy(nd->cen, cen, sizeof(cen));
  memcpy(nd->nrm, nrm, sizeof(nrm));
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) nd->mom[3 * i + j] = s[3 * i + j] - nrm[i] * cen[j];
  }
  // radius about the centre: the farthest vertex of a leaf; for an interior node the children's
  // spheres, or the box corners when those are tighter
  double r2 = 0, rc = 0;
  if (nd->count) {
    for (int t = nd->first; t < nd->first + nd->count; t++) {
      for (int v = 0; v < 3; v++) {
        double d[3];
        sub3(d, tr->tri + 9 * t + 3 * v, cen);
        r2 = fmax(r2, dot3(d, d));
      }
    }
  } else {
    for (int ch = 0; ch < 2; ch++) {
      const grnTreeNode* c = tr->node + nd->child + ch;
      double d[3];
      sub3(d, c->cen, cen);
      rc = fmax(rc, sqrt(dot3(d, d)) + c->rad);
    }
    for (int k = 0; k < 8; k++) {
      double d[3] = {(k & 1 ? nd->hi[0] : nd->lo[0]) - cen[0],
                     (k & 2 ? nd->hi[1] : nd->lo[1]) - cen[1],
                     (k & 4 ? nd->hi[2] : nd->lo[2]) - cen[2]};
      r2 = fmax(r2, dot3(d, d));
    }
    r2 = fmin(r2, rc * rc);
  }
  nd->rad = sqrt(r2);
}

// build the subtree of node over input triangles idx[first, first + count)
static void build_node(grnMeshTree* tr, int node, int* idx, int first, int count,
                       const double* cent, const double* box) {
  grnTreeNode* nd = tr->node + node;
  // bounding boxes of the triangles and of their centroids
  double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = 0; i < 3; i++) { nd->lo[i] = INFINITY; nd->hi[i] = -INFINITY; }
  for (int k = first; k < first + count; k++) {
    int t = idx[k];
    for (int i = 0; i < 3; i++) {
      nd->lo[i] = fmin(nd->lo[i], box[6 * t + i]);
      nd->hi[i] = fmax(nd->hi[i], box[6 * t + 3 + i]);
      clo[i] = fmin(clo[i], cent[3 * t + i]);
      chi[i] = fmax(chi[i], cent[3 * t + i]);
    }
  }
  nd->first = first;
  nd->count = count;
  nd->child = -1;
  if (count > GRN_TREE_LEAF) {
    // split at the median centroid along the widest axis (or just in half when all coincide)
    int axis = 0;
    for (int i = 1; i < 3; i++) {
      if (chi[i] - clo[i] > chi[axis] - clo[axis]) axis = i;
    }
    int half = count / 2;
    if (chi[axis] > clo[axis]) select_kth(idx + first, count, half, cent, axis);
    nd->count = 0;
    nd->child = tr->nnode;
    tr->nnode += 2;
    build_node(tr, nd->child, idx, first, half, cent, box);
    build_node(tr, nd->child + 1, idx, first + half, count - half, cent, box);
  } else {
    // leaf: its triangles in tree order
    for (int k = first; k < first + count; k++) {
      int t = idx[k];
      tr->order[k] = t;
      tr->rank[t] = k;
    }
  }
}

// compute expansions bottom-up (children always follow their parent in the node array)
static void tree_moments(grnMeshTree* tr) {
  for (int n = tr->nnode - 1; n >= 0; n--) node_moments(tr, tr->node + n);
}

grnStatus grn_mesh_tree_create(const float* vert, int nvert, const int* face, int nface,
                               grnMeshTree** out) {
  if (!out) return grnERR_ARG;
  *out = NULL;
  if (!vert || !face || nvert < 3 || nface < 1 || nface > (1 << 28)) return grnERR_ARG;
  // refuse non-finite vertices and out-of-range indices
  for (long i = 0; i < 3L * nvert; i++) {
    if (!isfinite(vert[i])) return grnERR_ARG;
  }
  for (long i = 0; i < 3L * nface; i++) {
    if (face[i] < 0 || face[i] >= nvert) return grnERR_ARG;
  }

  grnMeshTree* tr = (grnMeshTree*)calloc(1, sizeof(grnMeshTree));
  double* cent = (double*)malloc(sizeof(double) * 3 * nface);
  double* box = (double*)malloc(sizeof(double) * 6 * nface);
  int* idx = (int*)malloc(sizeof(int) * nface);
  if (tr) {
    tr->ntri = nface;
    tr->tri = (double*)malloc(sizeof(double) * 9 * nface);
    tr->ball = (double*)malloc(sizeof(double) * 4 * nface);
    tr->order = (int*)malloc(sizeof(int) * nface);
    tr->rank = (int*)malloc(sizeof(int) * nface);
    tr->node = (grnTreeNode*)malloc(sizeof(grnTreeNode) * (2 * (size_t)nface - 1));
    tr->box = (grnTreeBox*)malloc(sizeof(grnTreeBox) * (2 * (size_t)nface - 1));
    tr->dip = (grnTreeDipole*)malloc(sizeof(grnTreeDipole) * (2 * (size_t)nface - 1));
  }
  if (!tr || !cent || !box || !idx || !tr->tri || !tr->ball || !tr->order || !tr->rank ||
      !tr->node || !tr->box || !tr->dip) {
    free(cent);
    free(box);
    free(idx);
    grn_mesh_tree_free(tr);
    return grnERR_MEMORY;
  }

  // per-triangle centroid and bounding box
  for (int t = 0; t < nface; t++) {
    idx[t] = t;
    for (int i = 0; i < 3; i++) {
      double a = vert[3 * face[3 * t] + i], b = vert[3 * face[3 * t + 1] + i];
      double c = vert[3 * face[3 * t + 2] + i];
      cent[3 * t + i] = (a + b + c) / 3;
      box[6 * t + i] = fmin(a, fmin(b, c));
      box[6 * t + 3 + i] = fmax(a, fmax(b, c));
    }
  }

  // the tree, then the triangles in tree order, then the expansions
  tr->nnode = 1;
  build_node(tr, 0, idx, 0, nface, cent, box);
  for (int k = 0; k < nface; k++) {
    int t = tr->order[k];
    for (int v = 0; v < 3; v++) {
      for (int i = 0; i < 3; i++) tr->tri[9 * k + 3 * v + i] = vert[3 * face[3 * t + v] + i];
    }
  }
  for (int k = 0; k < nface; k++) {
    // each triangle's centroid and the distance from it to the farthest vertex
    const double* v = tr->tri + 9 * k;
    double* b = tr->ball + 4 * k;
    double r2 = 0;
    for (int i = 0; i < 3; i++) b[i] = (v[i] + v[3 + i] + v[6 + i]) / 3;
    for (int j = 0; j < 3; j++) {
      double d[3];
      sub3(d, v + 3 * j, b);
      r2 = fmax(r2, dot3(d, d));
    }
    b[3] = sqrt(r2);
  }
  tree_moments(tr);

  // compact copies for the queries: boxes rounded outward to float, expansions in float
  for (int n = 0; n < tr->nnode; n++) {
    const grnTreeNode* nd = tr->node + n;
    grnTreeBox* b = tr->box + n;
    for (int i = 0; i < 3; i++) {
      b->lo[i] = (float)nd->lo[i];
      b->hi[i] = (float)nd->hi[i];
      if (b->lo[i] > nd->lo[i]) b->lo[i] = nextafterf(b->lo[i], -INFINITY);
      if (b->hi[i] < nd->hi[i]) b->hi[i] = nextafterf(b->hi[i], INFINITY);
    }
    b->index = nd->count ? nd->first : nd->child;
    b->count = nd->count;
    grnTreeDipole* e = tr->dip + n;
    for (int i = 0; i < 3; i++) {
      e->cen[i] = (float)nd->cen[i];
      e->nrm[i] = (float)nd->nrm[i];
    }
    for (int i = 0; i < 9; i++) e->mom[i] = (float)nd->mom[i];
    e->rad2 = (float)(nd->rad * nd->rad);
    e->child = nd->count ? -1 : nd->child;
    e->first = nd->first;
    e->count = nd->count;
  }
  free(tr->node);
  tr->node = NULL;

  free(cent);
  free(box);
  free(idx);
  *out = tr;
  return grnOK;
}

void grn_mesh_tree_free(grnMeshTree* tr) {
  if (!tr) return;
  free(tr->tri);
  free(tr->ball);
  free(tr->order);
  free(tr->rank);
  free(tr->node);
  free(tr->box);
  free(tr->dip);
  free(tr);
}

//---------------------------------- queries -------------------------------------------------------

// whether triangle t is certainly no nearer to p than best, by its enclosing ball
static inline int triangle_beyond(const grnMeshTree* tr, const double* p, int t, double best) {
  const double* b = tr->ball + 4 * t;
  double d[3];
  sub3(d, p, b);
  double lim = b[3] + best;
  return dot3(d, d) >= lim * lim;
}

// squared distance to the nearest triangle closer than sqrt(bound2), or bound2 when none is; its
// tree order index in *best (-1: none), which on entry may hold a seed triangle (or -1)
static double tree_nearest2(const grnMeshTree* tr, const double* p, double bound2, int* best) {
  double best2 = bound2;
  int seed = *best;
  *best = -1;
  if (seed >= 0) {
    double d2 = triangle_dist2(p, tr->tri + 9 * seed);
    if (d2 < best2) { best2 = d2; *best = seed; }
  }
  double bestd = sqrt(best2);
  float pf[3] = {(float)p[0], (float)p[1], (float)p[2]};
  int stack[GRN_TREE_STACK];
  float sd2[GRN_TREE_STACK];
  int top = 0;
  stack[top] = 0;
  sd2[top++] = tree_box_dist2(pf, tr->box);
  while (top) {
    top--;
    if (sd2[top] >= best2) continue;
    const grnTreeBox* nd = tr->box + stack[top];
    if (nd->count) {
      // leaf: test its triangles
      for (int t = nd->index; t < nd->index + nd->count; t++) {
        if (triangle_beyond(tr, p, t, bestd)) continue;
        double d2 = triangle_dist2(p, tr->tri + 9 * t);
        if (d2 < best2) { best2 = d2; bestd = sqrt(d2); *best = t; }
      }
      continue;
    }
    // interior: visit the nearer child first (pushed last)
    int c0 = nd->index, c1 = nd->index + 1;
    float b0 = tree_box_dist2(pf, tr->box + c0), b1 = tree_box_dist2(pf, tr->box + c1);
    if (b0 < b1) {
      int ti = c0; c0 = c1; c1 = ti;
      float tb = b0; b0 = b1; b1 = tb;
    }
    if (b0 < best2 && top < GRN_TREE_STACK) { stack[top] = c0; sd2[top++] = b0; }
    if (b1 < best2 && top < GRN_TREE_STACK) { stack[top] = c1; sd2[top++] = b1; }
  }
  return best2;
}

double grn_mesh_tree_distance(const grnMeshTree* tr, const double* p, int hint, int* tri) {
  if (!tr || !p) return NAN;
  int best = hint >= 0 && hint < tr->ntri ? tr->rank[hint] : -1;
  double d2 = tree_nearest2(tr, p, INFINITY, &best);
  if (tri) *tri = best >= 0 ? tr->order[best] : -1;
  return sqrt(d2);
}

// far-field winding number of a node (times 4 pi): its vector area and first moment seen from
// the point at r = centre - point
static inline float node_far_field(const grnTreeDipole* nd, const float* r, float r2) {
  float inv = 1 / sqrtf(r2), inv3 = inv * inv * inv, inv5 = inv3 * inv * inv;
  const float* m = nd->mom;
  float mr0 = m[0] * r[0] + m[1] * r[1] + m[2] * r[2];
  float mr1 = m[3] * r[0] + m[4] * r[1] + m[5] * r[2];
  float mr2 = m[6] * r[0] + m[7] * r[1] + m[8] * r[2];
  float nr = nd->nrm[0] * r[0] + nd->nrm[1] * r[1] + nd->nrm[2] * r[2];
  return (nr + m[0] + m[4] + m[8]) * inv3 - 3 * (r[0] * mr0 + r[1] * mr1 + r[2] * mr2) * inv5;
}

// winding number at p with far-field expansions (in float) beyond beta node radii and exact
// solid angles (in double) of the near leaves
static double tree_winding(const grnMeshTree* tr, const double* p, double beta) {
  double w = 0;
  float far = 0, beta2 = (float)(beta * beta), pf[3] = {(float)p[0], (float)p[1], (float)p[2]};
  int stack[GRN_TREE_STACK], top = 0;
  stack[top++] = 0;
  while (top) {
    const grnTreeDipole* nd = tr->dip + stack[--top];
    float r[3] = {nd->cen[0] - pf[0], nd->cen[1] - pf[1], nd->cen[2] - pf[2]};
    float r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if (r2 > beta2 * nd->rad2) {
      // far: the node's dipole expansion
      far += node_far_field(nd, r, r2);
    } else if (nd->child < 0) {
      // near leaf: exact solid angles
      for (int t = nd->first; t < nd->first + nd->count; t++) {
        w += triangle_solid_angle(p, tr->tri + 9 * t);
      }
    } else if (top + 2 <= GRN_TREE_STACK) {
      stack[top++] = nd->child;
      stack[top++] = nd->child + 1;
    }
  }
  return (w + far) / GRN_4PI;
}

double grn_mesh_tree_winding(const grnMeshTree* tr, const double* p) {
  if (!tr || !p) return NAN;
  return tree_winding(tr, p, GRN_WINDING_BETA_FINE);
}

// winding number good enough to tell the side: a quick estimate settles it unless it is near
// one half (next to holes), where the accurate one decides
static double tree_winding_side(const grnMeshTree* tr, const double* p) {
  double w = tree_winding(tr, p, GRN_WINDING_BETA);
  if (fabs(fabs(w) - 0.5) < GRN_WINDING_AMBIGUOUS) w = tree_winding(tr, p, GRN_WINDING_BETA_FINE);
  return w;
}

//---------------------------------- grids ---------------------------------------------------------

// the grid being built and the tree it samples
typedef struct grnSdfBuild_ {
  const grnMeshTree* tree;     // triangles
  int n[3];                    // node counts
  size_t stride[3];            // 1, nx, nx ny
  double org[3];               // node (0, 0, 0)
  double cell;                 // node spacing
  double band;                 // nodes closer than this to the surface have exact distances
  float* dist;                 // unsigned distance                               (nodes)
  int* near;                   // nearest triangle found, tree order, -1: none    (nodes)
  float* wind;                 // winding number, computed or certified           (nodes)
} grnSdfBuild;

static inline void node_point(const grnSdfBuild* b, int i, int j, int k, double* p) {
  p[0] = b->org[0] + i * b->cell;
  p[1] = b->org[1] + j * b->cell;
  p[2] = b->org[2] + k * b->cell;
}

// exact distances within the band, coarse to fine: first on the lattice of spacing
// 2^GRN_SDF_LEVELS cells with a wider bound; a finer node farther from its nearest lattice node's
// distance than the band (the distance is 1-lipschitz) is known to be beyond the band and skipped.
// one row along x per task, each search seeded with the previous node's nearest triangle
static void build_band(grnSdfBuild* b) {
  int nx = b->n[0], ny = b->n[1], nz = b->n[2], s = 1 << GRN_SDF_LEVELS;
  double wide = b->band + 2 * s * b->cell;
  for (int pass = 0; pass < 2; pass++) {
    int step = pass == 0 ? s : 1;
    int my = (ny - 1) / step + 1, mz = (nz - 1) / step + 1;
    double bound2 = pass == 0 ? wide * wide : b->band * b->band;
    long rows = (long)my * mz;
    #pragma omp parallel for schedule(dynamic, 4)
    for (long r = 0; r < rows; r++) {
      int j = (int)(r % my) * step, k = (int)(r / my) * step, seed = -1;
      for (int i = 0; i < nx; i += step) {
        size_t id = i + j * b->stride[1] + k * b->stride[2];
        if (pass == 1) {
          // lattice nodes are done; skip nodes the nearest lattice node shows to be far
          if (i % s == 0 && j % s == 0 && k % s == 0) continue;
          int c[3] = {(i + s / 2) / s * s, (j + s / 2) / s * s, (k + s / 2) / s * s};
          if (c[0] >= nx) c[0] -= s;
          if (c[1] >= ny) c[1] -= s;
          if (c[2] >= nz) c[2] -= s;
          size_t cid = c[0] + c[1] * b->stride[1] + c[2] * b->stride[2];
          double dc = b->near[cid] >= 0 ? b->dist[cid] : wide;
          double off = b->cell * sqrt((double)(i - c[0]) * (i - c[0]) + (double)(j - c[1]) * (j - c[1]) +
                                      (double)(k - c[2]) * (k - c[2]));
          if (dc - off > b->band) {
            b->near[id] = -1;
            b->dist[id] = INFINITY;
            continue;
          }
        }
        double p[3];
        node_point(b, i, j, k, p);
        int t = seed;
        double d2 = tree_nearest2(b->tree, p, bound2, &t);
        // (a lattice node between the band and the wider bound keeps its exact distance)
        b->near[id] = t;
        b->dist[id] = t >= 0 ? (float)sqrt(d2) : INFINITY;
        if (t >= 0) seed = t;
      }
    }
  }
}

// try triangle t (tree order) for the far node id at p: keep it if it is nearer
static inline void far_try(grnSdfBuild* b, size_t id, const double* p, int t) {
  if (t < 0 || t == b->near[id]) return;
  double cur = b->dist[id];
  if (triangle_beyond(b->tree, p, t, cur)) return;
  float d = (float)sqrt(triangle_dist2(p, b->tree->tri + 9 * t));
  if (d < b->dist[id]) {
    b->dist[id] = d;
    b->near[id] = t;
  }
}

// beyond the band: closest-triangle propagation (as in batty's sdfgen). on the lattice of spacing
// 2 cells, fast sweeping in the eight axis orders: a far node takes the nearest of its upwind
// neighbours' triangles (sequential: an eighth of the nodes, in memory order). then, in parallel,
// each other far node takes the nearest of the triangles of the eight corners of its lattice
// cell. every value is an exact distance to a real triangle: an upper bound on the distance,
// exact at most nodes and within a fraction of a cell at the others.
static void build_far(grnSdfBuild* b) {
  const int s = 2;
  int nx = b->n[0], ny = b->n[1], nz = b->n[2];
  int mx = (nx - 1) / s + 1, my = (ny - 1) / s + 1, mz = (nz - 1) / s + 1;
  for (int dir = 0; dir < 8; dir++) {
    int di = dir & 1 ? -1 : 1, dj = dir & 2 ? -1 : 1, dk = dir & 4 ? -1 : 1;
    long si = di * s, sj = dj * s * (long)b->stride[1], sk = dk * s * (long)b->stride[2];
    for (int kk = 0; kk < mz; kk++) {
      int k = s * (dk > 0 ? kk : mz - 1 - kk);
      for (int jj = 0; jj < my; jj++) {
        int j = s * (dj > 0 ? jj : my - 1 - jj);
        for (int ii = 0; ii < mx; ii++) {
          int i = s * (di > 0 ? ii : mx - 1 - ii);
          size_t id = i + j * b->stride[1] + k * b->stride[2];
          if (b->dist[id] <= b->band) continue;
          // upwind lattice neighbours along each axis
          double p[3];
          node_point(b, i, j, k, p);
          if (ii > 0) far_try(b, id, p, b->near[(long)id - si]);
          if (jj > 0) far_try(b, id, p, b->near[(long)id - sj]);
          if (kk > 0) far_try(b, id, p, b->near[(long)id - sk]);
        }
      }
    }
  }

  // the other far nodes, from the corners of their lattice cell
  long rows = (long)ny * nz;
  #pragma omp parallel for schedule(dynamic, 16)
  for (long r = 0; r < rows; r++) {
    int j = (int)(r % ny), k = (int)(r / ny);
    int j0 = j / s * s, k0 = k / s * s;
    int j1 = j0 + s < ny ? j0 + s : j0, k1 = k0 + s < nz ? k0 + s : k0;
    for (int i = 0; i < nx; i++) {
      size_t id = (size_t)r * nx + i;
      if (b->dist[id] <= b->band || (i % s == 0 && j % s == 0 && k % s == 0)) continue;
      int i0 = i / s * s, i1 = i0 + s < nx ? i0 + s : i0;
      double p[3];
      node_point(b, i, j, k, p);
      for (int q = 0; q < 8; q++) {
        size_t cid = (q & 1 ? i1 : i0) + (q & 2 ? j1 : j0) * b->stride[1] +
                     (q & 4 ? k1 : k0) * b->stride[2];
        far_try(b, id, p, b->near[cid]);
      }
    }
  }
}

// winding numbers coarse to fine. on the lattice of spacing 2^GRN_SDF_LEVELS cells every node is
// computed; on each finer lattice a node whose distance to the surface exceeds the distance to
// the eight nodes of the enclosing coarser cell takes their winding number when they agree on
// the side: the ball about the node holds no surface, so for a closed mesh the winding number is
// the same over it, and for an open one it varies smoothly there. other nodes are computed.
static void build_winding(grnSdfBuild* b) {
  // (inherited values are the corners' mean magnitude: only the side matters from here on)
  int nx = b->n[0], ny = b->n[1], nz = b->n[2];
  for (int level = GRN_SDF_LEVELS; level >= 0; level--) {
    int s = 1 << level, s2 = 2 * s;
    int my = (ny - 1) / s + 1, mz = (nz - 1) / s + 1;
    double reach = sqrt(3.0) * s * b->cell;
    long rows = (long)my * mz;
    #pragma omp parallel for schedule(dynamic, 4)
    for (long r = 0; r < rows; r++) {
      int j = (int)(r % my) * s, k = (int)(r / my) * s;
      for (int i = 0; i < nx; i += s) {
        // nodes of coarser lattices are done
        if (level < GRN_SDF_LEVELS && i % s2 == 0 && j % s2 == 0 && k % s2 == 0) continue;
        size_t id = i + j * b->stride[1] + k * b->stride[2];
        if (level < GRN_SDF_LEVELS) {
          // lower bound of the distance: exact within the band, else the band
          double dlow = b->dist[id] <= b->band ? b->dist[id] : b->band;
          // the enclosing coarser cell's corners, or the edge or face of it the node lies on:
          // all within reach of the node
          int c0[3] = {i / s2 * s2, j / s2 * s2, k / s2 * s2};
          int odd[3] = {i != c0[0], j != c0[1], k != c0[2]};
          if (dlow > reach && c0[0] + s2 * odd[0] < nx && c0[1] + s2 * odd[1] < ny &&
              c0[2] + s2 * odd[2] < nz) {
            int in = 0, out = 0;
            float sum = 0;
            for (int q = 0; q < 8; q++) {
              size_t cid = (c0[0] + (q & 1) * s2 * odd[0]) +
                           (c0[1] + (q >> 1 & 1) * s2 * odd[1]) * b->stride[1] +
                           (c0[2] + (q >> 2 & 1) * s2 * odd[2]) * b->stride[2];
              float w = fabsf(b->wind[cid]);
              sum += w;
              in += w > 0.75f;
              out += w < 0.25f;
            }
            if (in == 8 || out == 8) {
              b->wind[id] = sum / 8;
              continue;
            }
          }
        }
        double p[3];
        node_point(b, i, j, k, p);
        b->wind[id] = (float)tree_winding_side(b->tree, p);
      }
    }
  }
}

grnStatus grn_sdf_mesh_build(const float* vert, int nvert, const int* face, int nface,
                             float cell, float margin, grnGrid* grid) {
  if (!grid) return grnERR_ARG;
  memset(grid, 0, sizeof(*grid));
  if (!vert || !face || nvert < 3 || nface < 1) return grnERR_ARG;
  if (!(cell > 0) || !isfinite(cell) || !(margin >= 0) || !isfinite(margin)) return grnERR_ARG;

  // bounding box of the faces (each index checked before its vertex is read)
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (long k = 0; k < 3L * nface; k++) {
    if (face[k] < 0 || face[k] >= nvert) return grnERR_ARG;
    for (int i = 0; i < 3; i++) {
      double v = vert[3 * face[k] + i];
      if (!isfinite(v)) return grnERR_ARG;
      lo[i] = fmin(lo[i], v);
      hi[i] = fmax(hi[i], v);
    }
  }

  // node counts covering the box plus margin, the grid centred on the box
  grnSdfBuild b;
  memset(&b, 0, sizeof(b));
  double total = 1;
  for (int i = 0; i < 3; i++) {
    double cells = ceil((hi[i] - lo[i] + 2.0 * margin) / cell * (1 - 1e-9));
    if (!(cells < GRN_SDF_MAX_NODES)) return grnERR_ARG;
    b.n[i] = cells < 1 ? 2 : (int)cells + 1;
    total *= b.n[i];
  }
  if (total > GRN_SDF_MAX_NODES) return grnERR_ARG;
  for (int i = 0; i < 3; i++) {
    // the origin as stored (float), so that nodes sit exactly where lookups expect them
    b.org[i] = (float)(0.5 * (lo[i] + hi[i]) - 0.5 * (b.n[i] - 1) * (double)cell);
  }
  b.stride[0] = 1;
  b.stride[1] = (size_t)b.n[0];
  b.stride[2] = (size_t)b.n[0] * b.n[1];
  b.cell = cell;
  b.band = fmax((double)margin, GRN_SDF_BAND_CELLS * (double)cell);

  // the tree and the work arrays
  grnMeshTree* tr = NULL;
  grnStatus st = grn_mesh_tree_create(vert, nvert, face, nface, &tr);
  if (st != grnOK) return st;
  size_t count = (size_t)total;
  b.tree = tr;
  b.dist = (float*)malloc(sizeof(float) * count);
  b.near = (int*)malloc(sizeof(int) * count);
  b.wind = (float*)malloc(sizeof(float) * count);
  if (!b.dist || !b.near || !b.wind) {
    free(b.dist);
    free(b.near);
    free(b.wind);
    grn_mesh_tree_free(tr);
    return grnERR_MEMORY;
  }

  // unsigned distances: exact in the band, propagated beyond; then the winding numbers
  build_band(&b);
  build_far(&b);
  for (size_t id = 0; id < count; id++) {
    // (propagation reaches every node; a full search is only a safety net)
    if (!(b.dist[id] < INFINITY)) {
      double p[3];
      node_point(&b, (int)(id % b.stride[1]), (int)(id / b.stride[1] % b.n[1]),
                 (int)(id / b.stride[2]), p);
      int t = -1;
      b.dist[id] = (float)sqrt(tree_nearest2(tr, p, INFINITY, &t));
    }
  }
  build_winding(&b);

  // inside where the winding number exceeds one half in magnitude
  for (size_t id = 0; id < count; id++) {
    if (fabsf(b.wind[id]) > 0.5f) b.dist[id] = -b.dist[id];
  }

  free(b.near);
  free(b.wind);
  grn_mesh_tree_free(tr);
  grid->nx = b.n[0];
  grid->ny = b.n[1];
  grid->nz = b.n[2];
  for (int i = 0; i < 3; i++) grid->origin[i] = (float)b.org[i];
  grid->cell = cell;
  grid->values = b.dist;
  return grnOK;
}

void grn_sdf_mesh_free(grnGrid* grid) {
  if (!grid) return;
  free((void*)grid->values);
  memset(grid, 0, sizeof(*grid));
}
