// the solver's structure-of-arrays state and per-substep constants, laid out the same on every
// backend; the pointers refer to host memory (cpu) or device memory (cuda).
#ifndef MJGRANULAR_GRN_DATA_H_
#define MJGRANULAR_GRN_DATA_H_

#include "granular.h"
#include "grn_sdf.h"

#define GRN_MAX_PAIRS 16          // grain-grain contact slots per grain (at most 32)
#define GRN_MAX_SHAPE_CONTACTS 4  // grain-shape contact slots per grain
#define GRN_MAX_NEIGHBORS 32      // neighbour-list entries per grain

// floats per grain in a jacobi iterate: velocity (3), unused, baumgarte pseudo-velocity (3),
// unused; a partner's iterate is one aligned 32-byte load
#define GRN_ITER 8

// pair reference of a slot whose contact found no room among the pairs (it gets no impulse)
#define GRN_NO_PAIR (-2147483647 - 1)

// contact slots are slot-major: slot k of grain i lives at k * cap + i (coalesced on gpus)
#define GRN_SLOT(k, i, cap) ((size_t)(k) * (size_t)(cap) + (size_t)(i))

typedef struct grnData_ {
  int n;                      // grains in use
  int cap;                    // grain capacity
  unsigned hash_size;         // buckets in the spatial hash
  float* pos;                 // positions                                    (cap x 3)
  float* vel;                 // velocities                                   (cap x 3)
  float* vpred;               // velocity after external forces this substep  (cap x 3)
  float* iter;                // jacobi iterate, last: grn_iter_v, grn_iter_b (cap x GRN_ITER)
  float* iter_next;           // jacobi iterate, next                         (cap x GRN_ITER)
  int* cell;                  // integer cell of each grain                   (cap x 3)
  int* head;                  // first grain in each hash bucket, -1: empty   (hash_size)
  int* next;                  // next grain in the same bucket, -1: end       (cap)
  int* nbr;                   // grains within the reach at the build, by index (MAX_NBR x cap)
  int* nnbr;                  // entries in nbr; -1: more than fit (the grain (cap)
                              // searches the hash, rebuilt every substep until the lists fit)
  float* nbr_pos;             // position at the lists' build                 (cap x 3)
  int* ncontact;              // grain + shape contacts of each grain         (cap)
  int* npair;                 // grain-grain contacts of each grain           (cap)
  int* pair;                  // partner grain of each contact slot           (MAX_PAIRS x cap)
  float* pair_imp;            // accumulated velocity impulse on the grain    (MAX_PAIRS x cap x 3)
  float* pair_bias;           // accumulated position-correction impulse, one (MAX_PAIRS x cap)
                              // loop only (else NULL)
  int* pair_ref;              // the contact pair of each slot: p (the grain   (MAX_PAIRS x cap)
                              // solves pair p) or -1 - p (it takes pair p's impulses negated)
  unsigned* pair_solved;      // bit k: the grain solves the contact of slot k (cap)
  int* pair_count;            // contact pairs the grain solves               (cap)
  int* pair_first;            // its first pair: pair_count summed over lower (cap + 1)
                              // grains; [n]: all pairs
  int* nshape;                // grain-shape contacts of each grain           (cap)
  int* sc_shape;              // shape index of each shape contact            (MAX_SC x cap)
  float* sc_normal;           // unit normal, from shape toward grain         (MAX_SC x cap x 3)
  float* sc_depth;            // penetration (> 0) or gap (< 0)               (MAX_SC x cap)
  float* sc_vel;              // shape velocity at the contact point          (MAX_SC x cap x 3)
  float* sc_imp;              // accumulated velocity impulse on the grain    (MAX_SC x cap x 3)
  float* sc_bias;             // accumulated position-correction impulse      (MAX_SC x cap)
  // the previous substep's contacts and final impulses, the warm start of this one
  int* npair_prev;            // as npair                                     (cap)
  int* pair_prev;             // as pair                                      (MAX_PAIRS x cap)
  float* pair_imp_prev;       // as pair_imp                                  (MAX_PAIRS x cap x 3)
  int* nshape_prev;           // as nshape                                    (cap)
  int* sc_shape_prev;         // as sc_shape                                  (MAX_SC x cap)
  float* sc_imp_prev;         // as sc_imp                                    (MAX_SC x cap x 3)
  // grain-grain contacts as pairs, each solved once per iteration for both its grains
  int ncp;                    // contact pairs this substep (host side of cpu backends)
  int cp_cap;                 // capacity of the pair arrays
  int* cp_grain;              // grain that solves the pair                   (cp_cap)
  int* cp_partner;            // its partner                                  (cp_cap)
  float* cp_normal;           // unit normal, from partner toward grain       (cp_cap x 3)
  float* cp_target;           // normal relative velocity aimed at            (cp_cap)
  float* cp_bias_target;      // normal pseudo-velocity the baumgarte aims at (cp_cap)
  float* cp_share;            // share of a velocity change each grain takes  (cp_cap)
  float* cp_imp;              // accumulated velocity impulse on the grain    (cp_cap x 3)
  float* cp_bias;             // accumulated position-correction impulse      (cp_cap)
  int* overflow;              // contacts dropped for lack of slots           (1)
  int* nbr_overflow;          // a neighbour list did not fit                 (1)
  int* nonfinite;             // set when a grain became nan or infinite      (1)
  const grnShape* shapes;     // shapes at this substep's pose                (nshapes)
  int nshapes;                // number of shapes
  const grnGridView* grids;   // sdf grids                                    (ngrids)
  // implicit body coupling (body_mob NULL: every body is kinematic within the substep)
  const float* body_mob;      // mobility: impulse wrench -> velocity change  (max_bodies x 36)
  float* body_dv;             // velocity change from this substep's impulses (max_bodies x 6)
  int* body_nc;               // grain contacts of each body this substep     (max_bodies)
} grnData;

