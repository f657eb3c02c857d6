// public api: parameter checks, object lifetime, the advance loop over substeps, and dispatch to
// the backend.
#include "granular.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grn_adhesion.h"
#include "grn_collide.h"
#include "grn_solver.h"
#include "grn_sorted.h"

const char* grn_status_string(grnStatus status) {
  switch (status) {
    case grnOK: return "ok";
    case grnERR_ARG: return "invalid argument";
    case grnERR_MEMORY: return "out of memory";
    case grnERR_UNAVAILABLE: return "backend not compiled into this build";
    case grnERR_NO_DEVICE: return "no usable gpu";
    case grnERR_DEVICE: return "gpu call failed";
    case grnERR_NONFINITE: return "a grain became nan or infinite";
  }
  return "unknown status";
}

// the device error of the last failed cuda call on this thread (grn_set_device_error), with the
// status it returned
static _Thread_local struct {
  grnStatus status;
  char text[200];
} device_error;

void grn_set_device_error(grnStatus status, const char* text) {
  device_error.status = status;
  snprintf(device_error.text, sizeof(device_error.text), "%s", text);
}

const char* grn_status_message(grnStatus status) {
  static _Thread_local char message[256];
  const char* name = grn_status_string(status);
  if (status == grnOK || status != device_error.status || !device_error.text[0]) return name;
  snprintf(message, sizeof(message), "%s: %s", name, device_error.text);
  return message;
}

const char* grn_backend_name(grnBackend backend) {
  switch (backend) {
    case grnBACKEND_AUTO: return "auto";
    case grnBACKEND_CPU: return "cpu";
    case grnBACKEND_CUDA: return "cuda";
  }
  return "unknown";
}

//---------------------------------- array tables --------------------------------------------------

