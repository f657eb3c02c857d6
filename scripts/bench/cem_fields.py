"""Accuracy, size and fitting time of configuration-space contact fields (mjgranular.cem) against
the nets' hidden widths, for one pair of meshes: the samples are labelled once, each size is
trained on them and checked on the same held-out configurations near contact against the
grid-free reference. Prints a markdown table (lengths in units of the smaller grain's
equal-volume radius).

    python scripts/bench/cem_fields.py models/assets/cube.xml --meshes cube cube
    python scripts/bench/cem_fields.py models/gravel.xml --meshes rock_a rock_b
"""

import argparse
import os
import time

import numpy as np

from mjgranular import cem, cem_accuracy


def net_bytes(net):
    return 4 + 4 * (len(net) + 1) + sum(4 * (w.size + b.size) for w, b in net)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--meshes", nargs=2, required=True)
    parser.add_argument("--sizes", nargs="+", default=["32,32", "64,64,64", "128,128,128,128"])
    parser.add_argument("--samples", type=int, default=30000)
    parser.add_argument("--epochs", type=int, default=150)
    parser.add_argument("--configs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; "
          f"load average {os.getloadavg()[0]:.2f} at start")
    meshes = cem.meshes_from_file(args.model, args.meshes)
    same = args.meshes[0] == args.meshes[1]
    types = [cem.TypeEntry(m.name, m.fingerprint, float(m.bound)) for m in meshes[:2 - same]]
    key = (0, 0) if same else (0, 1)
    geom = cem.PairGeometry(meshes[0], meshes[1])
    start = time.perf_counter()
    t, R, labels = cem.sample_pair(geom, args.samples, np.random.default_rng(args.seed))
    print(f"pair {args.meshes[0]}-{args.meshes[1]}: {args.samples} samples labelled in "
          f"{time.perf_counter() - start:.0f} s; {args.epochs} epochs\n")
    print("| hidden | KB per pair | training s | phi error mean / p95 / max | normal deg mean / p95"
          " | rotation gradient error mean / p95 | arm error mean / p95 |")
    print("|---|---|---|---|---|---|---|")
    for size in args.sizes:
        hidden = [int(w) for w in size.split(",")]
        start = time.perf_counter()
        (distance, arm), _ = cem.fit_pair(geom, t, R, labels, hidden, args.epochs,
                                          np.random.default_rng(args.seed))
        seconds = time.perf_counter() - start
        fields = cem.Fields(types, {key: cem.PairField(*key, geom.L, distance, arm)})
        rep = cem_accuracy.pair_accuracy(fields, *key, geom, args.configs,
                                         np.random.default_rng(args.seed + 1))
        kb = (12 + net_bytes(distance) + net_bytes(arm)) / 1024
        print(f"| {' x '.join(map(str, hidden))} | {kb:.1f} | {seconds:.0f} | "
              f"{rep['phi']['mean']:.3f} / {rep['phi']['p95']:.3f} / {rep['phi']['max']:.3f} | "
              f"{rep['normal_deg']['mean']:.1f} / {rep['normal_deg']['p95']:.1f} | "
              f"{rep['rot']['mean']:.3f} / {rep['rot']['p95']:.3f} | "
              f"{rep['arms']['mean']:.3f} / {rep['arms']['p95']:.3f} |", flush=True)
    print(f"\n(sampling-rule labels against the reference on the same configurations: phi "
          f"{rep['label_phi']['mean']:.4f} / {rep['label_phi']['p95']:.4f} / "
          f"{rep['label_phi']['max']:.4f})")


if __name__ == "__main__":
    main()
