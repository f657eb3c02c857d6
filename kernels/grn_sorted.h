// the sorted cell list (broadphase, params.broadphase = sorted): the grains sorted into the order
// of their buckets of the spatial hash (grn_hash.h) by counting sort, each bucket a range of the
// sorted list. the build, each step over all grains or all buckets:
//
// 1. the backend: each grain's cell (grn_compute_cell), and its rank among its bucket's grains
//    from an atomic add to bucket_count (zeroed first; the ranks depend on the threads' race).
// 2. the backend: bucket_count prefix-summed into bucket_start (exclusive; [hash_size]: n).
// 3. grn_sorted_scatter_grain: each grain into its bucket's range at its rank.
// 4. grn_sorted_order_bucket: each bucket's grains put in index order (so the list is the same
//    whatever the race of step 1, as a stable counting sort would give it), and their positions,
//    radii and cells copied into the list's order, so the neighbour walk (grn_grain_neighbors)
//    reads a bucket's grains from contiguous memory.
//
// the solver's own arrays stay in the grains' order: the list only orders the walk, which with
// params.deterministic keeps the smallest partner indices in order, so contacts, sums and results
// are the same bit for bit as with the hash.
#ifndef MJGRANULAR_GRN_SORTED_H_
#define MJGRANULAR_GRN_SORTED_H_

#include "grn_collide.h"

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

#endif  // MJGRANULAR_GRN_SORTED_H_
