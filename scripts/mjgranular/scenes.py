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


def _terrains(spec, instance):
    from mjgranular.loader import PLUGIN_NAME
    found = [p for p in spec.plugins
             if p.plugin_name == PLUGIN_NAME and (instance is None or p.name == instance)]
    if not found:
        raise ValueError(f"the model has no {PLUGIN_NAME} instance"
                         + ("" if instance is None else f" named {instance!r}"))
    return found


def _spec(source):
    import mujoco
    return source.copy() if isinstance(source, mujoco.MjSpec) else mujoco.MjSpec.from_file(
        str(source))


def terrain_config(source, instance=None):
    """The config (key -> value strings) of an MJCF model's (a file path or an MjSpec)
    mjgranular.terrain instance named `instance` (None: the first)."""
    return dict(_terrains(_spec(source), instance)[0].config)


def configured(source, config, instance=None):
    """An MJCF model (a file path or an MjSpec) compiled with these config keys of its
    mjgranular.terrain instance named `instance` (None: every one) replaced or added, e.g.
    configured(scene("push"), {"friction": 0.3}); a bad value is refused by the compile."""
    spec = _spec(source)
    for plugin in _terrains(spec, instance):
        plugin.config = {**plugin.config, **{k: str(v) for k, v in config.items()}}
    return spec.compile()
