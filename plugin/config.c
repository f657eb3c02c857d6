// configuration of an mjgranular.terrain instance: one table of attributes with defaults, units
// and ranges; strict parsing (a number must be the whole value, a box exactly six numbers); then
// the checks that involve several keys.
#include "config.h"

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bed.h"
#include "bedfile.h"
#include "clump_fit.h"
#include "grain_types.h"
#include "input_limits.h"
#include "state.h"

//---------------------------------- attribute table -----------------------------------------------

typedef enum mjgKind_ {
  mjgREAL = 0,              // one finite number                                 (double)
  mjgINT,                   // one integer                                       (int)
  mjgLONG,                  // one integer                                       (long long)
  mjgBOX,                   // six finite numbers lo[3] hi[3], hi > lo           (double[6])
  mjgWORD,                  // one of the attribute's words          (int: its index in words)
  mjgTEXT,                  // free text, read by its own module                 (not stored)
  mjgRANGE,                 // two finite numbers lo hi, hi > lo                 (double[2])
  mjgRADII,                 // one radius r, or rmin rmax: radii drawn in that range
                            //                            (double radius, radius_min after it)
} mjgKind;

typedef struct mjgAttr_ {
  const char* name;         // config key
  mjgKind kind;             // value type
  const char* def;          // default value; NULL: optional (has_offset says whether given)
  const char* unit;         // unit for messages, "" when dimensionless
  double lo, hi;            // allowed range of a number
  int lo_open;              // 1: lo itself is excluded
  size_t offset;            // field in mjgConfig
  ptrdiff_t has_offset;     // int flag in mjgConfig set when the user gave it; -1: none
  const char* const* words; // mjgWORD: the words allowed, NULL-terminated, in the order of the
                            // field's enum
} mjgAttr;

// the words of the mjgWORD keys, in the order of their enums
static const char* const kBackends[] = {"auto", "cpu", "cuda", NULL};      // grnBackend
static const char* const kCouplings[] = {"one-way", "two-way", NULL};     // two_way 0, 1
static const char* const kColors[] = {"height", "speed", "fixed", "spin", NULL};  // mjgColor
static const char* const kBools[] = {"false", "true", NULL};
static const char* const kModels[] = {"pj", "dem", "pbd", NULL};          // grnModel
static const char* const kLaws[] = {"hertz", "hooke", NULL};              // grnDemLaw
static const char* const kBroadphases[] = {"hash", "sorted", NULL};       // grnBroadphase
static const char* const kPbdPasses[] = {"newton", "averaged", NULL};   // grnPbdPasses
static const char* const kShapeModels[] = {"clump", "cem", NULL};         // mjgShapeModel

#define OFF(f) offsetof(mjgConfig, f)
_Static_assert(offsetof(mjgConfig, radius_min) == offsetof(mjgConfig, radius) + sizeof(double),
               "key radius writes radius and radius_min together");
#define MJG_QUOTE_(x) #x
#define MJG_QUOTE(x) MJG_QUOTE_(x)  // a number macro as its text

