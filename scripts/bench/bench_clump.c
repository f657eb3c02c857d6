// the sphere clumps fitted inside meshes (kernels/clump_fit.h): for a cube (also turned off the
// grid's axes), an elongated box (4 x 1 x 1) and an L-shaped prism, at most 4, 8, 16, 32 spheres:
// the spheres placed, the volume and surface deviations, the largest radius over the size and the
// time to fit (the grid's build not counted), at a few grid resolutions: cells per size, the size
// being the cube root of the mesh's volume. the grid's margin is the plugin's.
// usage: bench_clump [cells_per_size ...]   (default 16 24 32)
#define _POSIX_C_SOURCE 199309L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clump_fit.h"
#include "sdf_mesh.h"

typedef struct {
  const char* name;
  int nv, nf;
  float v[12 * 3];   // (nv x 3)
  int f[20 * 3];     // (nf x 3)
  double volume;     // [m^3]
} Mesh;

// box with half-extents h: 8 vertices, 12 outward triangles
static void make_box(Mesh* m, const char* name, float hx, float hy, float hz) {
  const int f[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                        {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  m->name = name;
  m->nv = 8;
  m->nf = 12;
  for (int k = 0; k < 8; k++) {
    m->v[3 * k] = k & 1 ? hx : -hx;
    m->v[3 * k + 1] = k & 2 ? hy : -hy;
    m->v[3 * k + 2] = k & 4 ? hz : -hz;
  }
  for (int t = 0; t < 12; t++) {
    for (int i = 0; i < 3; i++) m->f[3 * t + i] = f[t][i];
  }
  m->volume = 8.0 * hx * hy * hz;
}

// the L polygon (0, 0) (a, 0) (a, t) (t, t) (t, a) (0, a) extruded over z in [-hz, hz]: caps as a
// fan from the corner, sides as quads, 20 outward triangles
static void make_l(Mesh* m, float a, float t, float hz) {
  const float xy[6][2] = {{0, 0}, {a, 0}, {a, t}, {t, t}, {t, a}, {0, a}};
  m->name = "L";
  m->nv = 12;
  m->nf = 0;
  for (int k = 0; k < 12; k++) {
    m->v[3 * k] = xy[k % 6][0];
    m->v[3 * k + 1] = xy[k % 6][1];
    m->v[3 * k + 2] = k < 6 ? -hz : hz;
  }
  for (int k = 1; k < 5; k++) {
    int top[3] = {6, 6 + k, 7 + k}, bottom[3] = {0, k + 1, k};
    for (int i = 0; i < 3; i++) m->f[3 * m->nf + i] = top[i];
    m->nf++;
    for (int i = 0; i < 3; i++) m->f[3 * m->nf + i] = bottom[i];
    m->nf++;
  }
  for (int i = 0; i < 6; i++) {
    int j = (i + 1) % 6, q0[3] = {i, j, 6 + j}, q1[3] = {i, 6 + j, 6 + i};
    for (int k = 0; k < 3; k++) m->f[3 * m->nf + k] = q0[k];
    m->nf++;
    for (int k = 0; k < 3; k++) m->f[3 * m->nf + k] = q1[k];
    m->nf++;
  }
  m->volume = (double)(a * t + (a - t) * t) * 2 * hz;
}

// the mesh turned 30 degrees about z, then 20 degrees about x: not aligned with the grid
static void turn(Mesh* m, const char* name) {
  const double cz = cos(0.5235987755982988), sz = sin(0.5235987755982988);
  const double cx = cos(0.3490658503988659), sx = sin(0.3490658503988659);
  m->name = name;
  for (int k = 0; k < m->nv; k++) {
    float* p = m->v + 3 * k;
    double x = cz * p[0] - sz * p[1], y = sz * p[0] + cz * p[1], z = p[2];
    p[0] = (float)x;
    p[1] = (float)(cx * y - sx * z);
    p[2] = (float)(sx * y + cx * z);
  }
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void bench(const Mesh* m, int cells) {
  // the plugin's margin (plugin/grain_types.c): half the smallest extent of the bounding box in
  // whole cells, at least 2, room for the spheres to reach out of the mesh
  float cell = (float)(cbrt(m->volume) / cells), lo[3], hi[3];
  for (int a = 0; a < 3; a++) lo[a] = hi[a] = m->v[a];
  for (int k = 1; k < m->nv; k++) {
    for (int a = 0; a < 3; a++) {
      lo[a] = fminf(lo[a], m->v[3 * k + a]);
      hi[a] = fmaxf(hi[a], m->v[3 * k + a]);
    }
  }
  float depth = 0.5f * fminf(hi[0] - lo[0], fminf(hi[1] - lo[1], hi[2] - lo[2]));
  float margin = cell * fmaxf(2, ceilf(depth / cell));
  grnGrid g;
  if (grn_sdf_mesh_build(m->v, m->nv, m->f, m->nf, cell, margin, &g) != grnOK) {
    printf("%-6s grid build failed\n", m->name);
    return;
  }
  const int most[4] = {4, 8, 16, 32};
  for (int q = 0; q < 4; q++) {
    float spheres[32 * 4];
    grnClumpFit fit;
    char msg[200];
    // the fastest of three runs: the machine is shared
    double best = 1e30;
    grnStatus st = grnOK;
    for (int rep = 0; rep < 3 && st == grnOK; rep++) {
      double t0 = seconds();
      st = grn_clump_fit(&g, most[q], 0, spheres, &fit, msg, sizeof(msg));
      double t = seconds() - t0;
      best = t < best ? t : best;
    }
    if (st != grnOK) {
      printf("%-6s fit failed: %s\n", m->name, msg);
      continue;
    }
    float largest = 0;
    for (int s = 0; s < fit.count; s++) largest = fmaxf(largest, spheres[4 * s + 3]);
    printf("%-6s %2d cells/size  grid %3d x %3d x %3d  K %2d  used %2d  volume dev %6.2f %%  "
           "(mesh volume off the exact by %+5.2f %%, clump's %+6.2f %%)  surface mean %6.2f %%  "
           "max %6.2f %%  largest radius %5.3f  fit %7.1f ms\n",
           m->name, cells, g.nx, g.ny, g.nz, most[q], fit.count, 100 * fit.volume_deviation,
           100 * (fit.mesh_volume / m->volume - 1), 100 * (fit.clump_volume / m->volume - 1),
           100 * fit.surface_mean, 100 * fit.surface_max, largest / fit.size, 1e3 * best);
  }
  grn_sdf_mesh_free(&g);
}

int main(int argc, char** argv) {
  int cells[16] = {16, 24, 32}, ncells = 3;
  if (argc > 1) {
    ncells = 0;
    for (int i = 1; i < argc && ncells < 16; i++) cells[ncells++] = atoi(argv[i]);
  }
  Mesh cube, turned, rod, ell;
  make_box(&cube, "cube", 0.05f, 0.05f, 0.05f);
  make_box(&turned, "", 0.05f, 0.05f, 0.05f);
  turn(&turned, "turned");
  make_box(&rod, "box4x1", 0.1f, 0.025f, 0.025f);
  make_l(&ell, 0.1f, 0.04f, 0.02f);
  printf("clump fits, one thread; deviations as fractions of the mesh's volume and size (the\n"
         "diameter of a sphere of its volume)\n");
  for (int c = 0; c < ncells; c++) {
    bench(&cube, cells[c]);
    bench(&turned, cells[c]);
    bench(&rod, cells[c]);
    bench(&ell, cells[c]);
  }
  return 0;
}
