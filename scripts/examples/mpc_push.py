"""Sampling-based MPC: a blade plans its pushes to move sand into a target region.

Predictive sampling (as in MuJoCo MPC) on models/push.xml: the plan is a piecewise-linear spline
of blade velocities (the two velocity actuators' controls) through a few knots over a horizon.
Every replanning interval, the plan is shifted to start now, perturbed with Gaussian noise into
a set of candidate plans (the unperturbed one among them), each candidate is rolled out from the
current state (mj_getState / mj_setState with mjSTATE_INTEGRATION, which carries the grains in
plugin_state) on a second MjData, or on the workers of a Ray cluster with --ray (the same costs
bit for bit: mjgranular.distributed), the cheapest becomes the plan, and the real system steps
through the interval with it. Rollout cost: the mean horizontal distance of the grains to the
target region (the geom named "target") at the end of the horizon, plus a small control effort,
plus a small term for the blade's distance to the grains' centre (without it no candidate that
stops short of the sand scores better than standing still, and the search has nothing to follow).

Prints the cost over the iterations, then the cost reached against doing nothing for as long.

  .venv/bin/python scripts/examples/mpc_push.py          # 1.5 s simulated, about 30 s on 2 cores
  .venv/bin/python scripts/examples/mpc_push.py --quick  # short (tests/python/test_mpc_push.py)
  .venv/bin/python scripts/examples/mpc_push.py --ray auto  # candidates on this machine's cluster
"""

import argparse
import os
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # read when the plugin loads libgomp

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import mjgranular  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))  # the repository
STATE = mujoco.mjtState.mjSTATE_INTEGRATION  # the whole state, warm start included
EFFORT = 0.01  # weight of the mean squared control [m / (m/s)^2] in the rollout cost
REACH = 0.1    # weight of the blade's distance to the grains' centre in the rollout cost


def parse_args(argv=None):
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--model", default=mjgranular.scene("push"), help="MJCF file (models/push.xml)")
  p.add_argument("--quick", action="store_true",
                 help="short run: 0.6 s, horizon 0.2 s, 4 samples, replanning every 0.06 s")
  p.add_argument("--seconds", type=float, default=1.5, help="simulated time [s]")
  p.add_argument("--horizon", type=float, default=0.3, help="planning horizon [s]")
  p.add_argument("--replan", type=float, default=0.04, help="replanning interval [s]")
  p.add_argument("--samples", type=int, default=8, help="candidate plans per iteration")
  p.add_argument("--knots", type=int, default=3, help="spline knots over the horizon")
  p.add_argument("--sigma", type=float, default=0.15, help="knot noise [m/s]")
  p.add_argument("--seed", type=int, default=0, help="noise seed")
  p.add_argument("--ray", metavar="ADDRESS", default=None,
                 help="roll the candidates out on a Ray cluster: 'local' starts one here, 'auto' "
                      "joins this machine's (ray start), or host:port")
  p.add_argument("--workers", type=int, default=None,
                 help="Ray workers (default: one per CPU of the cluster)")
  args = p.parse_args(argv)
  if args.quick:
    args.seconds, args.horizon, args.replan, args.samples = 0.6, 0.2, 0.06, 4
  if args.samples < 1 or args.knots < 2 or min(args.horizon, args.replan, args.seconds) <= 0:
    p.error("need samples >= 1, knots >= 2 and positive seconds, horizon and replan")
  return args


class Spline:
  """Piecewise-linear controls through knots at times[0..K-1] (values K x nu), flat beyond."""

  def __init__(self, times, values):
    self.times, self.values = times, values

  def __call__(self, t):
    return np.array([np.interp(t, self.times, v) for v in self.values.T])

  def shifted(self, dt):
    """The same plan started dt later, knots at the same offsets."""
    return Spline(self.times, np.stack([self(t + dt) for t in self.times]))


class Target:
  """Mean horizontal distance of the grains to a box region (the model's geom "target")."""

  def __init__(self, m):
    gid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "target")
    if gid < 0:
      sys.exit("mpc_push: the model has no geom named 'target'")
    centre, half = m.geom_pos[gid, :2], m.geom_size[gid, :2]
    self.lo, self.hi = centre - half, centre + half

  def cost(self, grains):
    p = grains.positions[:, :2]
    gap = np.maximum(0.0, np.maximum(self.lo - p, p - self.hi))
    return float(np.linalg.norm(gap, axis=1).mean())


def controls_of(plan, nstep, dt):
  """(nstep, nu): the plan's controls before each of nstep steps of dt."""
  return np.stack([plan(k * dt) for k in range(nstep)])


def rollout_cost(m, d, controls, target, grains, blade):
  """Cost of a rollout that ran controls and left d in its final state (grains: views of d)."""
  mujoco.mj_kinematics(m, d)
  effort = float(np.mean(np.sum(controls * controls, axis=1)))
  reach = np.linalg.norm(d.xpos[blade, :2] - grains.positions[:, :2].mean(axis=0))
  return target.cost(grains) + EFFORT * effort + REACH * reach