// the table: every key the plugin accepts, its default, unit and range
static const mjgAttr kAttr[] = {
  // name        kind        default  unit     lo    hi       lo_open field, given flag, words
  {"fill",       mjgBOX,     NULL,    "m",     0,    0,         0, OFF(fill), OFF(has_fill), NULL},
  {"count",      mjgINT,     NULL,    "",      1, GRN_MAX_GRAINS, 0, OFF(count), -1, NULL},
  {"radius",     mjgRADII,   "0.005", "m",     0,    1e3,       1, OFF(radius), -1, NULL},
  {"density",    mjgREAL,    "2500",  "kg/m^3", 0,   1e6,       1, OFF(density), -1, NULL},
  {"shape",      mjgTEXT,    NULL,    "",      0,    0,         0, 0, -1, NULL},
  {"shape_mix",  mjgTEXT,    NULL,    "",      0,    0,         0, 0, -1, NULL},
  {"clump_spheres", mjgINT, MJG_QUOTE(MJG_CLUMP_SPHERES_DEFAULT), "", 1, GRN_CLUMP_MAX_SPHERES, 0,
   OFF(clump_spheres), -1, NULL},
  {"shape_model", mjgWORD,   "clump", "",      0,    0,         0, OFF(shape_model), -1,
   kShapeModels},
  {"cem_fields", mjgTEXT,    NULL,    "",      0,    0,         0, 0, -1, NULL},
  {"friction",   mjgREAL,    "0.5",   "",      0,    1e3,       0, OFF(friction), -1, NULL},
  {"rolling_friction", mjgREAL, MJG_QUOTE(GRN_DEFAULT_ROLLING), "", 0, 1e3, 0,
   OFF(rolling_friction), -1, NULL},
  {"torsional_friction", mjgREAL, MJG_QUOTE(GRN_DEFAULT_TORSIONAL), "", 0, 1e3, 0,
   OFF(torsional_friction), -1, NULL},
  {"adhesion",   mjgREAL,    "0",     "Pa",    0,    1e9,       0, OFF(adhesion), OFF(has_adhesion),
   NULL},
  {"model",      mjgWORD,    "pj",    "",      0,    0,         0, OFF(model), -1, kModels},
  {"timestep",   mjgREAL,    "5e-4",  "s",     0,    1,         1, OFF(timestep),
   OFF(has_timestep), NULL},
  // model pj
  {"iterations", mjgINT,     "10",    "",      1,    10000,     0, OFF(iterations),
   OFF(has_iterations), NULL},
  {"baumgarte",  mjgREAL,    "0.2",   "",      0,    1,         0, OFF(baumgarte),
   OFF(has_baumgarte), NULL},
  // model pbd
  {"kinetic_friction", mjgREAL, NULL, "",      0,    1e3,       0, OFF(kinetic_friction),
   OFF(has_kinetic_friction), NULL},
  {"pbd_passes", mjgWORD,    "newton", "",    0,    0,         0, OFF(pbd_passes),
   OFF(has_pbd_passes), kPbdPasses},
  {"error_reduction", mjgREAL, "0",   "",      0,    1,         0, OFF(error_reduction),
   OFF(has_error_reduction), NULL},
  {"sleep",      mjgREAL,    "0",     "m",     0,    1,         0, OFF(sleep), OFF(has_sleep),
   NULL},
  // model dem
  {"law",        mjgWORD,    "hertz", "",      0,    0,         0, OFF(law), OFF(has_law), kLaws},
  {"youngs",     mjgREAL, MJG_QUOTE(GRN_DEFAULT_YOUNGS), "Pa", 0, 1e13, 1, OFF(youngs),
   OFF(has_youngs), NULL},
  {"poisson",    mjgREAL, MJG_QUOTE(GRN_DEFAULT_POISSON), "", -1, 0.5, 1, OFF(poisson),
   OFF(has_poisson), NULL},
  {"restitution", mjgREAL, MJG_QUOTE(GRN_DEFAULT_RESTITUTION), "", 0.01, 1, 0, OFF(restitution),
   OFF(has_restitution), NULL},
  {"stiffness",  mjgREAL,    NULL,    "N/m",   0,    1e12,      1, OFF(stiffness),
   OFF(has_stiffness), NULL},
  // the bed, its container and the bodies
  {"domain",     mjgBOX,     NULL,    "m",     0,    0,         0, OFF(domain), OFF(has_domain),
   NULL},
  {"spacing",    mjgREAL,    "2.2",   "radii", 2,    10,        1, OFF(spacing), -1, NULL},
  {"seed",       mjgLONG,    "0",     "",      0,    4.5e15,    0, OFF(seed), -1, NULL},
  {"backend",    mjgWORD,    "auto",  "",      0,    0,         0, OFF(backend), -1, kBackends},
  {"device",     mjgINT,     "0",     "",      0,    1023,      0, OFF(device), -1, NULL},
  {"broadphase", mjgWORD,    "sorted", "",     0,    0,         0, OFF(broadphase), -1,
   kBroadphases},
  {"bodies",     mjgTEXT,    NULL,    "",      0,    0,         0, 0, OFF(has_bodies), NULL},
  {"sdf_cell",   mjgREAL,    NULL,    "m",     0,    1,         1, OFF(sdf_cell), OFF(has_sdf_cell),
   NULL},
  {"coupling",   mjgWORD,    "two-way", "",    0,    0,         0, OFF(two_way), -1, kCouplings},
  {"color",      mjgWORD,    "height", "",     0,    0,         0, OFF(color), -1, kColors},
  {"color_range", mjgRANGE,  NULL,    "m or m/s", 0, 0,         0, OFF(color_range),
   OFF(has_color_range), NULL},
  {"cyclic_z",   mjgRANGE,   NULL,    "m",     0,    0,         0, OFF(cyclic_z), OFF(has_cyclic_z),
   NULL},
  {"settle",     mjgREAL,    "0",     "s",     0,    1e3,       0, OFF(settle), -1, NULL},
  {"bed_file",   mjgTEXT,    NULL,    "",      0,    0,         0, 0, -1, NULL},
  {"deterministic", mjgWORD, "true",  "",      0,    0,         0, OFF(deterministic), -1, kBools},
};

