"""mjgranular from Python: load the plugin into mujoco, read the grains as numpy views.

    import sys; sys.path.insert(0, "scripts")
    import mujoco, mjgranular
    mjgranular.load_plugin()                    # once per process, before loading a model
    m = mujoco.MjModel.from_xml_path("models/sandbox.xml")
    d = mujoco.MjData(m)
    g = mjgranular.grains(m, d)                 # views into d.plugin_state, no copies
    mujoco.mj_step(m, d)
    print(g.count, g.positions[:, 2].max())     # the views follow the state as it steps

The layout is plugin/README.md's "plugin_state layout": a header of 4 numbers (grain count,
gpu stamp, layout version, reserved), positions (cap x 3), velocities (cap x 3), per-body
wrenches (nbody x 6: force, torque), then 41 numbers of opaque contact state per grain.
"""

import os
import pathlib

import numpy as np

import mujoco

HEADER = 4
CONTACT_PER_GRAIN = 41
LAYOUT_VERSION = 2
PLUGIN_NAME = "mjgranular.terrain"

_loaded = None


def plugin_path():
    """The plugin library: $MJGRANULAR_PLUGIN, else build/plugin/libmjgranular.so."""
    env = os.environ.get("MJGRANULAR_PLUGIN")
    if env:
        return pathlib.Path(env)
    return pathlib.Path(__file__).resolve().parent.parent / "build" / "plugin" / "libmjgranular.so"


def load_plugin(path=None):
    """Loads the plugin library into mujoco once per process; returns its path."""
    global _loaded
    if _loaded is not None:
        return _loaded
    path = pathlib.Path(path) if path is not None else plugin_path()
    if not path.is_file():
        raise FileNotFoundError(
            f"mjgranular plugin not found at {path}: build it with scripts/build.sh "
            "or set MJGRANULAR_PLUGIN")
    mujoco.mj_loadPluginLibrary(str(path))
    _loaded = path
    return path


class Grains:
    """Numpy views of one terrain instance's plugin_state (they share memory with the data).

    positions  (n x 3) world frame [m]        velocities (n x 3) [m/s]
    wrenches   (nbody x 6) force [N], torque [N m] about each body's xipos, world frame
    state      the instance's whole block; capacity, count
    Writing into the views writes the state (on the GPU backend, set state[1] = 0 afterwards).
    """

    def __init__(self, model, data, instance=0):
        if not 0 <= instance < model.nplugin:
            raise IndexError(f"plugin instance {instance} out of range (nplugin={model.nplugin})")
        adr = int(model.plugin_stateadr[instance])
        num = int(model.plugin_statenum[instance])
        nbody = int(model.nbody)
        cap, rest = divmod(num - HEADER - 6 * nbody, 6 + CONTACT_PER_GRAIN)
        if cap < 0 or rest != 0:
            raise ValueError(f"plugin instance {instance} has a state of {num} numbers, not the "
                             "mjgranular.terrain layout")
        self._data = data  # keeps the buffer alive as long as the views
        self.capacity = cap
        self.nbody = nbody
        self.state = data.plugin_state[adr:adr + num]
        self._pos = self.state[HEADER:HEADER + 3 * cap].reshape(cap, 3)
        self._vel = self.state[HEADER + 3 * cap:HEADER + 6 * cap].reshape(cap, 3)
        self.wrenches = self.state[HEADER + 6 * cap:HEADER + 6 * cap + 6 * nbody].reshape(nbody, 6)
        self.contacts = self.state[HEADER + 6 * cap + 6 * nbody:]
        if cap and int(self.state[2]) not in (0, LAYOUT_VERSION):
            raise ValueError(f"plugin_state layout version {self.state[2]}, expected "
                             f"{LAYOUT_VERSION}")

    @property
    def count(self):
        """Grains in use, n."""
        return int(self.state[0])

    @property
    def positions(self):
        """(n x 3) view of the grain positions."""
        return self._pos[:self.count]

    @property
    def velocities(self):
        """(n x 3) view of the grain velocities."""
        return self._vel[:self.count]

    def forces(self):
        """(nbody x 3) view of the granular forces on the bodies."""
        return self.wrenches[:, :3]

    def torques(self):
        """(nbody x 3) view of the granular torques on the bodies."""
        return self.wrenches[:, 3:]


def grains(model, data, instance=0):
    """The grains of plugin instance `instance` of data, as numpy views of data.plugin_state."""
    return Grains(model, data, instance)
