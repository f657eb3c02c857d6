"""The bulldozing task as a Gymnasium environment (GranularGym section III-A) on models/bulldozer.xml.

    from mjgranular.envs.bulldozer import BulldozerEnv
    env = BulldozerEnv(grains=2000)    # or gymnasium.make("mjgranular/Bulldozer-v0", grains=2000)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

Action: Box([-1, 1]^2): forward speed along the dozer's heading and yaw rate, as fractions of
MAX_SPEED [m/s] and MAX_YAW_RATE [rad/s] (GranularGym's track steering model). Before every
MuJoCo step the command is turned into the world-frame velocities of the dozer's slide x, slide y
and yaw servos at its current heading, so the dozer never slides sideways.

Observation (Dict):
  sky   (36, 72) float32: the sand's height map over the yard [m] from the model's
        mjgranular.heightmap sensor "sky" (row = y cell, column = x cell, x fastest; 0: floor)
  ego   (16, 16) float32: the same kind of height map in the dozer's frame over the 32 cm square
        ahead of the blade (row = lateral cell from the dozer's right, column = distance ahead)
  pose  (3,) float32: the dozer's x, y [m] and yaw [rad] (wrapped to (-pi, pi])
Heights are clipped to [0, MAX_HEIGHT].

Reward, each step, of the state it ends in (GranularGym): with n grains, 100 / n for each grain
in the goal box and -d / n for each grain outside it, d its distance [m] to the closest point of
the box: goal_reward(). The episode is a fixed time budget: `terminated` is always False,
`truncated` comes after max_steps steps.

Each step is CONTROL_PERIOD of simulated time. The model's initial lattice bed is settled once
when the environment is made (settle seconds, dozer still) and that state is what reset restores,
with the dozer's start pose drawn around its MJCF pose from the reset seed (or given as
reset(options={"pose": (x, y, yaw)})). `grains` shrinks or
grows the pile (its side; depth kept) to about that many grains: small piles for CI and tests.
BulldozerScene holds what this environment and its vector environment on a mujoco.batch.Batch,
BulldozerBatch (envs/bulldozer_batch.py), share.

Run it to drive the dozer straight into the pile and report the reward and the speed:

  python -m mjgranular.envs.bulldozer --grains 2000 --seconds 2
"""

import argparse
import math
import os
import time
import xml.etree.ElementTree as ET

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import gymnasium  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium import spaces  # noqa: E402

import mjgranular  # noqa: E402

MODEL = mjgranular.scene("bulldozer")

GOAL_LO = np.array([0.45, -0.2, 0.0])   # goal box, world frame [m] (the model's "goal" patch,
GOAL_HI = np.array([0.75, 0.2, 0.5])    # extended upward past any pile)
MAX_SPEED = 0.25                        # forward speed at action 1 [m/s]
MAX_YAW_RATE = 1.0                      # yaw rate at action 1 [rad/s]
CONTROL_PERIOD = 0.1                    # simulated time per env step [s]
EGO_CELLS = 16                          # ego height map cells per side
EGO_AHEAD = (0.16, 0.48)                # ego map from the blade's face forward [m], dozer frame
EGO_HALF_WIDTH = 0.16                   # ego map half width [m]
START_JITTER = (0.05, 0.1, 0.3)         # uniform start pose noise: x, y [m], yaw [rad]
YARD = (0.8, 0.4)                       # half extents of the walled yard [m]
MAX_HEIGHT = 1.0                        # heights in the observations are clipped to this [m]
INTEGRATION = mujoco.mjtState.mjSTATE_INTEGRATION   # the state a reset restores, all of it


def goal_reward(positions, lo=GOAL_LO, hi=GOAL_HI):
  """GranularGym's bulldozing reward of grain positions (n x 3): 100 / n per grain in the box
  [lo, hi], minus d / n per grain outside, d its distance to the closest point of the box."""
  positions = np.asarray(positions, dtype=np.float64)
  n = len(positions)
  if n == 0:
    return 0.0
  gap = np.maximum(np.maximum(lo - positions, positions - hi), 0.0)
  dist = np.linalg.norm(gap, axis=1)
  inside = dist == 0
  return float((100.0 * np.count_nonzero(inside) - dist[~inside].sum()) / n)


def terrain_config(root):
  """The config elements of the model's terrain instance "sand", by key."""
  instance = root.find("extension/plugin/instance[@name='sand']")
  return instance, {c.get("key"): c for c in instance.iter("config")}


