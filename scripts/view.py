"""Opens a scene in MuJoCo's interactive viewer with the mjgranular plugin loaded.

  .venv/bin/python scripts/view.py models/scoop.xml

The same as `python -m mujoco.viewer --mjcf=MODEL` once the plugin is in mujoco's plugin folder
(plugin/README.md, "Drawing the grains and viewers"), without touching the installed package.
"""

import argparse
import os
import sys

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # read when the plugin loads libgomp

import mujoco.viewer  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mjgranular  # noqa: E402


def main():
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("model", help="MJCF file")
  p.add_argument("--plugin", help="libmjgranular.so (default: mjgranular.plugin_path())")
  args = p.parse_args()
  mjgranular.load_plugin(args.plugin)
  mujoco.viewer.launch_from_path(os.path.abspath(args.model))


if __name__ == "__main__":
  main()
