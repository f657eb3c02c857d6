// mjgranular solver: public C API. No MuJoCo dependency.
//
// A solver holds a set of rotating spheres (grains, each of its own radius) and a list of rigid
// shapes described by signed distance functions. grn_advance moves the grains over a number of
// substeps with one of three contact models: projected Jacobi hard contact (the default) or the
// discrete element method (explicit spring-dashpot contacts with tangential history), both with
// friction, rolling and torsional resistance, or the position-based P2 model (grains without
// rotation, visco-elastic position corrections with static and kinetic friction). The default
// and P2 models may be cohesive (adhesion). It moves each shape at its velocity
// (answering the grains when the body is coupled), and accumulates the impulse the grains give
// back to each body. Every function returns a status; none exits.

#ifndef MJGRANULAR_GRANULAR_H_
#define MJGRANULAR_GRANULAR_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

//---------------------------------- status, backends ----------------------------------------------

typedef enum grnStatus_ {
  grnOK = 0,                // success
  grnERR_ARG,               // an argument is invalid (null pointer, bad size or value)
  grnERR_MEMORY,            // host or device allocation failed
  grnERR_UNAVAILABLE,       // the backend was not compiled into this build
  grnERR_NO_DEVICE,         // no usable GPU (no driver, driver too old, no device)
  grnERR_DEVICE,            // a GPU call failed
  grnERR_NONFINITE,         // a grain reached a NaN or infinite position or velocity
} grnStatus;

typedef enum grnBackend_ {
  grnBACKEND_AUTO = 0,      // cuda when a usable device exists, else cpu
  grnBACKEND_CPU,           // openmp on the host
  grnBACKEND_CUDA,          // nvidia gpu
} grnBackend;

// Short name of a status code ("ok", "invalid argument", ...).
const char* grn_status_string(grnStatus status);

// The status in words for a message: its name, and for a failure on the gpu (grnERR_DEVICE, or
// grnERR_MEMORY from the device) what the cuda call that failed on this thread reported, e.g.
// "gpu call failed: cudaMemcpyAsync: an illegal memory access was encountered". The text is the
// calling thread's, valid until its next call.
const char* grn_status_message(grnStatus status);

// Name of a backend ("auto", "cpu", "cuda").
const char* grn_backend_name(grnBackend backend);

// grnOK when the cuda backend can run in this process (compiled in, a driver new enough, a device
// that runs this build's kernels), else why not (grnERR_UNAVAILABLE, grnERR_NO_DEVICE).
grnStatus grn_cuda_usable(void);

// One line on the cuda backend in this process: the device it uses, or why it cannot be used
// (not compiled in, no driver, driver too old, no device, no code for this gpu).
const char* grn_cuda_info(void);

//---------------------------------- parameters ----------------------------------------------------

typedef enum grnModel_ {
  grnMODEL_PJ = 0,          // projected jacobi hard contact: rigid grains, impulses solved by
                            // iteration each substep
  grnMODEL_DEM,             // discrete element method: elastic grains, each contact a spring and
                            // dashpot integrated explicitly (a substep of a fraction of the
                            // contact time, grn_dem_time_scale)
  grnMODEL_PBD,             // position-based dynamics (the P2 model): grains without rotation,
                            // each substep `iterations` jacobi passes on the position level,
                            // each contact's impulses carried from substep to substep; contacts
                            // are linear spring-dampers (stiffness, restitution), with static
                            // and kinetic friction and adhesion
} grnModel;

typedef enum grnDemLaw_ {
  grnLAW_HERTZ = 0,         // hertz-mindlin: normal and tangential stiffness grow with the
                            // contact area, from youngs and poisson
  grnLAW_HOOKE,             // linear: constant normal stiffness `stiffness`, tangential 2/7 of it
} grnDemLaw;

typedef enum grnPbdPasses_ {
  grnPBD_NEWTON = 0,        // each contact keeps its impulses from substep to substep and a pass
                            // moves them by a newton step on split masses (momentum conserved)
  grnPBD_AVERAGED,          // the seed's constraint averaging: each pass, every contact's
                            // correction as if alone, a grain moved by the average of its
                            // contacts'; nothing carried between substeps (for its figures)
} grnPbdPasses;

