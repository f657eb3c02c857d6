// the work of a MuJoCo step and of settling, counted from the config and the model's option
// timestep and held to the limits of input_limits.h.
#include "input_limits.h"

#include <math.h>
#include <stdio.h>

double mjg_step_count(double span, double step) {
  if (!(span > 0) || !(step > 0)) return 1;
  // a tiny tolerance so that 2e-3 / 5e-4 gives 4, not 5
  double n = ceil(span / step * (1 - 1e-9));
  return n < 1 ? 1 : n;
}

// solver passes of one substep: its iterations, or one for dem, which does not iterate
static double passes_per_substep(const mjgConfig* cfg) {
  return cfg->model == grnMODEL_DEM ? 1 : cfg->iterations;
}

// "config key '<key>' = '<value>': <how>" into why, the value as given, else `used`; returns -1
static int refuse(const mjModel* m, int instance, const char* key, double used, const char* how,
                  char* why, int size) {
  char value[32];
  const char* given = mjg_config_value(m, instance, key);
  if (!given) snprintf(value, sizeof(value), "%g", used);
  snprintf(why, size, "config key '%s' = '%s': %s", key, given ? given : value, how);
  return -1;
}

int mjg_limits_step(const mjModel* m, int instance, const mjgConfig* cfg, char* why, int size) {
  double step = m->opt.timestep, nsub = mjg_step_count(step, cfg->timestep);
  char how[256];
  if (nsub > MJG_MAX_SUBSTEPS) {
    snprintf(how, sizeof(how), "a substep of %g s makes %.6g substeps per MuJoCo step of %g s "
             "(option timestep), more than the limit %d; raise it, or lower option timestep",
             cfg->timestep, nsub, step, MJG_MAX_SUBSTEPS);
    return refuse(m, instance, "timestep", cfg->timestep, how, why, size);
  }
  double passes = nsub * passes_per_substep(cfg);
  if (passes > MJG_MAX_STEP_PASSES) {
    snprintf(how, sizeof(how), "%d iterations in each of %.0f substeps per MuJoCo step (key "
             "'timestep' %g s, option timestep %g s) make %.6g solver passes per step, more than "
             "the limit %d", cfg->iterations, nsub, cfg->timestep, step, passes,
             MJG_MAX_STEP_PASSES);
    return refuse(m, instance, "iterations", cfg->iterations, how, why, size);
  }
  return 0;
}

int mjg_limits_settle(const mjModel* m, int instance, const mjgConfig* cfg, char* why, int size) {
  if (!(cfg->settle > 0)) return 0;
  double step = m->opt.timestep;
  double nstep = mjg_step_count(cfg->settle, step), nsub = mjg_step_count(step, cfg->timestep);
  double passes = nstep * nsub * passes_per_substep(cfg);
  if (passes <= MJG_MAX_SETTLE_PASSES) return 0;
  char how[256];
  snprintf(how, sizeof(how), "settling takes %.0f MuJoCo steps of %.0f substeps of %g solver "
           "passes, %.6g passes, more than the limit %d; a bed comes to rest in a second or two",
           nstep, nsub, passes_per_substep(cfg), passes, MJG_MAX_SETTLE_PASSES);
  return refuse(m, instance, "settle", cfg->settle, how, why, size);
}
