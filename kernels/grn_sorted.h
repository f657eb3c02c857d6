// the sorted cell list (broadphase, params.broadphase = sorted): the grains sorted into the order
// of their buckets (grn_cell_bucket: cells in row order over the box of the grains' cells, so the
// list runs through space) by counting sort, each bucket a range of the sorted list. the build,
// each step over all grains or all buckets:
//
// 1. the backend: each grain's cell (grn_compute_cell) and the box of all of them (cell_box,
//    emptied by grn_sorted_empty_box, widened by grn_sorted_widen_box, the threads' boxes joined
//    by grn_sorted_merge_box; the lowest and highest cells do not depend on the order); then each
//    grain's rank among its bucket's grains from an atomic add to bucket_count (zeroed first; the
//    ranks depend on the threads' race).
// 2. the backend: bucket_count prefix-summed into bucket_start (exclusive; [hash_size]: n).
// 3. grn_sorted_scatter_grain: each grain into its bucket's range at its rank.
// 4. grn_sorted_order_bucket: each bucket's grains put in index order (so the list is the same
//    whatever the race of step 1, as a stable counting sort would give it), and their positions,
//    radii and cells copied into the list's order, so the neighbour walk (grn_grain_neighbors)
//    reads a bucket's grains from contiguous memory.
//
// the solver then keeps its grains in the list's order, for locality: at the substeps that build
// the neighbour lists (before the narrowphase, after the swap of the contact state to _prev),
// 5. grn_sorted_renumber_entry: each grain's index in the list's order into renumber;
// 6. grn_sorted_gather_entry: every array of GRN_GRAIN_STATE gathered into its twin name_sorted
//    in that order, and the previous contacts into the current contact arrays (their partners
//    renumbered); the list becomes the identity;
// 7. the backend swaps each grain-state array with its twin and the contact arrays with _prev.
// uid keeps each grain's index in the caller's order and rank the inverse: results depend on
// that order only (grn_uid), so they are the same bit for bit as the hash's, and the api reads and
// writes the grains in the caller's order (granular.c). not with clumps, whose spheres stay
// consecutive.
#ifndef MJGRANULAR_GRN_SORTED_H_
#define MJGRANULAR_GRN_SORTED_H_

#include <limits.h>

#include "grn_collide.h"

// step 1: a box of no cells (box: lowest x y z, highest x y z)
GRN_HD void grn_sorted_empty_box(int* box) {
  for (int a = 0; a < 3; a++) {
    box[a] = INT_MAX;
    box[3 + a] = INT_MIN;
  }
}

// step 1: box widened to hold cell (x y z)
GRN_HD void grn_sorted_widen_box(int* box, const int* cell) {
  for (int a = 0; a < 3; a++) {
    box[a] = cell[a] < box[a] ? cell[a] : box[a];
    box[3 + a] = cell[a] > box[3 + a] ? cell[a] : box[3 + a];
  }
}

// step 1: box widened to hold another box (the threads' or warps' boxes merged)
GRN_HD void grn_sorted_merge_box(int* box, const int* other) {
  grn_sorted_widen_box(box, other);
  grn_sorted_widen_box(box, other + 3);
}

// step 3: grain i into its bucket's range at its rank
GRN_HD void grn_sorted_scatter_grain(const grnData* d, int i) {
  d->sorted[d->bucket_start[grn_grain_bucket(d, i)] + d->bucket_rank[i]] = i;
}

// step 4: bucket b's grains in index order (a bucket holds a few: insertion sort), with the
// positions, radii and cells the walk reads copied into that order
GRN_HD void grn_sorted_order_bucket(const grnData* d, unsigned b) {
  int lo = d->bucket_start[b], hi = d->bucket_start[b + 1];
  for (int e = lo + 1; e < hi; e++) {
    int j = d->sorted[e], k = e;
    for (; k > lo && d->sorted[k - 1] > j; k--) d->sorted[k] = d->sorted[k - 1];
    d->sorted[k] = j;
  }
  for (int e = lo; e < hi; e++) {
    int j = d->sorted[e];
    grn_store3(d->sorted_pos + 4 * (size_t)e, grn_load3(d->pos + 3 * (size_t)j));
    d->sorted_pos[4 * (size_t)e + 3] = grn_radius(d, j);
    for (int a = 0; a < 3; a++) d->sorted_cell[3 * (size_t)e + a] = d->cell[3 * (size_t)j + a];
  }
}

// step 5: the grain of list entry e is grain e from now on
GRN_HD void grn_sorted_renumber_entry(const grnData* d, int e) { d->renumber[d->sorted[e]] = e; }

// step 6: the grain of list entry e gathered into index e: its state into the twins, its previous
// contacts into the current contact arrays, its place in the caller's order into rank
GRN_HD void grn_sorted_gather_entry(const grnData* d, int e) {
  int o = d->sorted[e], cap = d->cap;
#define GRN_GATHER_STATE(type, name, width, unit, what)        \
  for (int w = 0; w < width; w++) {                             \
    d->name##_sorted[width * (size_t)e + w] = d->name[width * (size_t)o + w]; \
  }
  GRN_GRAIN_STATE(GRN_GATHER_STATE)
#undef GRN_GATHER_STATE
  int npair = d->npair_prev[o], nshape = d->nshape_prev[o];
#define GRN_GATHER_CONTACTS(type, name, width, unit, what)                                    \
  {                                                                                           \
    int used = unit == grnUNIT_PAIR_SLOT ? npair : unit == grnUNIT_SHAPE_SLOT ? nshape : 1;  \
    for (int k = 0; k < used; k++) {                                                          \
      size_t to = grn_slot_index(grn_unit_slots(unit), k, e, cap);                            \
      size_t from = grn_slot_index(grn_unit_slots(unit), k, o, cap);                          \
      for (int w = 0; w < width; w++) d->name[width * to + w] = d->name##_prev[width * from + w]; \
    }                                                                                         \
  }
  GRN_CONTACT_ARRAYS(GRN_GATHER_CONTACTS)
#undef GRN_GATHER_CONTACTS
  for (int k = 0; k < npair; k++) {
    size_t slot = GRN_PAIR_SLOT(k, e, cap);
    d->pair[slot] = d->renumber[d->pair[slot]];
  }
  d->rank[d->uid[o]] = e;
  d->sorted[e] = e;
  for (int a = 0; a < 3; a++) d->cell[3 * (size_t)e + a] = d->sorted_cell[3 * (size_t)e + a];
}

// 1 when a solver of consts c keeps its grains in its sorted list's order
GRN_HD int grn_sorted_keeps_order(const grnConsts* c) {
  return c->broadphase == grnBROADPHASE_SORTED && !c->clumps;
}

// step 7: each grain-state array swapped with its twin, the contacts with the previous ones
static inline void grn_sorted_swap_gathered(grnData* d) {
#define GRN_SWAP_SORTED(type, name, width, unit, what) \
  { type* t = d->name; d->name = d->name##_sorted; d->name##_sorted = t; }
  GRN_GRAIN_STATE(GRN_SWAP_SORTED)
#undef GRN_SWAP_SORTED
  grn_swap_contacts(d);
}

#endif  // MJGRANULAR_GRN_SORTED_H_
