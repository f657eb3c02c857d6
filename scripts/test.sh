#!/usr/bin/env bash
# sets up, builds and runs the whole test suite (googletest through ctest, then pytest).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
# openmp threads that sleep rather than spin at barriers: ctest runs tests side by side
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)"
# python tests against build/plugin/libmjgranular.so (set -e fails the script when pytest fails)
MJGRANULAR_PLUGIN="$root/build/plugin/libmjgranular.so" "$root/.venv/bin/python" -m pytest -q -p no:cacheprovider "$root/tests/python"
