// layout of an mjgranular.terrain instance's plugin_state: everything a step needs to continue,
// so that mj_copyData, mj_getState / mj_setState (mjSTATE_PLUGIN) and rollouts carry the grains.
//
//   offset                    size        content
//   0                         1           grain count n (0 <= n <= capacity)
//   1                         1           gpu only (0 on the cpu): stamp of the last advance;
//                                         the upload is skipped while it is unchanged (set it
//                                         to 0 after writing grains into the state by hand)
//   2                         1           layout version (MJG_STATE_VERSION)
//   3                         1           reserved (0)
//   MJG_STATE_HEADER          cap x 3     grain positions, world frame [m]
//   .. + 3 cap                cap x 3     grain velocities, world frame [m/s]
//   .. + 6 cap                cap x 3     grain angular velocities, world frame [rad/s]
//   .. + 9 cap                cap         grain radii [m]
//   .. + 10 cap               nbody x 6   per body: granular force [N] and torque [N m] averaged
//                                         over the last step, world frame, torque about the body's
//                                         centre of mass (d->xipos); two-way, already given
//                                         to the body within the step
//   .. + 6 nbody              C           contact state: the solver's contacts at the end of the
//                                         last substep and their impulses, the warm start of the
//                                         next (opaque int32/float32 bytes, see granular.h;
//                                         C = grn_contact_state_bytes(cap) / sizeof(mjtNum))
//
// Grain values are floats widened to mjtNum: the solver works in float, so a state written back
// by advance converts to the solver and back without loss. Only the first n grains are in use.
#ifndef MJGRANULAR_PLUGIN_STATE_H_
#define MJGRANULAR_PLUGIN_STATE_H_

#include <mujoco/mujoco.h>

#include "granular.h"

#define MJG_STATE_HEADER 4        // mjtNums before the grain arrays
#define MJG_STATE_PER_GRAIN 10    // mjtNums per grain: position, velocity, angular velocity, radius
#define MJG_STATE_VERSION 3       // bump when the layout changes

// header slots
#define MJG_STATE_COUNT 0
#define MJG_STATE_STAMP 1
#define MJG_STATE_LAYOUT 2

// mjtNums holding the contact state of capacity cap
static inline int mjg_state_contact_size(int cap) {
  return (int)((grn_contact_state_bytes(cap) + sizeof(mjtNum) - 1) / sizeof(mjtNum));
}

// number of mjtNums of an instance with capacity cap in a model with nbody bodies
static inline int mjg_state_size(int cap, int nbody) {
  return MJG_STATE_HEADER + MJG_STATE_PER_GRAIN * cap + 6 * nbody + mjg_state_contact_size(cap);
}

// grain positions (cap x 3)
static inline mjtNum* mjg_state_pos(mjtNum* state, int cap) {
  (void)cap;
  return state + MJG_STATE_HEADER;
}

// grain velocities (cap x 3)
static inline mjtNum* mjg_state_vel(mjtNum* state, int cap) {
  return state + MJG_STATE_HEADER + 3 * (size_t)cap;
}

// grain angular velocities (cap x 3)
static inline mjtNum* mjg_state_angvel(mjtNum* state, int cap) {
  return state + MJG_STATE_HEADER + 6 * (size_t)cap;
}

// grain radii (cap)
static inline mjtNum* mjg_state_radius(mjtNum* state, int cap) {
  return state + MJG_STATE_HEADER + 9 * (size_t)cap;
}

// per-body wrenches (nbody x 6)
static inline mjtNum* mjg_state_wrench(mjtNum* state, int cap) {
  return state + MJG_STATE_HEADER + MJG_STATE_PER_GRAIN * (size_t)cap;
}

// contact state (opaque bytes)
static inline mjtNum* mjg_state_contacts(mjtNum* state, int cap, int nbody) {
  return mjg_state_wrench(state, cap) + 6 * (size_t)nbody;
}

#endif  // MJGRANULAR_PLUGIN_STATE_H_
