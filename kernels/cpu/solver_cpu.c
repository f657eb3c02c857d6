// cpu backend: the shared per-grain functions in openmp loops over host memory.
#include <omp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../grn_body.h"
#include "../grn_phases.h"
#include "../grn_solver.h"
#include "../grn_sorted.h"

// a dem batch of slots (grn_dem_grain_batch) lies in one grain's slots, its first row or the rest
_Static_assert(GRN_CPU_ROW_SLOTS % GRN_DEM_BATCH == 0 &&
               (GRN_MAX_PAIRS - GRN_CPU_ROW_SLOTS) % GRN_DEM_BATCH == 0,
               "a dem batch of slots straddles a grain's rows");

// the per-body sums are taken over this many fixed parts of the grains and the parts added in
// order, whatever the thread count: so results do not depend on it
enum { CPU_SUM_PARTS = 16 };
// each thread's share of a loop phase moves this part of the way toward equal work per substep
// (a step's timings jitter; this averages about four)
#define CPU_BALANCE_GAIN 0.25
// the splits of the loop phases among the threads: one per phase for substeps that rebuild the
// neighbour lists and one for those that do not (cpu_split_index)
enum { CPU_SPLITS = 2 * grnNPHASE };
// fewer grains than this per thread run slower on more threads: a substep's dozens of barriers
// cost more than the work they divide (2-core x86-64: 256 grains 5x, 1,000 grains 1.3x slower
// on 2 threads than on 1; 4,000 grains 1.6x faster)
enum { CPU_GRAINS_PER_THREAD = 1024 };

typedef struct grnCpu_ {
  grnData d;                  // arrays in host memory
  size_t bytes;               // bytes allocated
  int nthread;                // most threads of the parallel region (omp_get_max_threads)
  int lists_valid;            // the neighbour lists fit and were built from the current grains
  float moved2;               // largest squared displacement of a grain since the lists' build
  float* moved2_part;         // per-thread largest squared displacement      (nthread)
  double* wrench_part;        // per-part force, torque sums     (CPU_SUM_PARTS x max_bodies x 6)
  int* count_part;            // per-part contact counts         (CPU_SUM_PARTS x max_bodies)
  double* impulse;            // this iterate's impulse wrench per body (max_bodies x 6)
  // each loop phase's items split among the threads: thread t takes the fraction [split[t],
  // split[t + 1]) of them, set from the work times each thread measured in the last substep of
  // its kind (CPU_SPLITS)
  int split_threads;          // threads the splits are for (0: none yet)
  double* split;              // per split, split_threads + 1 fractions (CPU_SPLITS x (nthread + 1))
  double* work;               // per split and thread, seconds of work this substep
                              // (CPU_SPLITS x nthread)
} grnCpu;

// zeroed array on a cache line (a grain's 48-byte iterate then starts on a 16-byte boundary), from
// calloc, so pages never written stay unmapped; the block calloc returned is kept just before it
static void* cpu_alloc(grnCpu* c, size_t count, size_t size, int* ok) {
  char* block = (char*)calloc((count ? count : 1) * size + 64, 1);
  if (!block) {
    *ok = 0;
    return NULL;
  }
  char* p = block + 64 - ((uintptr_t)block & 63);
  ((void**)p)[-1] = block;
  c->bytes += count * size;
  return p;
}

// free an array from cpu_alloc (NULL is allowed)
static void cpu_free(void* p) {
  if (p) free(((void**)p)[-1]);
}

// every solver array of the tables (grn_data.h) that counts unit, allocated for the current
// sizes of d; 0 when one failed (those allocated stay, for cpu_free_arrays)
static int cpu_alloc_arrays(grnCpu* c, int unit, int nbody, const grnParams* params) {
  int ok = 1;
  for (int a = 0; a < grn_nsolver_arrays; a++) {
    const grnArrayDesc* desc = grn_solver_arrays + a;
    if (desc->unit != unit) continue;
    size_t count = grn_unit_count(unit, &c->d, nbody, params);
    // arrays of no length (another model's, one loop's without it) stay NULL
    if (count) *grn_array_field(&c->d, desc) = cpu_alloc(c, count * desc->width, desc->size, &ok);
  }
  return ok;
}