#define GRN_DESC(type, name, width, unit, what) \
  {#name, offsetof(grnData, name), sizeof(type), width, unit, (type)0.5 != 0},
#define GRN_DESC_TWINS(type, name, width, unit, what) \
  GRN_DESC(type, name, width, unit, what)             \
  {#name "_prev", offsetof(grnData, name##_prev), sizeof(type), width, unit, (type)0.5 != 0},

const grnArrayDesc grn_contact_arrays[grnNCONTACT_ARRAYS] = {GRN_CONTACT_ARRAYS(GRN_DESC)};
// a grain-state array's twin, which only the sorted broadphase has
#define GRN_DESC_SORTED(type, name, width, unit, what)                                    \
  {#name "_sorted", offsetof(grnData, name##_sorted), sizeof(type), width, grnUNIT_SORTED_GRAIN, \
   (type)0.5 != 0},

const grnArrayDesc grn_solver_arrays[] = {
  GRN_CONTACT_ARRAYS(GRN_DESC_TWINS) GRN_GRAIN_ARRAYS(GRN_DESC) GRN_PAIR_ARRAYS(GRN_DESC)
  GRN_GRAIN_STATE(GRN_DESC_SORTED)
};
const int grn_nsolver_arrays = (int)(sizeof(grn_solver_arrays) / sizeof(grn_solver_arrays[0]));
const grnArrayDesc grn_broadphase_arrays[] = {GRN_BROADPHASE_ARRAYS(GRN_DESC)};
const int grn_nbroadphase_arrays =
    (int)(sizeof(grn_broadphase_arrays) / sizeof(grn_broadphase_arrays[0]));

size_t grn_contact_array_bytes(int a, int cap) {
  grnData d;
  memset(&d, 0, sizeof(d));
  d.cap = cap;
  const grnArrayDesc* desc = grn_contact_arrays + a;
  return desc->size * desc->width * grn_unit_count(desc->unit, &d, 0, NULL);
}

size_t grn_contact_offset(int a, int cap) {
  size_t offset = 0;
  for (int b = 0; b < a; b++) offset += grn_contact_array_bytes(b, cap);
  return offset;
}

// the solver array of the tables named name
const grnArrayDesc* grn_solver_array(const char* name) {
  for (int a = 0; a < grn_nsolver_arrays; a++) {
    if (!strcmp(grn_solver_arrays[a].name, name)) return grn_solver_arrays + a;
  }
  return NULL;
}

//---------------------------------- the caller's order -------------------------------------------

// the solver's own order of its grains (grn_sorted.h): *uid (malloc'd, n ints) the caller's index
// of each of its grains, or NULL where it keeps the caller's order
static grnStatus read_order(const grnSolver* s, int** uid) {
  *uid = NULL;
  if (!grn_sorted_keeps_order(&s->consts) || s->n == 0) return grnOK;
  size_t bytes = (size_t)s->n * sizeof(int);
  *uid = (int*)malloc(bytes);
  if (!*uid) return grnERR_MEMORY;
  grnStatus st = s->ops->read(s, grn_solver_array("uid"), 0, *uid, bytes);
  if (st != grnOK) {
    free(*uid);
    *uid = NULL;
  }
  return st;
}

// n items of per bytes from the caller's order (src) into the solver's (dst), or back
static void to_solver_order(const int* uid, int n, size_t per, const void* src, void* dst) {
  for (int i = 0; i < n; i++) memcpy((char*)dst + per * i, (const char*)src + per * uid[i], per);
}
static void to_caller_order(const int* uid, int n, size_t per, const void* src, void* dst) {
  for (int i = 0; i < n; i++) memcpy((char*)dst + per * uid[i], (const char*)src + per * i, per);
}

// grain array `name` of the n grains in use into host, in the caller's order
static grnStatus read_grains(const grnSolver* s, const char* name, void* host) {
  const grnArrayDesc* a = grn_solver_array(name);
  size_t per = a->size * a->width, bytes = per * s->n;
  int* uid;
  grnStatus st = bytes ? read_order(s, &uid) : grnOK;
  if (st != grnOK || !bytes) return st;
  if (!uid) return s->ops->read(s, a, 0, host, bytes);
  void* own = malloc(bytes);
  st = own ? s->ops->read(s, a, 0, own, bytes) : grnERR_MEMORY;
  if (st == grnOK) to_caller_order(uid, s->n, per, own, host);
  free(own);
  free(uid);
  return st;
}

// grain array `name` of the n grains in use from host, in the caller's order
static grnStatus write_grains(grnSolver* s, const char* name, const void* host) {
  const grnArrayDesc* a = grn_solver_array(name);
  size_t per = a->size * a->width, bytes = per * s->n;
  int* uid;
  grnStatus st = bytes ? read_order(s, &uid) : grnOK;
  if (st != grnOK || !bytes) return st;
  if (!uid) return s->ops->write(s, a, 0, host, bytes);
  void* own = malloc(bytes);
  if (own) to_solver_order(uid, s->n, per, host, own);
  st = own ? s->ops->write(s, a, 0, own, bytes) : grnERR_MEMORY;
  free(own);
  free(uid);
  return st;
}

// radii [0, n) of the grain slots (NULL: the params' radius), with the masses and inertias of
// their spheres; in chunks, so that filling a large capacity takes little host memory
static grnStatus write_radii(grnSolver* s, int n, const float* radii) {
  enum { kChunk = 1 << 16 };
  float* buf = (float*)malloc(3 * kChunk * sizeof(float));
  if (!buf) return grnERR_MEMORY;
  float *im = buf + kChunk, *ii = buf + 2 * kChunk;
  grnStatus st = grnOK;
  for (int first = 0; first < n && st == grnOK; first += kChunk) {
    int count = n - first < kChunk ? n - first : kChunk;
    for (int i = 0; i < count; i++) {
      float r = radii ? radii[first + i] : s->params.radius;
      float m = grn_sphere_mass(s->params.density, r);
      buf[i] = r;
      im[i] = 1 / m;
      ii[i] = 1 / grn_sphere_inertia(m, r);
    }
    size_t at = (size_t)first * sizeof(float), bytes = (size_t)count * sizeof(float);
    st = s->ops->write(s, grn_solver_array("rad"), at, buf, bytes);
    if (st == grnOK) st = s->ops->write(s, grn_solver_array("inv_mass"), at, im, bytes);
    if (st == grnOK) st = s->ops->write(s, grn_solver_array("inv_inertia"), at, ii, bytes);
  }
  free(buf);
  return st;
}

void grn_default_params(grnParams* p) {
  memset(p, 0, sizeof(*p));
  p->capacity = 10000;
  p->radius = 0.005f;
  p->density = 2500;
  p->friction = 0.5f;
  p->kinetic_friction = -1;
  p->rolling_friction = (float)GRN_DEFAULT_ROLLING;
  p->torsional_friction = (float)GRN_DEFAULT_TORSIONAL;
  p->dt = 5e-4f;
  p->iterations = 10;
  p->baumgarte = 0.2f;
  p->gravity[2] = -9.81f;
  p->margin = 0.1f;
  p->skin = 0.5f;
  p->hash_size = 0;
  p->broadphase = grnBROADPHASE_SORTED;
  p->max_shapes = 64;
  p->max_bodies = 0;
  p->deterministic = 1;
  p->law = grnLAW_HERTZ;
  p->youngs = (float)GRN_DEFAULT_YOUNGS;
  p->poisson = (float)GRN_DEFAULT_POISSON;
  p->restitution = (float)GRN_DEFAULT_RESTITUTION;
}

double grn_adhesive_area(int model, double overlap, double rmin) {
  return grn_adhesive_area_of(model, (float)overlap, (float)rmin);
}

static grnStatus fail(char* msg, int size, const char* text) {
  if (msg && size > 0) snprintf(msg, size, "%s", text);
  return grnERR_ARG;
}

grnStatus grn_check_params(const grnParams* p, char* msg, int size) {
  if (!p) return fail(msg, size, "params is null");
  if (p->capacity <= 0 || p->capacity > GRN_MAX_GRAINS) {
    if (msg && size > 0) {
      snprintf(msg, size, "capacity %d not in [1, %d]", p->capacity, GRN_MAX_GRAINS);
    }
    return grnERR_ARG;
  }
  if (!(p->radius > 0) || !isfinite(p->radius)) return fail(msg, size, "radius must be > 0");
  if (!(p->density > 0) || !isfinite(p->density)) return fail(msg, size, "density must be > 0");
  // the solver divides by a grain's mass and moment of inertia, in float
  float mass = grn_sphere_mass(p->density, p->radius);
  float inertia = grn_sphere_inertia(mass, p->radius);
  if (!isfinite(mass) || !isfinite(1 / mass) || !isfinite(1 / inertia)) {
    if (msg && size > 0) {
      snprintf(msg, size, "radius %g m and density %g kg/m^3 give a grain mass of %g kg, whose "
               "mass or moment of inertia a float cannot invert", p->radius, p->density, mass);
    }
    return grnERR_ARG;
  }
  if (!(p->friction >= 0) || !isfinite(p->friction)) return fail(msg, size, "friction must be >= 0");
  if (!(p->kinetic_friction <= p->friction) || !isfinite(p->kinetic_friction)) {
    return fail(msg, size, "kinetic_friction must be <= friction (< 0: the same)");
  }
  if (!(p->adhesion >= 0) || !isfinite(p->adhesion)) {
    return fail(msg, size, "adhesion must be >= 0");
  }
  if (!(p->error_reduction >= 0 && p->error_reduction <= 1)) {
    return fail(msg, size, "error_reduction not in [0, 1]");
  }
  if (!(p->sleep >= 0) || !isfinite(p->sleep)) return fail(msg, size, "sleep must be >= 0");
  if (p->pbd_passes != grnPBD_NEWTON && p->pbd_passes != grnPBD_AVERAGED) {
    return fail(msg, size, "pbd_passes must be grnPBD_NEWTON or grnPBD_AVERAGED");
  }
  if (!(p->rolling_friction >= 0) || !isfinite(p->rolling_friction)) {
    return fail(msg, size, "rolling_friction must be >= 0");
  }
  if (!(p->torsional_friction >= 0) || !isfinite(p->torsional_friction)) {
    return fail(msg, size, "torsional_friction must be >= 0");
  }
  if (!(p->dt > 0) || !isfinite(p->dt)) return fail(msg, size, "dt must be > 0");
  if (p->iterations < 1 || p->iterations > 10000) return fail(msg, size, "iterations out of range");
  if (!(p->baumgarte >= 0 && p->baumgarte <= 1)) return fail(msg, size, "baumgarte not in [0, 1]");
  if (!(p->margin >= 0 && p->margin <= 1)) return fail(msg, size, "margin not in [0, 1]");
  if (!(p->skin >= 0 && p->skin <= 4)) return fail(msg, size, "skin not in [0, 4]");
  for (int i = 0; i < 3; i++) {
    if (isfinite(p->gravity[i])) continue;
    if (msg && size > 0) {
      snprintf(msg, size, "gravity (%g, %g, %g) is not finite as a float [m/s^2]", p->gravity[0],
               p->gravity[1], p->gravity[2]);
    }
    return grnERR_ARG;
  }
  if (p->hash_size < 0 || p->hash_size > (1 << 30)) {
    return fail(msg, size, "hash_size not in [0, 2^30]");
  }
  if (p->broadphase != grnBROADPHASE_HASH && p->broadphase != grnBROADPHASE_SORTED) {
    return fail(msg, size, "broadphase must be grnBROADPHASE_HASH or grnBROADPHASE_SORTED");
  }
  if (p->one_loop != 0 && p->one_loop != 1) return fail(msg, size, "one_loop must be 0 or 1");
  if (p->max_shapes < 0 || p->max_bodies < 0) return fail(msg, size, "negative shape capacity");
  if (p->device < 0) return fail(msg, size, "device must be >= 0");
  if (!isfinite(p->cyclic_z[0]) || !isfinite(p->cyclic_z[1])) {
    return fail(msg, size, "cyclic_z not finite");
  }
  if (p->cyclic_z[1] > p->cyclic_z[0] && !(p->cyclic_z[1] - p->cyclic_z[0] > 4 * p->radius)) {
    return fail(msg, size, "cyclic_z range must exceed two grain diameters");
  }
  if (p->deterministic != 0 && p->deterministic != 1) {
    return fail(msg, size, "deterministic must be 0 or 1");
  }
  if (p->model != grnMODEL_PJ && p->model != grnMODEL_DEM && p->model != grnMODEL_PBD) {
    return fail(msg, size, "model must be grnMODEL_PJ, grnMODEL_DEM or grnMODEL_PBD");
  }
  if (p->model == grnMODEL_DEM && p->adhesion > 0) {
    return fail(msg, size, "adhesion is a pj and pbd model feature; model is dem");
  }
  if (p->model != grnMODEL_PJ) {
    if (p->model == grnMODEL_DEM && p->law != grnLAW_HERTZ && p->law != grnLAW_HOOKE) {
      return fail(msg, size, "law must be grnLAW_HERTZ or grnLAW_HOOKE");
    }
    if (!(p->youngs > 0) || !isfinite(p->youngs)) return fail(msg, size, "youngs must be > 0");
    if (!(p->poisson > -1 && p->poisson <= 0.5f)) {
      return fail(msg, size, "poisson not in (-1, 0.5]");
    }
    if (!(p->restitution >= 0.01f && p->restitution <= 1)) {
      return fail(msg, size, "restitution not in [0.01, 1]");
    }
    if (!(p->stiffness >= 0) || !isfinite(p->stiffness)) {
      return fail(msg, size, "stiffness must be >= 0");
    }
    if (p->one_loop) return fail(msg, size, "one_loop is a projected jacobi mode");
  }
  if (p->max_clumps < 0 || p->max_clumps > p->capacity) {
    return fail(msg, size, "max_clumps not in [0, capacity]");
  }
  if (p->max_clumps > 0 && p->model == grnMODEL_PBD) {
    return fail(msg, size, "clumps (max_clumps) move with the pj or dem model; model is pbd");
  }
  if (p->max_clumps > 0 && p->one_loop) {
    return fail(msg, size, "clumps (max_clumps) need split passes; one_loop is 1");
  }
  if (p->cem_floats < 0) return fail(msg, size, "cem_floats must be >= 0");
  if (p->cem_floats > 0 && (p->max_clumps == 0 || p->model != grnMODEL_DEM)) {
    return fail(msg, size, "contact fields (cem_floats) need clumps (max_clumps) and model dem");
  }
  if (msg && size > 0) msg[0] = 0;
  return grnOK;
}

// derived constants; a hash cell is as wide as the distance it searches, so 27 cells cover it
static void derive_consts(grnSolver* s) {
  const grnParams* p = &s->params;
  grnConsts* c = &s->consts;
  c->dt = p->dt;
  // dem contacts touch: no speculative margin
  c->margin = p->model == grnMODEL_DEM ? 0 : p->margin;
  c->cutoff = grn_pair_cutoff(c, p->radius, p->radius);
  c->skin = p->skin * p->radius;
  c->reach = c->cutoff + c->skin;
  c->neighbors = grn_neighbor_slots(p);
  // cells a little wider than the distance, so that float rounding of x / cell can never put two
  // grains closer than it two cells apart (safe up to ~8000 cells from the origin)
  c->inv_cell = 1.0f / (c->cutoff * 1.001f);
  c->inv_list_cell = 1.0f / (c->reach * 1.001f);
  // a pair now closer than the cutoff was closer than the reach at the build while neither grain
  // moved more than half the skin; 2% of the skin is kept for float rounding of the distances
  float half = 0.49f * p->skin * p->radius;
  c->moved2 = half * half;
  c->one_loop = p->one_loop;
  c->friction = p->friction;
  c->kinetic_friction = p->kinetic_friction < 0 ? p->friction : p->kinetic_friction;
  c->adhesion = p->adhesion;
  c->error_reduction = p->error_reduction;
  c->sleep = p->sleep;
  c->pbd_passes = p->pbd_passes;
  c->iterations = p->iterations;
  float g = sqrtf(p->gravity[0] * p->gravity[0] + p->gravity[1] * p->gravity[1] +
                  p->gravity[2] * p->gravity[2]);
  for (int i = 0; i < 3; i++) c->down[i] = g > 0 ? p->gravity[i] / g : 0.0f;
  c->rolling = p->rolling_friction;
  c->torsional = p->torsional_friction;
  c->baumgarte = p->baumgarte;
  memcpy(c->gravity, p->gravity, sizeof(c->gravity));
  int cyclic = p->cyclic_z[1] > p->cyclic_z[0];
  c->cyclic_lo = cyclic ? p->cyclic_z[0] : 0;
  c->cyclic_period = cyclic ? p->cyclic_z[1] - p->cyclic_z[0] : 0;
  c->ordered = p->deterministic;
  c->broadphase = p->broadphase;
  c->model = p->model;
  c->clumps = p->max_clumps > 0;
  c->cem = p->cem_floats > 0;
  grn_dem_law_consts(p, &c->dem);
  s->grain_mass = grn_sphere_mass(p->density, p->radius);
}

// a solver on the backend of ops, or a status (cleans up after itself)
static grnStatus create_solver(const grnParams* params, grnBackend backend,
                               const grnBackendOps* ops, grnSolver** out) {
  grnSolver* s = (grnSolver*)calloc(1, sizeof(grnSolver));
  if (!s) return grnERR_MEMORY;
  grnStatus st;
  s->params = *params;
  if (s->params.hash_size == 0) s->params.hash_size = 2 * params->capacity;
  s->backend = backend;
  s->ops = ops;
  derive_consts(s);
  int ms = params->max_shapes > 0 ? params->max_shapes : 1;
  int mb = params->max_bodies > 0 ? params->max_bodies : 1;
  s->shapes = (grnShape*)calloc(ms, sizeof(grnShape));
  s->shapes_now = (grnShape*)calloc(ms, sizeof(grnShape));
  s->wrench_sum = (double*)calloc(6 * mb, sizeof(double));
  s->wrench = (double*)calloc(6 * mb, sizeof(double));
  if (!s->shapes || !s->shapes_now || !s->wrench_sum || !s->wrench) {
    grn_destroy(s);
    return grnERR_MEMORY;
  }
  st = ops->create(s);
  if (st != grnOK) {
    s->ops = NULL;  // create cleans up after itself
    grn_destroy(s);
    return st;
  }
  // every grain slot at the params' radius until grn_set_radii
  st = write_radii(s, params->capacity, NULL);
  if (st != grnOK) {
    grn_destroy(s);
    return st;
  }
  *out = s;
  return grnOK;
}

grnStatus grn_create(const grnParams* params, grnBackend backend, grnSolver** out) {
  if (!out) return grnERR_ARG;
  *out = NULL;
  grn_set_device_error(grnOK, "");
  grnStatus st = grn_check_params(params, NULL, 0);
  if (st != grnOK) return st;

  // pick the backend
  if (backend == grnBACKEND_CPU) return create_solver(params, grnBACKEND_CPU, &grn_cpu_ops, out);
  if (backend != grnBACKEND_CUDA && backend != grnBACKEND_AUTO) return grnERR_ARG;
  grnStatus usable = grn_cuda_usable();
  st = usable == grnOK ? create_solver(params, grnBACKEND_CUDA, grn_cuda_backend(), out) : usable;
  if (st == grnOK || backend == grnBACKEND_CUDA) return st;

  // auto: the cpu when cuda is unusable, or when the device cannot hold the solver or the
  // device index names none (said by grn_backend_note); any other device failure is returned
  if (st != grnERR_MEMORY && st != grnERR_NO_DEVICE && st != grnERR_UNAVAILABLE) return st;
  char note[sizeof((*out)->note)] = "";
  if (usable == grnOK) {
    snprintf(note, sizeof(note), "cuda device %d: %s; using the cpu", params->device,
             grn_status_message(st));
  }
  st = create_solver(params, grnBACKEND_CPU, &grn_cpu_ops, out);
  if (st == grnOK) memcpy((*out)->note, note, sizeof(note));
  return st;
}

void grn_destroy(grnSolver* s) {
  if (!s) return;
  if (s->ops) s->ops->destroy(s);
  for (int i = 0; i < s->ngrids; i++) free((void*)s->grids[i].values);
  free(s->grids);
  free(s->cem);
  free(s->shapes);
  free(s->shapes_now);
  free(s->wrench_sum);
  free(s->wrench);
  grn_body_motion_free(s);
  free(s);
}

grnBackend grn_backend(const grnSolver* s) { return s ? s->backend : grnBACKEND_AUTO; }

const char* grn_backend_note(const grnSolver* s) { return s ? s->note : ""; }

const grnParams* grn_params(const grnSolver* s) { return s ? &s->params : NULL; }

float grn_grain_mass(const grnSolver* s) { return s ? s->grain_mass : 0; }

int grn_count(const grnSolver* s) { return s ? s->n : 0; }

grnStatus grn_set_grains(grnSolver* s, int n, const float* pos, const float* vel) {
  if (!s || s->consts.clumps || n < 0 || n > s->params.capacity || (n > 0 && !pos)) {
    return grnERR_ARG;
  }
  for (int i = 0; i < 3 * n; i++) {
    if (!isfinite(pos[i]) || (vel && !isfinite(vel[i]))) return grnERR_NONFINITE;
  }
  // the same count goes into the solver's order, a new one comes in the caller's
  int* uid = NULL;
  grnStatus st = n == s->n ? read_order(s, &uid) : grnOK;
  float* own = NULL;
  if (st == grnOK && uid) {
    own = (float*)malloc(6 * (size_t)n * sizeof(float));
    if (own) {
      to_solver_order(uid, n, 3 * sizeof(float), pos, own);
      if (vel) to_solver_order(uid, n, 3 * sizeof(float), vel, own + 3 * (size_t)n);
      pos = own;
      vel = vel ? own + 3 * (size_t)n : NULL;
    } else {
      st = grnERR_MEMORY;
    }
  }
  if (st == grnOK) st = s->ops->set_grains(s, n, pos, vel);
  if (st == grnOK) s->n = n;
  free(own);
  free(uid);
  return st;
}

grnStatus grn_get_grains(const grnSolver* s, float* pos, float* vel) {
  if (!s) return grnERR_ARG;
  grnStatus st = pos ? read_grains(s, "pos", pos) : grnOK;
  if (st == grnOK && vel) st = read_grains(s, "vel", vel);
  return st;
}

grnStatus grn_set_angvel(grnSolver* s, const float* angvel) {
  if (!s || s->consts.clumps || (!angvel && s->n)) return grnERR_ARG;
  for (int i = 0; i < 3 * s->n; i++) {
    if (!isfinite(angvel[i])) return grnERR_NONFINITE;
  }
  return write_grains(s, "angvel", angvel);
}

grnStatus grn_get_angvel(const grnSolver* s, float* angvel) {
  if (!s || (!angvel && s->n)) return grnERR_ARG;
  return read_grains(s, "angvel", angvel);
}

grnStatus grn_set_orientations(grnSolver* s, const float* orientations) {
  if (!s || s->consts.clumps || (!orientations && s->n)) return grnERR_ARG;
  for (int i = 0; i < 4 * s->n; i++) {
    if (!isfinite(orientations[i])) return grnERR_NONFINITE;
  }
  for (int i = 0; i < s->n; i++) {
    const float* q = orientations + 4 * i;
    if (!grn_is_orientation(q[0], q[1], q[2], q[3])) return grnERR_ARG;
  }
  return write_grains(s, "orient", orientations);
}

grnStatus grn_get_orientations(const grnSolver* s, float* orientations) {
  if (!s || (!orientations && s->n)) return grnERR_ARG;
  return read_grains(s, "orient", orientations);
}

grnStatus grn_set_radii(grnSolver* s, const float* radii) {
  if (!s || s->consts.clumps || (!radii && s->n)) return grnERR_ARG;
  for (int i = 0; i < s->n; i++) {
    if (!(radii[i] > 0 && radii[i] <= s->params.radius)) return grnERR_ARG;
  }
  int* uid;
  grnStatus st = read_order(s, &uid);
  if (st != grnOK || !uid) return st == grnOK ? write_radii(s, s->n, radii) : st;
  float* own = (float*)malloc((size_t)s->n * sizeof(float));
  if (own) to_solver_order(uid, s->n, sizeof(float), radii, own);
  st = own ? write_radii(s, s->n, own) : grnERR_MEMORY;
  free(own);
  free(uid);
  return st;
}

grnStatus grn_get_radii(const grnSolver* s, float* radii) {
  if (!s || (!radii && s->n)) return grnERR_ARG;
  return read_grains(s, "rad", radii);
}

size_t grn_contact_state_bytes(int capacity) {
  return capacity > 0 ? grn_contact_offset(grnNCONTACT_ARRAYS, capacity) : 0;
}

// the slot rows the first n grains' contacts use (slot k of every grain is row k of a slot-major
// array): the largest grain-grain count in rows[0], the largest grain-shape count in rows[1]
static void used_rows(const int* npair, const int* nshape, int n, int rows[2]) {
  rows[0] = rows[1] = 0;
  for (int i = 0; i < n; i++) {
    if (npair[i] > rows[0]) rows[0] = npair[i];
    if (nshape[i] > rows[1]) rows[1] = nshape[i];
  }
}

// which count a slot array's slots follow: 0 the grain-grain count, 1 the grain-shape count
static int slot_count(const grnArrayDesc* desc) {
  return desc->unit == grnUNIT_PAIR_SLOT ? 0 : 1;
}

// the bytes of one slot row of contact-state array desc for capacity cap
static size_t row_bytes(const grnArrayDesc* desc, int cap) {
  return desc->size * desc->width * (size_t)cap;
}

// the contact state into buf (grn_contact_state_bytes): the counts first, then of each slot
// array only the rows (slots) some grain uses; the rows past them zeroed whole and, within the
// rows read, the slots a grain does not use, so that the state is a function of the contacts alone
// (the solver leaves in those slots what earlier substeps put there). by rows, not slot by slot:
// the copy and the clearing are what a plugin step pays for the state (bench_state)
grnStatus grn_get_contacts(const grnSolver* s, void* buf) {
  if (!s || !buf) return grnERR_ARG;
  const int cap = s->params.capacity, n = s->n;
  char* b = (char*)buf;
  // in the solver's own order, each count and slot row is read through own and put in the caller's
  int* uid;
  grnStatus st = read_order(s, &uid);
  if (st != grnOK) return st;
  char* own = NULL;
  if (uid) {
    own = (char*)malloc(grn_contact_array_bytes(grnCONTACT_pair_lin, cap) / GRN_MAX_PAIRS);
    if (!own) st = grnERR_MEMORY;
  }
  int* count[2] = {(int*)(b + grn_contact_offset(grnCONTACT_npair, cap)),
                   (int*)(b + grn_contact_offset(grnCONTACT_nshape, cap))};
  for (int u = 0; u < 2 && st == grnOK; u++) {
    const int a = u == 0 ? grnCONTACT_npair : grnCONTACT_nshape;
    const size_t bytes = (size_t)n * sizeof(int);
    st = n ? s->ops->read(s, grn_contact_arrays + a, 0, uid ? (void*)own : count[u], bytes) : grnOK;
    if (st == grnOK && uid) to_caller_order(uid, n, sizeof(int), own, count[u]);
    memset(count[u] + n, 0, (size_t)(cap - n) * sizeof(int));
  }
  int rows_used[2];
  used_rows(count[0], count[1], n, rows_used);
  for (int a = 0; a < grnNCONTACT_ARRAYS && st == grnOK; a++) {
    const grnArrayDesc* desc = grn_contact_arrays + a;
    const int slots = grn_unit_slots(desc->unit);
    if (slots == 1) continue;  // the counts, read above
    const int u = slot_count(desc), rows = rows_used[u];
    const size_t per = desc->size * desc->width, words = per / sizeof(uint32_t);  // 4-byte numbers
    const size_t row = row_bytes(desc, cap);
    char* v = b + grn_contact_offset(a, cap);
    // the rows in one read (a backend that keeps a grain's slots together passes its array
    // once), then with its own order each row through own into the caller's
    st = rows ? s->ops->read(s, desc, 0, v, rows * row) : grnOK;
    if (st != grnOK) break;
    for (int k = 0; uid && k < rows; k++) {
      memcpy(own, v + k * row, (size_t)n * per);
      // partners by the caller's index (the slots past a grain's count hold no grain)
      int* partner = (int*)own;
      for (int i = 0; a == grnCONTACT_pair && i < n; i++) {
        if (k < count[u][uid[i]]) partner[i] = uid[partner[i]];
      }
      to_caller_order(uid, n, per, own, v + k * row);
    }
    memset(v + rows * row, 0, (size_t)(slots - rows) * row);
    for (int k = 0; k < rows; k++) {
      uint32_t* w32 = (uint32_t*)(v + k * row);
      for (int i = 0; i < cap; i++) {
        if (k < count[u][i]) continue;
        for (size_t w = 0; w < words; w++) w32[(size_t)i * words + w] = 0;
      }
    }
  }
  free(own);
  free(uid);
  return st;
}

// 1 if the k partners of grain i are in increasing order (ordered) or all different (not)
static int partners_fit(const int* pair, int cap, int i, int k, int ordered) {
  int j = pair[GRN_STATE_SLOT(k, i, cap)];
  for (int m = ordered && k > 0 ? k - 1 : 0; m < k; m++) {
    int other = pair[GRN_STATE_SLOT(m, i, cap)];
    if (ordered ? j <= other : j == other) return 0;
  }
  return 1;
}

// contact-state array a of buffer b laid out for capacity cap
static const void* contact_array(const char* b, int a, int cap) {
  return b + grn_contact_offset(a, cap);
}

// grn_check_contacts, which also gives the slot rows the state uses (used_rows) in rows_used
static grnStatus check_contacts(const grnSolver* s, const void* buf, char* msg, int size,
                                int rows_used[2]) {
  if (!s || !buf) return fail(msg, size, "solver or buffer is null");
  const char* b = (const char*)buf;
  int cap = s->params.capacity, ordered = s->consts.ordered;
  const int* npair = (const int*)contact_array(b, grnCONTACT_npair, cap);
  const int* nshape = (const int*)contact_array(b, grnCONTACT_nshape, cap);
  const int* pair = (const int*)contact_array(b, grnCONTACT_pair, cap);
  for (int i = 0; i < cap; i++) {
    int np = i < s->n ? npair[i] : 0;
    int max_pair = i < s->n ? GRN_MAX_PAIRS : 0, max_shape = i < s->n ? GRN_MAX_SHAPE_CONTACTS : 0;
    if (npair[i] < 0 || npair[i] > max_pair || nshape[i] < 0 || nshape[i] > max_shape) {
      if (msg && size > 0) {
        snprintf(msg, size, "grain %d (of %d in use) lists %d grain and %d shape contacts, more "
                 "than its slots (%d, %d) or negative", i, s->n, npair[i], nshape[i], max_pair,
                 max_shape);
      }
      return grnERR_ARG;
    }
    for (int k = 0; k < np; k++) {
      int j = pair[GRN_STATE_SLOT(k, i, cap)];
      if (j >= 0 && j < s->n && partners_fit(pair, cap, i, k, ordered)) continue;
      if (msg && size > 0) {
        snprintf(msg, size, "grain %d, contact %d: partner %d %s", i, k, j,
                 j < 0 || j >= s->n ? "is not a grain in use" :
                 ordered ? "is out of increasing partner order (deterministic)" :
                           "is listed twice");
      }
      return grnERR_ARG;
    }
  }
  // every float of the used slots finite (the arrays are slot-major: slot k of grain i), read row
  // by row, in the order the bytes lie
  used_rows(npair, nshape, s->n, rows_used);
  for (int a = 0; a < grnNCONTACT_ARRAYS; a++) {
    const grnArrayDesc* desc = grn_contact_arrays + a;
    if (!desc->is_float) continue;
    const float* v = (const float*)contact_array(b, a, cap);
    const int u = slot_count(desc);
    const int* used = u == 0 ? npair : nshape;
    for (int k = 0; k < rows_used[u]; k++) {
      for (int i = 0; i < s->n; i++) {
        if (k >= used[i]) continue;
        for (int e = 0; e < desc->width; e++) {
          if (isfinite(v[desc->width * GRN_STATE_SLOT(k, i, cap) + e])) continue;
          if (msg && size > 0) {
            snprintf(msg, size, "grain %d, contact %d: %s is not finite", i, k, desc->name);
          }
          return grnERR_ARG;
        }
      }
    }
  }
  if (msg && size > 0) msg[0] = 0;
  return grnOK;
}

// grnOK when a contact state fits: counts within the slots, partners grains in use listed as
// partners_fit requires, impulses finite; else grnERR_ARG with the first thing wrong in msg
grnStatus grn_check_contacts(const grnSolver* s, const void* buf, char* msg, int size) {
  int rows_used[2];
  return check_contacts(s, buf, msg, size, rows_used);
}

// 1 when contact-state array a stays zero in the solver whatever state is set: the rolling and
// torsional springs of a law that holds them at zero (grn_pair_rot_unread), which it never
// stores, so that the state read back is what it would be after a substep
static int kept_zero(const grnSolver* s, int a) {
  return a == grnCONTACT_pair_rot && grn_pair_rot_unread(&s->consts);
}

// grn_set_contacts into a solver with its own order of the grains (uid, freed here): each count
// and slot row of the n grains in use put in that order in host memory, the partners renumbered,
// and an array's rows written in one call (a backend that keeps a grain's slots together passes
// its array once; the grains past n get zeros, never read: their counts stay zero)
static grnStatus set_contacts_in_order(grnSolver* s, const void* buf, const int rows_used[2],
                                       int* uid) {
  const int cap = s->params.capacity, n = s->n;
  const char* b = (const char*)buf;
  const int* count[2] = {(const int*)contact_array(b, grnCONTACT_npair, cap),
                         (const int*)contact_array(b, grnCONTACT_nshape, cap)};
  int* rank = (int*)malloc((size_t)n * sizeof(int));
  // room for the most rows an array uses, of the widest (pair_lin's)
  int most_rows = rows_used[0] > rows_used[1] ? rows_used[0] : rows_used[1];
  if (most_rows < 1) most_rows = 1;
  char* own = (char*)malloc(most_rows * grn_contact_array_bytes(grnCONTACT_pair_lin, cap) /
                            GRN_MAX_PAIRS);
  grnStatus st = rank && own ? grnOK : grnERR_MEMORY;
  for (int i = 0; st == grnOK && i < n; i++) rank[uid[i]] = i;
  for (int a = 0; a < grnNCONTACT_ARRAYS && st == grnOK; a++) {
    const grnArrayDesc* desc = grn_contact_arrays + a;
    if (kept_zero(s, a)) continue;
    const int slots = grn_unit_slots(desc->unit);
    const int rows = slots == 1 ? 1 : rows_used[slot_count(desc)];
    const size_t per = desc->size * desc->width, row = row_bytes(desc, cap);
    const char* v = (const char*)contact_array(b, a, cap);
    for (int k = 0; k < rows; k++) {
      char* r = own + k * row;
      to_solver_order(uid, n, per, v + k * row, r);
      memset(r + (size_t)n * per, 0, row - (size_t)n * per);
      int* partner = (int*)r;
      for (int i = 0; a == grnCONTACT_pair && i < n; i++) {
        if (k < count[0][uid[i]]) partner[i] = rank[partner[i]];
      }
    }
    st = rows ? s->ops->write(s, desc, 0, own, rows * row) : grnOK;
  }
  free(own);
  free(rank);
  free(uid);
  return st;
}

// the counts whole, and of each slot array the rows in use only: the slots past a grain's count
// are never read (the solver itself leaves there what earlier substeps put), and the state read
// back zeroes them (grn_get_contacts)
grnStatus grn_set_contacts(grnSolver* s, const void* buf) {
  int rows_used[2];
  if (check_contacts(s, buf, NULL, 0, rows_used) != grnOK) return grnERR_ARG;
  const int cap = s->params.capacity;
  int* uid;
  grnStatus st = read_order(s, &uid);
  if (st != grnOK) return st;
  if (uid) return set_contacts_in_order(s, buf, rows_used, uid);
  for (int a = 0; a < grnNCONTACT_ARRAYS; a++) {
    const grnArrayDesc* desc = grn_contact_arrays + a;
    if (kept_zero(s, a)) continue;
    const size_t bytes = grn_unit_slots(desc->unit) == 1 ? grn_contact_array_bytes(a, cap) :
        rows_used[slot_count(desc)] * row_bytes(desc, cap);
    st = bytes ? s->ops->write(s, desc, 0, contact_array(buf, a, cap), bytes) : grnOK;
    if (st != grnOK) return st;
  }
  return grnOK;
}

// copy count slots of width 4-byte numbers per grain for the first n grains, capacity a to b
static void copy_slots(const char* src, int a, char* dst, int b, int n, int count, int width) {
  for (int k = 0; k < count; k++) {
    memcpy(dst + 4 * width * GRN_STATE_SLOT(k, 0, b), src + 4 * width * GRN_STATE_SLOT(k, 0, a),
           4 * (size_t)width * n);
  }
}

grnStatus grn_convert_contacts(const void* src, int src_cap, void* dst, int dst_cap, int n) {
  if (!src || !dst || n < 0 || src_cap < n || dst_cap < n || dst_cap <= 0) return grnERR_ARG;
  const char* s = (const char*)src;
  char* d = (char*)dst;
  const int* npair = (const int*)contact_array(s, grnCONTACT_npair, src_cap);
  const int* nshape = (const int*)contact_array(s, grnCONTACT_nshape, src_cap);
  for (int i = 0; i < n; i++) {
    if (npair[i] < 0 || npair[i] > GRN_MAX_PAIRS) return grnERR_ARG;
    if (nshape[i] < 0 || nshape[i] > GRN_MAX_SHAPE_CONTACTS) return grnERR_ARG;
  }

  // every slot, used or not, moves from k src_cap + i to k dst_cap + i
  memset(d, 0, grn_contact_state_bytes(dst_cap));
  for (int a = 0; a < grnNCONTACT_ARRAYS; a++) {
    const grnArrayDesc* desc = grn_contact_arrays + a;
    int slots = grn_unit_slots(desc->unit);
    copy_slots(s + grn_contact_offset(a, src_cap), src_cap, d + grn_contact_offset(a, dst_cap),
               dst_cap, n, slots, desc->width);
  }

  // each grain's grain contacts into partner order by insertion, every pair-slot array along
  int* pair = (int*)(d + grn_contact_offset(grnCONTACT_pair, dst_cap));
  for (int i = 0; i < n; i++) {
    for (int k = 1; k < npair[i]; k++) {
      int m = k;
      for (; m > 0 && pair[GRN_STATE_SLOT(m - 1, i, dst_cap)] >
                      pair[GRN_STATE_SLOT(m, i, dst_cap)];
           m--) {
        for (int a = 0; a < grnNCONTACT_ARRAYS; a++) {
          const grnArrayDesc* desc = grn_contact_arrays + a;
          if (desc->unit != grnUNIT_PAIR_SLOT) continue;
          char* v = d + grn_contact_offset(a, dst_cap);
          size_t w = desc->size * desc->width;
          char* x = v + w * GRN_STATE_SLOT(m, i, dst_cap);
          char* y = v + w * GRN_STATE_SLOT(m - 1, i, dst_cap);
          for (size_t b = 0; b < w; b++) {
            char t = x[b];
            x[b] = y[b];
            y[b] = t;
          }
        }
      }
    }
  }
  return grnOK;
}

grnStatus grn_add_grid(grnSolver* s, const grnGrid* g, int* id) {
  if (!s || !g || !id || !g->values || g->nx < 2 || g->ny < 2 || g->nz < 2 || !(g->cell > 0)) {
    return grnERR_ARG;
  }
  size_t count = (size_t)g->nx * g->ny * g->nz;
  if (s->ngrids == s->grid_cap) {
    int cap = s->grid_cap ? 2 * s->grid_cap : 8;
    grnGridView* grids = (grnGridView*)realloc(s->grids, cap * sizeof(grnGridView));
    if (!grids) return grnERR_MEMORY;
    s->grids = grids;
    s->grid_cap = cap;
  }
  float* values = (float*)malloc(count * sizeof(float));
  if (!values) return grnERR_MEMORY;
  memcpy(values, g->values, count * sizeof(float));
  grnGridView* v = s->grids + s->ngrids;
  v->nx = g->nx;
  v->ny = g->ny;
  v->nz = g->nz;
  memcpy(v->origin, g->origin, sizeof(v->origin));
  v->cell = g->cell;
  v->values = values;
  grnStatus st = s->ops->add_grid(s, s->ngrids);
  if (st != grnOK) {
    free(values);
    return st;
  }
  *id = s->ngrids++;
  return grnOK;
}

int grn_box_planes(const float lo[3], const float hi[3], int lid, float friction, grnShape* out) {
  // each face's frame, rows x, y, z axis; z is the inward normal (a plane is solid below z = 0)
  static const float frames[6][9] = {
    {1, 0, 0, 0, 1, 0, 0, 0, 1},     // floor, normal +z
    {0, 0, -1, 0, 1, 0, 1, 0, 0},    // wall at lo x, normal +x
    {0, 0, 1, 0, 1, 0, -1, 0, 0},    // wall at hi x, normal -x
    {1, 0, 0, 0, 0, -1, 0, 1, 0},    // wall at lo y, normal +y
    {1, 0, 0, 0, 0, 1, 0, -1, 0},    // wall at hi y, normal -y
    {1, 0, 0, 0, -1, 0, 0, 0, -1},   // lid, normal -z
  };
  int n = lid ? 6 : 5;
  for (int f = 0; f < n; f++) {
    grnShape* s = out + f;
    memset(s, 0, sizeof(*s));
    s->type = grnSHAPE_PLANE;
    // mat maps frame to world: its columns are the frame axes
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) s->mat[3 * i + j] = frames[f][3 * j + i];
    }
    // through the face's side of the box, centred on it
    for (int i = 0; i < 3; i++) {
      float normal = s->mat[3 * i + 2];
      s->pos[i] = normal > 0 ? lo[i] : normal < 0 ? hi[i] : 0.5f * (lo[i] + hi[i]);
      s->com[i] = s->pos[i];
    }
    s->friction = friction;
    s->spin_friction = -1;
    s->roll_friction = -1;
    s->body = -1;
    s->grid = -1;
  }
  return n;
}

