// the mjgranular.terrain instance: sizes its plugin_state from the config, owns the solver cache,
// writes the initial bed at reset, and advances the grains once per mj_step with the coupled
// bodies moving through them; two-way, the bodies answer the grains within the step.
#include "terrain.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bed.h"
#include "bedfile.h"
#include "body_dynamics.h"
#include "boundaries.h"
#include "input_limits.h"
#include "settle.h"
#include "state.h"
#include "state_hash.h"
#include "step_matrix.h"
#include "transfer.h"

//---------------------------------- helpers -------------------------------------------------------

// this instance's cache and state in d
static mjgTerrain* terrain_of(const mjData* d, int instance) {
  return (mjgTerrain*)d->plugin_data[instance];
}

static mjtNum* state_of(const mjModel* m, mjData* d, int instance) {
  return d->plugin_state + m->plugin_stateadr[instance];
}

// gravity the grains feel: the model's, unless gravity is disabled
static void model_gravity(const mjModel* m, float g[3]) {
  int off = m->opt.disableflags & mjDSBL_GRAVITY;
  for (int i = 0; i < 3; i++) g[i] = off ? 0.0f : (float)m->opt.gravity[i];
}

// make sure the solver matches the model's current timestep and gravity; substeps to *nsub. On
// failure why (without the plugin's name) says what is wrong: a step beyond the work limits, the
// parameters the solver refuses, or the status of its creation
static grnStatus ensure_solver(mjgTerrain* t, const mjModel* m, int instance, int* nsub,
                               char* why, int size) {
  if (!(m->opt.timestep > 0)) {
    snprintf(why, size, "option timestep %g is not positive", m->opt.timestep);
    return grnERR_ARG;
  }
  if (mjg_limits_step(m, instance, &t->cfg, why, size)) return grnERR_ARG;
  int ns = (int)mjg_step_count(m->opt.timestep, t->cfg.timestep);
  double dt = m->opt.timestep / ns;
  float g[3];
  model_gravity(m, g);
  *nsub = ns;
  if (t->solver && t->solver_dt == dt && !memcmp(g, t->solver_gravity, sizeof(g))) return grnOK;

  // (re)create: the solver's substep and gravity are fixed at creation
  grnParams params;
  mjtNum gravity[3] = {g[0], g[1], g[2]};
  mjg_config_params(&t->cfg, dt, gravity, t->nbody, t->max_shapes, &params);
  if (t->clumps) {
    // each sphere of a clump is a grain of the solver
    params.max_clumps = t->cap;
    params.capacity = t->cap * t->cfg.spheres;
    params.radius = t->clumps->radius;
    params.cem_floats = (int)t->clumps->cem_floats;
  }
  char refused[256];
  if (grn_check_params(&params, refused, sizeof(refused))) {
    snprintf(why, size, "the granular solver refuses its parameters: %s", refused);
    return grnERR_ARG;
  }
  grnSolver* solver = NULL;
  grnStatus st = grn_create(&params, t->cfg.backend, &solver);
  if (st == grnOK) st = mjg_mesh_grids_add(&t->meshes, solver);
  if (st == grnOK && t->clumps && t->clumps->cem) st = grn_set_cem_fields(solver, t->clumps->cem);
  if (st != grnOK) {
    snprintf(why, size, "could not create the granular solver: %s", grn_status_message(st));
    grn_destroy(solver);
    return st;
  }
  grn_destroy(t->solver);
  t->solver = solver;
  t->downloaded = 0;
  t->solver_dt = dt;
  memcpy(t->solver_gravity, g, sizeof(g));
  return grnOK;
}

