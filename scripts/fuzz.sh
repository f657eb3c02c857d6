#!/usr/bin/env bash
# builds the libFuzzer targets of tests/fuzz/ (the config parser, the bed-file reader) with clang,
# asan and ubsan into build-fuzz/, and runs each from its seed corpus (tests/fuzz/corpus_<name>/)
# for a fixed number of inputs: FUZZ_RUNS (default 1000000), FUZZ_SEED (default: random, printed
# by libFuzzer as "Seed:"). New inputs go to build-fuzz/corpus_<name>/; a crash stops the script
# and leaves the input in build-fuzz/crash-<name>-*: fix it, then add the input to
# tests/fuzz/corpus_<name>/, where the ctest test fuzz_<name>_corpus replays it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${FUZZ_RUNS:-1000000}"
bash "$root/scripts/setup.sh"

# clang with libFuzzer's runtime and its openmp (the solver's loops), installed when missing
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
cat > "$probe/p.c" <<'C'
#include <omp.h>
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n) { return omp_get_max_threads() < 0; }
C
if ! clang -fsanitize=fuzzer,address,undefined -fopenmp "$probe/p.c" -o "$probe/p" 2>/dev/null
then
  echo "fuzz: installing clang libclang-rt-dev libomp-dev"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq clang libclang-rt-dev \
    libomp-dev >/dev/null
fi

build="$root/build-fuzz"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMJGRANULAR_FUZZ=ON \
  -DMJGRANULAR_CUDA=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzz_config fuzz_bedfile

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
for name in config bedfile; do
  mkdir -p "$build/corpus_$name"
  echo "fuzz: $name, $runs runs"
  # -timeout: an input that takes 10 s is a hang, and a failure
  "$build/tests/fuzz/fuzz_$name" -runs="$runs" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} -timeout=10 \
    -artifact_prefix="$build/crash-$name-" -print_final_stats=1 \
    "$build/corpus_$name" "$root/tests/fuzz/corpus_$name"
done
