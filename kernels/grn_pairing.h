// pairing (model-free): each grain-grain contact becomes one numbered pair, solved once per
// iteration for both its grains. by the grain of lower index when both grains list the contact,
// else by the one that does (the other ran out of slots). after the narrowphase:
//
// 1. grn_link_grain: which of grain i's contacts it solves (pair_solved), with the partner's
//    slot of each of those (or -1) in pair_ref; how many into pair_count.
// 2. the backend sums pair_count into pair_first (exclusive prefix sum, total in [n]).
// 3. grn_number_pairs: those contacts become pairs pair_first[i], pair_first[i] + 1, ..., and
//    each pair's slots in both grains refer to it: p in the solving grain's slot, -1 - p in the
//    partner's. a slot grain i does not solve is written only by its partner here, so pair_ref of
//    those is not read. pairs past the arrays' capacity are dropped (GRN_NO_PAIR) and flagged as
//    overflow.
//
// a contact law's pair data is then prepared per pair from cp_grain, cp_partner and cp_slot.
#ifndef MJGRANULAR_GRN_PAIRING_H_
#define MJGRANULAR_GRN_PAIRING_H_

#include "grn_data.h"

GRN_HD void grn_link_grain(const grnData* d, const grnConsts* c, int i) {
  int cap = d->cap, count = 0;
  unsigned solved = 0;
  int ui = grn_uid(d, i);
  for (int k = 0; k < d->npair[i]; k++) {
    size_t slot = GRN_PAIR_SLOT(k, i, cap);
    int j = d->pair[slot], mirror = -1;
    // i in the partner's list; an ordered list is sorted: stop at the first partner past i
    for (int m = 0; m < d->npair[j]; m++) {
      int p = d->pair[GRN_PAIR_SLOT(m, j, cap)];
      if (p == i) mirror = (int)GRN_PAIR_SLOT(m, j, cap);
      if (p == i || (c->ordered && grn_uid(d, p) > ui)) break;
    }
    if (grn_uid(d, j) > ui || mirror < 0) {
      d->pair_ref[slot] = mirror;
      solved |= 1u << k;
      count++;
    }
  }
  d->pair_solved[i] = solved;
  d->pair_count[i] = count;
}

// the pairs grain i solves, numbered from pair_first[i]; returns one past the last numbered
GRN_HD int grn_number_pairs(const grnData* d, int i) {
  int cap = d->cap, p = d->pair_first[i];
  unsigned solved = d->pair_solved[i];
  for (int k = 0; k < d->npair[i]; k++) {
    if (!((solved >> k) & 1u)) continue;
    size_t slot = GRN_PAIR_SLOT(k, i, cap);
    int mirror = d->pair_ref[slot];
    if (p >= d->cp_cap) {
      d->pair_ref[slot] = GRN_NO_PAIR;
      if (mirror >= 0) d->pair_ref[mirror] = GRN_NO_PAIR;
      d->overflow[0] = 1;
      continue;
    }
    d->cp_grain[p] = i;
    d->cp_partner[p] = d->pair[slot];
    d->cp_slot[p] = (int)k;
    d->pair_ref[slot] = p;
    if (mirror >= 0) d->pair_ref[mirror] = -1 - p;
    p++;
  }
  return p;
}

// the pair of grain i's slot with reference ref, and whether grain i solves it (sign +1) or
// takes its impulses negated (-1); -1 for a slot whose pair was dropped
GRN_HD int grn_slot_pair(int ref, float* sign) {
  if (ref == GRN_NO_PAIR) return -1;
  *sign = ref >= 0 ? 1.0f : -1.0f;
  return ref >= 0 ? ref : -1 - ref;
}

// pair p as grain i's slot sees it: the normal toward grain i, grain i's distance to the contact
// point, and the pair's impulse and rolling and torsional angular impulse on grain i (the solving
// grain's, negated for its partner)
typedef struct grnSlotView_ {
  grnVec3 n, imp, mom;
  float arm;
} grnSlotView;

// the view of the pair of grain i's slot with reference ref; the pair, or -1 when it was dropped
GRN_HD int grn_slot_view(const grnData* d, int ref, grnSlotView* v) {
  float sign;
  int p = grn_slot_pair(ref, &sign);
  if (p < 0) return -1;
  size_t q = (size_t)p;
  v->n = grn_scale(grn_load3(d->cp_normal + 3 * q), sign);
  v->imp = grn_scale(grn_load3(d->cp_imp + 3 * q), sign);
  v->mom = grn_scale(grn_load3(d->cp_mom + 3 * q), sign);
  v->arm = d->cp_arm[2 * q + (ref >= 0 ? 0 : 1)];
  return p;
}

#endif  // MJGRANULAR_GRN_PAIRING_H_
