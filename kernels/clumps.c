// the clump api (issue 19): rigid clumps of spheres into and out of a solver. the clumps are
// checked, laid out sphere by sphere as the solver's grains, and written with their spheres placed
// on them by the substep's own function (grn_clump_place), so both agree to the bit.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "granular.h"
#include "grn_cem.h"
#include "grn_clump.h"
#include "grn_solver.h"

// the arrays grn_set_clumps writes: the clumps' and their spheres'
static const char* const kClumpArrays[] = {
  "clump_pos", "clump_vel", "clump_mom", "clump_angvel", "clump_orient", "clump_inertia",
  "clump_inv_mass", "clump_first", "clump_count", "clump_type", "elem_clump", "elem_local",
  "elem_offset", "pos", "vel", "angvel", "orient", "rad", "inv_mass", "inv_inertia",
};
enum { kNClumpArrays = (int)(sizeof(kClumpArrays) / sizeof(kClumpArrays[0])) };

// 1 when the count floats at v are all finite (v may be NULL: none)
static int all_finite(const float* v, size_t count) {
  for (size_t i = 0; v && i < count; i++) {
    if (!isfinite(v[i])) return 0;
  }
  return 1;
}

// grnOK when clump type t fits a solver of params p
static grnStatus check_type(const grnParams* p, const grnClumpType* t) {
  if (t->nsphere < 1 || !t->spheres) return grnERR_ARG;
  if (!all_finite(t->spheres, 4 * (size_t)t->nsphere) || !all_finite(&t->mass, 1) ||
      !all_finite(t->inertia, 3)) {
    return grnERR_NONFINITE;
  }
  for (int e = 0; e < t->nsphere; e++) {
    float r = t->spheres[4 * e + 3];
    if (!(r > 0 && r <= p->radius)) return grnERR_ARG;
  }
  if (!(t->mass > 0) || !isfinite(1 / t->mass)) return grnERR_ARG;
  for (int a = 0; a < 3; a++) {
    if (!(t->inertia[a] > 0) || !isfinite(1 / t->inertia[a])) return grnERR_ARG;
  }
  return grnOK;
}

// grnOK when type t of a solver with contact fields f (NULL: none) leads with its bound where
// it has fields: a sphere at the centre of mass that holds its other spheres
static grnStatus check_bound(const float* f, int ntypes, int index, const grnClumpType* t) {
  if (!f) return grnOK;
  if (ntypes != grn_cem_ntype(f)) return grnERR_ARG;
  if (!(grn_cem_type(f, index)[8] > 0)) return grnOK;
  const float* b = t->spheres;
  if (t->nsphere < 2 || b[0] != 0 || b[1] != 0 || b[2] != 0) return grnERR_ARG;
  for (int e = 1; e < t->nsphere; e++) {
    const float* s = t->spheres + 4 * e;
    if (sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) + s[3] > b[3]) return grnERR_ARG;
  }
  return grnOK;
}

// grnOK when the clumps' numbers are usable; *total: their spheres
static grnStatus check_clumps(const grnSolver* s, const grnClumpType* types, int ntypes, int n,
                              const int* type, const float* pos, const float* orient,
                              const float* vel, const float* angvel, int* total) {
  if (n < 0 || n > s->params.max_clumps) return grnERR_ARG;
  if (n > 0 && (!types || ntypes < 1 || !type || !pos || !orient)) return grnERR_ARG;
  for (int t = 0; t < ntypes && n > 0; t++) {
    grnStatus st = check_type(&s->params, types + t);
    if (st == grnOK) st = check_bound(s->cem, ntypes, t, types + t);
    if (st != grnOK) return st;
  }
  long long spheres = 0;
  for (int c = 0; c < n; c++) {
    if (type[c] < 0 || type[c] >= ntypes) return grnERR_ARG;
    spheres += types[type[c]].nsphere;
  }
  if (spheres > s->params.capacity) return grnERR_ARG;
  size_t n3 = 3 * (size_t)n;
  if (!all_finite(pos, n3) || !all_finite(orient, 4 * (size_t)n) || !all_finite(vel, n3) ||
      !all_finite(angvel, n3)) {
    return grnERR_NONFINITE;
  }
  for (int c = 0; c < n; c++) {
    const float* q = orient + 4 * c;
    if (!grn_is_orientation(q[0], q[1], q[2], q[3])) return grnERR_ARG;
  }
  *total = (int)spheres;
  return grnOK;
}

