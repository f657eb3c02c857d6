// matching a fields file to a terrain's grain types and packing it for the solver.
#include "cem_fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cem_file.h"
#include "geoms.h"
#include "shared_cache.h"

uint64_t mjg_cem_mesh_fingerprint(const mjModel* m, int id) {
  uint64_t h = mjg_fnv1a(MJG_FNV1A_BASIS, m->mesh_vert + 3 * (size_t)m->mesh_vertadr[id],
                         3 * (size_t)m->mesh_vertnum[id] * sizeof(float));
  return mjg_fnv1a(h, m->mesh_face + 3 * (size_t)m->mesh_faceadr[id],
                   3 * (size_t)m->mesh_facenum[id] * sizeof(int));
}

// the file's type named as mesh id of m with its fingerprint; -1 with why when there is none or
// it differs
static int file_type_of(const mjModel* m, int id, const grnCemFile* f, const char* path,
                        char* why, int why_size) {
  char buf[GRN_CEM_NAME_SIZE];
  const char* name = mjg_mesh_name(m, id, buf, sizeof(buf));
  for (int k = 0; k < f->ntype; k++) {
    if (strcmp(f->name[k], name)) continue;
    if (f->fingerprint[k] == mjg_cem_mesh_fingerprint(m, id)) return k;
    snprintf(why, why_size, "%s: mesh '%s' is not the one its fields were fitted to (its vertices "
             "or faces differ); fit them again", path, name);
    return -1;
  }
  snprintf(why, why_size, "%s holds no fields for mesh '%s'", path, name);
  return -1;
}

int mjg_cem_fields_load(const mjModel* m, const char* path, mjgGrainTypes* types, char* why,
                        int why_size) {
  grnCemFile f;
  if (grn_cem_file_read(path, &f, why, why_size)) return -1;
  int file_type[MJG_MAX_GRAIN_TYPES];
  grnCemFrame frame[MJG_MAX_GRAIN_TYPES];
  int fail = 0;
  for (int k = 0; k < types->ntype && !fail; k++) {
    const mjgGrainType* t = types->type + k;
    file_type[k] = t->mesh < 0 ? -1 : file_type_of(m, t->mesh, &f, path, why, why_size);
    fail = t->mesh >= 0 && file_type[k] < 0;
    for (int a = 0; a < 3; a++) frame[k].pos[a] = (float)t->pos[a];
    for (int a = 0; a < 4; a++) frame[k].quat[a] = (float)t->quat[a];
    frame[k].radius = (float)mjg_grain_equal_radius(t->volume);
  }
  long long count = fail ? -1 : grn_cem_pack(&f, types->ntype, file_type, frame, NULL);
  if (!fail && count < 0) {
    snprintf(why, why_size, "%s lacks the fields of a pair of the grain meshes; fit every pair",
             path);
  }
  float* packed = count > 0 ? (float*)malloc((size_t)count * sizeof(float)) : NULL;
  if (count > 0 && !packed) snprintf(why, why_size, "out of memory for the fields of %s", path);
  if (packed) grn_cem_pack(&f, types->ntype, file_type, frame, packed);
  grn_cem_file_free(&f);
  if (!packed) return -1;
  free(types->cem);
  types->cem = packed;
  types->cem_floats = count;
  return 0;
}