grnStatus grn_set_shapes(grnSolver* s, int n, const grnShape* shapes) {
  if (!s || n < 0 || n > s->params.max_shapes || (n > 0 && !shapes)) return grnERR_ARG;
  for (int i = 0; i < n; i++) {
    const grnShape* sh = shapes + i;
    if (sh->type < 0 || sh->type >= grnNSHAPE) return grnERR_ARG;
    if (sh->type == grnSHAPE_GRID && (sh->grid < 0 || sh->grid >= s->ngrids)) return grnERR_ARG;
    if (sh->body >= s->params.max_bodies) return grnERR_ARG;
  }
  if (n) memcpy(s->shapes, shapes, n * sizeof(grnShape));
  s->nshapes = n;
  return grnOK;
}

grnStatus grn_advance(grnSolver* s, int nsub) {
  if (!s || nsub < 0) return grnERR_ARG;
  int nb = s->params.max_bodies;
  memset(s->wrench_sum, 0, 6 * (nb > 0 ? nb : 1) * sizeof(double));
  grn_body_motion_start(s);
  for (int k = 0; k < nsub; k++) {
    // shapes at this substep's pose
    for (int i = 0; i < s->nshapes; i++) grn_body_motion_shape(s, i, k, s->shapes_now + i);
    grnStatus st = s->ops->substep(s);
    if (st != grnOK) return st;
    // the bodies' answer to this substep's impulses
    grn_body_motion_substep(s);
  }
  for (int i = 0; i < 6 * nb; i++) s->wrench[i] = nsub ? s->wrench_sum[i] / nsub : 0;
  return grnOK;
}