typedef enum grnBroadphase_ {
  grnBROADPHASE_HASH = 0,   // spatial hash: each bucket a linked list of its grains, pushed by
                            // compare-and-swap
  grnBROADPHASE_SORTED,     // sorted cell list: grains counted per bucket, the counts
                            // prefix-summed, the grains sorted into bucket order (by index within
                            // a bucket) with a copy of their positions and radii in that order
} grnBroadphase;

#define GRN_MAX_GRAINS (1 << 26)  // largest capacity a solver takes (its indices stay in an int)
#define GRN_ORIENTATION_TOLERANCE 1e-3  // how far from 1 the norm of an orientation given may be

// 1 when (w, x, y, z) is an orientation the solver takes: finite, of norm 1 within the tolerance
static inline int grn_is_orientation(double w, double x, double y, double z) {
  double norm2 = w * w + x * x + y * y + z * z;  // nan for a non-finite part: not taken
  return norm2 >= (1 - GRN_ORIENTATION_TOLERANCE) * (1 - GRN_ORIENTATION_TOLERANCE) &&
         norm2 <= (1 + GRN_ORIENTATION_TOLERANCE) * (1 + GRN_ORIENTATION_TOLERANCE);
}

typedef struct grnParams_ {
  int model;                // grnModel

  int capacity;             // maximum number of grains, at most GRN_MAX_GRAINS
  float radius;             // grain radius [m]
  float density;            // grain density [kg/m^3]
  float friction;           // coulomb coefficient between grains (pbd: the static one)
  float kinetic_friction;   // pbd: coulomb coefficient of sliding contacts, <= friction; < 0: the
                            // same as friction
  float adhesion;           // pj, pbd: adhesive stress [Pa] between touching grains and between
                            // grains and shapes; a contact may pull with up to adhesion x its
                            // area and resists sliding with that much more (grn_adhesive_area)
  float rolling_friction;   // rolling resistance between grains: the resisting moment is at most
                            // rolling_friction x r_eff x the normal impulse (r_eff = r_i r_j /
                            // (r_i + r_j)); 0: grains roll freely
  float torsional_friction; // spinning resistance between grains about the contact normal, the
                            // same bound with this coefficient
  float dt;                 // substep [s]
  int iterations;           // jacobi iterations per substep (pj, pbd)
  float baumgarte;          // fraction of penetration removed per substep, in [0, 1] (pj only)
  float gravity[3];         // gravitational acceleration [m/s^2]
  float margin;             // speculative contact distance, as a fraction of the radius (pj,
                            // pbd: dem contacts touch)
  float skin;               // neighbour-list skin, as a fraction of the radius: each grain lists
                            // the grains within the contact distance plus the skin, and the lists
                            // are reused until some grain has moved half the skin (0: rebuilt
                            // every substep); the contacts found are the same either way
  int hash_size;            // buckets in the spatial hash; 0: twice the capacity
  int broadphase;           // grnBroadphase: how the buckets are built and walked; both find
                            // the same pairs, and deterministic runs are the same bit for bit
  int one_loop;             // pj only. 0 (default): split passes, the contacts found once per
                            // substep and each grain pair solved once per jacobi iteration; 1:
                            // one loop, each
                            // iteration finds every grain's contacts again and solves them from
                            // the grain's side in the same pass (the seeds' ONELOOP; same
                            // results, for speed comparisons)
  int device;               // cuda device index (the cuda backend; 0: the first)
  int max_shapes;           // capacity of the shape list
  int max_bodies;           // number of bodies that receive wrenches
  float cyclic_z[2];        // vertical cyclic boundary [lo, hi) [m]: a grain leaving through one
                            // end re-enters through the other with the same velocity; off when
                            // hi <= lo (default). contacts are not searched across the seam
  int deterministic;        // 1: bitwise repeatable run to run (cpu: same thread count);
                            // 0: contacts in the order threads meet them, wrenches summed by
                            // atomics (gpu), which may differ in the last bits run to run
  // the pbd model's passes, error reduction and sleeping
  int pbd_passes;           // grnPbdPasses
  float error_reduction;    // in [0, 1]: a grain's part of each pass's change of a grain
                            // contact's impulse is weighted 1 - error_reduction (n . g / |g|), n
                            // the normal toward the grain, so the upper grain of a contact moves
                            // more (the seed's epsilon; the impulses carried are not weighted)
  float sleep;              // [m], 0: off. a grain whose displacement over a substep is shorter
                            // keeps its position (its velocity is kept, so a grain pushed or left
                            // unsupported wakes within a few substeps); never a grain touching a
                            // moving shape
  // the material of the dem model and of the pbd model's springs (which are hooke's: `stiffness`,
  // damping from `restitution`); the projected jacobi model ignores them. shapes are rigid: a
  // grain against a shape feels its own compliance only
  int law;                  // grnDemLaw (dem only)
  float youngs;             // young's modulus of the grains [Pa] (hertz; the hooke stiffness's
                            // default)
  float poisson;            // poisson's ratio of the grains, in (-1, 0.5]
  float restitution;        // coefficient of restitution of a head-on impact, in (0, 1]: sets the
                            // damping of both laws exactly (grn_dem_damping_ratio)
  float stiffness;          // hooke: normal stiffness [N/m]; 0: the linear spring that stores
                            // the energy of a hertz contact of two grains of `radius` at the
                            // peak overlap of a 1 m/s impact (liggghts' hooke rule)
  int max_clumps;           // pj, dem: most rigid clumps of spheres (grn_set_clumps), at most
                            // capacity; 0 (default): every grain is a sphere of its own
  int cem_floats;           // dem with clumps: length of the clump types' contact fields
                            // (grn_set_cem_fields); 0 (default): none, clumps meet by spheres
} grnParams;

