// cpu cost of the deterministic param: substeps of a resting bed with each grain's contacts
// sorted by partner (deterministic = 1, the default) against in the order the hash walk meets
// them (deterministic = 0), timed in alternating blocks so that other load on the machine falls
// on both alike (wall time: fastest and median block; process cpu time, which openmp's passive
// waits do not count); and whether two runs from the same state agree bit for bit in each mode.
//
//   bench_deterministic [--grains 50000] [--settle 600] [--rounds 10] [--block 10]
//                       [--repeat 100] [--seed 1]
//   thread count: OMP_NUM_THREADS
#define _DEFAULT_SOURCE  // getloadavg, clock_gettime
#include <omp.h>
#include <string.h>

#include "bench_bed.h"

typedef struct Options_ {
  int grains;                 // grains in the bed
  int settle;                 // substeps settling the bed before timing
  int rounds;                 // timed blocks per mode
  int block;                  // substeps per timed block
  int repeat;                 // substeps of the repeatability runs
  unsigned seed;              // lattice jitter
} Options;

static int parse_args(int argc, char** argv, Options* o) {
  *o = (Options){50000, 600, 10, 10, 100, 1};
  for (int i = 1; i + 1 < argc; i += 2) {
    char* end;
    long v = strtol(argv[i + 1], &end, 10);
    if (*end || v < 0) return 0;
    if (!strcmp(argv[i], "--grains")) o->grains = (int)v;
    else if (!strcmp(argv[i], "--settle")) o->settle = (int)v;
    else if (!strcmp(argv[i], "--rounds")) o->rounds = (int)v;
    else if (!strcmp(argv[i], "--block")) o->block = (int)v;
    else if (!strcmp(argv[i], "--repeat")) o->repeat = (int)v;
    else if (!strcmp(argv[i], "--seed")) o->seed = (unsigned)v;
    else return 0;
  }
  return argc % 2 == 1 && o->grains > 0 && o->rounds > 0 && o->block > 0;
}

// a solver of the given mode holding the bed; NULL with a message
static grnSolver* make(const grnParams* base, int deterministic, int n, const float* pos,
                       const float* vel) {
  grnParams p = *base;
  p.deterministic = deterministic;
  grnShape walls[BENCH_NWALL];
  bench_container(n, p.radius, p.friction, walls);
  grnSolver* s = NULL;
  grnStatus st = grn_create(&p, grnBACKEND_CPU, &s);
  if (st == grnOK) st = grn_set_shapes(s, BENCH_NWALL, walls);
  if (st == grnOK) st = grn_set_grains(s, n, pos, vel);
  if (st != grnOK) {
    fprintf(stderr, "bench_deterministic: %s\n", grn_status_string(st));
    grn_destroy(s);
    return NULL;
  }
  return s;
}

