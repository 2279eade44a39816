"""Registries are typed rows and loud, and docs/ARCHITECTURE.md's recipes hold when followed.

A tool-use scenario is one row of `suites/toolbench/scenarios.py`; a name
with no row fails when its condition is made (it was once drawn as IceBreak).
A suite's per-controller tables need a row for every controller it runs,
checked when the suite is constructed (the oracle once fell back to the
default plan). The recipes for a scenario, a controller and a robot variant
are followed here; `test_suite_seam.py` follows those for a suite
(`example_suite.py`) and a contract (`example_dial.py`).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import mujoco
import numpy as np
import pytest

from humanoidtoolbench import control
from humanoidtoolbench.control.assisted.assisted import AssistedController
from humanoidtoolbench.control.contracts import decoupled_v1
from humanoidtoolbench.robot import assets, derive
from humanoidtoolbench.robot.edit import edit_robot
from humanoidtoolbench.robot.joints import BY_NAME
from humanoidtoolbench.robot.variants import VARIANTS
from humanoidtoolbench.sim.simulation import home_upper_pose
from humanoidtoolbench.suites.findsit.policies import OraclePlanner
from humanoidtoolbench.suites.findsit.profiles import SIT_HEIGHT_RANGE
from humanoidtoolbench.suites.findsit.suite import SUITE as FINDSIT
from humanoidtoolbench.suites.findsit.suite import FindSit
from humanoidtoolbench.suites.toolbench import layout, registry
from humanoidtoolbench.suites.toolbench.episode import TaskEpisode
from humanoidtoolbench.suites.toolbench.suite import SUITE as TOOLBENCH

ROOT = Path(__file__).resolve().parents[1]


def one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message
    return message


# -- tool-use scenarios ------------------------------------------------------------------------------


def test_an_unknown_scenario_fails_when_its_condition_is_made_naming_the_scenarios():
    with pytest.raises(ValueError) as exc:
        layout.sample_layout(registry.Condition("BallKick", 1, "S"), 10000)  # drawn as IceBreak before
    assert one_line(exc) == "unknown tool-use scenario 'BallKick'; the scenarios are BallMove, BallRetrieve, IceBreak"


def test_every_row_names_callables_and_a_predicate_its_metrics_compute():
    from humanoidtoolbench.suites.toolbench import scenarios

    assert registry.SCENARIOS == tuple(scenarios.TABLE) == ("BallMove", "BallRetrieve", "IceBreak")
    for row in scenarios.TABLE.values():
        for field in ("tools", "objects", "metrics", "expert") + (("rule",) if row.rule else ()):
            assert callable(row.load(field)), (row.name, field)
        episode = TaskEpisode(registry.Condition(row.name, 1, "S"), 10000)
        episode.reset()
        assert row.done in episode.step(hold_row(episode)).metrics
    typo = dataclasses.replace(scenarios.TABLE["IceBreak"], metrics=f"{__name__}:ice_metrics")
    with pytest.raises(ValueError) as exc:
        typo.load("metrics")
    assert one_line(exc).startswith(f"scenario IceBreak: its metrics '{__name__}:ice_metrics' does not load (")


def hold_row(episode) -> np.ndarray:
    return np.concatenate([home_upper_pose(), [decoupled_v1.DEFAULT_BASE_HEIGHT, 0, 0, 0, 0]])


def ball_in_ring(condition, rng, spawn_xy):
    """BallMove's draw with the ring under the ball: a trivial scenario whose task is done from the start."""
    items, _, spot = layout.ball_move_objects(condition, rng, spawn_xy)
    return items, items[0].xy, spot


def test_a_scenario_added_as_one_row_runs_an_episode_scored_by_its_row(monkeypatch):
    """The recipe: a row in `scenarios.py` naming its own draws (here this module's), nothing else edited."""
    from humanoidtoolbench.suites.toolbench import scenarios

    row = dataclasses.replace(
        scenarios.TABLE["BallMove"], name="BallKeep", select="Pick the tool for keeping the ball.",
        use="Pick the tool and keep the ball in the ring.", objects=f"{__name__}:ball_in_ring",
    )
    monkeypatch.setitem(scenarios.TABLE, row.name, row)
    condition = registry.Condition("BallKeep", 1, "S")
    assert (condition.name, condition.instruction) == ("G1BallKeep-L1-S", row.use)
    assert registry.Condition("BallKeep", 0, "R").instruction == row.select
    episode = TaskEpisode(condition, 10000)
    assert episode.layout.ring == episode.layout.item(layout.BALL).xy
    episode.reset()
    for step in range(1, registry.HOLD_STEPS + 1):
        result = episode.step(hold_row(episode))
        assert result.metrics["on_spot"] and result.success_now
        assert result.success is (step == registry.HOLD_STEPS)  # the row's predicate, held for 50 steps
    summary = {"outcome": "timeout", "final_metrics": {"tool_lift": 0.1}, "ever_true": {"picked_correct_tool": True,
               "tool_touched_target": True, "on_spot": True}}
    assert TOOLBENCH.failure_cause(condition, summary) == "ball reached the ring but did not stay"


