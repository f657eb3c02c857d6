// functions exported by name (see export.h).
#include "export.h"

#include <string.h>

#include "config.h"
#include "settle.h"

long long mjgranular_settle_runs(void) { return mjg_settle_runs(); }

double mjgranular_radius(const mjModel* m, int instance) {
  if (!m || instance < 0 || instance >= m->nplugin) return -1;
  const mjpPlugin* plugin = mjp_getPluginAtSlot(m->plugin[instance]);
  mjgConfig cfg;
  if (!plugin || strcmp(plugin->name, MJG_PLUGIN_NAME)) return -1;
  if (mjg_config_read(m, instance, &cfg, NULL, 0)) return -1;
  return cfg.radius;
}
