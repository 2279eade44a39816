"""The Suite and Task seams: what the core asks of a benchmark suite and of one of its episodes.

A suite is one package under `suites/` (or any importable module named in
`HTB_SUITES`) exposing a `SUITE` object. The runner, backends, resume,
validation, provenance, progress and `htb-metrics` reach a suite only
through these classes, so adding a suite changes no core module.

A suite owns what its policies speak: the action contracts it registers
(`contract_for` names the one a controller executes), its request schema (what
a policy server checks a request against) and its policy camera (`cameras`).

This module imports neither MuJoCo nor a suite: `htb-metrics` reads suites
through it without a simulator.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ClassVar, Protocol

import numpy as np

from ..control import contracts
from ..control.contracts.base import ActionContract
from ..policies.openpi_keys import OpenpiKeys, derived
from ..policies.request_schema import RequestSchema
from .options import Option
from .per_controller import MissingRow, PerController

SUCCESS, TIMEOUT, FELL = "success", "timeout", "fell"


class Condition(Protocol):
    """One evaluated environment of a suite (a frozen, picklable value)."""

    suite: ClassVar[str]

    @property
    def name(self) -> str: ...

    @property
    def env_id(self) -> str: ...

    @property
    def instruction(self) -> str: ...


@dataclass(frozen=True)
class StandardProtocol:
    """A suite's standard protocol: anything else is a diagnostic run."""

    name: str
    episodes: int
    seed_start: int
    max_steps: int
    control_hz: int = 50
    controller: str = "assisted"
    visual_detail: str = "fast"
    look: str = "standard"  # how scenes are drawn: a name of `sim.look.LOOKS`, one of the suite's `looks`


@dataclass(frozen=True)
class RecordedRun:
    """A run a report scores, as a suite's offline scorer sees it: verified (`eval.integrity`), with the
    episode files its validation covered, the only ones the scorer may read."""

    condition: str
    path: Path
    config: dict
    files: tuple[Path, ...]


@dataclass(frozen=True)
class Cameras:
    """What an episode records and which camera the policy sees."""

    names: tuple[str, ...]
    policy_camera: str
    width: int
    height: int


@dataclass(frozen=True)
class Subject:
    """One close-up of a suite's gallery: `build(spec, look)` adds the object to an empty room's spec
    near the origin and returns the point to look at (None: the origin); `prepare(model, data)`, if
    given, sets the compiled scene's state before the picture (a block broken, say); `distance` (m)
    is how far the camera stands from that point."""

    name: str
    build: Callable
    distance: float = 0.6
    elevation: float = -30.0  # degrees; negative looks down
    azimuth: float = 120.0  # degrees
    prepare: Callable | None = None


@dataclass(frozen=True)
class Gallery:
    """A suite's gallery: close-up subjects, and (condition, seed) pairs whose first policy image is shown."""

    subjects: tuple[Subject, ...] = ()
    episodes: tuple[tuple[Condition, int], ...] = ()


@dataclass(frozen=True)
class StepResult:
    """One command's outcome. `outcome` is set on the step that ends the episode early."""

    metrics: dict
    success_now: bool  # the predicate holds on this step
    success: bool  # it has held for the suite's hold window
    outcome: str | None = None  # SUCCESS, FELL or one of the suite's own terminations


class HoldCounter:
    """Success once a predicate has held for `required` consecutive control steps; a miss resets it."""

    def __init__(self, required: int) -> None:
        self.required = max(int(required), 1)
        self.count = 0

    def update(self, ok: bool) -> bool:
        self.count = self.count + 1 if ok else 0
        return self.count >= self.required


def terminal_outcome(success: bool, fallen: bool) -> str | None:
    """The shared order of early endings: success first, then a fall."""
    return SUCCESS if success else FELL if fallen else None


