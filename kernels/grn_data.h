// the solver's structure-of-arrays state and per-substep constants, laid out the same on every
// backend; the pointers refer to host memory (cpu) or device memory (cuda).
#ifndef MJGRANULAR_GRN_DATA_H_
#define MJGRANULAR_GRN_DATA_H_

#include "granular.h"
#include "grn_sdf.h"

#define GRN_MAX_PAIRS 16          // grain-grain contact slots per grain (at most 32)
#define GRN_MAX_SHAPE_CONTACTS 4  // grain-shape contact slots per grain
#define GRN_MAX_NEIGHBORS 32      // neighbour-list entries per grain (twice that with clumps)

// floats per grain in a jacobi iterate: velocity (3; pbd: the displacement over the substep so
// far [m]), unused, baumgarte pseudo-velocity (3), unused, angular velocity (3), unused; 16-byte
// aligned parts
#define GRN_ITER 12

// pair reference of a slot whose contact found no room among the pairs (it gets no impulse)
#define GRN_NO_PAIR (-2147483647 - 1)

// slot k of grain i in the contact state's layout (plugin_state, bed files, grn_get_contacts):
// slot by slot across the grains, k cap + i, whichever backend holds the state
#define GRN_STATE_SLOT(k, i, cap) ((size_t)(k) * (size_t)(cap) + (size_t)(i))

// a grain's first slots the cpu keeps in a row of their own (below); a multiple of the dem law's
// batch of contacts (GRN_DEM_BATCH), so that a batch's slots are consecutive
#define GRN_CPU_ROW_SLOTS 8

// slot k of grain i in the solver's own arrays of `slots` slots a grain: on the gpu as in the
// state (a warp's reads coalesce); on the cpu grain by grain, so a grain's contacts lie in
// adjacent cache lines, which its loops read (the cpu backend's reads and writes convert). there
// the first GRN_CPU_ROW_SLOTS slots of every grain come first (i row + k), then the rest (most
// grains never use them): a settled bed's grains hold 3.5 contacts on average, and with whole
// rows of 16 slots a substep swept twice the memory (10k dem bed, one thread: 10% slower)
GRN_HD size_t grn_slot_index(int slots, int k, int i, int cap) {
#ifdef __CUDACC__
  (void)slots;
  return GRN_STATE_SLOT(k, i, cap);
#else
  int row = slots < GRN_CPU_ROW_SLOTS ? slots : GRN_CPU_ROW_SLOTS;
  if (k < row) return (size_t)i * (size_t)row + (size_t)k;
  return (size_t)cap * (size_t)row + (size_t)i * (size_t)(slots - row) + (size_t)(k - row);
#endif
}
#define GRN_PAIR_SLOT(k, i, cap) grn_slot_index(GRN_MAX_PAIRS, k, i, cap)
#define GRN_SHAPE_SLOT(k, i, cap) grn_slot_index(GRN_MAX_SHAPE_CONTACTS, k, i, cap)

// what the length of a solver array counts
typedef enum grnArrayUnit_ {
  grnUNIT_GRAIN = 0,          // cap
  grnUNIT_GRAIN1,             // cap + 1 (a prefix sum with its total)
  grnUNIT_PAIR_SLOT,          // GRN_MAX_PAIRS x cap
  grnUNIT_SHAPE_SLOT,         // GRN_MAX_SHAPE_CONTACTS x cap
  grnUNIT_NEIGHBOR,           // grn_neighbor_slots x cap
  grnUNIT_LOOP_SLOT,          // GRN_MAX_PAIRS x cap with one loop, else none
  grnUNIT_FORCE_SHAPE_SLOT,   // GRN_MAX_SHAPE_CONTACTS x cap with the dem or pbd model, else
                              // none
  grnUNIT_HASH,               // hash_size with the hash broadphase, else none
  grnUNIT_HASH_GRAIN,         // cap with the hash broadphase, else none
  grnUNIT_BUCKET1,            // hash_size + 1 with the sorted broadphase, else none
  grnUNIT_SORTED_GRAIN,       // cap with the sorted broadphase, else none
  grnUNIT_SORTED_ONE,         // 1 with the sorted broadphase, else none
  grnUNIT_PAIRING_SLOT,       // GRN_MAX_PAIRS x cap with pairs (grn_solves_pairs), else none
  grnUNIT_PAIRING_GRAIN,      // cap with pairs, else none
  grnUNIT_PAIRING_GRAIN1,     // cap + 1 with pairs, else none
  grnUNIT_PAIR,               // cp_cap (grown as the contact pairs need)
  grnUNIT_BODY,               // max_bodies (at least 1)
  grnUNIT_CLUMP,              // max_clumps
  grnUNIT_CLUMP_GRAIN,        // cap with clumps, else none
  grnUNIT_CEM,                // params.cem_floats (contact fields, grn_cem.h)
  grnNUNIT
} grnArrayUnit;

