// functions exported by name (see export.h).
#include "export.h"

#include <string.h>

#include "config.h"
#include "geoms.h"
#include "grn_solver.h"  // the contact-state arrays
#include "settle.h"
#include "state.h"

long long mjgranular_settle_runs(void) { return mjg_settle_runs(); }

long long mjgranular_grid_builds(void) { return mjg_mesh_grid_builds(); }

// the config of terrain instance `instance` of m as init reads it; 0, or -1 when it is none
static int terrain_config(const mjModel* m, int instance, mjgConfig* cfg) {
  if (!m || instance < 0 || instance >= m->nplugin) return -1;
  const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[instance]);
  if (!plugin || strcmp(plugin->name, MJG_PLUGIN_NAME)) return -1;
  return mjg_config_read(m, instance, cfg, NULL, 0) ? -1 : 0;
}

double mjgranular_radius(const mjModel* m, int instance) {
  mjgConfig cfg;
  return terrain_config(m, instance, &cfg) ? -1 : cfg.radius;
}

double mjgranular_timestep(const mjModel* m, int instance) {
  mjgConfig cfg;
  return terrain_config(m, instance, &cfg) ? -1 : cfg.timestep;
}

int mjgranular_state_part(const mjModel* m, int instance, const char* name, long long* offset,
                          long long* length) {
  mjgConfig cfg;
  if (!name || !offset || !length || terrain_config(m, instance, &cfg)) return -1;
  int cap = cfg.count, nbody = m->nbody;
  long long g = cap;
  struct { const char* name; long long at, length; } parts[] = {
    {"count", MJG_STATE_COUNT, 1},
    {"version", MJG_STATE_LAYOUT, 1},
    {"model", MJG_STATE_MODEL, 1},
    {"positions", (long long)mjg_state_offset(mjgSTATE_POS, cap, nbody), 3 * g},
    {"velocities", (long long)mjg_state_offset(mjgSTATE_VEL, cap, nbody), 3 * g},
    {"angular_velocities", (long long)mjg_state_offset(mjgSTATE_ANGVEL, cap, nbody), 3 * g},
    {"orientations", (long long)mjg_state_offset(mjgSTATE_ORIENT, cap, nbody), 4 * g},
    {"radii", (long long)mjg_state_offset(mjgSTATE_RADIUS, cap, nbody), g},
    {"types", (long long)mjg_state_offset(mjgSTATE_TYPE, cap, nbody), g},
    {"wrenches", (long long)mjg_state_offset(mjgSTATE_WRENCH, cap, nbody), 6 * (long long)nbody},
    {"contacts", (long long)mjg_state_offset(mjgSTATE_CONTACTS, cap, nbody),
     mjg_state_contact_size(cap, cfg.spheres)},
    {"grain_capacity", 0, g},
    {"contact_capacity", 0, g * cfg.spheres},
  };
  for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
    if (strcmp(parts[i].name, name)) continue;
    *offset = parts[i].at;
    *length = parts[i].length;
    return 0;
  }
  return -1;
}

int mjgranular_state_version(void) { return MJG_STATE_VERSION; }

int mjgranular_contact_array(int index, int cap, const char** name, long long* offset,
                             int* slots, int* width, int* is_float) {
  if (index < 0 || index >= grnNCONTACT_ARRAYS || cap <= 0) return -1;
  const grnArrayDesc* a = grn_contact_arrays + index;
  if (name) *name = a->name;
  if (offset) *offset = (long long)grn_contact_offset(index, cap);
  if (slots) *slots = grn_unit_slots(a->unit);
  if (width) *width = a->width;
  if (is_float) *is_float = a->is_float;
  return 0;
}