// grains whose position differs in any bit between two runs of `substeps` from the bed, and the
// largest difference [m]; -1 on failure
static int differing(const grnParams* p, int deterministic, int n, const float* pos,
                     const float* vel, int substeps, double* largest) {
  float* out[2] = {malloc(3 * (size_t)n * sizeof(float)), malloc(3 * (size_t)n * sizeof(float))};
  int ok = out[0] && out[1];
  for (int run = 0; run < 2 && ok; run++) {
    grnSolver* s = make(p, deterministic, n, pos, vel);
    ok = s && grn_advance(s, substeps) == grnOK && grn_get_grains(s, out[run], NULL) == grnOK;
    grn_destroy(s);
  }
  int count = 0;
  *largest = 0;
  for (int i = 0; i < n && ok; i++) {
    if (memcmp(out[0] + 3 * i, out[1] + 3 * i, 3 * sizeof(float))) count++;
    for (int a = 0; a < 3; a++) {
      *largest = fmax(*largest, fabs((double)out[0][3 * i + a] - out[1][3 * i + a]));
    }
  }
  free(out[0]);
  free(out[1]);
  return ok ? count : -1;
}

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o)) {
    fprintf(stderr, "usage: bench_deterministic [--grains 50000] [--settle 600] [--rounds 10] "
                    "[--block 10] [--repeat 100] [--seed 1]\n");
    return 2;
  }
  int n = o.grains, nthread = omp_get_max_threads();
  grnParams p;
  grn_default_params(&p);
  p.capacity = n;
  printf("mjgranular deterministic param, cpu backend: %d grains, %d openmp threads, dt %g s, "
         "%d iterations\n", n, nthread, p.dt, p.iterations);
  bench_print_load("before", omp_get_num_procs());

  // the bed
  float* pos = malloc(3 * (size_t)n * sizeof(float));
  float* vel = malloc(3 * (size_t)n * sizeof(float));
  if (!pos || !vel || bench_settled_bed(&p, n, o.settle, o.seed, pos, vel)) return 1;
  grnSolver* s[2] = {make(&p, 1, n, pos, vel), make(&p, 0, n, pos, vel)};
  if (!s[0] || !s[1]) return 1;
  int npairs = 0;
  grn_find_pairs(s[0], NULL, 0, &npairs);
  printf("bed settled %d substeps; %.2f grain contacts per grain\n", o.settle, 2.0 * npairs / n);

  // timed blocks, alternating which mode goes first
  double* ms[2] = {malloc(o.rounds * sizeof(double)), malloc(o.rounds * sizeof(double))};
  double cpu[2] = {0, 0}, wall[2] = {0, 0};
  for (int m = 0; m < 2; m++) grn_advance(s[m], o.block);  // warm up
  for (int r = 0; r < o.rounds; r++) {
    for (int k = 0; k < 2; k++) {
      int m = (r + k) % 2;
      double t0 = bench_now(), c0 = bench_cpu_seconds();
      if (grn_advance(s[m], o.block) != grnOK) return 1;
      double dt = bench_now() - t0;
      ms[m][r] = 1e3 * dt / o.block;
      wall[m] += dt;
      cpu[m] += bench_cpu_seconds() - c0;
    }
  }
  printf("\n%-22s  %10s  %10s  %10s  %9s  %14s\n", "mode", "fastest", "median", "cpu time",
         "cpu share", "pss (fastest)");
  printf("%-22s  %10s  %10s  %10s  %9s  %14s\n", "", "ms/substep", "ms/substep", "ms/substep",
         "", "");
  const char* names[2] = {"deterministic (sorted)", "unordered"};
  double fastest[2], median[2], cpu_ms[2];
  for (int m = 0; m < 2; m++) {
    qsort(ms[m], o.rounds, sizeof(double), bench_compare_doubles);
    fastest[m] = ms[m][0];
    median[m] = ms[m][o.rounds / 2];
    cpu_ms[m] = 1e3 * cpu[m] / (o.rounds * o.block);
    printf("%-22s  %10.3f  %10.3f  %10.3f  %9.2f  %14.3g\n", names[m], fastest[m], median[m],
           cpu_ms[m], cpu[m] / (wall[m] * nthread), n / (1e-3 * fastest[m]));
  }
  printf("cost of determinism: %+.1f%% (fastest), %+.1f%% (median), %+.1f%% (cpu time); "
         "%d rounds of %d substeps per mode\n", 100.0 * (fastest[0] / fastest[1] - 1),
         100.0 * (median[0] / median[1] - 1), 100.0 * (cpu_ms[0] / cpu_ms[1] - 1), o.rounds,
         o.block);

  // repeatability: two runs from the same bed in each mode
  printf("\ntwo runs of %d substeps from the same bed:\n", o.repeat);
  for (int m = 0; m < 2; m++) {
    double largest;
    int count = differing(&p, 1 - m, n, pos, vel, o.repeat, &largest);
    if (count < 0) return 1;
    printf("  %-22s  %d of %d grains differ, largest difference %.3g m\n", names[m], count, n,
           largest);
  }
  bench_print_load("after", omp_get_num_procs());
  grn_destroy(s[0]);
  grn_destroy(s[1]);
  free(pos), free(vel), free(ms[0]), free(ms[1]);
  return 0;
}