grnStatus grn_get_wrenches(const grnSolver* s, double* wrench) {
  if (!s || (!wrench && s->params.max_bodies)) return grnERR_ARG;
  if (s->params.max_bodies) memcpy(wrench, s->wrench, 6 * s->params.max_bodies * sizeof(double));
  return grnOK;
}

grnStatus grn_list_pairs(const grnData* d, const grnConsts* consts, int* pairs, int max,
                         int* npairs) {
  enum { kMaxNeighbors = 4096 };
  grnConsts ordered = *consts;  // in order of j whatever the solver's mode
  const grnConsts* k = &ordered;
  ordered.ordered = 1;
  int* nb = (int*)malloc(kMaxNeighbors * sizeof(int));
  if (!nb) return grnERR_MEMORY;
  int count = 0;
  grnStatus st = grnOK;
  // in the caller's order (grn_uid), which the ordered walk sorts the neighbours by
  for (int u = 0; u < d->n && st == grnOK; u++) {
    int found = grn_grain_neighbors(d, k, 0, grn_user_grain(d, u), nb, 1, kMaxNeighbors);
    if (found > kMaxNeighbors) st = grnERR_MEMORY;
    for (int m = 0; m < found && m < kMaxNeighbors; m++) {
      int v = grn_uid(d, nb[m]);
      if (v <= u) continue;
      if (count < max) {
        pairs[2 * count] = u;
        pairs[2 * count + 1] = v;
      }
      count++;
    }
  }
  free(nb);
  *npairs = count;
  return st;
}

grnStatus grn_find_pairs(grnSolver* s, int* pairs, int max, int* npairs) {
  if (!s || !npairs || max < 0 || (max > 0 && !pairs)) return grnERR_ARG;
  return s->ops->find_pairs(s, pairs, max, npairs);
}

size_t grn_memory_bytes(const grnSolver* s) {
  if (!s) return 0;
  size_t host = sizeof(*s) + (2 * sizeof(grnShape) * s->params.max_shapes) +
                12 * sizeof(double) * s->params.max_bodies;
  for (int i = 0; i < s->ngrids; i++) {
    host += sizeof(float) * (size_t)s->grids[i].nx * s->grids[i].ny * s->grids[i].nz;
  }
  return host + s->ops->memory_bytes(s);
}