// free every solver array of the tables
static void cpu_free_tables(grnCpu* c) {
  for (int a = 0; a < grn_nsolver_arrays; a++) {
    void** field = grn_array_field(&c->d, grn_solver_arrays + a);
    cpu_free(*field);
    *field = NULL;
  }
}

// room for at least count contact pairs (grown by half again when short; kept when enough)
static grnStatus cpu_reserve_pairs(grnCpu* c, size_t count) {
  grnData* d = &c->d;
  if (count <= (size_t)d->cp_cap) return grnOK;
  size_t cap = (size_t)d->cp_cap + d->cp_cap / 2;
  if (cap < count) cap = count;
  if (cap > (size_t)GRN_MAX_PAIRS * d->cap) cap = (size_t)GRN_MAX_PAIRS * d->cap;
  // the old arrays out, the new ones in; on failure none (only those allocated were counted)
  for (int pass = 0; pass < 2; pass++) {
    for (int a = 0; a < grn_nsolver_arrays; a++) {
      const grnArrayDesc* desc = grn_solver_arrays + a;
      void** field = grn_array_field(d, desc);
      if (desc->unit != grnUNIT_PAIR || !*field) continue;
      c->bytes -= (size_t)d->cp_cap * desc->size * desc->width;
      cpu_free(*field);
      *field = NULL;
    }
    if (pass == 1) break;
    d->cp_cap = (int)cap;
    if (cpu_alloc_arrays(c, grnUNIT_PAIR, 0, NULL)) return grnOK;
  }
  d->cp_cap = 0;
  return grnERR_MEMORY;
}

static void cpu_free_arrays(grnCpu* c) {
  grnData* d = &c->d;
  cpu_free_tables(c);
  void* arrays[] = {d->overflow, d->nbr_overflow, d->nonfinite, c->wrench_part, c->count_part,
                    c->impulse, c->moved2_part, c->split, c->work};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) cpu_free(arrays[i]);
}

static void cpu_destroy(grnSolver* s) {
  grnCpu* c = (grnCpu*)s->impl;
  if (!c) return;
  cpu_free_arrays(c);
  free(c);
  s->impl = NULL;
}

static grnStatus cpu_create(grnSolver* s) {
  grnCpu* c = (grnCpu*)calloc(1, sizeof(grnCpu));
  if (!c) return grnERR_MEMORY;
  int ok = 1, nb = s->params.max_bodies > 0 ? s->params.max_bodies : 1;
  grnData* d = &c->d;
  d->cap = s->params.capacity;
  d->hash_size = (unsigned)s->params.hash_size;
  // every array of the tables but the pairs, which start at two per grain (none without pairs)
  for (int unit = grnUNIT_GRAIN; unit < grnNUNIT; unit++) {
    if (unit != grnUNIT_PAIR) ok &= cpu_alloc_arrays(c, unit, nb, &s->params);
  }
  if (ok && grn_solves_pairs(&s->params)) ok = cpu_reserve_pairs(c, 2 * (size_t)d->cap) == grnOK;
  d->overflow = (int*)cpu_alloc(c, 1, sizeof(int), &ok);
  d->nbr_overflow = (int*)cpu_alloc(c, 1, sizeof(int), &ok);
  d->nonfinite = (int*)cpu_alloc(c, 1, sizeof(int), &ok);
  c->nthread = omp_get_max_threads();
  c->moved2_part = (float*)cpu_alloc(c, c->nthread, sizeof(float), &ok);
  c->wrench_part = (double*)cpu_alloc(c, (size_t)CPU_SUM_PARTS * nb * 6, sizeof(double), &ok);
  c->count_part = (int*)cpu_alloc(c, (size_t)CPU_SUM_PARTS * nb, sizeof(int), &ok);
  c->impulse = (double*)cpu_alloc(c, (size_t)nb * 6, sizeof(double), &ok);
  c->split = (double*)cpu_alloc(c, (size_t)CPU_SPLITS * (c->nthread + 1), sizeof(double), &ok);
  c->work = (double*)cpu_alloc(c, (size_t)CPU_SPLITS * c->nthread, sizeof(double), &ok);
  s->impl = c;
  if (!ok) {
    cpu_destroy(s);
    return grnERR_MEMORY;
  }
  return grnOK;
}

