// rigid clumps of spheres in the cpu solver (kernels/grn_clump.h): what they cost and how they
// pack, for grains of one volume (a sphere of radius 5 mm unless --radius says otherwise).
//
// the grains: plain spheres (max_clumps 0), single-sphere clumps, and clumps fitted inside
// closed meshes built here from voxels (a cube; a 3D cross of seven cubes; a flat U whose slot,
// half as wide again as its prongs, takes another's prong: the seed's nesting shape) by
// grn_clump_fit on a grid of 24 cells per cube root of the volume, as the plugin fits them. a
// clump's mass and principal moments are its mesh's at the solver's density (grn_mesh_mass), not
// its spheres'; its spheres are moved into the mesh's principal frame.
//
// cost: each kind's bed is poured into an open box (floor and four walls as planes, wide enough
// for a bed about half as deep as it is wide) from a loose lattice (bed_pour), settled with
// projected jacobi at a coarse substep, loaded at rest into a solver with each model's defaults
// (dem: its substep 0.15 of the rayleigh time of the largest sphere), and after 100 untimed
// substeps a number of substeps is timed. one row per kind and model: grains (clumps) and
// spheres, contacts per sphere, the largest grain speed after the timing, time per substep,
// particle-substeps per second per grain and per sphere, the share of the threads' time the
// process got, and grn_memory_bytes.
//
// packing: spheres, single-sphere clumps, cubes, crosses and U's poured the same way into one box
// (--width) and settled with pj at its default substep until the mean kinetic energy per grain
// is below 1e-5 m g d (d the diameter of the volume's sphere). the solid volume is n x the mesh
// volume V. the bed's height H is where the grains' volume density, sampled in slabs d / 20 thick
// from points inside each grain's solid (the fit's grid nodes, or a lattice in the sphere) and
// averaged over one d, first falls under half its mean between 2 d and half the height of the
// highest grain; the packing fraction is n V / (box cross-section x H). the core fraction is the
// mean density in the column 2 d from the walls, from 2 d above the floor to 2 d below H: the
// bed without its wall layers. a clump's spheres underfill its mesh, so meshes may overlap where
// the spheres do not: the share of the grains' volume inside another grain's mesh is printed, and
// the packing fraction of the union of the meshes (pairwise overlaps: less half that share).
//
//   bench_clumps [--cost] [--packing] [--grains 10k] [--max-spheres 80k] [--models pj,dem]
//                [--substeps 200] [--settle 1.0] [--pack-grains 2000] [--width 0.12]
//                [--radius 0.005] [--rolling R] [--seed 12345]
// --rolling sets the rolling and torsional friction (default: the solver's), which act between
// grains that turn alone only (spheres, single-sphere clumps): 0 compares the shapes at equal
// contact laws
// with neither --cost nor --packing both run. --max-spheres caps a cost bed's spheres (fewer
// clumps where grains x spheres per clump would pass it).
//   thread count: OMP_NUM_THREADS
#define _DEFAULT_SOURCE  // getloadavg, clock_gettime
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_bed.h"
#include "clump_fit.h"
#include "granular.h"
#include "grn_rigid.h"
#include "mesh_mass.h"
#include "sdf_mesh.h"

#define MAX_SPHERES 16     // spheres per clump, at most
#define MAX_POINTS 4096    // sample points inside a grain, at most

typedef struct Grain_ {
  const char* name;
  int nsphere;                      // spheres of the clump; 0: a plain sphere (no clumps)
  float spheres[4 * MAX_SPHERES];   // centre in the body frame, radius [m]
  float mass;                       // [kg]
  float inertia[3];                 // principal moments [kg m^2]
  double volume;                    // the solid's volume: the mesh's, or the sphere's [m^3]
  double clump_volume;              // the union of the spheres (the fit's, on its grid) [m^3]
  float rmax;                       // largest sphere [m]
  float bound;                      // radius about the centre of mass enclosing the grain [m]
  int npoint;                       // points inside the solid, body frame: the density profile
  float points[3 * MAX_POINTS];
  grnGrid grid;                     // the mesh's distance grid (none for a sphere): what is inside
  double com[3], axes[9];           // the body frame in the mesh's: x_mesh = com + axes x_body
} Grain;

// a closed mesh of voxel faces: at most two triangles per face of 27 voxels
typedef struct Mesh_ {
  int nv, nf;
  float v[3 * 64];     // (nv x 3)
  int f[3 * 27 * 12];  // (nf x 3)
} Mesh;

// grains at rest or moving: centres of mass, orientations (w x y z), velocities
typedef struct Bed_ {
  int n;
  float *pos, *orient, *vel, *angvel;  // (n x 3), (n x 4), (n x 3), (n x 3)
  int* type;                           // (n), all 0: one clump type
} Bed;

