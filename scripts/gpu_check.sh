#!/usr/bin/env bash
# verifies the cuda backend on a machine with an nvidia gpu in one command (under 10 minutes) and
# writes one markdown report. two phases, because the gpu machine may have no compiler, no
# mujoco and no network:
#
#   scripts/gpu_check.sh --build-only   anywhere with nvcc (ci runs it, no gpu needed): sets up,
#                                       builds with cuda into build-gpu/ and collects into gpu-kit/
#                                       (git-ignored) what the gpu machine needs, its size checked
#   scripts/gpu_check.sh                on the gpu machine, from the root of a copy of the
#                                       repository that holds gpu-kit/: device and driver, the
#                                       probe, kernel and plugin tests on cuda, compute-sanitizer,
#                                       the ptx jit path, the python tests, the gpu benchmarks
#
# options: --budget S  seconds the gpu run may take in all (default 540: the device tool's limit
#                      is 600); steps that would not fit are skipped with a note
#          --only A,B  run only these gpu steps (device probe kernel physics plugin sanitize jit
#                      python pss transfer settle franka deterministic)
# report: $OUT/gpu_report.md when OUT is set (the device tool brings $OUT back), else
# gpu-kit/report.md; step logs beside it (gpu_logs.tar.gz in $OUT). exit 1 when any step failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kit_name=gpu-kit
kit="$root/$kit_name"
build="${MJG_GPU_BUILD_DIR:-$root/build-gpu}"
# the device tool carries at most 64 MiB: the sources and the kit together
limit_mib=64
# the static cuda 13 runtime needs the r580 driver (cuda minor version compatibility)
min_driver=580

build_only=0
budget=540
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-only) build_only=1 ;;
    --budget) budget="$2"; shift ;;
    --only) only=",$2,"; shift ;;
    -h|--help) sed -n '2,22p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "gpu_check: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

die() { echo "gpu_check: $*" >&2; exit 1; }

