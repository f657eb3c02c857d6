// the solver object behind the opaque handle, and the interface every backend implements.
#ifndef MJGRANULAR_GRN_SOLVER_H_
#define MJGRANULAR_GRN_SOLVER_H_

#include "grn_data.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grnBackendOps_ grnBackendOps;

struct grnSolver_ {
  grnParams params;           // as created
  grnBackend backend;         // cpu or cuda
  char note[160];             // why auto fell back to the cpu (grn_backend_note), or ""
  grnConsts consts;           // derived per-substep constants
  float grain_mass;           // [kg]
  int n;                      // grains in use
  int nclump;                 // clumps in use (grn_set_clumps; their spheres are grains)
  int nshapes;                // shapes in use
  grnShape* shapes;           // shapes at the start of the step               (max_shapes)
  grnShape* shapes_now;       // shapes at the current substep's pose          (max_shapes)
  int ngrids;                 // sdf grids added
  int grid_cap;               // capacity of grids
  grnGridView* grids;         // host copies of the grids (values owned)       (grid_cap)
  float* cem;                 // host copy of the contact fields, NULL: none   (cem_floats)
  double* wrench_sum;         // force, torque summed over substeps            (max_bodies x 6)
  double* wrench;             // average over the last advance                 (max_bodies x 6)
  // implicit body coupling (grn_body_motion.c)
  int mobile;                 // 1 when some body has a nonzero mobility
  long long mob_version;      // counts changes of body_mob (backends re-upload on change)
  float* body_mob;            // mobility of each body, impulse -> velocity    (max_bodies x 36)
  float* body_acc;            // each body's acceleration without the grains   (max_bodies x 6)
  double* body_twist;         // velocity the advance added to each body so far (max_bodies x 6)
  double* body_disp;          // displacement the advance added so far         (max_bodies x 6)
  double* body_impint;        // time integral of the impulse received so far  (max_bodies x 6)
  double* wrench_before;      // wrench_sum before the current substep         (max_bodies x 6)
  const grnBackendOps* ops;   // backend functions
  void* impl;                 // backend state
};

// what a backend provides; each returns a status and never exits
struct grnBackendOps_ {
  grnStatus (*create)(grnSolver* s);
  void (*destroy)(grnSolver* s);
  // positions (and velocities, or zero) of grains [0, n); the angular velocities zeroed and the
  // contact counts of all grains cleared
  grnStatus (*set_grains)(grnSolver* s, int n, const float* pos, const float* vel);
  // bytes of host memory into / out of array a of the solver, from its byte first on
  grnStatus (*write)(grnSolver* s, const grnArrayDesc* a, size_t first, const void* host,
                     size_t bytes);
  grnStatus (*read)(const grnSolver* s, const grnArrayDesc* a, size_t first, void* host,
                    size_t bytes);
  grnStatus (*add_grid)(grnSolver* s, int id);            // copy s->grids[id] to the backend
  // one substep with s->shapes_now; adds force and torque sums into s->wrench_sum
  grnStatus (*substep)(grnSolver* s);
  grnStatus (*find_pairs)(grnSolver* s, int* pairs, int max, int* npairs);
  size_t (*memory_bytes)(const grnSolver* s);
};

// record what a failed cuda call on this thread reported, for grn_status_message of status
void grn_set_device_error(grnStatus status, const char* text);

// the arrays of the tables in grn_data.h: the contact state (current twins, in saved order),
// and every array a backend allocates
extern const grnArrayDesc grn_contact_arrays[grnNCONTACT_ARRAYS];
extern const grnArrayDesc grn_solver_arrays[];
extern const int grn_nsolver_arrays;

// the solver array of the tables named name (NULL: none)
const grnArrayDesc* grn_solver_array(const char* name);

// the broadphase's arrays (the hash's and the sorted list's; those of the one not in use have no
// length)
extern const grnArrayDesc grn_broadphase_arrays[];
extern const int grn_nbroadphase_arrays;

// bytes of contact-state array a for capacity cap, and its offset in a contact-state buffer
size_t grn_contact_array_bytes(int a, int cap);
size_t grn_contact_offset(int a, int cap);

// backends compiled into this build (cuda ops are NULL without nvcc; grn_cuda_usable says why)
extern const grnBackendOps grn_cpu_ops;
const grnBackendOps* grn_cuda_backend(void);

// each pair of grains closer than the cutoff once, as (i < j) in order of i then j, from a
// broadphase already built in host memory d (as grn_find_pairs)
grnStatus grn_list_pairs(const grnData* d, const grnConsts* k, int* pairs, int max, int* npairs);

// shape s moved rigidly with its body's velocity for time tau from its start-of-step pose
void grn_shape_at(const grnShape* s, float tau, grnShape* out);

// shape s displaced rigidly by disp (translation of the com, then a rotation vector about it),
// its velocity raised by twist (com velocity, angular velocity)
void grn_shape_displace(grnShape* s, const double* disp, const double* twist);

// the dem law's constants of params (pbd: its hooke spring's; zeros for pj; dem_material.c)
void grn_dem_law_consts(const grnParams* params, grnDemLawConsts* out);

// free the implicit-coupling arrays
void grn_body_motion_free(grnSolver* s);

// implicit coupling over an advance: clear the bodies' added motion before the first substep
void grn_body_motion_start(grnSolver* s);

// shape i at substep k of the advance: kinematic motion plus its body's added motion
void grn_body_motion_shape(const grnSolver* s, int i, int k, grnShape* out);

// after a substep: each body's added velocity and displacement from its acceleration and the
// substep's impulses (wrench_sum minus wrench_before)
void grn_body_motion_substep(grnSolver* s);

#ifdef __cplusplus
}
#endif

#endif  // MJGRANULAR_GRN_SOLVER_H_