typedef struct Options_ {
  int cost, packing;      // which parts run
  int grains;             // grains of a cost bed
  int max_spheres;        // spheres of a cost bed, at most
  int models[3];          // grnModel timed, in turn
  int nmodels;
  int substeps;           // timed substeps
  double settle;          // simulated settling of a cost bed [s] (pj, substep 1e-3 s)
  int pack_grains;        // grains of a packing bed
  double width;           // packing box width [m]
  double radius;          // radius of the sphere of the grains' volume [m]
  double rolling;         // rolling and torsional friction; < 0: the solver's defaults
  unsigned seed;
} Options;

static const char* const kModels[] = {"pj", "dem", "pbd"};

// uniform in [0, 1) from a xorshift state
static double uniform(unsigned* s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return (*s & 0xffffff) / 16777216.0;
}

// v turned by the unit quaternion q (w x y z), or by its inverse when inverse is 1
static void quat_rotate(const float* q, const float* v, int inverse, float* out) {
  grnQuat r = grn_load_quat(q);
  grn_store3(out, inverse ? grn_quat_unrotate(r, grn_load3(v)) : grn_quat_rotate(r, grn_load3(v)));
}

//---------------------------------- grains --------------------------------------------------------

// the index of lattice vertex c (4 x 4 x 4 corners of the 3 x 3 x 3 voxels) at the voxels' edges
// along each axis, made on first use
static int voxel_vertex(Mesh* m, int* id, const int c[3], const float edges[3][4]) {
  int k = c[0] + 4 * (c[1] + 4 * c[2]);
  if (id[k] < 0) {
    id[k] = m->nv;
    for (int a = 0; a < 3; a++) m->v[3 * m->nv + a] = edges[a][c[a]];
    m->nv++;
  }
  return id[k];
}

// the edges of three voxels along an axis, of these widths, centred on 0
static void voxel_edges(float w0, float w1, float w2, float edges[4]) {
  edges[0] = -0.5f * (w0 + w1 + w2);
  edges[1] = edges[0] + w0;
  edges[2] = edges[1] + w1;
  edges[3] = edges[2] + w2;
}

// the closed surface of the filled voxels (x + 3 y + 9 z) of a 3 x 3 x 3 block of boxes between
// these edges along each axis: two outward triangles per face no filled voxel covers, vertices
// shared, so that every edge is in exactly two triangles
static void voxel_mesh(const char filled[27], const float edges[3][4], Mesh* m) {
  const int uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  const int out[2][6] = {{0, 2, 1, 0, 3, 2}, {0, 1, 2, 0, 2, 3}};  // facing -axis, +axis
  int id[64];
  for (int k = 0; k < 64; k++) id[k] = -1;
  m->nv = m->nf = 0;
  for (int vox = 0; vox < 27; vox++) {
    if (!filled[vox]) continue;
    int p[3] = {vox % 3, vox / 3 % 3, vox / 9};
    for (int a = 0; a < 3; a++) {
      for (int up = 0; up < 2; up++) {
        int q[3] = {p[0], p[1], p[2]};
        q[a] += up ? 1 : -1;
        if (q[a] >= 0 && q[a] < 3 && filled[q[0] + 3 * q[1] + 9 * q[2]]) continue;
        // corners counter-clockwise about +axis a in its plane's axes (b, c)
        int b = (a + 1) % 3, c = (a + 2) % 3, corner[4];
        for (int k = 0; k < 4; k++) {
          int x[3] = {p[0], p[1], p[2]};
          x[a] += up, x[b] += uv[k][0], x[c] += uv[k][1];
          corner[k] = voxel_vertex(m, id, x, edges);
        }
        for (int k = 0; k < 6; k++) m->f[3 * m->nf + k] = corner[out[up][k]];
        m->nf += 2;
      }
    }
  }
}

// a sphere of radius r (nsphere 0: plain; 1: a single-sphere clump) at this density; points on a
// lattice of r / 5 inside it
static void grain_sphere(Grain* g, const char* name, int nsphere, float r, float density) {
  memset(g, 0, sizeof(*g));
  g->name = name;
  g->nsphere = nsphere;
  g->spheres[3] = g->rmax = g->bound = r;
  g->volume = g->clump_volume = 4.0 / 3.0 * M_PI * r * r * r;
  g->mass = (float)(density * g->volume);
  for (int a = 0; a < 3; a++) g->inertia[a] = 0.4f * g->mass * r * r;
  float h = 0.2f * r;
  for (int i = -5; i <= 5; i++) {
    for (int j = -5; j <= 5; j++) {
      for (int k = -5; k <= 5; k++) {
        float x[3] = {(i + 0.5f) * h, (j + 0.5f) * h, (k + 0.5f) * h};
        if (x[0] * x[0] + x[1] * x[1] + x[2] * x[2] > r * r || g->npoint == MAX_POINTS) continue;
        memcpy(g->points + 3 * g->npoint++, x, sizeof(x));
      }
    }
  }
}

