"""Finds the plugin library and loads it into mujoco, once per process.

Where the library is (plugin_path): $MJGRANULAR_PLUGIN when set, else the copy inside the
installed package (`pip install` builds it into the wheel), else the build of the checkout the
package was installed from in editable mode (scripts/build.sh writes build/plugin/).

`import mujoco` calls on_import_mujoco, this package's entry point in mujoco's `mujoco.plugins`
group, so a model using mjgranular.terrain loads with no further call. This module imports
mujoco only inside its functions: it runs while `import mujoco` is still under way.
"""

import ctypes
import os
import pathlib

PLUGIN_NAME = "mjgranular.terrain"
LIBRARY_FILE = "libmjgranular.so"

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
# an editable install runs this file from the checkout's scripts/mjgranular/
_CHECKOUT_BUILD = _PACKAGE_DIR.parent.parent / "build" / "plugin" / LIBRARY_FILE

_loaded = None     # the library this process holds, once known
_requested = None  # the path a load_plugin(path) call asks for while it imports mujoco


def plugin_path():
    """The plugin library to load: $MJGRANULAR_PLUGIN, else the package's own copy, else the
    checkout's build/plugin/libmjgranular.so (the path is returned whether it exists or not)."""
    env = os.environ.get("MJGRANULAR_PLUGIN")
    if env:
        return pathlib.Path(env)
    packaged = _PACKAGE_DIR / LIBRARY_FILE
    return packaged if packaged.is_file() else _CHECKOUT_BUILD


class PluginCopyError(RuntimeError):
    """This process has loaded the plugin library from one file and is asked for another."""


def load_plugin(path=None):
    """Loads the plugin library into mujoco once per process and returns its path. One copy per
    process: when mujoco already holds one (loaded on `import mujoco`, from its plugin folder, by
    mj_loadPluginLibrary or by an earlier call), it is used if it is the file asked for (a link
    to it is), and a copy at another path is refused with PluginCopyError naming both files.
    MuJoCo would register the plugin twice, a fatal error that aborts a C host."""
    global _loaded, _requested
    path = pathlib.Path(path) if path is not None else plugin_path()
    if not path.is_file():
        raise FileNotFoundError(
            f"mjgranular plugin not found at {path}: `pip install` builds it into the package; "
            "in a checkout, build it with scripts/build.sh; or set MJGRANULAR_PLUGIN to the file")
    # mujoco's first import runs on_import_mujoco: it loads this path, not plugin_path()
    _requested = path
    try:
        import mujoco
    finally:
        _requested = None
    loaded = _loaded or _already_loaded()
    if loaded is None:
        mujoco.mj_loadPluginLibrary(str(path))
        loaded = path
    elif not os.path.samefile(loaded, path):
        raise PluginCopyError(
            f"this process has loaded {PLUGIN_NAME} from {loaded}; loading the copy at {path} "
            "as well would register it twice, which MuJoCo refuses (a C host aborts). Load one "
            "copy per process: use that one, or start a new process (MJGRANULAR_PLUGIN chooses "
            "the copy `import mujoco` loads; in mujoco's plugin folder, link the library instead "
            "of copying it)")
    _loaded = loaded
    return loaded


def on_import_mujoco():
    """The `mujoco.plugins` entry point, called at the end of `import mujoco`: makes
    mjgranular.terrain available. A copy mujoco already holds (its plugin folder) is kept; else
    plugin_path(), or the path of the load_plugin call importing mujoco, is loaded when it
    exists. An editable install not yet built has no library: nothing is loaded then, and
    load_plugin() says what is missing. A MJGRANULAR_PLUGIN that names no file raises, which
    mujoco reports as a warning naming this entry point."""
    global _loaded
    _loaded = _loaded or _already_loaded()
    if _loaded is not None:
        return
    path = _requested or plugin_path()
    if path.is_file() or os.environ.get("MJGRANULAR_PLUGIN"):
        load_plugin(path)


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
    mjgranular_grid_builds(),
    mjgranular_radius(model, instance), mjgranular_timestep(model, instance),
    mjgranular_grain_types(model, data, instance, ...), and the plugin_state and contact-state
    layouts."""
    global _loaded
    if _loaded is None:
        _loaded = _already_loaded()
    if _loaded is None:
        load_plugin()
    lib = ctypes.CDLL(str(_loaded), mode=os.RTLD_NOLOAD | os.RTLD_NOW)
    ll, c_int, ptr = ctypes.c_longlong, ctypes.c_int, ctypes.POINTER
    lib.mjgranular_settle_runs.restype = ll
    lib.mjgranular_settle_runs.argtypes = []
    lib.mjgranular_grid_builds.restype = ll
    lib.mjgranular_grid_builds.argtypes = []
    lib.mjgranular_radius.restype = ctypes.c_double
    lib.mjgranular_radius.argtypes = [ctypes.c_void_p, c_int]
    lib.mjgranular_timestep.restype = ctypes.c_double
    lib.mjgranular_timestep.argtypes = [ctypes.c_void_p, c_int]
    lib.mjgranular_state_part.restype = c_int
    lib.mjgranular_state_part.argtypes = [ctypes.c_void_p, c_int, ctypes.c_char_p, ptr(ll), ptr(ll)]
    lib.mjgranular_state_version.restype = c_int
    lib.mjgranular_fill_count.restype = ctypes.c_double
    lib.mjgranular_fill_count.argtypes = [ctypes.c_void_p, c_int, ptr(ctypes.c_double)]
    lib.mjgranular_grain_types.restype = c_int
    lib.mjgranular_grain_types.argtypes = [ctypes.c_void_p, ctypes.c_void_p, c_int, ptr(c_int),
                                           ptr(ctypes.c_ulonglong), ptr(ctypes.c_double)]
    lib.mjgranular_contact_array.restype = c_int
    lib.mjgranular_contact_array.argtypes = [c_int, c_int, ptr(ctypes.c_char_p), ptr(ll),
                                             ptr(c_int), ptr(c_int), ptr(c_int)]
    return lib
