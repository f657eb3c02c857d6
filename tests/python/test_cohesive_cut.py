"""models/cohesive_cut.xml (CPU backend): the bank of cohesive soil stands with a vertical face once
its gate has sunk, and the same pour without adhesion runs out from under the gate.

The keyframe "cut" with the blade held back: the gate sinks at 30 cm/s and is under the floor by
0.7 s. With the model's adhesion no grain lies more than 2 cm in front of where the gate held the
face, and over the next second the top tenth of the grains moves less than one grain radius;
with `adhesion` 0 (set in the config before compiling) over a hundred grains run out that far.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import pathlib

import numpy as np

import mujoco

ROOT = pathlib.Path(__file__).resolve().parents[2]
import mjgranular

MODEL = ROOT / "models" / "cohesive_cut.xml"
GATE_GONE = 0.8     # the gate is under the floor [s]
RUNOUT = -0.02      # x of a grain that has run out: 2 cm in front of the gate's face [m]


def start(adhesion=None):
  """The scene on the cpu at keyframe "cut" with the blade held back (and the adhesion
  replaced)."""
  mjgranular.load_plugin()
  assert float(mjgranular.terrain_config(MODEL)["adhesion"]) > 0
  config = {"backend": "cpu"} if adhesion is None else {"backend": "cpu", "adhesion": adhesion}
  m = mjgranular.configured(MODEL, config)
  d = mujoco.MjData(m)
  mujoco.mj_resetDataKeyframe(m, d, m.key("cut").id)
  d.ctrl[m.actuator("blade").id] = 0
  return m, d, mjgranular.grains(m, d)


def run_to(m, d, t):
  while d.time < t - 1e-9:
    mujoco.mj_step(m, d)


def test_cohesive_bank_stands():
  m, d, g = start()
  assert 2000 < g.count < 4000
  run_to(m, d, GATE_GONE)
  # the gate's top is under the floor; no grain has run out; the bank is over 5 cm tall
  assert d.geom("gate").xpos[2] + m.geom("gate").size[2] < 0.0
  before = g.positions.copy()
  assert (before[:, 0] < RUNOUT).sum() == 0
  top = before[:, 2] > np.percentile(before[:, 2], 90)
  assert before[top, 2].min() > 0.05
  run_to(m, d, GATE_GONE + 1.0)
  moved = np.linalg.norm(g.positions - before, axis=1)
  radius = g.radii.max()
  assert moved[top].max() < radius, moved[top].max()
  assert (g.positions[:, 0] < RUNOUT).sum() == 0


def test_dry_sand_runs_out():
  # measured: 124 grains past RUNOUT at 1 s, where the runout has stopped
  m, d, g = start(adhesion=0)
  run_to(m, d, GATE_GONE + 0.2)
  assert (g.positions[:, 0] < RUNOUT).sum() > 60