#undef OFF

#define NATTR ((int)(sizeof(kAttr) / sizeof(kAttr[0])))

int mjg_config_nattribute(void) { return NATTR; }

const char* mjg_config_name(int i) { return (i >= 0 && i < NATTR) ? kAttr[i].name : NULL; }

//---------------------------------- strict parsing ------------------------------------------------

int mjg_blank(const char* s) {
  while (*s && isspace((unsigned char)*s)) s++;
  return *s == 0;
}

// one finite decimal number at s into out, its end to *end; 0 when there is none. strtod also
// reads hex floats (0x1p-8), inf and nan: refused, as MJCF numbers are decimal
static int read_decimal(const char* s, double* out, char** end) {
  double v = strtod(s, end);
  if (*end == s || !isfinite(v)) return 0;
  for (const char* c = s; c < *end; c++) {
    if (!isdigit((unsigned char)*c) && !strchr("+-.eE", *c)) return 0;
  }
  *out = v;
  return 1;
}

// one decimal integer that is the whole string
static int parse_long(const char* s, long long* out) {
  char* end;
  if (mjg_blank(s)) return 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || !mjg_blank(end)) return 0;
  *out = v;
  return 1;
}

// s without surrounding white space into out; 0 if it does not fit
static int trim_copy(const char* s, char* out, int size) {
  while (*s && isspace((unsigned char)*s)) s++;
  int n = (int)strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
  if (n >= size) return 0;
  memcpy(out, s, n);
  out[n] = 0;
  return 1;
}

int mjg_parse_reals(const char* s, double* out, int n) {
  const char* p = s;
  for (int i = 0; i < n; i++) {
    char* end;
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p || !read_decimal(p, out + i, &end)) return 0;
    if (*end && !isspace((unsigned char)*end)) return 0;
    p = end;
  }
  return mjg_blank(p);
}

int mjg_config_refuse(char* msg, int size, const char* key, const char* value, const char* why) {
  if (msg && size > 0 && value) {
    snprintf(msg, size, MJG_PLUGIN_NAME ": config key '%s' = '%s': %s", key, value, why);
  } else if (msg && size > 0) {
    snprintf(msg, size, MJG_PLUGIN_NAME ": config key '%s' %s", key, why);
  }
  return -1;
}

// range text such as "must be > 0 [m]" or "must be in [1, 10000]"
static void range_text(const mjgAttr* a, char* buf, int size) {
  char unit[32] = "";
  if (a->unit[0]) snprintf(unit, sizeof(unit), " [%s]", a->unit);
  if (a->kind == mjgREAL && a->lo_open) {
    snprintf(buf, size, "must be a number > %g and <= %g%s", a->lo, a->hi, unit);
  } else if (a->kind == mjgREAL) {
    snprintf(buf, size, "must be a number in [%g, %g]%s", a->lo, a->hi, unit);
  } else {
    snprintf(buf, size, "must be an integer in [%.0f, %.0f]%s", a->lo, a->hi, unit);
  }
}

// 1 if v, above lo, is still above it as the float the solver computes in; a positive value
// must also be a normal float (not 0 and not subnormal, whose inverse overflows)
static int float_above(double v, double lo) {
  float f = (float)v;
  return f > (float)lo && (lo != 0 || f >= FLT_MIN);
}

static const char* const kFloatWhy =
    "is out of range as the 32-bit float the solver computes in (the smallest positive float is "
    "1.17549e-38)";

