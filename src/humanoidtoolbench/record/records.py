"""The recorded files of a run as typed models, one definition for writing and reading.

Every record carries `schema_version`; readers reject a file that does not
match its model (a wrong type, a missing field) with one line naming the
file, instead of failing later on a dictionary key. Suite-specific values
(metrics, what was ever true) stay JSON objects inside the typed envelope.
Files are written with the standard `json` module so that their bytes stay
those of earlier versions (the per-step metrics lines in particular).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

import msgspec

SCHEMA_VERSION = 1
T = TypeVar("T", bound=msgspec.Struct)


class RecordError(ValueError):
    """A recorded file that is not the record it claims to be; one line."""


class Record(msgspec.Struct, kw_only=True):
    schema_version: int = SCHEMA_VERSION

    def to_json(self) -> dict:
        """A JSON object with `schema_version` first, as files of every version begin."""
        fields = msgspec.to_builtins(self)
        return {"schema_version": fields.pop("schema_version"), **fields}


class MetricsLine(Record):
    """One control step of `metrics/episode_<seed>.jsonl`."""

    episode: int
    step: int
    reward: float
    terminated: bool
    truncated: bool
    metrics: dict[str, Any]

    def encode(self) -> str:
        return json.dumps(self.to_json(), allow_nan=False) + "\n"


class VideoEntry(msgspec.Struct, kw_only=True):
    """One camera's video of an episode, with the facts probed right after it was written."""

    camera: str
    path: str
    codec: str
    width: int
    height: int
    fps: float
    frames: int
    pts_ok: bool
    max_pixel: int
    sha256: str
    decoded_sha256: str


class PolicyCall(msgspec.Struct, kw_only=True):
    """One request to the policy: when, what came back, and the reply's own metadata."""

    request: int
    step: int  # the first step its chunk drives
    rows: int
    seconds: float
    metadata: dict[str, Any] = {}


class EpisodeSummary(Record):
    """`summaries/episode_<seed>.json`, written last: its presence marks the episode complete."""

    env_id: str
    seed: int
    instruction: str
    step: int
    success: bool
    terminated: bool
    truncated: bool
    outcome: str
    episode_seconds: float = 0.0
    settle_steps: int = 0
    policy_requests: int = 0
    chunk_lengths: list[int] = []
    renderer: str | None = None
    seconds: dict[str, float] = {}
    final_metrics: dict[str, Any] = {}
    ever_true: dict[str, bool] = {}
    first_true_step: dict[str, int | None] = {}
    numeric_min: dict[str, float] = {}
    numeric_max: dict[str, float] = {}
    videos: list[VideoEntry] = []
    files: dict[str, dict[str, Any]] = {}  # run-relative path -> {"size", "sha256"} of the episode's other files
    fell: bool = False
    fall_step: int | None = None


class EvalConfig(Record):
    """The settings of a condition's evaluation, compared on resume."""

    protocol: str
    suite: str
    env_id: str
    condition: str
    instruction: str
    episodes: int
    seed_start: int
    seeds: list[int]
    max_steps: int
    control_hz: int
    action_schema: str
    controller: str
    robot_variant: str
    record_video: bool
    visual_detail: str
    cameras: list[str]
    video: dict[str, Any]
    # Recorded paper metrics change what a run holds: a run without them (or one written before the
    # setting existed: None on resume) is never continued with them, nor the other way round.
    paper_metrics: bool
    # The suite's episode options (observation mode, randomisation, ...); None for a suite without any,
    # as in configurations written before options existed.
    options: dict[str, Any] | None = None
    # How the scenes were drawn (`sim.look`); a run written before looks existed drew the flat
    # colours the `fast` look keeps.
    look: str = "fast"


class RunConfig(EvalConfig, kw_only=True):
    """`evaluation_config.json`: the settings, then what identifies the run's policy and code."""

    fingerprint: dict[str, Any]
    policy_info: dict[str, Any]
    policy_label: str = ""  # what produced the run, as reports name it (`eval.identity`); suites' records carry it


class BenchmarkResult(Record):
    """`benchmark_result.json`: written only after validation; its figures are derived from the summaries
    and it is sealed (`eval.integrity`)."""

    protocol: str
    status: str
    suite: str
    env_id: str
    condition: str
    configuration: dict[str, Any]
    seeds: list[int]
    episodes: int
    successes: int
    success_rate: float
    reportable: bool
    reasons: list[str]
    policy_info: dict[str, Any]
    controller: str
    robot_variant: str
    control_hz: int
    action_schema: str
    outcomes: list[dict[str, Any]]
    videos: list[dict[str, Any]]
    source_sha256: dict[str, str]
    source_digest: str
    assets: dict[str, Any]
    lock_sha256: str
    code: dict[str, Any]
    python: str
    versions: dict[str, str]
    execution_environment: dict[str, Any]
    render: dict[str, Any]
    execution: dict[str, Any]
    fingerprint: dict[str, Any]
    run_dir: str
    wall_seconds: float
    episodes_per_second: float | None
    finished_at: str
    files: dict[str, str]  # run-relative path -> SHA-256 of the configuration, policy info and every summary
    record_sha256: str  # SHA-256 of the canonical JSON of every other field (`eval.integrity`)
    look: str = "fast"  # as in EvalConfig: results from before looks existed drew the fast look's flat colours


def convert(obj: Any, model: type[T], name: str = "record") -> T:
    """A decoded JSON value as `model`, or RecordError naming `name` and what is wrong."""
    try:
        return msgspec.convert(obj, model)
    except msgspec.ValidationError as exc:
        raise RecordError(f"{name}: not a valid {model.__name__} ({exc})") from None


def read(path: Path, model: type[T], name: str | None = None) -> T:
    """Read and check one recorded JSON file."""
    label = name or str(path)
    try:
        raw = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RecordError(f"{label}: unreadable ({exc})") from None
    return convert(raw, model, label)
