"""The P2 seed's pile experiments through MuJoCo with model pbd (CPU backend): 2,000 grains
poured onto a flat rough floor, the pile's angle measured by scripts/bench/repose.py's heap_profile.
Scene, parameters and why: scripts/bench/p2_pile.py (the piles are its RUNS).

- Fig. 3: the angle rises with the kinetic friction angle (5 against 30 degrees) and with
  adhesion (0 against 1000 Pa), 10 iterations, error reduction 0.5, static friction 0.6, on a
  soft soil (k = 100 N/m: adhesion acts on an area that grows with the overlap, so at the
  default stiffness 1000 Pa does nothing; see p2_pile.py).
- Fig. 5, with the seed's passes (pbd_passes averaged): at 10 iterations with error reduction 0.5
  the pile's angle is closer to the 40-iteration pile's than at 10 iterations without it (default
  stiffness). Measured, seeds 1 / 2: 10 passes 29.7 / 28.7 degrees, 40 passes 35.3 / 33.1, 10
  with error reduction 37.3 / 34.8: off by 1.9 / 1.7 degrees with it against 5.6 / 4.4 without.
- Fig. 5 with the model's default passes (pbd_passes newton), which keep each contact's impulses
  from substep to substep (grn_contact_pbd.h): 10 passes already stand where 40 do, so error
  reduction has no gap to close; the test asserts that 10 passes stand within 4 degrees of 40
  with and without it, and that error reduction brings the pile to rest as 40 passes do. Seeds
  1 / 2: 10 passes 39.9 / 39.5 degrees, 40 passes 39.0 / 40.5, with error reduction 38.7 / 37.5;
  with it the pile is at rest (p2_pile's test) within 0.7 s of the pour's end, without it the
  fastest grain still moves at 0.066 / 0.17 m/s 2 s after.

Each run is deterministic. Fig. 3 piles, seeds 1 / 2: 29.5 / 28.3 (I), 55.3 / 57.7 (II),
46.4 / 51.9 (III) degrees: the rises are +25.8 / +29.4 (kinetic friction) and +16.9 / +23.6
(adhesion), so MARGIN (10 degrees) lies under both by more than a single angle moves with the
pour's seed (at most 5.5 degrees here).

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's (mjgranular.plugin_path()).
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import pytest

import p2_pile

# each builds and settles piles for simulated seconds: 38 to 221 s each on 2 cores
pytestmark = pytest.mark.long

MARGIN = 10.0  # [deg] a rise must exceed this (see the docstring)
NEAR = 4.0  # [deg] 10 passes stand this near 40 (the seed's averaging missed by 4.4 to 5.6)

_piles = {}


def poured(name):
  """pile `name` of p2_pile.RUNS (p2_pile.pour's result), poured once per session."""
  if name not in _piles:
    p = p2_pile.params(**p2_pile.RUNS[name])
    r = p2_pile.pour(p)
    print("[ measure ] %s: %s" % (name, p2_pile.describe(p, r)), flush=True)
    assert r["angle"] is not None, "%s: no heap formed" % name
    _piles[name] = r
  return _piles[name]


def pile(name):
  """the angle of pile `name` [deg]."""
  return poured(name)["angle"]


def test_angle_rises_with_kinetic_friction():
  low, high = pile("fig3_I"), pile("fig3_II")
  print("[ measure ] kinetic friction 5 / 30 deg: angle %.1f / %.1f deg (%+.1f)"
        % (low, high, high - low))
  assert high > low + MARGIN


def test_angle_rises_with_adhesion():
  dry, wet = pile("fig3_I"), pile("fig3_III")
  print("[ measure ] adhesion 0 / 1000 Pa: angle %.1f / %.1f deg (%+.1f)" % (dry, wet, wet - dry))
  assert wet > dry + MARGIN


def test_error_reduction_brings_ten_averaged_passes_closer_to_forty():
  er, plain, many = (pile("fig5_averaged_10_er"), pile("fig5_averaged_10"),
                     pile("fig5_averaged_40"))
  print("[ measure ] averaged passes: angle at 10 iterations with / without error reduction 0.5: "
        "%.1f / %.1f deg, at 40 iterations without: %.1f deg (off by %.1f / %.1f)"
        % (er, plain, many, abs(er - many), abs(plain - many)))
  assert abs(er - many) < abs(plain - many)


def test_ten_passes_stand_near_forty_and_error_reduction_brings_them_to_rest():
  er, plain, many = pile("fig5_10_er"), pile("fig5_10"), pile("fig5_40")
  print("[ measure ] angle at 10 iterations with / without error reduction 0.5: %.1f / %.1f deg, "
        "at 40 iterations without: %.1f deg (off by %.1f / %.1f)"
        % (er, plain, many, abs(er - many), abs(plain - many)))
  assert abs(plain - many) < NEAR
  assert abs(er - many) < NEAR
  assert poured("fig5_40")["at_rest"]
  assert poured("fig5_10_er")["at_rest"]