// parse value into the field of cfg described by a; -1 with a message on failure
static int parse_attr(const mjgAttr* a, const char* value, mjgConfig* cfg, char* msg, int size) {
  char* field = (char*)cfg + a->offset;
  char why[128];
  switch (a->kind) {
    case mjgREAL: {
      double v;
      range_text(a, why, sizeof(why));
      if (!mjg_parse_reals(value, &v, 1)) return mjg_config_refuse(msg, size, a->name, value, why);
      if (v < a->lo || (a->lo_open && v == a->lo) || v > a->hi) {
        return mjg_config_refuse(msg, size, a->name, value, why);
      }
      if (a->lo_open && !float_above(v, a->lo)) {
        return mjg_config_refuse(msg, size, a->name, value, kFloatWhy);
      }
      *(double*)field = v;
      return 0;
    }
    case mjgINT:
    case mjgLONG: {
      long long v;
      range_text(a, why, sizeof(why));
      if (!parse_long(value, &v) || v < a->lo || v > a->hi) {
        return mjg_config_refuse(msg, size, a->name, value, why);
      }
      if (a->kind == mjgINT) {
        *(int*)field = (int)v;
      } else {
        *(long long*)field = v;
      }
      return 0;
    }
    case mjgBOX: {
      double* box = (double*)field;
      if (!mjg_parse_reals(value, box, 6)) {
        return mjg_config_refuse(msg, size, a->name, value,
                                 "must be 6 numbers: xlo ylo zlo xhi yhi zhi [m]");
      }
      for (int i = 0; i < 3; i++) {
        if (!(box[3 + i] > box[i])) {
          return mjg_config_refuse(msg, size, a->name, value,
                                   "empty box: each of xhi yhi zhi must exceed xlo ylo zlo");
        }
      }
      return 0;
    }
    case mjgWORD: {
      char word[32];
      if (trim_copy(value, word, sizeof(word))) {
        for (int w = 0; a->words[w]; w++) {
          if (!strcmp(word, a->words[w])) {
            *(int*)field = w;
            return 0;
          }
        }
      }
      int len = snprintf(why, sizeof(why), "must be one of");
      for (int w = 0; a->words[w] && len < (int)sizeof(why); w++) {
        len += snprintf(why + len, sizeof(why) - len, "%s %s", w ? "," : "", a->words[w]);
      }
      return mjg_config_refuse(msg, size, a->name, value, why);
    }
    case mjgTEXT:
      return 0;
    case mjgRANGE: {
      double* range = (double*)field;
      if (!mjg_parse_reals(value, range, 2) || !(range[1] > range[0])) {
        snprintf(why, sizeof(why), "must be 2 numbers lo hi with hi > lo [%s]", a->unit);
        return mjg_config_refuse(msg, size, a->name, value, why);
      }
      return 0;
    }
    case mjgRADII: {
      // one number r (every grain r), or rmin rmax; stored as radius (the largest), radius_min
      double r[2], *out = (double*)field;
      snprintf(why, sizeof(why), "must be a radius, or 2 radii rmin rmax, each > 0 and <= %g, "
               "rmax / rmin <= %d [m]", a->hi, MJG_MAX_SIZE_RATIO);
      if (mjg_parse_reals(value, r, 1)) {
        r[1] = r[0];
      } else if (!mjg_parse_reals(value, r, 2)) {
        return mjg_config_refuse(msg, size, a->name, value, why);
      }
      if (!(r[0] > 0 && r[1] >= r[0] && r[1] <= a->hi && r[1] <= MJG_MAX_SIZE_RATIO * r[0])) {
        return mjg_config_refuse(msg, size, a->name, value, why);
      }
      if (!float_above(r[0], 0)) return mjg_config_refuse(msg, size, a->name, value, kFloatWhy);
      out[0] = r[1];
      out[1] = r[0];
      return 0;
    }
  }
  return mjg_config_refuse(msg, size, a->name, value, "unknown attribute kind");
}

//---------------------------------- reading a config ----------------------------------------------

// the time scale of a dem config's smallest grains (grn_dem_time_scale) [s]
static double dem_time_scale(const mjgConfig* cfg) {
  grnParams p;
  mjtNum zero[3] = {0, 0, 0};
  mjg_config_params(cfg, 1, zero, 0, 0, &p);
  return grn_dem_time_scale(&p, cfg->smallest);
}

const char* mjg_config_value(const mjModel* m, int instance, const char* key) {
  const char* v = mj_getPluginConfig(m, instance, key);
  return (v && !mjg_blank(v)) ? v : NULL;
}

