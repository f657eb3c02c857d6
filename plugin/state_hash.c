// the state hash: four multiply-rotate lanes per chunk (independent, so a core keeps several
// multiplies in flight), chunks hashed in parallel and folded in chunk order.
#include "state_hash.h"

#include <stdlib.h>

#define CHUNK_WORDS (1 << 15)  // 256 kB of state per chunk

static const uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
static const uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
static const uint64_t kPrime3 = 0x165667B19E3779F9ull;

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// one word into a lane
static inline uint64_t mix(uint64_t lane, uint64_t word) {
  return rotl(lane + word * kPrime2, 31) * kPrime1;
}

// last avalanche, so that every input bit reaches every output bit
static inline uint64_t finish(uint64_t h) {
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  return h ^ (h >> 32);
}

static uint64_t hash_chunk(const uint64_t* w, size_t n, uint64_t seed) {
  uint64_t lane[4] = {seed + kPrime1, seed + kPrime2, seed, seed - kPrime1};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int k = 0; k < 4; k++) lane[k] = mix(lane[k], w[i + k]);
  }
  for (; i < n; i++) lane[0] = mix(lane[0], w[i]);
  uint64_t h = rotl(lane[0], 1) + rotl(lane[1], 7) + rotl(lane[2], 12) + rotl(lane[3], 18);
  return finish(h + n);
}

uint64_t mjg_state_hash(const mjtNum* state, size_t size) {
  _Static_assert(sizeof(mjtNum) == sizeof(uint64_t), "mjtNum is a 64-bit double");
  const uint64_t* w = (const uint64_t*)state;
  long long nchunk = (long long)((size + CHUNK_WORDS - 1) / CHUNK_WORDS);
  uint64_t one[1], *part = nchunk > 1 ? (uint64_t*)malloc(nchunk * sizeof(uint64_t)) : one;
  if (!part) {  // no room for partials: one chunk, one thread
    part = one;
    nchunk = 1;
  }
  size_t chunk = nchunk > 1 ? CHUNK_WORDS : size;
  #pragma omp parallel for schedule(static) if (nchunk > 8)
  for (long long c = 0; c < nchunk; c++) {
    size_t first = (size_t)c * chunk;
    size_t n = size - first < chunk ? size - first : chunk;
    part[c] = hash_chunk(w + first, n, (uint64_t)c);
  }
  uint64_t h = kPrime3 ^ size;
  for (long long c = 0; c < nchunk; c++) h = finish(h ^ part[c]) * kPrime1;
  if (part != one) free(part);
  return h;
}
