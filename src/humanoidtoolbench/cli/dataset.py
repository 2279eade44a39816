"""`htb-dataset`: record a policy's demonstrations and write them as a LeRobot dataset.

The episodes run through the evaluator (validated, resumable run directories
under --runs); the successful ones (all of them with --keep-failed) are then
written from the runs' own files into one LeRobot dataset (format v2.1, or v3.0 with --format),
assembled aside and renamed into place.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from .. import suites
from ..control import CONTROLLERS
from ..eval.demonstrations import DEMO_SEED_START, DemoError, check_seeds, seeds_needed
from .common import (
    MAX_EPISODES, MAX_WORKERS, SEED_LIMIT, OneLineParser, UsageError, check_controller, check_seed_range, conditions_of,
    worker_count,
)

DEFAULT_EPISODES = 50
FORMATS = ("v2.1", "v3.0")
INSTALL_HINT = 'pip install "humanoidtoolbench[dataset]"'


def build_parser() -> argparse.ArgumentParser:
    default = suites.default()
    p = OneLineParser(
        prog="htb-dataset",
        description="Record a policy's episodes and write the successful ones as a LeRobot dataset (format v2.1 or v3.0): "
        "per-step parquet rows (observation.state, action), one MP4 per camera and episode, one task per instruction. "
        f"Seeds start at {DEMO_SEED_START}, clear of the evaluation seeds, which are refused.",
    )
    p.add_argument(
        "env",
        nargs="?",
        default=default.default_condition.name,
        help=f"condition ID, several of one suite separated by commas, or 'all' (default {default.default_condition.name})",
    )
    p.add_argument("--output", required=True, help="the dataset directory to create (must not exist)")
    p.add_argument(
        "--runs",
        help="where the recorded runs go and are reused from (default: OUTPUT-runs beside the dataset)",
    )
    p.add_argument("--policy", default="expert", metavar="REF", help="MODULE:FUNCTION, path/to/file.py:FUNCTION or a built-in (default expert)")
    p.add_argument("--checkpoint", help="identifier of the policy's weights, recorded with the runs")
    p.add_argument("--episodes", type=int, default=DEFAULT_EPISODES, help=f"episodes kept per condition (default {DEFAULT_EPISODES})")
    p.add_argument("--seed-start", type=int, default=DEMO_SEED_START, help=f"first seed of every condition (default {DEMO_SEED_START})")
    p.add_argument(
        "--cameras",
        help="comma-separated cameras to record and export (default: every camera; the policy sees "
        f"{default.cameras.policy_camera} only)",
    )
    p.add_argument("--format", choices=FORMATS, default="v2.1",
                   help="LeRobot dataset format: v2.1 (LeRobot 0.3) or v3.0 (LeRobot 0.4 and later); default v2.1")
    p.add_argument("--keep-failed", action="store_true", help="keep every recorded episode, not only the successful ones")
    p.add_argument("--max-steps", type=int, help="step budget per episode (default: the suite's protocol)")
    p.add_argument(
        "--controller",
        choices=sorted(CONTROLLERS),
        help=f"what executes the commands (default: the suite's protocol, {default.protocol.controller} for {default.name})",
    )
    p.add_argument("--workers", default="1", help=f"episodes recorded at once, 1 to {MAX_WORKERS} or 'auto' (one per core; default 1)")
    return p


def _check(args, conditions) -> None:
    suite = suites.suite_of(conditions[0])
    budget = min(suite.budget(c) for c in conditions)
    if not 1 <= args.episodes <= MAX_EPISODES:
        raise UsageError(f"--episodes must be between 1 and {MAX_EPISODES}, got {args.episodes}")
    if args.max_steps is not None and not 1 <= args.max_steps <= budget:
        raise UsageError(f"--max-steps must be between 1 and {budget}, got {args.max_steps}")
    args.workers = worker_count(args.workers)
    check_controller(suite, args.controller)
    count = seeds_needed(args.episodes, args.keep_failed)
    if not 0 <= args.seed_start <= SEED_LIMIT - count:
        raise UsageError(f"--seed-start must be between 0 and {SEED_LIMIT - count} for {count} seeds, got {args.seed_start}")
    check_seed_range(suite, conditions, args.seed_start, count)
    try:
        check_seeds(suite, args.seed_start, count)
    except DemoError as exc:
        raise UsageError(str(exc)) from None
    if args.cameras is not None:
        args.cameras = tuple(dict.fromkeys(c.strip() for c in args.cameras.split(",") if c.strip()))
        unknown = [c for c in args.cameras if c not in suite.cameras.names]
        if unknown or not args.cameras:
            raise UsageError(f"--cameras: {unknown[0] if unknown else 'none named'}; the cameras are {', '.join(suite.cameras.names)}")
    output = Path(args.output)
    if output.exists():
        raise UsageError(f"--output {args.output} already exists; a dataset is written into a new directory")
    if not output.absolute().parent.is_dir():
        raise UsageError(f"--output {args.output}: its parent directory does not exist")
    args.runs = Path(args.runs) if args.runs else output.with_name(output.name + "-runs")
    if importlib.util.find_spec("pyarrow") is None:
        raise UsageError(f"writing a dataset needs pyarrow: {INSTALL_HINT}")


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("htb-dataset: interrupted; run the same command again to continue where it stopped", file=sys.stderr)
        return 130


def _main(argv: list[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if not args.output.strip():
            raise UsageError("--output must not be empty")
        conditions = conditions_of(args.env)
        _check(args, conditions)
    except UsageError as exc:
        print(f"htb-dataset: {exc}", file=sys.stderr)
        return 2
    from ..eval.backends import LocalBackend
    from ..eval.thread_pools import bound_thread_pools
    from ..policies.errors import PolicyConnectionError, PolicyError, PolicyLoadError
    from ..policies.policy_source import PolicySpec
    from ..robot import assets

    suite = suites.suite_of(conditions[0])
    bound_thread_pools(args.workers)
    builtin = suite.builtin_policies_for(args.controller)
    spec = PolicySpec(ref=args.policy, checkpoint=args.checkpoint, builtin=tuple(builtin.items()))
    try:
        assets.installed()
        policy = spec.open()
    except (assets.AssetError, PolicyLoadError, PolicyConnectionError, OSError) as exc:
        print(f"htb-dataset: {exc}", file=sys.stderr)
        return 2
    try:  # after the policy loads, so a policy mistake leaves no empty runs directory behind
        args.runs.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        policy.close()
        print(f"htb-dataset: --runs {args.runs}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if args.policy not in builtin and not args.checkpoint:
        print("htb-dataset: warning: no --checkpoint; the runs are not reused by a later command", file=sys.stderr)
    backend = LocalBackend(policy, spec, args.workers)
    try:
        return _export(args, conditions, policy, backend)
    except (DemoError, PolicyError) as exc:
        print(f"htb-dataset: {exc}", file=sys.stderr)
        return 1
    finally:
        backend.close()
        policy.close()


def _export(args, conditions, policy, backend) -> int:
    from ..eval.demonstrations import about, dataset_spec, demo_episodes, record_condition
    from ..eval.progress import ProgressReporter
    from ..eval.settings import EvalSettings
    from ..record.lerobot_dataset import DatasetError, write_dataset
    from ..record.lerobot_v30 import write_dataset_v30

    progress = ProgressReporter()
    picked = []
    for k, cond in enumerate(conditions, 1):
        label = f"[{k}/{len(conditions)}] {cond.name}" if len(conditions) > 1 else cond.name
        picked += record_condition(
            cond, policy, backend, args.runs, progress, args.episodes, args.seed_start, args.max_steps, args.keep_failed, label,
            args.controller, args.cameras,
        )
    settings = EvalSettings(conditions[0], controller=args.controller)  # the protocol's controller unless named
    spec = dataset_spec(settings, args.cameras)
    total = len(picked)

    def exported(index, episode) -> None:
        if (index + 1) % 10 == 0 or index + 1 == total:
            progress.message(f"exported {index + 1}/{total} episodes")

    meta = about(policy.info, args.seed_start, args.keep_failed, [c.name for c in conditions], settings.controller,
                 settings.look)
    try:
        writer = write_dataset_v30 if args.format == "v3.0" else write_dataset
        info = writer(Path(args.output), spec, demo_episodes(picked), meta, exported)
    except DatasetError as exc:
        raise DemoError(str(exc)) from None
    progress.message(
        f"dataset {args.output}: {info['total_episodes']} episodes, {info['total_frames']} frames, "
        f"{info['total_tasks']} tasks, {len(spec.cameras)} cameras at {info['fps']} frames/s (LeRobot {info['codebase_version']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