// key shape: the grain types, each the word sphere or the name of a mesh of m; key shape_mix:
// their shares of the grains (default equal). Writes ntype, type_mesh, type_mix, spheres, reach
// and smallest; -1 with a message naming the key. 1 when m's meshes are not compiled yet (when
// mujoco sizes plugin_state): reach and smallest are then unknown (NAN)
static int read_shapes(const mjModel* m, int instance, mjgConfig* cfg, char* msg, int size) {
  const char* text = mjg_config_value(m, instance, "shape");
  char why[MJG_MSG_SIZE - 128];
  cfg->ntype = 1;
  cfg->type_mesh[0] = -1;
  const char* p = text;
  for (int k = 0; p && !mjg_blank(p); k++) {
    while (isspace((unsigned char)*p)) p++;
    int len = 0;
    while (p[len] && !isspace((unsigned char)p[len])) len++;
    char name[128];
    if (len >= (int)sizeof(name)) {
      return mjg_config_refuse(msg, size, "shape", text, "holds a name longer than 127 bytes");
    }
    memcpy(name, p, len);
    name[len] = 0;
    p += len;
    if (k == MJG_MAX_GRAIN_TYPES) {
      snprintf(why, sizeof(why), "names more than %d grain types", MJG_MAX_GRAIN_TYPES);
      return mjg_config_refuse(msg, size, "shape", text, why);
    }
    int sphere = !strcmp(name, "sphere"), mesh = sphere ? -1 : mj_name2id(m, mjOBJ_MESH, name);
    if (!sphere && mesh < 0) {
      snprintf(why, sizeof(why), "'%s' is neither 'sphere' nor the name of a mesh of the model",
               name);
      return mjg_config_refuse(msg, size, "shape", text, why);
    }
    for (int j = 0; j < k; j++) {
      if (cfg->type_mesh[j] != mesh) continue;
      snprintf(why, sizeof(why), "names '%s' twice", name);
      return mjg_config_refuse(msg, size, "shape", text, why);
    }
    cfg->type_mesh[k] = mesh;
    cfg->ntype = k + 1;
  }

  // the shares: numbers >= 0 that sum to 1
  const char* mix = mjg_config_value(m, instance, "shape_mix");
  for (int k = 0; k < cfg->ntype; k++) cfg->type_mix[k] = 1.0 / cfg->ntype;
  if (mix) {
    double sum = 0;
    int ok = mjg_parse_reals(mix, cfg->type_mix, cfg->ntype);
    for (int k = 0; ok && k < cfg->ntype; k++) {
      ok = cfg->type_mix[k] >= 0;
      sum += cfg->type_mix[k];
    }
    if (!ok || fabs(sum - 1) > 1e-6) {
      snprintf(why, sizeof(why), "must be %d numbers >= 0 that sum to 1, a share of the grains "
               "for each type of key 'shape'", cfg->ntype);
      return mjg_config_refuse(msg, size, "shape_mix", mix, why);
    }
  }

  // the sizes: a sphere's from key radius, a mesh's from its solid
  cfg->reach = 0;
  cfg->smallest = INFINITY;
  int meshes = 0, compiled = 1;
  for (int k = 0; k < cfg->ntype; k++) {
    double reach = cfg->radius, equal = cfg->radius_min;
    if (cfg->type_mesh[k] >= 0 && !m->mesh_vertnum[cfg->type_mesh[k]]) {
      meshes = 1;
      compiled = 0;
      reach = equal = NAN;
    } else if (cfg->type_mesh[k] >= 0) {
      meshes = 1;
      char cause[MJG_MSG_SIZE - 256];
      if (mjg_grain_mesh_size(m, cfg->type_mesh[k], &reach, &equal, cause, sizeof(cause))) {
        return mjg_config_refuse(msg, size, "shape", text, cause);
      }
    }
    cfg->reach = compiled ? fmax(cfg->reach, reach) : NAN;
    cfg->smallest = compiled ? fmin(cfg->smallest, equal) : NAN;
  }
  int cem = cfg->shape_model == mjgSHAPE_CEM;
  cfg->spheres = meshes ? cfg->clump_spheres + cem : 1;
  const char* fields = mjg_config_value(m, instance, "cem_fields");
  if (fields && !cem) {
    return mjg_config_refuse(msg, size, "cem_fields", fields,
                             "is read with shape_model 'cem' only; shape_model is 'clump'");
  }
  if (cem && !meshes) {
    return mjg_config_refuse(msg, size, "shape_model", "cem",
                             "needs mesh grains: key 'shape' names no mesh");
  }
  if (cem && cfg->model != grnMODEL_DEM) {
    return mjg_config_refuse(msg, size, "shape_model", "cem",
                             "contact fields push with the dem law: set model 'dem'");
  }
  if (cem && !fields) {
    return mjg_config_refuse(msg, size, "cem_fields", NULL,
                             "is missing: shape_model 'cem' needs the file of fitted fields "
                             "(python -m mjgranular.cem fit)");
  }
  if (!meshes) return 0;

  // what mesh grains do not take (yet)
  if (cfg->radius_min < cfg->radius) {
    return mjg_config_refuse(msg, size, "radius", mjg_config_value(m, instance, "radius"),
                             "must be one radius when key 'shape' names meshes");
  }
  if (cfg->model == grnMODEL_PBD) {
    return mjg_config_refuse(msg, size, "shape", text,
                             "mesh grains move as rigid clumps under models pj and dem; model "
                             "'pbd' has none");
  }
  if (!mjg_config_value(m, instance, "count") && !mjg_config_value(m, instance, "bed_file")) {
    return mjg_config_refuse(msg, size, "count", NULL,
                             "is missing: with mesh grains (key 'shape') give the capacity, or a "
                             "'bed_file', as MuJoCo sizes plugin_state before it compiles the "
                             "meshes");
  }
  return compiled ? 0 : 1;
}

