"""The research diagnostics (benchmarks/diagnostics/) still run: each at its smallest size, in a
process of its own as a user runs it, so that a refactor of what they reach into (controller
fields, suite internals, the experts' plans) cannot break them silently. What they print is not
checked beyond its last line being JSON: at these sizes the figures mean nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import humanoidtoolbench

DIAGNOSTICS = Path(__file__).resolve().parents[1] / "benchmarks" / "diagnostics"
SRC = Path(humanoidtoolbench.__file__).resolve().parents[1]  # the checkout under test, for the child processes

CASES = {
    "balance": ("balance.py", "--smoke"),
    "fiatlux_balance": ("fiatlux_balance.py", "--balanced", "--turns", "--walks", "--ladder", "--smoke"),
    "findsit_limits": ("findsit_limits.py", "--smoke"),
    "tool_speed": ("tool_speed.py", "--conditions", "G1BallMove-L0-S", "--seeds", "10000-10000", "--workers", "1", "--steps", "50"),
    "climb_budget": ("climb_budget.py", "--json"),
    "climb_diagnostic": ("climb_diagnostic.py", "--move", "0.5", "--hold", "0.2", "--leg-servo", "600,40"),
    "ladder_budget": ("ladder_budget.py", "--smoke"),
    "ladder_diagnostic_horizon": ("ladder_diagnostic.py", "--part", "horizon", "--setting", "stiff-legs"),
    "ladder_diagnostic_walk": ("ladder_diagnostic.py", "--part", "walk", "--setting", "stiff-legs", "--seeds", "0", "--smoke"),
    "ladder_diagnostic_s01": ("ladder_diagnostic.py", "--part", "s01", "--setting", "quarter-ladder-stiff-drag", "--seeds", "0", "--smoke"),
    # The expert's lift runs whole (about 1000 control steps, ~10 s of CPU): ladder_budget's smoke covers it.
    "ladder_diagnostic_drag": pytest.param(
        ("ladder_diagnostic.py", "--part", "drag", "--setting", "stiff-drag-grip", "--seeds", "0", "--smoke"), marks=pytest.mark.slow
    ),
}


def run_diagnostic(args: tuple[str, ...]) -> list[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p))
    done = subprocess.run(
        [sys.executable, str(DIAGNOSTICS / args[0]), *args[1:]],
        cwd=DIAGNOSTICS.parents[1], env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}:\n{done.stderr[-4000:]}"
    lines = done.stdout.strip().splitlines()
    assert lines, f"{' '.join(args)} printed nothing"
    json.loads(lines[-1])
    return lines


@pytest.mark.parametrize("args", list(CASES.values()), ids=list(CASES))
def test_diagnostic_runs(args):
    run_diagnostic(args)


def test_every_diagnostic_has_a_smoke_case():
    scripts = {p.name for p in DIAGNOSTICS.glob("*.py")}
    covered = {(c.values[0] if hasattr(c, "values") else c)[0] for c in CASES.values()}
    assert scripts == covered
    readme = (DIAGNOSTICS / "README.md").read_text()
    assert all(f"`{name}`" in readme for name in scripts), "benchmarks/diagnostics/README.md lists every script"


def test_ladder_diagnostic_settings_apply(monkeypatch):
    """Every setting of ladder_diagnostic.py goes onto an S01 episode's robot and controller (the
    private fields it writes still exist and take), and the episode then steps."""
    monkeypatch.syspath_prepend(str(DIAGNOSTICS))
    import ladder_diagnostic as ld

    for name, setting in ld.SETTINGS.items():
        ep = ld.episode(setting, 0)
        c, m = ep.controller, ep.model
        kp0 = m.actuator_gainprm[c._slot_act, 0].copy()
        if setting.at_drag:
            ld.change(ep, setting)
        grip = ld.Grip(ep, setting.grip) if setting.grip else None
        if grip is not None:
            grip.hold()
        if setting.leg_servo is not None:
            assert np.all(m.actuator_gainprm[c._leg_act, 0] == setting.leg_servo[0]), name
            assert np.all(c._leg_kp == setting.leg_servo[0]), name
        if setting.arm_servo != 1.0:
            assert np.any(m.actuator_gainprm[c._slot_act, 0] != kp0), name
        if setting.lean is not None:
            assert c.arm_loads.lean.limit == setting.lean, name
        upper = ep.data.ctrl[c._slot_act].copy()
        for _ in range(3):
            if grip is not None:
                grip.apply()
            ep.step(np.concatenate([upper, [0.74, 0.0, 0.0, 0.0, 0.0]]))
        assert not c.fallen(ep.data), name
