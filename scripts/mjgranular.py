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
gpu stamp, layout version, reserved), positions (cap x 3), velocities (cap x 3), angular
velocities (cap x 3), radii (cap), per-body wrenches (nbody x 6: force, torque), then 71 numbers of opaque
contact state per grain.

A bed saved from a run starts later models (config key bed_file, format in plugin/README.md):

    mjgranular.save_bed("bed.mjgbed", m, d)     # grains, velocities and contacts of d
    bed = mjgranular.load_bed("bed.mjgbed")     # Bed(radius, positions, velocities, contacts)
"""

import collections
import ctypes
import math
import os
import pathlib

import numpy as np

import mujoco

HEADER = 4
GRAIN_NUMS = 10  # positions, velocities, angular velocities (3 each), radius
LAYOUT_VERSION = 3
PLUGIN_NAME = "mjgranular.terrain"

# bed files (plugin/bedfile.h): header, then float32 positions and velocities, then optionally
# the contact state laid out for capacity n
BED_MAGIC = b"MJGBED\0\0"
BED_VERSION = 2
BED_HEADER = np.dtype([("magic", "S8"), ("version", "<u4"), ("flags", "<u4"), ("n", "<i4"),
                       ("reserved", "<u4"), ("radius", "<f8")])
MAX_PAIRS, MAX_SHAPE_CONTACTS = 16, 4  # the solver's contact slots per grain
# the contact state's arrays in order: name, slots per grain, 4-byte numbers per slot, type
CONTACT_ARRAYS = (("npair", 1, 1, "<i4"), ("nshape", 1, 1, "<i4"), ("pair", MAX_PAIRS, 1, "<i4"),
                  ("sc_shape", MAX_SHAPE_CONTACTS, 1, "<i4"), ("pair_imp", MAX_PAIRS, 3, "<f4"),
                  ("sc_imp", MAX_SHAPE_CONTACTS, 3, "<f4"), ("pair_mom", MAX_PAIRS, 3, "<f4"),
                  ("sc_mom", MAX_SHAPE_CONTACTS, 3, "<f4"))
# bed files of version 1 (grains that did not rotate) hold the first six arrays only
CONTACT_ARRAYS_V1 = CONTACT_ARRAYS[:6]


def _contact_bytes(arrays):
    """Bytes per grain of these contact-state arrays."""
    return sum(4 * slots * width for _, slots, width, _ in arrays)


CONTACT_PER_GRAIN = _contact_bytes(CONTACT_ARRAYS) // 8  # mjtNums of contact state per grain

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


def library():
    """The loaded plugin library as a ctypes handle (load_plugin first; never loads a second
    copy): mjgranular_settle_runs(), mjgranular_radius(model, instance)."""
    if _loaded is None:
        raise RuntimeError("call mjgranular.load_plugin() first")
    lib = ctypes.CDLL(str(_loaded), mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    lib.mjgranular_settle_runs.restype = ctypes.c_longlong
    lib.mjgranular_settle_runs.argtypes = []
    lib.mjgranular_radius.restype = ctypes.c_double
    lib.mjgranular_radius.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def substeps(model, substep):
    """Granular substeps per mj_step of `model` at a substep of at most `substep` [s], counted as
    the plugin counts them (plugin/terrain.c, mjg_terrain_substeps)."""
    return max(1, math.ceil(model.opt.timestep / substep * (1 - 1e-9)))


def radius(model, instance=0):
    """Grain radius [m] of terrain instance `instance`, from its config as the plugin reads it."""
    r = library().mjgranular_radius(model._address, instance)
    if r <= 0:
        raise ValueError(f"plugin instance {instance} is not a valid {PLUGIN_NAME} instance")
    return r


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
        cap, rest = divmod(num - HEADER - 6 * nbody, GRAIN_NUMS + CONTACT_PER_GRAIN)
        if cap < 0 or rest != 0:
            raise ValueError(f"plugin instance {instance} has a state of {num} numbers, not the "
                             "mjgranular.terrain layout")
        self._data = data  # keeps the buffer alive as long as the views
        self.capacity = cap
        self.nbody = nbody
        self.state = data.plugin_state[adr:adr + num]
        self._pos = self.state[HEADER:HEADER + 3 * cap].reshape(cap, 3)
        self._vel = self.state[HEADER + 3 * cap:HEADER + 6 * cap].reshape(cap, 3)
        self._angvel = self.state[HEADER + 6 * cap:HEADER + 9 * cap].reshape(cap, 3)
        self._radii = self.state[HEADER + 9 * cap:HEADER + 10 * cap]
        grains_end = HEADER + GRAIN_NUMS * cap
        self.wrenches = self.state[grains_end:grains_end + 6 * nbody].reshape(nbody, 6)
        self.contacts = self.state[grains_end + 6 * nbody:]
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

    @property
    def angular_velocities(self):
        """(n x 3) view of the grain angular velocities [rad/s]."""
        return self._angvel[:self.count]

    @property
    def radii(self):
        """(n) view of the grain radii [m]."""
        return self._radii[:self.count]

    def forces(self):
        """(nbody x 3) view of the granular forces on the bodies."""
        return self.wrenches[:, :3]

    def torques(self):
        """(nbody x 3) view of the granular torques on the bodies."""
        return self.wrenches[:, 3:]


def grains(model, data, instance=0):
    """The grains of plugin instance `instance` of data, as numpy views of data.plugin_state."""
    return Grains(model, data, instance)


Bed = collections.namedtuple("Bed",
                             "radius positions velocities angular_velocities radii contacts")
Bed.__doc__ = """A bed file's content: radius [m] (the largest), positions, velocities and angular
velocities (n x 3, float32; a version 1 file's spins are zero), radii (n, float32; a version 1
file's are all `radius`), contacts (dict of the contact-state arrays, laid out for capacity n,
slot k of grain i at [k, i]) or None."""


def _contact_views(raw, cap, arrays=CONTACT_ARRAYS):
    """The contact-state arrays in `raw` (bytes laid out for capacity cap), shaped (slots, cap)
    or (slots, cap, 3)."""
    out, offset = {}, 0
    for name, slots, width, dtype in arrays:
        count = slots * cap * width
        a = np.frombuffer(raw, dtype=dtype, count=count, offset=offset)
        out[name] = a.reshape((slots, cap, 3) if width == 3 else (slots, cap))
        offset += 4 * count
    return out


def save_bed(path, model, data, instance=0, contacts=True):
    """Writes the grains of `data` (terrain instance `instance`) to a bed file at `path`, for
    the bed_file config key of later models: radius, positions, velocities, angular velocities,
    radii and, unless
    contacts=False, the contact state (so the bed continues as this run would have). Values are
    the state's floats, so a model loading the file starts from exactly these grains."""
    g = grains(model, data, instance)
    n = g.count
    header = np.zeros((), BED_HEADER)
    header["magic"], header["version"] = BED_MAGIC, BED_VERSION
    header["flags"], header["n"], header["radius"] = int(bool(contacts)), n, radius(model, instance)
    parts = [header.tobytes(), g.positions.astype("<f4").tobytes(),
             g.velocities.astype("<f4").tobytes(), g.angular_velocities.astype("<f4").tobytes(),
             g.radii.astype("<f4").tobytes()]
    if contacts:
        raw = np.ascontiguousarray(g.contacts).tobytes()
        for name, a in _contact_views(raw, g.capacity).items():
            parts.append(np.ascontiguousarray(a[:, :n]).tobytes())
    pathlib.Path(path).write_bytes(b"".join(parts))