// the most grains of at most `spheres` spheres whose plugin_state MuJoCo can count, in a model of
// nbody bodies
static int max_state_grains(int spheres, int nbody) {
  int lo = 0, hi = GRN_MAX_GRAINS / spheres;
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    if (mjg_state_size(mid, spheres, nbody) <= INT_MAX) lo = mid; else hi = mid - 1;
  }
  return lo;
}

int mjg_config_read(const mjModel* m, int instance, mjgConfig* cfg, char* msg, int size) {
  memset(cfg, 0, sizeof(*cfg));
  if (msg && size > 0) msg[0] = 0;

  // every key: given value, else default, parsed by the same strict rules
  for (int i = 0; i < NATTR; i++) {
    const mjgAttr* a = kAttr + i;
    const char* given = mjg_config_value(m, instance, a->name);
    const char* value = given ? given : a->def;
    if (!value) continue;
    if (parse_attr(a, value, cfg, msg, size)) return -1;
    if (given && a->has_offset >= 0) *(int*)((char*)cfg + a->has_offset) = 1;
  }
  int sized = read_shapes(m, instance, cfg, msg, size);
  if (sized < 0) return -1;
  int count_given = mjg_config_value(m, instance, "count") != NULL;
  const char* fill_text = mjg_config_value(m, instance, "fill");
  const char* bed_file = mjg_config_value(m, instance, "bed_file");

  // a bed needs a fill box or a bed file, or at least a capacity
  if (!cfg->has_fill && !bed_file && !count_given) {
    return mjg_config_refuse(msg, size, "fill", NULL,
                             "is missing: give the box to fill with grains, a 'bed_file' saved "
                             "from an earlier run, or 'count' for an empty bed");
  }
  if (cfg->has_fill && bed_file) {
    return mjg_config_refuse(msg, size, "bed_file", bed_file,
                             "the initial bed comes from the file or from key 'fill', give only "
                             "one");
  }

  // a bed file: readable, and no more grains than count allows (by default exactly its grains)
  if (bed_file) {
    mjgBedFileInfo info;
    char why[MJG_MSG_SIZE - 128];
    if (mjg_bedfile_info(bed_file, &info, why, sizeof(why))) {
      return mjg_config_refuse(msg, size, "bed_file", bed_file, why);
    }
    if (count_given && info.n > cfg->count) {
      snprintf(why, sizeof(why), "holds %d grains, more than key 'count' = '%d' allows", info.n,
               cfg->count);
      return mjg_config_refuse(msg, size, "bed_file", bed_file, why);
    }
    if (!count_given && info.n == 0) {
      return mjg_config_refuse(msg, size, "bed_file", bed_file,
                               "holds no grains; give key 'count' for an empty bed of that "
                               "capacity");
    }
    if (!count_given) cfg->count = info.n;
  }

  // the fill box must hold at least one grain, and no more than count allows (mesh grains: once
  // their meshes are compiled)
  if (cfg->has_fill && sized == 0) {
    double need = mjg_bed_count(cfg->fill, cfg->reach, cfg->spacing, NULL);
    char why[256];
    if (need <= 0) {
      snprintf(why, sizeof(why), "box is thinner than one grain (diameter %g m) on some axis",
               2 * cfg->reach);
      return mjg_config_refuse(msg, size, "fill", fill_text, why);
    }
    if (need > GRN_MAX_GRAINS) {
      snprintf(why, sizeof(why), "box needs %.4g grains of radius %g m, more than the limit %d",
               need, cfg->reach, GRN_MAX_GRAINS);
      return mjg_config_refuse(msg, size, "fill", fill_text, why);
    }
    if (count_given && need > cfg->count) {
      snprintf(why, sizeof(why), "box needs %.0f grains of radius %g m, more than key 'count' = "
               "'%d' allows", need, cfg->reach, cfg->count);
      return mjg_config_refuse(msg, size, "fill", fill_text, why);
    }
    if (!count_given) cfg->count = (int)need;
  }

  // the solver holds each sphere of a mesh grain as a grain
  if ((double)cfg->count * cfg->spheres > GRN_MAX_GRAINS) {
    char why[256];
    snprintf(why, sizeof(why), "%d grains of up to %d spheres each make more than the solver's "
             "limit of %d spheres", cfg->count, cfg->spheres, GRN_MAX_GRAINS);
    return mjg_config_refuse(msg, size, "clump_spheres",
                             mjg_config_value(m, instance, "clump_spheres"), why);
  }

  // a plugin_state MuJoCo can count (an int)
  size_t state_size = mjg_state_size(cfg->count, cfg->spheres, m->nbody);
  if (state_size > INT_MAX) {
    const char* key = count_given ? "count" : cfg->has_fill ? "fill" : "bed_file";
    char why[256];
    snprintf(why, sizeof(why), "needs a plugin_state of %zu numbers for %d grains, more than "
             "MuJoCo's limit of %d; at most %d grains fit", state_size, cfg->count, INT_MAX,
             max_state_grains(cfg->spheres, m->nbody));
    return mjg_config_refuse(msg, size, key, mjg_config_value(m, instance, key), why);
  }

  // pbd: friction of sliding contacts no more than of sticking ones
  if (!cfg->has_kinetic_friction) cfg->kinetic_friction = cfg->friction;
  if (cfg->kinetic_friction > cfg->friction) {
    char why[128];
    snprintf(why, sizeof(why), "must be at most key 'friction' = '%g' (sliding grips less than "
             "sticking)", cfg->friction);
    return mjg_config_refuse(msg, size, "kinetic_friction",
                             mjg_config_value(m, instance, "kinetic_friction"), why);
  }
  if (cfg->model == grnMODEL_DEM && cfg->adhesion > 0) {
    return mjg_config_refuse(msg, size, "adhesion", mjg_config_value(m, instance, "adhesion"),
                             "applies to models pj and pbd; model 'dem' has no cohesion");
  }

  // dem: a substep that resolves the contacts of the smallest grains unless told
  if (cfg->model == grnMODEL_DEM && !cfg->has_timestep) {
    cfg->timestep = GRN_DEM_DT_FRACTION * dem_time_scale(cfg);
  }

  // mesh grids: one node per grain radius unless told (mesh grains: the smallest one's)
  if (!cfg->has_sdf_cell) cfg->sdf_cell = mjg_config_meshes(cfg) ? cfg->smallest : cfg->radius;

  // the cyclic range holds a few grains and the fill box
  if (cfg->has_cyclic_z) {
    const char* text = mjg_config_value(m, instance, "cyclic_z");
    if (sized == 0 && !(cfg->cyclic_z[1] - cfg->cyclic_z[0] > 4 * cfg->reach)) {
      return mjg_config_refuse(msg, size, "cyclic_z", text,
                               "range must exceed two grain diameters");
    }
    if (cfg->has_fill && (cfg->fill[2] < cfg->cyclic_z[0] || cfg->fill[5] > cfg->cyclic_z[1])) {
      return mjg_config_refuse(msg, size, "fill", fill_text,
                               "box must lie within the z range of key 'cyclic_z'");
    }
  }

  // the fill box lies inside the domain
  if (cfg->has_fill && cfg->has_domain) {
    for (int i = 0; i < 3; i++) {
      if (cfg->fill[i] < cfg->domain[i] || cfg->fill[3 + i] > cfg->domain[3 + i]) {
        return mjg_config_refuse(msg, size, "fill", fill_text,
                                 "box must lie inside the box of key 'domain'");
      }
    }
  }

  // the work of a step and of settling at the model's option timestep
  char why[MJG_MSG_SIZE - 32];
  if (mjg_limits_step(m, instance, cfg, why, sizeof(why)) ||
      mjg_limits_settle(m, instance, cfg, why, sizeof(why))) {
    if (msg && size > 0) snprintf(msg, size, MJG_PLUGIN_NAME ": %s", why);
    return -1;
  }
  return 0;
}

