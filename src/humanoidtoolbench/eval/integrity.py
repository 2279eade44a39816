"""The chain that makes a result checkable, from its episodes' files up to `benchmark_result.json`.

Each episode's files are hashed in its summary (`files`, `videos`), and the
summary's figures are derived again from its metrics file (`derive`). The
result records the SHA-256 of every summary and of the run's configuration
(`files`), and seals all its other fields with `record_sha256`, the SHA-256
of its canonical JSON. Its figures (episodes, successes, rate, outcomes,
seeds) are derived again from the summaries, and its settings, policy and
controller compared with the configuration, so a claim the episodes do not
make is named even where someone sealed it again.

This catches edits and corruption anywhere in a run, one bit included; it
does not stop a forger who rewrites every file and hash alike (there is no
secret). `verify` is the one check that `htb-metrics`, `htb-report` and the
reuse of a result (`resume`) run.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..digest import file_sha256
from ..record.records import BenchmarkResult, EvalConfig, RecordError, convert
from .rundir import CONFIG, POLICY_INFO, RESULT, RunDir
from .validation import RunCheck, check_run, load_config, read_summaries

SEAL = "record_sha256"
FILES = "files"
_ANCHORED = (CONFIG, POLICY_INFO)  # the run's own files the result hashes, beside the summaries
# Result fields that restate the configuration, and its key for each.
_FROM_CONFIG = {"controller": "controller", "robot_variant": "robot_variant", "control_hz": "control_hz",
                "action_schema": "action_schema", "fingerprint": "fingerprint"}


def canonical_sha256(body: dict) -> str:
    """SHA-256 of `body` as canonical JSON (sorted keys, no spaces): the same for every writer of the same values."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def seal(result: dict) -> dict:
    """`result` with its `record_sha256` (any earlier one replaced)."""
    body = {k: v for k, v in result.items() if k != SEAL}
    return {**body, SEAL: canonical_sha256(body)}


def anchored_files(run_path: str | os.PathLike, seeds: list[int]) -> dict[str, str]:
    """Run-relative path -> SHA-256 of the configuration, the policy info and each seed's summary."""
    run = RunDir(run_path)
    paths = [run.path / name for name in _ANCHORED] + [run.summary(seed) for seed in seeds]
    return {p.relative_to(run.path).as_posix(): file_sha256(p) for p in paths}


def figures(seeds: list[int], summaries: list) -> dict:
    """The result's figures from its episode summaries (records or JSON objects), in seed order."""
    rows = sorted((_get(s, "seed"), bool(_get(s, "success")), _get(s, "step"), _get(s, "outcome")) for s in summaries)
    successes = sum(success for _, success, _, _ in rows)
    return {
        "seeds": list(seeds),
        "episodes": len(rows),
        "successes": successes,
        "success_rate": successes / len(rows) if rows else None,
        "outcomes": [{"seed": seed, "success": success, "step": step, "outcome": outcome}
                     for seed, success, step, outcome in rows],
    }


def _get(summary, key: str):
    return summary[key] if isinstance(summary, dict) else getattr(summary, key)


