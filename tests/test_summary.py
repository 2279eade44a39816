"""The 18-condition summary: completeness, the unweighted mean, reportability, markdown."""

from __future__ import annotations

import json

import pytest

from humanoidtoolbench.eval import summary as summ
from humanoidtoolbench.suites.toolbench.registry import CONDITIONS

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset


def result(cond, successes, **changes):
    base = {
        "env_id": cond.env_id,
        "episodes": 100,
        "successes": successes,
        "success_rate": successes / 100,
        "reportable": True,
        "reasons": [],
        "policy_info": {"policy": "my_policy", "checkpoint": "ckpt-1", "kind": "python"},
        "source_digest": "s" * 64,
        "assets": {"manifest_sha256": "m" * 64},
        "versions": {"python": "3.11.7", "mujoco": "3.11.0", "numpy": "2.2.6", "av": "17.0.0"},
        "lock_sha256": "l" * 64,
        "controller": "assisted_v1",
    }
    return {**base, **changes}


def rows(**per_condition_changes):
    """One row per condition, successes = 10 + index; keyword changes apply by condition name."""
    out = []
    for i, cond in enumerate(CONDITIONS):
        res = result(cond, 10 + i, **per_condition_changes.get(cond.name.replace("-", "_"), {}))
        out.append(summ.summary_row(cond.name, res, f"runs/{cond.name}/benchmark_result.json"))
    return out


def test_complete_consistent_results_are_reportable(tmp_path):
    summary = summ.write_summary(tmp_path, list(reversed(rows())))
    assert summary["complete"] and summary["reportable"] and summary["reasons"] == []
    assert [r["env_id"] for r in summary["conditions"]] == [c.env_id for c in CONDITIONS]
    assert summary["mean_success_rate"] == pytest.approx(sum(10 + i for i in range(18)) / 18 / 100)
    assert "unweighted mean of the 18 condition success rates" in summary["mean_note"]
    assert json.loads((tmp_path / "summary.json").read_text()) == summary
    assert "Reportable: yes" in (tmp_path / "summary.md").read_text()


def test_missing_condition_gives_no_mean():
    some = [r for r in rows() if r["name"] != "G1IceBreak-L2-R"]
    summary = summ.build_summary(some)
    assert not summary["complete"] and not summary["reportable"]
    assert summary["mean_success_rate"] is None
    assert "G1IceBreak-L2-R: no validated result" in summary["reasons"]
    missing = summary["conditions"][-1]
    assert missing["success_rate"] is None and missing["reportable"] is False


def test_mixed_sources_and_policies_are_not_reportable():
    changed = rows(
        G1BallMove_L0_S={"source_digest": "t" * 64},
        G1IceBreak_L1_R={"policy_info": {"policy": "other", "checkpoint": None}},
    )
    summary = summ.build_summary(changed)
    assert summary["complete"] and summary["mean_success_rate"] is not None
    assert not summary["reportable"]
    assert summary["reasons"] == [
        "results come from 2 different policies",
        "results come from 2 different source digests",
    ]


def test_same_policy_name_with_other_checkpoint_is_not_reportable():
    changed = rows(G1BallRetrieve_L1_S={"policy_info": {"policy": "my_policy", "checkpoint": "ckpt-2"}})
    assert summ.build_summary(changed)["reasons"] == ["results come from 2 different policies"]


def test_unreportable_condition_carries_its_reasons():
    changed = rows(G1BallMove_L2_R={"reportable": False, "reasons": ["policy raised in 3 episodes"]})
    assert summ.build_summary(changed)["reasons"] == ["G1BallMove-L2-R: policy raised in 3 episodes"]


def test_markdown_table():
    some = [r for r in rows() if r["name"] != "G1IceBreak-L2-R"]
    some[0] = summ.summary_row("G1BallMove-L0-S", result(CONDITIONS[0], 37), "r.json")
    md = summ.summary_markdown(summ.build_summary(some))
    lines = md.splitlines()
    assert lines[0] == "| Scenario | Level | S | R |"
    body = lines[2:11]
    assert [line.split(" | ")[:2] for line in body] == [
        [f"| {s}", f"L{lvl}"] for s in ("BallMove", "BallRetrieve", "IceBreak") for lvl in (0, 1, 2)
    ]
    assert body[0] == "| BallMove | L0 | 37/100 (37.0%) | 19/100 (19.0%) |"
    assert body[-1] == "| IceBreak | L2 | 18/100 (18.0%) | — |"
    assert "unweighted mean of the 18 condition success rates" in md
    assert "Reportable: no" in md and "- G1IceBreak-L2-R: no validated result" in md