def scene_xml(grains=None, backend=None, path=MODEL):
  """The model's MJCF, its fill box resized to about `grains` grains (the same centre and depth,
  a square of whole lattice sites; None: as it is), its backend key set when given."""
  root = ET.parse(path).getroot()
  instance, config = terrain_config(root)
  if backend is not None:
    ET.SubElement(instance, "config", key="backend", value=backend)
  if grains is None:
    return ET.tostring(root, encoding="unicode")
  fill = [float(v) for v in config["fill"].get("value").split()]
  radius = float(config["radius"].get("value"))
  spacing = float(config["spacing"].get("value")) if "spacing" in config else 2.2
  step = spacing * radius
  levels = int(math.floor((fill[5] - fill[2] - 2 * radius) / step + 1e-9)) + 1
  side = max(1, round(math.sqrt(grains / levels)))
  width = 2 * radius + (side - 1) * step + 1e-6
  if width > 0.7:  # the pile must leave the dozer room in the 0.8 m wide yard
    most = levels * (int((0.7 - 2 * radius) / step) + 1) ** 2
    raise ValueError(f"grains={grains}: at most {most} grains fit in the yard at this depth")
  cx, cy = 0.5 * (fill[0] + fill[3]), 0.5 * (fill[1] + fill[4])
  box = (cx - 0.5 * width, cy - 0.5 * width, fill[2], cx + 0.5 * width, cy + 0.5 * width, fill[5])
  config["fill"].set("value", " ".join(f"{v:.6g}" for v in box))
  return ET.tostring(root, encoding="unicode")


def goal_info(positions, time):
  """The step's info of grain positions (n x 3) at simulated time `time` [s]."""
  inside = np.all((positions >= GOAL_LO) & (positions <= GOAL_HI), axis=1)
  return {"grains_in_goal": int(np.count_nonzero(inside)), "grains": len(positions),
          "time": float(time)}


def ego_map(positions, pose, radius):
  """Highest grain top per cell over the square ahead of the blade, in the dozer frame, of grain
  positions (n x 3) of this radius, the dozer at pose (x, y, yaw)."""
  x, y, yaw = pose
  c, s = math.cos(yaw), math.sin(yaw)
  dx, dy = positions[:, 0] - x, positions[:, 1] - y
  ahead = c * dx + s * dy
  left = -s * dx + c * dy
  cell = (EGO_AHEAD[1] - EGO_AHEAD[0]) / EGO_CELLS
  i = np.floor((ahead - EGO_AHEAD[0]) / cell)
  j = np.floor((left + EGO_HALF_WIDTH) / cell)
  keep = (i >= 0) & (i < EGO_CELLS) & (j >= 0) & (j < EGO_CELLS)
  ego = np.zeros((EGO_CELLS, EGO_CELLS), dtype=np.float32)
  top = positions[keep, 2] + radius
  np.maximum.at(ego, (j[keep].astype(int), i[keep].astype(int)), top.astype(np.float32))
  return np.minimum(ego, MAX_HEIGHT)


def drive_command(action):
  """(forward speed [m/s], yaw rate [rad/s]) of actions (..., 2), clipped to [-1, 1]."""
  action = np.clip(np.asarray(action, dtype=np.float64), -1.0, 1.0)
  return action[..., 0] * MAX_SPEED, action[..., 1] * MAX_YAW_RATE


def track_velocity(speed, heading):
  """World-frame x and y velocity [m/s] of tracks driving at `speed` along `heading` [rad]."""
  return speed * np.cos(heading), speed * np.sin(heading)


