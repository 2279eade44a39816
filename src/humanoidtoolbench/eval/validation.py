"""The checks a run directory must pass before any score is computed from it.

Every episode needs a summary of the recorded type, an outcome of its
suite's vocabulary that is internally consistent, one metrics line per
step that gives the summary's figures again (`derive`: step, ending, success,
final metrics, what was ever true), its other recorded files unchanged (size
and SHA-256 as the summary recorded them) and, when videos are recorded, one decodable H.264 stream per
camera with exactly `step + 1` frames at 50 frames/s, not black, and
distinct from the other cameras. Videos are probed (fully decoded) once,
right after the episode; later checks tie those recorded facts to the files
through their SHA-256.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import NamedTuple

from .. import suites
from ..digest import file_sha256
from ..record.probe import VideoError, VideoFacts, probe_video
from ..record.records import EpisodeSummary, RecordError, convert
from ..suites.base import SUCCESS, TIMEOUT
from .derive import FactsError, disagreements, episode_facts

CONFIG_FILE = "evaluation_config.json"
_LISTED = 12  # seeds named in one problem line before "and N more"


class ValidationError(RuntimeError):
    """A run that failed validation; `problems` holds every reason."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        super().__init__(f"{problems[0]}{more}" if problems else "validation failed")


def video_path(seed: int, camera: str) -> str:
    """Where the runner writes a video, relative to the run directory."""
    return f"videos/episode_{seed}/{camera}.mp4"


def check_video(facts: VideoFacts, expected_frames: int, video_cfg: dict, name: str = "video") -> list[str]:
    """Problems with one probed video; `name` (camera or file) starts each line."""
    problems = []
    if facts.codec != video_cfg["codec"]:
        problems.append(f"codec is {facts.codec}, expected {video_cfg['codec']}")
    if (facts.width, facts.height) != (video_cfg["width"], video_cfg["height"]):
        problems.append(f"size is {facts.width}x{facts.height}, expected {video_cfg['width']}x{video_cfg['height']}")
    if abs(facts.fps - video_cfg["fps"]) > 1e-9:
        problems.append(f"frame rate is {facts.fps:g}, expected {video_cfg['fps']}")
    if facts.frames != expected_frames:
        problems.append(f"has {facts.frames} frames, expected {expected_frames}")
    if not facts.pts_ok:
        problems.append("frame timestamps are not 0, 1, 2, ... frame periods")
    if facts.max_pixel <= 1:
        problems.append("is black (no pixel above 1)")
    return [f"{name}: {p}" for p in problems]


def validate_episode_videos(run_dir: str | os.PathLike, config: dict, seed: int, step: int) -> list[dict]:
    """Probe an episode's videos and return the summary's `videos` entries.

    Raises VideoError for a file that cannot be decoded, and also for one that
    decodes but fails `check_video`: a bad recording stops the run at the
    episode that produced it rather than after the last one.
    """
    entries, problems = [], []
    for camera in config["cameras"]:
        rel = video_path(seed, camera)
        facts = probe_video(Path(run_dir) / rel)
        problems += check_video(facts, step + 1, config["video"], f"seed {seed} {camera}")
        entries.append({"camera": camera, "path": rel, **facts.to_json()})
    if problems:
        raise VideoError("; ".join(problems))
    return entries


def check_episode(run_dir: str | os.PathLike, config: dict, summary: dict) -> list[str]:
    """Problems with one episode's outcome and files, each line starting with its seed."""
    run_dir = Path(run_dir)
    seed = summary.get("seed")
    try:
        convert(summary, EpisodeSummary, f"summaries/episode_{seed}.json")
    except RecordError as exc:
        return [f"seed {seed}: {exc}"]
    outcomes = suites.get(config.get("suite", suites.default().name)).outcomes
    problems = _check_outcome(summary, config["max_steps"], outcomes)
    if not problems:  # the frame and line counts need a valid step
        if config["record_video"]:
            problems += _check_videos(run_dir, config, summary)
        problems += _check_metrics(run_dir, summary)
    problems += _check_files(run_dir, summary)
    return [f"seed {seed}: {p}" for p in dict.fromkeys(problems)]  # a missing metrics file is named once


