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

// the low 10 bits of v spread to every third bit
GRN_HD unsigned grn_spread_bits(unsigned v) {
  v &= 1023u;
  v = (v | (v << 16)) & 0x030000FFu;
  v = (v | (v << 8)) & 0x0300F00Fu;
  v = (v | (v << 4)) & 0x030C30C3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}

// bucket of cell (cx, cy, cz) in z-order (the morton code of the cells' low 10 bits per axis),
// modulo the table size: buckets in order are cells close in space, so a list sorted by bucket
// keeps neighbours close in memory (the sorted broadphase, grn_sorted.h)
GRN_HD unsigned grn_morton_cell(int cx, int cy, int cz, unsigned table_size) {
  unsigned code = grn_spread_bits((unsigned)cx) | grn_spread_bits((unsigned)cy) << 1 |
                  grn_spread_bits((unsigned)cz) << 2;
  return code % table_size;
}

#endif  // MJGRANULAR_GRN_HASH_H_
