#!/usr/bin/env bash
# sets up, builds and runs the test suite (googletest through ctest, then pytest). By default the
# short tests (what ci runs: 3 minutes on 2 idle cores once built); --long adds the long physics
# validations (ctest label and pytest marker `long`: boxes and blades in beds, piles, the franka
# dig; 20 minutes more). Run them with --long before changing physics.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
long=0
for arg in "$@"; do
  case "$arg" in
    --long) long=1 ;;
    *) echo "test.sh: unknown argument '$arg' (known: --long)" >&2; exit 2 ;;
  esac
done
ctest_tier=(-LE long); pytest_tier=(-m "not long")
if [ "$long" = 1 ]; then ctest_tier=(); pytest_tier=(); fi
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
# openmp threads that sleep rather than spin at barriers (pytest's scripts start processes of their
# own); ctest runs one test a core, each on one openmp thread (the tests of thread counts set their
# own): no test's barrier waits for a thread that another test holds off the core
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
cd "$root/build"
OMP_NUM_THREADS=1 ctest --output-on-failure -j"$(nproc)" "${ctest_tier[@]}"
# python tests against build/plugin/libmjgranular.so (set -e fails the script when pytest fails)
MJGRANULAR_PLUGIN="$root/build/plugin/libmjgranular.so" "$root/.venv/bin/python" -m pytest -q \
  -p no:cacheprovider "${pytest_tier[@]}" "$root/tests/python"
