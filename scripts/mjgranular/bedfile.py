"""Bed files: the grains of a run saved for the bed_file config key of later models (format in
plugin/README.md)."""

import collections
import pathlib

import numpy as np

from mjgranular.state import contact_arrays, grain_types, grains, radius

# bed files (plugin/bedfile.h): header, then float32 positions, velocities, angular velocities,
# orientations and radii, uint32 grain types, then optionally the contact state laid out for
# capacity n s (s solver spheres per grain). Version 3: a shorter header (s = 1, one type), no
# types; version 2: no orientations either; version 1: positions and velocities, and the contact
# arrays before pair_rot
BED_MAGIC = b"MJGBED\0\0"
BED_VERSION = 4
BED_HEADER_V3 = np.dtype([("magic", "S8"), ("version", "<u4"), ("flags", "<u4"), ("n", "<i4"),
                          ("model", "<u4"), ("radius", "<f8")])
BED_HEADER = np.dtype(BED_HEADER_V3.descr + [("spheres", "<u4"), ("ntype", "<u4"),
                                              ("fingerprint", "<u8")])
BED_V1_CONTACT_ARRAYS = 6


def _contact_bytes(arrays):
    """Bytes per grain of these contact-state arrays."""
    return sum(4 * slots * width for _, slots, width, _ in arrays)


Bed = collections.namedtuple(
    "Bed", "radius positions velocities angular_velocities orientations radii contacts model "
           "types spheres ntype fingerprint")
Bed.__doc__ = """A bed file's content: radius [m] (key radius), positions, velocities and angular
velocities (n x 3, float32; a version 1 file's spins are zero), orientations (n x 4, float32,
unit quaternions w x y z; a version 1 or 2 file's are the identity), radii (n, float32; a
version 1 file's are all `radius`), contacts (dict of the contact-state arrays, laid out for
capacity n spheres, slot k of solver grain i at [k, i]) or None, model (the contact model the
contacts belong to: 0 projected jacobi, 1 dem; a model of the other kind loading the file drops
them), types (n, uint32; before version 4 zeros), spheres (solver spheres per grain), ntype and
fingerprint (the grain types' count and fingerprint; spheres: 1 and 0)."""


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
    orientations, radii, grain types (and the types' fingerprint: a bed loads only into a
    terrain of the same types) and, unless contacts=False, the contact state (so the bed
    continues as this run would have). Values are the state's floats, so a model loading the file
    starts from exactly these grains."""
    g = grains(model, data, instance)
    n, spheres = g.count, g.contact_capacity // g.capacity
    header = np.zeros((), BED_HEADER)
    header["magic"], header["version"] = BED_MAGIC, BED_VERSION
    header["flags"], header["n"], header["radius"] = int(bool(contacts)), n, radius(model, instance)
    header["model"], header["spheres"] = g.model, spheres
    header["ntype"], header["fingerprint"], _ = grain_types(model, data, instance)
    parts = [header.tobytes(), g.positions.astype("<f4").tobytes(),
             g.velocities.astype("<f4").tobytes(), g.angular_velocities.astype("<f4").tobytes(),
             g.orientations.astype("<f4").tobytes(), g.radii.astype("<f4").tobytes(),
             g.types.astype("<u4").tobytes()]
    if contacts:
        raw = np.ascontiguousarray(g.contacts).tobytes()
        for name, a in _contact_views(raw, g.contact_capacity, contact_arrays()).items():
            parts.append(np.ascontiguousarray(a[:, :n * spheres]).tobytes())
    pathlib.Path(path).write_bytes(b"".join(parts))


def load_bed(path):
    """Reads a bed file (as save_bed writes it) into a Bed; ValueError when it is not one."""
    raw = pathlib.Path(path).read_bytes()
    if len(raw) < BED_HEADER_V3.itemsize or raw[:8] != BED_MAGIC:
        raise ValueError(f"{path}: not a bed file")
    version = int(np.frombuffer(raw, BED_HEADER_V3, count=1)[0]["version"])
    if not 1 <= version <= BED_VERSION:
        raise ValueError(f"{path}: format version {version}, expected 1 to {BED_VERSION}")
    header = BED_HEADER if version > 3 else BED_HEADER_V3
    if len(raw) < header.itemsize:
        raise ValueError(f"{path}: {len(raw)} bytes, shorter than its header")
    h = np.frombuffer(raw, header, count=1)[0]
    n, flags = int(h["n"]), int(h["flags"])
    spheres, ntype, fingerprint = ((int(h["spheres"]), int(h["ntype"]), int(h["fingerprint"]))
                                   if version > 3 else (1, 1, 0))
    # version 1: positions and velocities; 2: also angular velocities and radii; 3: orientations;
    # 4: types
    arrays = contact_arrays()
    arrays, nvec = (arrays[:BED_V1_CONTACT_ARRAYS], 2) if version == 1 else (arrays, 3)
    nquat = 1 if version > 2 else 0
    grain_bytes = 12 * nvec + 16 * nquat + (4 if version > 1 else 0) + (4 if version > 3 else 0)
    contact_bytes = _contact_bytes(arrays) * n * spheres if flags & 1 else 0
    want = header.itemsize + grain_bytes * n + contact_bytes
    if n < 0 or flags & ~1 or len(raw) != want:
        raise ValueError(f"{path}: {len(raw)} bytes, the header needs {want}")
    if int(h["model"]) not in (0, 1):
        raise ValueError(f"{path}: unknown contact model {int(h['model'])}")
    at = header.itemsize
    vec = np.frombuffer(raw, "<f4", count=3 * nvec * n, offset=at).reshape(nvec, n, 3)
    at += 12 * nvec * n
    if nquat:
        orientations = np.frombuffer(raw, "<f4", count=4 * n, offset=at).reshape(n, 4)
        at += 16 * n
    else:
        orientations = np.tile(np.array([1, 0, 0, 0], "<f4"), (n, 1))
    if version > 1:
        spins = vec[2]
        radii = np.frombuffer(raw, "<f4", count=n, offset=at)
        at += 4 * n
    else:
        spins = np.zeros((n, 3), "<f4")
        radii = np.full(n, h["radius"], "<f4")
    types = (np.frombuffer(raw, "<u4", count=n, offset=at) if version > 3
             else np.zeros(n, "<u4"))
    contacts = None
    if flags & 1:
        contacts = _contact_views(raw[header.itemsize + grain_bytes * n:], n * spheres, arrays)
    return Bed(float(h["radius"]), vec[0], vec[1], spins, orientations, radii, contacts,
               int(h["model"]), types, spheres, ntype, fingerprint)
