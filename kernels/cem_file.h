// files of configuration-space contact fields (shape_model cem, grn_cem.h), as the fitting tool
// scripts/mjgranular/cem.py writes them, and their packing into the solver's field array.
//
// the file, little-endian: "MJGCEM02" (01, the 9-wide net input of earlier fits, is refused);
// uint32 ntype, npair; per type its mesh name (64 bytes, NUL-padded), uint64 fingerprint (FNV-1a
// of the mesh's float32 vertices then its int32 faces, as mujoco compiled them) and float32 bound
// [m]; per pair uint32 a <= b (type indices), float32 L [m], the distance net and the arm net
// (grn_cem.h): uint32 layers, uint32 widths (layers + 1), per layer float32 weights (out x in,
// row-major) and biases. the nets' inputs are in a's mesh frame.
#ifndef MJGRANULAR_CEM_FILE_H_
#define MJGRANULAR_CEM_FILE_H_

#include <stddef.h>
#include <stdint.h>

#include "grn_cem.h"   // the nets' limits: the file holds nets as the solver reads them

#ifdef __cplusplus
extern "C" {
#endif

#define GRN_CEM_NAME_SIZE 64      // bytes of a type's name in the file

// one net: its layer count, widths and numbers (weights and biases, layer by layer)
typedef struct grnCemNet_ {
  int nlayer;
  int width[GRN_CEM_MAX_LAYERS + 1];  // nlayer + 1 used
  float* numbers;
  int nnumber;
} grnCemNet;

// the fields of one pair of the file's types
typedef struct grnCemPair_ {
  int a, b;                 // types, a <= b: the nets' inputs are b's pose in a's mesh frame
  float scale;              // L [m]
  grnCemNet distance, arm;
} grnCemPair;

typedef struct grnCemFile_ {
  int ntype;
  char (*name)[GRN_CEM_NAME_SIZE];  // each type's mesh name                      (ntype)
  uint64_t* fingerprint;            // each type's mesh fingerprint               (ntype)
  float* bound;                     // each type's bound about its mesh origin [m] (ntype)
  int npair;
  grnCemPair* pair;                 //                                            (npair)
} grnCemFile;

// Read the fields file at path into out. On failure free everything, write why (the file, the
// offset and the cause: unreadable, not such a file, a count or width out of range, a type index
// out of range, a non-finite number, truncated or trailing bytes) and return -1.
int grn_cem_file_read(const char* path, grnCemFile* out, char* why, int why_size);

// Free a file read by grn_cem_file_read; a zeroed struct is fine.
void grn_cem_file_free(grnCemFile* file);

// A solver type's frame as the field array holds it: its body frame's origin (centre of mass)
// in its mesh's frame [m], its orientation there (w x y z), and the radius of a sphere of its
// volume [m].
typedef struct grnCemFrame_ {
  float pos[3], quat[4], radius;
} grnCemFrame;

// The solver's field array (grn_cem.h) for ntype solver types, solver type t being the file's
// type file_type[t] (-1: a type without fields) with frame frame[t]: its length in floats, and
// when out is not NULL the array written into it. -1 when two solver types with fields lack
// their pair in the file.
long long grn_cem_pack(const grnCemFile* file, int ntype, const int* file_type,
                       const grnCemFrame* frame, float* out);

// One net as the field array lays it out (grn_cem.h), written into out from offset at (out NULL:
// only counted); the offset past it.
long long grn_cem_pack_net(const grnCemNet* net, float* out, long long at);

#ifdef __cplusplus
}
#endif

#endif  // MJGRANULAR_CEM_FILE_H_
