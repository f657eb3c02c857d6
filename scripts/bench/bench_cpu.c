// cpu benchmark: throughput of the solver on a settled bed, in particle-substeps per second.
//
// for each size: grains on a jittered lattice in a square open container (floor and four walls
// as planes, as the plugin makes its domain; a bed about half as deep as it is wide once
// settled) fall and settle (with a coarse substep, to save time), are loaded at rest into a
// solver with the default params, and after 100 untimed substeps a number of substeps is timed.
// prints one row per size: contacts per grain, time per substep, particle-substeps per second
// (pss), the share of the threads' time the process got (below 1: other load took the cores)
// and pss per second of process cpu time (spinning openmp waits count as cpu time),
// the solver's memory (grn_memory_bytes) and the process's peak resident memory (getrusage
// ru_maxrss, the peak so far, so sizes run smallest first).
//
//   bench_cpu [--sizes 10k,50k,100k] [--substeps 200] [--settle 1.0] [--settle-dt 1e-3]
//             [--iterations 10] [--seed 12345] [--model pj|dem|pbd] [--broadphase hash,sorted]
//             [--skin 0.5] [--shuffle]
// --model dem times the dem model at its defaults (hertz, its substep 0.15 of the rayleigh time);
// the bed is settled with projected jacobi's coarse substep either way. --broadphase times each
// broadphase named, in turn, on the same settled bed (one row each); --skin sets the neighbour
// lists' skin [radii] (0: the lists and the broadphase rebuilt every substep); --shuffle puts the
// settled grains in a random order (as a long run mixes a bed), so that grains near each other
// are no longer near in memory
//   thread count: OMP_NUM_THREADS
#define _DEFAULT_SOURCE  // getloadavg, clock_gettime
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_bed.h"
#include "granular.h"

#define MAX_SIZES 16

typedef struct Options_ {
  int sizes[MAX_SIZES];       // grain counts
  int nsizes;                 // how many
  int substeps;               // timed substeps per size
  double settle;              // simulated settling time before timing [s]
  double settle_dt;           // substep while settling [s]
  int iterations;             // projected jacobi iterations (0: default)
  unsigned seed;              // lattice jitter
  int model;                  // grnModel timed
  int broadphases[2];         // grnBroadphase timed, in turn
  int nbroadphases;           // how many
  double skin;                // neighbour-list skin [radii]; < 0: the default
  int shuffle;                // 1: the settled grains timed in a random order
} Options;

typedef struct Row_ {
  int grains;                 // grains in the bed
  int broadphase;             // grnBroadphase
  double settle_max_speed;    // largest grain speed after settling [m/s]
  double contacts;            // grain-grain contacts per grain after settling
  double seconds;             // wall time of the timed substeps [s]
  double pss;                 // particle-substeps per second
  double cpu_share;           // process cpu time over wall time x threads while timed
  size_t solver_bytes;        // grn_memory_bytes
  long peak_rss_kb;           // ru_maxrss after this size [KiB]
} Row;

// uniform in [-1, 1] from a xorshift state
static float jitter(unsigned* s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return (float)(*s & 0xffffff) / (float)0x7fffff - 1.0f;
}

// a count like 50000 or 50k
static int parse_count(const char* text, int* out) {
  char* end;
  double v = strtod(text, &end);
  if (end == text) return 0;
  if (*end == 'k' || *end == 'K') v *= 1e3, end++;
  else if (*end == 'm' || *end == 'M') v *= 1e6, end++;
  if (*end != 0 || !(v >= 1 && v <= 1e8)) return 0;
  *out = (int)v;
  return 1;
}

// the models' names, in grnModel order
static const char* const kModels[] = {"pj", "dem", "pbd"};

