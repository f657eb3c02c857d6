// mjgranular.heightmap: a sensor plugin whose sensordata is an nx x ny height map of the sand
// surface over a region: per cell the highest grain top (z + radius; a mesh grain's: the top of its
// clump's spheres) of the grains whose centre lies in the cell, or the `empty` value. Reads the
// grains from a terrain instance's plugin_state (state.h), and the grain types from its
// plugin_data; holds no state of its own.
#include "heightmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_limits.h"
#include "sensor.h"
#include "state.h"
#include "terrain.h"

static const char* const kAttributes[] = {"terrain", "region", "size", "empty"};

typedef struct mjgHeightmap_ {
  mjgSensorTerrain terrain;
  double region[4];         // xlo ylo xhi yhi [m]
  int nx, ny;               // cells
  double empty;             // value of a cell without grains [m]
} mjgHeightmap;

// the floor: the lowest world plane facing up (+z); else the domain's bottom; else 0
static double floor_height(const mjModel* m, const mjgSensorTerrain* t) {
  int found = 0;
  double z = 0;
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_type[g] != mjGEOM_PLANE || m->geom_bodyid[g] != 0) continue;
    mjtNum mat[9];
    mju_quat2Mat(mat, m->geom_quat + 4 * g);
    if (mat[8] < 1 - 1e-9) continue;  // local z axis must point up
    if (!found || m->geom_pos[3 * g + 2] < z) z = m->geom_pos[3 * g + 2];
    found = 1;
  }
  if (found) return z;
  return t->has_domain ? t->domain[2] : 0;
}

// parse and check the config; -1 with a message naming the key on failure
static int read_config(const mjModel* m, int instance, mjgHeightmap* h, char* msg, int size) {
  memset(h, 0, sizeof(*h));
  const char* v = mjg_config_value(m, instance, "size");
  long long n[2];
  if (!v) {
    snprintf(msg, size, MJG_HEIGHTMAP_NAME ": config key 'size' is missing: give \"nx ny\" cells");
    return -1;
  }
  // the product by division: nx ny of two large numbers overflows
  if (!mjg_sensor_parse_ints(v, n, 2) || n[0] < 1 || n[1] < 1 ||
      n[0] > MJG_MAX_HEIGHTMAP_CELLS / n[1]) {
    snprintf(msg, size, MJG_HEIGHTMAP_NAME ": config key 'size' = '%s': must be two integers "
             "nx ny >= 1 with nx ny <= %d cells", v, MJG_MAX_HEIGHTMAP_CELLS);
    return -1;
  }
  h->nx = (int)n[0];
  h->ny = (int)n[1];

  v = mjg_config_value(m, instance, "region");
  if (!v) {
    snprintf(msg, size, MJG_HEIGHTMAP_NAME ": config key 'region' is missing: give \"xlo ylo "
             "xhi yhi\" [m]");
    return -1;
  }
  if (!mjg_parse_reals(v, h->region, 4) || !(h->region[2] > h->region[0]) ||
      !(h->region[3] > h->region[1])) {
    snprintf(msg, size, MJG_HEIGHTMAP_NAME ": config key 'region' = '%s': must be four numbers "
             "xlo ylo xhi yhi with xhi > xlo and yhi > ylo [m]", v);
    return -1;
  }
  return 0;
}

static int heightmap_nstate(const mjModel* m, int instance) {
  (void)m;
  (void)instance;
  return 0;
}

static int heightmap_nsensordata(const mjModel* m, int instance, int sensor_id) {
  (void)sensor_id;
  mjgHeightmap h;
  char msg[MJG_MSG_SIZE];
  // a bad config is refused by init with its message; size it 1 until then
  if (read_config(m, instance, &h, msg, sizeof(msg))) return 1;
  return h.nx * h.ny;
}

