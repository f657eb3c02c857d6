"""Throughput of many small sand beds: one mujoco.batch.Batch of NSIM simulations against a loop
over NSIM MjData, each bed pushed by its own blade (scene(); tests/python/test_batch.py steps it
too). Prints steps per second and particle-substeps per second of both.

    .venv/bin/python scripts/bench/batch_throughput.py --grains 256,2000 --nsim 64 --steps 50

With --envs N, the bulldozer environment instead: env-steps per second of BulldozerBatch(N) (one
Batch) against N BulldozerEnv stepped in a loop, and with --async against gymnasium's make_vec
of N BulldozerEnv in a process each; every dozer starts at the pile and drives its own action.

    .venv/bin/python scripts/bench/batch_throughput.py --envs 8 --grains 2000 --steps 5 --async
"""

import argparse
import math
import os
import time

import numpy as np

import mujoco
import mujoco.batch

import mjgranular

SCENE = """
<mujoco>
  <option timestep="0.002"/>
  <extension>
    <plugin plugin="mjgranular.terrain">
      <instance name="sand">
        <config key="fill" value="{lo} {lo} 0.003  {hi} {hi} {top}"/>
        <config key="radius" value="0.003"/>
      </instance>
    </plugin>
  </extension>
  <worldbody>
    <plugin instance="sand"/>
    <geom type="plane" size="1 1 0.1"/>
    <geom type="box" pos=" {wall} 0 0.05" size="0.01 {half} 0.05"/>
    <geom type="box" pos="-{wall} 0 0.05" size="0.01 {half} 0.05"/>
    <geom type="box" pos="0  {wall} 0.05" size="{half} 0.01 0.05"/>
    <geom type="box" pos="0 -{wall} 0.05" size="{half} 0.01 0.05"/>
    <body name="blade" pos="{start} 0 0.035">
      <joint name="x" type="slide" axis="1 0 0"/>
      <geom type="box" size="0.003 {blade} 0.02" mass="0.5"/>
    </body>
  </worldbody>
  <actuator><position joint="x" kp="2000" dampratio="1"/></actuator>
</mujoco>
"""


def scene(grains):
  """a walled square bed of about `grains` grains, 2.7 cm deep, with a blade at its west side."""
  spacing = 2.2 * 0.003
  side = math.sqrt(grains / 4.0) * spacing  # the fill holds 4 layers of grains 2.2 r apart
  hi = side / 2
  return SCENE.format(lo=-hi, hi=hi, top=0.003 + 4 * spacing, wall=hi + 0.01, half=hi + 0.02,
                      start=-hi + 0.01, blade=0.8 * hi)


def run(model, nsim, steps, nthread):
  """seconds for `steps` steps of nsim simulations: (loop over MjData, one Batch)."""
  speeds = np.linspace(0, 0.1, nsim)
  datas = [mujoco.MjData(model) for _ in range(nsim)]
  t0 = time.perf_counter()
  for s, d in enumerate(datas):
    for k in range(steps):
      d.ctrl[0] = speeds[s] * (k + 1) * model.opt.timestep
      mujoco.mj_step(model, d)
  loop = time.perf_counter() - t0
  batch = mujoco.batch.Batch(model, nsim, nthread=nthread)
  ctrl = batch.bind("ctrl")
  t0 = time.perf_counter()
  for k in range(steps):
    ctrl[:, 0] = speeds * (k + 1) * model.opt.timestep
    batch.step()
  return loop, time.perf_counter() - t0


def envs_run(grains, nenv, steps, nthread, settle, processes):
  """seconds for `steps` env steps of nenv bulldozers: (loop over BulldozerEnv, BulldozerBatch,
  async make_vec or None), and the grains of one."""
  import gymnasium
  from mjgranular.envs.bulldozer import BulldozerEnv
  from mjgranular.envs.bulldozer_batch import BulldozerBatch
  kwargs = dict(grains=grains, settle=settle, max_steps=steps + 1, backend="cpu")
  start = {"pose": (-0.35, 0.0, 0.0)}  # the blade about 5 cm from a 2,000-grain pile
  actions = np.random.default_rng(0).uniform([0.5, -1.0], [1.0, 1.0], (nenv, 2))

  def timed(step):
    t0 = time.perf_counter()
    for _ in range(steps):
      step()
    return time.perf_counter() - t0

  singles = [BulldozerEnv(**kwargs) for _ in range(nenv)]
  for i, env in enumerate(singles):
    env.reset(seed=i, options=start)
  loop = timed(lambda: [env.step(a) for env, a in zip(singles, actions)])
  n = len(singles[0].grain_positions)
  batch = BulldozerBatch(nenv, nthread=nthread, **kwargs)
  batch.reset(seed=0, options=start)
  batched = timed(lambda: batch.step(actions))
  batch.close()
  if not processes:
    return loop, batched, None, n
  vec = gymnasium.make_vec("mjgranular/Bulldozer-v0", nenv, vectorization_mode="async", **kwargs)
  vec.reset(seed=0, options=start)
  spread = timed(lambda: vec.step(actions))
  vec.close()
  return loop, batched, spread, n


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  ap.add_argument("--grains", default="256,2000", help="bed sizes, comma-separated")
  ap.add_argument("--nsim", type=int, default=64)
  ap.add_argument("--steps", type=int, default=50)
  ap.add_argument("--nthread", type=int, default=os.cpu_count())
  ap.add_argument("--envs", type=int, default=0, help="time N bulldozer environments instead")
  ap.add_argument("--settle", type=float, default=0.2, help="the bulldozer bed's settling [s]")
  ap.add_argument("--async", dest="processes", action="store_true",
                  help="with --envs, time gymnasium's async make_vec too")
  a = ap.parse_args()
  if a.envs:
    print("| grains | envs | steps | loop env-steps/s | batch env-steps/s (%d threads) "
          "| speed-up | async env-steps/s |" % a.nthread)
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for want in (int(g) for g in a.grains.split(",")):
      loop, batch, spread, n = envs_run(want, a.envs, a.steps, a.nthread, a.settle, a.processes)
      total = a.envs * a.steps
      print("| %d | %d | %d | %.2f | %.2f | %.2fx | %s |"
            % (n, a.envs, a.steps, total / loop, total / batch, loop / batch,
               "-" if spread is None else "%.2f" % (total / spread)), flush=True)
    return
  print("| grains | sims | steps | loop steps/s | batch steps/s (%d threads) | batch PSS "
        "| speed-up |" % a.nthread)
  print("|---:|---:|---:|---:|---:|---:|---:|")
  for want in (int(g) for g in a.grains.split(",")):
    model = mujoco.MjModel.from_xml_string(scene(want))
    d = mujoco.MjData(model)
    n = mjgranular.grains(model, d).count
    sub = mjgranular.substeps(model, mjgranular.timestep(model))
    loop, batch = run(model, a.nsim, a.steps, a.nthread)
    total = a.nsim * a.steps
    print("| %d | %d | %d | %.1f | %.1f | %.3g | %.2fx |"
          % (n, a.nsim, a.steps, total / loop, total / batch, total * sub * n / batch,
             loop / batch), flush=True)


if __name__ == "__main__":
  main()