// default rolling and torsional resistance between grains: chosen so that a heap of grains at the
// default friction stands at about 30-35 degrees (README, the repose measurement); plain numbers,
// so that the plugin's config table can quote them
#define GRN_DEFAULT_ROLLING 0.2
#define GRN_DEFAULT_TORSIONAL 0.1

// dem defaults: a softened sand (the stiffness of quartz, 70 GPa, would need a substep of about a
// microsecond for 5 mm grains; bulk behaviour barely changes while overlaps stay below ~1% of a
// radius)
#define GRN_DEFAULT_YOUNGS 5e7
#define GRN_DEFAULT_POISSON 0.3
#define GRN_DEFAULT_RESTITUTION 0.5

// the dem substep as a share of grn_dem_time_scale: the default, and the largest that is accurate
// (above it the plugin warns)
#define GRN_DEM_DT_FRACTION 0.15
#define GRN_DEM_DT_LIMIT 0.3

// pj: a rigid contact sticks (adhesion) while its gap is below this share of the smaller radius;
// farther apart, its bond has broken
#define GRN_ADHESION_RANGE 0.02

// The contact area [m^2] adhesion acts on, of a contact whose smaller radius (a grain's against a
// shape) is rmin: pbd, the seed's interpolation pi rmin^2 (1 - (overlap / rmin - 1)^2), growing
// with the overlap up to the smaller grain's cross-section at overlap = rmin; pj (rigid grains, no
// overlap), that cross-section while the contact touches (GRN_ADHESION_RANGE).
double grn_adhesive_area(int model, double overlap, double rmin);

// Fill params with defaults (radius 5 mm, sand density, friction 0.5, dt 5e-4 s, deterministic,
// the sorted broadphase, ...).
void grn_default_params(grnParams* params);

// Check params; on failure write which field is wrong, and why, into msg (may be NULL).
grnStatus grn_check_params(const grnParams* params, char* msg, int msg_size);

// The time a dem substep must resolve for grains of this radius: the rayleigh time
// pi r sqrt(density / G) / (0.1631 poisson + 0.8766) with G = youngs / (2 (1 + poisson)) (hertz),
// or sqrt(m* / stiffness) for two such grains, m* half a grain's mass (hooke: the contact lasts
// pi times that). Uses the model's material fields of params; 0 when they are invalid.
double grn_dem_time_scale(const grnParams* params, double radius);

// Damping ratio zeta of the dem law (grnDemLaw) whose head-on impact rebounds with this
// restitution in (0, 1]: each contact's dashpot is 2 zeta sqrt(S m*), S its current normal (or
// tangential) stiffness; found once by integrating the normalised impact (the force never pulls,
// so the textbook log-decrement formula would miss). -1 for invalid input.
double grn_dem_damping_ratio(int law, double restitution);

//---------------------------------- shapes --------------------------------------------------------

