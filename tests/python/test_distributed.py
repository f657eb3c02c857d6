"""mjgranular.distributed on a local Ray cluster of 2 CPUs: rollouts and parameter sweeps run by
Ray workers (each its own process with the plugin and a mujoco.batch.Batch) give, bit for bit,
what one MjData per rollout stepped in this process gives; the rollouts sent to a worker that was
killed run all the same (on Ray's restart of it, or on the other worker); mpc_push
--ray plans the same pushes as without; bad input is refused naming its cause.

Uses the library at $MJGRANULAR_PLUGIN, else the installed package's; the workers inherit the
environment.
"""

import os
import signal

import numpy as np
import pytest
import ray

import mujoco

import batch_throughput
import mjgranular
import mjgranular.distributed as dist
import mpc_push

STATE = mujoco.mjtState.mjSTATE_INTEGRATION
NSTEP = 40


@pytest.fixture(scope="module", autouse=True)
def cluster():
    resources = dist.connect("local", num_cpus=2)
    assert resources["CPU"] == 2
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def model():
    # batch_throughput's bed: 256 grains of radius 3 mm and a blade that a position servo pushes
    return mujoco.MjModel.from_xml_string(batch_throughput.scene(256))


def alone(model, start, controls, record=()):
    """Each rollout in its own MjData here: final INTEGRATION rows and records after each step."""
    rows, recs = [], {name: [] for name in record}
    for s, u in enumerate(controls):
        d = mujoco.MjData(model)
        if start is not None:
            mujoco.mj_setState(model, d, start[s], STATE)
        seen = {name: [] for name in record}
        for k in range(len(u)):
            d.ctrl[:] = u[k]
            mujoco.mj_step(model, d)
            for name in record:
                seen[name].append(getattr(d, name).copy())
        row = np.empty(mujoco.mj_stateSize(model, STATE))
        mujoco.mj_getState(model, d, row, STATE)
        rows.append(row)
        for name in record:
            recs[name].append(np.array(seen[name]))
    return {"state": np.array(rows), **{k: np.array(v) for k, v in recs.items()}}


def starts(model, n):
    """n different start rows: the bed after 10 steps of the servo at n targets."""
    rows = np.empty((n, mujoco.mj_stateSize(model, STATE)))
    for s in range(n):
        d = mujoco.MjData(model)
        d.ctrl[0] = 0.002 * s
        mujoco.mj_step(model, d, nstep=10)
        mujoco.mj_getState(model, d, rows[s], STATE)
    return rows


def push_controls(n, nstep=NSTEP):
    """(n, nstep, 1) servo targets [m] moving at n speeds from 0 to 0.4 m/s."""
    speeds = np.linspace(0.0, 0.4, n)
    return (speeds[:, None] * 0.002 * np.arange(1, nstep + 1)[None, :])[:, :, None]


def same(a, b):
    return np.array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8))


def test_rollouts_are_each_that_of_one_mjdata(model):
    n = 5
    start, controls = starts(model, n), push_controls(n)
    pool = dist.RolloutPool(model, workers=2)
    # uneven chunks of 2: three calls over two workers
    out = pool.rollout(start, controls, record=("qpos", "sensordata", "xpos"), chunk=2)
    pool.close()
    want = alone(model, start, controls, record=("qpos", "xpos"))
    assert out["state"].shape == want["state"].shape
    for s in range(n):
        assert same(out["state"][s], want["state"][s]), f"rollout {s}: final state differs"
    assert same(out["qpos"], want["qpos"]) and same(out["xpos"], want["xpos"])
    # the rollouts are different beds: the blades pushed the sand differently
    grains = [mjgranular.grains(model, d).positions.copy() for d in _datas(model, out["state"])]
    moved = max(np.abs(grains[s] - grains[0]).max() for s in range(1, n))
    assert moved > 0.003, "the rollouts did not differ by a grain radius"


def _datas(model, rows):
    for row in rows:
        d = mujoco.MjData(model)
        mujoco.mj_setState(model, d, row, STATE)
        yield d


