"""mjgranular from Python: load the plugin into mujoco, read the grains as numpy views.

    import sys; sys.path.insert(0, "scripts")
    import mujoco, mjgranular
    mjgranular.load_plugin()                    # once per process, before loading a model
    m = mujoco.MjModel.from_xml_path("models/sandbox.xml")
    d = mujoco.MjData(m)
    g = mjgranular.grains(m, d)                 # views into d.plugin_state, no copies
    mujoco.mj_step(m, d)
    print(g.count, g.positions[:, 2].max())     # the views follow the state as it steps

The layout is plugin/README.md's "plugin_state layout" (header, positions, velocities, angular
velocities, radii, per-body wrenches, contact state); the views take it from the loaded library
(mjgranular_state_part), so it is declared once, in plugin/state.h.

A bed saved from a run starts later models (config key bed_file, format in plugin/README.md):

    mjgranular.save_bed("bed.mjgbed", m, d)     # grains, velocities and contacts of d
    bed = mjgranular.load_bed("bed.mjgbed")     # Bed(radius, positions, velocities, ...)
"""

import collections
import ctypes
import math
import os
import pathlib

import numpy as np

import mujoco

PLUGIN_NAME = "mjgranular.terrain"

# bed files (plugin/bedfile.h): header, then float32 positions, velocities, angular velocities
# and radii, then optionally the contact state laid out for capacity n (version 1: positions
# and velocities, and the contact arrays before pair_rot)
BED_MAGIC = b"MJGBED\0\0"
BED_VERSION = 2
BED_HEADER = np.dtype([("magic", "S8"), ("version", "<u4"), ("flags", "<u4"), ("n", "<i4"),
                       ("model", "<u4"), ("radius", "<f8")])
BED_V1_CONTACT_ARRAYS = 6

_loaded = None


def plugin_path():
    """The plugin library: $MJGRANULAR_PLUGIN, else build/plugin/libmjgranular.so."""
    env = os.environ.get("MJGRANULAR_PLUGIN")
    if env:
        return pathlib.Path(env)
    return pathlib.Path(__file__).resolve().parent.parent / "build" / "plugin" / "libmjgranular.so"


class PluginCopyError(RuntimeError):
    """This process has loaded the plugin library from one file and is asked for another."""


def load_plugin(path=None):
    """Loads the plugin library into mujoco once per process and returns its path. One copy per
    process: when mujoco already holds one (loaded from its plugin folder, by
    mj_loadPluginLibrary or by an earlier call), it is used if it is the file asked for (a link
    to it is), and a copy at another path is refused with PluginCopyError naming both files.
    MuJoCo would register the plugin twice, a fatal error that aborts a C host."""
    global _loaded
    path = pathlib.Path(path) if path is not None else plugin_path()
    if not path.is_file():
        raise FileNotFoundError(
            f"mjgranular plugin not found at {path}: build it with scripts/build.sh "
            "or set MJGRANULAR_PLUGIN")
    loaded = _loaded or _already_loaded()
    if loaded is None:
        mujoco.mj_loadPluginLibrary(str(path))
        loaded = path
    elif not os.path.samefile(loaded, path):
        raise PluginCopyError(
            f"this process has loaded {PLUGIN_NAME} from {loaded}; loading the copy at {path} "
            "as well would register it twice, which MuJoCo refuses (a C host aborts). Load one "
            "copy per process: use that one, or start a new process (in mujoco's plugin folder, "
            "link the library instead of copying it)")
    _loaded = loaded
    return loaded


def _already_loaded():
    """The path of the plugin library this process has loaded, whatever its file name (found by
    a symbol it exports among the shared objects mapped into the process), or None."""
    try:
        maps = pathlib.Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return None
    seen = set()
    for line in maps:
        fields = line.split(None, 5)
        if len(fields) < 6 or ".so" not in fields[5] or fields[5] in seen:
            continue
        seen.add(fields[5])
        try:
            lib = ctypes.CDLL(fields[5], mode=os.RTLD_NOLOAD | os.RTLD_NOW)
        except OSError:
            continue  # not loaded as a library (a deleted file, a data file)
        if hasattr(lib, "mjgranular_state_version"):
            return pathlib.Path(fields[5])
    return None


