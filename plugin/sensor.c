// helpers shared by the mjgranular sensor plugins: see sensor.h.
#include "sensor.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mjg_sensor_parse_ints(const char* s, long long* out, int n) {
  const char* p = s;
  for (int i = 0; i < n; i++) {
    char* end;
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) return 0;
    long long v = strtoll(p, &end, 10);
    if (end == p) return 0;
    if (*end && !isspace((unsigned char)*end)) return 0;
    out[i] = v;
    p = end;
  }
  return mjg_blank(p);
}

int mjg_sensor_of(const mjModel* m, int instance) {
  for (int s = 0; s < m->nsensor; s++) {
    if (m->sensor_type[s] == mjSENS_PLUGIN && m->sensor_plugin[s] == instance) return s;
  }
  return -1;
}

int mjg_sensor_terrain(const mjModel* m, int instance, const char* plugin_name,
                       mjgSensorTerrain* out, char* msg, int size) {
  int slot = -1;
  if (!mjp_getPlugin(MJG_PLUGIN_NAME, &slot)) slot = -1;
  const char* name = mjg_config_value(m, instance, "terrain");
  int found = -1;
  if (name) {
    // trim for the lookup
    char word[256];
    while (*name && isspace((unsigned char)*name)) name++;
    int len = (int)strlen(name);
    while (len > 0 && isspace((unsigned char)name[len - 1])) len--;
    if (len >= (int)sizeof(word)) len = (int)sizeof(word) - 1;
    memcpy(word, name, len);
    word[len] = 0;
    int id = mj_name2id(m, mjOBJ_PLUGIN, word);
    if (id < 0 || m->plugin[id] != slot) {
      snprintf(msg, size, "%s: config key 'terrain' = '%s': no %s instance of that name",
               plugin_name, word, MJG_PLUGIN_NAME);
      return -1;
    }
    found = id;
  } else {
    for (int i = 0; i < m->nplugin && found < 0; i++) {
      if (m->plugin[i] == slot) found = i;
    }
    if (found < 0) {
      snprintf(msg, size, "%s: config key 'terrain' is missing and the model has no %s instance",
               plugin_name, MJG_PLUGIN_NAME);
      return -1;
    }
  }
  mjgConfig cfg;
  char inner[MJG_MSG_SIZE];
  if (mjg_config_read(m, found, &cfg, inner, sizeof(inner))) {
    snprintf(msg, size, "%s: config key 'terrain': the terrain instance's config is refused: %s",
             plugin_name, inner);
    return -1;
  }
  out->instance = found;
  out->cap = cfg.count;
  out->has_domain = cfg.has_domain;
  memcpy(out->domain, cfg.domain, sizeof(out->domain));
  return 0;
}