// 1 when x (the grid's frame) is inside the mesh: its nearest node is (within half a cell)
static int grid_inside(const grnGrid* grid, const double* x) {
  int node[3], size[3] = {grid->nx, grid->ny, grid->nz};
  for (int a = 0; a < 3; a++) {
    node[a] = (int)lround((x[a] - grid->origin[a]) / grid->cell);
    if (node[a] < 0 || node[a] >= size[a]) return 0;
  }
  return grid->values[((size_t)node[2] * grid->ny + node[1]) * grid->nx + node[0]] < 0;
}

// a clump of at most nsphere spheres fitted inside mesh m, with the mesh's mass properties at this
// density, in its principal frame; 0, or 1 with a message on stderr
static int grain_mesh(Grain* g, const char* name, int nsphere, const Mesh* m, float density) {
  memset(g, 0, sizeof(*g));
  g->name = name;
  grnMassProps mp;
  grnMeshStatus ms = grn_mesh_mass(m->v, m->nv, m->f, m->nf, density, &mp);
  if (ms != grnMESH_OK) {
    fprintf(stderr, "bench_clumps: %s mesh: %s\n", name, grn_mesh_status_string(ms));
    return 1;
  }
  // the plugin's grid (plugin/grain_types.c): 24 cells per cube root of the volume, a margin of
  // half the smallest extent of the bounding box, so that every node inside is exact
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int k = 0; k < m->nv; k++) {
    for (int a = 0; a < 3; a++) {
      lo[a] = fminf(lo[a], m->v[3 * k + a]);
      hi[a] = fmaxf(hi[a], m->v[3 * k + a]);
    }
  }
  float cell = (float)(cbrt(mp.volume) / 24), margin = 2 * cell;
  for (int a = 0; a < 3; a++) margin = fmaxf(margin, 0.5f * (hi[a] - lo[a]));
  if (grn_sdf_mesh_build(m->v, m->nv, m->f, m->nf, cell, margin, &g->grid) != grnOK) {
    fprintf(stderr, "bench_clumps: %s: grid build failed\n", name);
    return 1;
  }
  float spheres[4 * MAX_SPHERES];
  grnClumpFit fit;
  char msg[200];
  const grnGrid* grid = &g->grid;
  grnStatus st = grn_clump_fit(grid, nsphere, 0, spheres, &fit, msg, sizeof(msg));
  if (st != grnOK) {
    fprintf(stderr, "bench_clumps: %s: fit: %s\n", name, msg);
    return 1;
  }
  // into the body frame
  memcpy(g->com, mp.com, sizeof(g->com));
  memcpy(g->axes, mp.axes, sizeof(g->axes));
  g->nsphere = fit.count;
  for (int i = 0; i < fit.count; i++) {
    const float* s = spheres + 4 * i;
    double x[3] = {s[0], s[1], s[2]}, y[3];
    grn_mesh_to_body(&mp, x, y);
    for (int a = 0; a < 3; a++) g->spheres[4 * i + a] = (float)y[a];
    g->spheres[4 * i + 3] = s[3];
    g->rmax = fmaxf(g->rmax, s[3]);
  }
  g->mass = (float)mp.mass;
  for (int a = 0; a < 3; a++) g->inertia[a] = (float)mp.principal[a];
  g->volume = mp.volume;
  g->clump_volume = fit.clump_volume;
  for (int k = 0; k < m->nv; k++) {
    double d2 = 0;
    for (int a = 0; a < 3; a++) d2 += pow(m->v[3 * k + a] - mp.com[a], 2);
    g->bound = fmaxf(g->bound, (float)sqrt(d2));
  }
  // the density profile's points: the centres of a lattice of cubes a size / 12 wide over the
  // bounding box, those inside (about 1,700); nodes would miss a shell of the solid where the
  // grid's nodes fall on its faces
  double h = cbrt(mp.volume) / 12;
  int steps[3];
  for (int a = 0; a < 3; a++) steps[a] = (int)ceil((hi[a] - lo[a]) / h);
  for (int k = 0; k < steps[2]; k++) {
    for (int j = 0; j < steps[1]; j++) {
      for (int i = 0; i < steps[0] && g->npoint < MAX_POINTS; i++) {
        double x[3] = {lo[0] + (i + 0.5) * h, lo[1] + (j + 0.5) * h, lo[2] + (k + 0.5) * h};
        if (!grid_inside(grid, x)) continue;
        double y[3];
        grn_mesh_to_body(&mp, x, y);
        for (int a = 0; a < 3; a++) g->points[3 * g->npoint + a] = (float)y[a];
        g->npoint++;
      }
    }
  }
  return 0;
}

// 1 when x (body frame) is inside the grain's solid: within the sphere, or inside the mesh
static int grain_inside(const Grain* g, const float* x) {
  if (!g->grid.values) return x[0] * x[0] + x[1] * x[1] + x[2] * x[2] < g->rmax * g->rmax;
  double y[3];
  for (int a = 0; a < 3; a++) {
    y[a] = g->com[a];
    for (int b = 0; b < 3; b++) y[a] += g->axes[3 * a + b] * x[b];
  }
  return grid_inside(&g->grid, y);
}

