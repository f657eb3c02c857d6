"""Rollouts and parameter sweeps of granular scenes on a Ray cluster.

    import mujoco, mjgranular.distributed as dist
    dist.connect("local", num_cpus=2)              # or "auto", or a cluster's "host:port"
    pool = dist.RolloutPool(model, workers=2)      # a Ray actor per worker
    out = pool.rollout(states, controls, record=("sensordata",))
    out["state"]        # (n, nstate) the final mjSTATE_INTEGRATION rows
    out["sensordata"]   # (n, nstep, nsensordata), recorded after each mj_step
    sweeps = pool.sweep(mjgranular.scene("push"), [{"friction": "0.3"}, {"friction": "0.9"}],
                        nstep=250, record=("actuator_force",))

Each worker is a Ray actor: a process that loads the plugin (`import mujoco` does, through the
package's entry point, so every node needs the package installed), receives each model once
(pickled MjModel, kept by its digest) and runs its share of the rollouts in its own
mujoco.batch.Batch of `nthread` threads. A rollout is the Batch's: a start state
(mjSTATE_INTEGRATION row, plugin_state and so the grains included), controls before each step,
records after each step, the state it ends in. Batch steps each simulation bit for bit as one
MjData stepped alone, so the results do not depend on the cluster, the number of workers or how
the rollouts are cut into chunks: they are the numbers run_local() gives in this process.

A worker process that dies (killed, out of memory, its node lost) is restarted by Ray and its
pending chunks run again there (actor restarts and task retries); a worker that cannot be
restarted any more has its chunks run by the others. A Python error in a rollout (MuJoCo's
SimulationError, a bad model) is no failure of the worker: it is raised here, not retried.
"""

import hashlib
import os
import pickle

import numpy as np

import mujoco
import mujoco.batch

INTEGRATION = mujoco.mjtState.mjSTATE_INTEGRATION


def connect(address=None, num_cpus=None):
    """Connects this process to Ray once: address "local" (or None with no cluster running)
    starts a local instance of num_cpus CPUs; "auto" joins the cluster this machine is part of
    (`ray start --head` / `ray start --address`); "host:port" or "ray://host:port" a given one.
    A process already connected stays with its cluster. Returns the cluster's resources."""
    ray = _ray()
    if not ray.is_initialized():
        local = address in (None, "local")
        ray.init(address=None if local else address, num_cpus=num_cpus if local else None,
                 include_dashboard=False, configure_logging=False, log_to_driver=True)
    return ray.cluster_resources()


def _ray():
    try:
        import ray
    except ImportError as err:
        raise ImportError("mjgranular.distributed needs Ray: pip install "
                          "'mjgranular[distributed]' (or ray)") from err
    return ray


def run_local(model, states=None, controls=None, nstep=None, record=(), spec=INTEGRATION,
              nthread=1, _batches=None):
    """The rollouts of RolloutPool.rollout run in this process in one mujoco.batch.Batch of
    nthread threads; the workers run their chunks with this same function."""
    controls = None if controls is None else np.asarray(controls, dtype=np.float64)
    if controls is not None:
        if controls.ndim != 3 or controls.shape[2] != model.nu:
            raise ValueError(f"controls must be (n, nstep, nu={model.nu}), got {controls.shape}")
        if nstep is not None and nstep != controls.shape[1]:
            raise ValueError(f"nstep {nstep} and controls of {controls.shape[1]} steps disagree")
        nstep = controls.shape[1]
    if nstep is None or nstep < 0:
        raise ValueError("give controls, or nstep >= 0 to step with the states' own controls")
    rows = None if states is None else _integration_rows(model, states, spec)
    n = len(rows) if rows is not None else (len(controls) if controls is not None else 1)
    if rows is not None and controls is not None and len(controls) != n:
        raise ValueError(f"{n} states but {len(controls)} control sequences")
    batches = {} if _batches is None else _batches
    batch = batches.get(n)
    if batch is None:
        batch = batches[n] = mujoco.batch.Batch(model, n, nthread=nthread)
    if rows is None:  # the model's own start, as a new MjData holds it
        batch.reset(stage=mujoco.mjtStage.mjSTAGE_NONE)
    else:
        batch.state[:] = rows
    out = batch.rollout(nstep, control=controls, record=tuple(record)) if nstep else {}
    out["state"] = np.array(batch.state)
    return out


