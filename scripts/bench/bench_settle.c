// settling-scene benchmark driver for scripts/bench/peers.py (not a test).
//
// six modes; all but init print one json object per measurement on stdout:
//
//   init     the peers' initial state: n non-overlapping grains at uniformly random positions in
//            a box, by random sequential addition, written as float32 x y z per grain.
//   settle   the peers' scene: grains from a file (float32 x y z per grain, as init writes it)
//            fall and settle in an open-topped square container of side W (five planes) for a
//            simulated time at the solver's defaults, or with the dem model and the material
//            given; final positions and velocities go to a file (float32 x y z vx vy vz per
//            grain). times the whole advance.
//   law      the dem law's constants for the material given, nothing simulated: the damping
//            ratio that gives the restitution (grn_dem_damping_ratio) and the substep's time
//            scale (grn_dem_time_scale), so that a peer can be given the same damping.
//   hash     seeds' fig. 3: a tall square column of grains settles (untimed, 1 ms substep),
//            then the same column is timed at each hash table size (factors of the grain count),
//            the fastest of R timings each.
//   loops    seeds' fig. 6: the same column timed with split collide / resolve passes and with
//            one loop (grnParams.one_loop).
//   skin     the same column timed at each neighbour-list skin (grnParams.skin, radii).
//   (seeds' fig. 9, left, is the gear tower itself: scripts/examples/gear_tower.py, run by
//   peers.py)
//
//   bench_settle init   --grains N --out FILE --width W --height H [--seed U]
//   bench_settle settle --in FILE --out FILE --width W --time T [material]
//   bench_settle law    [material]
//   bench_settle hash   --grains N --factors 0.5,1,2,4,8 --substeps S [--repeat R]
//   bench_settle loops  --grains N --substeps S [--repeat R]
//   bench_settle skin   --grains N --skins 0,0.25,0.5,1 --substeps S [--repeat R]
//   common: [--backend cpu|cuda] [--broadphase hash|sorted] [--dt S] [--iterations K] [--skin R]
//           [--seed U] [--settle T]
//   material: [--model pj|dem] [--law hertz|hooke] [--youngs PA] [--poisson NU]
//             [--restitution E] [--friction MU] [--rolling C] [--torsional C]
//             (unset: the solver's defaults; rolling and torsional as grnParams'
//             rolling_friction and torsional_friction)
//   thread count: OMP_NUM_THREADS
#define _DEFAULT_SOURCE  // clock_gettime
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "granular.h"

#define MAX_LIST 32

typedef struct Options_ {
  const char* mode;           // init | settle | law | hash | loops | skin
  const char* in;             // settle: initial grains (n x 3 float32)
  const char* out;            // settle: final grains (n x 6 float32), may be NULL
  double width;               // init, settle: box side [m]
  double height;              // init: height of the box filled [m]
  double time;                // settle: simulated time [s]
  int grains;                 // init, hash, loops, skin: grain count
  double list[MAX_LIST];      // hash: table size factors; skin: skins [radii]
  int nlist;                  // entries in list
  int substeps;               // hash: timed substeps per factor
  int repeat;                 // hash: timings per factor, the fastest kept
  double settle;              // hash, loops, skin: untimed settling time [s]
  grnBackend backend;         // solver backend
  int broadphase;             // grnBroadphase, -1: the default
  double dt;                  // substep (0: default)
  int iterations;             // projected jacobi iterations (0: default)
  double skin;                // neighbour-list skin [radii] (< 0: default)
  unsigned seed;              // lattice jitter
  // material (< 0: the solver's default)
  int model;                  // grnModel
  int law;                    // grnDemLaw
  double youngs, poisson, restitution, friction, rolling, torsional;
} Options;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// uniform in [-1, 1] from a xorshift state
static float jitter(unsigned* s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return (float)(*s & 0xffffff) / (float)0x7fffff - 1.0f;
}

