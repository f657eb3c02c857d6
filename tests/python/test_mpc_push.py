"""scripts/examples/mpc_push.py --quick: predictive sampling over rollouts restored with mj_setState
(FULLPHYSICS) plans blade pushes that leave the sand measurably closer to the target region than
leaving the blade still for as long, and closer than it started.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""


import mpc_push


def test_planned_pushes_beat_doing_nothing(capsys):
  result = mpc_push.main(["--quick"])
  out = capsys.readouterr().out
  assert "doing nothing" in out
  # standing still moves no sand toward the target (the bed stands where it was filled)
  assert abs(result["nothing"] - result["start"]) < 0.002
  # the plan pushes the sand: at least a third of the distance to the target is gone
  assert result["final"] < result["nothing"] - 0.02
  assert result["final"] < 0.67 * result["start"]
