#!/usr/bin/env bash
# builds the c tests with AddressSanitizer + UndefinedBehaviorSanitizer into build-sanitize/ (gcc,
# cuda off, see cmake/Sanitize.cmake) and runs them through ctest: any report halts the test that
# made it, and the test fails. Release (-O3, the code that ships). The long physics validations
# (label `long`) are left out: they take the short tests' code paths for minutes. Extra args go to
# ctest (e.g. -R Config).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
cmake -S "$root" -B "$root/build-sanitize" -DCMAKE_BUILD_TYPE=Release -DMJGRANULAR_SANITIZE=ON \
  -DMJGRANULAR_CUDA=OFF >/dev/null
cmake --build "$root/build-sanitize" -j"$(nproc)"
# openmp threads that sleep rather than spin at barriers: ctest runs tests side by side
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
# ubsan: where the report came from. asan keeps its defaults, leak checking included: libgomp's
# thread pool is still reachable at exit, so it needs no suppression
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
cd "$root/build-sanitize"
# one test a core, each on one openmp thread (the tests of thread counts set their own)
OMP_NUM_THREADS=1 ctest --output-on-failure -j"$(nproc)" -LE long "$@"
