// settling the initial bed once per process. The key of a settled bed is the bytes of everything
// that determines it (solver params and backend, substeps, steps, the static shapes and their
// mesh grids, the initial grains and contact state), compared whole, so equal keys give the same
// bed bit for bit. Entries live in one list under one mutex; a thread that finds an entry being
// settled waits on a condition variable instead of settling it again.
#include "settle.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "state.h"
#include "transfer.h"

#define MJG_SETTLE_KEEP 2         // released beds kept for a later acquire

typedef enum mjgSettleStatus_ {
  mjgSETTLING = 0,          // a thread is settling it
  mjgSETTLED,               // bed is ready
  mjgFAILED,                // settling failed (why says why); no longer in the list
} mjgSettleStatus;

typedef struct mjgSettleEntry_ {
  struct mjgSettleEntry_* next;   // list link
  unsigned char* key;             // the input's bytes                                (nkey)
  size_t nkey;                    // key size
  uint64_t hash;                  // fnv-1a of key
  mjgSettleStatus status;         // see above
  int refs;                       // acquires not yet released
  long long released;             // release order of an unreferenced entry
  mjgBed bed;                     // the settled bed
  char why[256];                  // cause of a failure
} mjgSettleEntry;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_done = PTHREAD_COND_INITIALIZER;
static mjgSettleEntry* g_list = NULL;   // settling and settled entries
static long long g_releases = 0;        // releases so far, orders the kept entries
static long long g_runs = 0;            // beds settled

//---------------------------------- key -----------------------------------------------------------

typedef struct mjgKey_ {
  unsigned char* bytes;     // the key so far
  size_t size, room;        // bytes used, allocated
  int failed;               // 1 after an allocation failed
} mjgKey;

static void key_add(mjgKey* k, const void* data, size_t size) {
  if (k->failed || !size) return;
  if (k->size + size > k->room) {
    size_t room = 2 * (k->size + size);
    unsigned char* bytes = (unsigned char*)realloc(k->bytes, room);
    if (!bytes) {
      k->failed = 1;
      return;
    }
    k->bytes = bytes;
    k->room = room;
  }
  memcpy(k->bytes + k->size, data, size);
  k->size += size;
}

static void key_int(mjgKey* k, int v) { key_add(k, &v, sizeof(v)); }

// the bytes of an input
static void key_build(const mjgSettleInput* in, mjgKey* k) {
  const grnParams* p = grn_params(in->solver);
  key_add(k, p, sizeof(*p));
  key_int(k, (int)grn_backend(in->solver));
  key_int(k, in->nsub);
  key_int(k, in->nstep);
  key_int(k, in->nshape);
  key_add(k, in->shapes, in->nshape * sizeof(grnShape));
  for (int s = 0; s < in->nshape; s++) {
    if (in->shapes[s].type != grnSHAPE_GRID) continue;
    const grnGrid* g = in->grids->grid + in->shapes[s].grid;
    key_int(k, g->nx);
    key_int(k, g->ny);
    key_int(k, g->nz);
    key_add(k, g->origin, sizeof(g->origin));
    key_add(k, &g->cell, sizeof(g->cell));
    key_add(k, g->values, (size_t)g->nx * g->ny * g->nz * sizeof(float));
  }
  const mjgBed* b = in->initial;
  key_int(k, b->n);
  key_int(k, b->cap);
  key_add(k, b->pos, 3 * (size_t)b->n * sizeof(mjtNum));
  key_add(k, b->vel, 3 * (size_t)b->n * sizeof(mjtNum));
  key_add(k, b->angvel, 3 * (size_t)b->n * sizeof(mjtNum));
  key_add(k, b->radius, (size_t)b->n * sizeof(mjtNum));
  key_int(k, b->contacts != NULL);
  if (b->contacts) key_add(k, b->contacts, mjg_state_contact_size(b->cap) * sizeof(mjtNum));
}

static uint64_t fnv1a(const unsigned char* bytes, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; i++) h = (h ^ bytes[i]) * 1099511628211ull;
  return h;
}

