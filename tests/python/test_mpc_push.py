"""scripts/mpc_push.py --quick: predictive sampling over rollouts restored with mj_setState
(FULLPHYSICS) plans blade pushes that leave the sand measurably closer to the target region than
leaving the blade still for as long, and closer than it started.

Uses the library at $MJGRANULAR_PLUGIN or build/plugin/libmjgranular.so (scripts/build.sh).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
import mpc_push  # noqa: E402


def test_planned_pushes_beat_doing_nothing(capsys):
  result = mpc_push.main(["--quick"])
  out = capsys.readouterr().out
  assert "doing nothing" in out
  # standing still moves no sand toward the target (the bed stands where it was filled)
  assert abs(result["nothing"] - result["start"]) < 0.002
  # the plan pushes the sand: at least a third of the distance to the target is gone
  assert result["final"] < result["nothing"] - 0.02
  assert result["final"] < 0.67 * result["start"]
