"""Numpy views of a terrain instance's plugin_state: positions, velocities, spins, orientations,
radii, per-body wrenches and the contact state, with no copies.

The layout is plugin/README.md's "plugin_state layout"; the views take it from the loaded library
(mjgranular_state_part), so it is declared once, in plugin/state.h.
"""

import ctypes
import math

import numpy as np

from mjgranular.loader import PLUGIN_NAME, library


def state_part(model, instance, name):
    """(offset, length) in mjtNums of part `name` of terrain instance `instance`'s plugin_state
    block, as the library lays it out: count, version, model, positions, velocities,
    angular_velocities, orientations, radii, types, wrenches, contacts, grain_capacity,
    contact_capacity."""
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
    angular_velocities (n x 3) [rad/s]        orientations (n x 4) unit quaternions w x y z
    radii      (n) [m]; a mesh grain's: of the sphere about its centre of mass that bounds it
    types      (n) index of each grain's type in config key shape (0 for a terrain of spheres)
    wrenches   (nbody x 6) force [N], torque [N m] about each body's xipos, world frame
    state      the instance's whole block; capacity, count; contact_capacity, the grains the
               contact state is laid out for (capacity x the most spheres in one grain)
    Writing into the views writes the state (on the GPU backend too: a step uploads a state whose
    hash changed).
    data is an MjData, or a plugin_state vector: one simulation's row of a mujoco.batch.Batch's
    batch.bind("plugin_state"), whose views follow the simulation as the batch steps it.
    """

    def __init__(self, model, data, instance=0):
        if not 0 <= instance < model.nplugin:
            raise IndexError(f"plugin instance {instance} out of range (nplugin={model.nplugin})")
        adr = int(model.plugin_stateadr[instance])
        num = int(model.plugin_statenum[instance])
        self._data = data  # keeps the buffer alive as long as the views
        plugin_state = data if isinstance(data, np.ndarray) else data.plugin_state
        self.state = plugin_state[adr:adr + num]

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
        self._orient = part("orientations", (self.capacity, 4))
        self._radii = part("radii")
        self._types = part("types")
        self.contact_capacity = state_part(model, instance, "contact_capacity")[1]
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
    def orientations(self):
        """(n x 4) view of the grain orientations: unit quaternions (w, x, y, z), MuJoCo's order,
        body to world; each substep turns a grain by its angular velocity."""
        return self._orient[:self.count]

    @property
    def radii(self):
        """(n) view of the grain radii [m]."""
        return self._radii[:self.count]

    @property
    def types(self):
        """(n) view of the grain types: indices into config key shape, as floats."""
        return self._types[:self.count]

    def forces(self):
        """(nbody x 3) view of the granular forces on the bodies."""
        return self.wrenches[:, :3]

    def torques(self):
        """(nbody x 3) view of the granular torques on the bodies."""
        return self.wrenches[:, 3:]


def grains(model, data, instance=0):
    """The grains of plugin instance `instance` of data (an MjData or a plugin_state vector), as
    numpy views of its plugin_state."""
    return Grains(model, data, instance)