// the solver's params for n grains of g under model: the model's defaults, the largest sphere as
// params.radius (the broadphase's cell), room for the spheres, the rolling friction asked for
static void grain_params(const Options* o, const Grain* g, int n, int model, grnParams* p) {
  grn_default_params(p);
  if (o->rolling >= 0) p->rolling_friction = p->torsional_friction = (float)o->rolling;
  p->model = model;
  p->radius = g->rmax;
  p->capacity = n * (g->nsphere ? g->nsphere : 1);
  p->max_clumps = g->nsphere ? n : 0;
  if (model == grnMODEL_DEM) {
    p->dt = (float)(GRN_DEM_DT_FRACTION * grn_dem_time_scale(p, p->radius));
  }
}

//---------------------------------- beds ----------------------------------------------------------

static void bed_free(Bed* b) {
  free(b->pos), free(b->orient), free(b->vel), free(b->angvel), free(b->type);
  memset(b, 0, sizeof(*b));
}

static int bed_alloc(Bed* b, int n) {
  b->n = n;
  b->pos = (float*)malloc(3 * (size_t)n * sizeof(float));
  b->orient = (float*)malloc(4 * (size_t)n * sizeof(float));
  b->vel = (float*)calloc(3 * (size_t)n, sizeof(float));
  b->angvel = (float*)calloc(3 * (size_t)n, sizeof(float));
  b->type = (int*)calloc((size_t)n, sizeof(int));
  if (b->pos && b->orient && b->vel && b->angvel && b->type) return 0;
  bed_free(b);
  return 1;
}

// n grains of g in the box of this width: a loose lattice from the floor up, spaced by 2.5 times
// their enclosing radius and jittered by a fifth of it, turned at random (uniform quaternions,
// shoemake's method), moving at random up to 0.5 m/s along each axis, so that the layers meet on
// the way down and a bed of spheres does not land as stacked columns
static void bed_pour(Bed* b, const Grain* g, float width, unsigned* seed) {
  float spacing = 2.5f * g->bound, x0 = -0.5f * width + 1.25f * g->bound;
  int per_row = (int)floorf((width - spacing) / spacing) + 1;
  for (int i = 0; i < b->n; i++) {
    int ix = i % per_row, iy = (i / per_row) % per_row, iz = i / (per_row * per_row);
    float *x = b->pos + 3 * i, *v = b->vel + 3 * i;
    x[0] = x0 + ix * spacing, x[1] = x0 + iy * spacing, x[2] = 1.25f * g->bound + iz * spacing;
    for (int a = 0; a < 3; a++) {
      x[a] += (float)(0.2 * g->bound * (2 * uniform(seed) - 1));
      v[a] = (float)(0.5 * (2 * uniform(seed) - 1));
    }
    double u1 = uniform(seed), u2 = 2 * M_PI * uniform(seed), u3 = 2 * M_PI * uniform(seed);
    float* q = b->orient + 4 * i;
    q[0] = (float)(sqrt(u1) * cos(u3)), q[1] = (float)(sqrt(1 - u1) * sin(u2));
    q[2] = (float)(sqrt(1 - u1) * cos(u2)), q[3] = (float)(sqrt(u1) * sin(u3));
    float norm = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int a = 0; a < 4; a++) q[a] /= norm;
  }
}

// a solver of params p in the open box of this width with the bed's grains; NULL with a message
static grnSolver* bed_solver(const grnParams* p, float width, const Grain* g, const Bed* b) {
  grnShape walls[BENCH_NWALL];
  const float lo[3] = {-0.5f * width, -0.5f * width, 0}, hi[3] = {0.5f * width, 0.5f * width,
                                                                  width};
  grn_box_planes(lo, hi, 0, p->friction, walls);
  grnSolver* s = NULL;
  grnStatus st = grn_create(p, grnBACKEND_CPU, &s);
  if (st == grnOK) st = grn_set_shapes(s, BENCH_NWALL, walls);
  if (st == grnOK && g->nsphere) {
    grnClumpType type = {g->nsphere, g->spheres, g->mass, {g->inertia[0], g->inertia[1],
                                                           g->inertia[2]}};
    st = grn_set_clumps(s, &type, 1, b->n, b->type, b->pos, b->orient, b->vel, b->angvel);
  } else if (st == grnOK) {
    st = grn_set_grains(s, b->n, b->pos, b->vel);
    if (st == grnOK) st = grn_set_angvel(s, b->angvel);
  }
  if (st != grnOK) {
    fprintf(stderr, "bench_clumps: %d %s: %s\n", b->n, g->name, grn_status_string(st));
    grn_destroy(s);
    return NULL;
  }
  return s;
}

// the solver's grains into the bed (a plain sphere's orientation is left alone: it has no shape)
static grnStatus bed_read(const grnSolver* s, const Grain* g, Bed* b) {
  if (g->nsphere) return grn_get_clumps(s, b->pos, b->orient, b->vel, b->angvel);
  grnStatus st = grn_get_grains(s, b->pos, b->vel);
  return st == grnOK ? grn_get_angvel(s, b->angvel) : st;
}

