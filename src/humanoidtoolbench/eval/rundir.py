"""The run directory of one condition: `<output>/<Condition>/run-<id>/`.

    evaluation_config.json   settings, fingerprint and policy identity
    policy_info.json
    eval_latest.log
    summaries/episode_<seed>.json     written last: its presence marks the episode complete
    metrics/episode_<seed>.jsonl      one line per control step
    steps/episode_<seed>/{action,state}.npy   the rows executed and the policy state before each
    policy/episode_<seed>.jsonl       one line per policy call, with the reply's metadata
    videos/episode_<seed>/<camera>.mp4
    benchmark_result.json    written only after validation
    run.lock                 held by the evaluator writing the run (`RunDir.lock`)

Every file is written atomically (through a `.NAME.XXXXXXXX.tmp` sibling) or
under a `.partial` name, so a crash leaves either complete files or temporary
and partial ones that a rerun removes.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
import shutil
import socket
import time
import warnings
from pathlib import Path

from ..record import records
from ..record.files import write_json_atomic
from ..record.records import EpisodeSummary

CONFIG = "evaluation_config.json"
POLICY_INFO = "policy_info.json"
LOG = "eval_latest.log"
RESULT = "benchmark_result.json"
LOCK = "run.lock"
LOGGER = "humanoidtoolbench.eval"
LIBRARY_LOGGERS = ("torch", "transformers", "huggingface_hub")  # each prints through a stderr handler of its own


class RunLocked(RuntimeError):
    """Another evaluator is writing the run directory; the message names its pid and host."""

    def __init__(self, path: Path, holder: dict) -> None:
        who = f"pid {holder['pid']} on host {holder['host']}" if {"pid", "host"} <= holder.keys() else "another evaluator"
        super().__init__(f"run {path} is being written by {who}")
        self.holder = holder


class RunLock:
    """One evaluator's exclusive right to write into a run directory, until `release` (or its exit).

    An `fcntl.flock` on `run.lock`: the kernel drops it when the process dies,
    however it dies, so a lock file a killed evaluator left behind is stale by
    construction and simply taken over. The file holds the holder's pid, host
    and start time for the message another evaluator prints. Workers (local
    processes, Ray tasks) write on the driver's behalf and never take it.
    """

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self._fd = path, fd

    def release(self) -> None:
        """Remove the file while still holding it, so whoever opened it before retries on a fresh one."""
        if self._fd is not None:
            self.path.unlink(missing_ok=True)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "RunLock":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class RunDir:
    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    @classmethod
    def create(cls, output: Path, condition_name: str) -> "RunDir":
        parent = Path(output) / condition_name
        parent.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        while True:
            path = parent / f"run-{stamp}-{secrets.token_hex(3)}"
            try:
                path.mkdir()
                return cls(path)
            except FileExistsError:
                continue

    @staticmethod
    def all_runs(output: Path, condition_name: str) -> list["RunDir"]:
        """Runs of a condition, newest first."""
        parent = Path(output) / condition_name
        runs = sorted(parent.glob("run-*"), key=lambda p: p.name, reverse=True) if parent.is_dir() else []
        return [RunDir(p) for p in runs if p.is_dir()]

    # -- paths -------------------------------------------------------------
    def summary(self, seed: int) -> Path:
        return self.path / "summaries" / f"episode_{seed}.json"

    def metrics(self, seed: int) -> Path:
        return self.path / "metrics" / f"episode_{seed}.jsonl"

    def videos(self, seed: int) -> Path:
        return self.path / "videos" / f"episode_{seed}"

    def steps(self, seed: int) -> Path:
        return self.path / "steps" / f"episode_{seed}"

    def policy_calls(self, seed: int) -> Path:
        return self.path / "policy" / f"episode_{seed}.jsonl"

    @property
    def config_path(self) -> Path:
        return self.path / CONFIG

    @property
    def result_path(self) -> Path:
        return self.path / RESULT

    @property
    def log_path(self) -> Path:
        return self.path / LOG

    # -- contents ----------------------------------------------------------
    def read_json(self, name: str) -> dict | None:
        try:
            return json.loads((self.path / name).read_text())
        except (OSError, json.JSONDecodeError):
            return None

    def write_json(self, name: str, obj) -> Path:
        return write_json_atomic(self.path / name, obj)

    def completed_seeds(self) -> set[int]:
        seeds = (p.stem.split("_", 1)[1] for p in (self.path / "summaries").glob("episode_*.json"))
        return {int(s) for s in seeds if s.isdigit()}

    def set_aside_strays(self, seeds: list[int]) -> list[tuple[Path, Path]]:
        """Rename every summary that names no configured seed to `<name>.stray[-N]`, out of the summaries'
        glob: it is no episode of this run, but is kept for whoever put it there. (from, to) of each."""
        wanted = {self.summary(seed).name for seed in seeds}
        moved = []
        for path in sorted((self.path / "summaries").glob("episode_*.json")):
            if path.name in wanted:
                continue
            target, n = path.with_name(path.name + ".stray"), 1
            while target.exists():
                target, n = path.with_name(f"{path.name}.stray-{n}"), n + 1
            os.replace(path, target)
            moved.append((path, target))
        return moved

    def read_summary(self, seed: int) -> EpisodeSummary:
        return records.read(self.summary(seed), EpisodeSummary)

    def lock(self) -> RunLock:
        """Take the run for this process, or raise RunLocked naming the evaluator that holds it."""
        path = self.path / LOCK
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(os.pread(fd, 4096, 0))
                os.close(fd)
                raise RunLocked(self.path, holder) from None
            try:
                current = os.stat(path)
            except FileNotFoundError:
                current = None
            mine = os.fstat(fd)
            if current is not None and (current.st_dev, current.st_ino) == (mine.st_dev, mine.st_ino):
                break
            os.close(fd)  # its holder released and removed it meanwhile: lock the file there now
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "started": started}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(holder) + "\n").encode(), 0)
        return RunLock(path, fd)

    def forget_episode(self, seed: int) -> None:
        """Remove a recorded episode that failed its checks, summary first, so that its seed counts as not run."""
        self.summary(seed).unlink(missing_ok=True)
        self.discard_episode(seed)

    def discard_episode(self, seed: int) -> None:
        """Remove what an interrupted episode left behind."""
        for folder in (self.videos(seed), self.steps(seed)):
            shutil.rmtree(folder, ignore_errors=True)
        for p in (self.metrics(seed), self.policy_calls(seed)):
            p.unlink(missing_ok=True)
            p.with_name(p.name + ".partial").unlink(missing_ok=True)


def _holder(raw: bytes) -> dict:
    """The holder a lock file names; {} while its holder has not written it yet."""
    try:
        holder = json.loads(raw)
    except ValueError:
        return {}
    return holder if isinstance(holder, dict) else {}


class _LibraryRecords(logging.Handler):
    """On the root logger: what libraries log goes to the open run log, or is kept until one opens."""

    def __init__(self) -> None:
        super().__init__()
        self.kept: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == LOGGER or record.name.startswith(LOGGER + "."):
            return  # the evaluator's own, which the run log's handler has written
        handlers = logging.getLogger(LOGGER).handlers
        for handler in handlers:
            handler.handle(record)
        if not handlers:
            self.kept.append(record)


_LIBRARY_RECORDS = _LibraryRecords()


def _log_warning(message, category, filename, lineno, file=None, line=None) -> None:
    text = warnings.formatwarning(message, category, filename, lineno, line).rstrip()
    logging.getLogger("py.warnings").warning("%s", text)


def route_library_logs() -> None:
    """Write what a model policy's libraries (LeRobot, torch, Hugging Face) log or warn in this process into
    the run log, where a user looks for details, instead of onto the terminal, where the progress lines are.

    LeRobot logs on the root logger, and `warnings` become records of `py.warnings`; torch and the Hugging
    Face libraries lose the stderr handlers they give their loggers when imported (so call this again after
    loading), their records reaching the root logger too. A record made while no run log is open (the
    driver loads its policy before any run exists) is kept and written into each run log opened after.
    """
    warnings.showwarning = _log_warning  # set each time: `warnings.catch_warnings` puts back the one before
    root = logging.getLogger()
    if _LIBRARY_RECORDS not in root.handlers:
        root.addHandler(_LIBRARY_RECORDS)
    for name in [n for n in logging.root.manager.loggerDict if n.split(".")[0] in LIBRARY_LOGGERS]:
        library = logging.getLogger(name)
        # torch's handler is no StreamHandler; a logger kept quiet by design (torch's artifacts) has none
        printing = [h for h in library.handlers if hasattr(h, "stream") and not isinstance(h, logging.FileHandler)]
        for handler in printing:
            library.removeHandler(handler)
        if printing:
            library.propagate = True


class RunLog:
    """Route the evaluator's log records (policy tracebacks included) into the run's log file.

    Files are opened for appending, so the driver and its workers can share one log.
    """

    def __init__(self, run: RunDir) -> None:
        self.handler = logging.FileHandler(run.log_path, encoding="utf-8")
        self.handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        self.log = logging.getLogger(LOGGER)

    def __enter__(self):
        self.log.addHandler(self.handler)
        self.log.setLevel(logging.INFO)
        for record in _LIBRARY_RECORDS.kept:  # what the policy's libraries said while it loaded
            self.handler.handle(record)
        return self

    def __exit__(self, *exc):
        self.log.removeHandler(self.handler)
        self.handler.close()
