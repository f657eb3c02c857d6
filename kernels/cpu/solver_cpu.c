// cpu backend: the shared per-grain functions in openmp loops over host memory.
#include <omp.h>
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
  double* wrench_part;        // per-thread force, torque sums          (nthread x max_bodies x 6)
  int* count_part;            // per-thread contact counts              (nthread x max_bodies)
  double* impulse;            // this iterate's impulse wrench per body (max_bodies x 6)
} grnCpu;

static void* cpu_alloc(grnCpu* c, size_t count, size_t size, int* ok) {
  void* p = calloc(count ? count : 1, size);
  if (!p) *ok = 0;
  c->bytes += count * size;
  return p;
}

static void cpu_free_arrays(grnCpu* c) {
  grnData* d = &c->d;
  void* arrays[] = {d->pos, d->vel, d->vpred, d->dv, d->dv_next, d->dvb, d->dvb_next, d->cell,
                    d->head, d->next, d->ncontact, d->npair, d->pair, d->pair_imp, d->pair_bias,
                    d->nshape, d->sc_shape, d->sc_normal, d->sc_depth, d->sc_vel, d->sc_imp,
                    d->sc_bias, d->npair_prev, d->pair_prev, d->pair_imp_prev, d->nshape_prev,
                    d->sc_shape_prev, d->sc_imp_prev, d->overflow, d->nonfinite, d->body_dv,
                    d->body_nc, c->wrench_part, c->count_part, c->impulse};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) free(arrays[i]);
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
  d->dv = (float*)cpu_alloc(c, 3 * (size_t)cap, sizeof(float), &ok);
  d->dv_next = (float*)cpu_alloc(c, 3 * (size_t)cap, sizeof(float), &ok);
  d->dvb = (float*)cpu_alloc(c, 3 * (size_t)cap, sizeof(float), &ok);
  d->dvb_next = (float*)cpu_alloc(c, 3 * (size_t)cap, sizeof(float), &ok);
  d->cell = (int*)cpu_alloc(c, 3 * (size_t)cap, sizeof(int), &ok);
  d->head = (int*)cpu_alloc(c, d->hash_size, sizeof(int), &ok);
  d->next = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->ncontact = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->npair = (int*)cpu_alloc(c, cap, sizeof(int), &ok);
  d->pair = (int*)cpu_alloc(c, kp * cap, sizeof(int), &ok);
  d->pair_imp = (float*)cpu_alloc(c, 3 * kp * cap, sizeof(float), &ok);
  d->pair_bias = (float*)cpu_alloc(c, kp * cap, sizeof(float), &ok);
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
static void cpu_build_hash(grnData* d, const grnConsts* k) {
  #pragma omp for schedule(static)
  for (unsigned b = 0; b < d->hash_size; b++) d->head[b] = -1;
  #pragma omp for schedule(static)
  for (int i = 0; i < d->n; i++) {
    grn_compute_cell(d, k, i);
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

  #pragma omp parallel num_threads(c->nthread)
  {
    // external forces
    #pragma omp for schedule(static)
    for (int i = 0; i < d->n; i++) grn_predict_grain(d, k, i);

    // broadphase
    cpu_build_hash(d, k);

    // last substep's contacts become the warm start
    #pragma omp single
    grn_swap_contacts(d);

    // narrowphase: grain-grain, then grain-shape
    #pragma omp for schedule(static)
    for (int i = 0; i < d->n; i++) {
      grn_collide_grains(d, k, i);
      grn_collide_shapes(d, k, i);
    }

    // coupled bodies: their contacts, and how the warm-started impulses move them
    if (d->body_mob) cpu_body_response(s, c, d, 1);

    // projected jacobi iterations, the bodies answering each iterate
    for (int it = 0; it < iterations; it++) {
      #pragma omp for schedule(static)
      for (int i = 0; i < d->n; i++) grn_pj_solve_grain(d, k, i);
      #pragma omp single
      grn_swap_iterates(d);
      if (d->body_mob) cpu_body_response(s, c, d, 0);
    }

    // reaction on the bodies
    if (s->params.max_bodies > 0) cpu_body_sums(s, c, d, s->wrench_sum, NULL);

    // symplectic euler
    #pragma omp for schedule(static)
    for (int i = 0; i < d->n; i++) grn_integrate_grain(d, k, i);
  }
  return d->nonfinite[0] ? grnERR_NONFINITE : grnOK;
}

static grnStatus cpu_find_pairs(grnSolver* s, int* pairs, int max, int* npairs) {
  grnCpu* c = (grnCpu*)s->impl;
  grnData* d = &c->d;
  const grnConsts* k = &s->consts;
  #pragma omp parallel num_threads(c->nthread)
  cpu_build_hash(d, k);
  return grn_list_pairs(d, k, pairs, max, npairs);
}

static size_t cpu_memory_bytes(const grnSolver* s) {
  return ((const grnCpu*)s->impl)->bytes + sizeof(grnCpu);
}

const grnBackendOps grn_cpu_ops = {
  cpu_create, cpu_destroy, cpu_set_grains, cpu_get_grains, cpu_get_contacts, cpu_set_contacts,
  cpu_add_grid, cpu_substep, cpu_find_pairs, cpu_memory_bytes,
};
