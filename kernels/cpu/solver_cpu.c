// cpu backend: the shared per-grain functions in openmp loops over host memory.
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../grn_body.h"
#include "../grn_collide.h"
#include "../grn_contact_pj.h"
#include "../grn_integrate.h"
#include "../grn_solver.h"

typedef struct grnCpu_ {
  grnData d;                  // arrays in host memory
  size_t bytes;               // bytes allocated
  int nthread;                // threads of the parallel region
  int lists_valid;            // the neighbour lists fit and were built from the current grains
  float moved2;               // largest squared displacement of a grain since the lists' build
  float* moved2_part;         // per-thread largest squared displacement      (nthread)
  double* wrench_part;        // per-thread force, torque sums          (nthread x max_bodies x 6)
  int* count_part;            // per-thread contact counts              (nthread x max_bodies)
  double* impulse;            // this iterate's impulse wrench per body (max_bodies x 6)
} grnCpu;

// zeroed array on a cache line (a grain's 32-byte iterate then never straddles two lines), from
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

// room for at least count contact pairs (grown by half again when short; kept when enough)
static grnStatus cpu_reserve_pairs(grnCpu* c, size_t count) {
  grnData* d = &c->d;
  if (count <= (size_t)d->cp_cap) return grnOK;
  size_t cap = (size_t)d->cp_cap + d->cp_cap / 2;
  if (cap < count) cap = count;
  if (cap > (size_t)GRN_MAX_PAIRS * d->cap) cap = (size_t)GRN_MAX_PAIRS * d->cap;
  void** arrays[] = {(void**)&d->cp_grain, (void**)&d->cp_partner, (void**)&d->cp_normal,
                     (void**)&d->cp_target, (void**)&d->cp_bias_target, (void**)&d->cp_share,
                     (void**)&d->cp_imp, (void**)&d->cp_bias};
  const size_t sizes[] = {sizeof(int), sizeof(int), 3 * sizeof(float), sizeof(float),
                          sizeof(float), sizeof(float), 3 * sizeof(float), sizeof(float)};
  const int count_arrays = sizeof(sizes) / sizeof(sizes[0]);
  int ok = 1;
  for (int a = 0; a < count_arrays; a++) {
    cpu_free(*arrays[a]);
    c->bytes -= (size_t)d->cp_cap * sizes[a];
    *arrays[a] = cpu_alloc(c, cap, sizes[a], &ok);
  }
  d->cp_cap = (int)cap;
  if (ok) return grnOK;
  for (int a = 0; a < count_arrays; a++) {
    if (*arrays[a]) c->bytes -= cap * sizes[a];  // a failed array was never counted
    cpu_free(*arrays[a]);
    *arrays[a] = NULL;
  }
  d->cp_cap = 0;
  return grnERR_MEMORY;
}

