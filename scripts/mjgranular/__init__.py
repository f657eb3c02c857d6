"""mjgranular from Python: granular terrain for MuJoCo, the plugin and the grains as numpy views.

    import mujoco, mjgranular                   # import mujoco alone loads the plugin
    m = mujoco.MjModel.from_xml_path(mjgranular.scene("sandbox"))
    d = mujoco.MjData(m)
    g = mjgranular.grains(m, d)                 # views into d.plugin_state, no copies
    mujoco.mj_step(m, d)
    print(g.count, g.positions[:, 2].max())     # the views follow the state as it steps

A bed saved from a run starts later models (config key bed_file, format in plugin/README.md):

    mjgranular.save_bed("bed.mjgbed", m, d)     # grains, velocities and contacts of d
    bed = mjgranular.load_bed("bed.mjgbed")     # Bed(radius, positions, velocities, ...)

A model with other terrain config values: mjgranular.configured(path, {"friction": 0.3}).

Modules: loader (finding and loading the library), state (plugin_state views), bedfile, scenes
(models/ as package data, configured variants), envs (Gymnasium), distributed (Ray), render
(`python -m mjgranular.render`), viewer (`python -m mjgranular.viewer`), cem (fitting
configuration-space contact fields of grain pairs, `python -m mjgranular.cem`; with mesh_sdf,
cem_net, cem_accuracy).
"""

import importlib.util
import warnings

from mjgranular.bedfile import Bed, load_bed, save_bed
from mjgranular.loader import PLUGIN_NAME, PluginCopyError, library, load_plugin, plugin_path
from mjgranular.scenes import configured, models_dir, scene, scenes, terrain_config
from mjgranular.state import (Grains, contact_arrays, fill_count, grain_types, grains, radius,
                              state_part, substeps, timestep)

__all__ = ["Bed", "Grains", "PLUGIN_NAME", "PluginCopyError", "configured", "contact_arrays",
           "fill_count", "grain_types", "grains", "library", "load_bed", "load_plugin",
           "models_dir", "plugin_path", "radius", "save_bed", "scene", "scenes", "state_part",
           "substeps", "terrain_config", "timestep"]

# the environments are registered whenever gymnasium is there to take them; a gymnasium that
# fails to import must not keep `import mujoco` (this package's entry point) from the plugin
if importlib.util.find_spec("gymnasium") is not None:
    try:
        from mjgranular import envs
        envs.register()
    except Exception as err:  # noqa: BLE001
        warnings.warn(f"mjgranular: gymnasium environments not registered: {err!r}",
                      RuntimeWarning)
