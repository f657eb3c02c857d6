// helpers of the benchmark programs: clocks, a sort order, and a resting bed for the state and
// determinism benchmarks: n grains on a jittered lattice (2.2 radii) in an open square container (floor and four walls as planes, as the plugin builds its
// domain) wide enough for a bed about half as deep as it is wide, settled with the given params
// for a number of substeps. Define _DEFAULT_SOURCE (getloadavg, clock_gettime) before any include.
#ifndef MJGRANULAR_SCRIPTS_BENCH_BENCH_BED_H_
#define MJGRANULAR_SCRIPTS_BENCH_BENCH_BED_H_

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "granular.h"

#define BENCH_NWALL 5

// seconds on a monotonic clock
static inline double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// user + system cpu time of the process [s]
static inline double bench_cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

// qsort order of doubles, ascending
static inline int bench_compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// the container for n grains of radius r: floor and four walls as planes
static inline void bench_container(int n, float r, float friction, grnShape walls[BENCH_NWALL]) {
  float width = (float)cbrt(2.0 * n * (4.0 / 3.0 * M_PI * r * r * r) / 0.6);
  const float lo[3] = {-0.5f * width, -0.5f * width, 0}, hi[3] = {0.5f * width, 0.5f * width,
                                                                  width};
  grn_box_planes(lo, hi, 0, friction, walls);
}

// n grains placed in the container and settled for `substeps` with params p (capacity >= n);
// positions, velocities (n x 3) into pos, vel. 0, or 1 with a message on stderr
static inline int bench_settled_bed(const grnParams* p, int n, int substeps, unsigned seed,
                                    float* pos, float* vel) {
  grnShape walls[BENCH_NWALL];
  bench_container(n, p->radius, p->friction, walls);
  float r = p->radius, spacing = 2.2f * r, x0 = walls[1].pos[0] + 1.2f * r;
  int per_row = (int)floorf((-2 * walls[1].pos[0] - 2.4f * r) / spacing) + 1;
  srand(seed);
  for (int i = 0; i < n; i++) {
    int ix = i % per_row, iy = (i / per_row) % per_row, iz = i / (per_row * per_row);
    float j[3];
    for (int a = 0; a < 3; a++) j[a] = 0.05f * r * (2.0f * rand() / (float)RAND_MAX - 1.0f);
    pos[3 * i + 0] = x0 + ix * spacing + j[0];
    pos[3 * i + 1] = x0 + iy * spacing + j[1];
    pos[3 * i + 2] = 1.2f * r + iz * spacing + j[2];
  }
  grnSolver* s = NULL;
  grnStatus st = grn_create(p, grnBACKEND_CPU, &s);
  if (st == grnOK) st = grn_set_shapes(s, BENCH_NWALL, walls);
  if (st == grnOK) st = grn_set_grains(s, n, pos, NULL);
  if (st == grnOK) st = grn_advance(s, substeps);
  if (st == grnOK) st = grn_get_grains(s, pos, vel);
  grn_destroy(s);
  if (st != grnOK) fprintf(stderr, "bench: settling %d grains: %s\n", n, grn_status_string(st));
  return st != grnOK;
}

// print the 1-minute load average, when known
static inline void bench_print_load(const char* when, int ncpu) {
  double load[3];
  if (getloadavg(load, 3) == 3) printf("load average %s: %.2f (1 min) on %d cpus\n", when,
                                       load[0], ncpu);
}

#endif  // MJGRANULAR_SCRIPTS_BENCH_BENCH_BED_H_