// every solver array, declared once: X(type, name, numbers per unit, unit, comment). the three
// tables drive the struct below, allocation, freeing, growth and copies on every backend, and the
// contact-state layout (grn_contact_layout)

// the contact law's state of each contact slot (grain-grain slots, grain-shape slots), which the
// narrowphase carries from the previous substep's slot of the same contact to the new one (zero
// for a new contact). one table for every model, read as each model's own: projected jacobi keeps
// the accumulated impulse and angular impulse on the grain (the warm start); dem the tangential
// spring's elongation (the grain's contact point against the partner's since the contact began)
// and the rolling and torsional spring moments on the grain; pbd its impulses (grnPbdImpulse:
// the tangential one on the grain in _lin, the normal and adhesive magnitudes in _rot), the warm
// start. the two slots of a grain pair hold opposite vectors (pbd's magnitudes are the same)
#define GRN_LAW_STATE(X)                                                                       \
  X(float, pair_lin, 3, grnUNIT_PAIR_SLOT, "pj: impulse [N s]; dem: tangential spring [m]")    \
  X(float, sc_lin, 3, grnUNIT_SHAPE_SLOT, "pj: impulse [N s]; dem: tangential spring [m]")     \
  X(float, pair_rot, 3, grnUNIT_PAIR_SLOT, "pj: angular impulse [N m s]; dem: moment [N m]")   \
  X(float, sc_rot, 3, grnUNIT_SHAPE_SLOT, "pj: angular impulse [N m s]; dem: moment [N m]")

// the contact state: each grain's contacts at the end of the substep and the law's state of
// each, which the next substep starts from. each array has a twin name_prev, the previous
// substep's; saved in plugin_state and bed files in this order
#define GRN_CONTACT_ARRAYS(X)                                                                  \
  X(int, npair, 1, grnUNIT_GRAIN, "grain-grain contacts of each grain")                        \
  X(int, nshape, 1, grnUNIT_GRAIN, "grain-shape contacts of each grain")                       \
  X(int, pair, 1, grnUNIT_PAIR_SLOT, "partner grain of each contact slot")                     \
  X(int, sc_shape, 1, grnUNIT_SHAPE_SLOT, "shape index of each shape contact")                 \
  GRN_LAW_STATE(X)

// the broadphase: each grain's cell and the buckets of the spatial hash of cells, as linked lists
// (hash) or as ranges of a list of the grains sorted by bucket (sorted, grn_sorted.h); the
// arrays of the broadphase not in use have no length
#define GRN_BROADPHASE_ARRAYS(X)                                                               \
  X(int, cell, 3, grnUNIT_GRAIN, "integer cell of each grain")                                 \
  X(int, head, 1, grnUNIT_HASH, "hash: first grain in each bucket, -1: empty")                 \
  X(int, next, 1, grnUNIT_HASH_GRAIN, "hash: next grain in the same bucket, -1: end")          \
  X(int, bucket_count, 1, grnUNIT_BUCKET1, "sorted: grains in each bucket; [hash_size]: 0")    \
  X(int, bucket_start, 1, grnUNIT_BUCKET1, "sorted: each bucket's first entry; [hash_size]: n") \
  X(int, cell_box, 6, grnUNIT_SORTED_ONE, "sorted: the grains' lowest, highest cell (x y z)")  \
  X(int, bucket_rank, 1, grnUNIT_SORTED_GRAIN, "sorted: the grain's place in its bucket's count") \
  X(int, sorted, 1, grnUNIT_SORTED_GRAIN, "sorted: grain of each entry, bucket by bucket")     \
  X(float, sorted_pos, 4, grnUNIT_SORTED_GRAIN, "sorted: position [m], radius [m] of each entry") \
  X(int, sorted_cell, 3, grnUNIT_SORTED_GRAIN, "sorted: cell of each entry")                \
  X(int, renumber, 1, grnUNIT_SORTED_GRAIN, "sorted: each grain's index in the list's order")  \
  X(int, rank, 1, grnUNIT_SORTED_GRAIN, "sorted: the grain at each index of the caller's order")

