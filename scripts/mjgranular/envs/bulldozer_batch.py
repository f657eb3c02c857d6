"""The bulldozing task vectorised on one mujoco.batch.Batch: num_envs bulldozers, each its own
simulation of the same scene, stepped together on a thread pool.

    from mjgranular.envs.bulldozer_batch import BulldozerBatch
    envs = BulldozerBatch(num_envs=8, grains=2000)
    # or gymnasium.make_vec("mjgranular/Bulldozer-v0", num_envs=8, grains=2000)
    obs, info = envs.reset(seed=0)
    obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())

Each simulation is the environment BulldozerEnv (envs/bulldozer.py) is, bit for bit:
BulldozerBatch(num_envs=n, ...) gives what gymnasium.vector.SyncVectorEnv over n
BulldozerEnv(...) gives, at any thread count: observations, rewards, flags, infos and every
simulation's state. As there: reset(seed=s) seeds simulation i with s + i (a list gives one seed
each), options={"pose": ...} starts every simulation reset at that pose (or (num_envs, 3) poses,
one each), options={"reset_mask": ...} resets only those simulations, and a simulation truncated by
a step is reset by the next one (autoreset mode NEXT_STEP), which returns its reset observation
with reward 0. The bed settles once, in one MjData, and every reset restores that state.
"""

import mujoco
import mujoco.batch
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import mjgranular
from mjgranular.envs.bulldozer import (BulldozerScene, drive_command, goal_info, goal_reward,
                                       track_velocity)


class BulldozerBatch(VectorEnv):
  """num_envs bulldozers in one mujoco.batch.Batch (see the module docstring)."""

  metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

  def __init__(self, num_envs, grains=None, max_steps=300, settle=0.5, backend=None, nthread=0):
    """num_envs: simulations; nthread: the batch's threads (0: all CPUs); the rest as
    BulldozerEnv's."""
    self.scene = BulldozerScene(grains, backend)
    self.model = self.scene.model
    self.num_envs = num_envs
    self.max_steps = max_steps
    self.single_action_space = self.scene.action_space
    self.single_observation_space = self.scene.observation_space
    self.action_space = batch_space(self.single_action_space, num_envs)
    self.observation_space = batch_space(self.single_observation_space, num_envs)
    self._start = self.scene.settle(mujoco.MjData(self.model), settle)

    self.batch = mujoco.batch.Batch(self.model, num_envs, nthread=nthread)
    self._qpos = self.batch.bind("qpos")
    self._ctrl = self.batch.bind("ctrl")
    self._time = self.batch.bind("time")
    self._sensordata = self.batch.bind("sensordata")
    plugin_state = self.batch.bind("plugin_state")
    self._grains = [mjgranular.grains(self.model, plugin_state[i]) for i in range(num_envs)]
    self._rngs = [None] * num_envs            # each simulation's np_random, as BulldozerEnv's
    self._steps = np.zeros(num_envs, dtype=int)
    self._autoreset = np.zeros(num_envs, dtype=bool)

  def grain_positions(self, i):
    """(n x 3) view of simulation i's grain positions [m]."""
    return self._grains[i].positions

  def _restart(self, i, seed, pose):
    """Simulation i at the settled state, the dozer at pose or at a start pose drawn as
    BulldozerEnv.reset draws it."""
    if seed is not None or self._rngs[i] is None:
      self._rngs[i], _ = seeding.np_random(seed)
    self.batch.state[i] = self._start
    self._qpos[i, self.scene.qpos] = self.scene.start_joints(self._rngs[i], pose)
    self._steps[i] = 0
    self._autoreset[i] = False

  def _observations(self):
    # sensordata is the batch's forward() at the state each simulation is in
    each = [self.scene.observation(self._qpos[i], self._sensordata[i], self.grain_positions(i))
            for i in range(self.num_envs)]
    return {key: np.stack([obs[key] for obs in each]) for key in self.single_observation_space}

  def _infos(self, sims):
    infos = {}
    for i in sims:
      infos = self._add_info(infos, goal_info(self.grain_positions(i), self._time[i]), i)
    return infos

  # gymnasium api --------------------------------------------------------------------------------

  def reset(self, *, seed=None, options=None):
    """Every simulation, or those of options["reset_mask"], at the settled bed with the dozer at
    a start pose drawn from its seed, or at options["pose"]."""
    n = self.num_envs
    options = dict(options or {})
    mask = options.pop("reset_mask", None)
    mask = np.ones(n, dtype=bool) if mask is None else np.asarray(mask)
    if mask.shape != (n,) or mask.dtype != np.bool_ or not mask.any():
      raise ValueError(f"options['reset_mask'] must be a bool array of shape ({n},), not all "
                       "False")
    if seed is None or isinstance(seed, int):
      seed = [None if seed is None else seed + i for i in range(n)]
    if len(seed) != n:
      raise ValueError(f"seeds as a list must be num_envs={n} of them, not {len(seed)}")
    pose = options.get("pose")
    poses = [None] * n if pose is None else np.broadcast_to(np.asarray(pose, float), (n, 3))
    sims = np.flatnonzero(mask)
    for i in sims:
      self._restart(i, seed[i], poses[i])
    self.batch.forward(mask)
    return self._observations(), self._infos(sims)

  def step(self, actions):
    speed, yaw_rate = drive_command(actions)
    cx, cy, cyaw = self.scene.ctrl
    yaw = self.scene.qpos[2]
    # the simulations an episode ended in last step are reset instead of stepped
    resetting = self._autoreset.copy()
    if not resetting.all():
      for _ in range(self.scene.nstep):
        # the tracks drive along each dozer's current heading
        self._ctrl[:, cx], self._ctrl[:, cy] = track_velocity(speed, self._qpos[:, yaw])
        self._ctrl[:, cyaw] = yaw_rate
        self.batch.step(~resetting)
    for i in np.flatnonzero(resetting):
      self._restart(i, None, None)
    self._steps[~resetting] += 1
    self.batch.forward()

    rewards = np.array([0.0 if resetting[i] else goal_reward(self.grain_positions(i))
                        for i in range(self.num_envs)])
    terminated = np.zeros(self.num_envs, dtype=bool)
    truncated = ~resetting & (self._steps >= self.max_steps)
    self._autoreset = truncated.copy()
    return (self._observations(), rewards, terminated, truncated,
            self._infos(range(self.num_envs)))
