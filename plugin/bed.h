// the initial bed: grains on a jittered cubic lattice filling the `fill` box, reproducible from
// the seed.
#ifndef MJGRANULAR_PLUGIN_BED_H_
#define MJGRANULAR_PLUGIN_BED_H_

#include <mujoco/mujoco.h>

#include "config.h"

// lattice spacing of the initial bed, in grain radii (a small gap leaves room for the jitter)

// Number of grains of the given radius the bed puts into a fill box (lo[3], hi[3]); the lattice
// size along each axis goes to dims when not NULL. 0 when not even one grain fits.
long long mjg_bed_count(const double fill[6], double radius, double spacing, int dims[3]);

// Write the initial bed of cfg: positions (n x 3) and zero velocities (n x 3); returns n.
// The same config always gives the same bed, bit for bit.
int mjg_bed_make(const mjgConfig* cfg, mjtNum* pos, mjtNum* vel);

#endif  // MJGRANULAR_PLUGIN_BED_H_
