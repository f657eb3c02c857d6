#!/usr/bin/env bash
# the soak: sets up (the Panda's packages too), builds, then runs scripts/examples/soak.py, the
# Franka excavation on the quick bed digging over and over for a wall time (default 60 minutes),
# and writes its report (default out/soak/report.txt). Not part of CI. Extra args go to soak.py:
#   scripts/soak.sh --minutes 3
#   OMP_NUM_THREADS=1 nice -n 19 scripts/soak.sh --report /tmp/soak_report.txt &  # the hour, gently
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
MJGRANULAR_PLUGIN="$root/build/plugin/libmjgranular.so" exec "$root/.venv/bin/python" \
  "$root/scripts/examples/soak.py" "$@"