# ------------------------------------------------------------------------------------------------
# phase 1: build and collect the kit (no gpu needed)
# ------------------------------------------------------------------------------------------------
build_kit() {
  local t0=$SECONDS
  source "$root/scripts/versions.sh"
  local nvcc="${CUDACXX:-$(command -v nvcc || true)}"
  [ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
  [ -n "$nvcc" ] || die "no nvcc: the gpu kit needs the CUDA toolkit (put nvcc on PATH or set CUDACXX)"
  echo "gpu_check: $("$nvcc" --version | tail -1)"

  bash "$root/scripts/setup.sh" >/dev/null || die "scripts/setup.sh failed"
  # the test binaries find the plugin and the scenes relative to the repository root (the copy on
  # the gpu machine lives at another path); libmujoco through LD_LIBRARY_PATH at run time
  # machine code for ampere and hopper and ptx only (not the default's 8.6 and 8.9 as well): each
  # test and bench binary carries its own copy of the device code, and five copies of five images
  # would not fit in the 64 MiB the device tool carries
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMJGRANULAR_CUDA=ON \
        -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="80-real;90-real;90-virtual" \
        -DMJGRANULAR_TEST_PLUGIN_PATH="$kit_name/lib/libmjgranular.so" \
        -DMJGRANULAR_TEST_MODELS_DIR=models >"$build.configure.log" 2>&1 \
    || { cat "$build.configure.log"; die "cmake configure failed"; }
  grep -q "CUDA backend on" "$build.configure.log" \
    || { cat "$build.configure.log"; die "cmake did not turn the CUDA backend on"; }
  grep "CUDA backend on" "$build.configure.log" | sed 's/^-- /gpu_check: /'
  local targets=(kernel_tests plugin_tests cuda_probe bench_settle bench_state mjgranular)
  cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >"$build.build.log" 2>&1 \
    || { tail -60 "$build.build.log"; die "build failed (log: $build.build.log)"; }
  echo "gpu_check: built ${targets[*]} in $((SECONDS - t0)) s"

  # what the gpu machine must find in the binaries: machine code for ampere and hopper, ptx for
  # the jit path and newer gpus (asked of nvcc, and the ptx found in the library; cuobjdump, absent
  # here, lists both on the gpu machine), the cuda runtime linked in (only the driver needed)
  local so="$build/plugin/libmjgranular.so" flags ptx
  flags="$(cat "$build"/kernels/CMakeFiles/granular.dir/flags.make "$build"/build.ninja 2>/dev/null \
           | grep -m1 -e '--generate-code')"
  for code in 'code=\[sm_80\]' 'code=\[sm_90\]' 'code=\[compute_90\]'; do
    grep -q "$code" <<<"$flags" || die "nvcc was not asked for ${code//\\/} (kernels' CUDA_FLAGS: $(grep CUDA_FLAGS <<<"$flags"))"
  done
  # (outputs read whole before grep: with pipefail, grep -q ending early would fail the pipe)
  local sections
  sections="$(readelf -S "$so")"
  grep -q nv_fatbin <<<"$sections" || die "libmjgranular.so holds no device code (.nv_fatbin)"
  ptx="$(strings "$so" | grep -E '^\.target sm_' | head -1)"
  [ -n "$ptx" ] || die "libmjgranular.so holds no ptx: the CUDA_FORCE_PTX_JIT step would fail"
  echo "gpu_check: nvcc asked for $(grep -o 'code=\[[a-z_0-9]*\]' <<<"$flags" | tr -d '[]' | sed 's/code=//' | tr '\n' ' ')and libmjgranular.so holds ptx for ${ptx#.target }"
  if grep -q libcudart <<<"$(ldd "$so")"; then die "libmjgranular.so links libcudart dynamically"; fi

  # the kit: binaries, libraries, wheels for python 3.12 (the gpu machine has no mujoco)
  rm -rf "$kit"
  mkdir -p "$kit/bin" "$kit/lib" "$kit/wheels"
  cp "$build/tests/kernel_tests" "$build/tests/plugin_tests" "$build/tests/cuda_probe" \
     "$build/scripts/bench/bench_settle" "$build/scripts/bench/bench_state" "$kit/bin/"
  cp "$so" "$kit/lib/"
  local mjlib gomp
  mjlib="$(sed -n 's/^MUJOCO_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt")"
  cp "$mjlib" "$kit/lib/" || die "cannot copy libmujoco ($mjlib)"
  # openmp's runtime, in case the gpu machine's image lacks it
  gomp="$(ldd "$so" | awk '/libgomp/ {print $3}')"
  [ -z "$gomp" ] || cp -L "$gomp" "$kit/lib/"

  # the python tests' packages the gpu machine lacks, at .venv's versions (mujoco-core pinned);
  # imageio-ffmpeg (render test, 165 MiB installed) and ray (test_distributed.py, 240 MiB) do not
  # fit: those tests are left out there
  local py="$root/.venv/bin/python" names=() n v
  for n in mujoco-core glfw pyopengl gymnasium cloudpickle farama-notifications \
           typing-extensions mujoco-menagerie gym-hil; do
    v="$("$py" -c 'import sys, importlib.metadata as m; print(m.version(sys.argv[1]))' "$n" 2>/dev/null)" \
      || die "$n is not installed in .venv (scripts/setup.sh installs it)"
    names+=("$n==$v")
  done
  local cache="$build/wheels"
  mkdir -p "$cache"
  "$py" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
        --python-version 3.12 --implementation cp --abi cp312 \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any \
        -d "$cache" "${names[@]}" >"$build.wheels.log" 2>&1 \
    || { cat "$build.wheels.log"; die "pip download of the wheels for python 3.12 failed"; }
  for n in "${names[@]}"; do
    local stem="${n%%==*}" ver="${n##*==}" f
    stem="${stem//-/_}"
    f="$(ls "$cache"/"$stem"-"$ver"-*.whl 2>/dev/null | head -1)"
    [ -n "$f" ] || die "no wheel for $n in $cache"
    cp "$f" "$kit/wheels/"
  done
  # the mjgranular package itself, python files and scenes only (wheel.cmake=false): the tests
  # take the kit's library through MJGRANULAR_PLUGIN
  "$py" -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps \
        -C wheel.cmake=false -w "$kit/wheels" "$root" >"$build.wheels.log" 2>&1 \
    || { cat "$build.wheels.log"; die "pip wheel of the mjgranular package failed"; }

  write_manifest "$nvcc"
  echo "gpu_check: --build-only done in $((SECONDS - t0)) s; on the gpu machine, from the repository root:"
  echo "gpu_check:   bash scripts/gpu_check.sh      (carry $kit_name/)"
}

