// mixed grain sizes on the cpu solver: for radii drawn uniformly in [R / ratio, R], ratio 1 to 4,
// a bed of n grains poured into the same container and settled, then timed (particle-substeps
// per second) and checked (the deepest overlap of a grain pair relative to the smaller radius,
// the grains whose 16 grain-contact slots are full). Shows what the polydispersity limit
// (plugin key radius: rmax / rmin <= 4) costs and where contacts start to be dropped.
//
//   bench_mixed [--grains 8000] [--settle 1500] [--substeps 200]
//   thread count: OMP_NUM_THREADS
#define _DEFAULT_SOURCE  // getloadavg, clock_gettime
#include <math.h>
#include <omp.h>
#include <string.h>

#include "bench_bed.h"
#include "grn_solver.h"  // grn_contact_offset: the grain-contact counts in the contact state

// the deepest overlap of any pair, over the smaller radius of the pair (brute force over the
// pairs the hash reports within contact distance)
static double deepest_overlap(grnSolver* s, const float* pos, const float* radius) {
  int npairs = 0;
  if (grn_find_pairs(s, NULL, 0, &npairs) != grnOK) return NAN;
  int* pairs = (int*)malloc(2 * (size_t)(npairs > 0 ? npairs : 1) * sizeof(int));
  if (!pairs || grn_find_pairs(s, pairs, npairs, &npairs) != grnOK) {
    free(pairs);
    return NAN;
  }
  double worst = 0;
  for (int k = 0; k < npairs; k++) {
    int i = pairs[2 * k], j = pairs[2 * k + 1];
    double dd = 0;
    for (int a = 0; a < 3; a++) dd += pow(pos[3 * i + a] - pos[3 * j + a], 2);
    double overlap = radius[i] + radius[j] - sqrt(dd);
    worst = fmax(worst, overlap / fmin(radius[i], radius[j]));
  }
  free(pairs);
  return worst;
}

int main(int argc, char** argv) {
  int n = 8000, settle = 1500, substeps = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    int v = atoi(argv[i + 1]);
    if (v < 1) return 2;
    if (!strcmp(argv[i], "--grains")) n = v;
    else if (!strcmp(argv[i], "--settle")) settle = v;
    else if (!strcmp(argv[i], "--substeps")) substeps = v;
    else return 2;
  }
  grnParams p;
  grn_default_params(&p);
  p.capacity = n;
  printf("mixed grain sizes, cpu backend: %d grains of radii in [R / ratio, R], R = %g m, %d "
         "openmp threads; settled %d substeps, timed %d\n", n, p.radius, omp_get_max_threads(),
         settle, substeps);
  bench_print_load("before", omp_get_num_procs());
  printf("| rmax / rmin | PSS | ms per substep | grain contacts per grain | grains with full "
         "slots | deepest overlap / smaller radius |\n|---:|---:|---:|---:|---:|---:|\n");
  const double ratios[] = {1, 1.5, 2, 3, 4};
  float* pos = (float*)malloc(3 * (size_t)n * sizeof(float));
  float* radius = (float*)malloc((size_t)n * sizeof(float));
  char* contacts = (char*)malloc(grn_contact_state_bytes(n));
  if (!pos || !radius || !contacts) return 1;
  for (size_t r = 0; r < sizeof(ratios) / sizeof(ratios[0]); r++) {
    // the same lattice for every ratio, the radii seeded
    grnShape walls[BENCH_NWALL];
    bench_container(n, p.radius, p.friction, walls);
    float spacing = 2.2f * p.radius, x0 = walls[1].pos[0] + 1.2f * p.radius;
    int per_row = (int)floorf((-2 * walls[1].pos[0] - 2.4f * p.radius) / spacing) + 1;
    srand(1);
    for (int i = 0; i < n; i++) {
      int ix = i % per_row, iy = (i / per_row) % per_row, iz = i / (per_row * per_row);
      pos[3 * i + 0] = x0 + ix * spacing + 0.05f * p.radius * (2.0f * rand() / RAND_MAX - 1);
      pos[3 * i + 1] = x0 + iy * spacing + 0.05f * p.radius * (2.0f * rand() / RAND_MAX - 1);
      pos[3 * i + 2] = 1.2f * p.radius + iz * spacing;
      float u = (float)rand() / (float)RAND_MAX;
      radius[i] = p.radius * (float)(1 / ratios[r] + u * (1 - 1 / ratios[r]));
    }
    grnSolver* s = NULL;
    grnStatus st = grn_create(&p, grnBACKEND_CPU, &s);
    if (st == grnOK) st = grn_set_shapes(s, BENCH_NWALL, walls);
    if (st == grnOK) st = grn_set_grains(s, n, pos, NULL);
    if (st == grnOK) st = grn_set_radii(s, radius);
    if (st == grnOK) st = grn_advance(s, settle);
    double t0 = bench_now();
    if (st == grnOK) st = grn_advance(s, substeps);
    double wall = bench_now() - t0;
    if (st == grnOK) st = grn_get_grains(s, pos, NULL);
    if (st == grnOK) st = grn_get_contacts(s, contacts);
    if (st != grnOK) {
      fprintf(stderr, "bench_mixed: ratio %g: %s\n", ratios[r], grn_status_string(st));
      return 1;
    }
    const int* npair = (const int*)(contacts + grn_contact_offset(grnCONTACT_npair, n));
    long long total = 0;
    int full = 0;
    for (int i = 0; i < n; i++) {
      total += npair[i];
      full += npair[i] == GRN_MAX_PAIRS;
    }
    printf("| %g | %.3g | %.3f | %.2f | %d | %.4f |\n", ratios[r], (double)n * substeps / wall,
           1e3 * wall / substeps, (double)total / n, full, deepest_overlap(s, pos, radius));
    fflush(stdout);
    grn_destroy(s);
  }
  bench_print_load("after", omp_get_num_procs());
  free(pos);
  free(radius);
  free(contacts);
  return 0;
}
