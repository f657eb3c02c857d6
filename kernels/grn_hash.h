// spatial hash: integer cell of a position, and the xor-of-primes bucket of a cell.
#ifndef MJGRANULAR_GRN_HASH_H_
#define MJGRANULAR_GRN_HASH_H_

#include "grn_math.h"

// cells further out than this are clamped (keeps far-flung grains from overflowing ints)
#define GRN_CELL_LIMIT 1000000000.0f

// integer cell coordinate along one axis: round(x / cell)
GRN_HD int grn_cell_coord(float x, float inv_cell) {
  float c = rintf(x * inv_cell);
  c = fminf(fmaxf(c, -GRN_CELL_LIMIT), GRN_CELL_LIMIT);
  return (int)c;
}

// bucket of cell (cx, cy, cz): xor of (c - q) * prime per axis, modulo the table size
GRN_HD unsigned grn_hash_cell(int cx, int cy, int cz, unsigned table_size) {
  const unsigned q = 100u;
  unsigned h = ((unsigned)cx - q) * 73856093u ^ ((unsigned)cy - q) * 19349663u ^
               ((unsigned)cz - q) * 83492791u;
  return h % table_size;
}

// bucket of cell (cx, cy, cz) in row order (x fastest, then y, then z) over the box of cells from
// (box[0], box[1], box[2]) to (box[3], box[4], box[5]) widened by one cell each way, modulo the
// table size. with the box of the grains' cells (the sorted broadphase, grn_sorted.h)
// consecutive buckets are neighbouring cells, so a list sorted by bucket keeps grains near in
// space near in memory, and no two cells of the box share a bucket while the box has fewer cells
// than the table; cells outside it still get a bucket (unsigned arithmetic wraps: a far grain
// costs locality, never correctness)
GRN_HD unsigned grn_box_cell(int cx, int cy, int cz, const int* box, unsigned table_size) {
  unsigned nx = (unsigned)box[3] - (unsigned)box[0] + 3u;
  unsigned ny = (unsigned)box[4] - (unsigned)box[1] + 3u;
  unsigned x = (unsigned)cx - (unsigned)box[0] + 1u, y = (unsigned)cy - (unsigned)box[1] + 1u;
  unsigned z = (unsigned)cz - (unsigned)box[2] + 1u;
  return ((z * ny + y) * nx + x) % table_size;
}

#endif  // MJGRANULAR_GRN_HASH_H_