// a comma-separated list of numbers; 0 on a bad entry
static int parse_list(const char* text, double* out, int* n) {
  char buf[512];
  snprintf(buf, sizeof(buf), "%s", text);
  *n = 0;
  for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    char* end;
    double v = strtod(tok, &end);
    if (end == tok || *end || *n == MAX_LIST || !(v >= 0)) return 0;
    out[(*n)++] = v;
  }
  return *n > 0;
}

static int parse_args(int argc, char** argv, Options* o) {
  memset(o, 0, sizeof(*o));
  o->backend = grnBACKEND_CPU;
  o->broadphase = -1;
  o->substeps = 100;
  o->repeat = 1;
  o->settle = 0.5;
  o->seed = 12345;
  o->skin = -1;
  o->model = o->law = -1;
  o->youngs = o->poisson = o->restitution = o->friction = o->rolling = o->torsional = -1;
  if (argc < 2) return 0;
  o->mode = argv[1];
  if (strcmp(o->mode, "init") && strcmp(o->mode, "settle") && strcmp(o->mode, "law") &&
      strcmp(o->mode, "hash") && strcmp(o->mode, "loops") && strcmp(o->mode, "skin")) {
    return 0;
  }
  for (int i = 2; i < argc; i += 2) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    char* end = (char*)"";
    if (!v) return 0;
    if (!strcmp(a, "--in")) o->in = v;
    else if (!strcmp(a, "--out")) o->out = v;
    else if (!strcmp(a, "--width")) o->width = strtod(v, &end);
    else if (!strcmp(a, "--height")) o->height = strtod(v, &end);
    else if (!strcmp(a, "--time")) o->time = strtod(v, &end);
    else if (!strcmp(a, "--grains")) o->grains = (int)strtol(v, &end, 10);
    else if (!strcmp(a, "--factors") || !strcmp(a, "--skins")) {
      if (!parse_list(v, o->list, &o->nlist)) return 0;
    } else if (!strcmp(a, "--substeps")) o->substeps = (int)strtol(v, &end, 10);
    else if (!strcmp(a, "--repeat")) o->repeat = (int)strtol(v, &end, 10);
    else if (!strcmp(a, "--settle")) o->settle = strtod(v, &end);
    else if (!strcmp(a, "--dt")) o->dt = strtod(v, &end);
    else if (!strcmp(a, "--iterations")) o->iterations = (int)strtol(v, &end, 10);
    else if (!strcmp(a, "--skin")) o->skin = strtod(v, &end);
    else if (!strcmp(a, "--seed")) o->seed = (unsigned)strtoul(v, &end, 10);
    else if (!strcmp(a, "--youngs")) o->youngs = strtod(v, &end);
    else if (!strcmp(a, "--poisson")) o->poisson = strtod(v, &end);
    else if (!strcmp(a, "--restitution")) o->restitution = strtod(v, &end);
    else if (!strcmp(a, "--friction")) o->friction = strtod(v, &end);
    else if (!strcmp(a, "--rolling")) o->rolling = strtod(v, &end);
    else if (!strcmp(a, "--torsional")) o->torsional = strtod(v, &end);
    else if (!strcmp(a, "--model")) {
      if (!strcmp(v, "pj")) o->model = grnMODEL_PJ;
      else if (!strcmp(v, "dem")) o->model = grnMODEL_DEM;
      else return 0;
    } else if (!strcmp(a, "--law")) {
      if (!strcmp(v, "hertz")) o->law = grnLAW_HERTZ;
      else if (!strcmp(v, "hooke")) o->law = grnLAW_HOOKE;
      else return 0;
    } else if (!strcmp(a, "--broadphase")) {
      if (!strcmp(v, "hash")) o->broadphase = grnBROADPHASE_HASH;
      else if (!strcmp(v, "sorted")) o->broadphase = grnBROADPHASE_SORTED;
      else return 0;
    } else if (!strcmp(a, "--backend")) {
      if (!strcmp(v, "cpu")) o->backend = grnBACKEND_CPU;
      else if (!strcmp(v, "cuda")) o->backend = grnBACKEND_CUDA;
      else return 0;
    } else {
      return 0;
    }
    if (*end) return 0;
  }
  if (!strcmp(o->mode, "init")) {
    return o->out && o->grains > 0 && o->width > 0 && o->height > 0;
  }
  if (!strcmp(o->mode, "settle")) {
    return o->in && o->width > 0 && o->time > 0;
  }
  if (!strcmp(o->mode, "law")) return 1;
  return o->grains > 0 && (o->nlist > 0 || !strcmp(o->mode, "loops")) && o->substeps > 0 &&
         o->repeat > 0 && o->settle >= 0;
}

