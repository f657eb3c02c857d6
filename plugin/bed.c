// the initial bed: a cubic lattice of `spacing` radii, centred in the fill box, each grain moved
// by a seeded random jitter small enough that no two grains overlap.
#include "bed.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

int mjg_bed_alloc(mjgBed* bed, int cap, int spheres, int contacts, double radius) {
  memset(bed, 0, sizeof(*bed));
  size_t c = cap > 0 ? (size_t)cap : 1;
  bed->cap = cap;
  bed->spheres = spheres;
  bed->pos = (mjtNum*)calloc(3 * c, sizeof(mjtNum));
  bed->vel = (mjtNum*)calloc(3 * c, sizeof(mjtNum));
  bed->angvel = (mjtNum*)calloc(3 * c, sizeof(mjtNum));
  bed->orient = (mjtNum*)calloc(4 * c, sizeof(mjtNum));
  bed->radius = (mjtNum*)calloc(c, sizeof(mjtNum));
  bed->type = (mjtNum*)calloc(c, sizeof(mjtNum));
  size_t nc = mjg_state_contact_size(cap, spheres);
  if (contacts) bed->contacts = (mjtNum*)calloc(nc ? nc : 1, sizeof(mjtNum));
  if (!bed->pos || !bed->vel || !bed->angvel || !bed->orient || !bed->radius || !bed->type ||
      (contacts && !bed->contacts)) {
    mjg_bed_free(bed);
    return -1;
  }
  // a grain written into a free slot by hand (raising the count) has a radius and an orientation
  // already
  for (int i = 0; i < cap; i++) {
    bed->radius[i] = (float)radius;
    bed->orient[4 * i] = 1;
  }
  return 0;
}

void mjg_bed_free(mjgBed* bed) {
  if (!bed) return;
  free(bed->pos);
  free(bed->vel);
  free(bed->angvel);
  free(bed->orient);
  free(bed->radius);
  free(bed->type);
  free(bed->contacts);
  memset(bed, 0, sizeof(*bed));
}

void mjg_bed_write(const mjgBed* bed, int nbody, mjtNum* state) {
  int cap = bed->cap;
  mju_zero(state, mjg_state_size(cap, bed->spheres, nbody));
  state[MJG_STATE_COUNT] = bed->n;
  state[MJG_STATE_RESERVED] = 0;
  state[MJG_STATE_LAYOUT] = MJG_STATE_VERSION;
  state[MJG_STATE_MODEL] = bed->model;
  memcpy(mjg_state_pos(state, cap), bed->pos, 3 * (size_t)bed->n * sizeof(mjtNum));
  memcpy(mjg_state_vel(state, cap), bed->vel, 3 * (size_t)bed->n * sizeof(mjtNum));
  memcpy(mjg_state_angvel(state, cap), bed->angvel, 3 * (size_t)bed->n * sizeof(mjtNum));
  memcpy(mjg_state_orient(state, cap), bed->orient, 4 * (size_t)cap * sizeof(mjtNum));
  memcpy(mjg_state_radius(state, cap), bed->radius, (size_t)cap * sizeof(mjtNum));
  memcpy(mjg_state_type(state, cap), bed->type, (size_t)cap * sizeof(mjtNum));
  if (bed->contacts) {
    memcpy(mjg_state_contacts(state, cap, nbody), bed->contacts,
           mjg_state_contact_size(cap, bed->spheres) * sizeof(mjtNum));
  }
}

