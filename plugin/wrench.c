// mjgranular.wrench: a sensor plugin whose 6 sensordata values are the granular force [N] and
// torque [N m] on a body (world frame, torque about the body's centre of mass), copied from the
// wrench slot of that body in a terrain instance's plugin_state (state.h): the grains' force on
// it averaged over the last step, which two-way coupling applied to the body within that step.
#include "wrench.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sensor.h"
#include "state.h"

static const char* const kAttributes[] = {"terrain", "body"};

typedef struct mjgWrench_ {
  mjgSensorTerrain terrain;
  int body;                 // body id
} mjgWrench;

static int wrench_nstate(const mjModel* m, int instance) {
  (void)m;
  (void)instance;
  return 0;
}

static int wrench_nsensordata(const mjModel* m, int instance, int sensor_id) {
  (void)m;
  (void)instance;
  (void)sensor_id;
  return 6;
}

// the body: config key 'body' if given, else the sensor's objtype="body" objname="..."
static int wrench_body(const mjModel* m, int instance, int s, int* body, char* msg, int size) {
  const char* v = mjg_config_value(m, instance, "body");
  if (v) {
    char word[256];
    while (*v && isspace((unsigned char)*v)) v++;
    int len = (int)strlen(v);
    while (len > 0 && isspace((unsigned char)v[len - 1])) len--;
    if (len >= (int)sizeof(word)) len = (int)sizeof(word) - 1;
    memcpy(word, v, len);
    word[len] = 0;
    *body = mj_name2id(m, mjOBJ_BODY, word);
    if (*body < 0) {
      snprintf(msg, size, MJG_WRENCH_NAME ": config key 'body' = '%s': no body of that name",
               word);
      return -1;
    }
    return 0;
  }
  if ((m->sensor_objtype[s] == mjOBJ_BODY || m->sensor_objtype[s] == mjOBJ_XBODY) &&
      m->sensor_objid[s] >= 0 && m->sensor_objid[s] < m->nbody) {
    *body = m->sensor_objid[s];
    return 0;
  }
  snprintf(msg, size, MJG_WRENCH_NAME ": config key 'body' is missing and the sensor names no "
           "body: give objtype=\"body\" objname=\"...\" on the sensor, or the key 'body'");
  return -1;
}

static int wrench_init(const mjModel* m, mjData* d, int instance) {
  char msg[MJG_MSG_SIZE];
  mjgWrench w;
  int s = mjg_sensor_of(m, instance);
  if (s < 0) {
    mju_warning(MJG_WRENCH_NAME ": plugin instance %d is used by no sensor", instance);
    return -1;
  }
  if (wrench_body(m, instance, s, &w.body, msg, sizeof(msg)) ||
      mjg_sensor_terrain(m, instance, MJG_WRENCH_NAME, &w.terrain, msg, sizeof(msg))) {
    mju_warning("%s", msg);
    return -1;
  }
  mjgWrench* p = (mjgWrench*)malloc(sizeof(mjgWrench));
  if (!p) {
    mju_warning(MJG_WRENCH_NAME ": out of memory");
    return -1;
  }
  *p = w;
  d->plugin_data[instance] = (uintptr_t)p;
  return 0;
}

static void wrench_destroy(mjData* d, int instance) {
  free((void*)d->plugin_data[instance]);
  d->plugin_data[instance] = 0;
}

static void wrench_reset(const mjModel* m, mjtNum* state, void* data, int instance) {
  (void)m;
  (void)state;
  (void)data;
  (void)instance;
}

static void wrench_compute(const mjModel* m, mjData* d, int instance, int capability_bit) {
  if (!(capability_bit & mjPLUGIN_SENSOR)) return;
  const mjgWrench* w = (const mjgWrench*)d->plugin_data[instance];
  int s = mjg_sensor_of(m, instance);
  if (!w || s < 0) return;
  mjtNum* state = d->plugin_state + m->plugin_stateadr[w->terrain.instance];
  const mjtNum* slot = mjg_state_wrench(state, w->terrain.cap) + 6 * w->body;
  memcpy(d->sensordata + m->sensor_adr[s], slot, 6 * sizeof(mjtNum));
}

void mjg_wrench_register(void) {
  mjpPlugin plugin;
  mjp_defaultPlugin(&plugin);
  plugin.name = MJG_WRENCH_NAME;
  plugin.capabilityflags = mjPLUGIN_SENSOR;
  plugin.needstage = mjSTAGE_POS;
  plugin.nattribute = (int)(sizeof(kAttributes) / sizeof(kAttributes[0]));
  plugin.attributes = kAttributes;
  plugin.nstate = wrench_nstate;
  plugin.nsensordata = wrench_nsensordata;
  plugin.init = wrench_init;
  plugin.destroy = wrench_destroy;
  plugin.reset = wrench_reset;
  plugin.compute = wrench_compute;
  mjp_registerPlugin(&plugin);
}