static void cpu_free_arrays(grnCpu* c) {
  grnData* d = &c->d;
  void* arrays[] = {d->pos, d->vel, d->vpred, d->iter, d->iter_next, d->cell, d->head, d->next,
                    d->nbr, d->nnbr, d->nbr_pos, d->nbr_overflow, d->ncontact, d->npair, d->pair,
                    d->pair_imp, d->pair_bias, d->pair_ref, d->pair_solved, d->pair_count,
                    d->pair_first, d->cp_grain, d->cp_partner, d->cp_normal, d->cp_target,
                    d->cp_bias_target, d->cp_share, d->cp_imp, d->cp_bias, d->nshape, d->sc_shape,
                    d->sc_normal, d->sc_depth, d->sc_vel, d->sc_imp, d->sc_bias, d->npair_prev,
                    d->pair_prev, d->pair_imp_prev, d->nshape_prev, d->sc_shape_prev,
                    d->sc_imp_prev, d->overflow, d->nonfinite, d->body_dv, d->body_nc,
                    c->wrench_part, c->count_part, c->impulse, c->moved2_part};
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
  int cap = s->params.capacity, ok = 1;
  size_t ks = GRN_MAX_SHAPE_CONTACTS, kp = GRN_MAX_PAIRS;
  grnData* d = &c->d;
  d->cap = cap;
  d->hash_size = (unsigned)s->params.hash_size;
  d->pos = (float*)cpu_alloc(c, 3 * (size_t)cap, sizeof(float), &ok);
  d->vel = (float*)cpu_alloc(c, 3 * (size_t)cap, sizeof(float), &ok);
  d->vpred = (float*)cpu_alloc(c, 3 * (size_t)cap, sizeof(float), &ok);
  d->iter = (float*)cpu_alloc(c, GRN_ITER * (size_t)cap, sizeof(float), &ok);
  d->iter_next = (float*)cpu_alloc(c, GRN_ITER * (size_t)cap, sizeof(float), &ok);
  d->cell = (int*)cpu_alloc(c, 3 * (size_t)cap, sizeof(int), &ok);
  d->head = (int*)cpu_alloc(c, d->hash_size, sizeof(int), &ok);
  d->next = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->nbr = (int*)cpu_alloc(c, (size_t)GRN_MAX_NEIGHBORS * cap, sizeof(int), &ok);
  d->nnbr = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->nbr_pos = (float*)cpu_alloc(c, 3 * (size_t)cap, sizeof(float), &ok);
  d->nbr_overflow = (int*)cpu_alloc(c, 1, sizeof(int), &ok);
  d->ncontact = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->npair = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->pair = (int*)cpu_alloc(c, kp * cap, sizeof(int), &ok);
  d->pair_imp = (float*)cpu_alloc(c, 3 * kp * cap, sizeof(float), &ok);
  if (s->params.one_loop) d->pair_bias = (float*)cpu_alloc(c, kp * cap, sizeof(float), &ok);
  d->pair_ref = (int*)cpu_alloc(c, kp * cap, sizeof(int), &ok);
  d->pair_solved = (unsigned*)cpu_alloc(c, cap, sizeof(unsigned), &ok);
  d->pair_count = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->pair_first = (int*)cpu_alloc(c, (size_t)cap + 1, sizeof(int), &ok);
  if (ok) ok = cpu_reserve_pairs(c, 2 * (size_t)cap) == grnOK;
  d->npair_prev = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->pair_prev = (int*)cpu_alloc(c, kp * cap, sizeof(int), &ok);
  d->pair_imp_prev = (float*)cpu_alloc(c, 3 * kp * cap, sizeof(float), &ok);
  d->nshape = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->sc_shape = (int*)cpu_alloc(c, ks * cap, sizeof(int), &ok);
  d->sc_normal = (float*)cpu_alloc(c, 3 * ks * cap, sizeof(float), &ok);
  d->sc_depth = (float*)cpu_alloc(c, ks * cap, sizeof(float), &ok);
  d->sc_vel = (float*)cpu_alloc(c, 3 * ks * cap, sizeof(float), &ok);
  d->sc_imp = (float*)cpu_alloc(c, 3 * ks * cap, sizeof(float), &ok);
  d->sc_bias = (float*)cpu_alloc(c, ks * cap, sizeof(float), &ok);
  d->nshape_prev = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->sc_shape_prev = (int*)cpu_alloc(c, ks * cap, sizeof(int), &ok);
  d->sc_imp_prev = (float*)cpu_alloc(c, 3 * ks * cap, sizeof(float), &ok);
  d->overflow = (int*)cpu_alloc(c, 1, sizeof(int), &ok);
  d->nonfinite = (int*)cpu_alloc(c, 1, sizeof(int), &ok);
  c->nthread = omp_get_max_threads();
  c->moved2_part = (float*)cpu_alloc(c, c->nthread, sizeof(float), &ok);
  int nb = s->params.max_bodies > 0 ? s->params.max_bodies : 1;
  c->wrench_part = (double*)cpu_alloc(c, (size_t)c->nthread * nb * 6, sizeof(double), &ok);
  c->count_part = (int*)cpu_alloc(c, (size_t)c->nthread * nb, sizeof(int), &ok);
  c->impulse = (double*)cpu_alloc(c, (size_t)nb * 6, sizeof(double), &ok);
  d->body_dv = (float*)cpu_alloc(c, (size_t)nb * 6, sizeof(float), &ok);
  d->body_nc = (int*)cpu_alloc(c, nb, sizeof(int), &ok);
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
  int same = c->lists_valid && n == c->d.n &&
             memcmp(c->d.pos, pos, 3 * (size_t)n * sizeof(float)) == 0;
  memcpy(c->d.pos, pos, 3 * (size_t)n * sizeof(float));
  if (vel) {
    memcpy(c->d.vel, vel, 3 * (size_t)n * sizeof(float));
  } else {
    memset(c->d.vel, 0, 3 * (size_t)n * sizeof(float));
  }
  // a new configuration: no contacts to warm start from
  memset(c->d.npair, 0, (size_t)c->d.cap * sizeof(int));
  memset(c->d.nshape, 0, (size_t)c->d.cap * sizeof(int));
  c->d.n = n;
  c->lists_valid = same;
  return grnOK;
}