// host arrays of h for n clumps of total spheres (zeroed); 0 when one could not be allocated
static int alloc_host(grnData* h, int n, int total) {
  int ok = 1;
  for (int a = 0; a < kNClumpArrays; a++) {
    const grnArrayDesc* desc = grn_solver_array(kClumpArrays[a]);
    size_t count = desc->unit == grnUNIT_CLUMP ? (size_t)n : (size_t)total;
    void* p = calloc(count * desc->width + 1, desc->size);
    *grn_array_field(h, desc) = p;
    ok &= p != NULL;
  }
  return ok;
}

static void free_host(grnData* h) {
  for (int a = 0; a < kNClumpArrays; a++) {
    free(*grn_array_field(h, grn_solver_array(kClumpArrays[a])));
  }
}

// clump c of type t at its pose and velocities into h, its spheres from grain first on
static void fill_clump(grnData* h, int c, int type, const grnClumpType* t, int first,
                       const float* pos, const float* orient, const float* vel,
                       const float* angvel) {
  grnQuat q = grn_load_quat(orient + 4 * c);
  grnVec3 inertia = grn_v3(t->inertia[0], t->inertia[1], t->inertia[2]);
  grnVec3 w = angvel ? grn_load3(angvel + 3 * c) : grn_v3(0, 0, 0);
  grn_store3(h->clump_pos + 3 * c, grn_load3(pos + 3 * c));
  grn_store3(h->clump_vel + 3 * c, vel ? grn_load3(vel + 3 * c) : grn_v3(0, 0, 0));
  grn_store3(h->clump_mom + 3 * c, grn_rigid_momentum(q, w, inertia));
  grn_store3(h->clump_angvel + 3 * c, w);
  grn_store_quat(h->clump_orient + 4 * c, q);
  grn_store3(h->clump_inertia + 3 * c, inertia);
  h->clump_inv_mass[c] = 1 / t->mass;
  h->clump_first[c] = first;
  h->clump_count[c] = t->nsphere;
  h->clump_type[c] = type;
  // a single sphere rolls on its own, with its mean moment; a clump's spheres do not
  float ii = t->nsphere == 1 ? 3 / (t->inertia[0] + t->inertia[1] + t->inertia[2]) : 0;
  for (int e = 0; e < t->nsphere; e++) {
    int g = first + e;
    h->elem_clump[g] = c;
    grn_store3(h->elem_local + 3 * g, grn_load3(t->spheres + 4 * e));
    h->rad[g] = t->spheres[4 * e + 3];
    h->inv_mass[g] = 1 / t->mass;
    h->inv_inertia[g] = ii;
  }
  grn_clump_place(h, c);
}

grnStatus grn_set_clumps(grnSolver* s, const grnClumpType* types, int ntypes, int n,
                         const int* type, const float* pos, const float* orient,
                         const float* vel, const float* angvel) {
  if (!s || !s->consts.clumps || (s->consts.cem && !s->cem)) return grnERR_ARG;
  int total = 0;
  grnStatus st = check_clumps(s, types, ntypes, n, type, pos, orient, vel, angvel, &total);
  if (st != grnOK) return st;
  grnData h;
  memset(&h, 0, sizeof(h));
  if (!alloc_host(&h, n, total)) {
    free_host(&h);
    return grnERR_MEMORY;
  }
  for (int c = 0, first = 0; c < n; first += types[type[c]].nsphere, c++) {
    fill_clump(&h, c, type[c], types + type[c], first, pos, orient, vel, angvel);
  }
  // the spheres as grains (their contacts cleared), then every array of the clumps
  st = s->ops->set_grains(s, total, h.pos, h.vel);
  for (int a = 0; a < kNClumpArrays && st == grnOK; a++) {
    const grnArrayDesc* desc = grn_solver_array(kClumpArrays[a]);
    size_t count = desc->unit == grnUNIT_CLUMP ? (size_t)n : (size_t)total;
    size_t bytes = count * desc->width * desc->size;
    if (bytes) st = s->ops->write(s, desc, 0, *grn_array_field(&h, desc), bytes);
  }
  free_host(&h);
  // a failed write leaves no grains rather than spheres without their clumps
  if (st != grnOK) s->ops->set_grains(s, 0, NULL, NULL);
  s->n = st == grnOK ? total : 0;
  s->nclump = st == grnOK ? n : 0;
  return st;
}