// mean kinetic energy per grain, translation and rotation (principal moments, body frame) [J]
static double bed_kinetic(const Grain* g, const Bed* b) {
  double e = 0;
  for (int i = 0; i < b->n; i++) {
    const float* v = b->vel + 3 * i;
    float w[3];
    quat_rotate(b->orient + 4 * i, b->angvel + 3 * i, 1, w);
    for (int a = 0; a < 3; a++) e += 0.5 * (g->mass * v[a] * v[a] + g->inertia[a] * w[a] * w[a]);
  }
  return e / b->n;
}

//---------------------------------- cost ----------------------------------------------------------

// the largest speed of the solver's n grains (clumps) [m/s], or -1 when it cannot be read
static double max_speed(const grnSolver* s, const Grain* g, int n) {
  float* vel = (float*)malloc(3 * (size_t)n * sizeof(float));
  grnStatus st = !vel        ? grnERR_MEMORY :
                 g->nsphere ? grn_get_clumps(s, NULL, NULL, vel, NULL) :
                 grn_get_grains(s, NULL, vel);
  double most = st == grnOK ? 0 : -1;
  for (int i = 0; i < n && st == grnOK; i++) {
    const float* v = vel + 3 * i;
    most = fmax(most, sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]));
  }
  free(vel);
  return most;
}

// pour and settle a cost bed of g, then time it under each model; prints one row per model
static int cost_kind(const Options* o, const Grain* g, unsigned* seed) {
  int n = o->grains, per = g->nsphere ? g->nsphere : 1;
  if ((long)n * per > o->max_spheres) n = o->max_spheres / per;
  Bed b;
  if (bed_alloc(&b, n)) return 1;
  float width = (float)cbrt(2.0 * n * g->volume / 0.6);
  bed_pour(&b, g, width, seed);

  // settle with a coarse substep (how the bed came to rest does not matter to the timing)
  grnParams p;
  grain_params(o, g, n, grnMODEL_PJ, &p);
  p.dt = 1e-3f;
  grnSolver* s = bed_solver(&p, width, g, &b);
  grnStatus st = s ? grn_advance(s, (int)lround(o->settle / p.dt)) : grnERR_ARG;
  if (st == grnOK) st = bed_read(s, g, &b);
  grn_destroy(s);
  memset(b.vel, 0, 3 * (size_t)n * sizeof(float));
  memset(b.angvel, 0, 3 * (size_t)n * sizeof(float));
  int failed = st != grnOK;
  for (int m = 0; m < o->nmodels && !failed; m++) {
    grain_params(o, g, n, o->models[m], &p);
    s = bed_solver(&p, width, g, &b);
    // 100 untimed substeps relax what the coarse substep left
    st = s ? grn_advance(s, 100) : grnERR_ARG;
    int npairs = 0;
    if (st == grnOK) st = grn_find_pairs(s, NULL, 0, &npairs);
    double t0 = bench_now(), c0 = bench_cpu_seconds();
    for (int done = 0; done < o->substeps && st == grnOK; done += 10) {
      st = grn_advance(s, o->substeps - done < 10 ? o->substeps - done : 10);
    }
    double wall = bench_now() - t0;
    double share = (bench_cpu_seconds() - c0) / (wall * omp_get_max_threads());
    if (st == grnOK) {
      double load[3] = {0, 0, 0};
      getloadavg(load, 3);
      int spheres = n * per;
      printf("%-8s  %-5s  %6d  %7d  %9.2f  %8.3f  %10.3f  %10.3g  %10.3g  %9.2f  %10.1f  "
             "%5.2f\n", g->name, kModels[o->models[m]], n, spheres, 2.0 * npairs / spheres,
             max_speed(s, g, n), 1e3 * wall / o->substeps, (double)n * o->substeps / wall,
             (double)spheres * o->substeps / wall, share, grn_memory_bytes(s) / 1048576.0,
             load[0]);
      fflush(stdout);
    }
    grn_destroy(s);
    failed |= st != grnOK;
  }
  if (failed) fprintf(stderr, "bench_clumps: cost of %s: %s\n", g->name, grn_status_string(st));
  bed_free(&b);
  return failed;
}

//---------------------------------- packing -------------------------------------------------------

