"""The find-navigate-sit suite behind the Suite seam: a planner per decision, scored by the paper metrics.

Conditions are the fixed split (`FINDSIT-val`, 1200 episodes) and its
100-episode subset (`FINDSIT-val100`); the episode "seed" is the index of an
episode in the condition's list, so `--seed-start` and `--episodes` cut
shards for distributed runs. The split is generated once, deterministically,
into the data directory beside the robot asset (`split.py` writes it).
Importing this module loads no simulator.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

import numpy as np

from ...control.contracts.decoupled_v1 import STATE_DIM
from ...policies.request_schema import image_and_state
from ..base import FELL, SUCCESS, TIMEOUT, Cameras, StandardProtocol, Suite
from . import split
from .contract import DISCRETE_SKILL_V1, SKILL_STEPS
from .policies import IMAGE_KEY, PLANS
from .profiles import PROFILES

MAX_DECISIONS = 100
STOPPED = "stopped"
EGO = "ego"
# A request as a policy server checks it: the ego image, the robot's joint state, the episode's instruction.
REQUEST_SCHEMA = image_and_state("findsit_request_v1", IMAGE_KEY, STATE_DIM)
PAPER_METRICS = "paper_metrics/episode_*/metrics.json"  # an episode's record, among the files its summary lists


@lru_cache(maxsize=1)
def split_dir() -> Path:
    """The generated split, made on first use (about 16 s) and reused after, checked against its digest.

    Written into a private directory and renamed into place, so processes
    starting together (workers, test runners) never read a half-written split.
    """
    from ...robot.assets import data_home, unwritable_home  # here: the asset module loads MuJoCo, which htb-metrics never does

    path = data_home() / "findsit" / f"split-{split.SCHEMA}-{split.APARTMENTS}x{split.EPISODES}"
    if not path.is_dir():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=".split-", dir=path.parent))
            try:
                split.write_split(tmp, progress=lambda line: None)
                os.replace(tmp, path)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        except OSError as exc:
            if not path.is_dir():  # another process did not win the race either
                raise split.SplitError(unwritable_home(exc, "the find-navigate-sit split")) from None
    split.check_split(path)
    return path


@lru_cache(maxsize=2)
def episodes_of(subset: str) -> tuple:
    root = split_dir()
    return tuple(split.load_split(root / "val100.json" if subset == "val100" else root))


@dataclass(frozen=True)
class FindSitCondition:
    suite: ClassVar[str] = "findsit"
    subset: str  # "val" or "val100"

    @property
    def name(self) -> str:
        return f"FINDSIT-{self.subset}"

    @property
    def env_id(self) -> str:
        return self.name

    @property
    def instruction(self) -> str:
        return "Find the target named in each episode (one instruction per episode)."

    @property
    def size(self) -> int:
        """Episodes in the list, known without generating the split."""
        apartments, episodes = split.VAL100 if self.subset == "val100" else (split.APARTMENTS, split.EPISODES)
        return apartments * episodes

    def episode(self, index: int):
        episodes = episodes_of(self.subset)
        if not 0 <= index < len(episodes):
            raise IndexError(f"{self.name} has episodes 0-{len(episodes) - 1}; got {index}")
        return episodes[index]


CONDITIONS = (FindSitCondition("val100"), FindSitCondition("val"))


class FindSit(Suite):
    name = "findsit"
    protocol = StandardProtocol(name="findsit_paper_metrics_v1", episodes=100, seed_start=0,
                                max_steps=MAX_DECISIONS * SKILL_STEPS)
    cameras = Cameras((EGO,), EGO, 448, 448)
    contract = DISCRETE_SKILL_V1.name
    request_schema = REQUEST_SCHEMA
    outcomes = (SUCCESS, TIMEOUT, STOPPED, FELL)
    builtin_policies = {
        "oracle": "humanoidtoolbench.suites.findsit.policies:oracle",
        "random": "humanoidtoolbench.suites.findsit.policies:random_planner",
        "llm": "humanoidtoolbench.suites.findsit.policies:llm",
    }
    paper_metrics = True
    controller_tables = (PROFILES, PLANS)  # how the skills and the oracle differ by controller

    @property
    def conditions(self):
        return CONDITIONS

    @property
    def controllers(self) -> tuple[str, ...]:
        return ("assisted", "balanced")  # both execute decoupled_v1, the skills' commands (episode.py)

    def check_data(self) -> None:
        split_dir()

    def seed_count(self, condition) -> int:
        return condition.size

    def make_episode(self, condition, seed: int, controller, detail: str, look: str | None = None):
        from .episode import FindSitEpisode

        return FindSitEpisode(condition, seed, controller, look or self.protocol.look, detail)

    def gallery(self):
        from .gallery import gallery

        return gallery()

    def build_request(self, episode, image: np.ndarray, reset: bool) -> dict:
        # The segmentation render is the metrics' alone (FindSR's pixels): skipped in a run without them.
        episode.target_pixels = episode.count_target_pixels() if episode.paper_metrics else None
        return {
            "image": {IMAGE_KEY: image},
            "state": {"states": episode.state().reshape(1, -1)},
            "instruction": episode.spec.instruction,
            "history": {"reset": reset},
        }

    def sinks(self, episode, run_dir, seed: int) -> list:
        if not episode.paper_metrics:
            return []
        from .recording import PaperMetricsSink

        return [PaperMetricsSink(episode, Path(run_dir), seed)]

    needs_model_config = ("llm",)

    def check_model_config(self, path: Path) -> dict:
        """The `llm` planner's configuration, parsed and its key found, before any simulation."""
        from .planner.config import api_key, model_identity, parse_model_config

        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"cannot read it ({exc.strerror})") from None
        config = parse_model_config(data)
        api_key(config)
        return model_identity(config)

    def failure_cause(self, condition, summary: dict) -> str:
        return {TIMEOUT: "no active stop in 100 decisions", STOPPED: "stopped short of the success rule"}.get(
            summary.get("outcome"), summary.get("outcome", "unknown")
        )

    def offline_report(self, runs):
        from .metrics.aggregate import summarize
        from .metrics.files import read_records
        from .metrics.markdown import format_summary

        import msgspec

        files = [path for run in runs for path in run.files if path.match(PAPER_METRICS)]
        if not files:
            if runs and not any(run.config.get("paper_metrics") for run in runs):
                note = "no paper metrics recorded (the runs were made without htb-eval --metrics)"
                return f"Find-navigate-sit: {note}.", {"note": note}
            return None
        summary = summarize(read_records(files))
        return format_summary(summary), msgspec.to_builtins(summary)


SUITE = FindSit()
