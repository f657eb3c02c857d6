// configuration of an mjgranular.terrain instance: the attribute table (names, defaults, units,
// ranges) and strict parsing of the MJCF <config> values.
#ifndef MJGRANULAR_PLUGIN_CONFIG_H_
#define MJGRANULAR_PLUGIN_CONFIG_H_

#include <mujoco/mujoco.h>

#include "granular.h"

#define MJG_PLUGIN_NAME "mjgranular.terrain"
#define MJG_MSG_SIZE 512          // size of error message buffers
#define MJG_MAX_SIZE_RATIO 4      // largest radius over smallest that key radius allows
#define MJG_MAX_GRAIN_TYPES 16    // most grain types key shape names

// how visualize colours the grains (key color)
typedef enum mjgColor_ {
  mjgCOLOR_HEIGHT = 0,      // by height: dark (low) to light (high) sand
  mjgCOLOR_SPEED,           // by speed: cold blue (slow) to hot red (fast)
  mjgCOLOR_FIXED,           // one sand colour
  mjgCOLOR_SPIN,            // by rim speed |w| r: cold blue (still) to hot red (spinning)
} mjgColor;

// how two mesh grains meet (key shape_model)
typedef enum mjgShapeModel_ {
  mjgSHAPE_CLUMP = 0,       // by their clumps' spheres
  mjgSHAPE_CEM,             // by their pair's configuration-space contact fields (cem_fields)
} mjgShapeModel;

// parsed and checked configuration of one plugin instance
typedef struct mjgConfig_ {
  int has_fill;             // 1: fill was given
  double fill[6];           // box filled with grains at reset: lo[3], hi[3]           [m]
  int count;                // grain capacity (>= grains in the fill box)
  double radius;            // grain radius; the largest with mixed sizes                [m]
  double radius_min;        // smallest grain radius (key radius "rmin rmax"); radius_min and
                            // radius are adjacent: the key writes both                    [m]
  int ntype;                // grain types (key shape); 1 for a terrain of spheres
  int type_mesh[MJG_MAX_GRAIN_TYPES];    // each type's mesh id; -1: a sphere (key radius)
  double type_mix[MJG_MAX_GRAIN_TYPES];  // each type's share of the grains (key shape_mix)
  int clump_spheres;        // most spheres fitted to a mesh grain
  mjgShapeModel shape_model;  // how mesh grains meet each other
  int spheres;              // most solver spheres in one grain: clump_spheres with a mesh type
                            // (and its bound with shape_model cem), else 1 (the contact state
                            // holds cap x spheres grains' contacts)
  double reach;             // radius of the sphere about its centre of mass that bounds the
                            // largest grain (spheres: radius)                             [m]
  double smallest;          // radius of a sphere of the smallest grain's volume (spheres:
                            // radius_min); sets dem's default substep                     [m]
  double density;           // grain density                                           [kg/m^3]
  double friction;          // coulomb coefficient between grains (pbd: the static one)
  int has_kinetic_friction; // 1: kinetic_friction was given
  double kinetic_friction;  // pbd: coulomb coefficient of sliding contacts; default: friction
  int has_adhesion;         // 1: adhesion was given
  double adhesion;          // pj, pbd: adhesive stress between touching grains         [Pa]
  int has_pbd_passes, has_error_reduction, has_sleep;  // 1: given
  grnPbdPasses pbd_passes;  // pbd: how a pass moves the grains (newton, or the seed's averaged)
  double error_reduction;   // pbd: the seed's epsilon, weighting corrections along gravity
  double sleep;             // pbd: displacement per substep below which a grain sleeps [m]
  double rolling_friction;  // rolling resistance between grains (times r_eff and the normal force)
  double torsional_friction;  // torsional resistance between grains (likewise)
  grnModel model;           // contact model: projected jacobi, dem or pbd
  int has_timestep;         // 1: timestep was given
  double timestep;          // granular substep, at most; dem default: GRN_DEM_DT_FRACTION of
                            // the time scale of the smallest grains (grn_dem_time_scale)  [s]
  int has_iterations;       // 1: iterations was given
  int iterations;           // jacobi iterations per substep (pj, pbd)
  int has_baumgarte;        // 1: baumgarte was given
  double baumgarte;         // fraction of penetration removed per substep (pj)
  int has_law, has_youngs, has_poisson, has_restitution, has_stiffness;  // 1: given
  grnDemLaw law;            // dem contact law
  double youngs;            // dem, pbd: young's modulus of the grains                [Pa]
  double poisson;           // dem, pbd: poisson's ratio of the grains
  double restitution;       // dem, pbd: coefficient of restitution of a head-on impact
  double stiffness;         // dem hooke, pbd: normal stiffness; 0 (not given): derived [N/m]
  int has_domain;           // 1: domain was given
  double domain[6];         // container box keeping the grains in: lo[3], hi[3]      [m]
  double spacing;           // initial bed lattice spacing                             [radii]
  long long seed;           // seed of the initial bed's jitter
  grnBackend backend;       // auto, cpu or cuda
  int device;               // cuda device index
  grnBroadphase broadphase; // hash or sorted cell list
  int has_bodies;           // 1: bodies was given (names resolved by bodies.c)
  int has_sdf_cell;         // 1: sdf_cell was given
  double sdf_cell;          // node spacing of mesh sdf grids; default: the grain radius       [m]
  int two_way;              // coupling: 1 two-way (grains push bodies back), 0 one-way
  mjgColor color;           // grain colouring drawn by visualize
  int has_color_range;      // 1: color_range was given
  double color_range[2];    // values at the ends of the colour ramp: lo, hi      [m or m/s]
  int has_cyclic_z;         // 1: cyclic_z was given
  double cyclic_z[2];       // vertical cyclic boundary: zlo, zhi                      [m]
  double settle;            // settling time of the initial bed at model load; 0: none  [s]
  int deterministic;        // 1: bitwise repeatable run to run; 0: faster where it can be
} mjgConfig;

