// the mjgranular.heightmap sensor plugin: the height of the sand surface on a regular grid over
// a region of the floor (see README.md, "Sensors").
#ifndef MJGRANULAR_PLUGIN_HEIGHTMAP_H_
#define MJGRANULAR_PLUGIN_HEIGHTMAP_H_

#define MJG_HEIGHTMAP_NAME "mjgranular.heightmap"

// Register the plugin with MuJoCo (called from register.c).
void mjg_heightmap_register(void);

#endif  // MJGRANULAR_PLUGIN_HEIGHTMAP_H_