// default params with the options' substep, iterations, skin and material
static grnParams make_params(const Options* o, int capacity) {
  grnParams p;
  grn_default_params(&p);
  p.capacity = capacity;
  if (o->dt > 0) p.dt = (float)o->dt;
  if (o->iterations > 0) p.iterations = o->iterations;
  if (o->skin >= 0) p.skin = (float)o->skin;
  if (o->broadphase >= 0) p.broadphase = o->broadphase;
  if (o->model >= 0) p.model = o->model;
  if (o->law >= 0) p.law = o->law;
  if (o->youngs >= 0) p.youngs = (float)o->youngs;
  if (o->poisson >= 0) p.poisson = (float)o->poisson;
  if (o->restitution >= 0) p.restitution = (float)o->restitution;
  if (o->friction >= 0) p.friction = (float)o->friction;
  if (o->rolling >= 0) p.rolling_friction = (float)o->rolling;
  if (o->torsional >= 0) p.torsional_friction = (float)o->torsional;
  return p;
}

static const char* law_name(int law) { return law == grnLAW_HOOKE ? "hooke" : "hertz"; }

#define NWALL 5  // shapes of the container

// the open-topped square container x, y in [-w/2, w/2], z >= 0 as five static planes (floor and
// four walls; planes rather than one box, so a grain in an edge or corner touches each face)
static void container(float w, float friction, grnShape* walls) {
  const float lo[3] = {-0.5f * w, -0.5f * w, 0}, hi[3] = {0.5f * w, 0.5f * w, w};
  grn_box_planes(lo, hi, 0, friction, walls);
}

// a solver with the grains and shapes loaded, or NULL with a message
static grnSolver* make_solver(const grnParams* p, grnBackend backend, int n, const float* pos,
                              int nshape, const grnShape* shapes) {
  grnSolver* s = NULL;
  grnStatus st = grn_create(p, backend, &s);
  if (st == grnOK) st = grn_set_shapes(s, nshape, shapes);
  if (st == grnOK) st = grn_set_grains(s, n, pos, NULL);
  if (st != grnOK) {
    fprintf(stderr, "bench_settle: %d grains on %s: %s\n", n, grn_backend_name(backend),
            grn_status_string(st));
    grn_destroy(s);
    return NULL;
  }
  return s;
}

// advance nsub substeps in calls of 10 (a 5 ms host step at the default substep)
static grnStatus advance(grnSolver* s, int nsub) {
  grnStatus st = grnOK;
  for (int done = 0; done < nsub && st == grnOK; done += 10) {
    st = grn_advance(s, nsub - done < 10 ? nsub - done : 10);
  }
  return st;
}

// the dem law's fields of a json line (after others): the material and the damping ratio
static void print_law(const grnParams* p) {
  printf(", \"law\": \"%s\", \"youngs\": %g, \"poisson\": %g, \"restitution\": %g, "
         "\"stiffness\": %g, \"damping_ratio\": %.9g, \"time_scale\": %.6g",
         law_name(p->law), p->youngs, p->poisson, p->restitution, p->stiffness,
         grn_dem_damping_ratio(p->law, p->restitution), grn_dem_time_scale(p, p->radius));
}

