#!/usr/bin/env bash
# installs what a fresh debian machine lacks to build and test mjgranular; safe to run again.
# apt: cmake, g++, googletest, openmp.  python: a venv in .venv with the pinned mujoco + numpy.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/versions.sh"

# debian packages, installed only when missing
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
[ -f /usr/lib/x86_64-linux-gnu/libgomp.so.1 ] || [ -n "$(find /usr/lib -name 'libgomp.so*' 2>/dev/null | head -1)" ] || need+=(libgomp1)
[ -n "$(find /usr/share /usr/lib -name libOSMesa.so.8 2>/dev/null | head -1)" ] || need+=(libosmesa6)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}" >/dev/null
fi

# python venv with the one pinned mujoco version and the pinned packages (scripts/versions.sh)
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
# every pinned package at its pinned version, else (re)install them all
pinned_ok='import sys; from importlib.metadata import version
sys.exit(any(version(n) != v for n, v in (s.split("==") for s in sys.argv[1:])))'
if ! "$venv/bin/python" -c "$pinned_ok" "mujoco==$MJGRANULAR_MUJOCO_VERSION" $MJGRANULAR_PY_PACKAGES 2>/dev/null; then
  echo "setup: installing mujoco==$MJGRANULAR_MUJOCO_VERSION $MJGRANULAR_PY_PACKAGES into .venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "mujoco==$MJGRANULAR_MUJOCO_VERSION" $MJGRANULAR_PY_PACKAGES
fi
# the Panda's model (scripts/panda.py): both packages pinned, without their dependencies (gym-hil's
# gym, pygame, ... are not needed for its model files); then one try to fetch the Menagerie's own
# archive, which fails on machines without GitHub access: they use gym-hil's copy
if ! "$venv/bin/python" -c "$pinned_ok" $MJGRANULAR_PANDA_PY_PACKAGES 2>/dev/null; then
  echo "setup: installing $MJGRANULAR_PANDA_PY_PACKAGES into .venv (without dependencies)"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps $MJGRANULAR_PANDA_PY_PACKAGES
  timeout 120 "$venv/bin/python" "$root/scripts/panda.py" --fetch || true
fi
"$venv/bin/python" -c "import mujoco; print('setup: mujoco', mujoco.__version__, 'ready')"