// Config value of key of a plugin instance, NULL when not given (an empty value counts as not
// given).
const char* mjg_config_value(const mjModel* m, int instance, const char* key);

// 1 if s holds only white space.
int mjg_blank(const char* s);

// Exactly n finite numbers separated by white space into out; 1 on success.
int mjg_parse_reals(const char* s, double* out, int n);

// Number of config attributes.
int mjg_config_nattribute(void);

// Name of config attribute i in table order (for plugin registration); NULL when out of range.
const char* mjg_config_name(int i);

// Write "<plugin>: config key '<key>' = '<value>': <why>" into msg (value NULL: "... '<key>'
// <why>", for a key not given); returns -1.
int mjg_config_refuse(char* msg, int size, const char* key, const char* value, const char* why);

// Read and check the config of plugin instance `instance`, with the work it asks of a step and of
// settling at m's option timestep (input_limits.h). On failure return -1 and write a message
// naming the key and its value into msg; on success return 0.
int mjg_config_read(const mjModel* m, int instance, mjgConfig* cfg, char* msg, int msg_size);

// 1 when a grain type of cfg is a mesh (key shape), else 0.
int mjg_config_meshes(const mjgConfig* cfg);

// Write into msg what in a config that loads the user should know (keys of the other contact
// model, which it ignores; a dem substep too long for the contacts); returns 1 when there is
// something, else 0.
int mjg_config_warning(const mjgConfig* cfg, char* msg, int size);

// Solver parameters for a config, a substep dt [s], gravity and a number of bodies.
void mjg_config_params(const mjgConfig* cfg, double dt, const mjtNum gravity[3], int nbody,
                       int max_shapes, grnParams* params);

#endif  // MJGRANULAR_PLUGIN_CONFIG_H_