def evaluate(m, d, state, candidates, target, grains, blade, pool=None):
  """The cost of each candidate's controls (k x nstep x nu) run from state (an INTEGRATION row):
  stepped here on d, or by the Ray workers of pool, whose final states come back to d."""
  finals = None if pool is None else pool.rollout(state, candidates)["state"]
  costs = []
  for i, controls in enumerate(candidates):
    if finals is None:
      mujoco.mj_setState(m, d, state, STATE)
      for u in controls:
        d.ctrl[:] = u
        mujoco.mj_step(m, d)
    else:
      mujoco.mj_setState(m, d, finals[i], STATE)
    costs.append(rollout_cost(m, d, controls, target, grains, blade))
  return costs


def plan_step(m, d_plan, state, nominal, args, rng, target, grains, pool=None):
  """One predictive-sampling iteration: the cheapest of the nominal and its perturbations."""
  nstep = max(1, round(args.horizon / m.opt.timestep))
  lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
  plans = []
  for i in range(args.samples):
    noise = 0 if i == 0 else args.sigma * rng.standard_normal(nominal.values.shape)
    plans.append(Spline(nominal.times, np.clip(nominal.values + noise, lo, hi)))
  candidates = np.stack([controls_of(p, nstep, m.opt.timestep) for p in plans])
  costs = evaluate(m, d_plan, state, candidates, target, grains, args.blade, pool)
  best = int(np.argmin(costs))
  return plans[best], costs[best]


def run_open_loop(m, d, seconds, controls):
  """Steps d for seconds with constant controls."""
  d.ctrl[:] = controls
  for _ in range(max(1, round(seconds / m.opt.timestep))):
    mujoco.mj_step(m, d)


def main(argv=None):
  args = parse_args(argv)
  mjgranular.load_plugin()  # loaded by `import mujoco`; says what is missing, if anything
  m = mujoco.MjModel.from_xml_path(args.model)
  d, d_plan = mujoco.MjData(m), mujoco.MjData(m)
  mujoco.mj_forward(m, d)
  target = Target(m)
  args.blade = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "blade")
  if args.blade < 0:
    sys.exit("mpc_push: the model has no body named 'blade'")
  grains, plan_grains = mjgranular.grains(m, d), mjgranular.grains(m, d_plan)
  rng = np.random.default_rng(args.seed)
  pool = None
  if args.ray:
    import mjgranular.distributed as dist
    dist.connect(args.ray)
    pool = dist.RolloutPool(m, workers=args.workers)
    print(f"mpc_push: candidates rolled out by {len(pool.workers)} Ray workers")
  state = np.empty(mujoco.mj_stateSize(m, STATE))
  start = target.cost(grains)
  print(f"mpc_push: {os.path.relpath(args.model, ROOT)}: {grains.count} grains, "
        f"{args.seconds:g} s, horizon {args.horizon:g} s, replanning every {args.replan:g} s, "
        f"{args.samples} samples x {args.knots} knots, sigma {args.sigma:g} m/s")
  print(f"mpc_push: cost = mean distance of the grains to the target region [mm]; "
        f"start {1000 * start:.1f} mm")
  print(" iter   time [s]   planned [mm]   actual [mm]   blade x [m]   ctrl [m/s]      wall [s]")

  # predictive sampling from a plan that stands still
  times = np.linspace(0, args.horizon, args.knots)
  plan = Spline(times, np.zeros((args.knots, m.nu)))
  replan_steps = max(1, round(args.replan / m.opt.timestep))
  iterations = max(1, round(args.seconds / (replan_steps * m.opt.timestep)))
  history, planned_costs = [], []
  wall0 = time.perf_counter()
  for it in range(iterations):
    # plan from the current state, then run the plan's first interval on the real system
    mujoco.mj_getState(m, d, state, STATE)
    plan, planned = plan_step(m, d_plan, state, plan, args, rng, target, plan_grains, pool)
    for k in range(replan_steps):
      d.ctrl[:] = plan(k * m.opt.timestep)
      mujoco.mj_step(m, d)
    plan = plan.shifted(replan_steps * m.opt.timestep)
    actual = target.cost(grains)
    history.append(actual)
    planned_costs.append(planned)
    print(f" {it:4d}   {d.time:8.3f}   {1000 * planned:12.2f}   {1000 * actual:11.2f}   "
          f"{d.qpos[0]:11.3f}   {d.ctrl[0]:+5.2f} {d.ctrl[1]:+5.2f}   "
          f"{time.perf_counter() - wall0:8.1f}", flush=True)

  # the same time with the blade standing still
  idle = mujoco.MjData(m)
  run_open_loop(m, idle, d.time, np.zeros(m.nu))
  nothing = target.cost(mjgranular.grains(m, idle))
  final = history[-1]
  print(f"mpc_push: after {d.time:.2f} s: planned pushes {1000 * final:.1f} mm, doing nothing "
        f"{1000 * nothing:.1f} mm (start {1000 * start:.1f} mm), "
        f"{time.perf_counter() - wall0:.0f} s wall")
  if pool is not None:
    pool.close()
  return {"start": start, "final": final, "nothing": nothing, "history": history,
          "planned": planned_costs}


if __name__ == "__main__":
  main()