// the settled bed's packing: the bed height H [m], n V / (A H), and the core column's mean density
static void packing(const Grain* g, const Bed* b, float width, double size, double* height,
                    double* phi, double* core) {
  double dz = size / 20, top = 0, core_half = 0.5 * width - 2 * size;
  double w = g->volume / g->npoint;
  for (int i = 0; i < b->n; i++) top = fmax(top, b->pos[3 * i + 2] + g->bound);
  int nbin = (int)(top / dz) + 1;
  double* all = (double*)calloc(2 * (size_t)nbin, sizeof(double));
  double* mid = all + nbin;
  if (!all) {
    *height = *phi = *core = NAN;
    return;
  }
  // each grain's points turned and placed: slabs of the box and of its core column
  for (int i = 0; i < b->n; i++) {
    for (int k = 0; k < g->npoint; k++) {
      float x[3];
      quat_rotate(b->orient + 4 * i, g->points + 3 * k, 0, x);
      for (int a = 0; a < 3; a++) x[a] += b->pos[3 * i + a];
      int bin = (int)(x[2] / dz);
      if (bin < 0 || bin >= nbin) continue;
      all[bin] += w;
      if (fabs(x[0]) < core_half && fabs(x[1]) < core_half) mid[bin] += w;
    }
  }
  // the reference density between 2 d and half the bed's top; H where the density over one d
  // about it (the layers a bed may stack in smoothed out) first falls under half of it, above that
  double area = (double)width * width, ref = 0;
  int lo = (int)(2 * size / dz), hi = (int)(0.5 * top / dz), half = 10, k;
  for (k = lo; k < hi; k++) ref += all[k] / (area * dz);
  ref /= hi > lo ? hi - lo : 1;
  for (k = hi; k < nbin; k++) {
    double sum = 0;
    for (int j = k - half; j < k + half; j++) sum += j >= 0 && j < nbin ? all[j] : 0;
    if (sum < 0.5 * ref * area * 2 * half * dz) break;
  }
  *height = k * dz;
  *phi = b->n * g->volume / (area * *height);
  double sum = 0;
  int count = 0, end = (int)((*height - 2 * size) / dz);
  for (k = lo; k < end; k++, count++) sum += mid[k] / (4 * core_half * core_half * dz);
  *core = count ? sum / count : NAN;
  free(all);
}

// the share of the grains' solid volume inside another grain's solid: clumps underfill their
// meshes, so their meshes may overlap where their spheres do not
static double overlap(const Grain* g, const Bed* b) {
  long inside = 0;
  double reach2 = 4.0 * g->bound * g->bound;
  for (int i = 0; i < b->n; i++) {
    const float* pi = b->pos + 3 * i;
    int near[64], nnear = 0;
    for (int j = 0; j < b->n && nnear < 64; j++) {
      const float* pj = b->pos + 3 * j;
      double d2 = pow(pi[0] - pj[0], 2) + pow(pi[1] - pj[1], 2) + pow(pi[2] - pj[2], 2);
      if (j != i && d2 < reach2) near[nnear++] = j;
    }
    for (int k = 0; k < g->npoint; k++) {
      float x[3];
      quat_rotate(b->orient + 4 * i, g->points + 3 * k, 0, x);
      for (int a = 0; a < 3; a++) x[a] += pi[a];
      for (int m = 0; m < nnear; m++) {
        float y[3], d[3];
        for (int a = 0; a < 3; a++) d[a] = x[a] - b->pos[3 * near[m] + a];
        quat_rotate(b->orient + 4 * near[m], d, 1, y);
        if (grain_inside(g, y)) {
          inside++;
          break;
        }
      }
    }
  }
  return (double)inside / ((double)b->n * g->npoint);
}

// pour g into the packing box, settle until at rest, print its packing; 0 on success
static int packing_kind(const Options* o, const Grain* g, unsigned* seed) {
  const double size = 2 * cbrt(3 * g->volume / (4 * M_PI)), slice = 0.05, most = 6.0;
  const double rest = 1e-5 * g->mass * 9.81 * size;
  Bed b;
  if (bed_alloc(&b, o->pack_grains)) return 1;
  bed_pour(&b, g, (float)o->width, seed);
  grnParams p;
  grain_params(o, g, b.n, grnMODEL_PJ, &p);
  grnSolver* s = bed_solver(&p, (float)o->width, g, &b);
  grnStatus st = s ? grnOK : grnERR_ARG;
  // slices of simulated time until the mean kinetic energy is small, after a second at least
  double t = 0, ke = INFINITY, t0 = bench_now();
  int steps = (int)lround(slice / p.dt);
  while (st == grnOK && t < most && (t < 1.0 || ke > rest)) {
    st = grn_advance(s, steps);
    if (st == grnOK) st = bed_read(s, g, &b);
    t += steps * p.dt;
    ke = bed_kinetic(g, &b);
  }
  double wall = bench_now() - t0;
  grn_destroy(s);
  if (st != grnOK) {
    fprintf(stderr, "bench_clumps: packing of %s: %s\n", g->name, grn_status_string(st));
    bed_free(&b);
    return 1;
  }
  double height, phi, core;
  packing(g, &b, (float)o->width, size, &height, &phi, &core);
  double shared = overlap(g, &b);
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  printf("%-8s  %5d  %7d  %6.1f  %5.2f  %7.2g  %6.1f  %6.1f  %5.2f  %5.3f  %5.3f  %7.3f  %7.2f  "
         "%9.3f  %5.2f\n", g->name, b.n, b.n * (g->nsphere ? g->nsphere : 1),
         100 * g->clump_volume / g->volume, t, ke / (g->mass * 9.81 * size), wall, 1e3 * height,
         height / size, phi, core, phi * g->clump_volume / g->volume, 100 * shared,
         phi * (1 - 0.5 * shared), load[0]);
  fflush(stdout);
  bed_free(&b);
  return 0;
}