// the fields every json line starts with
static void print_head(const char* mode, const grnSolver* s, int n) {
  const grnParams* p = grn_params(s);
  printf("{\"mode\": \"%s\", \"backend\": \"%s\", \"threads\": %d, \"grains\": %d, "
         "\"model\": \"%s\", \"dt\": %g, \"iterations\": %d, \"radius\": %g, "
         "\"density\": %g, \"friction\": %g, \"rolling_friction\": %g, "
         "\"torsional_friction\": %g, \"broadphase\": \"%s\", \"hash_size\": %d, "
         "\"memory_bytes\": %zu",
         mode, grn_backend_name(grn_backend(s)), omp_get_max_threads(), n,
         p->model == grnMODEL_DEM ? "dem" : "pj", p->dt, p->iterations, p->radius, p->density,
         p->friction, p->rolling_friction, p->torsional_friction,
         p->broadphase == grnBROADPHASE_SORTED ? "sorted" : "hash", p->hash_size,
         grn_memory_bytes(s));
  if (p->model == grnMODEL_DEM) print_law(p);
}

// law mode: the dem law's constants for the options' material
static int run_law(const Options* o) {
  grnParams p = make_params(o, 1);
  p.model = grnMODEL_DEM;
  char msg[128];
  if (grn_check_params(&p, msg, sizeof(msg)) != grnOK) {
    fprintf(stderr, "bench_settle law: %s\n", msg);
    return 1;
  }
  printf("{\"mode\": \"law\", \"radius\": %g, \"density\": %g", p.radius, p.density);
  print_law(&p);
  printf("}\n");
  return 0;
}

// n grains on a jittered lattice of spacing 2.2 r filling a square column of side w from the
// floor up; returns the lattice height
static float lattice(int n, float r, float w, unsigned seed, float* pos) {
  float spacing = 2.2f * r;
  int per_row = (int)floorf((w - 2.4f * r) / spacing) + 1;
  float x0 = -0.5f * w + 1.2f * r;
  for (int i = 0; i < n; i++) {
    int ix = i % per_row, iy = (i / per_row) % per_row, iz = i / (per_row * per_row);
    pos[3 * i + 0] = x0 + ix * spacing + 0.05f * r * jitter(&seed);
    pos[3 * i + 1] = x0 + iy * spacing + 0.05f * r * jitter(&seed);
    pos[3 * i + 2] = 1.2f * r + iz * spacing + 0.05f * r * jitter(&seed);
  }
  int layers = (n + per_row * per_row - 1) / (per_row * per_row);
  return 1.2f * r + layers * spacing + r;
}

// uniform in [0, 1) from a splitmix64 state
static double uniform(unsigned long long* s) {
  unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (z >> 11) * (1.0 / 9007199254740992.0);
}

