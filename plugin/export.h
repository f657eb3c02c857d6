// the few functions libmjgranular.so exports by name, besides registering its plugins: for the
// Python helpers (scripts/mjgranular.py, through ctypes) and for tests.
#ifndef MJGRANULAR_PLUGIN_EXPORT_H_
#define MJGRANULAR_PLUGIN_EXPORT_H_

#include <mujoco/mujoco.h>

#define MJG_EXPORT __attribute__((visibility("default")))

// Number of initial beds settled (the settle key) in this process; a bed found in the settle
// cache does not count.
MJG_EXPORT long long mjgranular_settle_runs(void);

// Grain radius [m] of mjgranular.terrain instance `instance` of m (its config as init reads it);
// -1 when the instance is not a terrain or its config is refused.
MJG_EXPORT double mjgranular_radius(const mjModel* m, int instance);

#endif  // MJGRANULAR_PLUGIN_EXPORT_H_