static grnStatus cpu_get_contacts(const grnSolver* s, void* buf) {
  const grnData* d = &((const grnCpu*)s->impl)->d;
  grnContactLayout l = grn_contact_layout(d->cap);
  char* b = (char*)buf;
  size_t cap = (size_t)d->cap;
  memcpy(b + l.npair, d->npair, cap * sizeof(int));
  memcpy(b + l.nshape, d->nshape, cap * sizeof(int));
  memcpy(b + l.pair, d->pair, GRN_MAX_PAIRS * cap * sizeof(int));
  memcpy(b + l.sc_shape, d->sc_shape, GRN_MAX_SHAPE_CONTACTS * cap * sizeof(int));
  memcpy(b + l.pair_imp, d->pair_imp, 3 * GRN_MAX_PAIRS * cap * sizeof(float));
  memcpy(b + l.sc_imp, d->sc_imp, 3 * GRN_MAX_SHAPE_CONTACTS * cap * sizeof(float));
  return grnOK;
}

static grnStatus cpu_set_contacts(grnSolver* s, const void* buf) {
  grnData* d = &((grnCpu*)s->impl)->d;
  grnContactLayout l = grn_contact_layout(d->cap);
  const char* b = (const char*)buf;
  size_t cap = (size_t)d->cap;
  memcpy(d->npair, b + l.npair, cap * sizeof(int));
  memcpy(d->nshape, b + l.nshape, cap * sizeof(int));
  memcpy(d->pair, b + l.pair, GRN_MAX_PAIRS * cap * sizeof(int));
  memcpy(d->sc_shape, b + l.sc_shape, GRN_MAX_SHAPE_CONTACTS * cap * sizeof(int));
  memcpy(d->pair_imp, b + l.pair_imp, 3 * GRN_MAX_PAIRS * cap * sizeof(float));
  memcpy(d->sc_imp, b + l.sc_imp, 3 * GRN_MAX_SHAPE_CONTACTS * cap * sizeof(float));
  return grnOK;
}

