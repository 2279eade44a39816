"""The Fiatlux scorer: per-subtask scores and the weighted rollup, from bags alone.

It imports neither MuJoCo nor torch, so a run can be scored anywhere its files
are. Each bag says what its episode needs judging by (gate conjuncts, bulb
floors, glass limit); the weights come from `weights.SUBTASKS`.

A subtask's score s = 0.5 success rate + 0.5 mean gate progress, so an episode
that never succeeds still earns credit for the best moment of its gate. The
rollup S = sum(w s) / sum(w) runs over the subtasks that have episodes; a
missing subtask is listed, not scored zero, so a run over part of the
benchmark (the paper's teleoperation covers 8 of 12) says what it covers.
The whole errand is scored the same way (its conjuncts are the twelve
gates, so rho is the share of them passed) and reported beside S, not in it:
Table III has no weight for it; so is the standalone climbing task.

Bags that log the reward (meta `reward_terms`) also give each episode's
return and the sum of each reward term, the paper's score breakdown, and
each subtask their means (`markdown`'s reward table).
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from .bag import BAG_GLOB, GATE_PREFIX, REWARD_PREFIX, read_bag
from .subtasks import CLIMB, ERRAND
from .weights import BY_TASK_ID, SUBTASKS, TOTAL_WEIGHT

SUCCESS_SHARE = 0.5  # s = SUCCESS_SHARE * success rate + (1 - SUCCESS_SHARE) * gate progress


class ScoreError(ValueError):
    """Bags that cannot be scored together; one line."""


class _Result(msgspec.Struct, frozen=True, kw_only=True):
    def to_json(self) -> dict[str, Any]:
        return msgspec.to_builtins(self)


class EpisodeScore(_Result):
    """One episode, judged from its bag."""

    task_id: str
    seed: int
    success: bool  # success_term at the last step
    broken: bool  # some hand's contact force on a bulb exceeded the glass limit
    dropped: bool  # the drop termination fired, or a bulb went below its floor
    clean_success: bool  # success, neither broken nor dropped
    peak_contact_force: float  # N, largest over steps, bodies and both hands
    control_effort: float  # mean over steps of sum(a^2)
    length: int  # steps
    gate_progress: float  # rho, see gate_progress()
    episode_return: float | None = None  # sum of the logged reward; None: the bag logs none
    reward_terms: dict[str, float] = {}  # each term's sum over the episode


class SubtaskScore(_Result):
    """One subtask over its episodes."""

    key: str
    task_id: str
    weight: float | None  # None for the errand
    episodes: tuple[EpisodeScore, ...]
    success_rate: float
    clean_success_rate: float
    broken_rate: float
    dropped_rate: float
    peak_contact_force: float  # largest over the episodes
    mean_control_effort: float
    mean_episode_length: float
    gate_progress: float  # mean rho
    score: float  # s
    mean_return: float | None = None  # over the episodes whose bags log the reward
    mean_reward_terms: dict[str, float] = {}


class FiatluxScore(_Result):
    """The subtasks that have episodes, in table order, and their weighted score S; the errand apart."""

    subtasks: tuple[SubtaskScore, ...]
    weighted_score: float | None  # S over the subtasks present; None without any
    weight_scored: float  # sum of their weights
    weight_total: float  # sum of all twelve
    missing: tuple[str, ...]  # task IDs without episodes: excluded, not scored zero
    errand: SubtaskScore | None = None
    climb: SubtaskScore | None = None  # the standalone climbing task, beside S like the errand


def gate_progress(gates: np.ndarray) -> float:
    """rho: the share of the conjuncts false at reset that the best row made true together.

    `gates` is (T, n) bool, one column per conjunct. Counting from row 0 keeps a
    conjunct that holds at reset from earning credit; an episode whose gate
    holds entirely at reset has nothing left to earn and gets 1.0. The best row
    counts even when the episode later falls back. The original clamps the
    result to [0, 1]; row 0 is among the rows, so it cannot leave that range.
    """
    counts = gates.sum(axis=1)
    n, start = gates.shape[1], int(counts[0])
    if start == n:
        return 1.0
    return (int(counts.max()) - start) / (n - start)


def score_episode(meta: Mapping[str, Any], columns: Mapping[str, np.ndarray]) -> EpisodeScore:
    """Judge one episode from a bag's meta and columns (as `read_bag` returns them).

    A bulb the task sets down on purpose has no entry in the meta's drop floors,
    so only unintended drops count.
    """
    forces = np.concatenate([columns["contact_force"], columns["contact_force_left"]], axis=1)
    peak = float(np.linalg.norm(forces.astype(np.float64), axis=-1).max(initial=0.0))
    broken = peak > meta["glass_contact_limit_n"]
    below_floor = any(
        bool((columns[f"{bulb}_pos"][:, 2].astype(np.float64) < floor).any())
        for bulb, floor in meta["drop_min_height_by_bulb"].items()
    )
    dropped = bool(columns["dropped_term"].any()) or below_floor
    success = bool(columns["success_term"][-1])
    actions = columns["actions"].astype(np.float64)
    gates = np.stack([columns[f"{GATE_PREFIX}{c}"] for c in meta["gate_conjuncts"]], axis=1)
    terms = {t: math.fsum(columns[f"{REWARD_PREFIX}{t}"]) for t in meta.get("reward_terms", ())}
    return EpisodeScore(
        task_id=meta["task_id"],
        seed=meta["seed"],
        success=success,
        broken=broken,
        dropped=dropped,
        clean_success=success and not broken and not dropped,
        peak_contact_force=peak,
        control_effort=float(np.mean(np.sum(actions**2, axis=1))),
        length=len(actions),
        gate_progress=gate_progress(gates),
        episode_return=math.fsum(columns["reward"]) if terms else None,
        reward_terms=terms,
    )


def score_subtask(episodes: Sequence[EpisodeScore]) -> SubtaskScore:
    """Aggregate one subtask's episodes (at least one, all of the same task)."""
    task_ids = {e.task_id for e in episodes}
    if len(task_ids) != 1:
        raise ScoreError(f"a subtask is scored over episodes of one task; got {sorted(task_ids)}")
    (task_id,) = task_ids
    if task_id in (ERRAND.name, CLIMB.name):
        key, weight = (ERRAND.key if task_id == ERRAND.name else CLIMB.key), None
    elif task_id in BY_TASK_ID:
        key, weight = BY_TASK_ID[task_id].key, BY_TASK_ID[task_id].weight
    else:
        raise ScoreError(f"{task_id!r} is not a Fiatlux subtask or the errand")

    def mean(values) -> float:
        return float(np.mean(list(values), dtype=np.float64))

    success_rate = mean(e.success for e in episodes)
    rho = mean(e.gate_progress for e in episodes)
    rewarded = [e for e in episodes if e.episode_return is not None]
    terms = list(dict.fromkeys(t for e in rewarded for t in e.reward_terms))
    return SubtaskScore(
        key=key,
        task_id=task_id,
        weight=weight,
        episodes=tuple(episodes),
        success_rate=success_rate,
        clean_success_rate=mean(e.clean_success for e in episodes),
        broken_rate=mean(e.broken for e in episodes),
        dropped_rate=mean(e.dropped for e in episodes),
        peak_contact_force=max(e.peak_contact_force for e in episodes),
        mean_control_effort=mean(e.control_effort for e in episodes),
        mean_episode_length=mean(e.length for e in episodes),
        gate_progress=rho,
        score=SUCCESS_SHARE * success_rate + (1 - SUCCESS_SHARE) * rho,
        mean_return=mean(e.episode_return for e in rewarded) if rewarded else None,
        mean_reward_terms={t: mean(e.reward_terms.get(t, 0.0) for e in rewarded) for t in terms},
    )