typedef enum grnShapeType_ {
  grnSHAPE_PLANE = 0,       // half-space z <= 0 in the shape frame
  grnSHAPE_SPHERE,          // size[0]: radius
  grnSHAPE_CAPSULE,         // size[0]: radius, size[1]: half-length along z
  grnSHAPE_BOX,             // size: half-extents
  grnSHAPE_CYLINDER,        // size[0]: radius, size[1]: half-length along z
  grnSHAPE_ELLIPSOID,       // size: semi-axes
  grnSHAPE_GRID,            // sampled signed distance grid (grid: index from grn_add_grid)
  grnSHAPE_BOXINSIDE,       // inside of a box as free space; one contact (the nearest face), so
                            // grains in its edges and corners rest better on planes
  grnNSHAPE
} grnShapeType;

typedef struct grnShape_ {
  int type;                 // grnShapeType
  float size[3];            // dimensions as above [m]
  float pos[3];             // shape frame origin in world at the start of the step
  float mat[9];             // shape frame orientation in world, row-major
  float com[3];             // body centre of mass in world at the start of the step
  float linvel[3];          // body linear velocity at com [m/s]
  float angvel[3];          // body angular velocity in world [rad/s]
  float friction;           // coulomb coefficient between grains and this shape
  float spin_friction;      // torsional resistance [m]: the moment about the normal is at most
                            // this x the normal impulse (mujoco's friction[1]); < 0: as rough
                            // as the grains (params.torsional_friction x the grain's radius)
  float roll_friction;      // rolling resistance [m]: the rolling moment is at most this x the
                            // normal impulse (mujoco's friction[2]); < 0: as rough as the grains
                            // (params.rolling_friction x the grain's radius)
  float rbound;             // radius of a sphere about pos enclosing the shape; 0: unbounded
  int body;                 // wrench slot in [0, max_bodies); -1: static, no wrench
  int grid;                 // sdf grid index for grnSHAPE_GRID, else -1
} grnShape;

// Static planes on the faces of the box [lo, hi], each solid outside the box: the floor and four
// walls, and the lid when lid is 1 (one contact per face, so a grain in an edge or corner rests
// on every face it touches), with sliding friction `friction` and the grains' own rolling and
// torsional resistance. Writes 5 or 6 shapes to out and returns how many.
int grn_box_planes(const float lo[3], const float hi[3], int lid, float friction, grnShape* out);

// A regular grid of signed distances in the shape frame, sampled at nodes
// origin + (i, j, k) * cell, i < nx, j < ny, k < nz; values are (nz x ny x nx), x fastest.
typedef struct grnGrid_ {
  int nx, ny, nz;           // node counts
  float origin[3];          // position of node (0, 0, 0) in the shape frame [m]
  float cell;               // node spacing [m]
  const float* values;      // signed distances, negative inside (nx*ny*nz)
} grnGrid;

//---------------------------------- solver --------------------------------------------------------

typedef struct grnSolver_ grnSolver;

// Create a solver; *out is NULL on failure. backend AUTO picks cuda when usable, else cpu; also
// when the device cannot hold the solver (out of device memory), which grn_backend_note says.
grnStatus grn_create(const grnParams* params, grnBackend backend, grnSolver** out);

// Why a solver of backend AUTO runs on the cpu although cuda is usable (the device ran out of
// memory at create), or "" when it did not fall back.
const char* grn_backend_note(const grnSolver* solver);

// Free a solver and everything it owns; NULL is allowed.
void grn_destroy(grnSolver* solver);

// Backend actually in use (never AUTO).
grnBackend grn_backend(const grnSolver* solver);

// Parameters the solver was created with.
const grnParams* grn_params(const grnSolver* solver);

// Mass of one grain of radius params.radius [kg].
float grn_grain_mass(const grnSolver* solver);

// Replace all grains: n <= capacity; pos, vel are (n x 3); vel may be NULL (at rest). Clears the
// contact state (the next substep starts its contacts from zero impulse). Positions the same bit
// for bit as the solver's own (a state put back, as the plugin does every step) keep the CPU
// backend's neighbour lists; any other positions rebuild them. A solver with max_clumps refuses
// it (grn_set_clumps), and likewise grn_set_angvel, grn_set_orientations and grn_set_radii.
grnStatus grn_set_grains(grnSolver* solver, int n, const float* pos, const float* vel);

