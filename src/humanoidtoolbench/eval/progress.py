"""Progress of an evaluation: a live display on a terminal, plain log lines otherwise."""

from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"


class ProgressReporter:
    def __init__(self, stream=None, live: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.console = Console(file=self.stream, highlight=False)
        self._progress: Progress | None = None

    # -- plain messages ----------------------------------------------------
    def message(self, text: str) -> None:
        if self._progress is not None:
            self._progress.console.print(text)
        else:
            print(text, file=self.stream, flush=True)

    # -- one condition -----------------------------------------------------
    def start_condition(self, label: str, total: int, done: int, successes: int, max_steps: int, steps: bool = True) -> None:
        """`steps`: show the running episode's steps (episodes run one at a time)."""
        self.label, self.total, self.done, self.successes = label, total, done, successes
        self.max_steps = max_steps
        self._started, self._started_done = time.monotonic(), done
        if not self.live:
            self.message(f"{label}: {total} episodes ({done} already done)")
            return
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self._progress.start()
        self._episodes = self._progress.add_task(label, total=total, completed=done, info=self._info())
        self._steps = self._progress.add_task("  steps", total=max_steps, info="") if steps else None

    def _info(self) -> str:
        return f"{self.successes}/{self.done} successes"

    def _eta(self) -> str:
        ran = self.done - self._started_done
        if ran <= 0:
            return "ETA unknown"
        left = (time.monotonic() - self._started) / ran * (self.total - self.done)
        return f"ETA {_duration(left)}"

    def episode_started(self, seed: int) -> None:
        if self._progress is not None and self._steps is not None:
            self._progress.reset(self._steps, total=self.max_steps, description=f"  seed {seed}")

    def step(self, step: int) -> None:
        if self._progress is not None and self._steps is not None and step % 10 == 0:
            self._progress.update(self._steps, completed=step)

    def episode_finished(self, seed: int, outcome: str, steps: int, seconds: float) -> None:
        self.done += 1
        self.successes += int(outcome == "success")
        if self._progress is not None:
            self._progress.update(self._episodes, completed=self.done, info=self._info())
            return
        self.message(
            f"{self.label}: episode {self.done}/{self.total} seed {seed}: {outcome} after {steps} steps "
            f"({seconds:.1f} s); {self._info()}; {self._eta()}"
        )

    def end_condition(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