int mjg_config_meshes(const mjgConfig* cfg) {
  for (int k = 0; k < cfg->ntype; k++) {
    if (cfg->type_mesh[k] >= 0) return 1;
  }
  return 0;
}

int mjg_config_warning(const mjgConfig* cfg, char* msg, int size) {
  int dem = cfg->model == grnMODEL_DEM;
  // the keys of other models that were given, with the models that read them
  enum { PJ = 1 << grnMODEL_PJ, DEM = 1 << grnMODEL_DEM, PBD = 1 << grnMODEL_PBD };
  struct { const char* name; int given, models; const char* which; } keys[] = {
    {"iterations", cfg->has_iterations, PJ | PBD, "pj and pbd"},
    {"baumgarte", cfg->has_baumgarte, PJ, "pj"},
    {"law", cfg->has_law, DEM, "dem"},
    {"youngs", cfg->has_youngs, DEM | PBD, "dem and pbd"},
    {"poisson", cfg->has_poisson, DEM | PBD, "dem and pbd"},
    {"restitution", cfg->has_restitution, DEM | PBD, "dem and pbd"},
    {"stiffness", cfg->has_stiffness, DEM | PBD, "dem and pbd"},
    {"kinetic_friction", cfg->has_kinetic_friction, PBD, "pbd"},
    {"pbd_passes", cfg->has_pbd_passes, PBD, "pbd"},
    {"error_reduction", cfg->has_error_reduction, PBD, "pbd"},
    {"sleep", cfg->has_sleep, PBD, "pbd"},
  };
  for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
    if (keys[k].given && !(keys[k].models & (1 << cfg->model))) {
      snprintf(msg, size, MJG_PLUGIN_NAME ": config key '%s' applies to model %s only; model "
               "'%s' ignores it", keys[k].name, keys[k].which, kModels[cfg->model]);
      return 1;
    }
  }
  if (dem && cfg->has_stiffness && cfg->law != grnLAW_HOOKE) {
    snprintf(msg, size, MJG_PLUGIN_NAME ": config key 'stiffness' applies to law hooke only; law "
             "'hertz' ignores it");
    return 1;
  }
  // explicit contacts need a substep well inside the contact time
  double time = dem ? dem_time_scale(cfg) : 0;
  if (dem && cfg->timestep > GRN_DEM_DT_LIMIT * time) {
    snprintf(msg, size, MJG_PLUGIN_NAME ": config key 'timestep' = '%g' is above %g s, %g of the "
             "contact time scale of the smallest grains (radius %g m): dem contacts will be "
             "inaccurate or unstable; the default is %g s", cfg->timestep, GRN_DEM_DT_LIMIT * time,
             GRN_DEM_DT_LIMIT, cfg->smallest, GRN_DEM_DT_FRACTION * time);
    return 1;
  }
  return 0;
}

