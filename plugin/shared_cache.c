// the shared cache: entries in one list under the cache's mutex; a thread that finds an entry
// being built waits on the condition variable instead of building it again.
#include "shared_cache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum mjgEntryStatus_ {
  mjgBUILDING = 0,          // a thread is building it
  mjgBUILT,                 // the value is ready
  mjgFAILED,                // the build failed (why says why); no longer in the list
} mjgEntryStatus;

struct mjgCacheEntry_ {
  mjgCacheEntry* next;      // list link
  unsigned char* key;       // the input's bytes                                     (nkey)
  size_t nkey;              // key size
  uint64_t hash;            // fnv-1a of key
  mjgEntryStatus status;    // see above
  int refs;                 // acquires not yet released
  long long released;       // release order of an unreferenced entry
  char why[256];            // cause of a failure
  void* value;              // the value (value_size bytes, allocated with the entry)
};

void mjg_key_add(mjgKey* k, const void* data, size_t size) {
  if (k->failed || !size) return;
  if (k->size + size > k->room) {
    size_t room = 2 * (k->size + size);
    unsigned char* bytes = (unsigned char*)realloc(k->bytes, room);
    if (!bytes) {
      k->failed = 1;
      return;
    }
    k->bytes = bytes;
    k->room = room;
  }
  memcpy(k->bytes + k->size, data, size);
  k->size += size;
}

void mjg_key_int(mjgKey* k, int v) { mjg_key_add(k, &v, sizeof(v)); }

uint64_t mjg_fnv1a(uint64_t h, const void* bytes, size_t n) {
  const unsigned char* b = (const unsigned char*)bytes;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static void entry_free(mjgCache* c, mjgCacheEntry* e) {
  if (!e) return;
  if (e->status == mjgBUILT) c->free_value(e->value);
  free(e->value);
  free(e->key);
  free(e);
}

static void unlink_entry(mjgCache* c, mjgCacheEntry* e) {
  for (mjgCacheEntry** p = &c->list; *p; p = &(*p)->next) {
    if (*p == e) {
      *p = e->next;
      return;
    }
  }
}

// drop the oldest unreferenced entries beyond keep (under the lock)
static void prune(mjgCache* c) {
  for (;;) {
    int idle = 0;
    mjgCacheEntry* oldest = NULL;
    for (mjgCacheEntry* e = c->list; e; e = e->next) {
      if (e->refs || e->status != mjgBUILT) continue;
      idle++;
      if (!oldest || e->released < oldest->released) oldest = e;
    }
    if (idle <= c->keep) return;
    unlink_entry(c, oldest);
    entry_free(c, oldest);
  }
}

const void* mjg_cache_acquire(mjgCache* c, mjgKey* key, mjgCacheBuild build, const void* input,
                              char* why, int size) {
  if (key->failed) {
    free(key->bytes);
    snprintf(why, size, "out of memory for the cache key");
    return NULL;
  }
  uint64_t hash = mjg_fnv1a(MJG_FNV1A_BASIS, key->bytes, key->size);

  // an equal input in the list: wait while another thread builds it
  pthread_mutex_lock(&c->lock);
  mjgCacheEntry* e = c->list;
  while (e && (e->hash != hash || e->nkey != key->size || memcmp(e->key, key->bytes, key->size))) {
    e = e->next;
  }
  if (e) {
    free(key->bytes);
    e->refs++;
    while (e->status == mjgBUILDING) pthread_cond_wait(&c->done, &c->lock);
    if (e->status == mjgBUILT) {
      pthread_mutex_unlock(&c->lock);
      return e->value;
    }
    snprintf(why, size, "%s", e->why);
    if (--e->refs == 0) entry_free(c, e);  // failed entries are out of the list already
    pthread_mutex_unlock(&c->lock);
    return NULL;
  }

  // none: build it here, outside the lock
  e = (mjgCacheEntry*)calloc(1, sizeof(mjgCacheEntry));
  void* value = e ? calloc(1, c->value_size) : NULL;
  if (!value) {
    pthread_mutex_unlock(&c->lock);
    free(e);
    free(key->bytes);
    snprintf(why, size, "out of memory");
    return NULL;
  }
  e->value = value;
  e->key = key->bytes;
  e->nkey = key->size;
  e->hash = hash;
  e->status = mjgBUILDING;
  e->refs = 1;
  e->next = c->list;
  c->list = e;
  pthread_mutex_unlock(&c->lock);

  int fail = build(input, e->value, e->why, sizeof(e->why));

  pthread_mutex_lock(&c->lock);
  c->builds++;
  e->status = fail ? mjgFAILED : mjgBUILT;
  if (fail) {
    unlink_entry(c, e);
    snprintf(why, size, "%s", e->why);
    if (--e->refs == 0) entry_free(c, e);
    e = NULL;
  }
  pthread_cond_broadcast(&c->done);
  pthread_mutex_unlock(&c->lock);
  return e ? e->value : NULL;
}

void mjg_cache_release(mjgCache* c, const void* value) {
  if (!value) return;
  pthread_mutex_lock(&c->lock);
  for (mjgCacheEntry* e = c->list; e; e = e->next) {
    if (e->value != value) continue;
    if (--e->refs == 0) e->released = ++c->releases;
    break;
  }
  prune(c);
  pthread_mutex_unlock(&c->lock);
}

long long mjg_cache_builds(mjgCache* c) {
  pthread_mutex_lock(&c->lock);
  long long builds = c->builds;
  pthread_mutex_unlock(&c->lock);
  return builds;
}
