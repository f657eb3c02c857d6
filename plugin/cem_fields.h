// the contact fields of a terrain's mesh grain types (shape_model cem): the fields file of key
// cem_fields matched to the types' meshes and packed for the solver (kernels/cem_file.h).
#ifndef MJGRANULAR_PLUGIN_CEM_FIELDS_H_
#define MJGRANULAR_PLUGIN_CEM_FIELDS_H_

#include <mujoco/mujoco.h>

#include "grain_types.h"

// Read the fields file at path and pack the fields of types (built from m's meshes) into
// types->cem (types->cem_floats floats): each mesh type takes the file's type of its mesh's name,
// whose fingerprint must be that of the mesh as m compiled it, and every pair of mesh types needs
// its fields in the file. On failure write the cause (the file's, or the mesh that is missing,
// differs or lacks a pair) into why and return -1.
int mjg_cem_fields_load(const mjModel* m, const char* path, mjgGrainTypes* types, char* why,
                        int why_size);

// The fingerprint of mesh id of m as a fields file records it: FNV-1a of its float32 vertices,
// then its int32 faces.
uint64_t mjg_cem_mesh_fingerprint(const mjModel* m, int id);

#endif  // MJGRANULAR_PLUGIN_CEM_FIELDS_H_
