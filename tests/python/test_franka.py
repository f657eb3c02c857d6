"""The Franka excavation scene (scripts/examples/franka_scene.py) and its dig (excavate.py).

- the composed scene loads and steps on the quick bed: the Menagerie Panda with the scoop welded
  to its flange, joint velocity actuators, the scoop coupled with the sand;
- the bucket's inner volume test against points placed in the bucket's own frame;
- two-way coupling, statics: a scoop held still with grains poured into it needs joint torques
  that exceed those of the empty scoop by J(c)^T m g (the grains' weight at their centre);
- `excavate.py --quick` picks up grains (more than zero in the scoop after the lift), and its
  lift and hold take the carried weight's joint torque over the empty scoop's, within 15%.

Needs the Panda's packages (scripts/setup.sh) and the plugin ($MJGRANULAR_PLUGIN or
build/plugin/libmjgranular.so).
"""

import json
import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import mujoco

ROOT = pathlib.Path(__file__).resolve().parents[2]
import excavate
import franka_scene
import mjgranular

P = franka_scene.PREFIX


@pytest.fixture(scope="module")
def quick():
    mjgranular.load_plugin()
    spec, _ = franka_scene.build("quick")
    return spec, spec.compile()


def test_quick_scene_loads_and_steps(quick):
    spec, m = quick
    d = mujoco.MjData(m)
    g = mjgranular.grains(m, d)
    assert g.count == 5460
    # the Panda's 7 hinges, each with a velocity servo; the scoop welded to the flange
    assert m.njnt == 7 and m.nu == 7
    assert all(m.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE for j in range(7))
    assert np.all(m.actuator_biastype == mujoco.mjtBias.mjBIAS_AFFINE)
    assert np.all(m.actuator_gainprm[:, 0] == -m.actuator_biasprm[:, 2])   # velocity servos
    scoop = m.body(franka_scene.SCOOP)
    assert m.body(scoop.parentid[0]).name == P + "attachment"
    assert spec.plugins[0].config["bodies"] == franka_scene.SCOOP
    # from a posture within the joint limits, a joint velocity command moves that joint alone
    d.qpos[:7] = excavate.POSTURE
    d.ctrl[1] = 0.2
    for _ in range(25):
        mujoco.mj_step(m, d)
    assert d.qvel[1] == pytest.approx(0.2, rel=0.05)
    assert np.abs(np.delete(d.qvel[:7], 1)).max() < 0.02
    assert np.isfinite(g.positions).all()
    assert g.positions[:, 2].min() > 0.0
    assert d.sensor("scoop_wrench").data.shape == (6,)


def test_in_bucket_matches_the_buckets_inner_volume(quick):
    _, m = quick
    d = mujoco.MjData(m)
    d.qpos[:7] = excavate.POSTURE
    mujoco.mj_forward(m, d)
    site = m.site(P + "bucket").id
    rot = d.site_xmat[site].reshape(3, 3)
    L, W, H, t, r = excavate.LENGTH, excavate.WIDTH, excavate.HEIGHT, excavate.WALL, excavate.HEEL
    # points in the bucket frame, and whether each lies in the inner volume
    cases = [((0.06, 0.0, 0.03), True), ((0.115, 0.04, 0.055), True),
             ((0.06, 0.0, 0.003), False),            # in the bottom plate
             ((0.003, 0.0, 0.04), False),            # in the back plate
             ((0.06, 0.048, 0.03), False),           # in a side plate
             ((0.06, 0.0, 0.065), False),            # above the rim, by more than a radius
             ((0.06, 0.0, 0.062), True),             # above the rim, by less than a radius
             ((0.125, 0.0, 0.03), False),            # in front of the lip, by more than a radius
             ((0.122, 0.0, 0.03), True),             # in front of the lip, by less than a radius
             ((0.008, 0.0, 0.008), False),           # behind the heel's inner arc
             ((r, 0.0, r - (r - t) + 0.001), True)]  # just inside the heel's arc, under its centre
    local = np.array([p for p, _ in cases])
    world = d.site_xpos[site] + local @ rot.T
    inside = excavate.in_bucket(m, d, world, 0.004)
    assert list(inside) == [expected for _, expected in cases]
    assert (L, W, H) == (0.12, 0.10, 0.06)