# -- per-controller tables ---------------------------------------------------------------------------


class Creeper(AssistedController):
    """A new controller for the recipe: the assisted robot under another name."""

    name = "creeper"


def findsit_running(*names):
    return type("Wider", (FindSit,), {"controllers": property(lambda self: ("assisted", "balanced", *names))})


def test_a_controller_a_suite_runs_without_its_rows_fails_at_the_suites_construction(monkeypatch):
    """The recipe: a controller named in `control.CONTROLLERS` and a suite's `controllers` needs its rows."""
    monkeypatch.setitem(control.CONTROLLERS, "creeper", f"{__name__}:Creeper")
    with pytest.raises(ValueError) as exc:
        findsit_running("creeper")()
    assert one_line(exc) == "suite findsit: findsit PROFILES has no row for controller 'creeper' (rows: assisted, balanced)"
    profiles, plans = FINDSIT.controller_tables
    monkeypatch.setitem(profiles.rows, "creeper", profiles["assisted"])
    with pytest.raises(ValueError, match=r"^suite findsit: findsit PLANS has no row for controller 'creeper'"):
        findsit_running("creeper")()
    monkeypatch.setitem(plans.rows, "creeper", plans["balanced"])
    suite = findsit_running("creeper")()
    episode = suite.make_episode(suite.conditions[0], 0, suite.make_controller("creeper"), "fast", "fast")
    assert episode.profile is profiles["assisted"]
    assert episode.controller.height_range == SIT_HEIGHT_RANGE  # the row's fit, not a test of the class


def test_an_episode_sets_its_controller_up_by_the_controllers_row(monkeypatch):
    """What the skills need of a controller (sit heights, turn rates) comes from its PROFILES row alone."""
    fitted = []
    profiles, _ = FINDSIT.controller_tables
    monkeypatch.setitem(profiles.rows, "balanced", dataclasses.replace(profiles["balanced"], fit=fitted.append))
    controller = FINDSIT.make_controller("balanced")
    FINDSIT.make_episode(FINDSIT.conditions[0], 0, controller, "fast", "fast")
    assert fitted == [controller]
    assert controller.tuning.height_range != SIT_HEIGHT_RANGE  # the balanced row's own fit did not run


def test_the_oracle_plans_only_for_a_controller_with_a_row():
    oracle = OraclePlanner()
    oracle.reset("", 0)
    with pytest.raises(ValueError) as exc:  # it once planned as for `assisted`
        oracle.decide(type("Obs", (), {"privileged": {"controller": "servo"}})())
    assert one_line(exc) == "findsit PLANS has no row for controller 'servo' (rows: assisted, balanced)"


# -- robot variants ------------------------------------------------------------------------------------


def test_a_robot_variant_is_one_row_and_setup_must_derive_it(monkeypatch):
    """The recipe: a row in `robot/variants.py`; the installation is out of date until htb-setup derives it."""
    row = dataclasses.replace(VARIANTS["free"], name="soft", files={"fast": "g1_soft.xml", "full": "g1_soft_full.xml"},
                              leg_servo=(300.0, 20.0))
    monkeypatch.setitem(VARIANTS, row.name, row)
    root = assets.install_dir()
    assert any(p.endswith("run htb-setup") and "derived robot files" in p for p in assets.check(root))
    spec = mujoco.MjSpec.from_file(str(root / "source" / derive.MODEL_FILE))
    model = edit_robot(spec, None, row).compile()
    for i in range(model.nu):
        joint = BY_NAME[model.joint(model.actuator_trnid[i, 0]).name]
        assert model.actuator_gainprm[i, 0] == (300.0 if joint.group == "leg" else joint.kp), joint.name


# -- the recipes name what exists ------------------------------------------------------------------------


def test_every_file_the_recipes_name_exists():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    recipes = text[text.index("## Where to add things") :]
    files = {p.relative_to(ROOT).as_posix() for p in [*(ROOT / "src").rglob("*.py"), *(ROOT / "tests").glob("*.py")]}
    named = set(re.findall(r"`([\w/]+\.py)`", recipes))
    assert named and not {n for n in named if not any(f == n or f.endswith("/" + n) for f in files)}