//---------------------------------- settling ------------------------------------------------------

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
  mjtNum* state = (mjtNum*)calloc(mjg_state_size(cap, nbody), sizeof(mjtNum));
  float* stage = (float*)malloc(MJG_STAGE_PER_GRAIN * (size_t)(cap ? cap : 1) * sizeof(float));
  double* wrench = (double*)malloc(6 * (size_t)(nbody ? nbody : 1) * sizeof(double));
  int fail = !state || !stage || !wrench || mjg_bed_alloc(out, cap, 1, 0);
  if (fail) snprintf(why, size, "out of memory for settling %d grains", b->n);
  if (!fail) out->model = (grnModel)grn_params(in->solver)->model;

  // the grains in, the steps, the grains out
  double start = seconds_now();
  grnStatus st = grnOK;
  if (!fail) {
    mjg_bed_write(b, nbody, state);
    st = mjg_transfer_upload(in->solver, state, cap, nbody, b->n, stage, NULL, 0);
    if (st == grnOK) st = grn_set_shapes(in->solver, in->nshape, in->shapes);
    for (int k = 0; k < in->nstep && st == grnOK; k++) st = grn_advance(in->solver, in->nsub);
    if (st == grnOK) st = mjg_transfer_download(in->solver, state, cap, nbody, stage, wrench);
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
    memcpy(out->radius, b->radius, (size_t)cap * sizeof(mjtNum));
    memcpy(out->contacts, mjg_state_contacts(state, cap, nbody),
           mjg_state_contact_size(cap) * sizeof(mjtNum));
    fprintf(stderr, "mjgranular.terrain: settled %d grains for %d steps of %d substeps in %.2f s "
            "(kept for this process)\n", b->n, in->nstep, in->nsub, seconds_now() - start);
  } else {
    mjg_bed_free(out);
  }
  free(state);
  free(stage);
  free(wrench);
  return fail ? -1 : 0;
}

//---------------------------------- cache ---------------------------------------------------------

static void entry_free(mjgSettleEntry* e) {
  if (!e) return;
  free(e->key);
  mjg_bed_free(&e->bed);
  free(e);
}

static void unlink_entry(mjgSettleEntry* e) {
  for (mjgSettleEntry** p = &g_list; *p; p = &(*p)->next) {
    if (*p == e) {
      *p = e->next;
      return;
    }
  }
}

// drop the oldest unreferenced entries beyond MJG_SETTLE_KEEP (under the lock)
static void prune(void) {
  for (;;) {
    int idle = 0;
    mjgSettleEntry* oldest = NULL;
    for (mjgSettleEntry* e = g_list; e; e = e->next) {
      if (e->refs || e->status != mjgSETTLED) continue;
      idle++;
      if (!oldest || e->released < oldest->released) oldest = e;
    }
    if (idle <= MJG_SETTLE_KEEP) return;
    unlink_entry(oldest);
    entry_free(oldest);
  }
}

const mjgBed* mjg_settle_acquire(const mjgSettleInput* in, char* why, int size) {
  mjgKey k = {NULL, 0, 0, 0};
  key_build(in, &k);
  if (k.failed) {
    free(k.bytes);
    snprintf(why, size, "out of memory for the settling key");
    return NULL;
  }
  uint64_t hash = fnv1a(k.bytes, k.size);

  // an equal input in the list: wait while another thread settles it
  pthread_mutex_lock(&g_lock);
  mjgSettleEntry* e = g_list;
  while (e && (e->hash != hash || e->nkey != k.size || memcmp(e->key, k.bytes, k.size))) {
    e = e->next;
  }
  if (e) {
    free(k.bytes);
    e->refs++;
    while (e->status == mjgSETTLING) pthread_cond_wait(&g_done, &g_lock);
    if (e->status == mjgSETTLED) {
      pthread_mutex_unlock(&g_lock);
      return &e->bed;
    }
    snprintf(why, size, "%s", e->why);
    if (--e->refs == 0) entry_free(e);  // failed entries are out of the list already
    pthread_mutex_unlock(&g_lock);
    return NULL;
  }

  // none: settle it here, outside the lock
  e = (mjgSettleEntry*)calloc(1, sizeof(mjgSettleEntry));
  if (!e) {
    pthread_mutex_unlock(&g_lock);
    free(k.bytes);
    snprintf(why, size, "out of memory");
    return NULL;
  }
  e->key = k.bytes;
  e->nkey = k.size;
  e->hash = hash;
  e->status = mjgSETTLING;
  e->refs = 1;
  e->next = g_list;
  g_list = e;
  pthread_mutex_unlock(&g_lock);

  int fail = settle(in, &e->bed, e->why, sizeof(e->why));

  pthread_mutex_lock(&g_lock);
  g_runs++;
  e->status = fail ? mjgFAILED : mjgSETTLED;
  if (fail) {
    unlink_entry(e);
    snprintf(why, size, "%s", e->why);
    if (--e->refs == 0) entry_free(e);
    e = NULL;
  }
  pthread_cond_broadcast(&g_done);
  pthread_mutex_unlock(&g_lock);
  return e ? &e->bed : NULL;
}

void mjg_settle_release(const mjgBed* bed) {
  if (!bed) return;
  pthread_mutex_lock(&g_lock);
  for (mjgSettleEntry* e = g_list; e; e = e->next) {
    if (&e->bed != bed) continue;
    if (--e->refs == 0) e->released = ++g_releases;
    break;
  }
  prune();
  pthread_mutex_unlock(&g_lock);
}

long long mjg_settle_runs(void) {
  pthread_mutex_lock(&g_lock);
  long long runs = g_runs;
  pthread_mutex_unlock(&g_lock);
  return runs;
}