# the kit's contents with sizes, and the size check against what the device tool carries
write_manifest() {
  local nvcc="$1" m="$kit/MANIFEST.md" commit src_bytes kit_bytes total
  commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  if git -C "$root" diff --quiet HEAD -- 2>/dev/null; then :; else commit="$commit (with local changes)"; fi
  # what travels beside the kit: tracked files and untracked ones git does not ignore
  src_bytes="$(cd "$root" && { git ls-files -z; git ls-files -z -o --exclude-standard; } \
               | xargs -0 -r stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')"
  kit_bytes="$(find "$kit" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')"
  total=$((src_bytes + kit_bytes))
  {
    echo "# gpu-kit"
    echo
    echo "Built by \`scripts/gpu_check.sh --build-only\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit."
    echo "Compiler: $("$nvcc" --version | tail -1); $(grep -o 'architectures .*' "$build.configure.log")."
    echo "CUDA runtime linked statically: needs NVIDIA driver $min_driver or newer."
    echo
    echo "| file | bytes |"
    echo "|---|---:|"
    (cd "$kit" && find . -type f ! -name MANIFEST.md -printf '%P %s\n' | sort) \
      | awk '{printf "| %s | %d |\n", $1, $2}'
    echo
    echo "Kit: $(mib "$kit_bytes") MiB; sources beside it: $(mib "$src_bytes") MiB; together" \
         "$(mib "$total") MiB of the $limit_mib MiB the device tool carries."
  } >"$m"
  cat "$m"
  [ "$total" -le $((limit_mib * 1024 * 1024)) ] \
    || die "sources and kit come to $(mib "$total") MiB, over the $limit_mib MiB the gpu machine can be sent"
}

mib() { awk -v b="$1" 'BEGIN {printf "%.1f", b / 1048576}'; }

if [ "$build_only" = 1 ]; then
  build_kit
  exit $?
fi

# ------------------------------------------------------------------------------------------------
# phase 2: on the gpu machine
# ------------------------------------------------------------------------------------------------
[ -x "$kit/bin/kernel_tests" ] || die "no $kit_name/ here: run scripts/gpu_check.sh --build-only on a machine with nvcc, then carry $kit_name/ to this one (README: Verifying the GPU backend)"
cd "$root"
start=$SECONDS
export LD_LIBRARY_PATH="$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export MJGRANULAR_PLUGIN="$kit/lib/libmjgranular.so"
export PYTHONUNBUFFERED=1
py="${PYTHON:-python3}"
work="$(mktemp -d /tmp/gpu_check.XXXXXX)"
logs="$work/logs"
mkdir -p "$logs"
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT"; report="$OUT/gpu_report.md"; else report="$kit/report.md"; fi
steps_md="$work/steps.md"
results_md="$work/results.md"
: >"$steps_md"; : >"$results_md"
failed=0
# what the steps (child shells) read
export kit py work min_driver results_md start budget

left() { echo $((budget - (SECONDS - start))); }
# a step runs when --only names it, or names its group (sanitize: the four tools, pss: the sizes)
wanted() {
  [ -z "$only" ] || [[ "$only" == *",$1,"* ]] ||
    { [[ "$1" =~ ^(memcheck|racecheck|initcheck|synccheck)$ ]] && [[ "$only" == *,sanitize,* ]]; } ||
    { [[ "$1" == pss_* ]] && [[ "$only" == *,pss,* ]]; } ||
    { [[ "$1" == transfer_* ]] && [[ "$only" == *,transfer,* ]]; }
}

