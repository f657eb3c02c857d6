// cpu cost of moving the grains between plugin_state and the solver, per mj_step, against the
// cost of a whole step. What the plugin's advance does each step (plugin/transfer.c, compiled in):
//   upload:   plugin_state (mjtNum) -> float staging, grn_set_grains, grn_set_angvel,
//             grn_set_contacts
//   download: grn_get_grains, grn_get_angvel, grn_get_wrenches, grn_get_contacts, float ->
//             plugin_state
//   step:     upload, grn_set_shapes, grn_advance over the substeps, download
//   resident step (the gpu's step): the state's hash checked instead of the upload, then as the
//             step, then the downloaded state hashed (plugin/state_hash.c, compiled in)
// each transfer item (and its parts: the solver calls, timed alone) `reps`
// times and the whole step `steps` times, on a resting bed with its contacts, items interleaved;
// the fastest and the median call of each (on a loaded machine the fastest is the least
// disturbed).
//
//   bench_state [--grains 50000] [--settle 600] [--reps 50] [--steps 10] [--substeps 4]
//               [--backend cpu|cuda] [--broadphase hash|sorted]
//   thread count: OMP_NUM_THREADS
#define _DEFAULT_SOURCE  // getloadavg, clock_gettime
#include <omp.h>
#include <string.h>

#include "bench_bed.h"
#include "state.h"
#include "state_hash.h"
#include "transfer.h"

#define NBODY 2                   // wrench slots: the world and one body
#define MAX_REPS 1000

typedef struct Options_ {
  int grains;                 // grains in the bed (and capacity)
  int settle;                 // substeps settling the bed
  int reps;                   // timed calls per transfer item
  int steps;                  // timed whole steps
  int substeps;               // substeps per step (opt.timestep 2 ms / timestep 5e-4 s: 4)
  grnBackend backend;         // the solver's backend
  int broadphase;             // grnBroadphase (the sorted list's solver maps every transfer
                              // between its own grain order and the caller's)
} Options;

static int parse_args(int argc, char** argv, Options* o) {
  grnParams defaults;
  grn_default_params(&defaults);
  *o = (Options){50000, 600, 50, 10, 4, grnBACKEND_CPU, defaults.broadphase};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--backend")) {
      if (!strcmp(argv[i + 1], "cpu")) o->backend = grnBACKEND_CPU;
      else if (!strcmp(argv[i + 1], "cuda")) o->backend = grnBACKEND_CUDA;
      else return 0;
      continue;
    }
    if (!strcmp(argv[i], "--broadphase")) {
      if (!strcmp(argv[i + 1], "hash")) o->broadphase = grnBROADPHASE_HASH;
      else if (!strcmp(argv[i + 1], "sorted")) o->broadphase = grnBROADPHASE_SORTED;
      else return 0;
      continue;
    }
    char* end;
    long v = strtol(argv[i + 1], &end, 10);
    if (*end || v < 1) return 0;
    if (!strcmp(argv[i], "--grains")) o->grains = (int)v;
    else if (!strcmp(argv[i], "--settle")) o->settle = (int)v;
    else if (!strcmp(argv[i], "--reps")) o->reps = (int)(v < MAX_REPS ? v : MAX_REPS);
    else if (!strcmp(argv[i], "--steps")) o->steps = (int)(v < MAX_REPS ? v : MAX_REPS);
    else if (!strcmp(argv[i], "--substeps")) o->substeps = (int)v;
    else return 0;
  }
  return argc % 2 == 1;
}

// sorts ms; its median
static double median(double* ms, int n) {
  qsort(ms, n, sizeof(double), bench_compare_doubles);
  return ms[n / 2];
}

// everything one timed item needs
typedef struct Bench_ {
  grnSolver* solver;
  mjtNum* state;              // one instance's plugin_state block
  int cap, n, substeps;
  mjgStage stage;             // staging: positions, velocities, ..., wrenches
  float *pos, *vel;           // its positions and velocities (cap x 3 each)
  grnShape walls[BENCH_NWALL];
  uint64_t hash;              // the hashes' xor (kept, so no call is optimised away)
} Bench;

typedef enum Item_ {
  UPLOAD = 0, SET_GRAINS, SET_CONTACTS, DOWNLOAD, GET_GRAINS, GET_CONTACTS, HASH, STEP,
  RESIDENT_STEP, NITEM
} Item;

static const char* kNames[NITEM] = {
  "upload", "  grn_set_grains", "  grn_set_contacts", "download", "  grn_get_grains",
  "  grn_get_contacts", "state hash", "whole step", "resident step (gpu)"};

// advance the substeps from the solver's own grains and download them into the state
static grnStatus advance_download(Bench* b) {
  grnStatus st = grn_set_shapes(b->solver, BENCH_NWALL, b->walls);
  if (st == grnOK) st = grn_advance(b->solver, b->substeps);
  if (st == grnOK) {
    st = mjg_transfer_download(b->solver, NULL, b->state, &b->stage);
  }
  return st;
}

