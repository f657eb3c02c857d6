#!/usr/bin/env bash
# the Franka excavation: sets up (the Panda's packages too), builds, installs the plot packages,
# then runs scripts/examples/excavate.py (51,156 grains; --quick for 5,460) and writes plots and
# frames.
# extra args go to scripts/examples/excavate.py, e.g. scripts/excavate.sh --quick --out out/dig
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/versions.sh"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
py="$root/.venv/bin/python"
if ! "$py" -c "import matplotlib" 2>/dev/null; then
  echo "excavate: installing $MJGRANULAR_BENCH_PY_PACKAGES into .venv"
  "$root/.venv/bin/pip" install -q --disable-pip-version-check $MJGRANULAR_BENCH_PY_PACKAGES
fi
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
MJGRANULAR_PLUGIN="$root/build/plugin/libmjgranular.so" exec "$py" \
  "$root/scripts/examples/excavate.py" "$@"
