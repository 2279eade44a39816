"""The find-navigate-sit suite behind the Suite seam: a planner per decision, scored by the paper metrics.

Conditions are the fixed split (`FINDSIT-val`, 1200 episodes) and its
100-episode subset (`FINDSIT-val100`); the episode "seed" is the index of an
episode in the condition's list, so `--seed-start` and `--episodes` cut
shards for distributed runs. The split is generated once, deterministically,
into the data directory beside the robot asset (`split.py` writes it).
Importing this module loads no simulator.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

import numpy as np

from ...eval.rundir import CONFIG
from ..base import FELL, SUCCESS, TIMEOUT, Cameras, StandardProtocol, Suite
from . import split
from .policies import IMAGE_KEY

MAX_DECISIONS = 100
SKILL_STEPS = 25  # 0.5 s at 50 Hz per decision
STOPPED = "stopped"
EGO = "ego"


@lru_cache(maxsize=1)
def split_dir() -> Path:
    """The generated split, made on first use (about 16 s) and reused after.

    Written into a private directory and renamed into place, so processes
    starting together (workers, test runners) never read a half-written split.
    """
    from ...robot.assets import data_home  # here: the asset module loads MuJoCo, which htb-metrics never does

    path = data_home() / "findsit" / f"split-{split.SCHEMA}-{split.APARTMENTS}x{split.EPISODES}"
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".split-", dir=path.parent))
        try:
            split.write_split(tmp, progress=lambda line: None)
            os.replace(tmp, path)
        except OSError:
            if not path.is_dir():  # another process did not win the race either
                raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
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
    contract = "discrete_skill_v1"
    outcomes = (SUCCESS, TIMEOUT, STOPPED, FELL)
    builtin_policies = {
        "oracle": "humanoidtoolbench.suites.findsit.policies:oracle",
        "random": "humanoidtoolbench.suites.findsit.policies:random_planner",
        "llm": "humanoidtoolbench.suites.findsit.policies:llm",
    }
    paper_metrics = True

    @property
    def conditions(self):
        return CONDITIONS

    @property
    def controllers(self) -> tuple[str, ...]:
        return ("assisted", "balanced")  # both execute decoupled_v1, the skills' commands (episode.py)

    def seed_count(self, condition) -> int:
        return condition.size

    def make_episode(self, condition, seed: int, controller, detail: str, look: str | None = None):
        from .episode import FindSitEpisode

        return FindSitEpisode(condition, seed, controller=controller, detail=detail, look=look)

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

    def failure_cause(self, condition, summary: dict) -> str:
        return {TIMEOUT: "no active stop in 100 decisions", STOPPED: "stopped short of the success rule"}.get(
            summary.get("outcome"), summary.get("outcome", "unknown")
        )

    def offline_report(self, output):
        from .metrics import format_summary, read_run, summarize

        import msgspec

        if not any(Path(output).rglob("paper_metrics/*/metrics.json")):
            if any(_is_findsit_run(config) for config in Path(output).rglob(CONFIG)):
                note = "no paper metrics recorded (the runs were made without htb-eval --metrics)"
                return f"Find-navigate-sit: {note}.", {"note": note}
            return None
        summary = summarize(read_run(output))
        return format_summary(summary), msgspec.to_builtins(summary)


def _is_findsit_run(config: Path) -> bool:
    try:
        return json.loads(config.read_text()).get("suite") == FindSit.name
    except (OSError, ValueError, AttributeError):
        return False


SUITE = FindSit()
