"""`htb-metrics A B --compare`: the exact McNemar test, Newcombe's paired interval and Holm's adjustment on
hand-built outcome tables, and the command on hand-made runs of two policies."""

from __future__ import annotations

import json

import pytest

from humanoidtoolbench.cli import metrics as metrics_cli
from humanoidtoolbench.metrics.paired import Pairs, compare, holm, mcnemar_exact, mean_difference, newcombe_interval, settings_problem

from recorded_runs import POLICY, episode, write_run

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset


@pytest.mark.parametrize(
    "b, c, p",
    [
        (1, 9, 22 / 1024),  # 2 * (C(10,0) + C(10,1)) / 2**10
        (12, 2, 212 / 16384),  # 2 * (1 + 14 + 91) / 2**14
        (0, 5, 2 / 32),  # five to none is not enough ...
        (0, 6, 2 / 64),  # ... six to none is
        (3, 3, 1.0),
        (0, 0, 1.0),  # no discordant pair: nothing to tell them apart
    ],
)
def test_the_exact_mcnemar_p_is_the_binomial_of_the_discordant_pairs(b, c, p):
    assert mcnemar_exact(b, c) == pytest.approx(p, rel=1e-12)
    assert mcnemar_exact(c, b) == pytest.approx(p, rel=1e-12)  # two-sided


def test_the_concordant_pairs_do_not_change_the_test():
    assert mcnemar_exact(1, 9) == compare({"x": Pairs(0, 1, 9, 0)})[0].p == compare({"x": Pairs(500, 1, 9, 500)})[0].p


def test_newcombes_interval_reproduces_his_worked_example():
    # Newcombe (1998), paired example 36 / 12 / 2 / 0: method 10 gives 0.0569 to 0.3404.
    low, high = newcombe_interval(Pairs(36, 12, 2, 0))
    assert (round(low, 4), round(high, 4)) == (0.0569, 0.3404)


@pytest.mark.parametrize("table", [(10, 0, 0, 0), (0, 0, 0, 10), (0, 10, 0, 0), (0, 0, 10, 0), (3, 4, 1, 2), (1, 1, 7, 12)])
def test_the_interval_holds_the_difference_inside_minus_one_to_one_and_is_never_zero_wide(table):
    pairs = Pairs(*table)
    low, high = newcombe_interval(pairs)
    assert -1 <= low <= pairs.difference <= high <= 1 and high - low > 0.05


def test_holm_adjusts_step_down_and_keeps_the_order():
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.2]) == [0.2]


def test_pairs_count_only_the_seeds_both_ran():
    a = {1: True, 2: True, 3: False, 4: False, 9: True}
    b = {1: True, 2: False, 3: True, 4: False, 7: False}
    assert Pairs.of(a, b) == Pairs(1, 1, 1, 1)


def test_established_means_the_holm_adjusted_p_is_below_five_percent():
    strong, weak = Pairs(0, 8, 0, 2), Pairs(0, 5, 0, 5)  # p 2/256 and 2/32
    [s, w] = compare({"strong": strong, "weak": weak})
    assert s.established and not w.established and s.p_holm == pytest.approx(2 * 2 / 256)
    assert mean_difference([s, w]) == pytest.approx((0.8 + 0.5) / 2)


def test_runs_under_other_settings_are_not_paired():
    assert settings_problem("X", {"max_steps": 30}, {"max_steps": 3000}).startswith("X: A ran with max_steps 30 and B with 3000")
    assert settings_problem("X", {"max_steps": 30, "look": "standard"}, {"max_steps": 30, "look": "standard"}) is None


# -- the command ---------------------------------------------------------------------------------

COND = "G1BallMove-L0-S"
OTHER = "G1BallMove-L0-R"


def outcomes(pattern: str) -> list[dict]:
    return [episode(ch == "1", 40 if ch == "1" else 3000) for ch in pattern]


def two_policies(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    write_run(a, COND, outcomes("111111111100"), policy={**POLICY, "policy": "strong"})
    write_run(b, COND, outcomes("110000000000"), policy={**POLICY, "policy": "weak"})
    write_run(a, OTHER, outcomes("1010"), policy={**POLICY, "policy": "strong"})
    write_run(b, OTHER, outcomes("0110"), policy={**POLICY, "policy": "weak"})
    return a, b


def test_compare_reports_each_condition_and_the_mean_difference(tmp_path, capsys):
    a, b = two_policies(tmp_path)
    assert metrics_cli.main([str(a), str(b), "--compare", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["a"], data["b"]) == ("strong @ test-1", "weak @ test-1")
    first, second = data["conditions"]
    assert (first["condition"], first["both"], first["a_only"], first["b_only"], first["neither"]) == (COND, 2, 8, 0, 2)
    assert first["mcnemar_p"] == pytest.approx(2 / 256) and first["holm_p"] == pytest.approx(4 / 256) and first["established"]
    assert (second["a_only"], second["b_only"], second["mcnemar_p"], second["established"]) == (1, 1, 1.0, False)
    assert data["mean_difference"] == pytest.approx((8 / 12 + 0) / 2)
    assert metrics_cli.main([str(a), str(b), "--compare"]) == 0
    text = capsys.readouterr().out
    assert f"| {COND} | 12 | 10 | 2 | 2 | 8 | 0 | 2 | +0.667 |" in text and "| A better |" in text
    assert "Established (Holm-adjusted exact McNemar p < 0.05) on: " + COND in text


def test_a_run_that_fails_its_checks_is_left_out_with_a_warning_and_exit_1(tmp_path, capsys):
    a, b = two_policies(tmp_path)
    [summary] = a.glob(f"{OTHER}/run-*/summaries/episode_10000.json")
    summary.write_text(summary.read_text().replace('"success": true', '"success": false', 1))
    assert metrics_cli.main([str(a), str(b), "--compare", "--json"]) == 1
    captured = capsys.readouterr()
    assert [c["condition"] for c in json.loads(captured.out)["conditions"]] == [COND]
    assert "is NOT VERIFIED and left out" in captured.err


@pytest.mark.parametrize("case", ["one-dir", "two-policies", "no-results"])
def test_what_cannot_be_compared_is_one_line_and_exit_2(tmp_path, capsys, case):
    a, b = two_policies(tmp_path)
    if case == "one-dir":
        argv, message = [str(a)], "htb-metrics: --compare takes two output directories (A and B), got 1"
    elif case == "two-policies":
        write_run(a, COND, outcomes("1"), policy={**POLICY, "policy": "third"}, stamp="20260101-000000-bbbbbb")
        argv, message = [str(a), str(b)], f"htb-metrics: {a} holds policies strong @ test-1, third @ test-1; --compare"
    else:
        (tmp_path / "empty").mkdir()
        argv, message = [str(tmp_path / "empty"), str(b)], f"htb-metrics: {tmp_path / 'empty'} holds no validated results"
    assert metrics_cli.main([*argv, "--compare"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(message)


def test_several_directories_without_compare_are_refused(tmp_path, capsys):
    a, b = two_policies(tmp_path)
    assert metrics_cli.main([str(a), str(b)]) == 2
    assert "several output directories go with --compare" in capsys.readouterr().err
