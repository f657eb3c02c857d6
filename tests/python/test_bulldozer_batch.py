"""mjgranular.envs.bulldozer_batch on small piles (CPU backend): BulldozerBatch, three bulldozers in
one mujoco.batch.Batch, against gymnasium's SyncVectorEnv over three BulldozerEnv, bit for bit
(observations, rewards, flags, infos and every simulation's state after every call) through
seeded resets, a partial reset, different actions per simulation and autoresets, at 1 and 2
threads; its start poses against BulldozerEnv's; gymnasium.make_vec's vector entry point.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import numpy as np
import pytest

import gymnasium
import mujoco

from mjgranular.envs.bulldozer import BulldozerEnv
from mjgranular.envs.bulldozer_batch import BulldozerBatch

SMALL = dict(grains=300, max_steps=3, settle=0.05, backend="cpu")  # a quick environment
NUM_ENVS = 3
SEED = 7
NEAR_PILE = (-0.27, 0.0, 0.0)    # the blade 2 cm from the west side of the 300-grain pile

# each simulation its own action: full ahead, ahead turning left, back turning right
ACTIONS = np.array([[1.0, 0.0], [1.0, 0.8], [-0.5, -1.0]], dtype=np.float32)

# the calls, in order (max_steps 3): simulation 1 restarts after the first step, so simulations 0
# and 2 are truncated by call 5 and reset by call 6, in which simulation 1 steps and is
# truncated; call 7 resets simulation 1 and steps the others
SCRIPT = [
    ("reset", dict(seed=SEED, options={"pose": NEAR_PILE})),
    ("step", ACTIONS),
    ("reset", dict(options={"reset_mask": np.array([False, True, False]),
                            "pose": (-0.3, 0.05, 0.2)})),
    ("step", 0.9 * ACTIONS),
    ("step", 0.8 * ACTIONS),
    ("step", 0.7 * ACTIONS),
    ("step", 0.6 * ACTIONS),
]
TRUNCATED, AUTORESET, LAST = 4, 5, 6  # indices in SCRIPT


def states(envs):
  """Every simulation's mjSTATE_INTEGRATION row."""
  if isinstance(envs, BulldozerBatch):
    return np.array(envs.batch.state)
  spec = mujoco.mjtState.mjSTATE_INTEGRATION
  rows = []
  for env in envs.envs:
    m, d = env.unwrapped.model, env.unwrapped.data
    rows.append(np.empty(mujoco.mj_stateSize(m, spec)))
    mujoco.mj_getState(m, d, rows[-1], spec)
  return np.array(rows)


def run(envs):
  """SCRIPT's calls on envs: each call's results, and the states after it."""
  results = []
  for call, arg in SCRIPT:
    if call == "reset":
      arg = dict(arg, options=dict(arg["options"]))  # SyncVectorEnv pops the reset mask
      out = envs.reset(**arg)
    else:
      out = envs.step(arg)
    results.append((out, states(envs)))
  return results


@pytest.fixture(scope="module")
def reference():
  envs = gymnasium.vector.SyncVectorEnv([lambda: BulldozerEnv(**SMALL)] * NUM_ENVS)
  try:
    yield run(envs)
  finally:
    envs.close()


@pytest.fixture(scope="module", params=[1, 2], ids=lambda n: f"nthread{n}")
def batched(request):
  envs = BulldozerBatch(NUM_ENVS, nthread=request.param, **SMALL)
  assert envs.batch.nthread == request.param
  try:
    yield run(envs)
  finally:
    envs.close()


def assert_identical(a, b, what):
  """a and b the same, bit for bit, and of the same types, nested in tuples and dicts."""
  if isinstance(a, (tuple, dict)):
    assert type(a) is type(b) and len(a) == len(b), what
    keys = a.keys() if isinstance(a, dict) else range(len(a))
    for key in keys:
      assert_identical(a[key], b[key], f"{what}[{key!r}]")
  else:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, what
    assert a.tobytes() == b.tobytes(), (
        f"{what}: {np.count_nonzero(a != b)} of {a.size} values differ")