static int parse_args(int argc, char** argv, Options* o) {
  o->nsizes = 3;
  o->sizes[0] = 10000, o->sizes[1] = 50000, o->sizes[2] = 100000;
  o->substeps = 200;
  o->settle = 1.0;
  o->settle_dt = 1e-3;
  o->iterations = 0;
  o->seed = 12345;
  o->model = grnMODEL_PJ;
  grnParams defaults;
  grn_default_params(&defaults);
  o->broadphases[0] = defaults.broadphase;
  o->nbroadphases = 1;
  o->skin = -1;
  o->shuffle = 0;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    char* end = NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      return 0;
    } else if (!strcmp(a, "--sizes") && v) {
      char buf[256];
      snprintf(buf, sizeof(buf), "%s", v);
      o->nsizes = 0;
      for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (o->nsizes == MAX_SIZES || !parse_count(tok, &o->sizes[o->nsizes])) return 0;
        o->nsizes++;
      }
      if (o->nsizes == 0) return 0;
    } else if (!strcmp(a, "--substeps") && v) {
      o->substeps = (int)strtol(v, &end, 10);
      if (*end || o->substeps < 1) return 0;
    } else if (!strcmp(a, "--settle") && v) {
      o->settle = strtod(v, &end);
      if (*end || !(o->settle >= 0)) return 0;
    } else if (!strcmp(a, "--settle-dt") && v) {
      o->settle_dt = strtod(v, &end);
      if (*end || !(o->settle_dt > 0)) return 0;
    } else if (!strcmp(a, "--iterations") && v) {
      o->iterations = (int)strtol(v, &end, 10);
      if (*end || o->iterations < 1) return 0;
    } else if (!strcmp(a, "--model") && v) {
      o->model = -1;
      for (int m = 0; m < 3; m++) {
        if (!strcmp(v, kModels[m])) o->model = m;
      }
      if (o->model < 0) return 0;
    } else if (!strcmp(a, "--broadphase") && v) {
      char buf[64];
      snprintf(buf, sizeof(buf), "%s", v);
      o->nbroadphases = 0;
      for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int b = !strcmp(tok, "hash") ? grnBROADPHASE_HASH :
                !strcmp(tok, "sorted") ? grnBROADPHASE_SORTED : -1;
        if (b < 0 || o->nbroadphases == 2) return 0;
        o->broadphases[o->nbroadphases++] = b;
      }
      if (o->nbroadphases == 0) return 0;
    } else if (!strcmp(a, "--skin") && v) {
      o->skin = strtod(v, &end);
      if (*end || !(o->skin >= 0 && o->skin <= 4)) return 0;
    } else if (!strcmp(a, "--shuffle")) {
      o->shuffle = 1;
      continue;
    } else if (!strcmp(a, "--seed") && v) {
      o->seed = (unsigned)strtoul(v, &end, 10);
      if (*end) return 0;
    } else {
      return 0;
    }
    i++;
  }
  return 1;
}

#define NWALL 5

// an open container of the given width, floor at z = 0, as the plugin builds its domain: one
// static plane per face (floor, four walls)
static void make_container(float width, float friction, grnShape* walls) {
  const float lo[3] = {-0.5f * width, -0.5f * width, 0}, hi[3] = {0.5f * width, 0.5f * width, width};
  grn_box_planes(lo, hi, 0, friction, walls);
}

// a solver of n grains in the container, or NULL with a message
static grnSolver* make_solver(const grnParams* p, const grnShape* walls) {
  grnSolver* s = NULL;
  grnStatus st = grn_create(p, grnBACKEND_CPU, &s);
  if (st == grnOK) st = grn_set_shapes(s, NWALL, walls);
  if (st != grnOK) {
    fprintf(stderr, "bench_cpu: create %d grains: %s\n", p->capacity, grn_status_string(st));
    grn_destroy(s);
    return NULL;
  }
  return s;
}

// largest grain speed
static double max_speed(const float* vel, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) {
    double v = sqrt((double)vel[3 * i] * vel[3 * i] + (double)vel[3 * i + 1] * vel[3 * i + 1] +
                    (double)vel[3 * i + 2] * vel[3 * i + 2]);
    if (v > m) m = v;
  }
  return m;
}

