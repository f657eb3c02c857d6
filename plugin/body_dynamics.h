// two-way coupling as an implicit solve: the coupled bodies move with the grains inside the
// granular substeps, then the step's result is written back into qvel and qpos.
//
// Before the advance, each coupled body gets its mobility (J M^-1 J^T at its centre of mass: how
// an impulse changes its velocity) and its acceleration J qacc from everything else, and starts
// the step at its velocity before this step's acceleration. In the substeps it gains that
// acceleration, and answers the grains' impulses through its mobility in every Jacobi iterate.
// After the advance the joint velocities receive the grains' impulse, M^-1 J^T p, and the joint
// positions the displacement the grains saw the bodies make beyond MuJoCo's own integration, so
// MuJoCo's state is exactly the bodies' motion the grains answered to (up to the coupling
// between different bodies within one substep).
#ifndef MJGRANULAR_PLUGIN_BODY_DYNAMICS_H_
#define MJGRANULAR_PLUGIN_BODY_DYNAMICS_H_

#include <mujoco/mujoco.h>

// For every body b with coupled[b] (nbody): mobility (nbody x 36, row-major 6 x 6), the map from
// an impulse wrench [force; torque about d->xipos] to the change of [com velocity; angular
// velocity], J M^-1 J^T with the body's com jacobian J and this step's factorized mass matrix;
// accel (nbody x 6), the body's [com; angular] acceleration J qacc of this step. Other bodies get
// zeros. Called from advance, after the integrator (kinematics, qLD and qacc of this step).
void mjg_body_dynamics(const mjModel* m, mjData* d, const int* coupled, float* mobility,
                       float* accel);

// Joint velocities at the start of this step: qvel - h qacc (nv), into qvel0.
void mjg_body_start_velocity(const mjModel* m, const mjData* d, mjtNum* qvel0);

// After an advance of nsub substeps: give the joints the grains' impulse on every coupled body
// (wrench x h, wrench nbody x 6 as grn_get_wrenches) in qvel, and move qpos by the displacement
// it caused (impulse integrals, nbody x 6 as grn_get_impulse_integrals) less what MuJoCo's step
// moved beyond the substeps' integration of the same acceleration.
void mjg_body_feedback(const mjModel* m, mjData* d, const int* coupled, const double* wrench,
                       const double* impulse_integral, int nsub);

#endif  // MJGRANULAR_PLUGIN_BODY_DYNAMICS_H_
