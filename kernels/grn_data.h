// the solver's structure-of-arrays state and per-substep constants, laid out the same on every
// backend; the pointers refer to host memory (cpu) or device memory (cuda).
#ifndef MJGRANULAR_GRN_DATA_H_
#define MJGRANULAR_GRN_DATA_H_

#include "granular.h"
#include "grn_sdf.h"

#define GRN_MAX_PAIRS 16          // grain-grain contact slots per grain
#define GRN_MAX_SHAPE_CONTACTS 4  // grain-shape contact slots per grain

// contact slots are slot-major: slot k of grain i lives at k * cap + i (coalesced on gpus)
#define GRN_SLOT(k, i, cap) ((size_t)(k) * (size_t)(cap) + (size_t)(i))

typedef struct grnData_ {
  int n;                      // grains in use
  int cap;                    // grain capacity
  unsigned hash_size;         // buckets in the spatial hash
  float* pos;                 // positions                                    (cap x 3)
  float* vel;                 // velocities                                   (cap x 3)
  float* vpred;               // velocity after external forces this substep  (cap x 3)
  float* dv;                  // contact velocity change, last iterate        (cap x 3)
  float* dv_next;             // contact velocity change, next iterate        (cap x 3)
  int* cell;                  // integer cell of each grain                   (cap x 3)
  int* head;                  // first grain in each hash bucket, -1: empty   (hash_size)
  int* next;                  // next grain in the same bucket, -1: end       (cap)
  float* dvb;                 // position-correction pseudo-velocity, last    (cap x 3)
  float* dvb_next;            // position-correction pseudo-velocity, next    (cap x 3)
  int* ncontact;              // grain + shape contacts of each grain         (cap)
  int* npair;                 // grain-grain contacts of each grain           (cap)
  int* pair;                  // partner grain of each contact slot           (MAX_PAIRS x cap)
  float* pair_imp;            // accumulated velocity impulse on the grain    (MAX_PAIRS x cap x 3)
  float* pair_bias;           // accumulated position-correction impulse      (MAX_PAIRS x cap)
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
  int* overflow;              // contacts dropped for lack of slots           (1)
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
  float* t = d->dv; d->dv = d->dv_next; d->dv_next = t;
  t = d->dvb; d->dvb = d->dvb_next; d->dvb_next = t;
}

// per-substep constants derived from the params
typedef struct grnConsts_ {
  float dt;                   // substep [s]
  float radius;               // grain radius [m]
  float cutoff;               // grain-grain contact distance: 2 r + margin [m]
  float shape_margin;         // grain-shape speculative distance [m]
  float inv_cell;             // 1 / hash cell size (cell = cutoff)
  float friction;             // grain-grain coulomb coefficient
  float baumgarte;            // fraction of penetration removed per substep
  float gravity[3];           // [m/s^2]
  float mass;                 // grain mass [kg]
  float cyclic_lo;            // bottom of the vertical cyclic boundary [m]
  float cyclic_period;        // its height [m]; 0: off
  int ordered;                // 1: each grain's contacts sorted by partner (deterministic)
} grnConsts;

#endif  // MJGRANULAR_GRN_DATA_H_
