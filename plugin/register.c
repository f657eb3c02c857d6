// registers the mjgranular.terrain plugin and its sensors (mjgranular.heightmap,
// mjgranular.wrench) with MuJoCo when libmjgranular.so is loaded.
#include <omp.h>
#include <pthread.h>

#include <mujoco/mujoco.h>

#include "config.h"
#include "heightmap.h"
#include "terrain.h"
#include "wrench.h"

// a forked child holds none of the parent's openmp pool threads, and libgomp's next parallel
// region there waits for them forever (python's multiprocessing forks: gymnasium's async vector
// envs): the child computes on one thread
static void mjg_after_fork_in_child(void) {
  omp_set_num_threads(1);
}

mjPLUGIN_LIB_INIT(mjgranular) {
  pthread_atfork(NULL, NULL, mjg_after_fork_in_child);

  // attribute names from the config table
  static const char* attributes[64];
  int nattribute = mjg_config_nattribute();
  if (nattribute > 64) nattribute = 64;
  for (int i = 0; i < nattribute; i++) attributes[i] = mjg_config_name(i);

  mjpPlugin plugin;
  mjp_defaultPlugin(&plugin);
  plugin.name = MJG_PLUGIN_NAME;
  // mujoco requires the passive capability of a plugin placed in a body (the worldbody here);
  // the grains act on the bodies inside advance (body_dynamics.h), so compute adds nothing
  plugin.capabilityflags = mjPLUGIN_PASSIVE;
  plugin.nattribute = nattribute;
  plugin.attributes = attributes;
  plugin.nstate = mjg_terrain_nstate;
  plugin.init = mjg_terrain_init;
  plugin.destroy = mjg_terrain_destroy;
  plugin.reset = mjg_terrain_reset;
  plugin.compute = mjg_terrain_compute;
  plugin.advance = mjg_terrain_advance;
  plugin.visualize = mjg_terrain_visualize;
  mjp_registerPlugin(&plugin);

  // sensor plugins reading a terrain instance's plugin_state
  mjg_heightmap_register();
  mjg_wrench_register();
}
