"""The scenes of the repository's models/ folder, shipped with the package.

    mujoco.MjModel.from_xml_path(mjgranular.scene("sandbox"))

A wheel holds them in mjgranular/models/ (meshes in models/assets/ beside them, where the files
name them); an editable install reads the models/ folder of the checkout it was installed from.
"""

import pathlib

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
_PLACES = (_PACKAGE_DIR / "models", _PACKAGE_DIR.parent.parent / "models")


def models_dir():
    """The folder of the scene files: the package's models/, else the checkout's."""
    for place in _PLACES:
        if place.is_dir():
            return place
    raise FileNotFoundError("no models folder in the mjgranular package "
                            f"({_PLACES[0]}) nor in a checkout ({_PLACES[1]})")


def scenes():
    """The names of the scenes, sorted: the MJCF files of models/ without their .xml."""
    return sorted(p.stem for p in models_dir().glob("*.xml"))


def scene(name):
    """The path (str) of scene `name`'s MJCF file, e.g. scene("sandbox"): models/sandbox.xml.
    ValueError naming the scenes there is when `name` is none of them."""
    known = scenes()
    if name not in known:
        raise ValueError(f"no scene {name!r} in mjgranular; the scenes are: {', '.join(known)}")
    return str(models_dir() / f"{name}.xml")