def _integration_rows(model, states, spec):
    """(n, nstate) mjSTATE_INTEGRATION rows of states given as rows of spec; the components
    spec leaves out take the values of a reset MjData."""
    states = np.atleast_2d(np.asarray(states, dtype=np.float64))
    size = mujoco.mj_stateSize(model, int(spec))
    if states.shape[1] != size:
        raise ValueError(f"states must have mj_stateSize(model, {int(spec)}) = {size} columns, "
                         f"got {states.shape[1]}")
    if int(spec) == int(INTEGRATION):
        return states
    data = mujoco.MjData(model)
    rows = np.empty((len(states), mujoco.mj_stateSize(model, INTEGRATION)))
    for row, state in zip(rows, states):
        mujoco.mj_resetData(model, data)
        mujoco.mj_setState(model, data, state, int(spec))
        mujoco.mj_getState(model, data, row, INTEGRATION)
    return rows


def variant_models(source, variants, instance=None):
    """One compiled MjModel per variant of an MJCF model (a file path or an MjSpec): a variant
    maps terrain config keys to values ({"friction": 0.3, "density": 1600}) that replace or add
    to the config of the mjgranular.terrain instance named `instance` (None: every one)."""
    from mjgranular.scenes import configured
    models = []
    for variant in variants:
        try:
            models.append(configured(source, variant, instance))
        except ValueError as err:
            raise ValueError(f"variant {len(models)} {variant}: {err}") from err
    return models


class _Worker:
    """A Ray actor's state: the plugin loaded, the models it was given, a Batch per model and
    number of simulations."""

    def __init__(self, nthread):
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # read when the plugin loads libgomp
        import mjgranular
        mjgranular.load_plugin()
        self.nthread = nthread
        self.models = {}   # digest -> MjModel
        self.batches = {}  # digest -> {nsim: Batch}

    def pid(self):
        return os.getpid()

    def run(self, digest, model_box, states, controls, nstep, record, spec):
        ray = _ray()
        if digest not in self.models:  # model_box holds the ObjectRef, unresolved until needed
            self.models[digest] = pickle.loads(ray.get(model_box[0]))
            self.batches[digest] = {}
        return run_local(self.models[digest], states, controls, nstep, record, spec,
                         self.nthread, self.batches[digest])