class BulldozerScene:
  """The bulldozer model with a pile of about `grains` grains (None: the model's) on `backend`,
  and what the environments read and write in it: BulldozerEnv runs it in one MjData,
  BulldozerBatch (envs/bulldozer_batch.py) in a mujoco.batch.Batch."""

  def __init__(self, grains=None, backend=None):
    mjgranular.load_plugin()
    xml = scene_xml(grains, backend)
    _, config = terrain_config(ET.fromstring(xml))
    self.radius = float(config["radius"].get("value"))        # grain radius [m]
    self.substep = float(config["timestep"].get("value"))     # granular substep [s]
    self.model = m = mujoco.MjModel.from_xml_string(xml)
    self.nstep = max(1, round(CONTROL_PERIOD / m.opt.timestep))   # mj_steps per env step
    self.qpos = [m.jnt_qposadr[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, j)]
                 for j in ("x", "y", "yaw")]
    self.ctrl = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR, a) for a in ("x", "y", "yaw")]
    self.base = m.body_pos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "dozer")]
    sky = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SENSOR, "sky")
    self.sky = slice(m.sensor_adr[sky], m.sensor_adr[sky] + m.sensor_dim[sky])
    self.sky_shape = (36, 72)
    if m.sensor_dim[sky] != self.sky_shape[0] * self.sky_shape[1]:
      raise ValueError(f"sensor 'sky' has {m.sensor_dim[sky]} values, expected 36 x 72")

    self.action_space = spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
    self.observation_space = spaces.Dict({
        "sky": spaces.Box(0.0, MAX_HEIGHT, shape=self.sky_shape, dtype=np.float32),
        "ego": spaces.Box(0.0, MAX_HEIGHT, shape=(EGO_CELLS, EGO_CELLS), dtype=np.float32),
        "pose": spaces.Box(np.array([-YARD[0], -YARD[1], -np.pi], dtype=np.float32),
                           np.array([YARD[0], YARD[1], np.pi], dtype=np.float32), dtype=np.float32),
    })

  def settle(self, data, seconds):
    """Settles the bed in data for `seconds` with the dozer still. Returns the mjSTATE_INTEGRATION
    state every reset starts from: the settled grains at rest, time 0, controls, warm start and
    applied forces as mj_resetData leaves them (data is left in it)."""
    m = self.model
    mujoco.mj_resetData(m, data)
    mujoco.mj_step(m, data, nstep=max(0, round(seconds / m.opt.timestep)))
    full = mujoco.mjtState.mjSTATE_FULLPHYSICS
    settled = np.empty(mujoco.mj_stateSize(m, full))
    mujoco.mj_getState(m, data, settled, full)
    mujoco.mj_resetData(m, data)
    mujoco.mj_setState(m, data, settled, full)
    data.time = 0.0
    data.qvel[:] = 0
    start = np.empty(mujoco.mj_stateSize(m, INTEGRATION))
    mujoco.mj_getState(m, data, start, INTEGRATION)
    return start

  def start_joints(self, rng, pose=None):
    """The dozer's x, y and yaw joint values at a reset: at pose (x, y, yaw) in the world frame
    when given, else drawn from rng around its MJCF pose."""
    if pose is not None:
      x, y, yaw = pose
      return np.array([x - self.base[0], y - self.base[1], yaw])
    return np.array([rng.uniform(-jitter, jitter) for jitter in START_JITTER])

  def pose(self, qpos):
    """The dozer's x, y [m] and yaw [rad] in (-pi, pi] of a qpos vector."""
    x, y, yaw = (float(qpos[a]) for a in self.qpos)
    return np.array([self.base[0] + x, self.base[1] + y, math.atan2(math.sin(yaw), math.cos(yaw))])

  def observation(self, qpos, sensordata, positions):
    """The observation (see the module docstring) of a state's qpos, its sensordata as mj_forward
    computes it there, and its grain positions (n x 3)."""
    pose = self.pose(qpos)
    sky = sensordata[self.sky].reshape(self.sky_shape)
    return {
        "sky": np.clip(sky, 0, MAX_HEIGHT).astype(np.float32),
        "ego": ego_map(positions, pose, self.radius),
        "pose": pose.astype(np.float32),
    }


