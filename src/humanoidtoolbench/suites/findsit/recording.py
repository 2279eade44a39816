"""The paper metrics of one episode, written when it ends: `paper_metrics/episode_<seed>/metrics.json`.

The episode accumulates what the metrics need as it runs (decisions with
their target pixels, contacts per control step, dynamic objects' paths,
commanded body points); this sink turns that into the metrics record when
the episode closes, so `htb-metrics` scores a run from files alone. Each record
names its planner: the policy label of the run's configuration.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...record.recorder import Sink
from .metrics.files import METRICS_FILE, write_episode_metrics
from .metrics.scoring import episode_metrics

RUN_CONFIG = "evaluation_config.json"  # the run's settings and policy, written before any episode


class PaperMetricsSink(Sink):
    def __init__(self, episode, run_dir: Path, seed: int) -> None:
        self.episode = episode
        self.path = run_dir / "paper_metrics" / f"episode_{seed}" / METRICS_FILE
        self.planner = _policy_label(run_dir)

    def close(self) -> list[Path]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return [write_episode_metrics(self.path, episode_metrics(self.episode.episode_data(self.planner)))]


def _policy_label(run_dir: Path) -> str:
    """What produced the run (its policy, checkpoint, model, controller), as its configuration names it."""
    try:
        return str(json.loads((run_dir / RUN_CONFIG).read_text()).get("policy_label") or "")
    except (OSError, ValueError, AttributeError):
        return ""