// splitmix64: a tiny, well-mixed generator, the same on every platform
static uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// uniform in [-1, 1)
static double uniform_pm1(uint64_t* state) {
  return (double)(splitmix64(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

double mjg_bed_count(const double fill[6], double radius, double spacing_radii, int dims[3]) {
  double spacing = spacing_radii * radius, n[3];
  for (int i = 0; i < 3; i++) {
    // centres from lo + r to hi - r
    double room = fill[3 + i] - fill[i] - 2 * radius;
    n[i] = room >= 0 ? floor(room / spacing + 1e-9) + 1 : 0;
    if (dims) dims[i] = n[i] < INT_MAX ? (int)n[i] : INT_MAX;
  }
  // an empty axis first: an infinite one times zero would give nan
  if (n[0] == 0 || n[1] == 0 || n[2] == 0) return 0;
  return n[0] * n[1] * n[2];
}

// the cube of a grain, as the coordinates of its lowest corner in cells
typedef struct mjgCell_ {
  double c[3];
} mjgCell;

static int compare_cells(const void* a, const void* b) {
  const double *x = ((const mjgCell*)a)->c, *y = ((const mjgCell*)b)->c;
  for (int i = 0; i < 3; i++) {
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return 0;
}

int mjg_bed_crowding(const mjgBed* bed, double cell, double corner[3]) {
  mjgCell* cells = (mjgCell*)malloc((bed->n ? bed->n : 1) * sizeof(mjgCell));
  if (!cells) return -1;
  for (int g = 0; g < bed->n; g++) {
    for (int i = 0; i < 3; i++) cells[g].c[i] = floor(bed->pos[3 * g + i] / cell);
  }
  // sorted, a cube's grains are one run
  qsort(cells, bed->n, sizeof(mjgCell), compare_cells);
  int most = 0;
  for (int first = 0, g = 1; g <= bed->n; g++) {
    if (g < bed->n && !compare_cells(cells + first, cells + g)) continue;
    if (g - first > most) {
      most = g - first;
      for (int i = 0; i < 3; i++) corner[i] = cells[first].c[i] * cell;
    }
    first = g;
  }
  free(cells);
  return most;
}

// a grain type drawn by the shares of cfg
static int draw_type(const mjgConfig* cfg, uint64_t* rng) {
  double u = 0.5 * (uniform_pm1(rng) + 1), sum = 0;
  for (int k = 0; k < cfg->ntype - 1; k++) {
    sum += cfg->type_mix[k];
    if (u < sum) return k;
  }
  return cfg->ntype - 1;
}

// a uniformly random unit quaternion into q (w x y z), rounded to float as a state holds it
// (Shoemake's subgroup algorithm)
static void draw_orientation(uint64_t* rng, mjtNum q[4]) {
  double u1 = 0.5 * (uniform_pm1(rng) + 1), u2 = 0.5 * (uniform_pm1(rng) + 1);
  double u3 = 0.5 * (uniform_pm1(rng) + 1);
  double a = sqrt(1 - u1), b = sqrt(u1);
  double x[4] = {a * cos(2 * M_PI * u2), a * sin(2 * M_PI * u2), b * sin(2 * M_PI * u3),
                 b * cos(2 * M_PI * u3)};
  for (int i = 0; i < 4; i++) q[i] = (float)x[i];
}

// types, orientations and radii of the n grains of a bed of mesh grains, each from a stream of
// its own
static void draw_shapes(const mjgConfig* cfg, const mjgGrainTypes* types, int n, mjgBed* bed) {
  uint64_t rng_type = (uint64_t)cfg->seed * 0xD1B54A32D192ED03ull + 11;
  uint64_t rng_orient = (uint64_t)cfg->seed * 0x8CB92BA72F3D8DD7ull + 13;
  for (int i = 0; i < n; i++) {
    int k = draw_type(cfg, &rng_type);
    bed->type[i] = k;
    bed->radius[i] = (float)types->type[k].bound;
    draw_orientation(&rng_orient, bed->orient + 4 * i);
  }
}

int mjg_bed_make(const mjgConfig* cfg, const mjgGrainTypes* types, mjgBed* bed) {
  bed->model = cfg->model;
  if (!cfg->has_fill) return 0;
  mjtNum* pos = bed->pos;
  int dims[3];
  double n = mjg_bed_count(cfg->fill, cfg->reach, cfg->spacing, dims);
  if (n <= 0 || n > cfg->count) return 0;

  // lattice centred in the fill box
  double r = cfg->reach, spacing = cfg->spacing * r;
  double start[3];
  for (int i = 0; i < 3; i++) {
    double used = (dims[i] - 1) * spacing;
    start[i] = 0.5 * (cfg->fill[i] + cfg->fill[3 + i]) - 0.5 * used;
  }

  // jitter of at most 45% of the gap on each axis: neighbours never touch
  double jitter = 0.45 * (spacing - 2 * r);
  uint64_t rng = (uint64_t)cfg->seed * 0x2545F4914F6CDD1Dull + 1;

  // layer by layer from the bottom, rows along y, grains along x
  long long g = 0;
  for (int k = 0; k < dims[2]; k++) {
    for (int j = 0; j < dims[1]; j++) {
      for (int i = 0; i < dims[0]; i++, g++) {
        mjtNum* p = pos + 3 * g;
        double x[3] = {start[0] + i * spacing, start[1] + j * spacing, start[2] + k * spacing};
        for (int a = 0; a < 3; a++) {
          // jittered, kept within the fill box, rounded to float: the state holds exactly what
          // the solver holds
          double v = x[a] + jitter * uniform_pm1(&rng);
          v = fmin(fmax(v, cfg->fill[a] + r), cfg->fill[3 + a] - r);
          p[a] = (float)v;
        }
      }
    }
  }
  memset(bed->vel, 0, 3 * (size_t)n * sizeof(mjtNum));
  memset(bed->angvel, 0, 3 * (size_t)n * sizeof(mjtNum));

  if (types) {
    draw_shapes(cfg, types, (int)n, bed);
    return (int)n;
  }

  // radii from a stream of their own (so the positions of a bed do not depend on its sizes),
  // rounded to float as the state holds them
  uint64_t rng_r = (uint64_t)cfg->seed * 0x9E3779B97F4A7C15ull + 7;
  for (long long i = 0; i < n; i++) {
    double u = 0.5 * (uniform_pm1(&rng_r) + 1);
    bed->radius[i] = cfg->radius_min < cfg->radius
                         ? (float)(cfg->radius_min + u * (cfg->radius - cfg->radius_min))
                         : (float)cfg->radius;
  }
  return (int)n;
}
