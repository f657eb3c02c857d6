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

# python venv with the one pinned mujoco version
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import mujoco, numpy, sys; sys.exit(mujoco.__version__ != '$MJGRANULAR_MUJOCO_VERSION')" 2>/dev/null; then
  echo "setup: installing mujoco==$MJGRANULAR_MUJOCO_VERSION into .venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "mujoco==$MJGRANULAR_MUJOCO_VERSION" $MJGRANULAR_PY_PACKAGES
fi
"$venv/bin/python" -c "import mujoco; print('setup: mujoco', mujoco.__version__, 'ready')"