static grnStatus cpu_set_grains(grnSolver* s, int n, const float* pos, const float* vel) {
  grnCpu* c = (grnCpu*)s->impl;
  // the grains put back exactly where they are (the plugin uploads what it downloaded, every
  // step): the neighbour lists still hold, and the contacts found from them do not depend on
  // when they were built
  // zero grains come without arrays (NULL), which memcmp and memcpy may not be given even for
  // 0 bytes
  size_t bytes = 3 * (size_t)n * sizeof(float);
  int same = c->lists_valid && n == c->d.n && (n == 0 || memcmp(c->d.pos, pos, bytes) == 0);
  if (n > 0) memcpy(c->d.pos, pos, bytes);
  if (n > 0 && vel) {
    memcpy(c->d.vel, vel, bytes);
  } else {
    memset(c->d.vel, 0, bytes);
  }
  memset(c->d.angvel, 0, bytes);
  for (int i = 0; i < n; i++) grn_reset_orientation(&c->d, i);
  // a new count comes in the caller's order (granular.c puts the same count in the solver's)
  if (c->d.uid && n != c->d.n) {
    for (int i = 0; i < n; i++) c->d.uid[i] = c->d.rank[i] = i;
  }
  // a new configuration: no contacts to warm start from
  memset(c->d.npair, 0, (size_t)c->d.cap * sizeof(int));
  memset(c->d.nshape, 0, (size_t)c->d.cap * sizeof(int));
  c->d.n = n;
  c->lists_valid = same;
  return grnOK;
}

// bytes [first, first + bytes) of array a of slots, as the contact state lays them out (slot by
// slot across the grains, GRN_STATE_SLOT), copied from the cpu's own layout (grain by grain,
// grn_slot_index) into host, or from host into it (to_solver); whole 4-byte numbers of whole
// slots only
static grnStatus cpu_copy_slots(grnCpu* c, const grnArrayDesc* a, size_t first,
                                uint32_t* host, size_t bytes, int to_solver) {
  const size_t per = a->size * a->width, words = per / sizeof(uint32_t), cap = (size_t)c->d.cap;
  const int slots = grn_unit_slots(a->unit);
  if (first % per || bytes % per || per % sizeof(uint32_t)) return grnERR_ARG;
  uint32_t* arr = (uint32_t*)*grn_array_field(&c->d, a);
  // grain by grain over the rows the range touches, so the solver's array is passed once
  const size_t lo = first / per, hi = (first + bytes) / per;
  const size_t row_lo = lo / cap, row_hi = (hi + cap - 1) / cap;
  for (size_t i = 0; i < cap; i++) {
    for (size_t k = row_lo; k < row_hi; k++) {
      size_t e = k * cap + i;
      if (e < lo || e >= hi) continue;
      uint32_t* own = arr + words * grn_slot_index(slots, (int)k, (int)i, (int)cap);
      uint32_t* h = host + words * (e - lo);
      memcpy(to_solver ? own : h, to_solver ? h : own, per);
    }
  }
  return grnOK;
}

static grnStatus cpu_write(grnSolver* s, const grnArrayDesc* a, size_t first, const void* host,
                           size_t bytes) {
  grnCpu* c = (grnCpu*)s->impl;
  if (grn_unit_slots(a->unit) > 1) return cpu_copy_slots(c, a, first, (uint32_t*)host, bytes, 1);
  char* at = (char*)*grn_array_field(&c->d, a) + first;
  // the neighbour lists hold each pair within its own contact distance: other radii, other lists
  // (the same radii put back, as the plugin does every step, keep them)
  if (a->offset == offsetof(grnData, rad) && memcmp(at, host, bytes)) c->lists_valid = 0;
  memcpy(at, host, bytes);
  return grnOK;
}

