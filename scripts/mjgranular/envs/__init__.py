"""Gymnasium environments on the scenes; registered when mjgranular is imported with gymnasium
installed:

    gymnasium.make("mjgranular/Bulldozer-v0", grains=2000)
    gymnasium.make_vec("mjgranular/Bulldozer-v0", num_envs=8, grains=2000)   # one Batch
    gymnasium.make_vec("mjgranular/Bulldozer-v0", num_envs=4, vectorization_mode="async")

make_vec's default, vectorization_mode "vector_entry_point", makes the environment's vector
class: its num_envs simulations in one mujoco.batch.Batch (BulldozerBatch); "sync" and "async"
make num_envs single environments in this process or in one process each.

Entry points are module paths, so registering imports no environment, and a process that
makes one (an async vector env's worker too) imports its module, which loads the plugin.
"""

ENVIRONMENTS = {
    "mjgranular/Bulldozer-v0": {
        "entry_point": "mjgranular.envs.bulldozer:BulldozerEnv",
        "vector_entry_point": "mjgranular.envs.bulldozer_batch:BulldozerBatch",
    },
}


def register():
    """Registers ENVIRONMENTS with gymnasium, once (an id already there is left as it is)."""
    import gymnasium
    for env_id, entry_points in ENVIRONMENTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, **entry_points)
