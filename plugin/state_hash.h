// a 64-bit hash of an instance's plugin_state block, so that a gpu instance can tell the state it
// downloaded from any other (one the user wrote, restored or copied in) without keeping a copy.
#ifndef MJGRANULAR_PLUGIN_STATE_HASH_H_
#define MJGRANULAR_PLUGIN_STATE_HASH_H_

#include <stdint.h>

#include <mujoco/mujoco.h>

// Hash of the bit patterns of size mjtNums. The same for equal blocks whatever the thread count
// (fixed chunks, combined in order); any change of a bit changes it but for odds of ~2^-64.
uint64_t mjg_state_hash(const mjtNum* state, size_t size);

#endif  // MJGRANULAR_PLUGIN_STATE_HASH_H_