// the backend that `auto` chose, said once per process on stderr; a fall back to the cpu although
// a device was usable, once as a warning
static void report_backend(const mjgTerrain* t) {
  static atomic_int reported = 0, fell_back = 0;
  const char* note = grn_backend_note(t->solver);
  if (note[0] && !atomic_exchange(&fell_back, 1)) {
    mju_warning(MJG_PLUGIN_NAME ": config key 'backend' = 'auto': %s", note);
  }
  if (t->cfg.backend != grnBACKEND_AUTO || atomic_exchange(&reported, 1)) return;
  grnBackend used = grn_backend(t->solver);
  fprintf(stderr, MJG_PLUGIN_NAME ": backend auto uses %s%s%s\n", grn_backend_name(used),
          used == grnBACKEND_CPU ? "; cuda: " : ", ", grn_cuda_info());
}

static void terrain_free(mjgTerrain* t) {
  if (!t) return;
  grn_destroy(t->solver);
  mjg_mesh_grids_free(&t->meshes);
  mjg_bodies_free(&t->bodies);
  mjg_settle_release(t->settled);
  mjg_bed_free(&t->own);
  mjg_grain_types_free(&t->types);
  mjg_stage_free(&t->stage);
  free(t->shapes);
  free(t->mobility);
  free(t->accel);
  free(t->impint);
  free(t->step_matrix);
  free(t->qacc);
  free(t);
}

// refuse the instance's key with its value as given ('' when not given); returns -1
static int refuse_key(const mjModel* m, int instance, const char* key, const char* why, char* msg,
                      int size) {
  const char* value = mjg_config_value(m, instance, key);
  return mjg_config_refuse(msg, size, key, value ? value : "", why);
}

// the initial bed (after the solver and the static shapes): the fill lattice or the bed file,
// checked by loading it into the solver through this instance's plugin_state (which the reset
// after init overwrites), then settled when the settle key asks; -1 with a message naming the key
static int make_bed(mjgTerrain* t, const mjModel* m, mjData* d, int instance, char* msg,
                    int size) {
  char why[MJG_MSG_SIZE - 128];
  const char* path = mjg_config_value(m, instance, "bed_file");
  if (path) {
    // a mesh grain's radius is its bound, which its spheres may set
    mjgBedKind kind = {t->cfg.radius, t->clumps ? t->clumps->bound : t->cfg.reach, t->cfg.spheres,
                       t->clumps ? t->clumps->ntype : 1, mjg_grain_types_hash(t->clumps)};
    if (mjg_bedfile_read(path, t->cap, &kind, t->cfg.model, &t->own, why, sizeof(why))) {
      return refuse_key(m, instance, "bed_file", why, msg, size);
    }
  } else {
    if (mjg_bed_alloc(&t->own, t->cap, t->cfg.spheres, 0, t->cfg.radius)) {
      return refuse_key(m, instance, "count", "out of memory for the initial bed", msg, size);
    }
    t->own.n = mjg_bed_make(&t->cfg, t->clumps, &t->own);
  }
  t->bed = &t->own;
  mjtNum* state = state_of(m, d, instance);
  mjg_bed_write(t->bed, t->nbody, state);
  char refused[MJG_MSG_SIZE - 256];
  grnStatus st = mjg_transfer_upload(t->solver, t->clumps, state, t->own.n, &t->stage, refused,
                                     sizeof(refused));
  if (st != grnOK) {
    snprintf(why, sizeof(why), "the solver refuses the bed: %s",
             st == grnERR_ARG ? refused : grn_status_message(st));
    return refuse_key(m, instance, path ? "bed_file" : "fill", why, msg, size);
  }
  if (!(t->cfg.settle > 0)) return 0;

  // settled once per process for this input: the same steps advance would take without bodies
  mjgSettleInput in;
  in.solver = t->solver;
  in.types = t->clumps;
  // counts within int: mjg_config_read held them to the settling limit
  in.nsub = (int)mjg_step_count(m->opt.timestep, t->cfg.timestep);
  in.nstep = (int)mjg_step_count(t->cfg.settle, m->opt.timestep);
  in.shapes = t->shapes;
  in.nshape = t->nstatic;
  in.grids = &t->meshes;
  in.initial = &t->own;
  t->settled = mjg_settle_acquire(&in, why, sizeof(why));
  if (!t->settled) return refuse_key(m, instance, "settle", why, msg, size);
  t->bed = t->settled;
  mjg_bed_free(&t->own);  // the settled bed is what every reset writes now
  return 0;
}

