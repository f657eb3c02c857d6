// layout of an mjgranular.terrain instance's plugin_state: everything a step needs to continue,
// so that mj_copyData, mj_getState / mj_setState (mjSTATE_PLUGIN) and rollouts carry the grains.
//
//   offset                    size        content
//   0                         1           grain count n (0 <= n <= capacity)
//   1                         1           reserved (0)
//   2                         1           layout version (MJG_STATE_VERSION)
//   3                         1           contact model of the contact state (grnModel: 0
//                                         projected jacobi, 1 dem)
//   MJG_STATE_HEADER          cap x 3     grain positions, world frame [m]
//   .. + 3 cap                cap x 3     grain velocities, world frame [m/s]
//   .. + 6 cap                cap x 3     grain angular velocities, world frame [rad/s]
//   .. + 9 cap                cap x 4     grain orientations: unit quaternions (w, x, y, z), body
//                                         to world; slots past n: the identity
//   .. + 13 cap               cap         grain radii [m]; a mesh grain: the radius of the sphere
//                                         about its centre of mass that bounds it (set from its
//                                         type; the solver keeps the type's spheres)
//   .. + 14 cap               cap         grain types: index into the terrain's types (key shape;
//                                         0 for every grain of a terrain of spheres)
//   .. + 15 cap               nbody x 6   per body: granular force [N] and torque [N m] averaged
//                                         over the last step, world frame, torque about the body's
//                                         centre of mass (d->xipos); two-way, already given
//                                         to the body within the step
//   .. + 6 nbody              C           contact state: the solver's contacts at the end of the
//                                         last substep and their impulses, the warm start of the
//                                         next (opaque int32/float32 bytes, see granular.h;
//                                         C = grn_contact_state_bytes(cap x spheres) /
//                                         sizeof(mjtNum): a mesh grain's spheres each have
//                                         their contacts, spheres the most in any grain type)
//
// Grain values are floats widened to mjtNum: the solver works in float, so a state written back
// by advance converts to the solver and back without loss. Only the first n grains are in use.
#ifndef MJGRANULAR_PLUGIN_STATE_H_
#define MJGRANULAR_PLUGIN_STATE_H_

#include <mujoco/mujoco.h>

#include "granular.h"

#define MJG_STATE_HEADER 4        // mjtNums before the grain arrays
#define MJG_STATE_VERSION 5       // bump when the layout changes (4: orientations, 5: types)

// header slots
#define MJG_STATE_COUNT 0
#define MJG_STATE_RESERVED 1
#define MJG_STATE_LAYOUT 2
#define MJG_STATE_MODEL 3

// mjtNums holding the contact state of cap grains of at most `spheres` solver spheres each
static inline size_t mjg_state_contact_size(int cap, int spheres) {
  size_t bytes = grn_contact_state_bytes((int)((long long)cap * spheres));
  return (bytes + sizeof(mjtNum) - 1) / sizeof(mjtNum);
}

// the parts of the block after the header, in order, with their lengths per grain or per body
typedef enum mjgStatePart_ {
  mjgSTATE_POS = 0,         // grain positions                                      (cap x 3)
  mjgSTATE_VEL,             // grain velocities                                     (cap x 3)
  mjgSTATE_ANGVEL,          // grain angular velocities                             (cap x 3)
  mjgSTATE_ORIENT,          // grain orientations                                   (cap x 4)
  mjgSTATE_RADIUS,          // grain radii                                          (cap)
  mjgSTATE_TYPE,            // grain types                                          (cap)
  mjgSTATE_WRENCH,          // per-body wrenches                                    (nbody x 6)
  mjgSTATE_CONTACTS,        // contact state             (mjg_state_contact_size(cap, spheres))
} mjgStatePart;

// offset in mjtNums of a part of the block of capacity cap with nbody bodies
static inline size_t mjg_state_offset(mjgStatePart part, int cap, int nbody) {
  static const int per_grain[] = {3, 3, 3, 4, 1, 1};
  size_t at = MJG_STATE_HEADER;
  for (int p = 0; p < (int)part; p++) {
    at += p < mjgSTATE_WRENCH ? per_grain[p] * (size_t)cap : 6 * (size_t)nbody;
  }
  return at;
}

// number of mjtNums of an instance with capacity cap, grains of at most `spheres` spheres, in a
// model with nbody bodies (MuJoCo counts a plugin's state in an int: the config refuses a
// capacity whose state would not fit)
static inline size_t mjg_state_size(int cap, int spheres, int nbody) {
  return mjg_state_offset(mjgSTATE_CONTACTS, cap, nbody) + mjg_state_contact_size(cap, spheres);
}

// grain positions (cap x 3)
static inline mjtNum* mjg_state_pos(mjtNum* state, int cap) {
  return state + mjg_state_offset(mjgSTATE_POS, cap, 0);
}

// grain velocities (cap x 3)
static inline mjtNum* mjg_state_vel(mjtNum* state, int cap) {
  return state + mjg_state_offset(mjgSTATE_VEL, cap, 0);
}

// grain angular velocities (cap x 3)
static inline mjtNum* mjg_state_angvel(mjtNum* state, int cap) {
  return state + mjg_state_offset(mjgSTATE_ANGVEL, cap, 0);
}

// grain orientations (cap x 4)
static inline mjtNum* mjg_state_orient(mjtNum* state, int cap) {
  return state + mjg_state_offset(mjgSTATE_ORIENT, cap, 0);
}

// grain radii (cap)
static inline mjtNum* mjg_state_radius(mjtNum* state, int cap) {
  return state + mjg_state_offset(mjgSTATE_RADIUS, cap, 0);
}

// grain types (cap)
static inline mjtNum* mjg_state_type(mjtNum* state, int cap) {
  return state + mjg_state_offset(mjgSTATE_TYPE, cap, 0);
}

// per-body wrenches (nbody x 6)
static inline mjtNum* mjg_state_wrench(mjtNum* state, int cap) {
  return state + mjg_state_offset(mjgSTATE_WRENCH, cap, 0);
}

// contact state (opaque bytes)
static inline mjtNum* mjg_state_contacts(mjtNum* state, int cap, int nbody) {
  return state + mjg_state_offset(mjgSTATE_CONTACTS, cap, nbody);
}

#endif  // MJGRANULAR_PLUGIN_STATE_H_
