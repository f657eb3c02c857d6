// settling the initial bed once per process (shared_cache.h). The key of a settled bed is the bytes
// of everything that determines it: solver params and backend, substeps, steps, the static shapes
// and their mesh grids, the initial grains and contact state.
#include "settle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shared_cache.h"
#include "state.h"
#include "transfer.h"

static void free_bed(void* bed) { mjg_bed_free((mjgBed*)bed); }

// the settled beds, the last two released kept for a later acquire
static mjgCache g_settled = MJG_CACHE(mjgBed, 2, free_bed);

//---------------------------------- key -----------------------------------------------------------

// the bytes of an input
static void key_build(const mjgSettleInput* in, mjgKey* k) {
  const grnParams* p = grn_params(in->solver);
  mjg_key_add(k, p, sizeof(*p));
  mjg_key_int(k, (int)grn_backend(in->solver));
  mjg_key_int(k, in->nsub);
  mjg_key_int(k, in->nstep);
  mjg_key_int(k, in->types ? in->types->ntype : 0);
  for (int t = 0; in->types && t < in->types->ntype; t++) {
    const grnClumpType* c = in->types->clump + t;
    mjg_key_int(k, c->nsphere);
    mjg_key_add(k, c->spheres, 4 * (size_t)c->nsphere * sizeof(float));
    mjg_key_add(k, &c->mass, sizeof(c->mass));
    mjg_key_add(k, c->inertia, sizeof(c->inertia));
    mjg_key_add(k, &in->types->type[t].bound, sizeof(double));
  }
  mjg_key_int(k, in->nshape);
  mjg_key_add(k, in->shapes, in->nshape * sizeof(grnShape));
  for (int s = 0; s < in->nshape; s++) {
    if (in->shapes[s].type != grnSHAPE_GRID) continue;
    const grnGrid* g = in->grids->grid[in->shapes[s].grid];
    mjg_key_int(k, g->nx);
    mjg_key_int(k, g->ny);
    mjg_key_int(k, g->nz);
    mjg_key_add(k, g->origin, sizeof(g->origin));
    mjg_key_add(k, &g->cell, sizeof(g->cell));
    mjg_key_add(k, g->values, (size_t)g->nx * g->ny * g->nz * sizeof(float));
  }
  const mjgBed* b = in->initial;
  mjg_key_int(k, b->n);
  mjg_key_int(k, b->cap);
  mjg_key_add(k, b->pos, 3 * (size_t)b->n * sizeof(mjtNum));
  mjg_key_add(k, b->vel, 3 * (size_t)b->n * sizeof(mjtNum));
  mjg_key_add(k, b->angvel, 3 * (size_t)b->n * sizeof(mjtNum));
  mjg_key_add(k, b->orient, 4 * (size_t)b->n * sizeof(mjtNum));
  mjg_key_add(k, b->radius, (size_t)b->n * sizeof(mjtNum));
  mjg_key_add(k, b->type, (size_t)b->n * sizeof(mjtNum));
  mjg_key_int(k, b->spheres);
  mjg_key_int(k, b->contacts != NULL);
  if (b->contacts) {
    mjg_key_add(k, b->contacts, mjg_state_contact_size(b->cap, b->spheres) * sizeof(mjtNum));
  }
}

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// settle in->initial into out (allocated here): through a scratch plugin_state block, as advance
// would step it with no coupled bodies; 0, or -1 with why
static int settle(const mjgSettleInput* in, mjgBed* out, char* why, int size) {
  const mjgBed* b = in->initial;
  int cap = b->cap, nbody = grn_params(in->solver)->max_bodies;
  mjtNum* state = (mjtNum*)calloc(mjg_state_size(cap, b->spheres, nbody), sizeof(mjtNum));
  mjgStage stage = {0};
  int fail = !state || mjg_stage_alloc(&stage, cap, nbody);
  fail = fail || mjg_bed_alloc(out, cap, b->spheres, 1, 0);
  if (fail) snprintf(why, size, "out of memory for settling %d grains", b->n);
  if (!fail) out->model = (grnModel)grn_params(in->solver)->model;

  // the grains in, the steps, the grains out
  double start = seconds_now();
  grnStatus st = grnOK;
  if (!fail) {
    mjg_bed_write(b, nbody, state);
    st = mjg_transfer_upload(in->solver, in->types, state, b->n, &stage, NULL, 0);
    if (st == grnOK) st = grn_set_shapes(in->solver, in->nshape, in->shapes);
    for (int k = 0; k < in->nstep && st == grnOK; k++) st = grn_advance(in->solver, in->nsub);
    if (st == grnOK) st = mjg_transfer_download(in->solver, in->types, state, &stage);
    if (st != grnOK) {
      snprintf(why, size, "settling failed: %s", grn_status_message(st));
      fail = 1;
    }
  }
  if (!fail) {
    out->n = b->n;
    memcpy(out->pos, mjg_state_pos(state, cap), 3 * (size_t)b->n * sizeof(mjtNum));
    memcpy(out->vel, mjg_state_vel(state, cap), 3 * (size_t)b->n * sizeof(mjtNum));
    memcpy(out->angvel, mjg_state_angvel(state, cap), 3 * (size_t)b->n * sizeof(mjtNum));
    memcpy(out->orient, mjg_state_orient(state, cap), 4 * (size_t)b->n * sizeof(mjtNum));
    memcpy(out->radius, mjg_state_radius(state, cap), (size_t)cap * sizeof(mjtNum));
    memcpy(out->type, b->type, (size_t)cap * sizeof(mjtNum));
    memcpy(out->contacts, mjg_state_contacts(state, cap, nbody),
           mjg_state_contact_size(cap, b->spheres) * sizeof(mjtNum));
    fprintf(stderr, "mjgranular.terrain: settled %d grains for %d steps of %d substeps in %.2f s "
            "(kept for this process)\n", b->n, in->nstep, in->nsub, seconds_now() - start);
  } else {
    mjg_bed_free(out);
  }
  free(state);
  mjg_stage_free(&stage);
  return fail ? -1 : 0;
}

// mjgCacheBuild of the settled beds
static int settle_input(const void* in, void* bed, char* why, int size) {
  return settle((const mjgSettleInput*)in, (mjgBed*)bed, why, size);
}

const mjgBed* mjg_settle_acquire(const mjgSettleInput* in, char* why, int size) {
  mjgKey k = {NULL, 0, 0, 0};
  key_build(in, &k);
  return (const mjgBed*)mjg_cache_acquire(&g_settled, &k, settle_input, in, why, size);
}

void mjg_settle_release(const mjgBed* bed) { mjg_cache_release(&g_settled, bed); }

long long mjg_settle_runs(void) { return mjg_cache_builds(&g_settled); }