def _check_outcome(summary: dict, max_steps: int, outcomes: tuple[str, ...]) -> list[str]:
    step, outcome = summary["step"], summary["outcome"]
    if not 1 <= step <= max_steps:
        return [f"step {step!r} outside 1..{max_steps}"]
    if outcome not in outcomes:
        return [f"outcome {outcome!r} is not one of {', '.join(outcomes)}"]
    problems = []
    if summary["success"] is not (outcome == SUCCESS) or summary["terminated"] is (outcome == TIMEOUT):
        problems.append(
            f"inconsistent outcome {outcome!r}: success={summary['success']}, terminated={summary['terminated']}"
        )
    if outcome == TIMEOUT and (step != max_steps or summary["truncated"] is not True):
        problems.append(f"timeout at step {step} (truncated={summary['truncated']}), expected step {max_steps}")
    return problems


def _check_metrics(run_dir: Path, summary: dict) -> list[str]:
    """The summary's figures derived again from its metrics file, one line per step: a file cut short
    or padded is caught even where no size was recorded, and a summary that claims what its metrics
    file does not say is named."""
    seed = summary["seed"]
    rel = f"metrics/episode_{seed}.jsonl"
    try:
        facts = episode_facts(run_dir / rel, seed, rel)
    except FactsError as exc:
        return [str(exc)]
    if facts.step != summary["step"]:
        return [f"{rel} has {facts.step} lines for {summary['step']} steps"]
    return disagreements(summary, facts, f"summaries/episode_{seed}.json", rel)


def _check_files(run_dir: Path, summary: dict) -> list[str]:
    """The episode's recorded files, against the sizes and SHA-256 its summary holds."""
    problems = []
    for rel, facts in sorted((summary.get("files") or {}).items()):
        path = run_dir / rel
        if not path.is_file():
            problems.append(f"{rel} missing")
        elif path.stat().st_size != facts.get("size") or file_sha256(path) != facts.get("sha256"):
            problems.append(f"{rel} changed after it was written (size or sha256 mismatch)")
    return problems


def _check_videos(run_dir: Path, config: dict, summary: dict) -> list[str]:
    seed, entries = summary["seed"], summary.get("videos") or []
    cameras = [e.get("camera") for e in entries]
    problems = [f"no video for camera {c}" for c in config["cameras"] if c not in cameras]
    problems += [f"{cameras.count(c)} videos for camera {c}" for c in dict.fromkeys(cameras) if cameras.count(c) > 1]
    problems += [f"video for unknown camera {c}" for c in dict.fromkeys(cameras) if c not in config["cameras"]]
    decoded: dict[str, list[str]] = {}
    for entry in entries:
        camera = entry.get("camera")
        if entry.get("path") != video_path(seed, camera):
            problems.append(f"{camera}: video path {entry.get('path')!r}, expected {video_path(seed, camera)!r}")
            continue
        path = run_dir / entry["path"]
        if not path.is_file():
            problems.append(f"{camera}: {entry['path']} missing")
            continue
        try:
            facts = VideoFacts.from_json(entry)
        except (KeyError, TypeError) as exc:
            problems.append(f"{camera}: recorded video facts incomplete ({exc})")
            continue
        if file_sha256(path) != facts.sha256:
            problems.append(f"{camera}: {entry['path']} changed after it was probed (sha256 mismatch)")
            continue
        problems += check_video(facts, summary["step"] + 1, config["video"], camera)
        decoded.setdefault(facts.decoded_sha256, []).append(camera)
    problems += [f"identical decoded streams: {', '.join(c)}" for c in decoded.values() if len(c) > 1]
    return problems


def load_config(run_dir: str | os.PathLike) -> dict:
    return json.loads((Path(run_dir) / CONFIG_FILE).read_text())


class RunCheck(NamedTuple):
    """What `check_run` found: problems of the run as a whole, and those of each recorded episode."""

    run: list[str]  # the configuration, missing and extra outcomes, summaries that name no configured seed
    episodes: dict[int, list[str]]  # configured seed -> problems of its recorded episode (its summary included)

    @property
    def problems(self) -> list[str]:
        return self.run + [p for seed in sorted(self.episodes) for p in self.episodes[seed]]


