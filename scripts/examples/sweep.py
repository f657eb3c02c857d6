"""A parameter sweep on a Ray cluster: how high a poured pile stands against its grains' sliding
and rolling friction.

models/push.xml's loose lattice of 256 grains (radius 4 mm) pours into a pile; each pair of
`friction` and `rolling_friction` values is one variant of the model (mjgranular.distributed:
variant_models), poured for --seconds on the Ray workers, and the pile's top and its grains'
rms distance from the axis come back from the final states. Then the same sweep runs in this
process (one mujoco.batch.Batch) unless --no-local: the results are compared bit for bit and the
wall times printed.

  python scripts/examples/sweep.py                       # a local Ray instance of every CPU
  python scripts/examples/sweep.py --workers 1           # for the speed-up: 1 worker, then 2
  ray start --head --num-cpus 2                          # on the head node, then on each other:
  ray start --address HEAD_IP:6379                       #   (the package installed on every node)
  python scripts/examples/sweep.py --address auto        # on any node of the cluster
"""

import argparse
import itertools
import os
import time

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # read when the plugin loads libgomp

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import mjgranular  # noqa: E402
import mjgranular.distributed as dist  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=mjgranular.scene("push"), help="MJCF file (models/push.xml)")
    p.add_argument("--friction", default="0.05,0.3,1.0", help="sliding friction values")
    p.add_argument("--rolling", default="0,0.1,0.3,0.5", help="rolling_friction values")
    p.add_argument("--seconds", type=float, default=1.0, help="pouring time [s]")
    p.add_argument("--address", default="local",
                   help="'local' starts a Ray instance here, 'auto' joins this machine's "
                        "cluster, or host:port")
    p.add_argument("--workers", type=int, default=None, help="Ray workers (default: every CPU)")
    p.add_argument("--no-local", action="store_true", help="skip the in-process run")
    return p.parse_args(argv)


def pile(model, row):
    """(top [m], rms distance of the grains from the vertical axis [m]) of a final state."""
    d = mujoco.MjData(model)
    mujoco.mj_setState(model, d, row, dist.INTEGRATION)
    p = mjgranular.grains(model, d).positions
    return p[:, 2].max(), np.sqrt(np.mean(np.sum(p[:, :2] ** 2, axis=1)))


def main(argv=None):
    args = parse_args(argv)
    variants = [{"friction": f, "rolling_friction": r} for f, r in itertools.product(
        args.friction.split(","), args.rolling.split(","))]
    models = dist.variant_models(args.model, variants)
    nstep = max(1, round(args.seconds / models[0].opt.timestep))
    controls = np.zeros((1, nstep, models[0].nu))

    dist.connect(args.address)
    pool = dist.RolloutPool(workers=args.workers)
    pool.sweep(args.model, variants[:1], controls=controls[:, :1])  # workers up, plugin loaded
    t0 = time.perf_counter()
    out = pool.sweep(args.model, variants, controls=controls)
    ray_wall = time.perf_counter() - t0
    workers = len(pool.workers)
    pool.close()

    print(f"sweep: {len(variants)} variants of {os.path.basename(args.model)}, {nstep} steps "
          f"({args.seconds:g} s) each, on {workers} Ray workers: {ray_wall:.1f} s wall")
    print("| friction | rolling_friction | pile top [mm] | rms radius [mm] |")
    print("|---:|---:|---:|---:|")
    for v, res, model in zip(variants, out, models):
        top, spread = pile(model, res["state"][0])
        print(f"| {v['friction']} | {v['rolling_friction']} | {1000 * top:.1f} | "
              f"{1000 * spread:.1f} |")
    result = {"variants": variants, "ray": out, "ray_wall": ray_wall}
    if not args.no_local:
        t0 = time.perf_counter()
        local = [dist.run_local(m, None, controls) for m in models]
        result["local_wall"] = time.perf_counter() - t0
        same = all(np.array_equal(a["state"], b["state"]) for a, b in zip(out, local))
        print(f"sweep: in this process {result['local_wall']:.1f} s wall; the final states are "
              f"{'the same bit for bit' if same else 'NOT the same'}")
        result["same"] = same
    return result


if __name__ == "__main__":
    main()
