"""`--backend ray`: each episode of a condition is one Ray task.

A task runs `run_episode` for one seed and writes the episode's files straight
into the run directory, which every node must therefore see at the same path
(a shared filesystem); nothing is shipped back but the summary, and the
driver checks that the files arrived. Ray is an optional dependency.
"""

from __future__ import annotations

import logging

from ..policies.policy_source import PolicySpec
from .backends import EpisodeTask, Finished, WorkerLost, lost_message, portable, run_task, with_remote_traceback
from .progress import ProgressReporter
from .rundir import RunDir
from .settings import EvalSettings


class RayUnavailable(RuntimeError):
    pass


def import_ray():
    try:
        import ray
    except ImportError:
        raise RayUnavailable('--backend ray needs Ray: pip install "humanoidtoolbench[ray]"') from None
    return ray


class RayBackend:
    """Connects to `address` (or starts a local Ray instance, stopped by `close`);
    at most `workers` tasks run at once (default: the cluster's CPUs), and
    task k of those in flight talks to policy server slot k.
    """

    name = "ray"

    def __init__(self, spec: PolicySpec, address: str | None = None, workers: int | None = None) -> None:
        self.spec, self.address, self.workers = spec.for_workers(), address, workers
        self._ray = import_ray()
        self._started = False
        self._used: int | None = None  # concurrent tasks in the last run

    def _connect(self):
        ray = self._ray
        if not ray.is_initialized():
            local = {} if self.address else {"num_cpus": self.workers, "include_dashboard": False}
            ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING, **local)
            self._started = True
        return ray

    def _slots(self, episodes: int) -> int:
        cpus = int(self._connect().cluster_resources().get("CPU", 1))
        return max(1, min(self.workers or cpus, episodes))

    def execution(self, episodes: int) -> dict:
        return {"backend": self.name, "workers": self._used or self.workers}

    def run(self, settings: EvalSettings, run: RunDir, seeds: list[int], progress: ProgressReporter, finished: Finished) -> None:
        ray = self._connect()
        remote = ray.remote(num_cpus=1, max_retries=0)(run_task)
        pending = [EpisodeTask(settings, str(run.path.resolve()), s) for s in seeds]
        free = list(range(self._slots(len(seeds))))
        self._used = len(free)
        running: dict = {}
        error: BaseException | None = None
        lost: list[str] = []
        try:
            while pending or running:
                while pending and free and error is None:
                    task, slot = pending.pop(0), free.pop(0)
                    running[remote.remote(task, self.spec, slot)] = (task.seed, slot)
                if not running:
                    break
                [ref], _ = ray.wait(list(running), num_returns=1)
                seed, slot = running.pop(ref)
                free.append(slot)
                try:
                    summary = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    error = error or with_remote_traceback(portable(exc.cause), str(exc))
                    continue
                except ray.exceptions.RayError as exc:
                    lost.append(f"the Ray task for seed {seed} failed: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                    continue
                if not run.summary(seed).is_file():
                    error = error or RuntimeError(
                        f"the Ray task for seed {seed} finished but its files are not in {run.path}: "
                        "--output must be on a filesystem shared by every Ray node"
                    )
                    continue
                finished(summary)
        finally:
            for ref in running:  # interrupted: stop what still runs
                ray.cancel(ref, force=True)
        if error is not None:
            raise error
        if lost:
            raise WorkerLost(lost_message(lost, len(pending)))

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False