static grnStatus cpu_read(const grnSolver* s, const grnArrayDesc* a, size_t first, void* host,
                          size_t bytes) {
  grnCpu* c = (grnCpu*)s->impl;
  if (grn_unit_slots(a->unit) > 1) return cpu_copy_slots(c, a, first, (uint32_t*)host, bytes, 0);
  memcpy(host, (const char*)*grn_array_field(&c->d, a) + first, bytes);
  return grnOK;
}

static grnStatus cpu_add_grid(grnSolver* s, int id) {
  return grnOK;  // the host copy in s->grids is what the cpu reads
}

// push grain i onto the front of its bucket's list with one compare-and-swap
static void cpu_hash_insert(grnData* d, int i) {
  int* head = d->head + grn_grain_bucket(d, i);
  int old = __atomic_load_n(head, __ATOMIC_RELAXED);
  do {
    d->next[i] = old;
  } while (!__atomic_compare_exchange_n(head, &old, i, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

// the hash broadphase: cells of all grains, then the linked lists (inside a parallel region)
static void cpu_build_hash(grnData* d, float inv_cell) {
  #pragma omp for schedule(static)
  for (unsigned b = 0; b < d->hash_size; b++) d->head[b] = -1;
  #pragma omp for schedule(static)
  for (int i = 0; i < d->n; i++) {
    grn_compute_cell(d, i, inv_cell);
    cpu_hash_insert(d, i);
  }
}

// the sorted broadphase (grn_sorted.h): cells of all grains and their box, their ranks in their
// buckets, the counts summed into the buckets' starts, the grains scattered and each bucket
// ordered (inside a parallel region)
static void cpu_build_sorted(grnData* d, float inv_cell) {
  #pragma omp for schedule(static)
  for (unsigned b = 0; b <= d->hash_size; b++) d->bucket_count[b] = 0;
  #pragma omp single
  grn_sorted_empty_box(d->cell_box);
  // each thread's box of its grains' cells, then the threads' boxes into the grains'
  int box[6];
  grn_sorted_empty_box(box);
  #pragma omp for schedule(static) nowait
  for (int i = 0; i < d->n; i++) {
    grn_compute_cell(d, i, inv_cell);
    grn_sorted_widen_box(box, d->cell + 3 * i);
  }
  #pragma omp critical(cpu_cell_box)
  grn_sorted_merge_box(d->cell_box, box);
  #pragma omp barrier
  #pragma omp for schedule(static)
  for (int i = 0; i < d->n; i++) {
    d->bucket_rank[i] = __atomic_fetch_add(d->bucket_count + grn_grain_bucket(d, i), 1,
                                           __ATOMIC_RELAXED);
  }
  // the prefix sum, serial: a pass over the table costs little next to the substep
  #pragma omp single
  {
    int sum = 0;
    for (unsigned b = 0; b <= d->hash_size; b++) {
      d->bucket_start[b] = sum;
      sum += d->bucket_count[b];
    }
  }
  #pragma omp for schedule(static)
  for (int i = 0; i < d->n; i++) grn_sorted_scatter_grain(d, i);
  #pragma omp for schedule(static)
  for (unsigned b = 0; b < d->hash_size; b++) grn_sorted_order_bucket(d, b);
}

// the grains put in the sorted list's order (grn_sorted.h: the list built, then steps 5 to 7),
// after the swap of the contacts to the previous ones
static void cpu_sorted_reorder(grnData* d, const grnConsts* k, int nthread) {
  #pragma omp parallel num_threads(nthread)
  {
    cpu_build_sorted(d, k->inv_list_cell);
    #pragma omp for schedule(static)
    for (int e = 0; e < d->n; e++) grn_sorted_renumber_entry(d, e);
    #pragma omp for schedule(static)
    for (int e = 0; e < d->n; e++) grn_sorted_gather_entry(d, e);
  }
  grn_sorted_swap_gathered(d);
}

// the broadphase of the params, cells 1 / inv_cell wide (inside a parallel region)
static void cpu_build_broadphase(grnData* d, const grnConsts* k, float inv_cell) {
  if (k->broadphase == grnBROADPHASE_SORTED) {
    cpu_build_sorted(d, inv_cell);
  } else {
    cpu_build_hash(d, inv_cell);
  }
}

// each body's force and torque from the current shape impulses (and, with counts, its number of
// contacts) added into out (max_bodies x 6): summed over CPU_SUM_PARTS fixed parts of the grains
// in the caller's order, the parts then added in order, so the sums are the same run to run, at
// any thread count and in any order the solver keeps the grains in; inside a parallel region
static void cpu_body_sums(const grnSolver* s, grnCpu* c, const grnData* d, double* out,
                          int* counts) {
  int nb = s->params.max_bodies;
  #pragma omp for schedule(static)
  for (int q = 0; q < CPU_SUM_PARTS; q++) {
    double* part = c->wrench_part + (size_t)q * nb * 6;
    int* cpart = c->count_part + (size_t)q * nb;
    memset(part, 0, nb * 6 * sizeof(double));
    memset(cpart, 0, nb * sizeof(int));
    int lo = (int)((long long)d->n * q / CPU_SUM_PARTS);
    int hi = (int)((long long)d->n * (q + 1) / CPU_SUM_PARTS);
    for (int u = lo; u < hi; u++) {
      int i = grn_user_grain(d, u);
      for (int k = 0; k < d->nshape[i]; k++) {
        int body = d->shapes[d->sc_shape[GRN_SHAPE_SLOT(k, i, d->cap)]].body;
        if (body < 0) continue;
        grnVec3 f, t;
        grn_shape_contact_wrench(d, &s->consts, i, k, &f, &t);
        double* w = part + 6 * body;
        w[0] += f.x; w[1] += f.y; w[2] += f.z;
        w[3] += t.x; w[4] += t.y; w[5] += t.z;
        cpart[body]++;
      }
    }
  }
  #pragma omp for schedule(static)
  for (int j = 0; j < nb * 6; j++) {
    for (int q = 0; q < CPU_SUM_PARTS; q++) out[j] += c->wrench_part[(size_t)q * nb * 6 + j];
    if (counts && j < nb) {
      for (int q = 0; q < CPU_SUM_PARTS; q++) counts[j] += c->count_part[(size_t)q * nb + j];
    }
  }
}

// implicit coupling: every body's velocity change from the current iterate's impulses
// (dv = W p, impulse p = force dt), and with counts its contacts; inside a parallel region
static void cpu_body_response(const grnSolver* s, grnCpu* c, grnData* d, int count) {
  int nb = s->params.max_bodies;
  #pragma omp single
  {
    memset(c->impulse, 0, nb * 6 * sizeof(double));
    if (count) memset(d->body_nc, 0, nb * sizeof(int));
  }
  cpu_body_sums(s, c, d, c->impulse, count ? d->body_nc : NULL);
  #pragma omp single
  for (int b = 0; b < nb; b++) {
    double p[6];
    for (int j = 0; j < 6; j++) p[j] = c->impulse[6 * b + j] * s->consts.dt;
    grn_body_velocity_change(d->body_mob + 36 * b, p, d->body_dv + 6 * b);
  }
}

// grains' pair counts summed into their first pair numbers, the arrays grown to fit
static grnStatus cpu_number_pairs(grnCpu* c) {
  grnData* d = &c->d;
  int sum = 0;
  for (int i = 0; i < d->n; i++) {
    d->pair_first[i] = sum;
    sum += d->pair_count[i];
  }
  d->pair_first[d->n] = sum;
  d->ncp = sum;
  return cpu_reserve_pairs(c, (size_t)sum);
}

// a thread's copy of the solver arrays takes the pair arrays as they are now
static void cpu_copy_pair_arrays(grnData* dl, grnData* d) {
  dl->ncp = d->ncp;
  dl->cp_cap = d->cp_cap;
  for (int a = 0; a < grn_nsolver_arrays; a++) {
    const grnArrayDesc* desc = grn_solver_arrays + a;
    if (desc->unit == grnUNIT_PAIR) *grn_array_field(dl, desc) = *grn_array_field(d, desc);
  }
}

// on x86-64 with gcc each phase runs from one of two builds, picked once at load: baseline and
// x86-64-v3 (avx2; about 10% faster), with every function it calls inlined (flatten: else gcc
// keeps the larger per-grain functions out of line, built for the baseline only). the same
// operations in the same order (no fused multiply-add: kernels/ compiles with -ffp-contract=off
// and without the slp vectoriser, and a test reads the library's code for one), so results are
// the same bit for bit
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default"), flatten))
#endif
#endif
#ifndef CPU_CLONES
#define CPU_CLONES
#endif

// a grain phase over grains [lo, hi); one that moves the grains returns the largest squared
// displacement since the neighbour lists' build among them. from local copies, as the pair
// phases: the stores into the arrays cannot alias them, so the array pointers stay in registers
// and loops over a grain's contacts vectorise
#define CPU_GRAIN_PHASE(phase, function, moves)             \
  case phase: {                                             \
    const grnData dl = *d;                                  \
    const grnConsts kl = *k;                                \
    for (int i = lo; i < hi; i++) {                         \
      function(&dl, &kl, i);                                \
      if (moves) {                                          \
        float m = grn_neighbors_moved2(&dl, i);             \
        moved2 = m > moved2 ? m : moved2;                   \
      }                                                     \
    }                                                       \
    break;                                                  \
  }

// a pair phase over pairs [lo, hi), from local copies: the stores into the pair arrays cannot
// alias them, so the loop vectorises
#define CPU_PAIR_PHASE(phase, function)                     \
  case phase: {                                             \
    const grnData dl = *d;                                  \
    const grnConsts kl = *k;                                \
    _Pragma("omp simd")                                     \
    for (int p = lo; p < hi; p++) function(&dl, &kl, p);    \
    break;                                                  \
  }

// a clump phase over clumps [lo, hi); one that moves them returns the largest squared
// displacement of their spheres since the neighbour lists' build
#define CPU_CLUMP_PHASE(phase, function, moves)                                    \
  case phase:                                                                      \
    for (int q = lo; q < hi; q++) {                                                \
      function(d, k, q);                                                           \
      if (moves) {                                                                 \
        for (int i = d->clump_first[q]; i < d->clump_first[q] + d->clump_count[q]; i++) { \
          float m = grn_neighbors_moved2(d, i);                                    \
          moved2 = m > moved2 ? m : moved2;                                        \
        }                                                                          \
      }                                                                            \
    }                                                                              \
    break;

// a loop phase of the table (grn_phases.h) over items [lo, hi): grains, pairs or clumps
CPU_CLONES static float cpu_phase(grnPhase phase, const grnData* d, const grnConsts* k, int lo,
                                  int hi) {
  float moved2 = 0;
  // the one grain phase the cpu runs as a vectorised range
  if (phase == grnPHASE_DEM_INTEGRATE) {
    const grnData dl = *d;
    const grnConsts kl = *k;
    return grn_dem_integrate_range(&dl, &kl, lo, hi);
  }
  switch (phase) {
    GRN_GRAIN_PHASES(CPU_GRAIN_PHASE)
    GRN_PAIR_PHASES(CPU_PAIR_PHASE)
    GRN_CLUMP_PHASES(CPU_CLUMP_PHASE)
    default:
      break;
  }
  return moved2;
}

#undef CPU_GRAIN_PHASE
#undef CPU_PAIR_PHASE
#undef CPU_CLUMP_PHASE

// the items a loop phase runs over: pairs, clumps or grains
static int cpu_phase_items(grnPhase phase, const grnData* d) {
#define CPU_IS_PAIR(id, function) if (phase == id) return d->ncp;
  GRN_PAIR_PHASES(CPU_IS_PAIR)
#undef CPU_IS_PAIR
#define CPU_IS_CLUMP(id, function, moves) if (phase == id) return d->nclump;
  GRN_CLUMP_PHASES(CPU_IS_CLUMP)
#undef CPU_IS_CLUMP
  return d->n;
}

// the items of a loop phase are split among the threads in contiguous ranges (each grain's data
// stays in one core's cache from substep to substep), not equal ones: in a settling bed the
// grains are ordered by height and the lower half holds more contacts (10k pour, two threads:
// 5.5 against 4.4 s of work in the forces phase, the second thread waiting out the difference).
// each thread times its share of each phase; before the next substep every boundary moves
// toward where the measured work would be split equally. which thread computes a grain never
// changes its result. a substep that rebuilds the neighbour lists has its own splits: the
// builds' work lies where the grains are, the contacts' where the bed is (the 1M pour, two
// threads, one split for both: each thread waited 9% of the forces phase)

// phase p's split in substeps that build the neighbour lists (lists 1) or not
static int cpu_split_index(grnPhase p, int lists) { return p + (lists ? grnNPHASE : 0); }

// its fractions of the phase's items (split_threads + 1 of them)
static double* cpu_phase_split(const grnCpu* c, int split) {
  return c->split + (size_t)split * (c->nthread + 1);
}

// every split equal among nt threads
static void cpu_split_equally(grnCpu* c, int nt) {
  for (int q = 0; q < CPU_SPLITS; q++) {
    double* f = cpu_phase_split(c, q);
    for (int t = 0; t <= nt; t++) f[t] = (double)t / nt;
  }
  memset(c->work, 0, (size_t)CPU_SPLITS * c->nthread * sizeof(double));
  c->split_threads = nt;
}

// each timed split's boundaries moved toward equal work, assuming each thread's work was spread
// evenly over its range; the timings then restart
static void cpu_balance_splits(grnCpu* c) {
  int nt = c->split_threads;
  for (int q = 0; q < CPU_SPLITS; q++) {
    double* f = cpu_phase_split(c, q);
    double* w = c->work + (size_t)q * c->nthread;
    double total = 0;
    for (int t = 0; t < nt; t++) total += w[t];
    if (!(total > 0)) continue;
    // boundary b where the work before it is b / nt of the total, in range t
    double before = 0, target[nt + 1];
    int t = 0;
    for (int b = 1; b < nt; b++) {
      double want = total * b / nt;
      while (t < nt - 1 && before + w[t] < want) before += w[t++];
      double inside = w[t] > 0 ? (want - before) / w[t] : 0.5;
      target[b] = f[t] + (inside < 1 ? inside : 1) * (f[t + 1] - f[t]);
    }
    for (int b = 1; b < nt; b++) f[b] += CPU_BALANCE_GAIN * (target[b] - f[b]);
    memset(w, 0, nt * sizeof(double));
  }
}

// loop phase over this thread's share of count items, then a barrier (inside a parallel region)
static float cpu_phase_all(grnCpu* c, grnPhase phase, const grnData* d, const grnConsts* k,
                           int count) {
  int t = omp_get_thread_num(), nt = omp_get_num_threads();
  // openmp may start fewer threads than asked for: then equal shares, untimed
  int balanced = nt == c->split_threads, split = cpu_split_index(phase, k->lists);
  const double* f = cpu_phase_split(c, split);
  // the last fraction is 1 exactly: the last share ends at count
  int lo = balanced ? (int)(count * f[t]) : (int)((long long)count * t / nt);
  int hi = balanced ? (int)(count * f[t + 1]) : (int)((long long)count * (t + 1) / nt);
  double start = omp_get_wtime();
  float moved2 = cpu_phase(phase, d, k, lo, hi);
  if (balanced) c->work[(size_t)split * c->nthread + t] += omp_get_wtime() - start;
  #pragma omp barrier
  return moved2;
}

// threads for a parallel region over n grains: one per CPU_GRAINS_PER_THREAD, at least one
static int cpu_threads(const grnCpu* c, int n) {
  int t = n / CPU_GRAINS_PER_THREAD;
  return t < 1 ? 1 : t < c->nthread ? t : c->nthread;
}

static grnStatus cpu_substep(grnSolver* s) {
  grnCpu* c = (grnCpu*)s->impl;
  grnData* d = &c->d;
  d->shapes = s->shapes_now;
  d->nshapes = s->nshapes;
  d->grids = s->grids;
  d->body_mob = s->mobile && grn_bodies_answer_iterates(&s->consts) ? s->body_mob : NULL;
  d->nclump = s->nclump;
  d->nonfinite[0] = 0;
  d->overflow[0] = 0;
  int iterations = s->params.iterations;

  // neighbour lists rebuilt when a grain may have come within the cutoff of one not listed
  grnConsts k = s->consts;
  k.lists = !c->lists_valid || c->moved2 > k.moved2;
  if (k.lists) d->nbr_overflow[0] = 0;

  // last substep's contacts become the warm start
  grn_swap_contacts(d);
  // the grains into the order of the sorted list, which is then built
  int built = 0;
  if (k.lists && grn_sorted_keeps_order(&k)) {
    cpu_sorted_reorder(d, &k, cpu_threads(c, d->n));
    built = 1;
  }
  memset(c->moved2_part, 0, c->nthread * sizeof(float));
  grnStatus pairs = grnOK;
  grnPhaseTable table = grn_phase_table(&k);
  int nt = cpu_threads(c, d->n);
  if (nt != c->split_threads) {
    cpu_split_equally(c, nt);
  } else {
    cpu_balance_splits(c);
  }

  #pragma omp parallel num_threads(nt)
  {
    // each thread swaps its own copy of the iterate pointers (no barrier for it)
    grnData dl = *d;
    int first = 0, iteration = 0;
    // the model's phases in order (grn_phases.h); every thread takes the same path
    for (int e = 0; e < table.count && pairs == grnOK; e++) {
      grnPhase phase = table.phase[e];
      switch (phase) {
        case grnPHASE_BROADPHASE:
          if (k.lists && !built) cpu_build_broadphase(&dl, &k, k.inv_list_cell);
          break;
        case grnPHASE_NUMBER:
          #pragma omp single
          pairs = cpu_number_pairs(c);
          cpu_copy_pair_arrays(&dl, d);
          break;
        case grnPHASE_BODY_CONTACTS:
          if (dl.body_mob) cpu_body_response(s, c, &dl, 1);
          break;
        case grnPHASE_ITERATE:
          first = e;
          break;
        case grnPHASE_NEXT_ITERATE:
          // the bodies answer each iterate the next one reads
          grn_swap_iterates(&dl);
          if (++iteration < iterations) {
            if (dl.body_mob) cpu_body_response(s, c, &dl, 0);
            e = first;
          }
          break;
        case grnPHASE_WRENCH:
          if (s->params.max_bodies > 0) cpu_body_sums(s, c, &dl, s->wrench_sum, NULL);
          break;
        default: {
          float moved2 = cpu_phase_all(c, phase, &dl, &k, cpu_phase_items(phase, &dl));
          if (moved2 > c->moved2_part[omp_get_thread_num()]) {
            c->moved2_part[omp_get_thread_num()] = moved2;
          }
        }
      }
    }
  }
  if (pairs != grnOK) return pairs;
  if (iterations % 2) grn_swap_iterates(d);
  c->moved2 = 0;
  for (int t = 0; t < c->nthread; t++) {
    c->moved2 = c->moved2_part[t] > c->moved2 ? c->moved2_part[t] : c->moved2;
  }
  c->lists_valid = !d->nbr_overflow[0];
  return d->nonfinite[0] ? grnERR_NONFINITE : grnOK;
}

static grnStatus cpu_find_pairs(grnSolver* s, int* pairs, int max, int* npairs) {
  grnCpu* c = (grnCpu*)s->impl;
  grnData* d = &c->d;
  const grnConsts* k = &s->consts;
  #pragma omp parallel num_threads(cpu_threads(c, d->n))
  cpu_build_broadphase(d, k, k->inv_cell);
  return grn_list_pairs(d, k, pairs, max, npairs);
}

static size_t cpu_memory_bytes(const grnSolver* s) {
  return ((const grnCpu*)s->impl)->bytes + sizeof(grnCpu);
}

const grnBackendOps grn_cpu_ops = {
  cpu_create, cpu_destroy, cpu_set_grains, cpu_write, cpu_read, cpu_add_grid, cpu_substep,
  cpu_find_pairs, cpu_memory_bytes,
};