// one call of an item; its status
static grnStatus run(Bench* b, Item item) {
  grnStatus st = grnOK;
  switch (item) {
    case UPLOAD:
      return mjg_transfer_upload(b->solver, NULL, b->state, b->n, &b->stage, NULL, 0);
    case SET_GRAINS:
      return grn_set_grains(b->solver, b->n, b->pos, b->vel);
    case SET_CONTACTS:
      return grn_set_contacts(b->solver, mjg_state_contacts(b->state, b->cap, NBODY));
    case DOWNLOAD:
      return mjg_transfer_download(b->solver, NULL, b->state, &b->stage);
    case GET_GRAINS:
      return grn_get_grains(b->solver, b->pos, b->vel);
    case GET_CONTACTS:
      return grn_get_contacts(b->solver, mjg_state_contacts(b->state, b->cap, NBODY));
    case HASH:
      b->hash ^= mjg_state_hash(b->state, mjg_state_size(b->cap, 1, NBODY));
      return grnOK;
    case STEP:
      st = mjg_transfer_upload(b->solver, NULL, b->state, b->n, &b->stage, NULL, 0);
      return st == grnOK ? advance_download(b) : st;
    case RESIDENT_STEP:
      b->hash ^= mjg_state_hash(b->state, mjg_state_size(b->cap, 1, NBODY));
      st = advance_download(b);
      b->hash ^= mjg_state_hash(b->state, mjg_state_size(b->cap, 1, NBODY));
      return st;
    case NITEM:
      break;
  }
  return grnERR_ARG;
}

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o)) {
    fprintf(stderr, "usage: bench_state [--grains 50000] [--settle 600] [--reps 50] "
                    "[--steps 10] [--substeps 4] [--backend cpu|cuda]\n"
                    "                   [--broadphase hash|sorted]\n");
    return 2;
  }
  Bench b;
  memset(&b, 0, sizeof(b));
  b.cap = b.n = o.grains;
  b.substeps = o.substeps;
  grnParams p;
  grn_default_params(&p);
  p.capacity = b.cap;
  p.max_bodies = NBODY;
  p.broadphase = o.broadphase;
  int nthread = omp_get_max_threads();
  size_t state_size = mjg_state_size(b.cap, 1, NBODY);
  printf("mjgranular state upload / download, %s backend, %s broadphase: %d grains, %d openmp "
         "threads, %d substeps per step\nplugin_state block: %zu mjtNums (%.1f MB), of which "
         "contact state %.1f MB\n", grn_backend_name(o.backend),
         o.broadphase == grnBROADPHASE_SORTED ? "sorted" : "hash", b.n, nthread, b.substeps,
         state_size, state_size * 8e-6, mjg_state_contact_size(b.cap, 1) * 8e-6);
  bench_print_load("before", omp_get_num_procs());

  // a resting bed, its contacts made by a few steps, in the state
  b.state = calloc(state_size, sizeof(mjtNum));
  if (!b.state || mjg_stage_alloc(&b.stage, b.cap, NBODY)) return 1;
  b.pos = b.stage.grain;
  b.vel = b.stage.grain + 3 * (size_t)b.cap;
  if (bench_settled_bed(&p, b.n, o.settle, 1, b.pos, b.vel)) return 1;
  bench_container(b.n, p.radius, p.friction, b.walls);
  grnStatus st = grn_create(&p, o.backend, &b.solver);
  if (st == grnOK) st = grn_set_grains(b.solver, b.n, b.pos, b.vel);
  if (st == grnOK) st = grn_set_shapes(b.solver, BENCH_NWALL, b.walls);
  if (st == grnOK) st = grn_advance(b.solver, b.substeps);
  b.state[MJG_STATE_COUNT] = b.n;
  mjtNum* radius = mjg_state_radius(b.state, b.cap);  // the upload checks each grain's radius
  for (int i = 0; i < b.n; i++) radius[i] = p.radius;
  if (st == grnOK) {
    st = mjg_transfer_download(b.solver, NULL, b.state, &b.stage);
  }
  if (st != grnOK) {
    fprintf(stderr, "bench_state: %s\n", grn_status_message(st));
    return 1;
  }

  // each item reps times (the step: steps times), interleaved so that other load falls on all
  static double ms[NITEM][MAX_REPS];
  int count[NITEM] = {0};
  for (int r = 0; r < o.reps; r++) {
    for (int item = 0; item < NITEM; item++) {
      if ((item == STEP || item == RESIDENT_STEP) && r >= o.steps) continue;
      // the solver calls alone need the solver in the state the plugin leaves it
      if (item == SET_CONTACTS) run(&b, SET_GRAINS);
      double t0 = bench_now();
      st = run(&b, (Item)item);
      ms[item][count[item]++] = 1e3 * (bench_now() - t0);
      if (st != grnOK) {
        fprintf(stderr, "bench_state: %s: %s\n", kNames[item], grn_status_message(st));
        return 1;
      }
    }
  }
  double med[NITEM], low[NITEM];
  for (int item = 0; item < NITEM; item++) {
    med[item] = median(ms[item], count[item]);
    low[item] = ms[item][0];
  }

  printf("\n%-26s  %10s  %10s  %12s\n", "per mj_step", "fastest ms", "median ms",
         "of the step");
  for (int item = 0; item < NITEM; item++) {
    printf("%-26s  %10.3f  %10.3f  %11.1f%%\n", kNames[item], low[item], med[item],
           100 * low[item] / low[STEP]);
  }
  double both = low[UPLOAD] + low[DOWNLOAD];
  printf("upload + download: %.3f ms per step (fastest calls), %.1f%% of the fastest whole step "
         "(%d calls per transfer item, %d steps)\n", both, 100 * both / low[STEP], o.reps,
         o.steps);
  printf("the gpu's resident step pays two state hashes instead of the upload: %.3f ms against "
         "%.3f ms (hash %016llx)\n", 2 * low[HASH], low[UPLOAD], (unsigned long long)b.hash);
  bench_print_load("after", omp_get_num_procs());
  grn_destroy(b.solver);
  free(b.state);
  mjg_stage_free(&b.stage);
  return 0;
}
