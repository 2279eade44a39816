"""The settings of one condition's evaluation and what makes them the standard protocol."""

from __future__ import annotations

from dataclasses import dataclass

from ..control.contract import SCHEMA
from ..record.video import CODEC, FPS
from ..robot.cameras import CAMERA_NAMES, HEIGHT, POLICY_CAMERA, WIDTH
from ..tasks.registry import EPISODES, MAX_STEPS, SEED_START, Condition

PROTOCOL = "humanoidtoolbench_canonical_evaluation_v1"
CONTROL_HZ = 50
MAX_STEPS_LIMIT = MAX_STEPS


@dataclass(frozen=True)
class EvalSettings:
    condition: Condition
    episodes: int = EPISODES
    seed_start: int = SEED_START
    max_steps: int = MAX_STEPS
    record_video: bool = True
    visual_detail: str = "fast"
    controller: str = "assisted"

    @property
    def seeds(self) -> list[int]:
        return list(range(self.seed_start, self.seed_start + self.episodes))

    @property
    def cameras(self) -> tuple[str, ...]:
        return CAMERA_NAMES if self.record_video else (POLICY_CAMERA,)

    def diagnostic_reasons(self) -> list[str]:
        """Why these settings are not the standard protocol (empty when they are)."""
        reasons = []
        if self.episodes != EPISODES:
            reasons.append(f"{self.episodes} episodes instead of {EPISODES}")
        if self.seed_start != SEED_START:
            reasons.append(f"seed start {self.seed_start} instead of {SEED_START}")
        if self.max_steps != MAX_STEPS:
            reasons.append(f"{self.max_steps} steps instead of {MAX_STEPS}")
        if not self.record_video:
            reasons.append("videos not recorded (--no-video)")
        if self.visual_detail != "fast":
            reasons.append(f"visual detail {self.visual_detail!r} instead of 'fast'")
        return reasons

    def config(self) -> dict:
        """The settings as written to evaluation_config.json and compared on resume."""
        return {
            "protocol": PROTOCOL,
            "env_id": self.condition.env_id,
            "condition": self.condition.name,
            "instruction": self.condition.instruction,
            "episodes": self.episodes,
            "seed_start": self.seed_start,
            "seeds": self.seeds,
            "max_steps": self.max_steps,
            "control_hz": CONTROL_HZ,
            "action_schema": SCHEMA,
            "controller": self.controller,
            "record_video": self.record_video,
            "visual_detail": self.visual_detail,
            "cameras": list(self.cameras) if self.record_video else [],
            "video": {"fps": FPS, "width": WIDTH, "height": HEIGHT, "codec": "h264", "encoder": CODEC},
        }