// rigid clumps of spheres (grn_clump.h): each clump's rigid state and its spheres (consecutive
// grains), and each sphere's place on its clump; no length without clumps
#define GRN_CLUMP_ARRAYS(X)                                                                    \
  X(float, clump_pos, 3, grnUNIT_CLUMP, "centre of mass [m]")                                  \
  X(float, clump_vel, 3, grnUNIT_CLUMP, "velocity of the centre of mass [m/s]")                \
  X(float, clump_mom, 3, grnUNIT_CLUMP, "angular momentum about it, world [kg m^2/s]")         \
  X(float, clump_angvel, 3, grnUNIT_CLUMP, "angular velocity from it, world [rad/s]")          \
  X(float, clump_orient, 4, grnUNIT_CLUMP, "orientation, body to world (w x y z)")             \
  X(float, clump_inertia, 3, grnUNIT_CLUMP, "principal moments of inertia [kg m^2]")           \
  X(float, clump_inv_mass, 1, grnUNIT_CLUMP, "1 / mass [1/kg]")                                \
  X(int, clump_first, 1, grnUNIT_CLUMP, "its first sphere (a grain)")                          \
  X(int, clump_count, 1, grnUNIT_CLUMP, "its spheres")                                         \
  X(int, clump_type, 1, grnUNIT_CLUMP, "its type (grn_set_clumps)")                            \
  X(float, clump_iter, GRN_ITER, grnUNIT_CLUMP, "pj: its jacobi iterate, as a grain's")        \
  X(float, clump_torque, 3, grnUNIT_CLUMP, "pj: the iterate's angular impulse [N m s]")        \
  X(int, elem_clump, 1, grnUNIT_CLUMP_GRAIN, "the clump of each sphere")                       \
  X(float, elem_local, 3, grnUNIT_CLUMP_GRAIN, "its centre in the clump's body frame [m]")     \
  X(float, elem_offset, 3, grnUNIT_CLUMP_GRAIN, "the same turned into the world [m]")           \
  X(float, cem, 1, grnUNIT_CEM, "the types' contact fields (grn_cem.h)")

// the grains: what each grain keeps from substep to substep besides its contacts. with the sorted
// broadphase the solver keeps the grains in the order of its list (grn_sorted.h), and each of
// these arrays has a twin name_sorted the grains are gathered into
#define GRN_GRAIN_STATE(X)                                                                     \
  X(float, pos, 3, grnUNIT_GRAIN, "positions [m]")                                             \
  X(float, vel, 3, grnUNIT_GRAIN, "velocities [m/s]")                                          \
  X(float, angvel, 3, grnUNIT_GRAIN, "angular velocities [rad/s]")                             \
  X(float, orient, 4, grnUNIT_GRAIN, "orientations: unit quaternions w x y z, body to world")   \
  X(float, rad, 1, grnUNIT_GRAIN, "radius [m]")                                                \
  X(float, inv_mass, 1, grnUNIT_GRAIN, "1 / mass [1/kg]")                                      \
  X(float, inv_inertia, 1, grnUNIT_GRAIN, "1 / moment of inertia [1/(kg m^2)]; 0: a clump's")  \
  X(int, uid, 1, grnUNIT_SORTED_GRAIN, "sorted: the grain's index in the caller's order")

