// the few functions libmjgranular.so exports by name, besides registering its plugins: for the
// Python helpers (scripts/mjgranular/, through ctypes) and for tests.
#ifndef MJGRANULAR_PLUGIN_EXPORT_H_
#define MJGRANULAR_PLUGIN_EXPORT_H_

#include <mujoco/mujoco.h>

#define MJG_EXPORT __attribute__((visibility("default")))

// Number of initial beds settled (the settle key) in this process; a bed found in the settle
// cache does not count.
MJG_EXPORT long long mjgranular_settle_runs(void);

// Number of mesh signed distance grids built in this process; a grid found in the cache of
// grids does not count.
MJG_EXPORT long long mjgranular_grid_builds(void);

// Grain radius [m] of mjgranular.terrain instance `instance` of m (its config as init reads it;
// the largest with mixed sizes); -1 when the instance is not a terrain or its config is refused.
MJG_EXPORT double mjgranular_radius(const mjModel* m, int instance);

// The longest granular substep [s] of terrain instance `instance` of m: key timestep, or with
// model dem and no timestep given, GRN_DEM_DT_FRACTION of the contact time scale of the smallest
// grains; each mj_step takes the fewest equal substeps no longer than it. -1 as
// mjgranular_radius.
MJG_EXPORT double mjgranular_timestep(const mjModel* m, int instance);

// Where part `name` of instance `instance`'s plugin_state block lies (state.h): its offset from
// the block's start and its length, in mjtNums. Names: "count", "version", "model", "positions",
// "velocities", "angular_velocities", "orientations", "radii", "types", "wrenches", "contacts";
// also "grain_capacity" (offset 0, length: the capacity) and "contact_capacity" (offset 0,
// length: the grains the contact state is laid out for, the capacity times the most spheres in
// one grain). 0 on success, -1 for an unknown name or an
// instance that is not a valid terrain.
MJG_EXPORT int mjgranular_state_part(const mjModel* m, int instance, const char* name,
                                     long long* offset, long long* length);

// Grains of terrain instance `instance` of m that the fill lattice puts into the box fill (lo[3],
// hi[3]; NULL: key fill's) at its config's spacing and grain size (mesh grains: the largest's
// bounding radius about its centre of mass, known once the meshes are compiled): the `count`
// such a bed needs. -1 when the instance is not a valid terrain or there is no box.
MJG_EXPORT double mjgranular_fill_count(const mjModel* m, int instance, const double* fill);

// The grain types of terrain instance `instance` of m in d (its plugin_data): their count (1 for
// spheres) and fingerprint (mjg_grain_types_hash: 0 for spheres), as a bed file records them, and
// when mass is not NULL each type's mass [kg] into mass (room for *ntype: ask without it first;
// spheres of mixed radii: the largest's). 0 on success, -1 for an instance that is not a terrain
// or has no data.
MJG_EXPORT int mjgranular_grain_types(const mjModel* m, const mjData* d, int instance, int* ntype,
                                      unsigned long long* hash, double* mass);

// The layout version of plugin_state blocks this library writes.
MJG_EXPORT int mjgranular_state_version(void);

// Contact-state array `index` (0, 1, ... in saved order) for capacity cap: its name, byte offset
// in the contact state, slots per grain, 4-byte numbers per slot and whether they are float32 (else
// int32). -1 when index is past the last array.
MJG_EXPORT int mjgranular_contact_array(int index, int cap, const char** name,
                                        long long* offset, int* slots, int* width,
                                        int* is_float);

#endif  // MJGRANULAR_PLUGIN_EXPORT_H_
