// shared by the mjgranular sensor plugins (heightmap.c, wrench.c): find the terrain instance a
// sensor reads, the sensor that uses a sensor plugin instance, and strict parsing of numbers.
#ifndef MJGRANULAR_PLUGIN_SENSOR_H_
#define MJGRANULAR_PLUGIN_SENSOR_H_

#include <mujoco/mujoco.h>

#include "config.h"

// the terrain instance a sensor instance reads
typedef struct mjgSensorTerrain_ {
  int instance;             // plugin instance id of the mjgranular.terrain instance
  int cap;                  // its grain capacity
  int has_domain;           // 1: its domain was given
  double domain[6];         // its domain box
} mjgSensorTerrain;

// Resolve config key 'terrain' of sensor instance `instance`: the name of an mjgranular.terrain
// instance, or (not given) the first one in the model. On failure -1 with a message naming the
// key written into msg (prefixed with plugin_name); 0 on success.
int mjg_sensor_terrain(const mjModel* m, int instance, const char* plugin_name,
                       mjgSensorTerrain* out, char* msg, int size);

// The sensor that uses plugin instance `instance`, -1 if none.
int mjg_sensor_of(const mjModel* m, int instance);

// Exactly n decimal integers separated by white space into out; 1 on success.
int mjg_sensor_parse_ints(const char* s, long long* out, int n);

#endif  // MJGRANULAR_PLUGIN_SENSOR_H_
