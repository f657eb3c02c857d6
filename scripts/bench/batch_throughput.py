"""Throughput of many small sand beds: one mujoco.batch.Batch of NSIM simulations against a loop
over NSIM MjData, each bed pushed by its own blade (scene(); tests/python/test_batch.py steps it
too). Prints steps per second and particle-substeps per second of both.

    .venv/bin/python scripts/bench/batch_throughput.py --grains 256,2000 --nsim 64 --steps 50
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


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  ap.add_argument("--grains", default="256,2000", help="bed sizes, comma-separated")
  ap.add_argument("--nsim", type=int, default=64)
  ap.add_argument("--steps", type=int, default=50)
  ap.add_argument("--nthread", type=int, default=os.cpu_count())
  a = ap.parse_args()
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