def test_the_simulations_differ(reference):
  # each dozer has pushed the sand its own way when simulations 0 and 2 are truncated...
  (obs, reward, terminated, truncated, info), _ = reference[TRUNCATED]
  print("[ measure ] rewards %s, poses %s" % (reward, obs["pose"].tolist()))
  for i in range(NUM_ENVS):
    for j in range(i):
      assert reward[i] != reward[j]
      assert np.abs(obs["pose"][i] - obs["pose"][j]).max() > 0.01
      assert np.abs(obs["ego"][i] - obs["ego"][j]).max() > 0.004  # a grain radius
  assert reward.max() > reward.min() + 0.01  # the pile moved toward the goal in one of them
  # ...and the seeded start poses differ from each other
  (obs, *_), _ = reference[AUTORESET]
  assert np.abs(obs["pose"][0] - obs["pose"][2]).max() > 0.01


def test_batch_gives_what_separate_environments_give(reference, batched):
  for k, ((want, want_states), (got, got_states)) in enumerate(zip(reference, batched)):
    call = SCRIPT[k][0]
    assert_identical(got, want, f"call {k} ({call})")
    assert got_states.shape == want_states.shape
    for i in range(NUM_ENVS):
      assert got_states[i].tobytes() == want_states[i].tobytes(), (
          f"call {k} ({call}): simulation {i}'s state differs at "
          f"{np.count_nonzero(got_states[i] != want_states[i])} of {want_states.shape[1]} numbers")


def test_autoreset_in_the_next_step_at_bulldozer_env_start_poses(batched):
  (_, _, terminated, truncated, _), _ = batched[TRUNCATED]
  assert truncated.tolist() == [True, False, True] and not terminated.any()
  (obs, reward, terminated, truncated, info), _ = batched[AUTORESET]
  assert reward[0] == reward[2] == 0 and reward[1] != 0
  assert truncated.tolist() == [False, True, False]
  assert info["time"][0] == info["time"][2] == 0 and info["time"][1] > 0
  (last, reward, _, truncated, _), _ = batched[LAST]
  assert reward[1] == 0 and not truncated.any()
  # reset without a seed, each draws its start pose as BulldozerEnv(...).reset(seed=SEED + i)
  # does: seeded by the first reset, none drawn since (the poses were given)
  for i, pose in ((0, obs["pose"][0]), (1, last["pose"][1]), (2, obs["pose"][2])):
    env = BulldozerEnv(**SMALL)
    try:
      alone, _ = env.reset(seed=SEED + i)
    finally:
      env.close()
    np.testing.assert_array_equal(pose, alone["pose"])


def test_make_vec_makes_the_batch():
  spec = gymnasium.spec("mjgranular/Bulldozer-v0")
  assert spec.vector_entry_point == "mjgranular.envs.bulldozer_batch:BulldozerBatch"
  for mode in ("vector_entry_point", None):  # None: the vector entry point where there is one
    envs = gymnasium.make_vec("mjgranular/Bulldozer-v0", num_envs=2, vectorization_mode=mode,
                              nthread=1, **SMALL)
    try:
      assert isinstance(envs, BulldozerBatch) and envs.num_envs == 2
      # one pose each
      obs, info = envs.reset(seed=0, options={"pose": [(-0.4, 0.1, 0.5), (-0.2, -0.1, -1.0)]})
      assert envs.observation_space.contains(obs) and obs["sky"].shape == (2, 36, 72)
      np.testing.assert_allclose(obs["pose"], [(-0.4, 0.1, 0.5), (-0.2, -0.1, -1.0)], atol=1e-6)
      obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
      assert reward.shape == (2,) and np.all(info["grains"] == len(envs.grain_positions(0)))
    finally:
      envs.close()
  envs = gymnasium.make_vec("mjgranular/Bulldozer-v0", num_envs=2, vectorization_mode="sync",
                            **SMALL)
  try:
    assert isinstance(envs, gymnasium.vector.SyncVectorEnv)
    assert isinstance(envs.envs[0].unwrapped, BulldozerEnv)
  finally:
    envs.close()