//---------------------------------- main ----------------------------------------------------------

// a count like 10000 or 10k
static int parse_count(const char* text, int* out) {
  char* end;
  double v = strtod(text, &end);
  if (end != text && (*end == 'k' || *end == 'K')) v *= 1e3, end++;
  if (end == text || *end || !(v >= 1 && v <= 1e8)) return 0;
  *out = (int)v;
  return 1;
}

static int parse_args(int argc, char** argv, Options* o) {
  memset(o, 0, sizeof(*o));
  o->grains = 10000;
  o->max_spheres = 80000;
  o->models[0] = grnMODEL_PJ, o->models[1] = grnMODEL_DEM, o->nmodels = 2;
  o->substeps = 200;
  o->settle = 1.0;
  o->pack_grains = 2000;
  o->width = 0.12;
  o->radius = 0.005;
  o->rolling = -1;
  o->seed = 12345;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    char* end = NULL;
    if (!strcmp(a, "--cost") || !strcmp(a, "--packing")) {
      *(a[2] == 'c' ? &o->cost : &o->packing) = 1;
      continue;
    } else if (!v) {
      return 0;
    } else if (!strcmp(a, "--grains")) {
      if (!parse_count(v, &o->grains)) return 0;
    } else if (!strcmp(a, "--max-spheres")) {
      if (!parse_count(v, &o->max_spheres)) return 0;
    } else if (!strcmp(a, "--pack-grains")) {
      if (!parse_count(v, &o->pack_grains)) return 0;
    } else if (!strcmp(a, "--models")) {
      char buf[64];
      snprintf(buf, sizeof(buf), "%s", v);
      o->nmodels = 0;
      for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int m = !strcmp(tok, "pj") ? grnMODEL_PJ : !strcmp(tok, "dem") ? grnMODEL_DEM : -1;
        if (m < 0 || o->nmodels == 3) return 0;
        o->models[o->nmodels++] = m;
      }
      if (o->nmodels == 0) return 0;
    } else if (!strcmp(a, "--substeps")) {
      o->substeps = (int)strtol(v, &end, 10);
      if (*end || o->substeps < 1) return 0;
    } else if (!strcmp(a, "--settle")) {
      o->settle = strtod(v, &end);
      if (*end || !(o->settle >= 0)) return 0;
    } else if (!strcmp(a, "--width")) {
      o->width = strtod(v, &end);
      if (*end || !(o->width > 0)) return 0;
    } else if (!strcmp(a, "--radius")) {
      o->radius = strtod(v, &end);
      if (*end || !(o->radius > 0)) return 0;
    } else if (!strcmp(a, "--rolling")) {
      o->rolling = strtod(v, &end);
      if (*end || !(o->rolling >= 0)) return 0;
    } else if (!strcmp(a, "--seed")) {
      o->seed = (unsigned)strtoul(v, &end, 10);
      if (*end) return 0;
    } else {
      return 0;
    }
    i++;
  }
  if (!o->cost && !o->packing) o->cost = o->packing = 1;
  return 1;
}

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o)) {
    fprintf(stderr,
            "usage: bench_clumps [--cost] [--packing] [--grains 10k] [--max-spheres 80k]\n"
            "                    [--models pj,dem] [--substeps 200] [--settle 1.0]\n"
            "                    [--pack-grains 2000] [--width 0.12] [--radius 0.005]\n"
            "                    [--rolling R] [--seed 12345]\n"
            "cost and packing of rigid clumps of spheres on the cpu; threads from "
            "OMP_NUM_THREADS\n");
    return 2;
  }
  grnParams defaults;
  grn_default_params(&defaults);
  const float r = (float)o.radius, density = defaults.density;
  const double volume = 4.0 / 3.0 * M_PI * r * r * r;
  // of the sphere's volume: a cube, a 3D cross (the centre voxel and its six face neighbours),
  // and a U in the middle layer, t thick: two prongs (x edges, t wide) of 2.5 t beyond a base
  // t deep, the slot between them 1.5 t wide (U_SLOT), so that V = (2 + 2.5 + 2.5 + 1.5) t^3
  const float U_SLOT = 1.5f, cross_side = (float)cbrt(volume / 7),
              u_t = (float)cbrt(volume / (2 + 5 + U_SLOT));
  char cube_voxels[27] = {0}, cross_voxels[27] = {0}, u_voxels[27] = {0};
  cube_voxels[13] = 1;
  const int cross_at[7] = {13, 12, 14, 10, 16, 4, 22}, u_at[7] = {9, 12, 15, 10, 11, 14, 17};
  for (int k = 0; k < 7; k++) cross_voxels[cross_at[k]] = u_voxels[u_at[k]] = 1;
  float cube_edges[3][4], cross_edges[3][4], u_edges[3][4];
  for (int a = 0; a < 3; a++) {
    voxel_edges((float)cbrt(volume), (float)cbrt(volume), (float)cbrt(volume), cube_edges[a]);
    voxel_edges(cross_side, cross_side, cross_side, cross_edges[a]);
  }
  voxel_edges(u_t, U_SLOT * u_t, u_t, u_edges[0]);
  voxel_edges(u_t, 1.25f * u_t, 1.25f * u_t, u_edges[1]);
  voxel_edges(u_t, u_t, u_t, u_edges[2]);
  Mesh cube, cross, u;
  voxel_mesh(cube_voxels, cube_edges, &cube);
  voxel_mesh(cross_voxels, cross_edges, &cross);
  voxel_mesh(u_voxels, u_edges, &u);
  static Grain sphere, clump1, cube4, cube8, cube16, cross16, u16;
  grain_sphere(&sphere, "sphere", 0, r, density);
  grain_sphere(&clump1, "clump1", 1, r, density);
  if (grain_mesh(&cube4, "cube4", 4, &cube, density) ||
      grain_mesh(&cube8, "cube8", 8, &cube, density) ||
      grain_mesh(&cube16, "cube16", 16, &cube, density) ||
      grain_mesh(&cross16, "cross16", 16, &cross, density) ||
      grain_mesh(&u16, "u16", 16, &u, density)) {
    return 1;
  }
  printf("mjgranular clump benchmark: cpu backend, %d openmp threads, grains of the volume of a "
         "sphere of radius %g m\n(cube side %.2f mm, cross arm %.2f mm, U %.2f mm thick), "
         "density %g kg/m^3, friction %g, rolling and torsional friction %g and %g (spheres)\n",
         omp_get_max_threads(), o.radius, 1e3 * cbrt(volume), 1e3 * cross_side, 1e3 * u_t,
         defaults.density, defaults.friction,
         o.rolling >= 0 ? o.rolling : defaults.rolling_friction,
         o.rolling >= 0 ? o.rolling : defaults.torsional_friction);
  bench_print_load("at the start", omp_get_num_procs());
  unsigned seed = o.seed;
  int failed = 0;
  if (o.cost) {
    printf("\ncost: beds settled %g s at pj dt 1e-3 s, then 100 untimed and %d timed substeps "
           "at each model's defaults (dem: dt 0.15 of the rayleigh time of the largest sphere);\n"
           "vmax: the largest grain speed after them; pss: particle-substeps per second, "
           "counting grains (clumps) or their spheres;\nload: 1-minute load average after the "
           "row\n\n", o.settle, o.substeps);
    printf("%-8s  %-5s  %6s  %7s  %9s  %8s  %10s  %10s  %10s  %9s  %10s  %5s\n", "grain",
           "model", "grains", "spheres", "contacts", "vmax", "ms/substep", "pss grain",
           "pss sphere", "cpu share", "solver MiB", "load");
    printf("%-8s  %-5s  %6s  %7s  %9s  %8s\n", "", "", "", "", "/ sphere", "[m/s]");
    const Grain* kinds[5] = {&sphere, &clump1, &cube4, &cube8, &cube16};
    for (int k = 0; k < 5; k++) failed |= cost_kind(&o, kinds[k], &seed);
  }
  if (o.packing) {
    printf("\npacking: %d grains poured into a %g m square box, pj at its defaults (dt %g s, %d "
           "iterations), settled until the mean kinetic energy per grain is under 1e-5 m g d\n"
           "(d = %.2f mm, the diameter of the volume's sphere; 6 s at most). H: where the "
           "grains' volume density first falls under half its bulk value; phi = n V / (A H);\n"
           "core: mean density 2 d from the walls, from 2 d to H - 2 d; phi sph: phi with the "
           "clump's sphere union (on the fit's grid) as its volume;\noverlap: share of the "
           "grains' volume inside another grain's mesh; phi union: phi less half the overlap (the "
           "union of the meshes, where at most two overlap)\n\n", o.pack_grains,
           o.width, defaults.dt, defaults.iterations, 2e3 * o.radius);
    printf("%-8s  %5s  %7s  %6s  %5s  %7s  %6s  %6s  %5s  %5s  %5s  %7s  %7s  %9s  %5s\n",
           "grain", "n", "spheres", "fill %", "t [s]", "ke/mgd", "wall s", "H [mm]", "H / d",
           "phi", "core", "phi sph", "overlap", "phi union", "load");
    printf("%-8s  %5s  %7s  %6s  %5s  %7s  %6s  %6s  %5s  %5s  %5s  %7s  %7s\n", "", "", "", "",
           "", "", "", "", "", "", "", "", "%");
    const Grain* kinds[5] = {&sphere, &clump1, &cube16, &cross16, &u16};
    for (int k = 0; k < 5; k++) failed |= packing_kind(&o, kinds[k], &seed);
  }
  bench_print_load("at the end", omp_get_num_procs());
  Grain* meshes[5] = {&cube4, &cube8, &cube16, &cross16, &u16};
  for (int k = 0; k < 5; k++) grn_sdf_mesh_free(&meshes[k]->grid);
  return failed;
}