// Set the angular velocities (n x 3, world frame) [rad/s] of the grains from grn_set_grains,
// which leaves them at zero.
grnStatus grn_set_angvel(grnSolver* solver, const float* angvel);

// Copy the grains' angular velocities (n x 3) [rad/s] out.
grnStatus grn_get_angvel(const grnSolver* solver, float* angvel);

// Set the orientations (n x 4: unit quaternions w, x, y, z, MuJoCo's order, body to world) of the
// grains from grn_set_grains, which leaves them at the identity. Refused: grnERR_NONFINITE for a
// non-finite number, grnERR_ARG for a norm not within GRN_ORIENTATION_TOLERANCE of 1.
grnStatus grn_set_orientations(grnSolver* solver, const float* orientations);

// Copy the grains' orientations (n x 4) out. Each substep turns a grain by the exact rotation of
// its angular velocity; no contact law reads the orientation of a sphere.
grnStatus grn_get_orientations(const grnSolver* solver, float* orientations);

// Set the radii (n) [m] of the grains from grn_set_grains, each in (0, params.radius]; masses and
// moments of inertia follow from the density (solid spheres). Radii belong to the grain slots:
// they stay through grn_set_grains, and start at params.radius.
grnStatus grn_set_radii(grnSolver* solver, const float* radii);

// Copy the grains' radii (n) [m] out.
grnStatus grn_get_radii(const grnSolver* solver, float* radii);

// Number of grains.
int grn_count(const grnSolver* solver);

// Copy grain positions and/or velocities (n x 3) out; either pointer may be NULL.
grnStatus grn_get_grains(const grnSolver* solver, float* pos, float* vel);

//---------------------------------- clumps --------------------------------------------------------

// A grain type: a rigid clump of overlapping spheres (a grain shaped like a mesh, issue 19). Its
// body frame has its principal axes as axes and its centre of mass at the origin.
typedef struct grnClumpType_ {
  int nsphere;              // component spheres, >= 1
  const float* spheres;     // (nsphere x 4) centre in the body frame [m], radius in (0,
                            // params.radius] [m]
  float mass;               // [kg] (the shape's own, not the spheres')
  float inertia[3];         // principal moments of inertia about the centre of mass [kg m^2]
} grnClumpType;

// Replace all grains by n rigid clumps (n <= params.max_clumps): clump c of type type[c] in
// [0, ntypes), its centre of mass at pos (n x 3), its body frame turned by orient (n x 4, unit
// quaternions w x y z, body to world), moving at vel (n x 3) [m/s] and angvel (n x 3, world)
// [rad/s] (either may be NULL: at rest). The clumps' spheres become the solver's grains, clump
// by clump (grn_count counts the spheres; grn_get_grains, grn_get_radii read them), at most
// params.capacity. A clump's spheres never touch each other; the impulses on them move the
// clump as a rigid body (Euler's equations). Rolling and torsional resistance act only between
// single-sphere clumps (a clump of several spheres resists rolling by its shape). Clears the
// contact state. Refused (grnERR_ARG) on a solver without max_clumps, for too many clumps or
// spheres, a type index out of range, a type without spheres, a radius out of range, a mass or
// moment not positive, or an orientation not of norm 1; grnERR_NONFINITE for a non-finite number.
grnStatus grn_set_clumps(grnSolver* solver, const grnClumpType* types, int ntypes, int n,
                         const int* type, const float* pos, const float* orient,
                         const float* vel, const float* angvel);

// Set the clump types' configuration-space contact fields (params.cem_floats floats, laid out as
// kernels/grn_cem.h says, for the types grn_set_clumps is given): two clumps of types with fields
// meet in one contact from their fields, through their first spheres, which must be their bounds
// (centre at the centre of mass, radius holding the shape); their other spheres meet only shapes
// and clumps without fields. Call it before grn_set_clumps, which a solver with cem_floats refuses
// until then, and which refuses a type with fields whose first sphere is not its bound, or type
// counts that differ. Refused (grnERR_ARG) on a solver without cem_floats or for a table
// whose counts, offsets or nets do not fit its length; grnERR_NONFINITE for a non-finite number.
grnStatus grn_set_cem_fields(grnSolver* solver, const float* fields);

// Number of clumps (0 on a solver of spheres).
int grn_clump_count(const grnSolver* solver);