// the grains and the per-substep work arrays
#define GRN_GRAIN_ARRAYS(X)                                                                    \
  GRN_GRAIN_STATE(X)                                                                           \
  X(float, vpred, 3, grnUNIT_GRAIN, "velocity after external forces this substep")             \
  X(float, iter, GRN_ITER, grnUNIT_GRAIN, "jacobi iterate, last: grn_iter_v, _b, _w")          \
  X(float, iter_next, GRN_ITER, grnUNIT_GRAIN, "jacobi iterate, next")                         \
  GRN_BROADPHASE_ARRAYS(X)                                                                     \
  X(int, nbr, 1, grnUNIT_NEIGHBOR, "grains within the reach at the lists' build")              \
  X(int, nnbr, 1, grnUNIT_GRAIN, "entries in nbr; -1: more than fit (the buckets are walked)") \
  X(float, nbr_pos, 3, grnUNIT_GRAIN, "position at the lists' build")                          \
  X(int, ncontact, 1, grnUNIT_GRAIN, "grain + shape contacts of each grain")                   \
  X(float, pair_bias, 1, grnUNIT_LOOP_SLOT, "one loop: accumulated baumgarte impulse")         \
  X(int, pair_ref, 1, grnUNIT_PAIRING_SLOT, "pair p of the slot (solved here) or -1 - p")      \
  X(unsigned, pair_solved, 1, grnUNIT_PAIRING_GRAIN, "bit k: the grain solves slot k's contact") \
  X(int, pair_count, 1, grnUNIT_PAIRING_GRAIN1, "contact pairs the grain solves")              \
  X(int, pair_first, 1, grnUNIT_PAIRING_GRAIN1, "its first pair; [n]: all pairs")              \
  X(float, sc_normal, 3, grnUNIT_SHAPE_SLOT, "unit normal, from shape toward grain")           \
  X(float, sc_depth, 1, grnUNIT_SHAPE_SLOT, "penetration (> 0) or gap (< 0) [m]")              \
  X(float, sc_vel, 3, grnUNIT_SHAPE_SLOT, "shape velocity at the contact point")               \
  X(float, sc_bias, 1, grnUNIT_SHAPE_SLOT, "accumulated baumgarte impulse [N s]")              \
  X(float, body_dv, 6, grnUNIT_BODY, "body velocity change from this substep's impulses")      \
  X(int, body_nc, 1, grnUNIT_BODY, "grain contacts of each body this substep")                 \
  X(float, sc_impulse, 3, grnUNIT_FORCE_SHAPE_SLOT, "dem, pbd: impulse on the grain, substep") \
  X(float, sc_angular, 3, grnUNIT_FORCE_SHAPE_SLOT, "dem: its rolling, torsional part [N m s]") \
  GRN_CLUMP_ARRAYS(X)

// grain-grain contacts as pairs, each solved once per iteration for both its grains
#define GRN_PAIR_ARRAYS(X)                                                                     \
  X(int, cp_grain, 1, grnUNIT_PAIR, "grain that solves the pair")                              \
  X(int, cp_partner, 1, grnUNIT_PAIR, "its partner")                                           \
  X(int, cp_slot, 1, grnUNIT_PAIR, "the solving grain's contact slot of the pair")             \
  X(float, cp_normal, 3, grnUNIT_PAIR, "unit normal, from partner toward grain")               \
  X(float, cp_arm, 2, grnUNIT_PAIR, "distances to the contact point; pbd: impulses n, adh")      \
  X(float, cp_target, 1, grnUNIT_PAIR, "normal relative velocity aimed at")                    \
  X(float, cp_bias_target, 1, grnUNIT_PAIR, "normal pseudo-velocity the baumgarte aims at")    \
  X(float, cp_mass, 4, grnUNIT_PAIR, "pj: grnPjMass; pbd: damping, displacement per impulse") \
  X(float, cp_reff, 1, grnUNIT_PAIR, "effective rolling radius r_i r_j / (r_i + r_j) [m]")     \
  X(float, cp_imp, 3, grnUNIT_PAIR, "impulse on the grain (pj: so far; pbd: its change) [N s]") \
  X(float, cp_mom, 3, grnUNIT_PAIR,                                                             \
    "its rolling, torsional angular impulse; fields: all of it about the grain; pbd: tangential") \
  X(float, cp_bias, 1, grnUNIT_PAIR, "accumulated baumgarte impulse [N s]; pbd: 1 if touching")

#define GRN_DECLARE_ARRAY(type, name, width, unit, what) type* name;
#define GRN_DECLARE_TWIN(type, name, width, unit, what) type* name; type* name##_prev;
#define GRN_DECLARE_SORTED(type, name, width, unit, what) type* name##_sorted;