# step NAME CAP MIN DESCRIPTION -- COMMAND...: runs COMMAND with a time limit of CAP seconds (or
# what is left of the budget, keeping 10 s for the report), skips it when less than MIN would be
# left; records PASS / FAIL / SKIP, its seconds and, on failure, the end of its log
step() {
  local name="$1" cap="$2" min="$3" what="$4"; shift 5
  wanted "$name" || return 0
  local avail=$(( $(left) - 10 )) lim rc t0 status note=""
  lim=$(( cap < avail ? cap : avail ))
  if [ "$lim" -lt "$min" ]; then
    echo "| $name | SKIP | 0 | $what: not started, ${avail} s left of the ${budget} s budget |" >>"$steps_md"
    echo "gpu_check: $name skipped (budget)"
    return 0
  fi
  echo "gpu_check: $name ($what, limit ${lim} s)"
  t0=$SECONDS
  # a child bash runs the step, so that it can be one of the exported functions below
  STEP_LIMIT=$lim timeout -k 5 "$lim" bash -c '"$@"' "$name" "$@" >"$logs/$name.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then status=PASS
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status=FAIL; note=" (timed out after ${lim} s)"
  else status=FAIL; note=" (exit $rc)"; fi
  echo "| $name | $status | $((SECONDS - t0)) | $what$note |" >>"$steps_md"
  echo "gpu_check: $name $status$note in $((SECONDS - t0)) s"
  if [ "$status" = FAIL ]; then
    failed=1
    { echo; echo "### $name failed$note"; echo; echo '```'; tail -40 "$logs/$name.log"; echo '```'; } >>"$work/failures.md"
  fi
  return 0
}

# ---- the device and its driver; the probe (a skip there is a failure: no silent pass) ----
check_device() {
  command -v nvidia-smi >/dev/null || { echo "no nvidia-smi: no NVIDIA driver on this machine"; return 1; }
  nvidia-smi || return 1
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
  local drv
  drv="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
  echo "driver $drv; this build needs $min_driver or newer"
  # the device code the build carries, and what this gpu runs natively
  if command -v cuobjdump >/dev/null; then
    cuobjdump --list-elf "$kit/lib/libmjgranular.so"; cuobjdump --list-ptx "$kit/lib/libmjgranular.so"
  fi
  [ "${drv%%.*}" -ge "$min_driver" ] 2>/dev/null
}
run_probe() {
  "$kit/bin/cuda_probe"; local rc=$?
  [ $rc -eq 77 ] && echo "the probe skipped: the CUDA backend found no usable device (a failure here)"
  [ $rc -eq 0 ] && echo "cuda backend usable"
  return $rc
}
export -f check_device run_probe
step device 30 5 "nvidia-smi, driver >= $min_driver" -- check_device
step probe 30 5 "cuda_probe exits 0" -- run_probe