class RolloutPool:
    """Ray actors that run rollouts of models in Batches (see the module docstring).

    model: the MjModel rollout() runs by default; workers: actors (None: the cluster's CPUs /
    nthread); nthread: threads of each worker's Batch, and the CPUs it reserves; restarts: how
    often Ray restarts a dead worker and retries its pending chunks."""

    def __init__(self, model=None, workers=None, nthread=1, restarts=3):
        ray = _ray()
        connect()
        if workers is None:
            workers = max(1, int(ray.cluster_resources().get("CPU", 1) // nthread))
        if workers < 1 or nthread < 1:
            raise ValueError(f"workers {workers} and nthread {nthread} must be at least 1")
        actor = ray.remote(num_cpus=nthread, max_restarts=restarts,
                           max_task_retries=restarts)(_Worker)
        self.nthread = nthread
        self.workers = [actor.remote(nthread) for _ in range(workers)]
        self.model = model
        self._refs = {}  # digest -> ObjectRef of the pickled model

    def pids(self):
        """The workers' process ids."""
        ray = _ray()
        return ray.get([w.pid.remote() for w in self.workers])

    def close(self):
        """Ends the workers' processes."""
        ray = _ray()
        for w in self.workers:
            ray.kill(w)
        self.workers = []

    def _box(self, model):
        blob = pickle.dumps(model)
        digest = hashlib.sha256(blob).hexdigest()
        if digest not in self._refs:
            ray = _ray()
            self._refs[digest] = ray.put(blob)
        return digest, [self._refs[digest]]

    def rollout(self, states=None, controls=None, nstep=None, record=(), model=None,
                spec=INTEGRATION, chunk=None):
        """Runs n rollouts of model (default: the pool's) on the workers and returns what
        run_local() returns: {"state": (n, nstate) final INTEGRATION rows, item: (n, nstep, ...)
        for each record item}. states: (n, mj_stateSize(model, spec)) start rows, one row for
        all, or None for the model's start; controls: (n, nstep, nu) ctrl before each step, one
        sequence for all, or None (then nstep steps with each state's own ctrl); chunk: rollouts
        per worker call (default: n spread evenly over the workers)."""
        return self.rollouts([(model, states, controls)], nstep, record, spec, chunk)[0]

    def sweep(self, source, variants, states=None, controls=None, nstep=None, record=(),
              instance=None):
        """One rollout() per variant of an MJCF model (variant_models()), all on the workers at
        once; a list of their results in the variants' order. states (rows of each variant's
        INTEGRATION state) may be None: each variant starts as a new MjData of it would."""
        models = variant_models(source, variants, instance)
        return self.rollouts([(m, states, controls) for m in models], nstep, record)

    def rollouts(self, jobs, nstep=None, record=(), spec=INTEGRATION, chunk=None):
        """Several rollout() calls, (model, states, controls) each, run on the workers together;
        their results in order."""
        ray = _ray()
        if not self.workers:
            raise RuntimeError("the pool is closed")
        pieces = []  # (job, start, stop, digest, box, states, controls)
        for j, (model, states, controls) in enumerate(jobs):
            model = self.model if model is None else model
            if model is None:
                raise ValueError("no model: give one here or to RolloutPool")
            states = None if states is None else np.atleast_2d(np.asarray(states, np.float64))
            controls = None if controls is None else np.asarray(controls, np.float64)
            given = [x for x in (states, controls) if x is not None]
            n = max((len(x) for x in given), default=1)
            # one start, or one control sequence, serves every rollout
            if states is not None and len(states) == 1:
                states = np.repeat(states, n, axis=0)
            if controls is not None and len(controls) == 1:
                controls = np.repeat(controls, n, axis=0)
            if states is not None and controls is not None and len(states) != len(controls):
                raise ValueError(f"{len(states)} states but {len(controls)} control sequences")
            if chunk is not None and chunk < 1:
                raise ValueError(f"chunk {chunk} must be at least 1")
            size = chunk or -(-n // len(self.workers))
            digest, box = self._box(model)
            for start in range(0, n, size):
                stop = min(n, start + size)
                pieces.append((j, start, stop, digest, box,
                               None if states is None else states[start:stop],
                               None if controls is None else controls[start:stop]))
        results = self._run(pieces, nstep, tuple(record), spec)
        out = []
        for j in range(len(jobs)):
            mine = [r for p, r in zip(pieces, results) if p[0] == j]
            out.append({k: np.concatenate([r[k] for r in mine]) for k in mine[0]})
        return out

    def _run(self, pieces, nstep, record, spec):
        """Each piece's result; a piece whose worker died for good goes to a live worker."""
        ray = _ray()
        from ray.exceptions import RayActorError
        live = list(self.workers)
        pending = {}
        for i, piece in enumerate(pieces):
            pending[i] = self._submit(live[i % len(live)], piece, nstep, record, spec)
        results = [None] * len(pieces)
        while pending:
            for i, (worker, ref) in list(pending.items()):
                try:
                    results[i] = ray.get(ref)
                    del pending[i]
                except RayActorError:
                    if worker in live:
                        live.remove(worker)
                    if not live:
                        raise RuntimeError("every worker of the pool died") from None
                    pending[i] = self._submit(live[i % len(live)], pieces[i], nstep, record,
                                              spec)
        self.workers = live
        return results

    @staticmethod
    def _submit(worker, piece, nstep, record, spec):
        _, _, _, digest, box, states, controls = piece
        return worker, worker.run.remote(digest, box, states, controls, nstep, record, int(spec))
