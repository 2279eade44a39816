"""Demonstrations: record a policy's episodes with the evaluator, keep the successful ones, export them.

Episodes are recorded as ordinary (diagnostic) runs of the condition runner,
so they are validated, resumable and reusable exactly like evaluation runs,
and the exported rows are read back from the run's own files. Seeds come from
a range disjoint from every suite's evaluation seeds: a policy trained on
these demonstrations is never scored on a layout it was shown.

To collect `episodes` successes a condition is recorded in batches: seeds
start..start+n-1, then as many further seeds as successes are still missing,
and so on, at most `ATTEMPTS_FACTOR * episodes` seeds in all. Outcomes are
deterministic, so running the same command again recomputes the same batches
and reuses their validated runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from .. import __version__
from ..record.lerobot_dataset import DatasetSpec, DemoEpisode
from ..record.records import EpisodeSummary
from ..suites.base import Suite
from .condition import evaluate_condition
from .rundir import RunDir
from .settings import EvalSettings

DEMO_SEED_START = 20_000  # above the tool-use evaluation seeds 10000-10099; see `check_seeds`
ATTEMPTS_FACTOR = 2  # a condition gives up after twice as many seeds as successes asked for
ROBOT_TYPE = "unitree_g1_dex3"


class DemoError(RuntimeError):
    """Demonstrations that cannot be collected as asked; the message is one line."""


@dataclass(frozen=True)
class Picked:
    """One recorded episode chosen for the dataset."""

    run: RunDir
    summary: EpisodeSummary
    condition: str


def seeds_needed(episodes: int, keep_failed: bool) -> int:
    """The most seeds a condition may use."""
    return episodes if keep_failed else ATTEMPTS_FACTOR * episodes


def check_seeds(suite: Suite, seed_start: int, count: int) -> None:
    """Refuse a seed range that overlaps the suite's evaluation seeds."""
    p = suite.protocol
    lo, hi = p.seed_start, p.seed_start + p.episodes - 1
    if seed_start <= hi and seed_start + count - 1 >= lo:
        raise DemoError(
            f"seeds {seed_start}..{seed_start + count - 1} overlap the evaluation seeds {lo}..{hi} of {suite.name}; "
            f"demonstrations use seeds from {DEMO_SEED_START} (pick a --seed-start clear of {lo}..{hi})"
        )


def record_condition(
    condition, policy, backend, runs: Path, progress, episodes: int, seed_start: int, max_steps: int | None,
    keep_failed: bool, label: str, controller: str | None = None, cameras: tuple[str, ...] | None = None,
) -> list[Picked]:
    """Record the condition until `episodes` episodes are kept (all of them with `keep_failed`); in seed order.

    `cameras` (default all) are the ones recorded: exporting the policy camera alone renders a quarter of the frames.
    """
    picked: list[Picked] = []
    start, limit = seed_start, seed_start + seeds_needed(episodes, keep_failed)
    while len(picked) < episodes:
        count = min(episodes - len(picked), limit - start)
        if count <= 0:
            raise DemoError(
                f"{label}: only {len(picked)} successful episodes in seeds {seed_start}..{limit - 1} "
                f"({episodes} asked); export them with --episodes {len(picked)} or keep failures with --keep-failed"
            )
        settings = EvalSettings(condition, episodes=count, seed_start=start, max_steps=max_steps, controller=controller,
                                recorded_cameras=cameras)
        outcome = evaluate_condition(settings, policy, runs, progress, label=label, backend=backend)
        for seed in settings.seeds:
            summary = outcome.run.read_summary(seed)
            if keep_failed or summary.success:
                picked.append(Picked(outcome.run, summary, condition.name))
        start += count
    return picked


def dataset_spec(settings: EvalSettings, cameras: tuple[str, ...] | None = None) -> DatasetSpec:
    """Rate, vector names and cameras (default: every recorded one) of a condition's recorded episodes."""
    contract = settings.suite.action_contract(settings.controller)
    return DatasetSpec(
        fps=settings.suite.protocol.control_hz,
        robot_type=ROBOT_TYPE,
        cameras=tuple(cameras or settings.cameras),
        state_names=getattr(contract, "state_names", None),
        action_names=getattr(contract, "action_names", None),
    )


def demo_episodes(picked: list[Picked]) -> Iterator[DemoEpisode]:
    """The kept episodes as the run recorded them: its step arrays, its videos, its instruction."""
    for p in picked:
        seed, config = p.summary.seed, p.run.read_json("evaluation_config.json") or {}
        steps = p.run.steps(seed)
        states, actions = np.load(steps / "state.npy"), np.load(steps / "action.npy")
        if len(states) != p.summary.step:
            raise DemoError(f"{p.run.path}: seed {seed} has {len(states)} recorded steps, its summary says {p.summary.step}")
        yield DemoEpisode(
            task=p.summary.instruction,
            states=states,
            actions=actions,
            videos={cam: p.run.videos(seed) / f"{cam}.mp4" for cam in config.get("cameras", [])},
            source={
                "condition": p.condition,
                "env_id": p.summary.env_id,
                "seed": seed,
                "outcome": p.summary.outcome,
                "steps": p.summary.step,
                "run": p.run.path.name,
            },
        )


def about(policy_info: dict, seed_start: int, keep_failed: bool, conditions: list[str], controller: str,
          look: str) -> dict:
    """What produced a dataset, for meta/humanoidtoolbench.json."""
    return {
        "package_version": __version__,
        "policy": {k: policy_info.get(k) for k in ("policy", "checkpoint", "transport", "privileged")},
        "conditions": conditions,
        "controller": controller,
        "look": look,
        "seed_start": seed_start,
        "episodes_kept": "all" if keep_failed else "successful",
    }
