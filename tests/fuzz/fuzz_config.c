// fuzz target for the config parser (plugin/config.c): mjg_config_read, as a terrain's init calls
// it, on a model of one plugin instance whose config values come from the input. MuJoCo reads a
// value with mj_getPluginConfig, which walks the model's plugin_attr (the instance's values in the
// order of its plugin's attributes, each ended by a 0); this builds that much of an mjModel.
//
// input: lines "key=value" (a later line wins, an unknown key is ignored) and "nbody=N", the
// model's bodies. Key bed_file is left out: a path makes the parser open a file, the bed-file
// reader has its own target (fuzz_bedfile.c).
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "config.h"
#include "state.h"

#define MAX_ATTR 64

// stop with the input's finding when a promise of config.h does not hold
static void require(int ok, const char* what, const char* msg) {
  if (ok) return;
  fprintf(stderr, "fuzz_config: %s (message: '%s')\n", what, msg);
  abort();
}

// slot of a plugin with the terrain's attributes, registered once
static int plugin_slot(void) {
  static int slot = -1;
  static const char* names[MAX_ATTR];
  if (slot >= 0) return slot;
  mjpPlugin p;
  mjp_defaultPlugin(&p);
  p.name = "mjgranular.fuzz_config";
  p.capabilityflags = mjPLUGIN_PASSIVE;
  p.nattribute = mjg_config_nattribute();
  if (p.nattribute > MAX_ATTR) abort();
  for (int i = 0; i < p.nattribute; i++) names[i] = mjg_config_name(i);
  p.attributes = names;
  slot = mjp_registerPlugin(&p);
  return slot;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int nattr = mjg_config_nattribute();
  const char* value[MAX_ATTR] = {0};
  size_t len[MAX_ATTR] = {0};
  int nbody = 1;

  // the lines: each value stops at its line's end or at a 0 byte (mjcf values hold none)
  const char* text = (const char*)data;
  for (size_t at = 0; at < size;) {
    const char* line = text + at;
    const char* end = memchr(line, '\n', size - at);
    size_t n = end ? (size_t)(end - line) : size - at;
    at += n + 1;
    const char* eq = memchr(line, '=', n);
    if (!eq) continue;
    size_t klen = (size_t)(eq - line), vlen = strnlen(eq + 1, n - klen - 1);
    if (klen == 5 && !memcmp(line, "nbody", 5)) {
      char num[16] = {0};
      memcpy(num, eq + 1, vlen < 15 ? vlen : 15);
      long v = strtol(num, NULL, 10);
      nbody = v < 1 ? 1 : v > 1000000 ? 1000000 : (int)v;
      continue;
    }
    for (int i = 0; i < nattr; i++) {
      const char* name = mjg_config_name(i);
      if (strlen(name) == klen && !memcmp(line, name, klen) && strcmp(name, "bed_file")) {
        value[i] = eq + 1;
        len[i] = vlen;
      }
    }
  }

  // plugin_attr: every attribute's value in table order, each ended by a 0 (empty: not given)
  size_t total = 0;
  for (int i = 0; i < nattr; i++) total += len[i] + 1;
  char* attr = (char*)calloc(total, 1);
  if (!attr) return 0;
  char* at = attr;
  for (int i = 0; i < nattr; at += len[i] + 1, i++) {
    if (len[i]) memcpy(at, value[i], len[i]);
  }
  static mjModel m;  // only what mj_getPluginConfig and the parser read: the rest stays zero
  int slot = plugin_slot(), adr = 0;
  mj_defaultOption(&m.opt);
  m.nbody = nbody;
  m.nplugin = 1;
  m.npluginattr = (int)total;
  m.plugin = &slot;
  m.plugin_attradr = &adr;
  m.plugin_attr = attr;

  // a refusal names a key of the table; a config that loads has a plugin_state MuJoCo can count
  mjgConfig cfg;
  char msg[MJG_MSG_SIZE];
  if (mjg_config_read(&m, 0, &cfg, msg, sizeof(msg))) {
    const char* prefix = MJG_PLUGIN_NAME ": config key '";
    require(!strncmp(msg, prefix, strlen(prefix)), "a refusal without the key", msg);
    const char* key = msg + strlen(prefix);
    int named = 0;
    for (int i = 0; i < nattr; i++) {
      const char* name = mjg_config_name(i);
      named |= !strncmp(key, name, strlen(name)) && key[strlen(name)] == '\'';
    }
    require(named, "a refusal naming no key of the table", msg);
  } else {
    require(cfg.count >= 1 && cfg.count <= 1 << 26, "a capacity outside [1, 2^26]", "");
    require(cfg.radius_min > 0 && cfg.radius_min <= cfg.radius, "radii out of order", "");
    require(mjg_state_size(cfg.count, cfg.spheres, nbody) <= INT_MAX,
            "a plugin_state beyond an int", "");
    // what init does next with a config that loads
    mjtNum gravity[3] = {0, 0, -9.81};
    grnParams params;
    mjg_config_warning(&cfg, msg, sizeof(msg));
    mjg_config_params(&cfg, 2e-3, gravity, nbody, 8, &params);
  }
  free(attr);
  return 0;
}
