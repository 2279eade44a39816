"""Where a condition's missing episodes run: in this process or in local worker processes (Ray: `ray_backend`).

Every backend runs `run_episode` for one seed at a time, and the episode
writes its own files into the run directory, so a worker that dies loses
only the episode it was running; the driver collects the summaries, then
validates and scores as for a serial run. Workers re-create the policy from
a `PolicySpec` (an in-process policy is loaded once per worker; an HTTP
policy is opened per episode on the worker's server) and start with
`spawn`, importing `humanoidtoolbench` (which picks the GL backend) before
MuJoCo: EGL contexts do not survive `fork`.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import traceback
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Callable

from ..policies.policy_source import PolicySpec
from .episode_runner import run_episode
from .progress import ProgressReporter
from .rundir import RunDir, RunLog
from .settings import EvalSettings

Finished = Callable[[dict], None]


class WorkerLost(RuntimeError):
    """A worker died mid-episode; the episodes that finished are saved."""


class _RemoteTraceback(Exception):
    """Carries a worker's traceback text as the cause of the exception re-raised in the driver."""

    def __str__(self) -> str:
        return self.args[0]


@dataclass(frozen=True)
class EpisodeTask:
    settings: EvalSettings
    run_path: str
    seed: int


_policies: dict[PolicySpec, object] = {}  # in-process policies loaded by this worker


def run_task(task: EpisodeTask, spec: PolicySpec, slot: int, on_step=None) -> dict:
    """One episode in a worker (local process or Ray task); returns its summary."""
    run = RunDir(task.run_path)
    with RunLog(run):
        if spec.host:
            policy = spec.open(slot)
            try:
                return run_episode(task.settings, policy, task.seed, run, on_step=on_step)
            finally:
                policy.close()  # frees an exclusive server for the next task on this slot
        if spec not in _policies:
            _policies[spec] = spec.open(slot)
        return run_episode(task.settings, _policies[spec], task.seed, run, on_step=on_step)


def portable(exc: BaseException) -> BaseException:
    """The exception itself if it survives pickling, else a RuntimeError with its text."""
    try:
        return pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def with_remote_traceback(exc: BaseException, text: str) -> BaseException:
    """`exc`, showing the worker's traceback `text` as its cause."""
    exc.__cause__ = _RemoteTraceback(f'\n"""\n{text.rstrip()}\n"""')
    return exc


# -- in this process and local worker processes ---------------------------------


class LocalBackend:
    """Episodes in this process (one worker) or in `workers` spawned processes on this machine."""

    name = "local"

    def __init__(self, policy, spec: PolicySpec | None = None, workers: int = 1) -> None:
        """`policy` runs episodes in this process; `spec` re-creates it in workers (needed when workers > 1)."""
        self.policy, self.workers = policy, workers
        self.spec = spec.for_workers() if spec is not None else None

    def execution(self, episodes: int) -> dict:
        return {"backend": self.name, "workers": min(self.workers, episodes)}

    def run(self, settings: EvalSettings, run: RunDir, seeds: list[int], progress: ProgressReporter, finished: Finished) -> None:
        n = min(self.workers, len(seeds))
        if n <= 1:
            for seed in seeds:
                progress.episode_started(seed)
                finished(run_episode(settings, self.policy, seed, run, on_step=progress.step))
            return
        _Pool(self.spec, n).run([EpisodeTask(settings, str(run.path.resolve()), s) for s in seeds], finished)

    def close(self) -> None:
        pass


class _DriverGone(Exception):
    """The evaluator that started this worker has exited; the episode is left for its rerun."""


def _worker_main(conn, spec: PolicySpec, slot: int, driver: int, workers: int) -> None:
    """A local worker: run the tasks sent on `conn` until told to stop or the driver is gone.

    A driver that is gone (killed, or its pipe closed) ends the worker quietly:
    there is nobody left to report to, and a traceback per worker would bury
    the one line that matters in the user's terminal.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the driver, which stops the workers
    # Mesa's software rasterizer starts one thread per core in every process; with a worker per
    # core they only contend, so a worker rasterizes on its own thread (same pixels, same CPU time).
    share = (os.cpu_count() or 1) // workers
    os.environ.setdefault("LP_NUM_THREADS", str(share if share > 1 else 0))

    def driver_alive(step: int) -> None:
        if os.getppid() != driver:
            raise _DriverGone

    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            reply = ("done", run_task(task, spec, slot, on_step=driver_alive))
        except _DriverGone:
            return
        except BaseException as exc:
            reply = ("error", portable(exc), traceback.format_exc())
        try:
            conn.send(reply)
        except OSError:
            return


class _Worker:
    def __init__(self, ctx, spec: PolicySpec, slot: int, workers: int) -> None:
        self.slot = slot
        self.conn, child = ctx.Pipe()
        args = (child, spec, slot, os.getpid(), workers)
        self.process = ctx.Process(target=_worker_main, args=args, daemon=True, name=f"htb-worker-{slot}")
        self.process.start()
        child.close()
        self.task: EpisodeTask | None = None
        self.dead = False

    def give(self, pending: list[EpisodeTask]) -> None:
        """Send the next pending task (left pending if this worker has died meanwhile)."""
        try:
            self.conn.send(pending[0])
        except OSError:
            self.dead = True
            return
        self.task = pending.pop(0)

    def collect(self):
        """("done", summary), ("error", exception), ("lost", text), or None while the episode runs."""
        try:
            if not self.conn.poll():
                if self.process.is_alive():
                    return None
                raise EOFError
            kind, *payload = self.conn.recv()
        except (EOFError, OSError):
            self.process.join()
            seed, self.task, self.dead = self.task.seed, None, True
            return "lost", f"worker {self.slot} (pid {self.process.pid}) died while running seed {seed} (exit code {self.process.exitcode})"
        self.task = None
        if kind == "done":
            return "done", payload[0]
        exc, text = payload
        return "error", with_remote_traceback(exc, text)

    def stop(self, timeout: float = 5.0) -> None:
        if self.process.is_alive() and self.task is None:
            try:
                self.conn.send(None)
            except OSError:
                pass
            self.process.join(timeout)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout)
        self.conn.close()


class _Pool:
    """Hand seeds to idle workers; after an episode error, finish what runs and raise the error."""

    def __init__(self, spec: PolicySpec, workers: int) -> None:
        self.spec, self.size = spec, workers

    def run(self, tasks: list[EpisodeTask], finished: Finished) -> None:
        ctx = multiprocessing.get_context("spawn")
        pending = list(tasks)
        workers = [_Worker(ctx, self.spec, slot, self.size) for slot in range(self.size)]
        error: BaseException | None = None
        lost: list[str] = []
        try:
            while True:
                for w in workers:
                    if w.task is None and not w.dead and pending and error is None:
                        w.give(pending)
                busy = [w for w in workers if w.task is not None]
                if not busy:
                    break
                wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
                for w in busy:
                    outcome = w.collect()
                    if outcome is None:
                        continue
                    kind, value = outcome
                    if kind == "done":
                        finished(value)
                    elif kind == "lost":
                        lost.append(value)
                    else:
                        error = error or value
        finally:
            for w in workers:
                w.stop()
        if error is not None:
            raise error
        if lost or pending:
            raise WorkerLost(lost_message(lost, len(pending)))


def lost_message(lost: list[str], not_started: int) -> str:
    left = [f"{not_started} episode(s) not started"] if not_started else []
    return "; ".join(lost + left) + ". The finished episodes are saved: run the same command again to complete the condition"
