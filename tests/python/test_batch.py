"""Grains in mujoco.batch.Batch (mujoco 4.0: many simulations of one model on a thread pool, each
its mjSTATE_INTEGRATION row, plugin_state included): the batch gives each simulation, bit for bit,
what stepping it alone in its own MjData gives, at 1, 2 and 4 threads. The batch's MjData serve
simulation after simulation, so the plugin must take each row's grains and contacts from its
plugin_state whatever the MjData last stepped.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import numpy as np
import pytest

import mujoco
import mujoco.batch

import batch_throughput
import mjgranular

INTEGRATION = mujoco.mjtState.mjSTATE_INTEGRATION

# scripts/bench/batch_throughput.py's bed: 576 grains of radius 3 mm in a walled 8 cm square, 2.6
# cm deep, and a blade on a slide joint that a position servo pushes into it; each simulation's
# servo target moves at its own speed
SCENE = batch_throughput.scene(576)

SPEEDS = np.array([0.0, 0.2, 0.4, 0.6])  # [m/s] each simulation's servo target speed
STEPS = 50


def target(step):
  """every simulation's servo target [m] for step `step` (from 0)."""
  return SPEEDS * (step + 1) * 0.002


@pytest.fixture(scope="module")
def model():
  return mujoco.MjModel.from_xml_string(SCENE)


@pytest.fixture(scope="module")
def alone(model):
  """each simulation stepped alone in its own MjData: its final state row, its grains."""
  rows, grains = [], []
  for s in range(len(SPEEDS)):
    d = mujoco.MjData(model)
    for k in range(STEPS):
      d.ctrl[0] = target(k)[s]
      mujoco.mj_step(model, d)
    row = np.empty(mujoco.mj_stateSize(model, INTEGRATION))
    mujoco.mj_getState(model, d, row, INTEGRATION)
    rows.append(row)
    grains.append(mjgranular.grains(model, d).positions.copy())
  return np.array(rows), grains


def test_the_simulations_differ(model, alone):
  # the blades push the sand differently, so the check below compares different beds
  _, grains = alone
  for s in range(1, len(SPEEDS)):
    moved = np.linalg.norm(grains[s] - grains[0], axis=1).max()
    print("[ measure ] simulation %d: a grain %.2f mm from where simulation 0 has it"
          % (s, 1000 * moved))
    assert moved > 0.003  # a grain radius


@pytest.mark.parametrize("nthread", [1, 2, 4])
def test_batch_steps_each_simulation_as_it_steps_alone(model, alone, nthread):
  rows, _ = alone
  batch = mujoco.batch.Batch(model, len(SPEEDS), nthread=nthread)
  ctrl = batch.bind("ctrl")
  for k in range(STEPS):
    ctrl[:, 0] = target(k)
    batch.step()
  state = np.array(batch.state)
  assert state.shape == rows.shape
  for s in range(len(SPEEDS)):
    assert np.array_equal(state[s].view(np.uint64), rows[s].view(np.uint64)), (
        "simulation %d differs at %d of %d numbers"
        % (s, np.count_nonzero(state[s] != rows[s]), rows.shape[1]))
