#!/usr/bin/env bash
# installs what a fresh debian machine lacks to build and test mjgranular; safe to run again.
# apt: cmake, g++, googletest, openmp.  python: a venv in .venv with the pinned mujoco + numpy
# and the mjgranular package (editable).
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
mujoco_pin="$MJGRANULAR_MUJOCO_PACKAGE==$MJGRANULAR_MUJOCO_VERSION"
# a venv of the `mujoco` wheel set (from before the pin was mujoco-core's) holds mujoco-core at its
# own version: `mujoco` and `mujoco-studio` leave, and since `mujoco` and mujoco-core both own
# mujoco/__init__.py, mujoco-core is installed again after them
if "$venv/bin/python" -c 'import importlib.metadata as m; m.version("mujoco")' 2>/dev/null; then
  echo "setup: replacing the mujoco wheel set in .venv by $mujoco_pin"
  "$venv/bin/pip" uninstall -q -y mujoco mujoco-studio
  "$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$mujoco_pin"
fi
if ! "$venv/bin/python" -c "$pinned_ok" "$mujoco_pin" $MJGRANULAR_PY_PACKAGES 2>/dev/null; then
  echo "setup: installing $mujoco_pin $MJGRANULAR_PY_PACKAGES into .venv"
  "$venv/bin/pip" install -q --disable-pip-version-check \
    "$MJGRANULAR_MUJOCO_PACKAGE[rendering]==$MJGRANULAR_MUJOCO_VERSION" $MJGRANULAR_PY_PACKAGES
fi
# the Panda's model (scripts/examples/panda.py): both packages pinned, without their dependencies
# (gym-hil's gym, pygame, ... are not needed for its model files); then one try to fetch the
# Menagerie's own archive, which fails on machines without GitHub access: they use gym-hil's copy
if ! "$venv/bin/python" -c "$pinned_ok" $MJGRANULAR_PANDA_PY_PACKAGES 2>/dev/null; then
  echo "setup: installing $MJGRANULAR_PANDA_PY_PACKAGES into .venv (without dependencies)"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps $MJGRANULAR_PANDA_PY_PACKAGES
  timeout 120 "$venv/bin/python" "$root/scripts/examples/panda.py" --fetch || true
fi
# the mjgranular package, editable from this checkout and not compiled here (wheel.cmake=false):
# its python is scripts/mjgranular/, its scenes models/, its library the one scripts/build.sh
# writes to build/plugin/ (one build for the tests and the package). scikit-build-core, its build
# backend, is pinned too; reinstalled when the package is not this checkout's or its entry points
# differ from pyproject.toml's
if ! "$venv/bin/python" -c "$pinned_ok" $MJGRANULAR_BUILD_PY_PACKAGES 2>/dev/null; then
  echo "setup: installing $MJGRANULAR_BUILD_PY_PACKAGES into .venv"
  "$venv/bin/pip" install -q --disable-pip-version-check $MJGRANULAR_BUILD_PY_PACKAGES
fi
installed_here='import importlib.metadata as md, importlib.util, pathlib, sys, tomllib
root = pathlib.Path(sys.argv[1])
spec = importlib.util.find_spec("mjgranular")
want = tomllib.loads((root / "pyproject.toml").read_text())["project"]["entry-points"]
have = {g: {e.name: e.value for e in md.entry_points(group=g) if e.dist.name == "mjgranular"}
        for g in want}
sys.exit(spec is None or pathlib.Path(spec.origin).parent != root / "scripts" / "mjgranular"
         or have != want)'
if ! "$venv/bin/python" -c "$installed_here" "$root" 2>/dev/null; then
  echo "setup: installing the mjgranular package into .venv (editable)"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation --no-deps \
    -C wheel.cmake=false -e "$root"
fi
"$venv/bin/python" -c "import mujoco; print('setup: mujoco', mujoco.__version__, 'ready')"