def check_result(run_dir: str | os.PathLike, config: dict) -> RunCheck:
    """Problems of a run's `benchmark_result.json` (run-wide), and of the summaries it no longer matches (by seed)."""
    run_dir = Path(run_dir)
    path = run_dir / RESULT
    try:
        raw = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return RunCheck([f"{RESULT}: unreadable ({exc})"], {})
    if not isinstance(raw, dict) or SEAL not in raw or FILES not in raw:
        return RunCheck([f"{RESULT}: written without integrity hashes (by an earlier version); run the same "
                         "htb-eval command to check its episodes and seal it again"], {})
    try:
        result = convert(raw, BenchmarkResult, RESULT)
    except RecordError as exc:
        return RunCheck([str(exc)], {})
    problems: list[str] = []
    if result.status != "validated":
        problems.append(f"{RESULT}: status {result.status!r}, not 'validated'")
    seeds = list(config.get("seeds") or [])
    by_seed = _check_anchors(run_dir, result.files, seeds)
    summaries, _ = read_summaries(run_dir)
    if all(seed in summaries for seed in seeds):  # else the missing outcomes are the run's problem already
        derived = figures(seeds, [summaries[seed] for seed in seeds])
        for key, value in derived.items():
            claimed = getattr(result, key)
            if claimed != value:
                shown = f"{claimed!r}, its episodes give {value!r}" if key in ("episodes", "successes", "success_rate") \
                    else "other than its episodes'"
                problems.append(f"{RESULT}: {key} is {shown}")
    problems += [f"{RESULT}: {key} differs from {CONFIG}" for key, ck in _FROM_CONFIG.items()
                 if getattr(result, key) != config.get(ck)]
    if result.configuration != {key: config.get(key) for key in EvalConfig.__struct_fields__}:
        problems.append(f"{RESULT}: configuration differs from {CONFIG}")
    def without_chunk(info) -> dict:  # the result records the chunk size its episodes saw
        return {k: v for k, v in (info or {}).items() if k != "chunk_size"}

    if without_chunk(result.policy_info) != without_chunk(config.get("policy_info")):
        problems.append(f"{RESULT}: policy_info differs from {CONFIG}")
    if canonical_sha256({k: v for k, v in raw.items() if k != SEAL}) != raw[SEAL]:  # last: the figures say more
        problems.append(f"{RESULT}: changed after it was written ({SEAL} does not match its contents)")
    return RunCheck(problems, by_seed)


def _check_anchors(run_dir: Path, recorded: dict[str, str], seeds: list[int]) -> dict[int, list[str]]:
    """The anchored files against the hashes the result recorded; a summary's mismatch is its seed's."""
    names = list(_ANCHORED) + [f"summaries/episode_{seed}.json" for seed in seeds]
    found: dict[int, list[str]] = {}
    for name, seed in zip(names, [None] * len(_ANCHORED) + seeds):
        path = run_dir / name
        if name not in recorded:
            problem = f"{RESULT}: records no hash of {name}"
        elif not path.is_file():
            problem = f"{RESULT}: {name} missing"
        elif file_sha256(path) != recorded[name]:
            problem = f"{RESULT}: {name} changed after the result was written (sha256 mismatch)"
        else:
            continue
        found.setdefault(seed, []).append(problem)
    extra = sorted(set(recorded) - set(names))
    if extra:
        found.setdefault(None, []).append(f"{RESULT}: records hashes of files outside the run's episodes: {', '.join(extra)}")
    return found


def changed_anchors(run_dir: str | os.PathLike) -> list[str]:
    """The run's own files (configuration, policy info) its result recorded other hashes of: such a run
    describes another evaluation than its result, so it is never repaired in place."""
    run_dir = Path(run_dir)
    try:
        recorded = json.loads((run_dir / RESULT).read_text()).get(FILES) or {}
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return []
    return [name for name in _ANCHORED if name in recorded and (not (run_dir / name).is_file()
                                                                  or file_sha256(run_dir / name) != recorded[name])]


def verify(run_dir: str | os.PathLike, config: dict | None = None) -> RunCheck:
    """Every problem of a run: its episodes (`check_run`) and, once it has one, its result."""
    run_dir = Path(run_dir)
    if config is None:
        try:
            config = load_config(run_dir)
        except (OSError, ValueError) as exc:
            return RunCheck([f"cannot read {run_dir / CONFIG}: {exc}"], {})
    episodes = check_run(run_dir, config)
    if not (run_dir / RESULT).exists():
        return episodes
    result = check_result(run_dir, config)
    run_wide = result.episodes.pop(None, [])
    merged = {seed: episodes.episodes.get(seed, []) + result.episodes.get(seed, [])
              for seed in sorted(set(episodes.episodes) | set(result.episodes))}
    return RunCheck(episodes.run + result.run + run_wide, merged)


def verify_run(run_dir: str | os.PathLike, config: dict | None = None) -> list[str]:
    """Every problem of a run, one line each; empty: its result (if any) stands for its episodes."""
    return verify(run_dir, config).problems