// the timed solver's params for n grains: the defaults of the model, with the options' skin
static void bench_params(const Options* o, int n, grnParams* p) {
  grn_default_params(p);
  p->capacity = n;
  if (o->iterations) p->iterations = o->iterations;
  if (o->skin >= 0) p->skin = (float)o->skin;
  p->model = o->model;
  if (o->model == grnMODEL_DEM) {
    p->dt = (float)(GRN_DEM_DT_FRACTION * grn_dem_time_scale(p, p->radius));
  }
}

// time the settled bed pos (n grains) with params p in the container box; 0 on success
static int bench_timed(const Options* o, const grnParams* p, const grnShape* box, int n,
                       const float* pos, Row* row) {
  // the bed at rest in the benchmarked solver; 100 untimed substeps relax what the coarse
  // substep left (its deeper overlaps push grains apart for a while)
  float* vel = (float*)malloc(3 * (size_t)n * sizeof(float));
  grnSolver* s = vel ? make_solver(p, box) : NULL;
  grnStatus st = s ? grn_set_grains(s, n, pos, NULL) : grnERR_MEMORY;
  if (st == grnOK) st = grn_advance(s, 100);
  if (st == grnOK) st = grn_get_grains(s, NULL, vel);
  if (st == grnOK) row->settle_max_speed = max_speed(vel, n);
  int npairs = 0;
  if (st == grnOK) st = grn_find_pairs(s, NULL, 0, &npairs);
  row->contacts = 2.0 * npairs / n;

  // timed substeps, in calls of 10 as a host step of 10 substeps would make
  double t0 = bench_now(), c0 = bench_cpu_seconds();
  for (int done = 0; done < o->substeps && st == grnOK; done += 10) {
    int k = o->substeps - done < 10 ? o->substeps - done : 10;
    st = grn_advance(s, k);
  }
  row->seconds = bench_now() - t0;
  row->cpu_share = (bench_cpu_seconds() - c0) / (row->seconds * omp_get_max_threads());
  free(vel);
  if (st != grnOK) {
    fprintf(stderr, "bench_cpu: %d grains: %s\n", n, grn_status_string(st));
    grn_destroy(s);
    return 1;
  }
  row->grains = n;
  row->broadphase = p->broadphase;
  row->pss = (double)n * o->substeps / row->seconds;
  row->solver_bytes = grn_memory_bytes(s);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  row->peak_rss_kb = ru.ru_maxrss;
  grn_destroy(s);
  return 0;
}