typedef struct grnData_ {
  int n;                      // grains in use
  int nclump;                 // clumps in use (their spheres are grains)
  int cap;                    // grain capacity
  unsigned hash_size;         // buckets in the spatial hash
  int ncp;                    // contact pairs this substep (host side of cpu backends)
  int cp_cap;                 // capacity of the pair arrays
  GRN_CONTACT_ARRAYS(GRN_DECLARE_TWIN)
  GRN_GRAIN_ARRAYS(GRN_DECLARE_ARRAY)
  GRN_PAIR_ARRAYS(GRN_DECLARE_ARRAY)
  GRN_GRAIN_STATE(GRN_DECLARE_SORTED)
  int* overflow;              // contacts dropped for lack of slots           (1)
  int* nbr_overflow;          // a neighbour list did not fit                 (1)
  int* nonfinite;             // set when a grain became nan or infinite      (1)
  const grnShape* shapes;     // shapes at this substep's pose                (nshapes)
  int nshapes;                // number of shapes
  const grnGridView* grids;   // sdf grids                                    (ngrids)
  const float* body_mob;      // mobility: impulse wrench -> velocity change  (max_bodies x 36)
                              // NULL: every body is kinematic within the substep
} grnData;

// index of each contact-state array in grn_contact_arrays
#define GRN_CONTACT_INDEX(type, name, width, unit, what) grnCONTACT_##name,
enum { GRN_CONTACT_ARRAYS(GRN_CONTACT_INDEX) grnNCONTACT_ARRAYS };
#undef GRN_CONTACT_INDEX

// one solver array as the tables declare it
typedef struct grnArrayDesc_ {
  const char* name;           // field name
  size_t offset;              // offsetof(grnData, name)
  size_t size;                // bytes of one number
  int width;                  // numbers per unit
  int unit;                   // grnArrayUnit
  int is_float;               // 1: float, 0: int or unsigned
} grnArrayDesc;

// the field of d an array descriptor names
static inline void** grn_array_field(grnData* d, const grnArrayDesc* a) {
  return (void**)((char*)d + a->offset);
}

// 1 when params p (NULL: none) use broadphase b
static inline int grn_broadphase_is(const grnParams* p, int b) { return p && p->broadphase == b; }

// neighbour-list entries per grain of a solver of params p (NULL: none): twice as many with
// clumps, whose fitted spheres are smaller than the largest that sets the lists' reach (beds of
// 16-sphere cubes put up to 52 spheres of other clumps within it, scripts/bench/README.md)
static inline int grn_neighbor_slots(const grnParams* p) {
  return p && p->max_clumps > 0 ? 2 * GRN_MAX_NEIGHBORS : GRN_MAX_NEIGHBORS;
}

// 1 when a solver of params p solves grain-grain contacts as numbered pairs (grn_pairing.h) and
// needs the pair arrays: projected jacobi's split passes, pbd, dem with contact fields. dem's
// grains compute their contacts' forces themselves; one loop finds them in every iteration
static inline int grn_solves_pairs(const grnParams* p) {
  return p->model == grnMODEL_DEM ? p->cem_floats > 0 : !p->one_loop;
}

