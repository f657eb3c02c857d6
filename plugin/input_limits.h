// the plugin's limits on sizes and on the work of a load or a step, declared once. An input beyond
// one is refused when the model loads (a step, when option timestep changes at run time) with a
// message naming the key, its value and the limit, so that no load and no step runs for hours
// (README, "Limits"). Each limit leaves every scene in models/ and the tests a wide margin. The
// solver's own limits: GRN_MAX_GRAINS (granular.h), GRN_SDF_MAX_NODES (sdf_mesh.h).
#ifndef MJGRANULAR_PLUGIN_INPUT_LIMITS_H_
#define MJGRANULAR_PLUGIN_INPUT_LIMITS_H_

#include <mujoco/mujoco.h>

#include "config.h"

// granular substeps per MuJoCo step; the most a scene here takes is dem's default for 4 mm grains
// at a 2 ms step (87), and 1 mm dem grains at a 10 ms step take 1,723
#define MJG_MAX_SUBSTEPS 10000

// solver passes per MuJoCo step: a pass is one iteration of a substep (key iterations), or one
// substep of dem, which does not iterate; the pj defaults take 40 at a 2 ms step
#define MJG_MAX_STEP_PASSES 100000

// solver passes of settling at load (key settle): 50 s of settling at the pj defaults, 23 s of
// dem at 4 mm grains; the longest settle here, 1 s at the pj defaults, takes 20,000
#define MJG_MAX_SETTLE_PASSES 1000000

// grains of a bed file whose centres lie in one cube a largest grain diameter wide (cubes aligned
// at the origin); the broadphase compares each grain with every other in its neighbourhood, so a
// crowd is quadratic work. Spheres of a quarter of the largest radius (the smallest that key
// radius allows), packed densely, put about 90 centres there
#define MJG_MAX_GRAINS_PER_CELL 512

// cells of a height-map sensor (its sensordata values)
#define MJG_MAX_HEIGHTMAP_CELLS (1 << 24)

// Steps of length step that cover span: ceil(span / step), at least 1, for granular substeps of
// a MuJoCo step and MuJoCo steps of settling. A double: a tiny step asks for more than any
// integer holds.
double mjg_step_count(double span, double step);

// Check that a MuJoCo step of m's option timestep with this config stays within MJG_MAX_SUBSTEPS
// and MJG_MAX_STEP_PASSES. On failure return -1 and write into why, without the plugin's name,
// "config key '<key>' = '<value>': <the work and the limit>" (the value as given, else as used).
int mjg_limits_step(const mjModel* m, int instance, const mjgConfig* cfg, char* why, int size);

// Check that settling the bed (key settle) stays within MJG_MAX_SETTLE_PASSES; as
// mjg_limits_step.
int mjg_limits_settle(const mjModel* m, int instance, const mjgConfig* cfg, char* why, int size);

#endif  // MJGRANULAR_PLUGIN_INPUT_LIMITS_H_