//---------------------------------- callbacks -----------------------------------------------------

int mjg_terrain_nstate(const mjModel* m, int instance) {
  // a bad config is refused by init (called when the model compiles); size it empty until then
  mjgConfig cfg;
  if (mjg_config_read(m, instance, &cfg, NULL, 0)) return (int)mjg_state_size(0, 1, m->nbody);
  return (int)mjg_state_size(cfg.count, cfg.spheres, m->nbody);
}

int mjg_terrain_init(const mjModel* m, mjData* d, int instance) {
  char msg[MJG_MSG_SIZE];

  // config: every bad value is refused here, naming its key
  mjgConfig cfg;
  if (mjg_config_read(m, instance, &cfg, msg, sizeof(msg))) {
    mju_warning("%s", msg);
    return -1;
  }
  if (mjg_config_warning(&cfg, msg, sizeof(msg))) mju_warning("%s", msg);
  size_t state_size = mjg_state_size(cfg.count, cfg.spheres, m->nbody);
  if ((size_t)m->plugin_statenum[instance] != state_size) {
    mju_warning(MJG_PLUGIN_NAME ": plugin_state has %d numbers, the config needs %zu",
                m->plugin_statenum[instance], state_size);
    return -1;
  }

  // caches
  mjgTerrain* t = (mjgTerrain*)calloc(1, sizeof(mjgTerrain));
  if (!t) {
    mju_warning(MJG_PLUGIN_NAME ": out of memory");
    return -1;
  }
  t->cfg = cfg;
  t->cap = cfg.count;
  t->nbody = m->nbody;
  t->max_shapes = m->ngeom + 6;
  t->shapes = (grnShape*)calloc(t->max_shapes, sizeof(grnShape));
  int no_stage = mjg_stage_alloc(&t->stage, t->cap, t->nbody);
  t->mobility = (float*)calloc(36 * (size_t)t->nbody, sizeof(float));
  t->accel = (float*)calloc(6 * (size_t)t->nbody, sizeof(float));
  t->impint = (double*)calloc(6 * (size_t)t->nbody, sizeof(double));
  t->step_matrix = (mjtNum*)calloc(mjg_step_matrix_size(m) + 1, sizeof(mjtNum));
  t->qacc = (mjtNum*)calloc((size_t)m->nv + 1, sizeof(mjtNum));
  if (!t->shapes || no_stage || !t->mobility || !t->accel ||
      !t->impint || !t->step_matrix || !t->qacc) {
    terrain_free(t);
    mju_warning(MJG_PLUGIN_NAME ": out of memory for %d grains", cfg.count);
    return -1;
  }

  // coupled bodies, then signed distance grids for the meshes of their geoms and the world's
  int* coupled = (int*)calloc(m->nbody, sizeof(int));
  int* need = (int*)calloc(m->nmesh ? m->nmesh : 1, sizeof(int));
  if (!coupled || !need) {
    free(coupled);
    free(need);
    terrain_free(t);
    mju_warning(MJG_PLUGIN_NAME ": out of memory");
    return -1;
  }
  int fail = mjg_bodies_select(m, instance, coupled, msg, sizeof(msg));
  if (!fail) {
    mjg_bodies_meshes(m, coupled, need);
    mjg_boundaries_meshes(m, need);
    fail = mjg_mesh_grids_build(m, &t->cfg, need, &t->meshes, msg, sizeof(msg));
  }
  if (!fail && mjg_bodies_init(m, &t->cfg, coupled, &t->meshes, &t->bodies)) {
    snprintf(msg, sizeof(msg), MJG_PLUGIN_NAME ": out of memory for the coupled bodies");
    fail = 1;
  }
  free(coupled);
  free(need);
  if (!fail && mjg_config_meshes(&t->cfg)) {
    fail = mjg_grain_types_make(m, instance, &t->cfg, &t->types, msg, sizeof(msg));
    if (!fail) mjg_grain_types_report(m, &t->types);
    t->clumps = &t->types;
  }
  if (fail) {
    mju_warning("%s", msg);
    terrain_free(t);
    return -1;
  }

  // static boundaries: world geoms and the domain
  int skipped = 0;
  t->nstatic =
      mjg_boundaries_static(m, &t->cfg, &t->meshes, t->shapes, t->max_shapes, &skipped);
  if (skipped) {
    mju_warning(MJG_PLUGIN_NAME ": %d world geom(s) of type hfield or sdf are not granular "
                "boundaries; grains pass through them", skipped);
  }
  if (t->bodies.nskipped) {
    mju_warning(MJG_PLUGIN_NAME ": %d geom(s) of coupled bodies are of type hfield or sdf, which "
                "the grains cannot feel; grains pass through them", t->bodies.nskipped);
  }

  // the solver; an unusable backend is a config error
  int nsub;
  grnStatus st = ensure_solver(t, m, instance, &nsub, msg, sizeof(msg));
  if (st != grnOK) {
    if (st == grnERR_NO_DEVICE && grn_cuda_usable() == grnOK) {
      // cuda works, but not on the device asked for
      mju_warning(MJG_PLUGIN_NAME ": config key 'device' = '%d': %s", t->cfg.device,
                  grn_status_message(st));
    } else if (st == grnERR_UNAVAILABLE || st == grnERR_NO_DEVICE || st == grnERR_DEVICE) {
      mju_warning(MJG_PLUGIN_NAME ": config key 'backend' = '%s': %s (%s)",
                  grn_backend_name(t->cfg.backend), grn_status_message(st), grn_cuda_info());
    } else {
      mju_warning(MJG_PLUGIN_NAME ": %s", msg);
    }
    terrain_free(t);
    return -1;
  }

  // the initial bed, which every reset writes
  if (make_bed(t, m, d, instance, msg, sizeof(msg))) {
    mju_warning("%s", msg);
    terrain_free(t);
    return -1;
  }

  report_backend(t);
  d->plugin_data[instance] = (uintptr_t)t;
  return 0;
}