// init mode: n grains of the default radius at random in the box x, y in [-w/2 + r, w/2 - r],
// z in [r, h - r], none overlapping: candidates uniformly at random, each kept when no grain
// kept before is within a diameter (checked through a grid of cells one diameter wide)
static int run_init(const Options* o) {
  grnParams p;
  grn_default_params(&p);
  double r = p.radius, d = 2 * r;
  double lo[3] = {-0.5 * o->width + r, -0.5 * o->width + r, r};
  double hi[3] = {0.5 * o->width - r, 0.5 * o->width - r, o->height - r};
  int dim[3];
  size_t cells = 1;
  for (int a = 0; a < 3; a++) {
    if (!(hi[a] > lo[a])) return 1;
    dim[a] = (int)ceil((hi[a] - lo[a]) / d) + 1;
    cells *= dim[a];
  }
  int n = o->grains;
  double* pos = (double*)malloc(3 * (size_t)n * sizeof(double));
  int* head = (int*)malloc(cells * sizeof(int));
  int* next = (int*)malloc((size_t)n * sizeof(int));
  if (!pos || !head || !next) {
    free(pos), free(head), free(next);
    fprintf(stderr, "bench_settle: out of memory\n");
    return 1;
  }
  for (size_t c = 0; c < cells; c++) head[c] = -1;
  // block by block (equal blocks about 20 x 20 x 4 diameters, each given its share of n), so the
  // grid cells being checked stay in cache; within a block the candidates are uniform
  unsigned long long rng = 0x5eedull + o->seed;
  int nb[3];
  double blk[3];
  const double target_size[3] = {20 * d, 20 * d, 4 * d};
  for (int a = 0; a < 3; a++) {
    nb[a] = (int)lround((hi[a] - lo[a]) / target_size[a]);
    if (nb[a] < 1) nb[a] = 1;
    blk[a] = (hi[a] - lo[a]) / nb[a];
  }
  long long nblock = (long long)nb[0] * nb[1] * nb[2];
  int count = 0;
  for (long long b = 0, target = 0; b < nblock && count == target; b++) {
    int bi[3] = {(int)(b % nb[0]), (int)(b / nb[0] % nb[1]), (int)(b / ((long long)nb[0] * nb[1]))};
    target = (int)((long long)n * (b + 1) / nblock);
    long long tries = 0, limit = 5000LL * (target - count) + 100000;
    while (count < target && tries < limit) {
      tries++;
      double x[3];
      int c[3];
      for (int a = 0; a < 3; a++) {
        x[a] = lo[a] + (bi[a] + uniform(&rng)) * blk[a];
        if (x[a] > hi[a]) x[a] = hi[a];
        c[a] = (int)((x[a] - lo[a]) / d);
      }
      int clash = 0;
      for (int i = c[0] - 1; i <= c[0] + 1 && !clash; i++) {
        for (int j = c[1] - 1; j <= c[1] + 1 && !clash; j++) {
          for (int k = c[2] - 1; k <= c[2] + 1 && !clash; k++) {
            if (i < 0 || j < 0 || k < 0 || i >= dim[0] || j >= dim[1] || k >= dim[2]) continue;
            for (int g = head[((size_t)k * dim[1] + j) * dim[0] + i]; g >= 0; g = next[g]) {
              double dx = x[0] - pos[3 * g], dy = x[1] - pos[3 * g + 1];
              double dz = x[2] - pos[3 * g + 2];
              if (dx * dx + dy * dy + dz * dz < d * d) {
                clash = 1;
                break;
              }
            }
          }
        }
      }
      if (clash) continue;
      size_t cell = ((size_t)c[2] * dim[1] + c[1]) * dim[0] + c[0];
      for (int a = 0; a < 3; a++) pos[3 * count + a] = x[a];
      next[count] = head[cell];
      head[cell] = count++;
    }
  }
  int ok = count == n;
  if (!ok) fprintf(stderr, "bench_settle: only %d of %d grains fit the box\n", count, n);
  FILE* f = ok ? fopen(o->out, "wb") : NULL;
  for (int i = 0; f && ok && i < n; i++) {
    float x[3] = {(float)pos[3 * i], (float)pos[3 * i + 1], (float)pos[3 * i + 2]};
    ok = fwrite(x, sizeof(float), 3, f) == 3;
  }
  if (f) fclose(f);
  if (ok && !f) ok = 0, fprintf(stderr, "bench_settle: cannot write %s\n", o->out);
  free(pos), free(head), free(next);
  return ok ? 0 : 1;
}