class Episode(ABC):
    """The Task seam: one seeded episode of a condition, stepped one command at a time."""

    settle_steps: int = 0
    condition: Condition
    paper_metrics: bool = False  # set by the runner: the run records the suite's opt-in metrics (--metrics)

    @property
    def model(self):
        """The compiled scene (an episode built on `sim.Simulation` keeps it as `self.sim`)."""
        return self.sim.model

    @property
    def data(self):
        return self.sim.data

    @abstractmethod
    def reset(self) -> None:
        """Place the robot in the scene built at construction and let it settle; metrics take their baselines here."""

    @abstractmethod
    def state(self) -> np.ndarray:
        """The policy state the action contract defines."""

    def on_chunk(self, chunk: np.ndarray, metadata: dict | None = None) -> None:
        """Called with each validated chunk as the policy returns it (before its rows run), with the
        reply's metadata (a planner's decision record)."""

    @abstractmethod
    def step(self, row: np.ndarray) -> StepResult:
        """Execute one command row."""

    def privileged(self) -> dict:
        """Simulator truth for privileged policies (never sent to others)."""
        return {}


class SuiteDataError(RuntimeError):
    """Generated data a suite scores on (a split, a table) that is not as generated; one line."""


class Suite(ABC):
    """One benchmark system: its conditions, protocol, contract, outcomes and tables."""

    name: ClassVar[str]
    protocol: ClassVar[StandardProtocol]
    cameras: ClassVar[Cameras]
    contract: ClassVar[str]  # name of the ActionContract its policies speak under the protocol's controller
    request_schema: ClassVar[RequestSchema | None] = None  # what a policy server checks requests against
    # How the request travels as an openpi observation (None: derived from the request schema).
    openpi_map: ClassVar[OpenpiKeys | None] = None
    outcomes: ClassVar[tuple[str, ...]] = (SUCCESS, TIMEOUT, FELL)
    builtin_policies: ClassVar[dict[str, str]] = {}  # short name -> MODULE:FUNCTION
    paper_metrics: ClassVar[bool] = False  # has metrics a run opts into with htb-eval --metrics
    # Episode options (`options.py`; passed to `make_episode` as keyword arguments, `htb-eval` flags).
    # A run records them; off the standard value it is diagnostic.
    options: ClassVar[tuple[Option, ...]] = ()
    # The looks its scenes can be drawn in (names of `sim.look.LOOKS`): the protocol's, and `fast` for
    # diagnostics. A suite dresses its own objects for dressed looks (see `sim.look`).
    looks: ClassVar[tuple[str, ...]] = ("standard", "fast")
    # What the suite's code does differently by controller (`per_controller.py`): each needs a row for
    # every name in `controllers`, checked when the suite is constructed.
    controller_tables: ClassVar[tuple[PerController, ...]] = ()

    def __init__(self) -> None:
        for table in self.controller_tables:
            for controller in self.controllers:
                if controller not in table.rows:
                    raise MissingRow(f"suite {self.name}: {table.missing(controller)}")

    @property
    @abstractmethod
    def conditions(self) -> tuple[Condition, ...]:
        """Every condition, in the order `all` runs them."""

    @property
    def named_only(self) -> tuple[Condition, ...]:
        """Conditions run only when named (a long composite episode, say): listed and parsed like
        the others, but outside `all` and a summary's mean."""
        return ()

    @property
    def listed(self) -> tuple[Condition, ...]:
        """Every condition a user may name: `conditions`, then `named_only`."""
        return self.conditions + self.named_only

    @property
    def default_condition(self) -> Condition:
        return self.conditions[0]

    def budget(self, condition: Condition) -> int:
        """A condition's standard step budget; the protocol's unless the suite gives it its own."""
        return self.protocol.max_steps

    @property
    def controllers(self) -> tuple[str, ...]:
        """The controllers that can execute this suite's commands; the protocol's alone unless the suite names more."""
        return (self.protocol.controller,)

    def controller_class(self, name: str):
        """The class that runs controller `name` on this suite's robot; a suite may bind a name to its
        own subclass (its robot variant and servos). Raises ValueError for a name not in `controllers`."""
        from ..control import controller_class

        cls = controller_class(name)  # an unknown name fails here, listing the names there are
        if name not in self.controllers:
            raise ValueError(f"controller {name!r} cannot execute {self.name} commands; use one of {', '.join(self.controllers)}")
        return cls

    def make_controller(self, name: str):
        return self.controller_class(name)()

    def contract_for(self, controller: str) -> str:
        """The action contract a policy speaks when `controller` executes its commands."""
        return self.contract

    def action_contract(self, controller: str | None = None) -> ActionContract:
        """The registered contract object of `contract_for(controller)` (None: the protocol's controller)."""
        return contracts.get(self.contract_for(controller or self.protocol.controller))

    def openpi_keys(self) -> OpenpiKeys:
        """The request's openpi observation keys and the reply's action key (`policies/openpi_keys.py`)."""
        return self.openpi_map or derived(self.request_schema)

    def builtin_policies_for(self, controller: str | None = None) -> dict[str, str]:
        """The short policy names a user may give under `controller` (None: the protocol's), short name ->
        MODULE:FUNCTION; `builtin_policies` unless the suite's policies differ by contract."""
        return dict(self.builtin_policies)

    def check_data(self) -> None:
        """Raise `SuiteDataError` (one line) when data the suite generates and scores on is not as
        generated; `htb-eval` calls it before any episode."""

    def seed_count(self, condition: Condition) -> int | None:
        """How many seeds a condition has (0 .. count-1) when its seeds index a fixed list; None when any seed lays one out."""
        return None

    def parse(self, text: str) -> Condition | None:
        """The condition a user typed (ID or name, case-insensitive), or None."""
        key = text.strip().lower()
        return next((c for c in self.listed if key in (c.name.lower(), c.env_id.lower())), None)

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)

    def option_reasons(self, options: dict) -> list[str]:
        """Why these episode options are not the standard protocol (empty when they are)."""
        return [self.option(k).reason for k, v in options.items() if v != self.option(k).standard]

    @abstractmethod
    def make_episode(self, condition: Condition, seed: int, controller, detail: str, look: str | None = None) -> Episode:
        """A fresh episode (reset by the caller), drawn in `look` (None: the protocol's); a suite with
        `options` also takes them as keywords."""

    def gallery(self) -> "Gallery":
        """What `htb-gallery` shoots for this suite: close-ups of its objects and the policy's view at
        the start of a few episodes. None of it is scored."""
        return Gallery()

    @abstractmethod
    def build_request(self, episode: Episode, image: np.ndarray, reset: bool) -> dict:
        """The request a policy receives: exactly the fields of the suite's public protocol."""

    def sinks(self, episode: Episode, run_dir, seed: int) -> list:
        """The suite's own per-step outputs (`record.recorder.Sink`), beside the evaluator's."""
        return []

    def register_gymnasium(self, gymnasium) -> None:
        """Register the suite's Gymnasium IDs (called only where Gymnasium is installed)."""

    # -- tables (recorded files only, no simulator) -------------------------------
    def summary_markdown(self, rows: list[dict], mean: float | None, mean_note: str) -> list[str]:
        """The main table of a multi-condition summary; default one row per condition."""
        lines = ["| Condition | Successes |", "|---|---|"]
        lines += [f"| {r['name']} | {summary_cell(r)} |" for r in rows]
        return lines

    def summary_fields(self, condition: Condition) -> dict:
        """Columns of a condition's summary row beyond its name (e.g. scenario and level)."""
        return {}

    def report_groups(self, condition: Condition) -> dict[str, str]:
        """The groups an HTML report pools this condition's episodes into, axis -> group (e.g.
        "Level": "L1"); empty: no breakdown beyond the per-condition table."""
        return {}

    def failure_cause(self, condition: Condition, summary: dict) -> str:
        """Why a recorded episode failed, from its summary's metrics."""
        return summary.get("outcome", "unknown")

    def offline_report(self, runs: Sequence[RecordedRun]) -> tuple[str, dict] | None:
        """A report section scored from the suite's own recorded files of `runs` (one policy's verified
        runs of this suite, one per condition), as Markdown and a JSON object; None where it has none."""
        return None

    # Built-in policies that cannot run without a model configuration: htb-eval refuses them without one.
    needs_model_config: tuple[str, ...] = ()

    def check_model_config(self, path: Path) -> dict | None:
        """What a model configuration (`htb-eval --model-config`) adds to the policy's identity, after
        checking it before any simulation; ValueError with one line where it cannot be used. None: the
        suite's own policies read none (a user's policy may)."""
        return None


def summary_cell(row: dict) -> str:
    if row.get("success_rate") is None:
        return "—"
    return f"{row['successes']}/{row['episodes']} ({100 * row['success_rate']:.1f}%)"
