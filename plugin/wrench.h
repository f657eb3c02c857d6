// the mjgranular.wrench sensor plugin: the granular force and torque on one body, as stored in a
// terrain instance's plugin_state (see README.md, "Sensors").
#ifndef MJGRANULAR_PLUGIN_WRENCH_H_
#define MJGRANULAR_PLUGIN_WRENCH_H_

#define MJG_WRENCH_NAME "mjgranular.wrench"

// Register the plugin with MuJoCo (called from register.c).
void mjg_wrench_register(void);

#endif  // MJGRANULAR_PLUGIN_WRENCH_H_
