"""mjgranular.envs.bulldozer on models/bulldozer.xml with small piles (CPU backend): the reward
against values worked out by hand, the Gymnasium API, gymnasium.make and make_vec (async: in
processes) by the id `import mjgranular` registers, the observations against the grains they come
from, and the dozer following its body-frame command while it pushes the pile.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import math
import os

import numpy as np
import pytest

import gymnasium
from gymnasium.utils.env_checker import check_env

from mjgranular.envs import bulldozer as bulldozer_env
from mjgranular.envs.bulldozer import BulldozerEnv, goal_reward

R = 0.004  # grain radius of models/bulldozer.xml


def test_goal_reward_by_hand():
  # goal box x in [0.45, 0.75], y in [-0.2, 0.2], z in [0, 0.5]; n = 5 grains
  positions = [
      (0.5, 0.0, 0.004),    # inside: +100 / 5
      (0.7, 0.1, 0.02),     # inside: +100 / 5
      (0.35, 0.0, 0.004),   # 0.1 short in x: d = 0.1
      (0.8, 0.24, 0.004),   # past a vertical edge by 0.05 in x, 0.04 in y: d = sqrt(0.0041)
      (0.3, -0.3, 0.6),     # past a corner by 0.15, 0.1, 0.1: d = sqrt(0.0425)
  ]
  expected = (200 - 0.1 - math.sqrt(0.0041) - math.sqrt(0.0425)) / 5  # 39.92596...
  assert goal_reward(positions) == pytest.approx(expected, abs=1e-12)
  assert goal_reward(positions) == pytest.approx(39.925963, abs=1e-6)
  # all in: 100; one grain 1 m out of the box and alone: -1
  assert goal_reward([(0.6, 0, 0.1)] * 3) == pytest.approx(100.0)
  assert goal_reward([(0.6, 1.2, 0.1)]) == pytest.approx(-1.0)


def test_grains_flag_resizes_the_pile():
  import mujoco
  bulldozer_env.mjgranular.load_plugin()
  for want in (300, 2000):
    m = mujoco.MjModel.from_xml_string(bulldozer_env.scene_xml(grains=want, backend="cpu"))
    d = mujoco.MjData(m)
    assert bulldozer_env.mjgranular.grains(m, d).count == pytest.approx(want, rel=0.15)
  with pytest.raises(ValueError, match="fit in the yard"):
    bulldozer_env.scene_xml(grains=50000)


@pytest.fixture(scope="module")
def env():
  e = BulldozerEnv(grains=300, max_steps=4, settle=0.1, backend="cpu")
  yield e
  e.close()


def constructed_state(env, grains):
  """Replace the bed by these grains at rest (contact state cleared) and put the dozer at
  (-0.5, 0) heading +x."""
  env.reset(options={"pose": (-0.5, 0.0, 0.0)})
  g = bulldozer_env.mjgranular.grains(env.model, env.data)
  g.state[0] = len(grains)
  g.positions[:] = grains
  g.velocities[:] = 0
  g.angular_velocities[:] = 0
  g.contacts[:] = 0


def test_reward_of_a_constructed_state(env):
  # four grains resting on the floor, two in the goal box, and one ahead of the blade
  # (all off the height maps' cell borders)
  grains = [(0.5, 0.01, R), (0.61, 0.1, R),
            (0.3, 0.0, R),        # 0.15 short of the box in x
            (0.78, 0.3, R),       # past a vertical edge by 0.03 in x, 0.1 in y
            (-0.25, 0.03, R)]     # 0.7 short in x (0.25 ahead of the dozer, 0.03 to its left)
  constructed_state(env, grains)
  d_out = 0.15 + math.sqrt(0.03**2 + 0.1**2) + 0.7
  expected = (200 - d_out) / 5  # 39.78912...
  assert env.reward() == pytest.approx(expected, abs=1e-6)

  # a step with the dozer still: the grains rest where they are, the reward is the same
  obs, reward, terminated, truncated, info = env.step([0.0, 0.0])
  assert reward == pytest.approx(expected, abs=1e-4)
  assert info["grains_in_goal"] == 2 and info["grains"] == 5
  assert not terminated and not truncated

  # sky: x cells of 1.6 / 72 m from -0.8, y cells of 0.8 / 36 m from -0.4; a resting grain's top
  # is 2 R; the empty floor reads 0
  cell = 1.6 / 72
  sky = obs["sky"]
  for x, y, _ in grains:
    assert sky[int((y + 0.4) // cell), int((x + 0.8) // cell)] == pytest.approx(2 * R, abs=1e-5)
  assert np.count_nonzero(sky) == len(grains)
  # ego: 2 cm cells from 0.16 m ahead and from 0.16 m to the right; the last grain is 0.25 ahead,
  # 0.03 left: cell (row 9, column 4)
  ego = obs["ego"]
  assert ego[9, 4] == pytest.approx(2 * R, abs=1e-5)
  assert np.count_nonzero(ego) == 1
  np.testing.assert_allclose(obs["pose"], [-0.5, 0.0, 0.0], atol=1e-6)


def test_gymnasium_api(env):
  check_env(env, skip_render_check=True)
  obs, info = env.reset(seed=3)
  assert env.observation_space.contains(obs)
  again, _ = env.reset(seed=3)
  for key in obs:
    np.testing.assert_array_equal(obs[key], again[key])
  # an episode is max_steps long, cut by truncation
  flags = [env.step(env.action_space.sample())[3] for _ in range(4)]
  assert flags == [False, False, False, True]


SMALL = dict(grains=300, max_steps=2, settle=0.05, backend="cpu")  # a quick environment


def test_gymnasium_make_after_import():
  # registered by `import mjgranular` (this module imported it), by module path
  spec = gymnasium.spec("mjgranular/Bulldozer-v0")
  assert spec.entry_point == "mjgranular.envs.bulldozer:BulldozerEnv"
  env = gymnasium.make("mjgranular/Bulldozer-v0", **SMALL)
  try:
    assert isinstance(env.unwrapped, BulldozerEnv)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    obs, reward, terminated, truncated, info = env.step([1.0, 0.0])
    assert info["grains"] == env.unwrapped._grains.count > 200
    assert obs["sky"].max() > 0  # the grains are there: the height map sees them
  finally:
    env.close()


@pytest.mark.parametrize("context", [None, "spawn"])
def test_gymnasium_make_vec_runs_environments_in_processes(context):
  """Each environment in its own process; with "spawn" the workers start from nothing, so
  `import mujoco` there (through the registered entry point) is what loads the plugin."""
  vec = gymnasium.make_vec("mjgranular/Bulldozer-v0", num_envs=2, vectorization_mode="async",
                           vector_kwargs={"context": context}, **SMALL)
  try:
    pids = {p.pid for p in vec.processes}
    assert len(pids) == 2 and os.getpid() not in pids
    obs, info = vec.reset(seed=[0, 1])
    assert obs["sky"].shape == (2, 36, 72) and obs["pose"].shape == (2, 3)
    assert not np.array_equal(obs["pose"][0], obs["pose"][1])  # start poses from their seeds
    obs, reward, terminated, truncated, info = vec.step(np.ones((2, 2), dtype=np.float32))
    assert reward.shape == (2,) and np.all(np.isfinite(reward))
    assert np.all(info["grains"] > 200) and np.all(obs["sky"].max(axis=(1, 2)) > 0)
    # each worker steps what one environment in this process would
    one = BulldozerEnv(**SMALL)
    try:
      alone, _ = one.reset(seed=1)
      np.testing.assert_array_equal(alone["pose"], vec.reset(seed=[0, 1])[0]["pose"][1])
    finally:
      one.close()
  finally:
    vec.close()


def test_dozer_follows_its_heading_and_pushes_the_pile(env):
  # heading 0.2 rad left of +x, full speed ahead for 1.5 s: it travels along its heading, meets
  # the pile after about 1 s and shoves it toward the goal, and the sand pushes back on the blade
  yaw = 0.2
  obs, _ = env.reset(options={"pose": (-0.5, -0.06, yaw)})
  start = obs["pose"].astype(np.float64)
  reward0 = env.reward()
  x0 = env.grain_positions[:, 0].mean()
  for _ in range(15):
    obs, reward, *_ = env.step([1.0, 0.0])
  moved = obs["pose"][:2] - start[:2]
  dist = np.linalg.norm(moved)
  assert dist == pytest.approx(1.5 * bulldozer_env.MAX_SPEED, rel=0.1)
  # along the heading: the sideways part is within 2% of the distance
  assert abs(-math.sin(yaw) * moved[0] + math.cos(yaw) * moved[1]) < 0.02 * dist
  # the pile, met off-centre, turns it a little against its yaw servo
  assert obs["pose"][2] == pytest.approx(yaw, abs=0.03)
  # the pile moved toward the goal and the reward rose
  assert env.grain_positions[:, 0].mean() > x0 + 0.02
  assert reward > reward0
  dozer = env.model.body("dozer").id
  force = bulldozer_env.mjgranular.grains(env.model, env.data).wrenches[dozer, :3]
  assert force[0] < -0.5  # newtons, against the motion