def hold_torque(spec, pose, seconds):
    """Mean joint torque over the last 0.15 s of holding the bucket still at `pose`, and the
    model, data and mean J^T m g of the grains in the bucket over that time."""
    m = spec.compile()
    d = mujoco.MjData(m)
    controller = excavate.Controller(m, P + "centre")
    path = excavate.Path(None, seconds)
    path.knots = [(0.0, "hold", pose), (seconds, "hold", pose)]
    controller.place(d, np.array([pose[0], 0.0, pose[1]]), excavate.pitch_matrix(pose[2]))
    masses = np.full(mjgranular.grains(m, d).count, 2500 * 4 / 3 * math.pi * 0.004 ** 3)
    run = excavate.Dig(m, d, controller, path, masses, 0.004)
    while d.time < seconds - 1e-9:
        run.step()
    span = (seconds - 0.15, seconds)
    return (excavate.mean_over(run.rows, "qfrc", span), excavate.mean_over(run.rows, "count", span),
            excavate.mean_over(run.rows, "weight_torque", span))


def test_held_scoop_of_grains_needs_their_weight_in_joint_torque():
    mjgranular.load_plugin()
    pose = (0.55, 0.25, 0.0)   # bucket middle x, z [m], pitch [deg]: level, above the box
    # where the bucket's inner volume is at that pose: fill it with a loose lattice of grains
    spec, _ = franka_scene.build("empty")
    m = spec.compile()
    d = mujoco.MjData(m)
    excavate.Controller(m, P + "centre").place(d, np.array([pose[0], 0.0, pose[1]]),
                                              excavate.pitch_matrix(0.0))
    site = m.site(P + "bucket").id
    lo = d.site_xpos[site] + np.array([excavate.HEEL, -0.04, excavate.WALL + 0.001])
    hi = d.site_xpos[site] + np.array([excavate.LENGTH - 0.004, 0.04, 0.05])
    config = dict(spec.plugins[0].config)
    del config["count"]
    config["fill"] = " ".join(f"{v:.4f}" for v in (*lo, *hi))
    spec.plugins[0].config = config
    full, grains, expected = hold_torque(spec, pose, 0.5)
    spec, _ = franka_scene.build("empty")
    empty, none, _ = hold_torque(spec, pose, 0.5)
    assert none == 0 and grains > 100
    measured = full - empty
    # within 15% of the weight's torque, over the joints the weight loads
    error = np.linalg.norm(measured - expected) / np.linalg.norm(expected)
    assert error < 0.15, f"{grains} grains: measured {measured}, J^T m g {expected}"
    assert np.linalg.norm(expected) > 0.5


@pytest.mark.long
def test_excavate_quick_picks_up_grains(tmp_path):
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "examples" / "excavate.py"), "--quick",
                    "--no-media", "--out", str(tmp_path)], check=True, env=env, timeout=3000)
    summary = json.loads((tmp_path / "excavate.json").read_text())
    assert summary["grains"] == 5460
    assert summary["in_scoop_after_lift"] > 0
    # lifting and holding the full scoop takes the carried grains' weight more joint torque than
    # the same lift without sand, within 15%
    for name in ("lift", "hold"):
        assert summary["coupling"][name]["relative_error"] < 0.15, summary["coupling"][name]


def test_importing_excavate_leaves_the_gl_to_the_importer():
  # excavate.py run as a script takes osmesa; imported, it must not set it: the importer's
  # subprocesses would inherit it and fail to import mujoco where osmesa is missing (a gpu machine)
  env = {k: v for k, v in os.environ.items() if k not in ("MUJOCO_GL", "PYOPENGL_PLATFORM")}
  code = ("import os, excavate; "
          "print(os.environ.get('MUJOCO_GL'), os.environ.get('PYOPENGL_PLATFORM'))")
  out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT / "scripts" / "examples",
                       capture_output=True, text=True, timeout=120)
  assert out.returncode == 0, out.stderr
  assert out.stdout.split() == ["None", "None"]