// Copy the clumps' centres of mass (n x 3), orientations (n x 4), velocities (n x 3) and angular
// velocities (n x 3, world) out; any pointer may be NULL.
grnStatus grn_get_clumps(const grnSolver* solver, float* pos, float* orient, float* vel,
                         float* angvel);

// Size in bytes of the contact state of a solver of this capacity: each grain's contacts at the
// end of the last substep with their impulses, the warm start of the next substep. With the
// grains (positions, velocities, angular velocities, radii) it makes the full solver state:
// saving both and restoring them continues a run exactly.
size_t grn_contact_state_bytes(int capacity);

// Copy the contact state into buf (grn_contact_state_bytes(capacity) bytes); slots that hold no
// contact are zero, so equal contacts give equal bytes.
grnStatus grn_get_contacts(const grnSolver* solver, void* buf);

// Restore a contact state from grn_get_contacts (after grn_set_grains, which clears it); a
// buffer that does not fit the current grains is refused with grnERR_ARG: counts beyond the
// slots, partners that are not grains in use, non-finite impulses, and (deterministic solvers)
// partners of a grain not in increasing order, or (others) a partner listed twice.
grnStatus grn_set_contacts(grnSolver* solver, const void* buf);

// Check a contact state as grn_set_contacts does, without setting it; on failure write the first
// thing wrong into msg (may be NULL): the grain, its contact slot and the array.
grnStatus grn_check_contacts(const grnSolver* solver, const void* buf, char* msg, int msg_size);

// Copy the contact state of the first n grains (n <= both capacities) from a buffer laid out for
// capacity src_cap into another one for capacity dst_cap (zeroed first, every slot of those
// grains copied, used or not), each grain's grain contacts sorted by partner with their
// impulses (so any solver accepts them). A count beyond the slots is refused with grnERR_ARG.
grnStatus grn_convert_contacts(const void* src, int src_cap, void* dst, int dst_cap, int n);

// Copy a signed distance grid into the solver; its index is written to *id.
grnStatus grn_add_grid(grnSolver* solver, const grnGrid* grid, int* id);

// Replace the shape list (n <= max_shapes) with poses and velocities at the start of a step.
grnStatus grn_set_shapes(grnSolver* solver, int n, const grnShape* shapes);

// Dynamics of the bodies for implicit coupling, used by every later advance. mobility
// (max_bodies x 36, row-major 6 x 6 per body, world frame) maps an impulse wrench [linear impulse;
// angular impulse about the body's com] to the change of [com velocity; angular velocity] it
// causes (J M^-1 J^T for a body of an articulated system); within each substep the grains see
// the body answer their impulses. accel (max_bodies x 6) is each body's acceleration [com; angular]
// from everything but the grains, which it keeps over the advance. Either may be NULL: zero. With
// both zero (the default) the bodies are kinematic: they move at their velocity whatever the grains
// do. The wrenches of grn_get_wrenches are those the bodies must then receive, as before.
grnStatus grn_set_body_dynamics(grnSolver* solver, const float* mobility, const float* accel);

// Advance nsub substeps of params.dt; shapes move at their velocities from their set pose.
// Afterwards grn_get_wrenches gives each body's average force and torque over the advance.
grnStatus grn_advance(grnSolver* solver, int nsub);

// Average force and torque (about the body com at the end) on each body over the last advance,
// (max_bodies x 6): force[3], torque[3] in world frame [N, N m].
grnStatus grn_get_wrenches(const grnSolver* solver, double* wrench);

// Time integral over the last advance of the impulse each body had received from the grains so
// far, (max_bodies x 6) [N s^2, N m s^2]: through a body's mobility, the displacement the grains
// gave it (zeros without grn_set_body_dynamics). The impulse itself is the wrench times the
// advance's duration.
grnStatus grn_get_impulse_integrals(const grnSolver* solver, double* out);

// Pairs of grains (i < j) closer than contact distance, found with the solver's broadphase at
// the current positions; writes up to max pairs (max x 2) and the total count to *npairs.
grnStatus grn_find_pairs(grnSolver* solver, int* pairs, int max, int* npairs);

// Bytes of memory held by the solver (host, plus device for gpu backends).
size_t grn_memory_bytes(const grnSolver* solver);

#ifdef __cplusplus
}
#endif

#endif  // MJGRANULAR_GRANULAR_H_
