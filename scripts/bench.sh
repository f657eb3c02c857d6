#!/usr/bin/env bash
# benchmarks mjgranular against LIGGGHTS and LAMMPS on one settling scene (mjgranular's projected
# jacobi model at its own substep, and its dem model with LIGGGHTS' contact law at the peers'
# timestep), plus mjgranular's scaling with grains and bodies and the seeds' hash-size figure;
# writes out/bench/peers.md and out/bench/*.png. see scripts/bench/README.md.
#
#   scripts/bench.sh [--quick] [--threads N] [--out DIR] [--peers liggghts,lammps|none]
#                    [--models pj,dem] [--only settle,scaling,bodies,hash] [--sizes N,..]
#                    [--time T] [--report-only] [--spin]
#
# installs the peers from debian when missing, sets up (scripts/setup.sh) and builds the driver
# bench_settle into build-bench/ (BUILD_DIR overrides). --quick: small sizes, short times (a
# minute or two; for development and smoke tests; ci does not run it). the full run takes about
# 12 minutes on 2 idle cores.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/versions.sh"
build="${BUILD_DIR:-$root/build-bench}"

# peers from debian, installed only when missing (apt-get update once)
sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
need=()
command -v liggghts >/dev/null || need+=(liggghts)
command -v lmp >/dev/null || need+=(lammps)
command -v mpirun >/dev/null || need+=(openmpi-bin)
if [ ${#need[@]} -gt 0 ]; then
  echo "bench: installing ${need[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}" >/dev/null
fi
styles="$(lmp -h 2>/dev/null || true)"
if [[ "$styles" != *gran/hertz/history* ]]; then
  echo "bench: this lmp lacks the GRANULAR package (no pair style gran/hertz/history)" >&2
  exit 1
fi

# mjgranular: set-up, the pinned plotting package, the driver
bash "$root/scripts/setup.sh"
py="$root/.venv/bin/python"
if ! "$py" -c "import matplotlib" 2>/dev/null; then
  echo "bench: installing $MJGRANULAR_BENCH_PY_PACKAGES into .venv"
  "$root/.venv/bin/pip" install -q --disable-pip-version-check $MJGRANULAR_BENCH_PY_PACKAGES
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMJGRANULAR_TESTS=OFF >/dev/null
cmake --build "$build" --target bench_settle mjgranular -j"$(nproc)" >/dev/null

# the gear tower runs the plugin built here
export MJGRANULAR_PLUGIN="$build/plugin/libmjgranular.so"
cd "$root"
exec "$py" "$root/scripts/bench/peers.py" --exe "$build/scripts/bench/bench_settle" "$@"
