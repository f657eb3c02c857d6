// things built once per process for each distinct input and shared read-only by everyone who asks
// for an equal one (settled beds, mesh grids): every mjData of every model, every reset. An input
// is known by its bytes (a key), compared whole, so equal keys give the same thing bit for bit.
#ifndef MJGRANULAR_PLUGIN_SHARED_CACHE_H_
#define MJGRANULAR_PLUGIN_SHARED_CACHE_H_

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

// the bytes of an input, appended piece by piece
typedef struct mjgKey_ {
  unsigned char* bytes;     // the key so far
  size_t size, room;        // bytes used, allocated
  int failed;               // 1 after an allocation failed
} mjgKey;

void mjg_key_add(mjgKey* k, const void* data, size_t size);
void mjg_key_int(mjgKey* k, int v);

// the start of the project's FNV-1a hashes, which mjg_fnv1a continues: one digit short of FNV's
// offset basis (14695981039346656037), kept as it is because the fingerprints of saved bed files
// and of fields files (scripts/mjgranular/cem.py, FNV_BASIS) are made with it
#define MJG_FNV1A_BASIS 1469598103934665603ull

// FNV-1a of n bytes, continuing from h (MJG_FNV1A_BASIS to start): the same in every process.
uint64_t mjg_fnv1a(uint64_t h, const void* bytes, size_t n);

// builds the value of an input into value (zeroed, the cache's value_size bytes): 0, or -1 with
// the cause in why (and nothing left to free in value)
typedef int (*mjgCacheBuild)(const void* input, void* value, char* why, int why_size);

typedef struct mjgCacheEntry_ mjgCacheEntry;

// one cache; declare it static with MJG_CACHE(type of the value, values kept unreferenced, the
// function that frees a value's contents)
typedef struct mjgCache_ {
  pthread_mutex_t lock;
  pthread_cond_t done;      // a build finished
  mjgCacheEntry* list;      // entries being built and built
  long long releases;       // releases so far, orders the kept entries
  long long builds;         // values built
  size_t value_size;        // bytes of a value
  int keep;                 // unreferenced values kept for a later acquire
  void (*free_value)(void* value);
} mjgCache;

#define MJG_CACHE(type, keep, free_value) \
  {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, sizeof(type), keep, free_value}

// The value of the input whose bytes are key (taken over: freed here): built now by build(input),
// unless an equal key was built earlier in this process and is still held or kept (or is being
// built by another thread, which is waited for). Thread-safe. NULL on failure with the cause in
// why. Release with mjg_cache_release.
const void* mjg_cache_acquire(mjgCache* cache, mjgKey* key, mjgCacheBuild build,
                              const void* input, char* why, int why_size);

// Release a value from mjg_cache_acquire (NULL is allowed). The last `keep` released values are
// kept, so a model that is compiled (which makes and deletes an mjData) and then given an mjData
// builds once.
void mjg_cache_release(mjgCache* cache, const void* value);

// Values this cache has built in this process.
long long mjg_cache_builds(mjgCache* cache);

#endif  // MJGRANULAR_PLUGIN_SHARED_CACHE_H_