def test_one_start_for_all_and_the_models_own_start(model):
    controls = push_controls(3, 20)
    pool = dist.RolloutPool(model, workers=2)
    reset = pool.rollout(None, controls)
    row = np.empty(mujoco.mj_stateSize(model, STATE))
    mujoco.mj_getState(model, mujoco.MjData(model), row, STATE)
    broadcast = pool.rollout(row, controls)
    pool.close()
    want = alone(model, None, controls)
    assert same(reset["state"], want["state"]) and same(broadcast["state"], want["state"])


@pytest.mark.parametrize("restarts", [1, 0])
def test_a_killed_worker_s_rollouts_are_run_again(model, restarts):
    # restarts 1: Ray starts the worker again and retries its calls there; 0: the pool gives
    # its chunks to the other worker
    n = 6
    controls = push_controls(n)
    pool = dist.RolloutPool(model, workers=2, restarts=restarts)
    before = pool.pids()
    os.kill(before[0], signal.SIGKILL)
    out = pool.rollout(None, controls, chunk=1)
    after = pool.pids()
    pool.close()
    assert same(out["state"], alone(model, None, controls)["state"])
    if restarts:
        assert len(after) == 2 and after[0] != before[0] and after[1] == before[1]
    else:
        assert after == before[1:]


def test_sweep_is_each_variant_alone_and_friction_builds_the_pile():
    # models/push.xml's loose lattice of 256 grains (radius 4 mm) poured into a pile for 0.6 s at
    # four frictions; without rolling resistance ideal spheres make no heap (README: angle of
    # repose), and sliding friction raises the pile too
    variants = [{"rolling_friction": 0}, {"rolling_friction": 0.5},
                {"friction": 0.05}, {"friction": 1.0}]
    path = mjgranular.scene("push")
    controls = np.zeros((1, 150, 2))
    pool = dist.RolloutPool(workers=2)
    out = pool.sweep(path, variants, controls=controls, record=("qpos",))
    pool.close()
    top = []
    for variant, res, model in zip(variants, out, dist.variant_models(path, variants)):
        want = alone(model, None, controls, record=("qpos",))
        assert same(res["state"], want["state"]), f"{variant}: final state differs"
        assert same(res["qpos"], want["qpos"])
        d = next(_datas(model, res["state"]))
        top.append(mjgranular.grains(model, d).positions[:, 2].max())
        print(f"[ measure ] {variant}: pile top {1000 * top[-1]:.1f} mm")
    r = 0.004
    assert top[0] < top[1] - r, "rolling resistance must hold a heap up"
    assert top[2] < top[3] - 0.5 * r, "sliding friction must raise the pile"


def test_mpc_push_plans_the_same_pushes_on_ray_workers():
    local = mpc_push.main(["--quick"])
    remote = mpc_push.main(["--quick", "--ray", "local", "--workers", "2"])
    assert remote["planned"] == local["planned"]
    assert remote["history"] == local["history"]


def test_bad_input_is_refused_naming_the_cause(model):
    with pytest.raises(ValueError, match="variant 0 .*frictoin"):
        dist.variant_models(mjgranular.scene("push"), [{"frictoin": 0.3}])
    with pytest.raises(ValueError, match="(?s)variant 1 .*'friction' = '-1'"):
        dist.variant_models(mjgranular.scene("push"), [{"friction": 0.3}, {"friction": -1}])
    with pytest.raises(ValueError, match=r"controls must be \(n, nstep, nu=1\)"):
        dist.run_local(model, None, np.zeros((2, 5, 3)))
    with pytest.raises(ValueError, match="mj_stateSize"):
        dist.run_local(model, np.zeros((2, 7)), push_controls(2))
    with pytest.raises(ValueError, match="give controls, or nstep"):
        dist.run_local(model)
    pool = dist.RolloutPool(model, workers=1)
    with pytest.raises(ValueError, match="3 states but 2 control sequences"):
        pool.rollout(starts(model, 3), push_controls(2))
    pool.close()