// units of an array in solver arrays d (their cap, hash_size and cp_cap) with nbody bodies, for
// a solver of params p (NULL: no optional arrays)
static inline size_t grn_unit_count(int unit, const grnData* d, int nbody, const grnParams* p) {
  size_t cap = (size_t)d->cap;
  switch (unit) {
    case grnUNIT_GRAIN: return cap;
    case grnUNIT_GRAIN1: return cap + 1;
    case grnUNIT_PAIR_SLOT: return GRN_MAX_PAIRS * cap;
    case grnUNIT_SHAPE_SLOT: return GRN_MAX_SHAPE_CONTACTS * cap;
    case grnUNIT_NEIGHBOR: return grn_neighbor_slots(p) * cap;
    case grnUNIT_LOOP_SLOT: return p && p->one_loop ? GRN_MAX_PAIRS * cap : 0;
    case grnUNIT_FORCE_SHAPE_SLOT:
      return p && p->model != grnMODEL_PJ ? GRN_MAX_SHAPE_CONTACTS * cap : 0;
    case grnUNIT_HASH: return grn_broadphase_is(p, grnBROADPHASE_HASH) ? d->hash_size : 0;
    case grnUNIT_HASH_GRAIN: return grn_broadphase_is(p, grnBROADPHASE_HASH) ? cap : 0;
    case grnUNIT_BUCKET1:
      return grn_broadphase_is(p, grnBROADPHASE_SORTED) ? (size_t)d->hash_size + 1 : 0;
    case grnUNIT_SORTED_GRAIN: return grn_broadphase_is(p, grnBROADPHASE_SORTED) ? cap : 0;
    case grnUNIT_SORTED_ONE: return grn_broadphase_is(p, grnBROADPHASE_SORTED) ? 1 : 0;
    case grnUNIT_PAIRING_SLOT: return p && grn_solves_pairs(p) ? GRN_MAX_PAIRS * cap : 0;
    case grnUNIT_PAIRING_GRAIN: return p && grn_solves_pairs(p) ? cap : 0;
    case grnUNIT_PAIRING_GRAIN1: return p && grn_solves_pairs(p) ? cap + 1 : 0;
    case grnUNIT_PAIR: return (size_t)d->cp_cap;
    case grnUNIT_BODY: return nbody > 0 ? (size_t)nbody : 1;
    case grnUNIT_CLUMP: return p ? (size_t)p->max_clumps : 0;
    case grnUNIT_CLUMP_GRAIN: return p && p->max_clumps > 0 ? cap : 0;
    case grnUNIT_CEM: return p ? (size_t)p->cem_floats : 0;
  }
  return 0;
}

// contact slots per grain of an array of unit `unit` (arrays of grains and the rest: 1)
GRN_HD int grn_unit_slots(int unit) {
  switch (unit) {
    case grnUNIT_PAIR_SLOT: case grnUNIT_LOOP_SLOT: case grnUNIT_PAIRING_SLOT:
      return GRN_MAX_PAIRS;
    case grnUNIT_SHAPE_SLOT: case grnUNIT_FORCE_SHAPE_SLOT:
      return GRN_MAX_SHAPE_CONTACTS;
  }
  return 1;
}

