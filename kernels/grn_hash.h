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

#endif  // MJGRANULAR_GRN_HASH_H_
