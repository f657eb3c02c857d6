#!/usr/bin/env bash
# the main job: sets up, builds, then runs models/sandbox.xml headless through the plugin for a few
# simulated seconds with a progress bar, and renders the final state to a PNG it names.
# extra args go to scripts/examples/demo.py, e.g. scripts/demo.sh --seconds 3 --out out/bed.png
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
MJGRANULAR_PLUGIN="$root/build/plugin/libmjgranular.so" exec "$root/.venv/bin/python" \
  "$root/scripts/examples/demo.py" "$@"