// the current contacts become the previous ones (the warm start of the next narrowphase)
#define GRN_SWAP_TWIN(type, name, width, unit, what) \
  { type* t = d->name; d->name = d->name##_prev; d->name##_prev = t; }
static inline void grn_swap_contacts(grnData* d) {
  GRN_CONTACT_ARRAYS(GRN_SWAP_TWIN)
}
#undef GRN_SWAP_TWIN

// the next jacobi iterate becomes the last one
static inline void grn_swap_iterates(grnData* d) {
  float* t = d->iter; d->iter = d->iter_next; d->iter_next = t;
}

// velocity, baumgarte pseudo-velocity and angular velocity of grain i in an iterate, and all
// three stored. the reads index the array with an int (GRN_ITER x the capacity, 2^26, fits): gcc
// vectorises the pair pass only with reads in this form
GRN_HD grnVec3 grn_iter_v(const float* it, int i) {
  int k = GRN_ITER * i;
  return grn_v3(it[k], it[k + 1], it[k + 2]);
}
GRN_HD grnVec3 grn_iter_b(const float* it, int i) {
  int k = GRN_ITER * i + 4;
  return grn_v3(it[k], it[k + 1], it[k + 2]);
}
GRN_HD grnVec3 grn_iter_w(const float* it, int i) {
  int k = GRN_ITER * i + 8;
  return grn_v3(it[k], it[k + 1], it[k + 2]);
}
GRN_HD void grn_store_iter(float* it, int i, grnVec3 v, grnVec3 b, grnVec3 w) {
  grn_store3(it + GRN_ITER * (size_t)i, v);
  grn_store3(it + GRN_ITER * (size_t)i + 4, b);
  grn_store3(it + GRN_ITER * (size_t)i + 8, w);
}

// mass [kg] and moment of inertia [kg m^2] of a solid sphere
GRN_HD float grn_sphere_mass(float density, float r) {
  return density * (4.0f / 3.0f * 3.14159265358979f) * r * r * r;
}
GRN_HD float grn_sphere_inertia(float mass, float r) { return 0.4f * mass * r * r; }

// per-grain attributes: contact laws read these, never a global radius
GRN_HD float grn_radius(const grnData* d, int i) { return d->rad[i]; }
GRN_HD float grn_inv_mass(const grnData* d, int i) { return d->inv_mass[i]; }
GRN_HD float grn_inv_inertia(const grnData* d, int i) { return d->inv_inertia[i]; }

// 1 when grain i rotates on its own as a sphere (a free grain, a single-sphere clump; a sphere of
// a clump of several has no inertia of its own): rolling and torsional bounds apply to it
GRN_HD int grn_rotates_alone(const grnData* d, int i) { return d->inv_inertia[i] > 0; }

// grain i's index in the caller's order, and the grain at index u of that order: the solver's own
// order differs only with the sorted broadphase (grn_sorted.h). where results depend on an order
// (a grain's contacts sorted by partner, which grain of a pair solves it, sums over grains), it is
// the caller's, so they do not depend on the solver's
// (grn_uid_if: uids is whether the grains have them, d->uid != NULL; a caller that passes a
// constant lets a loop over contacts drop the test)
GRN_HD int grn_uid_if(const grnData* d, int uids, int i) { return uids ? d->uid[i] : i; }
GRN_HD int grn_uid(const grnData* d, int i) { return grn_uid_if(d, d->uid != NULL, i); }
GRN_HD int grn_user_grain(const grnData* d, int u) { return d->rank ? d->rank[u] : u; }

// the dem law's constants (kernels/dem_material.c derives them from the params)
typedef struct grnDemLawConsts_ {
  int law;                    // grnDemLaw
  float estar, gstar;         // hertz: effective young's and shear moduli of two grains [Pa]
  float estar_wall, gstar_wall;  // the same of a grain against a rigid shape [Pa]
  float stiffness;            // hooke: normal stiffness [N/m]
  float damping;              // damping ratio (grn_dem_damping_ratio)
} grnDemLawConsts;

// per-substep constants derived from the params
typedef struct grnConsts_ {
  float dt;                   // substep [s]
  float margin;               // speculative contact distance, as a fraction of the radius
  float cutoff;               // largest grain-grain contact distance: 2 r (1 + margin / 2) [m]
  float skin;                 // neighbour-list skin [m]: a list holds the grains within each
                              // pair's contact distance plus the skin
  float reach;                // largest neighbour-list distance: cutoff + skin [m]
  int neighbors;              // neighbour-list entries per grain (grn_neighbor_slots)
  float inv_cell;             // 1 / cell of a hash searched to the cutoff (grn_find_pairs)
  float inv_list_cell;        // 1 / cell of a hash searched to the reach (neighbour lists)
  float moved2;               // squared displacement since the lists' build that they allow [m^2]
  int lists;                  // 1: this substep's narrowphase builds the neighbour lists first
  int one_loop;               // jacobi iterations find and solve contacts in one loop per grain
  float friction;             // grain-grain coulomb coefficient (pbd: static)
  float kinetic_friction;     // pbd: grain-grain coulomb coefficient of sliding contacts
  float adhesion;             // adhesive stress [Pa] (pj, pbd)
  float error_reduction;      // pbd: the seed's epsilon
  float sleep;                // pbd: displacement per substep below which a grain sleeps [m]
  int pbd_passes;             // pbd: grnPbdPasses
  float down[3];              // unit vector along gravity (zero without gravity)
  int iterations;             // jacobi iterations per substep
  float rolling;              // grain-grain rolling resistance coefficient
  float torsional;            // grain-grain torsional resistance coefficient
  float baumgarte;            // fraction of penetration removed per substep
  float gravity[3];           // [m/s^2]
  float cyclic_lo;            // bottom of the vertical cyclic boundary [m]
  float cyclic_period;        // its height [m]; 0: off
  int ordered;                // 1: each grain's contacts sorted by partner (deterministic)
  int broadphase;             // grnBroadphase
  int model;                  // grnModel
  int clumps;                 // 1: grains are spheres of rigid clumps (grn_clump.h)
  int cem;                    // 1: clumps of types with contact fields meet by them (grn_cem.h)
  grnDemLawConsts dem;        // the dem law's constants (pbd: its hooke spring's)
} grnConsts;

#endif  // MJGRANULAR_GRN_DATA_H_
