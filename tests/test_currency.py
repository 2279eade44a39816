"""`htb-metrics --check-current`: recorded source digests against the installed code's, in the three shapes
results are kept in."""

from __future__ import annotations

import json
import subprocess
import sys

from humanoidtoolbench import suites
from humanoidtoolbench.cli import metrics as cli
from humanoidtoolbench.eval import provenance
from humanoidtoolbench.metrics import currency

CONDITION = "G1BallMove-L0-S"


def current_hashes() -> dict[str, str]:
    return provenance.source_hashes(suites.get("toolbench"))


def write(path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def result(hashes: dict[str, str]) -> dict:
    return {"condition": CONDITION, "source_digest": provenance.source_digest(hashes), "source_sha256": hashes}


def test_a_result_of_the_installed_code_is_current(tmp_path):
    write(tmp_path / "run" / "benchmark_result.json", result(current_hashes()))
    [row] = currency.check(tmp_path)
    assert row.is_current and row.changed == ()
    assert cli.main(["--check-current", str(tmp_path)]) == 0


def test_an_edited_source_file_is_named(tmp_path, capsys):
    hashes = current_hashes()
    edited = sorted(hashes)[0]
    write(tmp_path / "run" / "benchmark_result.json", result({**hashes, edited: "0" * 64, "gone.py": "1" * 64}))
    [row] = currency.check(tmp_path)
    assert not row.is_current
    assert row.changed == tuple(sorted([edited, "gone.py"]))
    assert cli.main(["--check-current", str(tmp_path)]) == 1
    assert f"changed since: {', '.join(row.changed)}" in capsys.readouterr().out


def test_summary_rows_skip_missing_conditions_and_metrics_rows_without_digest_are_not_current(tmp_path):
    digest = provenance.source_digest(current_hashes())
    write(tmp_path / "a" / "summary.json", {"conditions": [
        {"name": CONDITION, "source_digest": digest, "result_path": "x/benchmark_result.json"},
        {"name": "G1IceBreak-L0-S", "source_digest": None, "result_path": None},
    ]})
    write(tmp_path / "b" / "metrics.json", {CONDITION: {"condition": CONDITION, "successes": 3},
                                            "offline": {"toolbench": {"S": 1.0}}})
    rows = currency.check(tmp_path)
    assert [(r.file.parent.name, r.condition, r.is_current) for r in rows] == [("a", CONDITION, True), ("b", CONDITION, False)]
    assert rows[1].recorded is None
    assert "no digest recorded" in currency.markdown(rows, tmp_path)


def test_an_unknown_condition_is_never_current(tmp_path):
    write(tmp_path / "benchmark_result.json", {"condition": "G9Nothing-L0-S", "source_digest": "ab" * 32})
    [row] = currency.check(tmp_path / "benchmark_result.json")
    assert row.current is None and not row.is_current


def test_episode_summaries_are_not_results(tmp_path):
    write(tmp_path / "run" / "summaries" / "metrics.json", {CONDITION: {"condition": CONDITION}})
    assert currency.check(tmp_path) == []


def test_nothing_recorded_or_no_such_path_is_exit_2(tmp_path, capsys):
    assert cli.main(["--check-current", str(tmp_path)]) == 2
    assert cli.main(["--check-current", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"htb-metrics: no recorded results under {tmp_path}",
                   f"htb-metrics: no such file or directory: {tmp_path / 'missing'}"]


def test_htb_metrics_still_loads_without_mujoco():
    code = ("import sys; sys.modules['mujoco'] = None\n"
            "from humanoidtoolbench.cli import metrics  # noqa: F401\n")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