// the current contacts become the previous ones (the warm start of the next narrowphase)
static inline void grn_swap_contacts(grnData* d) {
  int* t = d->npair; d->npair = d->npair_prev; d->npair_prev = t;
  t = d->pair; d->pair = d->pair_prev; d->pair_prev = t;
  t = d->nshape; d->nshape = d->nshape_prev; d->nshape_prev = t;
  t = d->sc_shape; d->sc_shape = d->sc_shape_prev; d->sc_shape_prev = t;
  float* f = d->pair_imp; d->pair_imp = d->pair_imp_prev; d->pair_imp_prev = f;
  f = d->sc_imp; d->sc_imp = d->sc_imp_prev; d->sc_imp_prev = f;
}

// the next jacobi iterate becomes the last one
static inline void grn_swap_iterates(grnData* d) {
  float* t = d->iter; d->iter = d->iter_next; d->iter_next = t;
}

// velocity and baumgarte pseudo-velocity of grain i in an iterate, and both stored. the reads
// index the array with an int (GRN_ITER x the capacity, 2^26, fits): gcc vectorises the pair pass
// only with reads in this form
GRN_HD grnVec3 grn_iter_v(const float* it, int i) {
  int k = GRN_ITER * i;
  return grn_v3(it[k], it[k + 1], it[k + 2]);
}
GRN_HD grnVec3 grn_iter_b(const float* it, int i) {
  int k = GRN_ITER * i + 4;
  return grn_v3(it[k], it[k + 1], it[k + 2]);
}
GRN_HD void grn_store_iter(float* it, int i, grnVec3 v, grnVec3 b) {
  grn_store3(it + GRN_ITER * (size_t)i, v);
  grn_store3(it + GRN_ITER * (size_t)i + 4, b);
}

// per-substep constants derived from the params
typedef struct grnConsts_ {
  float dt;                   // substep [s]
  float radius;               // grain radius [m]
  float cutoff;               // grain-grain contact distance: 2 r + margin [m]
  float reach;                // neighbour-list distance: cutoff + skin [m]
  float shape_margin;         // grain-shape speculative distance [m]
  float inv_cell;             // 1 / cell of a hash searched to the cutoff (grn_find_pairs)
  float inv_list_cell;        // 1 / cell of a hash searched to the reach (neighbour lists)
  float moved2;               // squared displacement since the lists' build that they allow [m^2]
  int one_loop;               // jacobi iterations find and solve contacts in one loop per grain
  float friction;             // grain-grain coulomb coefficient
  float baumgarte;            // fraction of penetration removed per substep
  float gravity[3];           // [m/s^2]
  float mass;                 // grain mass [kg]
  float cyclic_lo;            // bottom of the vertical cyclic boundary [m]
  float cyclic_period;        // its height [m]; 0: off
  int ordered;                // 1: each grain's contacts sorted by partner (deterministic)
} grnConsts;

#endif  // MJGRANULAR_GRN_DATA_H_