// build the bed of n grains, settle it, time it with each broadphase into rows; 0 on success
static int bench_size(const Options* o, int n, Row* rows) {
  memset(rows, 0, o->nbroadphases * sizeof(Row));
  grnParams p;
  bench_params(o, n, &p);
  const float r = p.radius;

  // container: square, wide enough for a settled bed (packing ~0.6) half as deep as it is wide
  double grain_volume = 4.0 / 3.0 * M_PI * r * r * r;
  float width = (float)cbrt(2.0 * n * grain_volume / 0.6);
  // lattice spacing 2.2 r: sites per layer
  float spacing = 2.2f * r;
  int per_row = (int)floorf((width - 2.4f * r) / spacing) + 1;
  grnShape box[NWALL];
  make_container(width, p.friction, box);

  // jittered lattice from the floor up
  float* pos = (float*)malloc(3 * (size_t)n * sizeof(float));
  if (!pos) {
    fprintf(stderr, "bench_cpu: out of memory\n");
    return 1;
  }
  unsigned seed = o->seed;
  float x0 = -0.5f * width + 1.2f * r;
  for (int i = 0; i < n; i++) {
    int ix = i % per_row, iy = (i / per_row) % per_row, iz = i / (per_row * per_row);
    pos[3 * i + 0] = x0 + ix * spacing + 0.05f * r * jitter(&seed);
    pos[3 * i + 1] = x0 + iy * spacing + 0.05f * r * jitter(&seed);
    pos[3 * i + 2] = 1.2f * r + iz * spacing + 0.05f * r * jitter(&seed);
  }

  // settle with a coarse substep (how the bed came to rest does not matter to the timing)
  grnParams coarse = p;
  coarse.model = grnMODEL_PJ;
  coarse.dt = (float)o->settle_dt;
  grnSolver* s = make_solver(&coarse, box);
  grnStatus st = s ? grn_set_grains(s, n, pos, NULL) : grnERR_ARG;
  int settle_steps = (int)lround(o->settle / coarse.dt);
  if (st == grnOK && settle_steps > 0) st = grn_advance(s, settle_steps);
  if (st == grnOK) st = grn_get_grains(s, pos, NULL);
  grn_destroy(s);
  if (st != grnOK) {
    fprintf(stderr, "bench_cpu: settling %d grains: %s\n", n, grn_status_string(st));
    free(pos);
    return 1;
  }

  // grains in a random order (fisher-yates with the lattice's jitter generator)
  for (int i = n - 1; o->shuffle && i > 0; i--) {
    seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
    int j = (int)(seed % (unsigned)(i + 1));
    for (int a = 0; a < 3; a++) {
      float t = pos[3 * i + a];
      pos[3 * i + a] = pos[3 * j + a];
      pos[3 * j + a] = t;
    }
  }

  // the same bed timed with each broadphase
  int failed = 0;
  for (int b = 0; b < o->nbroadphases; b++) {
    p.broadphase = o->broadphases[b];
    failed |= bench_timed(o, &p, box, n, pos, rows + b);
  }
  free(pos);
  return failed;
}

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o)) {
    fprintf(stderr,
            "usage: bench_cpu [--sizes 10k,50k,100k] [--substeps 200] [--settle 1.0]\n"
            "                 [--settle-dt 1e-3] [--iterations 10] [--seed 12345]\n"
            "                 [--model pj|dem|pbd] [--broadphase hash,sorted] [--skin 0.5]\n"
            "                 [--shuffle]\n"
            "times the cpu solver on a settled bed; threads from OMP_NUM_THREADS\n");
    return 2;
  }
  grnParams p;
  bench_params(&o, 1, &p);
  printf("mjgranular cpu benchmark: %d openmp threads, model %s, dt %g s, %d iterations, radius "
         "%g m, skin %g radii\nbeds settled %g s at dt %g s, then %d timed substeps, grains in "
         "%s order\n", omp_get_max_threads(), kModels[o.model], p.dt,
         o.model == grnMODEL_DEM ? 0 : p.iterations, p.radius, p.skin, o.settle, o.settle_dt,
         o.substeps, o.shuffle ? "random" : "lattice");
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3) {
    printf("load average before: %.2f (1 min) on %d cpus (other load slows the openmp barriers)\n",
           load[0], omp_get_num_procs());
  }
  printf("\n%8s  %10s  %12s  %9s  %10s  %10s  %11s  %9s  %11s  %10s  %12s\n", "grains",
         "broadphase", "settled vmax", "contacts", "ms/substep", "pss", "x real time",
         "cpu share", "pss / cpu s", "solver MiB", "peak RSS MiB");
  printf("%8s  %10s  %12s  %9s  %10s  %10s  %11s  %9s  %11s  %10s  %12s\n", "", "", "[m/s]",
         "per grain", "", "", "", "", "", "", "(process)");
  int failed = 0;
  for (int i = 0; i < o.nsizes; i++) {
    Row rows[2];
    failed |= bench_size(&o, o.sizes[i], rows);
    for (int b = 0; b < o.nbroadphases; b++) {
      const Row* row = rows + b;
      if (row->grains == 0) continue;
      double ms = 1e3 * row->seconds / o.substeps;
      double per_cpu = row->pss / (row->cpu_share * omp_get_max_threads());
      printf("%8d  %10s  %12.3g  %9.2f  %10.3f  %10.3g  %11.3g  %9.2f  %11.3g  %10.1f  %12.1f\n",
             row->grains, row->broadphase == grnBROADPHASE_SORTED ? "sorted" : "hash",
             row->settle_max_speed, row->contacts, ms, row->pss, p.dt * 1e3 / ms,
             row->cpu_share, per_cpu, row->solver_bytes / 1048576.0, row->peak_rss_kb / 1024.0);
    }
    fflush(stdout);
  }
  return failed;
}
