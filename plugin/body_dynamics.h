// two-way coupling as an implicit solve: the coupled bodies move with the grains inside the
// granular substeps, then the step's result is written back into qvel and qpos.
//
// MuJoCo's integrator changes the joint velocities over a step by h A^-1 f, with A the mass
// matrix plus h times the damping it treats implicitly (joint damping in Euler; all velocity
// derivatives of passive and actuator forces in the implicit integrators, e.g. a velocity servo's
// gain). The coupling uses the same A: before the advance, each coupled body gets its mobility
// (J A^-1 J^T at its centre of mass: how an impulse changes its velocity within one step) and its
// acceleration J a from everything else, a = (v_end - v_start) / h, and starts the step at its
// velocity before this step's acceleration. In the substeps it gains that acceleration, and
// answers the grains' impulses through its mobility in every Jacobi iterate. After the advance
// the joint velocities receive the grains' impulse, A^-1 J^T p, and the joint positions the
// displacement the grains saw the bodies make beyond MuJoCo's own integration, so MuJoCo's state
// is exactly the bodies' motion the grains answered to (up to the coupling between different
// bodies within one substep).
#ifndef MJGRANULAR_PLUGIN_BODY_DYNAMICS_H_
#define MJGRANULAR_PLUGIN_BODY_DYNAMICS_H_

#include <mujoco/mujoco.h>

// What the coupling needs of this step, computed in advance after the integrator (kinematics,
// mass matrix, qacc and qDeriv of this step). step_matrix (mjg_step_matrix_size) receives the
// sparse factor of A (step_matrix.h); accel (nv) the acceleration the integrator applied,
// A^-1 M qacc. For every body b with coupled[b] (nbody): mobility (nbody x 36, row-major 6 x 6),
// the map from an impulse wrench [force; torque about d->xipos] to the change of [com velocity;
// angular velocity], J A^-1 J^T with the body's com jacobian J; body_accel (nbody x 6), its
// [com; angular] acceleration J accel. Other bodies get zeros. A body costs what the dofs of its
// kinematic chain cost, whatever nv.
void mjg_body_dynamics(const mjModel* m, mjData* d, const int* coupled, mjtNum* step_matrix,
                       mjtNum* accel, float* mobility, float* body_accel);

// Joint velocities at the start of this step, qvel - h accel (nv), into qvel0.
void mjg_body_start_velocity(const mjModel* m, const mjData* d, const mjtNum* accel,
                             mjtNum* qvel0);

// After an advance of nsub substeps: give the joints the grains' impulse on every coupled body
// (wrench x h, wrench nbody x 6 as grn_get_wrenches) in qvel, and move qpos by the displacement
// it caused (impulse integrals, nbody x 6 as grn_get_impulse_integrals) less what MuJoCo's step
// moved beyond the substeps' integration of the same acceleration; step_matrix and accel as
// mjg_body_dynamics wrote them.
void mjg_body_feedback(const mjModel* m, mjData* d, const int* coupled, const mjtNum* step_matrix,
                       const mjtNum* accel, const double* wrench, const double* impulse_integral,
                       int nsub);

#endif  // MJGRANULAR_PLUGIN_BODY_DYNAMICS_H_