def check_run(run_dir: str | os.PathLike, config: dict | None = None) -> RunCheck:
    """Every problem with a run directory, one line each, by episode where one is to blame.

    The condition runner redoes the episodes named in `episodes`; a seed with
    no summary file counts as not run, not as damaged.
    """
    run_dir = Path(run_dir)
    if config is None:
        try:
            config = load_config(run_dir)
        except (OSError, ValueError) as exc:
            return RunCheck([f"cannot read {run_dir / CONFIG_FILE}: {exc}"], {})
    seeds = list(config["seeds"])
    problems: list[str] = []
    if len(seeds) != config["episodes"] or len(set(seeds)) != len(seeds):
        problems.append(f"configuration lists {len(set(seeds))} distinct seeds for {config['episodes']} episodes")
    summaries, unreadable = read_summaries(run_dir)
    episodes: dict[int, list[str]] = {}
    for seed, problem in unreadable:
        if seed in seeds:
            episodes.setdefault(seed, []).append(problem)
        else:
            problems.append(problem)
    missing = [s for s in seeds if s not in summaries]
    if missing:
        problems.append(f"missing outcomes for {_count(missing)}: {compact_seeds(missing)}")
    extra = sorted(set(summaries) - set(seeds))
    if extra:
        problems.append(f"outcomes for {_count(extra)} outside the configured list: {compact_seeds(extra)}")
    for seed in seeds:
        found = check_episode(run_dir, config, summaries[seed]) if seed in summaries else []
        if found:
            episodes[seed] = found
    return RunCheck(problems, episodes)


def validate_run(run_dir: str | os.PathLike, config: dict | None = None) -> list[str]:
    """Every problem with a run directory, one line each; empty means valid."""
    return check_run(run_dir, config).problems


def summarize_problems(problems: list[str], shown: int = 4) -> str:
    """The first `shown` problems on one line, and how many more there are."""
    more = f"; and {len(problems) - shown} more" if len(problems) > shown else ""
    return "; ".join(problems[:shown]) + more


def revalidate_videos(run_dir: str | os.PathLike, config: dict) -> list[str]:
    """Deep check: decode every video again and compare with the recorded facts."""
    run_dir = Path(run_dir)
    problems = []
    if not config["record_video"]:
        return problems
    summaries, _ = read_summaries(run_dir)
    for seed, summary in sorted(summaries.items()):
        for entry in summary.get("videos") or []:
            try:
                facts = probe_video(run_dir / entry["path"]).to_json()
            except (VideoError, KeyError) as exc:
                problems.append(f"seed {seed}: {exc}")
                continue
            changed = sorted(k for k, v in facts.items() if entry.get(k) != v)
            if changed:
                problems.append(f"seed {seed}: {entry['path']} no longer matches its recorded {', '.join(changed)}")
    return problems


def read_summaries(run_dir: Path) -> tuple[dict[int, dict], list[tuple[int | None, str]]]:
    """Episode summaries by seed, and (seed of its name or None, problem) for files that cannot serve as one."""
    found, problems = {}, []
    for path in sorted((run_dir / "summaries").glob("episode_*.json")):
        name = f"summaries/{path.name}"
        try:
            seed = int(path.stem.removeprefix("episode_"))
        except ValueError:
            problems.append((None, f"{name}: not named after a seed"))
            continue
        try:
            summary = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            problems.append((seed, f"{name}: unreadable ({exc})"))
            continue
        if not isinstance(summary, dict) or summary.get("seed") != seed:
            problems.append((seed, f"{name}: does not hold the summary of seed {seed}"))
            continue
        found[seed] = summary
    return found, problems


def compact_seeds(seeds: list[int]) -> str:
    """'10004, 10017, 10090', with consecutive runs as '10000-10049' and a cap on length."""
    runs: list[list[int]] = []
    for s in sorted(seeds):
        if runs and s == runs[-1][1] + 1:
            runs[-1][1] = s
        else:
            runs.append([s, s])
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs]
    more = f" and {len(parts) - _LISTED} more" if len(parts) > _LISTED else ""
    return ", ".join(parts[:_LISTED]) + more


def _count(seeds: list[int]) -> str:
    return f"{len(seeds)} seed" + ("" if len(seeds) == 1 else "s")