// 1 when net at offset at of the fields f (length count) fits them with inputs in and outputs
// out, its layers no wider than GRN_CEM_MAX_WIDTH; *next: the offset past it
static int check_net(const float* f, long long count, long long at, int in, int out,
                     long long* next) {
  if (at + 1 > count) return 0;
  int nl = grn_cem_int(f, (int)at);
  if (nl < GRN_CEM_MIN_LAYERS || nl > GRN_CEM_MAX_LAYERS || at + 2 + nl > count) return 0;
  for (int l = 0; l <= nl; l++) {
    int w = grn_cem_int(f, (int)(at + 1 + l));
    if (w < 1 || w > GRN_CEM_MAX_WIDTH) return 0;
  }
  if (grn_cem_int(f, (int)(at + 1)) != in || grn_cem_int(f, (int)(at + 1 + nl)) != out) return 0;
  *next = at + grn_cem_net_floats(f + at);
  return *next <= count;
}

// grnOK when the fields f fit their length count: their types, pair table and nets
static grnStatus check_fields(const float* f, long long count) {
  if (count < 1 || count >= (1 << 24)) return grnERR_ARG;
  int nt = grn_cem_int(f, 0);
  long long table = 1 + (long long)GRN_CEM_TYPE_FLOATS * nt;
  if (nt < 1 || table + (long long)nt * nt > count) return grnERR_ARG;
  for (int a = 0; a < nt; a++) {
    for (int b = 0; b < nt; b++) {
      int rec = grn_cem_pair_offset(f, a, b);
      if (rec != grn_cem_pair_offset(f, b, a)) return grnERR_ARG;
      int fields = grn_cem_type(f, a)[8] > 0 && grn_cem_type(f, b)[8] > 0;
      if (rec < 0) {
        if (fields) return grnERR_ARG;  // two field types always meet by their fields
        continue;
      }
      long long next;
      if (!fields || rec + 2 > count || !(f[rec] > 0) ||
          (grn_cem_int(f, rec + 1) != a && grn_cem_int(f, rec + 1) != b) ||
          !check_net(f, count, rec + 2, GRN_CEM_INPUTS, 1, &next) ||
          !check_net(f, count, next, GRN_CEM_INPUTS, 2, &next)) {
        return grnERR_ARG;
      }
    }
  }
  return grnOK;
}

grnStatus grn_set_cem_fields(grnSolver* s, const float* fields) {
  if (!s || !s->consts.cem || !fields) return grnERR_ARG;
  long long count = s->params.cem_floats;
  if (!all_finite(fields, (size_t)count)) return grnERR_NONFINITE;
  grnStatus st = check_fields(fields, count);
  if (st != grnOK) return st;
  size_t bytes = (size_t)count * sizeof(float);
  float* copy = (float*)malloc(bytes);
  if (!copy) return grnERR_MEMORY;
  memcpy(copy, fields, bytes);
  st = s->ops->write(s, grn_solver_array("cem"), 0, copy, bytes);
  if (st != grnOK) {
    free(copy);
    return st;
  }
  free(s->cem);
  s->cem = copy;
  return grnOK;
}

int grn_clump_count(const grnSolver* s) { return s ? s->nclump : 0; }

grnStatus grn_get_clumps(const grnSolver* s, float* pos, float* orient, float* vel,
                         float* angvel) {
  if (!s) return grnERR_ARG;
  const char* names[] = {"clump_pos", "clump_orient", "clump_vel", "clump_angvel"};
  float* out[] = {pos, orient, vel, angvel};
  grnStatus st = grnOK;
  for (int a = 0; a < 4 && st == grnOK; a++) {
    const grnArrayDesc* desc = grn_solver_array(names[a]);
    size_t bytes = (size_t)s->nclump * desc->width * desc->size;
    if (out[a] && bytes) st = s->ops->read(s, desc, 0, out[a], bytes);
  }
  return st;
}
