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
//   24           8        float64 grain radius [m]: the largest
//   32           12 n     float32 positions (n x 3), world frame [m]
//   32 + 12 n    12 n     float32 velocities (n x 3), world frame [m/s]
//   32 + 24 n    12 n     float32 angular velocities (n x 3), world frame [rad/s]
//   32 + 36 n    16 n     float32 orientations (n x 4): unit quaternions (w, x, y, z), body to
//                         world, each of norm 1 within GRN_ORIENTATION_TOLERANCE
//   32 + 52 n    4 n      float32 radii (n) [m], each in (0, the header's radius]
//   32 + 56 n    568 n    contact state (flag bit 0): the solver's contact layout for capacity n,
//                         slot k of grain i at k n + i: int32 npair (n), nshape (n),
//                         pair (16 x n), sc_shape (4 x n); float32 pair_lin (16 x n x 3),
//                         sc_lin (4 x n x 3), pair_rot (16 x n x 3), sc_rot (4 x n x 3)
//
// The file ends there; a longer or shorter file is refused. Older versions still load, every
// grain at the identity orientation: version 2 files have no orientations (grains 40 n bytes);
// version 1 files (grains of one size that did not rotate) load at zero spin too: no angular
// velocities or radii (every grain has the header's radius), and a contact state of 328 n bytes
// that ends after sc_lin (no angular impulses).
#ifndef MJGRANULAR_PLUGIN_BEDFILE_H_
#define MJGRANULAR_PLUGIN_BEDFILE_H_

#include "bed.h"

#define MJG_BEDFILE_VERSION 3
#define MJG_BEDFILE_HEADER 32     // bytes before the positions

// what a bed file's header says
typedef struct mjgBedFileInfo_ {
  int version;              // format version (1 to MJG_BEDFILE_VERSION)
  int n;                    // grains
  double radius;            // grain radius [m]
  int has_contacts;         // 1: a contact state follows the velocities
  int model;                // contact model of the contact state (grnModel)
} mjgBedFileInfo;

// Read and check the header of the bed file at path, and the file's size against it. On failure
// return -1 with the cause in why (missing file, not a regular file, not a bed file, unknown
// version, more grains than GRN_MAX_GRAINS, truncated, ...).
int mjg_bedfile_info(const char* path, mjgBedFileInfo* info, char* why, int why_size);

// Read the bed file at path into bed (allocated here for capacity cap, with a contact state when
// the file has one of this contact model; free with mjg_bed_free). Refused with -1 and the cause
// in why: anything mjg_bedfile_info refuses, more grains than cap, a radius other than radius
// (relative 1e-6), a non-finite position or velocity, an orientation not a unit quaternion, a
// radius not in (0, radius], a contact count beyond the slots, more than MJG_MAX_GRAINS_PER_CELL
// grains in one cube a grain diameter wide.
int mjg_bedfile_read(const char* path, int cap, double radius, grnModel model, mjgBed* bed,
                     char* why, int why_size);

#endif  // MJGRANULAR_PLUGIN_BEDFILE_H_
