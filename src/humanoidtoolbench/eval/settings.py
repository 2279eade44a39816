"""The settings of one condition's evaluation and what makes them its suite's standard protocol."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import suites
from ..record.records import EvalConfig
from ..record.video import CODEC, FPS
from ..suites.base import Condition, Suite


@dataclass(frozen=True)
class EvalSettings:
    """Unset fields take the suite's standard protocol."""

    condition: Condition
    episodes: int | None = None
    seed_start: int | None = None
    max_steps: int | None = None
    record_video: bool = True
    recorded_cameras: tuple[str, ...] | None = None  # a subset of the suite's cameras to record (None: all of them)
    visual_detail: str | None = None
    controller: str | None = None
    look: str | None = None
    paper_metrics: bool = False  # htb-eval --metrics: the suite's opt-in metrics, recorded
    options: dict = field(default_factory=dict)  # the suite's episode options given; the rest standard

    def __post_init__(self) -> None:
        p = self.suite.protocol
        allowed = {o.name: o.values for o in self.suite.options}
        for name, value in self.options.items():
            if name not in allowed or value not in allowed[name]:
                choices = ", ".join(f"{k}: {list(v)}" for k, v in allowed.items()) or "none"
                raise ValueError(f"episode option {name}={value!r} is not one of the {self.suite.name} suite's ({choices})")
        object.__setattr__(self, "options", {k: self.options.get(k, v[0]) for k, v in allowed.items()})
        if self.recorded_cameras is not None:
            names = self.suite.cameras.names
            unknown = [c for c in self.recorded_cameras if c not in names]
            if unknown or not self.recorded_cameras:
                raise ValueError(f"recorded cameras {list(self.recorded_cameras)}: {unknown[0] if unknown else 'none named'}; the cameras are {', '.join(names)}")
            object.__setattr__(self, "recorded_cameras", tuple(c for c in names if c in self.recorded_cameras))
        for name, default in (
            ("episodes", p.episodes),
            ("seed_start", p.seed_start),
            ("max_steps", self.suite.budget(self.condition)),
            ("visual_detail", p.visual_detail),
            ("controller", p.controller),
            ("look", p.look),
        ):
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)

    @property
    def suite(self) -> Suite:
        return suites.suite_of(self.condition)

    @property
    def seeds(self) -> list[int]:
        return list(range(self.seed_start, self.seed_start + self.episodes))

    @property
    def cameras(self) -> tuple[str, ...]:
        cams = self.suite.cameras
        if not self.record_video:
            return (cams.policy_camera,)
        return self.recorded_cameras or cams.names

    @property
    def robot_variant(self) -> str:
        return self.suite.controller_class(self.controller).variant

    def diagnostic_reasons(self) -> list[str]:
        """Why these settings are not the standard protocol (empty when they are)."""
        p = self.suite.protocol
        reasons = []
        if self.episodes != p.episodes:
            reasons.append(f"{self.episodes} episodes instead of {p.episodes}")
        if self.seed_start != p.seed_start:
            reasons.append(f"seed start {self.seed_start} instead of {p.seed_start}")
        budget = self.suite.budget(self.condition)
        if self.max_steps != budget:
            reasons.append(f"{self.max_steps} steps instead of {budget}")
        if not self.record_video:
            reasons.append("videos not recorded (--no-video)")
        elif self.cameras != self.suite.cameras.names:
            reasons.append(f"cameras {', '.join(self.cameras)} recorded instead of {', '.join(self.suite.cameras.names)}")
        if self.visual_detail != p.visual_detail:
            reasons.append(f"visual detail {self.visual_detail!r} instead of {p.visual_detail!r}")
        if self.controller != p.controller:
            reasons.append(f"controller {self.controller!r} instead of {p.controller!r}")
        if self.look != p.look:
            reasons.append(f"look {self.look!r} instead of {p.look!r}")
        return reasons + self.suite.option_reasons(self.options)

    def config(self) -> EvalConfig:
        """The settings as written to evaluation_config.json and compared on resume."""
        suite, cams = self.suite, self.suite.cameras
        return EvalConfig(
            protocol=suite.protocol.name,
            suite=suite.name,
            env_id=self.condition.env_id,
            condition=self.condition.name,
            instruction=self.condition.instruction,
            episodes=self.episodes,
            seed_start=self.seed_start,
            seeds=self.seeds,
            max_steps=self.max_steps,
            control_hz=suite.protocol.control_hz,
            action_schema=suite.contract_for(self.controller),
            controller=self.controller,
            robot_variant=self.robot_variant,
            record_video=self.record_video,
            paper_metrics=self.paper_metrics,
            options=self.options or None,
            visual_detail=self.visual_detail,
            look=self.look,
            cameras=list(self.cameras) if self.record_video else [],
            video={"fps": FPS, "width": cams.width, "height": cams.height, "codec": "h264", "encoder": CODEC},
        )
