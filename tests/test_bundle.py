"""`htb-submit` and `htb-verify`: a bundle of hand-made reportable runs verifies to one leaderboard row, and
each way of tampering with it is NOT VERIFIED naming the first bad file (exit status 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from humanoidtoolbench.cli import submit as submit_cli
from humanoidtoolbench.cli import verify as verify_cli
from humanoidtoolbench.digest import file_sha256
from humanoidtoolbench.eval.integrity import canonical_sha256
from humanoidtoolbench.metrics import bundle

from recorded_runs import POLICY, episode, reseal, write_run

CONDS = ("G1BallMove-L0-S", "G1BallMove-L0-R")
LABEL = "test-policy @ test-1"


def reportable_run(root: Path, name: str, successes: int, episodes: int = 100, **kwargs) -> Path:
    """A run of the standard seeds (100 from 10000, 3000 steps), sealed again as reportable; a failure takes all
    3000 steps, so few of them keep the files small."""
    run = write_run(root, name, [episode(k < successes, 3 if k < successes else 3000) for k in range(episodes)], **kwargs)
    reseal(run / "benchmark_result.json", reportable=True, reasons=[])
    return run


@pytest.fixture
def output(tmp_path) -> Path:
    out = tmp_path / "out"
    reportable_run(out, CONDS[0], 97)
    reportable_run(out, CONDS[1], 93)
    return out


@pytest.fixture
def sealed(output, tmp_path, capsys) -> Path:
    dest = tmp_path / "bundle"
    assert submit_cli.main([str(output), "--output", str(dest)]) == 0
    capsys.readouterr()
    return dest


def verdict(dest: Path, capsys) -> str:
    assert verify_cli.main([str(dest)]) == 1
    [line] = capsys.readouterr().out.splitlines()
    return line


def run_rel(dest: Path, cond: str = CONDS[0]) -> str:
    [run] = (dest / "runs" / cond).iterdir()
    return run.relative_to(dest).as_posix()


def reseal_manifest(dest: Path, **changes) -> None:
    """What a forger does after editing files: list their new hashes and seal the manifest again."""
    manifest = json.loads((dest / bundle.MANIFEST).read_text())
    manifest["files"] = {p.relative_to(dest).as_posix(): file_sha256(p) for p in sorted(dest.rglob("*"))
                         if p.is_file() and p.name != bundle.MANIFEST}
    manifest.update(changes)
    body = {k: v for k, v in manifest.items() if k != bundle.SEAL}
    (dest / bundle.MANIFEST).write_text(json.dumps({**body, bundle.SEAL: canonical_sha256(body)}))


def test_a_sealed_bundle_verifies_to_one_row_with_scores_derived_from_the_episodes(sealed, capsys):
    assert verify_cli.main([str(sealed)]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["policy"] == LABEL and row["suite"] == "toolbench"
    assert row["conditions"] == {CONDS[0]: {"episodes": 100, "successes": 97, "success_rate": 0.97},
                                 CONDS[1]: {"episodes": 100, "successes": 93, "success_rate": 0.93}}
    assert row["complete"] is False and row["mean_success_rate"] is None  # 2 of 18 conditions


def test_htb_verify_loads_no_simulator(sealed):
    code = ("import sys; from humanoidtoolbench.cli import verify; rc = verify.main([sys.argv[1]]); "
            "assert 'mujoco' not in sys.modules, 'mujoco imported'; sys.exit(rc)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", code, str(sealed)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr


# -- ten ways to tamper ---------------------------------------------------------------------------


def test_1_an_episode_file_edited(sealed, capsys):
    path = sealed / run_rel(sealed) / "metrics" / "episode_10050.jsonl"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1  # one bit
    path.write_bytes(bytes(data))
    rel = path.relative_to(sealed).as_posix()
    assert verdict(sealed, capsys) == f"NOT VERIFIED: {rel}: changed after the bundle was sealed (sha256 mismatch)"


def test_2_a_file_deleted(sealed, capsys):
    path = sealed / run_rel(sealed) / "summaries" / "episode_10007.json"
    path.unlink()
    assert verdict(sealed, capsys) == f"NOT VERIFIED: {path.relative_to(sealed).as_posix()}: missing"


def test_3_a_file_added(sealed, capsys):
    (sealed / run_rel(sealed) / "extra.txt").write_text("x")
    assert verdict(sealed, capsys) == f"NOT VERIFIED: {run_rel(sealed)}/extra.txt: not listed in the manifest"


def test_4_a_claimed_score_raised(sealed, capsys):
    manifest = json.loads((sealed / bundle.MANIFEST).read_text())
    manifest["scores"][CONDS[0]]["successes"] = 100
    (sealed / bundle.MANIFEST).write_text(json.dumps(manifest))
    assert verdict(sealed, capsys) == "NOT VERIFIED: bundle.json: changed after it was sealed (record_sha256 does not match its contents)"


def test_5_a_claimed_score_raised_and_the_manifest_sealed_again(sealed, capsys):
    manifest = json.loads((sealed / bundle.MANIFEST).read_text())
    reseal_manifest(sealed, scores={**manifest["scores"], CONDS[1]: {"episodes": 100, "successes": 100}})
    line = verdict(sealed, capsys)
    assert line.startswith("NOT VERIFIED: bundle.json: claims {'episodes': 100, 'successes': 100} on G1BallMove-L0-R")
    assert line.endswith("its episodes give {'episodes': 100, 'successes': 93}")


def test_6_a_summary_edited_and_every_hash_listed_again(sealed, capsys):
    path = sealed / run_rel(sealed) / "summaries" / "episode_10098.json"
    path.write_text(path.read_text().replace('"success": false', '"success": true', 1))
    reseal_manifest(sealed)
    line = verdict(sealed, capsys)
    assert line.startswith(f"NOT VERIFIED: {run_rel(sealed)}/summaries/episode_10098.json: ")


def test_7_a_result_edited_and_every_hash_listed_again(sealed, capsys):
    path = sealed / run_rel(sealed) / "benchmark_result.json"
    result = json.loads(path.read_text())
    path.write_text(json.dumps({**result, "successes": 99}))
    reseal_manifest(sealed)
    assert verdict(sealed, capsys).startswith(
        f"NOT VERIFIED: {run_rel(sealed)}/benchmark_result.json: successes is 99, its episodes give 97")


def test_8_a_run_off_the_protocols_seeds(tmp_path, capsys):
    run = reportable_run(tmp_path / "out", CONDS[0], 49, episodes=50)
    bundle.write([bundle.Run(CONDS[0], run, LABEL)], tmp_path / "b")
    assert verdict(tmp_path / "b", capsys) == (
        f"NOT VERIFIED: {run_rel(tmp_path / 'b')}/evaluation_config.json: seeds is 50 seeds, not the protocol's 100 from 10000")


def test_9_a_run_that_is_not_reportable(tmp_path, capsys):
    run = write_run(tmp_path / "out", CONDS[0], [episode(True, 3)] * 100)
    bundle.write([bundle.Run(CONDS[0], run, LABEL)], tmp_path / "b")
    assert verdict(tmp_path / "b", capsys) == f"NOT VERIFIED: {run_rel(tmp_path / 'b')}/benchmark_result.json: not reportable: a test"


def test_10_another_policys_name_on_the_bundle(sealed, capsys):
    first = next(iter(json.loads((sealed / bundle.MANIFEST).read_text())["runs"].values()))  # checked first
    reseal_manifest(sealed, policy="famous-policy @ v9")
    assert verdict(sealed, capsys) == (
        f"NOT VERIFIED: {first}/evaluation_config.json: policy '{LABEL}', not the bundle's 'famous-policy @ v9'")


def test_11_a_file_swapped_for_a_link(sealed, capsys):
    path = sealed / run_rel(sealed) / "policy_info.json"
    path.unlink()
    path.symlink_to("/etc/hostname")
    assert verdict(sealed, capsys) == f"NOT VERIFIED: {path.relative_to(sealed).as_posix()}: is a link; a bundle holds files only"


def test_12_a_run_listed_outside_the_bundles_runs(sealed, capsys):
    manifest = json.loads((sealed / bundle.MANIFEST).read_text())
    reseal_manifest(sealed, runs={**manifest["runs"], CONDS[0]: "../elsewhere"})
    assert verdict(sealed, capsys).startswith("NOT VERIFIED: bundle.json: run 'G1BallMove-L0-S' at '../elsewhere' is not")


# -- htb-submit's own refusals --------------------------------------------------------------------


def test_submit_refuses_runs_that_would_not_verify(tmp_path, capsys):
    write_run(tmp_path / "out", CONDS[0], [episode(True, 3)] * 3)
    assert submit_cli.main([str(tmp_path / "out"), "--output", str(tmp_path / "b")]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("htb-submit: ") and "is not reportable: a test" in line and not (tmp_path / "b").exists()


def test_submit_refuses_two_policies_and_an_existing_folder(output, tmp_path, capsys):
    assert submit_cli.main([str(output), "--output", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"htb-submit: {tmp_path} exists; a bundle is written to a new folder"
    reportable_run(output, CONDS[0], 1, policy={**POLICY, "policy": "other"}, stamp="20260101-000000-bbbbbb")
    assert submit_cli.main([str(output), "--output", str(tmp_path / "b")]) == 2
    assert "holds policies other @ test-1, test-policy @ test-1; a bundle holds one policy's runs" in capsys.readouterr().err
