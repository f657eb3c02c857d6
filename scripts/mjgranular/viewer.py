"""Opens a scene in MuJoCo's interactive viewer with the mjgranular plugin loaded.

  python -m mjgranular.viewer scoop                 # a scene of the package, by name
  python -m mjgranular.viewer path/to/model.xml     # or an MJCF file

With the package installed, `import mujoco` loads the plugin, so `python -m mujoco.viewer
--mjcf=MODEL` shows the grains too; this module adds scene names and --plugin.
"""

import argparse
import os


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("model", help="MJCF file, or a scene's name (sandbox, scoop, ...)")
  p.add_argument("--plugin", help="libmjgranular.so (default: $MJGRANULAR_PLUGIN, else the "
                 "package's)")
  args = p.parse_args(argv)
  # read when the plugin loads libgomp: openmp threads that sleep at barriers
  os.environ.setdefault("OMP_WAIT_POLICY", "passive")
  if args.plugin:  # the copy `import mujoco` loads
    os.environ["MJGRANULAR_PLUGIN"] = os.path.abspath(args.plugin)
  import mujoco.viewer
  import mjgranular
  mjgranular.load_plugin()
  model = args.model if os.path.isfile(args.model) else mjgranular.scene(args.model)
  mujoco.viewer.launch_from_path(os.path.abspath(model))


if __name__ == "__main__":
  main()