class BulldozerEnv(gymnasium.Env):
  """Push the sand into the goal box with a tracked bulldozer (see the module docstring)."""

  metadata = {"render_modes": ["rgb_array"], "render_fps": int(round(1 / CONTROL_PERIOD))}

  def __init__(self, grains=None, max_steps=300, settle=0.5, render_mode=None, backend=None):
    """grains: about how many grains (None: the model's 10,125); max_steps: steps per episode;
    settle: seconds the bed settles before the first episode; backend: the terrain's backend
    key (None: the model's, auto)."""
    if render_mode not in (None, "rgb_array"):
      raise ValueError(f"render_mode {render_mode!r}: only 'rgb_array' is supported")
    self.scene = BulldozerScene(grains, backend)
    self.model = self.scene.model
    self.data = mujoco.MjData(self.model)
    self.render_mode = render_mode
    self.max_steps = max_steps
    self.action_space = self.scene.action_space
    self.observation_space = self.scene.observation_space
    self._grains = mjgranular.grains(self.model, self.data)
    # the bed settles once; every reset starts from there
    self._start = self.scene.settle(self.data, settle)
    self._steps = 0
    self._renderer = None

  @property
  def grain_positions(self):
    """(n x 3) view of the grain positions [m]."""
    return self._grains.positions

  def pose(self):
    """The dozer's x, y [m] and yaw [rad] in (-pi, pi]."""
    return self.scene.pose(self.data.qpos)

  def reward(self):
    """goal_reward() of the grains now."""
    return goal_reward(self.grain_positions)

  def _observation(self):
    # sensors are computed by mj_forward at the state the step ended in (mj_step computes them
    # before it advances the grains)
    mujoco.mj_forward(self.model, self.data)
    return self.scene.observation(self.data.qpos, self.data.sensordata, self.grain_positions)

  def _info(self):
    return goal_info(self.grain_positions, self.data.time)

  # gymnasium api --------------------------------------------------------------------------------

  def reset(self, *, seed=None, options=None):
    """The settled bed and the dozer at a start pose drawn from the seed, or at
    options["pose"] = (x, y, yaw) when given."""
    super().reset(seed=seed)
    m, d = self.model, self.data
    mujoco.mj_resetData(m, d)
    mujoco.mj_setState(m, d, self._start, INTEGRATION)
    d.qpos[self.scene.qpos] = self.scene.start_joints(self.np_random, (options or {}).get("pose"))
    self._steps = 0
    return self._observation(), self._info()

  def step(self, action):
    speed, yaw_rate = drive_command(action)
    m, d = self.model, self.data
    cx, cy, cyaw = self.scene.ctrl
    yaw = self.scene.qpos[2]
    for _ in range(self.scene.nstep):
      # the tracks drive along the current heading
      d.ctrl[cx], d.ctrl[cy] = track_velocity(speed, d.qpos[yaw])
      d.ctrl[cyaw] = yaw_rate
      mujoco.mj_step(m, d)
    self._steps += 1
    obs = self._observation()
    return obs, self.reward(), False, self._steps >= self.max_steps, self._info()

  def render(self):
    if self.render_mode != "rgb_array":
      return None
    if self._renderer is None:
      self._renderer = mujoco.Renderer(self.model, 480, 768)
    self._renderer.update_scene(self.data, camera="overview")
    return self._renderer.render()

  def close(self):
    if self._renderer is not None:
      self._renderer.close()
      self._renderer = None


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--grains", type=int, default=None, help="about this many grains (model: 10125)")
  p.add_argument("--seconds", type=float, default=2.0, help="simulated driving time [s] (2)")
  p.add_argument("--settle", type=float, default=0.5, help="settling time at creation [s] (0.5)")
  p.add_argument("--turn", type=float, default=0.0, help="yaw action in [-1, 1] (0: straight)")
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--backend", default=None, choices=(None, "auto", "cpu", "cuda"))
  args = p.parse_args()
  t0 = time.perf_counter()
  env = BulldozerEnv(grains=args.grains, settle=args.settle, backend=args.backend)
  made = time.perf_counter() - t0
  n = env._grains.count
  nsub = mjgranular.substeps(env.model, env.scene.substep)
  obs, info = env.reset(seed=args.seed)
  print(f"bulldozer: {n} grains, made and settled in {made:.1f} s; start pose "
        f"{np.round(obs['pose'], 3)}; reward {env.reward():.3f}")
  steps = max(1, round(args.seconds / CONTROL_PERIOD))
  t0 = time.perf_counter()
  for k in range(steps):
    obs, reward, terminated, truncated, info = env.step([1.0, args.turn])
    if (k + 1) % max(1, steps // 10) == 0 or k + 1 == steps:
      print(f"  t {info['time']:.1f} s: pose {np.round(obs['pose'], 3)}, reward {reward:.3f}, "
            f"in goal {info['grains_in_goal']}, sky max {obs['sky'].max():.3f} m, "
            f"ego max {obs['ego'].max():.3f} m")
  wall = time.perf_counter() - t0
  sim = steps * CONTROL_PERIOD
  substeps = steps * env.scene.nstep * nsub
  print(f"  simulated {sim:.2f} s in {wall:.2f} s wall: {sim / wall:.4f} x real time, "
        f"{n * substeps / wall:.3e} PSS ({nsub} substeps of {env.scene.substep:g} s per "
        f"{env.model.opt.timestep:g} s step)")
  env.close()


if __name__ == "__main__":
  main()
