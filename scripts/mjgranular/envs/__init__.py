"""Gymnasium environments on the scenes; registered when mjgranular is imported with gymnasium
installed:

    gymnasium.make("mjgranular/Bulldozer-v0", grains=2000)
    gymnasium.make_vec("mjgranular/Bulldozer-v0", num_envs=4, vectorization_mode="async")

Entry points are module paths, so registering imports no environment, and a process that
makes one (an async vector env's worker too) imports its module, which loads the plugin.
"""

ENVIRONMENTS = {
    "mjgranular/Bulldozer-v0": "mjgranular.envs.bulldozer:BulldozerEnv",
}


def register():
    """Registers ENVIRONMENTS with gymnasium, once (an id already there is left as it is)."""
    import gymnasium
    for env_id, entry_point in ENVIRONMENTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)