def load_bed(path):
    """Reads a bed file (as save_bed writes it) into a Bed; ValueError when it is not one."""
    raw = pathlib.Path(path).read_bytes()
    if len(raw) < BED_HEADER.itemsize or raw[:8] != BED_MAGIC:
        raise ValueError(f"{path}: not a bed file")
    h = np.frombuffer(raw, BED_HEADER, count=1)[0]
    version = int(h["version"])
    if version not in (1, BED_VERSION):
        raise ValueError(f"{path}: format version {version}, expected 1 to {BED_VERSION}")
    n, flags = int(h["n"]), int(h["flags"])
    # version 1: positions and velocities; 2: also angular velocities and radii
    arrays, nvec = (CONTACT_ARRAYS_V1, 2) if version == 1 else (CONTACT_ARRAYS, 3)
    grain_bytes = 12 * nvec + (4 if version > 1 else 0)
    want = BED_HEADER.itemsize + grain_bytes * n + (_contact_bytes(arrays) * n if flags & 1 else 0)
    if n < 0 or flags & ~1 or len(raw) != want:
        raise ValueError(f"{path}: {len(raw)} bytes, the header needs {want}")
    at = BED_HEADER.itemsize
    vec = np.frombuffer(raw, "<f4", count=3 * nvec * n, offset=at).reshape(nvec, n, 3)
    if version > 1:
        spins = vec[2]
        radii = np.frombuffer(raw, "<f4", count=n, offset=at + 36 * n)
    else:
        spins = np.zeros((n, 3), "<f4")
        radii = np.full(n, h["radius"], "<f4")
    contacts = None
    if flags & 1:
        contacts = _contact_views(raw[at + grain_bytes * n:], n, arrays)
    return Bed(float(h["radius"]), vec[0], vec[1], spins, radii, contacts)
