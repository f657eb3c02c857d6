// initial beds saved from earlier runs (the `bed_file` key): a small versioned binary format,
// written by save_bed in scripts/mjgranular/bedfile.py and read here. All numbers little-endian:
//
//   offset       size     content
//   0            8        magic "MJGBED" followed by two zero bytes
//   8            4        uint32 format version (MJG_BEDFILE_VERSION)
//   12           4        uint32 flags: bit 0 set when a contact state follows the grains
//   16           4        int32 grain count n >= 0
//   20           4        uint32 contact model of the contact state (grnModel: 0 projected
//                         jacobi, 1 dem, 2 pbd); a bed loaded by another model keeps its grains
//                         and drops the contact state
//   24           8        float64 grain radius [m]: key radius (of spheres, the largest)
//   32           4        uint32 s: solver spheres per grain of the contact state (1 for
//                         spheres; with mesh grains key clump_spheres)
//   36           4        uint32 grain types (key shape; 1 for spheres)
//   40           8        uint64 fingerprint of the grain types' clumps (mjg_grain_types_hash;
//                         0 for spheres): a bed loads only into a terrain of the same types
//   48           12 n     float32 positions (n x 3), world frame [m]
//   48 + 12 n    12 n     float32 velocities (n x 3), world frame [m/s]
//   48 + 24 n    12 n     float32 angular velocities (n x 3), world frame [rad/s]
//   48 + 36 n    16 n     float32 orientations (n x 4): unit quaternions (w, x, y, z), body to
//                         world, each of norm 1 within GRN_ORIENTATION_TOLERANCE
//   48 + 52 n    4 n      float32 radii (n) [m], each in (0, the header's radius] (mesh grains:
//                         their bounding radii, which the terrain sets from their types)
//   48 + 56 n    4 n      uint32 grain types (n), each below the header's count
//   48 + 60 n    568 n s  contact state (flag bit 0): the solver's contact layout for capacity
//                         n s, slot k of solver grain i at k n s + i: int32 npair, nshape,
//                         pair (16 slots), sc_shape (4); float32 pair_lin (16 x 3),
//                         sc_lin (4 x 3), pair_rot (16 x 3), sc_rot (4 x 3)
//
// The file ends there; a longer or shorter file is refused. Older versions still load into a
// terrain of spheres: version 3 files have a 32-byte header (no s, types or fingerprint) and no
// types; version 2 files also no orientations (grains at the identity, 40 n bytes); version 1
// files (grains of one size that did not rotate) load at zero spin too: no angular velocities or
// radii (every grain has the header's radius), and a contact state of 328 n bytes that ends after
// sc_lin (no angular impulses).
#ifndef MJGRANULAR_PLUGIN_BEDFILE_H_
#define MJGRANULAR_PLUGIN_BEDFILE_H_

#include <stdint.h>

#include "bed.h"

#define MJG_BEDFILE_VERSION 4
#define MJG_BEDFILE_HEADER 48     // bytes before the positions (versions 1 to 3: 32)

// what a bed file's header says
typedef struct mjgBedFileInfo_ {
  int version;              // format version (1 to MJG_BEDFILE_VERSION)
  int n;                    // grains
  double radius;            // grain radius [m]
  int has_contacts;         // 1: a contact state follows the velocities
  int model;                // contact model of the contact state (grnModel)
  int spheres;              // solver spheres per grain of the contact state (before 4: 1)
  int ntype;                // grain types (before 4: 1)
  uint64_t types_hash;      // fingerprint of the grain types (before 4: 0, spheres)
} mjgBedFileInfo;

// the grains a terrain takes from a bed file
typedef struct mjgBedKind_ {
  double radius;            // key radius [m]
  double reach;             // the largest grain's bounding radius [m] (spheres: radius)
  int spheres;              // solver spheres per grain (the config's)
  int ntype;                // grain types (key shape)
  uint64_t types_hash;      // mjg_grain_types_hash of the terrain's types (0: spheres)
} mjgBedKind;

// Read and check the header of the bed file at path, and the file's size against it. On failure
// return -1 with the cause in why (missing file, not a regular file, not a bed file, unknown
// version, more grains than GRN_MAX_GRAINS, truncated, ...).
int mjg_bedfile_info(const char* path, mjgBedFileInfo* info, char* why, int why_size);

// Read the bed file at path into bed (allocated here for capacity cap, with a contact state when
// the file has one of this contact model; free with mjg_bed_free) for a terrain of this kind.
// Refused with -1 and the cause in why: anything mjg_bedfile_info refuses, more grains than cap,
// a radius other than kind->radius (relative 1e-6), other grain types (count or fingerprint) or
// spheres per grain, a non-finite position or velocity, an orientation not a unit quaternion, a
// radius not in (0, kind->reach], a type not below the types' count, a contact count beyond the
// slots, more than MJG_MAX_GRAINS_PER_CELL grains in one cube a grain diameter (of reach) wide.
int mjg_bedfile_read(const char* path, int cap, const mjgBedKind* kind, grnModel model,
                     mjgBed* bed, char* why, int why_size);

#endif  // MJGRANULAR_PLUGIN_BEDFILE_H_
