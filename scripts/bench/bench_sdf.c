// mesh sdf grid build times: an icosphere and a scoop (an open box of thin overlapping slabs) of
// tens of thousands of triangles, about the size of a robot arm's link meshes, at a few cells.
// usage: bench_sdf [cell_mm ...]   (default 4 3 2). prints wall time and the processor time of
// all threads (the latter is what to compare on a shared, loaded machine).
#define _POSIX_C_SOURCE 199309L

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sdf_mesh.h"

typedef struct {
  int nv, nf;
  float* v;   // (nv x 3)
  int* f;     // (nf x 3)
} Mesh;

static int mesh_alloc(Mesh* m, int nv, int nf) {
  m->v = (float*)realloc(m->v, sizeof(float) * 3 * (size_t)nv);
  m->f = (int*)realloc(m->f, sizeof(int) * 3 * (size_t)nf);
  return m->v && m->f;
}

// sphere of radius r: each icosahedron face split into freq^2 triangles, projected (20 freq^2
// triangles; vertices on shared edges are repeated, which the sdf does not mind)
static int make_icosphere(Mesh* m, int freq, float r) {
  const double t = (1 + sqrt(5.0)) / 2;
  const double iv[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                            {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                            {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  const int ifc[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
                          {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                          {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
                          {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
  int per = (freq + 1) * (freq + 2) / 2;
  if (!mesh_alloc(m, 20 * per, 20 * freq * freq)) return 0;
  m->nv = m->nf = 0;
  for (int f = 0; f < 20; f++) {
    const double *a = iv[ifc[f][0]], *b = iv[ifc[f][1]], *c = iv[ifc[f][2]];
    int base = m->nv;
    // lattice points a + (b - a) i / freq + (c - a) j / freq, i + j <= freq, on the sphere
    for (int i = 0; i <= freq; i++) {
      for (int j = 0; j <= freq - i; j++) {
        double p[3], n = 0;
        for (int k = 0; k < 3; k++) {
          p[k] = a[k] + (b[k] - a[k]) * i / freq + (c[k] - a[k]) * j / freq;
          n += p[k] * p[k];
        }
        for (int k = 0; k < 3; k++) m->v[3 * m->nv + k] = (float)(r * p[k] / sqrt(n));
        m->nv++;
      }
    }
    // row i starts at base + i (freq + 1) - i (i - 1) / 2
    for (int i = 0; i < freq; i++) {
      for (int j = 0; j < freq - i; j++) {
        int p00 = base + i * (freq + 1) - i * (i - 1) / 2 + j;
        int p10 = base + (i + 1) * (freq + 1) - (i + 1) * i / 2 + j;
        int *f0 = m->f + 3 * m->nf;
        f0[0] = p00; f0[1] = p10; f0[2] = p00 + 1;
        m->nf++;
        if (j < freq - i - 1) {
          int *f1 = m->f + 3 * m->nf;
          f1[0] = p00 + 1; f1[1] = p10; f1[2] = p10 + 1;
          m->nf++;
        }
      }
    }
  }
  return 1;
}

// append a box (centre c, half-extents h) with each face split into a div x div grid of quads
static int add_box(Mesh* m, const float* c, const float* h, int div) {
  if (!mesh_alloc(m, m->nv + 6 * (div + 1) * (div + 1), m->nf + 12 * div * div)) return 0;
  for (int a = 0; a < 3; a++) {
    for (int s = -1; s <= 1; s += 2) {
      int u = (a + 1) % 3, v = (a + 2) % 3, base = m->nv;
      for (int i = 0; i <= div; i++) {
        for (int j = 0; j <= div; j++) {
          float* p = m->v + 3 * m->nv++;
          p[a] = c[a] + s * h[a];
          p[u] = c[u] + h[u] * (2.0f * i / div - 1);
          p[v] = c[v] + h[v] * (2.0f * j / div - 1);
        }
      }
      // u x v = +a: counter-clockwise seen from outside on the +a face, flipped on the -a face
      for (int i = 0; i < div; i++) {
        for (int j = 0; j < div; j++) {
          int p00 = base + i * (div + 1) + j, p10 = p00 + div + 1, p01 = p00 + 1, p11 = p10 + 1;
          int* f = m->f + 3 * m->nf;
          if (s > 0) {
            f[0] = p00; f[1] = p10; f[2] = p11; f[3] = p00; f[4] = p11; f[5] = p01;
          } else {
            f[0] = p00; f[1] = p11; f[2] = p10; f[3] = p00; f[4] = p01; f[5] = p11;
          }
          m->nf += 2;
        }
      }
    }
  }
  return 1;
}

// a scoop 0.16 x 0.12 x 0.08 m, walls 6 mm: bottom, back and two sides, slabs overlapping
static int make_scoop(Mesh* m, int div) {
  const float w = 0.003f;
  const float slab[4][6] = {
      {0, 0, w, 0.08f, 0.06f, w},                    // bottom
      {-0.08f + w, 0, 0.04f, w, 0.06f, 0.04f},       // back
      {0, -0.06f + w, 0.04f, 0.08f, w, 0.04f},       // side
      {0, 0.06f - w, 0.04f, 0.08f, w, 0.04f}};       // side
  m->nv = m->nf = 0;
  for (int k = 0; k < 4; k++) {
    if (!add_box(m, slab[k], slab[k] + 3, div)) return 0;
  }
  return 1;
}

// processor time of the whole process (all threads) [s]
static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void bench(const char* name, const Mesh* m, float cell) {
  grnGrid g;
  double t0 = omp_get_wtime(), c0 = cpu_seconds();
  grnStatus st = grn_sdf_mesh_build(m->v, m->nv, m->f, m->nf, cell, 0.01f, &g);
  double t1 = omp_get_wtime(), c1 = cpu_seconds();
  if (st != grnOK) {
    printf("%-10s build failed: %s\n", name, grn_status_string(st));
    return;
  }
  long nodes = (long)g.nx * g.ny * g.nz;
  printf("%-10s %6d tris  cell %3.1f mm  grid %3d x %3d x %3d = %8ld nodes %6.2f MB  "
         "wall %6.3f s  cpu %6.3f s\n",
         name, m->nf, 1000 * cell, g.nx, g.ny, g.nz, nodes, 4e-6 * nodes, t1 - t0, c1 - c0);
  grn_sdf_mesh_free(&g);
}

int main(int argc, char** argv) {
  float cells_mm[16] = {4, 3, 2};
  int ncell = 3;
  if (argc > 1) {
    ncell = 0;
    for (int i = 1; i < argc && ncell < 16; i++) cells_mm[ncell++] = (float)atof(argv[i]);
  }
  Mesh sphere = {0}, scoop = {0};
  // 20 * 45^2 = 40500 triangles of radius 0.1 m; 4 slabs x 12 x 30^2 = 43200 triangles
  if (!make_icosphere(&sphere, 45, 0.1f) || !make_scoop(&scoop, 30)) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  printf("mesh sdf build, %d threads, margin 10 mm\n", omp_get_max_threads());
  for (int c = 0; c < ncell; c++) {
    bench("icosphere", &sphere, 0.001f * cells_mm[c]);
    bench("scoop", &scoop, 0.001f * cells_mm[c]);
  }
  free(sphere.v);
  free(sphere.f);
  free(scoop.v);
  free(scoop.f);
  return 0;
}