// settle mode: the peers' scene from a file
static int run_settle(const Options* o) {
  FILE* f = fopen(o->in, "rb");
  if (!f) {
    fprintf(stderr, "bench_settle: cannot open %s\n", o->in);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  int n = (int)(bytes / (3 * sizeof(float)));
  float* pos = (float*)malloc(3 * (size_t)n * sizeof(float));
  float* vel = (float*)malloc(3 * (size_t)n * sizeof(float));
  if (!pos || !vel || n < 1 || fread(pos, 3 * sizeof(float), n, f) != (size_t)n) {
    fprintf(stderr, "bench_settle: cannot read %d grains from %s\n", n, o->in);
    fclose(f), free(pos), free(vel);
    return 1;
  }
  fclose(f);

  grnParams p = make_params(o, n);
  grnShape walls[NWALL];
  container((float)o->width, p.friction, walls);
  double t0 = now();
  grnSolver* s = make_solver(&p, o->backend, n, pos, NWALL, walls);
  double setup = now() - t0;
  int nsub = (int)ceil(o->time / p.dt * (1 - 1e-6));  // float dt: 1e-4f is a little short
  t0 = now();
  grnStatus st = s ? advance(s, nsub) : grnERR_ARG;
  double wall = now() - t0;
  if (st == grnOK) st = grn_get_grains(s, pos, vel);
  if (st != grnOK) {
    if (s) fprintf(stderr, "bench_settle: settle %d grains: %s\n", n, grn_status_string(st));
    grn_destroy(s), free(pos), free(vel);
    return 1;
  }
  print_head("settle", s, n);
  double sim = nsub * (double)p.dt;
  printf(", \"substeps\": %d, \"sim_time\": %g, \"setup_s\": %.4f, \"wall_s\": %.4f, "
         "\"wall_per_sim_s\": %.4f, \"pss\": %.4g}\n",
         nsub, sim, setup, wall, wall / sim, (double)n * nsub / wall);
  fflush(stdout);
  grn_destroy(s);

  int ok = 1;
  if (o->out) {
    FILE* g = fopen(o->out, "wb");
    ok = g != NULL;
    for (int i = 0; ok && i < n; i++) {
      ok = fwrite(pos + 3 * i, sizeof(float), 3, g) == 3 &&
           fwrite(vel + 3 * i, sizeof(float), 3, g) == 3;
    }
    if (g) fclose(g);
    if (!ok) fprintf(stderr, "bench_settle: cannot write %s\n", o->out);
  }
  free(pos), free(vel);
  return ok ? 0 : 1;
}

static int compare_float(const void* a, const void* b) {
  float x = *(const float*)a, y = *(const float*)b;
  return (x > y) - (x < y);
}

// a square column of n grains, four times as tall as wide once settled (packing about 0.6),
// settled with a coarse substep (how it came to rest does not matter to the timings): positions
// into pos (n x 3), walls (NWALL), width and the settled height (the 98th percentile of the grain
// tops, a few loose grains aside); 0 on success
static int settled_column(const Options* o, const grnParams* p, float* pos, grnShape* walls,
                          float* width, float* height) {
  int n = o->grains;
  float r = p->radius;
  double grain_volume = 4.0 / 3.0 * M_PI * r * r * r;
  float w = (float)cbrt(n * grain_volume / (0.6 * 4));
  lattice(n, r, w, o->seed, pos);
  container(w, p->friction, walls);
  grnParams coarse = *p;
  coarse.dt = 1e-3f;
  grnSolver* s = make_solver(&coarse, o->backend, n, pos, NWALL, walls);
  grnStatus st = s ? advance(s, (int)lround(o->settle / coarse.dt)) : grnERR_ARG;
  if (st == grnOK) st = grn_get_grains(s, pos, NULL);
  grn_destroy(s);
  if (st != grnOK) {
    fprintf(stderr, "bench_settle: settling the column: %s\n", grn_status_string(st));
    return 1;
  }
  float* z = (float*)malloc((size_t)n * sizeof(float));
  if (!z) return 1;
  for (int i = 0; i < n; i++) z[i] = pos[3 * i + 2] + r;
  qsort(z, n, sizeof(float), compare_float);
  *height = z[(size_t)(0.98 * (n - 1))];
  *width = w;
  free(z);
  return 0;
}

// the settled column timed with params q: the fastest of the repeats of S substeps, after 20
// untimed ones that relax what the coarse substep left; prints one json line for the mode, with
// the varied setting as "name": value; 0 on success
static int time_column(const Options* o, const grnParams* q, const float* pos,
                       const grnShape* walls, float w, float top, const char* name,
                       double value) {
  int n = o->grains;
  grnSolver* s = make_solver(q, o->backend, n, pos, NWALL, walls);
  grnStatus st = s ? advance(s, 20) : grnERR_ARG;
  int npairs = 0;
  if (st == grnOK) st = grn_find_pairs(s, NULL, 0, &npairs);
  // the fastest of the repeats: the machine may be shared
  double wall = 1e30;
  for (int rep = 0; rep < o->repeat && st == grnOK; rep++) {
    double t0 = now();
    st = advance(s, o->substeps);
    wall = fmin(wall, now() - t0);
  }
  if (st != grnOK) {
    if (s) fprintf(stderr, "bench_settle: %s %g: %s\n", name, value, grn_status_string(st));
    grn_destroy(s);
    return 1;
  }
  print_head(o->mode, s, n);
  printf(", \"%s\": %g, \"column_width\": %g, \"column_height\": %g, "
         "\"contacts_per_grain\": %.3f, \"substeps\": %d, \"repeat\": %d, \"wall_s\": %.4f, "
         "\"wall_per_sim_s\": %.4f, \"pss\": %.4g}\n",
         name, value, w, top, 2.0 * npairs / n, o->substeps, o->repeat, wall,
         wall / (o->substeps * (double)q->dt), (double)n * o->substeps / wall);
  fflush(stdout);
  grn_destroy(s);
  return 0;
}

// hash, loops and skin modes: the settled column timed at each hash table size (a factor of n),
// with split passes and with one loop, or at each neighbour-list skin
static int run_column(const Options* o) {
  int n = o->grains;
  grnParams p = make_params(o, n);
  float* pos = (float*)malloc(3 * (size_t)n * sizeof(float));
  grnShape walls[NWALL];
  float w, top;
  if (!pos || settled_column(o, &p, pos, walls, &w, &top)) {
    free(pos);
    return 1;
  }
  int failed = 0;
  if (!strcmp(o->mode, "loops")) {
    for (int one_loop = 0; one_loop <= 1; one_loop++) {
      grnParams q = p;
      q.one_loop = one_loop;
      failed |= time_column(o, &q, pos, walls, w, top, "one_loop", one_loop);
    }
  }
  for (int i = 0; i < o->nlist; i++) {
    grnParams q = p;
    if (!strcmp(o->mode, "hash")) {
      q.hash_size = (int)lround(o->list[i] * n);
      if (q.hash_size < 1) q.hash_size = 1;
      failed |= time_column(o, &q, pos, walls, w, top, "hash_factor", o->list[i]);
    } else if (!strcmp(o->mode, "skin")) {
      q.skin = (float)o->list[i];
      failed |= time_column(o, &q, pos, walls, w, top, "skin", o->list[i]);
    }
  }
  free(pos);
  return failed;
}

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o)) {
    fprintf(stderr,
            "usage: bench_settle init   --grains N --out FILE --width W --height H [--seed U]\n"
            "       bench_settle settle --in FILE [--out FILE] --width W --time T [material]\n"
            "       bench_settle law    [material]\n"
            "       bench_settle hash   --grains N --factors 0.5,1,2,4,8 [--substeps S]\n"
            "                           [--repeat R]\n"
            "       bench_settle loops  --grains N [--substeps S] [--repeat R]\n"
            "       bench_settle skin   --grains N --skins 0,0.25,0.5,1 [--substeps S]\n"
            "                           [--repeat R]\n"
            "  common: [--backend cpu|cuda] [--broadphase hash|sorted] [--dt S] [--iterations K]\n"
            "          [--skin R] [--seed U] [--settle T]\n"
            "  material: [--model pj|dem] [--law hertz|hooke] [--youngs PA] [--poisson NU]\n"
            "            [--restitution E] [--friction MU] [--rolling C] [--torsional C]\n"
            "  threads: OMP_NUM_THREADS; cuda: %s\n",
            grn_cuda_info());
    return 2;
  }
  if (o.backend == grnBACKEND_CUDA) {
    grnParams p = make_params(&o, 1);
    grnSolver* s = NULL;
    grnStatus st = grn_create(&p, grnBACKEND_CUDA, &s);
    grn_destroy(s);
    if (st != grnOK) {
      printf("{\"mode\": \"%s\", \"backend\": \"cuda\", \"unavailable\": \"%s\"}\n", o.mode,
             grn_cuda_info());
      return 3;
    }
  }
  if (!strcmp(o.mode, "init")) return run_init(&o);
  if (!strcmp(o.mode, "settle")) return run_settle(&o);
  if (!strcmp(o.mode, "law")) return run_law(&o);
  return run_column(&o);
}