static int heightmap_init(const mjModel* m, mjData* d, int instance) {
  char msg[MJG_MSG_SIZE];
  mjgHeightmap h;
  if (read_config(m, instance, &h, msg, sizeof(msg)) ||
      mjg_sensor_terrain(m, instance, MJG_HEIGHTMAP_NAME, &h.terrain, msg, sizeof(msg))) {
    mju_warning("%s", msg);
    return -1;
  }
  const char* v = mjg_config_value(m, instance, "empty");
  if (v) {
    if (!mjg_parse_reals(v, &h.empty, 1)) {
      mju_warning(MJG_HEIGHTMAP_NAME ": config key 'empty' = '%s': must be one finite number [m]",
                  v);
      return -1;
    }
  } else {
    h.empty = floor_height(m, &h.terrain);
  }
  int s = mjg_sensor_of(m, instance);
  if (s < 0) {
    mju_warning(MJG_HEIGHTMAP_NAME ": plugin instance %d is used by no sensor", instance);
    return -1;
  }
  if (m->sensor_dim[s] != h.nx * h.ny) {
    mju_warning(MJG_HEIGHTMAP_NAME ": sensor has %d values, config key 'size' needs %d",
                m->sensor_dim[s], h.nx * h.ny);
    return -1;
  }
  mjgHeightmap* p = (mjgHeightmap*)malloc(sizeof(mjgHeightmap));
  if (!p) {
    mju_warning(MJG_HEIGHTMAP_NAME ": out of memory");
    return -1;
  }
  *p = h;
  d->plugin_data[instance] = (uintptr_t)p;
  return 0;
}

static void heightmap_destroy(mjData* d, int instance) {
  free((void*)d->plugin_data[instance]);
  d->plugin_data[instance] = 0;
}

static void heightmap_reset(const mjModel* m, mjtNum* state, void* data, int instance) {
  (void)m;
  (void)state;
  (void)data;
  (void)instance;
}

static void heightmap_compute(const mjModel* m, mjData* d, int instance, int capability_bit) {
  if (!(capability_bit & mjPLUGIN_SENSOR)) return;
  const mjgHeightmap* h = (const mjgHeightmap*)d->plugin_data[instance];
  int s = mjg_sensor_of(m, instance);
  if (!h || s < 0) return;
  mjtNum* out = d->sensordata + m->sensor_adr[s];
  int ncell = h->nx * h->ny;
  for (int c = 0; c < ncell; c++) out[c] = -INFINITY;

  // grains of the terrain instance: the highest top per cell
  mjtNum* state = d->plugin_state + m->plugin_stateadr[h->terrain.instance];
  mjtNum count = state[MJG_STATE_COUNT];
  int n = (count >= 0 && count <= h->terrain.cap) ? (int)count : 0;
  const mjtNum* pos = mjg_state_pos(state, h->terrain.cap);
  const mjtNum* radius = mjg_state_radius(state, h->terrain.cap);
  const mjtNum* orient = mjg_state_orient(state, h->terrain.cap);
  const mjtNum* type = mjg_state_type(state, h->terrain.cap);
  const mjgTerrain* t = (const mjgTerrain*)d->plugin_data[h->terrain.instance];
  const mjgGrainTypes* types = t ? t->clumps : NULL;
  double dx = (h->region[2] - h->region[0]) / h->nx;
  double dy = (h->region[3] - h->region[1]) / h->ny;
  for (int i = 0; i < n; i++) {
    const mjtNum* p = pos + 3 * i;
    double fx = floor((p[0] - h->region[0]) / dx), fy = floor((p[1] - h->region[1]) / dy);
    if (!(fx >= 0 && fx < h->nx && fy >= 0 && fy < h->ny)) continue;
    int c = (int)fy * h->nx + (int)fx;
    mjtNum top = p[2] + radius[i];
    if (types && type[i] >= 0 && type[i] < types->ntype) {
      top = mjg_grain_top(types->type + (int)type[i], p, orient + 4 * i);
    }
    if (top > out[c]) out[c] = top;
  }
  for (int c = 0; c < ncell; c++) {
    if (out[c] == -INFINITY) out[c] = h->empty;
  }
}

void mjg_heightmap_register(void) {
  mjpPlugin plugin;
  mjp_defaultPlugin(&plugin);
  plugin.name = MJG_HEIGHTMAP_NAME;
  plugin.capabilityflags = mjPLUGIN_SENSOR;
  plugin.needstage = mjSTAGE_POS;
  plugin.nattribute = (int)(sizeof(kAttributes) / sizeof(kAttributes[0]));
  plugin.attributes = kAttributes;
  plugin.nstate = heightmap_nstate;
  plugin.nsensordata = heightmap_nsensordata;
  plugin.init = heightmap_init;
  plugin.destroy = heightmap_destroy;
  plugin.reset = heightmap_reset;
  plugin.compute = heightmap_compute;
  mjp_registerPlugin(&plugin);
}