# ---- tests: the kernel tests' cuda suites (the cpu suites are ci's), the physics suites again on
# cuda, the plugin's tests with backend cuda ----
# (the list is declared once, in tests/CMakeLists.txt: a set() and its string(APPEND)s)
physics="$(sed -n 's/.*\(set(\|string(APPEND \)cuda_physics_tests "\([^"]*\)").*/\2/p' tests/CMakeLists.txt | tr -d '\n')"
[ -n "$physics" ] || { echo "gpu_check: no cuda_physics_tests in tests/CMakeLists.txt" >&2; exit 1; }
# (not the out-of-memory test: memcheck counts the allocations it makes fail on purpose as errors)
short="${MJG_SANITIZE_FILTER:-CudaBackend.*:-CudaBackend.OutOfMemoryIsAStatus}"
# the benchmarks' backend: cuda; MJG_CHECK_BACKEND=cpu walks them through on a machine without one
backend="${MJG_CHECK_BACKEND:-cuda}"
export short backend
# a gtest binary's tests split into N shards run side by side (the gpu machine has 16 cores and the
# device takes several processes; the cpu halves of the comparisons share the cores out): the
# slowest suites take minutes one after another. line-buffered, each test's [ RUN ] line is in the
# log before it starts, so a shard that dies shows in which test; its exit status or signal is named
sharded() {
  local shards="$1" i pids=() rc=0 st tag="$work/shard.$BASHPID" cores; shift
  cores="$(nproc)"
  for ((i = 0; i < shards; i++)); do
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i OMP_NUM_THREADS=$(( (cores + shards - 1) / shards )) \
      stdbuf -oL -eL "$@" >"$tag.$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"; st=$?
    echo "== shard $i of $shards: exit $st$( [ $st -gt 128 ] && echo " (signal $(kill -l $((st - 128))))")"
    grep -v -e '^\[       OK \]' -e '^\[----------\]' "$tag.$i.log"
    [ $st -eq 0 ] || rc=1
  done
  return $rc
}
export -f sharded
step kernel 150 20 "kernel_tests, the cuda suites (Cuda*)" -- \
  sharded 4 "$kit/bin/kernel_tests" --gtest_filter='Cuda*'
step physics 150 20 "kernel_tests' physics suites with GRN_TEST_BACKEND=cuda" -- \
  sharded 8 env GRN_TEST_BACKEND=cuda "$kit/bin/kernel_tests" --gtest_filter="$physics"
step plugin 180 20 "plugin_tests with MJG_TEST_BACKEND=cuda" -- \
  sharded 8 env MJG_TEST_BACKEND=cuda "$kit/bin/plugin_tests"


# ---- python tests: mujoco and the other missing packages from the kit's wheels ----
site="$work/site"
wheels() {
  "$py" --version
  "$py" -m pip install -q --no-index --no-deps --no-compile --disable-pip-version-check \
    --target "$site" "$kit"/wheels/*.whl || return 1
  PYTHONPATH="$site" "$py" -c "import mujoco; print('mujoco', mujoco.__version__, mujoco.__file__)"
}
python_tests() {
  local args=(-q -rf --durations=15 -p no:cacheprovider -p no:benchmark -o addopts="")
  # the render test needs osmesa and imageio-ffmpeg, which the kit does not carry
  if ! "$py" -c "import imageio_ffmpeg, ctypes.util, sys; sys.exit(not ctypes.util.find_library('OSMesa'))" 2>/dev/null; then
    echo "left out: tests/python/test_render.py (no OSMesa or imageio-ffmpeg here)"
    args+=(--ignore=tests/python/test_render.py)
  fi
  # ray (240 MiB installed) does not fit in the kit either
  if ! "$py" -c "import ray" 2>/dev/null; then
    echo "left out: tests/python/test_distributed.py (no ray here)"
    args+=(--ignore=tests/python/test_distributed.py)
  fi
  # 16 workers of one openmp thread each: 16 of 16 threads each oversubscribed the cores 16 times
  "$py" -c "import xdist" 2>/dev/null && { args+=(-n 16); export OMP_NUM_THREADS=1; }
  "$py" -m pytest "${args[@]}" tests/python
}
export site
export -f wheels python_tests
if wanted python || wanted franka || wanted deterministic; then
  only_save="$only"; only=""
  step wheels 60 10 "pip install the kit's wheels for $("$py" --version 2>&1)" -- wheels
  only="$only_save"
fi
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
step python 300 30 "tests/python with the kit's mujoco wheel" -- python_tests

# ---- benchmarks ----
# pss of a settled bed (bench_settle's column: settled untimed at a 1 ms substep, then timed at
# the defaults, 5e-4 s, 10 iterations); 10m only when the budget leaves room for it
pss() {
  local n="$1" settle="$2" substeps="$3" broadphase="${4:-sorted}"
  "$kit/bin/bench_settle" hash --backend "$backend" --grains "$n" --factors 2 --settle "$settle" \
    --substeps "$substeps" --repeat 2 --broadphase "$broadphase"
}
export -f pss
step pss_100k 60 10 "bench_settle: settled bed, 100k grains" -- pss 100000 0.5 200
step pss_1m 120 20 "bench_settle: settled bed, 1M grains" -- pss 1000000 0.3 100
# the same bed with the hash broadphase, against the default sorted list (whose solver keeps its
# grains in its list's order)
step pss_1m_hash 120 20 "bench_settle: settled bed, 1M grains, hash broadphase" -- \
  pss 1000000 0.3 100 hash
step pss_10m 200 150 "bench_settle: settled bed, 10M grains" -- pss 10000000 0.15 20
# what a plugin step moves between plugin_state and the device at 1M grains (issue 16: the
# contact state's download into pageable memory; the two state hashes that replace the upload)
step transfer_1m 120 40 "bench_state: plugin_state transfers per step, 1M grains" -- \
  "$kit/bin/bench_state" --backend "$backend" --grains 1000000 --settle 100 --reps 10 --steps 4
# the same with the hash broadphase (the sorted list's solver maps each transfer between its
# grain order and the caller's, on the host)
step transfer_1m_hash 120 40 "bench_state: plugin_state transfers per step, 1M grains, hash" -- \
  "$kit/bin/bench_state" --backend "$backend" --grains 1000000 --settle 100 --reps 10 --steps 4 \
  --broadphase hash
wanted pss_100k || wanted pss_1m || wanted pss_1m_hash || wanted pss_10m && {
  echo "### Settled bed, PSS ($backend)"
  echo
  echo "| grains | broadphase | substeps timed | wall [s] | contacts per grain | PSS |"
  echo "|---:|---|---:|---:|---:|---:|"
  for n in 100k 1m 1m_hash 10m; do
    f="$logs/pss_$n.log"
    if [ -f "$f" ] && grep -q '"pss"' "$f"; then
      "$py" -c 'import json, sys
for line in open(sys.argv[1]):
  if line.startswith("{") and "pss" in line:
    r = json.loads(line)
    print("| %d | %s | %d | %.3f | %.2f | %.3g |" % (r["grains"], r["broadphase"], r["substeps"], r["wall_s"], r["contacts_per_grain"], r["pss"]))' "$f"
    else
      echo "| $n | | | | | not measured (see steps) |"
    fi
  done
  echo
} >>"$results_md"

# the settling scene of scripts/bench.sh on cuda, both models, against LIGGGHTS' cpu figures
settle_bench() {
  PYTHONPATH="scripts/bench${PYTHONPATH:+:$PYTHONPATH}" \
    "$py" - "$kit/bin/bench_settle" "$work/settle" "$STEP_LIMIT" "$results_md" "$backend" <<'EOF'
import json, math, os, subprocess, sys, time
import peer_scene as scene  # the scene's constants and measures, as scripts/bench.sh uses them
exe, work, limit, out, backend = sys.argv[1:6]
deadline = time.time() + float(limit) - 30  # no new run that could not finish in the step's time
os.makedirs(work, exist_ok=True)
# LIGGGHTS 3.8.0 (Debian), 2 MPI ranks on this project's 2-core machine, dt 1e-4 s: wall seconds
# per simulated second, from the README's table of scripts/bench.sh's last run
liggghts = {10000: 8.1, 50000: 44.1, 100000: 110.7, 1000000: 722.0}
sizes = [(10000, 1.0), (50000, 0.5), (100000, 0.5), (1000000, 0.1)]
rows, failed = [], False
for n, t_sim in sizes:
  if time.time() > deadline:
    rows.append("| %d | | | | | | not run: budget |" % n); continue
  w = scene.box_width(n)
  top = 2 * scene.RADIUS + n * scene.grain_volume() / (scene.INIT_PACKING * (w - 2 * scene.RADIUS) ** 2)
  init = os.path.join(work, "n%d_init.f32" % n)
  subprocess.run([exe, "init", "--grains", str(n), "--out", init, "--width", "%.9g" % w,
                  "--height", "%.9g" % top, "--seed", str(scene.SEED)], check=True,
                 stdout=subprocess.DEVNULL)
  for model in ("pj", "dem"):
    if time.time() > deadline:
      rows.append("| %d | %s | | | | | not run: budget |" % (n, model)); continue
    fin = os.path.join(work, "n%d_%s.f32" % (n, model))
    cmd = [exe, "settle", "--in", init, "--out", fin, "--width", "%.9g" % w, "--time", "%g" % t_sim,
           "--backend", backend]
    if model == "dem":
      cmd += ["--model", "dem", "--law", scene.DEM_LAW, "--youngs", "%g" % scene.YOUNG,
              "--poisson", "%g" % scene.POISSON, "--restitution", "%g" % scene.RESTITUTION,
              "--friction", "%g" % scene.FRICTION, "--rolling", "%g" % scene.ROLLING,
              "--torsional", "%g" % scene.TORSIONAL, "--dt", "%g" % scene.PEER_DT]
    try:
      p = subprocess.run(cmd, capture_output=True, text=True,
                         timeout=max(5, deadline + 25 - time.time()))
    except subprocess.TimeoutExpired:
      failed = True
      rows.append("| %d | %s | | | | | timed out |" % (n, model)); continue
    print(" ".join(cmd)); print(p.stdout, p.stderr)
    r = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or not r or "pss" not in r[-1]:
      failed = True
      rows.append("| %d | %s | | | | | failed (exit %d) |" % (n, model, p.returncode)); continue
    r = r[-1]
    import numpy as np
    final = np.fromfile(fin, dtype=np.float32).reshape(-1, 6).astype(np.float64)
    s = scene.sanity(final[:, :3], final[:, 3:], w)
    per = r["wall_s"] / r["sim_time"]
    rows.append("| %d | %s | %g | %.2f | %.3g | %.1fx | height %.3f m, packing %.3f |"
                % (n, model, r["sim_time"], per, r["pss"], liggghts[n] / per, s["bed_height"],
                   s["packing"]))
with open(out, "a") as f:
  f.write(("### Settling scene (scripts/bench.sh's) on %s against LIGGGHTS on the CPU\n\n" % backend) +
          "LIGGGHTS: 2 MPI ranks on 2 cores, dt 1e-4 s, wall s per simulated s (README): "
          + ", ".join("%dk %g" % (n // 1000, v) for n, v in liggghts.items()) + ". "
          "pj: projected Jacobi at its defaults (dt 5e-4 s); dem: LIGGGHTS' law at its dt.\n\n"
          "| grains | model | simulated [s] | wall per simulated s [s] | PSS | faster than LIGGGHTS | bed |\n"
          "|---:|---|---:|---:|---:|---:|---|\n" + "\n".join(rows) + "\n\n")
sys.exit(1 if failed else 0)
EOF
}
export -f settle_bench
step settle 150 40 "settling scene on cuda (pj, dem) against LIGGGHTS" -- settle_bench

# the franka excavation (full bed) in x real time, with the plugin's default backend (auto: cuda)
franka() {
  "$py" scripts/examples/excavate.py --no-media --out "$work/excavate"
}
export -f franka
step franka 150 60 "Franka excavation, 51,156 grains, x real time" -- franka
wanted franka && {
  echo "### Franka excavation"
  echo
  f="$logs/franka.log"
  if [ -f "$f" ] && grep -q "real time" "$f"; then
    echo '```'; grep -E "real time|grains|Panda|backend" "$f" | tail -8; echo '```'
  else
    echo "not measured (see steps)"
  fi
  echo
} >>"$results_md"

# the cost of the deterministic key on cuda: a settled bed stepped with it on and off
deterministic() {
  "$py" - "$results_md" "$backend" <<'EOF'
import sys, time
import mujoco
import mjgranular  # the kit's wheel; MJGRANULAR_PLUGIN names the kit's library
mjgranular.load_plugin()
XML = """<mujoco><option timestep="0.005"/><extension><plugin plugin="mjgranular.terrain">
<instance name="sand"><config key="fill" value="-0.25 -0.25 0.004 0.25 0.25 0.2"/>
<config key="spacing" value="2.2"/><config key="radius" value="0.004"/>
<config key="domain" value="-0.26 -0.26 0 0.26 0.26 1"/><config key="backend" value="%s"/>
<config key="deterministic" value="%s"/></instance></plugin></extension>
<worldbody><plugin instance="sand"/><geom type="plane" size="1 1 0.1"/></worldbody></mujoco>"""
rows = []
for det in ("true", "false"):
  m = mujoco.MjModel.from_xml_string(XML % (sys.argv[2], det))
  d = mujoco.MjData(m)
  for _ in range(60):             # 0.3 s: the bed settles
    mujoco.mj_step(m, d)
  t0 = time.perf_counter()
  steps = 40
  for _ in range(steps):
    mujoco.mj_step(m, d)
  wall = time.perf_counter() - t0
  n = mjgranular.grains(m, d).count
  rows.append((det, n, wall / steps, n * 10 * steps / wall))
  print(rows[-1])
with open(sys.argv[1], "a") as f:
  f.write("### Cost of `deterministic` on CUDA\n\nA settled bed stepped 40 MuJoCo steps of 5 ms "
          "(10 substeps each).\n\n| deterministic | grains | wall per step [ms] | PSS |\n"
          "|---|---:|---:|---:|\n")
  for det, n, per, pss in rows:
    f.write("| %s | %d | %.2f | %.3g |\n" % (det, n, 1e3 * per, pss))
  f.write("\nDeterministic costs %.1f%% over the unordered path.\n\n" % (100 * (rows[0][2] / rows[1][2] - 1)))
EOF
}
export -f deterministic
step deterministic 90 20 "cost of deterministic on cuda" -- deterministic

# ---- compute-sanitizer's four tools on the short cuda suites ----
# (after the benchmarks: they need nothing from these, and the sanitizers may be refused where the
# gpu runs under gvisor)
sanitize() {
  command -v compute-sanitizer >/dev/null || { echo "no compute-sanitizer on PATH"; return 1; }
  compute-sanitizer --tool "$1" --error-exitcode 99 "$kit/bin/kernel_tests" --gtest_brief=1 \
    --gtest_filter="$short"
}
export -f sanitize
for tool in memcheck racecheck initcheck synccheck; do
  step "$tool" 60 15 "compute-sanitizer --tool $tool, kernel_tests $short" -- sanitize "$tool"
done

# ---- the ptx jit path: the driver compiles the embedded ptx instead of using the machine code ----
# (the jit cache off, so that the driver compiles the ptx in this run)
jit() {
  export CUDA_FORCE_PTX_JIT=1 CUDA_CACHE_DISABLE=1
  "$kit/bin/cuda_probe" || return 1
  "$kit/bin/kernel_tests" --gtest_brief=1 --gtest_filter="$short"
}
export -f jit
step jit 120 15 "CUDA_FORCE_PTX_JIT=1: probe and kernel_tests $short" -- jit

# ---- the report ----
{
  echo "# mjgranular GPU check"
  echo
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'), host $(hostname), $(( SECONDS - start )) s of a ${budget} s budget."
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader | sed 's/^/GPU: /'
  command -v nvcc >/dev/null && echo "nvcc here: $(nvcc --version | tail -1)"
  echo
  sed -n '3,5p' "$kit/MANIFEST.md"
  echo
  echo "**Result: $([ $failed = 0 ] && echo 'every step passed' || echo 'FAILED (see below)')**"
  echo
  echo "| step | status | s | what |"
  echo "|---|---|---:|---|"
  cat "$steps_md"
  echo
  echo "## Results"
  echo
  cat "$results_md"
  if [ -f "$work/failures.md" ]; then echo "## Failures"; cat "$work/failures.md"; fi
  echo
  echo "Step logs: $( [ -n "${OUT:-}" ] && echo gpu_logs.tar.gz || echo "$logs" )."
} >"$report"
[ -n "${OUT:-}" ] && tar -czf "$OUT/gpu_logs.tar.gz" -C "$work" logs
echo "gpu_check: report $report"
cat "$report"
exit $failed