void mjg_config_params(const mjgConfig* cfg, double dt, const mjtNum gravity[3], int nbody,
                       int max_shapes, grnParams* p) {
  grn_default_params(p);
  p->capacity = cfg->count;
  p->radius = (float)cfg->radius;
  p->density = (float)cfg->density;
  p->friction = (float)cfg->friction;
  p->kinetic_friction = (float)cfg->kinetic_friction;
  p->adhesion = (float)cfg->adhesion;
  p->pbd_passes = cfg->pbd_passes;
  p->error_reduction = (float)cfg->error_reduction;
  p->sleep = (float)cfg->sleep;
  p->rolling_friction = (float)cfg->rolling_friction;
  p->torsional_friction = (float)cfg->torsional_friction;
  p->dt = (float)dt;
  p->iterations = cfg->iterations;
  p->baumgarte = (float)cfg->baumgarte;
  for (int i = 0; i < 3; i++) p->gravity[i] = (float)gravity[i];
  p->max_shapes = max_shapes;
  p->max_bodies = nbody;
  if (cfg->has_cyclic_z) {
    p->cyclic_z[0] = (float)cfg->cyclic_z[0];
    p->cyclic_z[1] = (float)cfg->cyclic_z[1];
  }
  p->deterministic = cfg->deterministic;
  p->device = cfg->device;
  p->broadphase = cfg->broadphase;
  p->model = cfg->model;
  p->law = cfg->law;
  p->youngs = (float)cfg->youngs;
  p->poisson = (float)cfg->poisson;
  p->restitution = (float)cfg->restitution;
  p->stiffness = (float)cfg->stiffness;
}
