// the initial bed that every reset writes, and the first of its sources: grains on a jittered
// cubic lattice filling the `fill` box, reproducible from the seed.
#ifndef MJGRANULAR_PLUGIN_BED_H_
#define MJGRANULAR_PLUGIN_BED_H_

#include <mujoco/mujoco.h>

#include "config.h"
#include "grain_types.h"

// the initial bed as plugin_state holds it
typedef struct mjgBed_ {
  int n;                    // grains
  int cap;                  // capacity the arrays are sized for
  mjtNum* pos;              // positions, world frame [m]                           (cap x 3)
  mjtNum* vel;              // velocities, world frame [m/s]                        (cap x 3)
  mjtNum* angvel;           // angular velocities, world frame [rad/s]              (cap x 3)
  mjtNum* orient;           // orientations, unit quaternions w x y z; slots past n:
                            // the identity                                         (cap x 4)
  mjtNum* radius;           // radii [m]; slots past n: the one a grain put there has (cap)
  mjtNum* type;             // grain types (key shape); slots past n: 0                (cap)
  int spheres;              // most solver spheres in one grain (sizes the contact state)
  mjtNum* contacts;         // contact state as in plugin_state; NULL: none (state.h, cap, spheres)
  grnModel model;           // contact model the contact state belongs to
} mjgBed;

// Allocate a bed of capacity cap with n = 0 (contact model projected jacobi), zeroed but for
// every slot's radius (radius) and orientation (the identity), with room for a contact state of
// grains of at most `spheres` spheres when contacts is 1. Returns 0, or -1 when out of memory (bed
// is then freed).
int mjg_bed_alloc(mjgBed* bed, int cap, int spheres, int contacts, double radius);

// Free the arrays; a zeroed struct is fine.
void mjg_bed_free(mjgBed* bed);

// Write the bed into an instance's plugin_state block (capacity bed->cap, nbody bodies), as a
// reset does: the header, grains, zero wrenches, the contact state or none.
void mjg_bed_write(const mjgBed* bed, int nbody, mjtNum* state);

// Number of grains of the given radius the bed puts into a fill box (lo[3], hi[3]), a double: a
// huge box holds more than any integer type (it is then refused); the lattice size along each axis
// goes to dims when not NULL (at most INT_MAX). 0 when not even one grain fits.
double mjg_bed_count(const double fill[6], double radius, double spacing, int dims[3]);

// The most grains of the bed whose centres lie in one cube of side `cell` (cubes aligned at the
// origin), and where: the lowest corner of that cube into corner (3). -1 when out of memory.
int mjg_bed_crowding(const mjgBed* bed, double cell, double corner[3]);

// Write the initial bed of cfg into bed: positions on a lattice of cfg->spacing times the largest
// grain's reach, zero velocities and spins, radii (each cfg->radius, or with mixed sizes drawn
// uniformly in [radius_min, radius], seeded); with mesh grains (types, the terrain's, not NULL)
// each grain's type drawn by the shares of key shape_mix, its orientation uniformly random and
// its radius its type's bound; else the identity orientations of mjg_bed_alloc. Returns n.
// The same config always gives the same bed, bit for bit.
int mjg_bed_make(const mjgConfig* cfg, const mjgGrainTypes* types, mjgBed* bed);

#endif  // MJGRANULAR_PLUGIN_BED_H_