def library():
    """The plugin library as a ctypes handle, the copy this process has loaded (loaded by
    load_plugin when there is none; never a second copy): mjgranular_settle_runs(),
    mjgranular_radius(model, instance), mjgranular_timestep(model, instance), and the
    plugin_state and contact-state layouts."""
    global _loaded
    if _loaded is None:
        _loaded = _already_loaded()
    if _loaded is None:
        load_plugin()
    lib = ctypes.CDLL(str(_loaded), mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    ll, c_int, ptr = ctypes.c_longlong, ctypes.c_int, ctypes.POINTER
    lib.mjgranular_settle_runs.restype = ll
    lib.mjgranular_settle_runs.argtypes = []
    lib.mjgranular_radius.restype = ctypes.c_double
    lib.mjgranular_radius.argtypes = [ctypes.c_void_p, c_int]
    lib.mjgranular_timestep.restype = ctypes.c_double
    lib.mjgranular_timestep.argtypes = [ctypes.c_void_p, c_int]
    lib.mjgranular_state_part.restype = c_int
    lib.mjgranular_state_part.argtypes = [ctypes.c_void_p, c_int, ctypes.c_char_p, ptr(ll), ptr(ll)]
    lib.mjgranular_state_version.restype = c_int
    lib.mjgranular_contact_array.restype = c_int
    lib.mjgranular_contact_array.argtypes = [c_int, c_int, ptr(ctypes.c_char_p), ptr(ll),
                                             ptr(c_int), ptr(c_int), ptr(c_int)]
    return lib


def state_part(model, instance, name):
    """(offset, length) in mjtNums of part `name` of terrain instance `instance`'s plugin_state
    block, as the library lays it out: count, version, model, positions, velocities,
    angular_velocities, radii, wrenches, contacts, grain_capacity."""
    offset, length = ctypes.c_longlong(), ctypes.c_longlong()
    if library().mjgranular_state_part(model._address, instance, name.encode(),
                                       ctypes.byref(offset), ctypes.byref(length)):
        raise ValueError(f"plugin instance {instance} is not a valid {PLUGIN_NAME} instance, "
                         f"or {name!r} is no part of its state")
    return offset.value, length.value


def contact_arrays():
    """The contact state's arrays in saved order, from the library: (name, slots per grain,
    4-byte numbers per slot, numpy type)."""
    lib, out, index = library(), [], 0
    name, offset = ctypes.c_char_p(), ctypes.c_longlong()
    slots, width, is_float = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    while lib.mjgranular_contact_array(index, 1, ctypes.byref(name), ctypes.byref(offset),
                                       ctypes.byref(slots), ctypes.byref(width),
                                       ctypes.byref(is_float)) == 0:
        out.append((name.value.decode(), slots.value, width.value,
                    "<f4" if is_float.value else "<i4"))
        index += 1
    return tuple(out)


def _contact_bytes(arrays):
    """Bytes per grain of these contact-state arrays."""
    return sum(4 * slots * width for _, slots, width, _ in arrays)


def substeps(model, substep):
    """Granular substeps per mj_step of `model` at a substep of at most `substep` [s], counted as
    the plugin counts them (plugin/input_limits.c, mjg_step_count)."""
    return max(1, math.ceil(model.opt.timestep / substep * (1 - 1e-9)))


def radius(model, instance=0):
    """Grain radius [m] of terrain instance `instance`, from its config as the plugin reads it."""
    r = library().mjgranular_radius(model._address, instance)
    if r <= 0:
        raise ValueError(f"plugin instance {instance} is not a valid {PLUGIN_NAME} instance")
    return r


def timestep(model, instance=0):
    """The longest granular substep [s] of terrain instance `instance`: key timestep, or with
    model dem the default share of the grains' contact time (each mj_step takes the fewest equal
    substeps no longer than it)."""
    dt = library().mjgranular_timestep(model._address, instance)
    if dt <= 0:
        raise ValueError(f"plugin instance {instance} is not a valid {PLUGIN_NAME} instance")
    return dt


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
        self._data = data  # keeps the buffer alive as long as the views
        self.state = data.plugin_state[adr:adr + num]

        def part(name, shape=None):
            at, length = state_part(model, instance, name)
            if at + length > num:
                raise ValueError(f"plugin instance {instance} has a state of {num} numbers, "
                                 "not the layout of the loaded mjgranular library")
            view = self.state[at:at + length]
            return view.reshape(shape) if shape else view

        self.capacity = state_part(model, instance, "grain_capacity")[1]
        self.nbody = int(model.nbody)
        self._pos = part("positions", (self.capacity, 3))
        self._vel = part("velocities", (self.capacity, 3))
        self._angvel = part("angular_velocities", (self.capacity, 3))
        self._radii = part("radii")
        self.wrenches = part("wrenches", (self.nbody, 6))
        self.contacts = part("contacts")
        self._model = part("model")
        version = library().mjgranular_state_version()
        if self.capacity and int(self.state[2]) not in (0, version):
            raise ValueError(f"plugin_state layout version {self.state[2]}, expected {version}")

    @property
    def count(self):
        """Grains in use, n."""
        return int(self.state[0])

    @property
    def model(self):
        """Contact model of the contact state: 0 projected jacobi, 1 dem (config key model)."""
        return int(self._model[0])

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


Bed = collections.namedtuple(
    "Bed", "radius positions velocities angular_velocities radii contacts model")
Bed.__doc__ = """A bed file's content: radius [m] (the largest), positions, velocities and angular
velocities (n x 3, float32; a version 1 file's spins are zero), radii (n, float32; a version 1
file's are all `radius`), contacts (dict of the contact-state arrays, laid out for capacity n,
slot k of grain i at [k, i]) or None, model (the contact model the contacts belong to: 0
projected jacobi, 1 dem; a model of the other kind loading the file drops them)."""


def _contact_views(raw, cap, arrays):
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
    header["model"] = g.model
    parts = [header.tobytes(), g.positions.astype("<f4").tobytes(),
             g.velocities.astype("<f4").tobytes(), g.angular_velocities.astype("<f4").tobytes(),
             g.radii.astype("<f4").tobytes()]
    if contacts:
        raw = np.ascontiguousarray(g.contacts).tobytes()
        for name, a in _contact_views(raw, g.capacity, contact_arrays()).items():
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
    arrays = contact_arrays()
    arrays, nvec = (arrays[:BED_V1_CONTACT_ARRAYS], 2) if version == 1 else (arrays, 3)
    grain_bytes = 12 * nvec + (4 if version > 1 else 0)
    want = BED_HEADER.itemsize + grain_bytes * n + (_contact_bytes(arrays) * n if flags & 1 else 0)
    if n < 0 or flags & ~1 or len(raw) != want:
        raise ValueError(f"{path}: {len(raw)} bytes, the header needs {want}")
    if int(h["model"]) not in (0, 1):
        raise ValueError(f"{path}: unknown contact model {int(h['model'])}")
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
    return Bed(float(h["radius"]), vec[0], vec[1], spins, radii, contacts, int(h["model"]))