void mjg_terrain_destroy(mjData* d, int instance) {
  terrain_free(terrain_of(d, instance));
  d->plugin_data[instance] = 0;
}

void mjg_terrain_reset(const mjModel* m, mjtNum* state, void* data, int instance) {
  mjgTerrain* t = (mjgTerrain*)data;
  if (!t) return;
  t->failing = 0;
  mjg_bed_write(t->bed, t->nbody, state);
}

// passive forces: none; the grains' impulse reaches the bodies within the step in advance
void mjg_terrain_compute(const mjModel* m, mjData* d, int instance, int capability_bit) {}

// warn about a failed advance, once per run of consecutive failures
static void advance_failed(mjgTerrain* t, double time, const char* why, grnStatus st) {
  if (t->failing) return;
  t->failing = 1;
  mju_warning(MJG_PLUGIN_NAME ": %s%s%s at time %g; grains not advanced, state left as is", why,
              st != grnOK ? ": " : "", st != grnOK ? grn_status_message(st) : "", time);
}

void mjg_terrain_advance(const mjModel* m, mjData* d, int instance) {
  mjgTerrain* t = terrain_of(d, instance);
  if (!t) return;
  mjtNum* state = state_of(m, d, instance);

  // a state of this layout, and its grain count
  char why[MJG_MSG_SIZE];
  if (state[MJG_STATE_LAYOUT] != MJG_STATE_VERSION) {
    snprintf(why, sizeof(why), "plugin_state has layout version %g, this plugin reads version %d "
             "(a state saved by another build is not used)", state[MJG_STATE_LAYOUT],
             MJG_STATE_VERSION);
    advance_failed(t, d->time, why, grnOK);
    return;
  }
  mjtNum count = state[MJG_STATE_COUNT];
  if (!(count >= 0 && count <= t->cap && count == floor(count))) {
    advance_failed(t, d->time, "grain count in plugin_state is out of range", grnOK);
    return;
  }
  int n = (int)count;

  // solver for the current timestep and gravity
  int nsub;
  grnStatus st = ensure_solver(t, m, instance, &nsub, why, sizeof(why));
  if (st != grnOK) {
    advance_failed(t, d->time, why, grnOK);
    return;
  }

  // grains from plugin_state into the solver: on a gpu, skipped when the state is bit for bit
  // the one this instance downloaded last (its hash), so plain stepping pays no upload; a state
  // written, restored or copied in from anywhere else differs and is uploaded
  int on_gpu = grn_backend(t->solver) == grnBACKEND_CUDA;
  size_t size = mjg_state_size(t->cap, t->cfg.spheres, t->nbody);
  int fresh = on_gpu && t->downloaded && n == grn_count(t->solver) &&
              mjg_state_hash(state, size) == t->download_hash;
  t->downloaded = 0;  // until this advance's download succeeds
  if (!fresh) {
    st = mjg_transfer_upload(t->solver, t->clumps, state, n, &t->stage, why, sizeof(why));
    if (st == grnERR_NONFINITE) {
      advance_failed(t, d->time, "plugin_state holds a non-finite grain", grnOK);
      return;
    }
    if (st == grnERR_ARG) {
      advance_failed(t, d->time, why, grnOK);
      return;
    }
  }

  // static boundaries, then the coupled bodies' geoms in their start-of-step pose, moving at the
  // bodies' end-of-step velocity (see bodies.c); two-way, the bodies instead start at their
  // start-of-step velocity and gain this step's acceleration and the grains' impulses in the
  // substeps (an implicit solve, see body_dynamics.h); one-way, they stay kinematic
  if (st == grnOK) {
    int ndyn = mjg_bodies_shapes(m, d, &t->bodies, t->shapes + t->nstatic,
                                 t->max_shapes - t->nstatic);
    if (t->cfg.two_way) {
      mjg_body_dynamics(m, d, t->bodies.coupled, t->step_matrix, t->qacc, t->mobility, t->accel);
      mj_markStack(d);
      mjtNum* qvel0 = mj_stackAllocNum(d, m->nv);
      mjg_body_start_velocity(m, d, t->qacc, qvel0);
      mjg_bodies_velocity(m, d, &t->bodies, qvel0, t->shapes + t->nstatic, ndyn);
      mj_freeStack(d);
      st = grn_set_body_dynamics(t->solver, t->mobility, t->accel);
    }
    if (st == grnOK) st = grn_set_shapes(t->solver, t->nstatic + ndyn, t->shapes);
  }

  // substeps over this mj_step, then the grains, the bodies' average wrenches and the contacts
  // back into plugin_state
  if (st == grnOK) st = grn_advance(t->solver, nsub);
  if (st == grnOK) {
    st = mjg_transfer_download(t->solver, t->clumps, state, &t->stage);
  }
  if (st == grnOK && t->cfg.two_way) st = grn_get_impulse_integrals(t->solver, t->impint);
  if (st != grnOK) {
    advance_failed(t, d->time, "granular solver", st);
    return;
  }
  if (on_gpu) {
    t->download_hash = mjg_state_hash(state, size);
    t->downloaded = 1;
  }

  // two-way: the bodies take the grains' impulse and the motion it gave them
  if (t->cfg.two_way) {
    mjg_body_feedback(m, d, t->bodies.coupled, t->step_matrix, t->qacc, t->stage.wrench,
                      t->impint, nsub);
  }
  t->failing = 0;
}