def rollup(subtasks: Sequence[SubtaskScore], errand: SubtaskScore | None = None,
           climb: SubtaskScore | None = None) -> FiatluxScore:
    """S = sum(w s) / sum(w) over the subtasks given; the others are listed as missing."""
    present = {s.task_id: s for s in subtasks}
    if len(present) != len(subtasks):
        raise ScoreError("each subtask may appear once in a rollup")
    if ERRAND.name in present or CLIMB.name in present:
        raise ScoreError("the errand and the climbing task are rolled up beside the subtasks, not among them")
    if not present and errand is None and climb is None:
        raise ScoreError("no subtask has episodes to roll up")
    ordered = tuple(present[s.task_id] for s in SUBTASKS if s.task_id in present)
    weight = math.fsum(s.weight for s in ordered)
    return FiatluxScore(
        subtasks=ordered,
        weighted_score=math.fsum(s.weight * s.score for s in ordered) / weight if ordered else None,
        weight_scored=weight,
        weight_total=TOTAL_WEIGHT,
        missing=tuple(s.task_id for s in SUBTASKS if s.task_id not in present),
        errand=errand,
        climb=climb,
    )


def score_run(results_dir: str | os.PathLike) -> FiatluxScore:
    """Score every bag under `results_dir` (`**/bags/episode_*.h5`): one run, or the runs of one policy.

    `htb-metrics` scores the bags of the runs it selects instead (`score_bags`):
    the verified run of each subtask and policy, however many runs a directory holds.
    """
    root = Path(results_dir)
    paths = sorted(root.glob(BAG_GLOB))
    if not paths:
        raise ScoreError(f"{root}: no bags ({BAG_GLOB}) under it")
    return score_bags(paths)