static grnStatus cpu_get_grains(const grnSolver* s, float* pos, float* vel) {
  const grnCpu* c = (const grnCpu*)s->impl;
  if (pos) memcpy(pos, c->d.pos, 3 * (size_t)c->d.n * sizeof(float));
  if (vel) memcpy(vel, c->d.vel, 3 * (size_t)c->d.n * sizeof(float));
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

// broadphase: cells of all grains, then the linked-list hash (inside a parallel region)
static void cpu_build_hash(grnData* d, float inv_cell) {
  #pragma omp for schedule(static)
  for (unsigned b = 0; b < d->hash_size; b++) d->head[b] = -1;
  #pragma omp for schedule(static)
  for (int i = 0; i < d->n; i++) {
    grn_compute_cell(d, i, inv_cell);
    cpu_hash_insert(d, i);
  }
}

// each body's force and torque from the current shape impulses (and, with counts, its number of
// contacts), summed per thread and then in thread order into out (max_bodies x 6), so the sums
// are the same run to run; inside a parallel region
static void cpu_body_sums(const grnSolver* s, grnCpu* c, const grnData* d, double* out,
                          int* counts) {
  int nb = s->params.max_bodies, tid = omp_get_thread_num();
  double* part = c->wrench_part + (size_t)tid * nb * 6;
  int* cpart = c->count_part + (size_t)tid * nb;
  memset(part, 0, nb * 6 * sizeof(double));
  memset(cpart, 0, nb * sizeof(int));
  #pragma omp for schedule(static)
  for (int i = 0; i < d->n; i++) {
    for (int k = 0; k < d->nshape[i]; k++) {
      int body = d->shapes[d->sc_shape[GRN_SLOT(k, i, d->cap)]].body;
      if (body < 0) continue;
      grnVec3 f, t;
      grn_shape_contact_wrench(d, &s->consts, i, k, &f, &t);
      double* w = part + 6 * body;
      w[0] += f.x; w[1] += f.y; w[2] += f.z;
      w[3] += t.x; w[4] += t.y; w[5] += t.z;
      cpart[body]++;
    }
  }
  #pragma omp single
  for (int t = 0; t < omp_get_num_threads(); t++) {
    const double* p = c->wrench_part + (size_t)t * nb * 6;
    for (int j = 0; j < nb * 6; j++) out[j] += p[j];
    if (counts) {
      for (int b = 0; b < nb; b++) counts[b] += c->count_part[(size_t)t * nb + b];
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
static void cpu_copy_pair_arrays(grnData* dl, const grnData* d) {
  dl->ncp = d->ncp;
  dl->cp_cap = d->cp_cap;
  dl->cp_grain = d->cp_grain;
  dl->cp_partner = d->cp_partner;
  dl->cp_normal = d->cp_normal;
  dl->cp_target = d->cp_target;
  dl->cp_bias_target = d->cp_bias_target;
  dl->cp_share = d->cp_share;
  dl->cp_imp = d->cp_imp;
  dl->cp_bias = d->cp_bias;
}

// the phases of a substep that loop over grains or pairs
typedef enum cpuPhase_ {
  cpuNARROWPHASE = 0,         // external forces, then each grain's contacts
  cpuNARROWPHASE_LISTS,       // the same, each grain's neighbour list built first
  cpuLINK,                    // which grain solves each grain-grain contact
  cpuPAIRS,                   // the pairs filled in
  cpuSOLVE_PAIRS,             // one iteration, first half: each pair
  cpuSOLVE_GRAINS,            // one iteration, second half: each grain's sum
  cpuINTEGRATE,               // symplectic euler, pair impulses back into the slots
} cpuPhase;

// on x86-64 with gcc each phase runs from one of two builds, picked once at load: baseline and
// x86-64-v3 (avx2; about 10% faster), with every function it calls inlined (flatten: else gcc
// keeps the larger per-grain functions out of line, built for the baseline only). the same
// operations in the same order (no fused multiply-add: kernels/ compiles with
// -ffp-contract=off), so results are the same bit for bit
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default"), flatten))
#endif
#endif
#ifndef CPU_CLONES
#define CPU_CLONES
#endif

// phase over items [lo, hi) (grains, or pairs for cpuSOLVE_PAIRS); cpuINTEGRATE returns the
// largest squared displacement since the neighbour lists' build among its grains
CPU_CLONES static float cpu_phase(cpuPhase phase, const grnData* d, const grnConsts* k, int lo,
                                  int hi) {
  float moved2 = 0;
  switch (phase) {
    case cpuNARROWPHASE_LISTS:
      for (int i = lo; i < hi; i++) {
        grn_build_neighbors(d, k, i);
        grn_predict_grain(d, k, i);
        grn_collide_grain(d, k, i);
      }
      break;
    case cpuNARROWPHASE:
      for (int i = lo; i < hi; i++) {
        grn_predict_grain(d, k, i);
        grn_collide_grain(d, k, i);
      }
      break;
    case cpuLINK:
      for (int i = lo; i < hi; i++) grn_pj_link_grain(d, k, i);
      break;
    case cpuPAIRS:
      for (int i = lo; i < hi; i++) grn_pj_pair_grain(d, k, i);
      break;
    case cpuSOLVE_PAIRS: {
      // local copies: the stores into the pair arrays cannot alias them, so the loop vectorises
      const grnData dl = *d;
      const grnConsts kl = *k;
      #pragma omp simd
      for (int p = lo; p < hi; p++) grn_pj_solve_pair(&dl, &kl, p);
      break;
    }
    case cpuSOLVE_GRAINS:
      for (int i = lo; i < hi; i++) grn_pj_solve_grain(d, k, i);
      break;
    case cpuINTEGRATE:
      for (int i = lo; i < hi; i++) {
        grn_integrate_grain(d, k, i);
        grn_pj_store_grain(d, k, i);
        float m = grn_neighbors_moved2(d, i);
        moved2 = m > moved2 ? m : moved2;
      }
      break;
  }
  return moved2;
}

// phase over this thread's share of count items, then a barrier (inside a parallel region)
static float cpu_phase_all(cpuPhase phase, const grnData* d, const grnConsts* k, int count) {
  int t = omp_get_thread_num(), nt = omp_get_num_threads();
  int lo = (int)((long long)count * t / nt), hi = (int)((long long)count * (t + 1) / nt);
  float moved2 = cpu_phase(phase, d, k, lo, hi);
  #pragma omp barrier
  return moved2;
}

static grnStatus cpu_substep(grnSolver* s) {
  grnCpu* c = (grnCpu*)s->impl;
  grnData* d = &c->d;
  const grnConsts* k = &s->consts;
  d->shapes = s->shapes_now;
  d->nshapes = s->nshapes;
  d->grids = s->grids;
  d->body_mob = s->mobile ? s->body_mob : NULL;
  d->nonfinite[0] = 0;
  d->overflow[0] = 0;
  int iterations = s->params.iterations;

  // neighbour lists rebuilt when a grain may have come within the cutoff of one not listed
  int rebuild = !c->lists_valid || c->moved2 > k->moved2;
  if (rebuild) d->nbr_overflow[0] = 0;

  // last substep's contacts become the warm start
  grn_swap_contacts(d);
  memset(c->moved2_part, 0, c->nthread * sizeof(float));
  grnStatus pairs = grnOK;

  #pragma omp parallel num_threads(c->nthread)
  {
    // each thread swaps its own copy of the iterate pointers (no barrier for it)
    grnData dl = *d;

    // broadphase: the list hash, then (in the narrowphase) each grain's neighbour list
    if (rebuild) cpu_build_hash(&dl, k->inv_list_cell);

    // external forces; narrowphase: grain-grain, then grain-shape
    cpu_phase_all(rebuild ? cpuNARROWPHASE_LISTS : cpuNARROWPHASE, &dl, k, dl.n);

    // grain-grain contacts as pairs: which grain solves each, numbered in grain order
    if (!k->one_loop) {
      cpu_phase_all(cpuLINK, &dl, k, dl.n);
      #pragma omp single
      pairs = cpu_number_pairs(c);
      cpu_copy_pair_arrays(&dl, d);
    }
    if (pairs == grnOK) {
      if (!k->one_loop) cpu_phase_all(cpuPAIRS, &dl, k, dl.n);

      // coupled bodies: their contacts, and how the warm-started impulses move them
      if (dl.body_mob) cpu_body_response(s, c, &dl, 1);

      // projected jacobi iterations: the pairs, then each grain's sum (one loop: each grain
      // finds and solves its contacts); the bodies answer each iterate the next one reads
      for (int it = 0; it < iterations; it++) {
        if (!k->one_loop) cpu_phase_all(cpuSOLVE_PAIRS, &dl, k, dl.ncp);
        cpu_phase_all(cpuSOLVE_GRAINS, &dl, k, dl.n);
        grn_swap_iterates(&dl);
        if (dl.body_mob && it + 1 < iterations) cpu_body_response(s, c, &dl, 0);
      }

      // reaction on the bodies
      if (s->params.max_bodies > 0) cpu_body_sums(s, c, &dl, s->wrench_sum, NULL);

      // symplectic euler, the pair impulses kept in the slots, and how far the grains have gone
      // from where the lists were built
      c->moved2_part[omp_get_thread_num()] = cpu_phase_all(cpuINTEGRATE, &dl, k, dl.n);
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
  #pragma omp parallel num_threads(c->nthread)
  cpu_build_hash(d, k->inv_cell);
  return grn_list_pairs(d, k, pairs, max, npairs);
}

static size_t cpu_memory_bytes(const grnSolver* s) {
  return ((const grnCpu*)s->impl)->bytes + sizeof(grnCpu);
}

const grnBackendOps grn_cpu_ops = {
  cpu_create, cpu_destroy, cpu_set_grains, cpu_get_grains, cpu_get_contacts, cpu_set_contacts,
  cpu_add_grid, cpu_substep, cpu_find_pairs, cpu_memory_bytes,
};