def score_bags(paths: Sequence[str | os.PathLike]) -> FiatluxScore:
    """Score these bags, grouped by the meta's task.

    The same task and seed twice means two runs (two policies, say) among
    them; that is refused rather than averaged.
    """
    by_task: dict[str, list[EpisodeScore]] = defaultdict(list)
    seen: dict[tuple[str, int], Path] = {}
    for path in paths:
        meta, columns = read_bag(path)
        key = (meta["task_id"], meta["seed"])
        if key in seen:
            raise ScoreError(f"{path}: {key[0]} seed {key[1]} is also in {seen[key]}; score one run per directory")
        seen[key] = path
        by_task[meta["task_id"]].append(score_episode(meta, columns))
    errand, climb = by_task.pop(ERRAND.name, None), by_task.pop(CLIMB.name, None)
    return rollup([score_subtask(episodes) for episodes in by_task.values()], errand and score_subtask(errand),
                  climb and score_subtask(climb))


def _row(s: SubtaskScore, label: str, weight: str) -> str:
    return (
        f"| {label} | {weight} | {len(s.episodes)} | {s.success_rate:.2f} "
        f"| {s.clean_success_rate:.2f} | {s.broken_rate:.2f} | {s.dropped_rate:.2f} | {s.gate_progress:.3f} "
        f"| {s.score:.3f} | {s.mean_control_effort:.3f} | {s.mean_episode_length:.1f} |"
    )


def markdown(score: FiatluxScore) -> str:
    """The per-subtask table, then S with the subtasks it leaves out; the errand's row last, outside S."""
    lines = [
        "| Subtask | Weight | Episodes | Success | Clean success | Broken | Dropped | ρ | s | Effort | Mean length |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [_row(s, f"{s.key} {BY_TASK_ID[s.task_id].name}", f"{s.weight:.2f}") for s in score.subtasks]
    if score.errand is not None:
        lines.append(_row(score.errand, f"Errand ({ERRAND.name}: ρ = share of the 12 gates passed)", "—"))
    if score.climb is not None:
        lines.append(_row(score.climb, f"Climb ({CLIMB.name})", "—"))
    lines.append("")
    if score.weighted_score is None:
        lines.append("Weighted S: — (no subtask has episodes; the errand and the climb are not part of S).")
    else:
        lines.append(
            f"Weighted S = {score.weighted_score:.4f} over {len(score.subtasks)} of {len(SUBTASKS)} subtasks "
            f"(weight {score.weight_scored:.2f} of {score.weight_total:.2f})."
        )
        if score.missing:
            names = ", ".join(f"{BY_TASK_ID[t].key} {BY_TASK_ID[t].name}" for t in score.missing)
            lines.append(f"Missing, so excluded rather than scored zero: {names}.")
    return "\n".join(lines + _reward_lines(score)) + "\n"


def _label(s: SubtaskScore) -> str:
    return f"{s.key} {BY_TASK_ID[s.task_id].name}" if s.task_id in BY_TASK_ID else s.task_id


def _reward_lines(score: FiatluxScore) -> list[str]:
    """The mean episode return and each term's mean episode sum (terms that never paid are left out)."""
    rows = [s for s in (*score.subtasks, score.errand, score.climb) if s is not None and s.mean_return is not None]
    if not rows:
        return []
    lines = ["", "Reward (mean per episode; every term weighted and scaled by dt = 0.02 s):", "",
             "| Condition | Return | Terms |", "|---|---:|---|"]
    for s in rows:
        terms = "; ".join(f"{t} {v:+.4g}" for t, v in s.mean_reward_terms.items() if v != 0.0) or "none paid"
        lines.append(f"| {_label(s)} | {s.mean_return:+.4g} | {terms} |")
    return lines
