"""Runs made by hand for report tests: every file as htb-eval writes it, consistent, hashed and sealed.

An episode is given by its ending, its final metrics, the flags that were ever
true and the largest tool lift; its metrics file says exactly that (the first
line raises the flags and the lift, every later line holds the final
metrics), and its summary is derived from that file, as the runner's is.
"""

from __future__ import annotations

import json
from pathlib import Path

from humanoidtoolbench import suites
from humanoidtoolbench.eval import integrity
from humanoidtoolbench.eval.derive import episode_facts
from humanoidtoolbench.record.records import BenchmarkResult, EpisodeSummary, EvalConfig, MetricsLine, RunConfig
from humanoidtoolbench.digest import file_sha256
from humanoidtoolbench.record.files import write_json_atomic

POLICY = {"policy": "test-policy", "checkpoint": "test-1", "transport": "in-process", "privileged": False}


def episode(success: bool, step: int, final: dict | None = None, ever: dict | None = None, lift_max: float = 0.2) -> dict:
    return {"success": success, "step": step, "final": final or {}, "ever": ever or {}, "lift_max": lift_max}


def _write_episode(run: Path, env_id: str, seed: int, max_steps: int, e: dict) -> EpisodeSummary:
    outcome = "success" if e["success"] else "timeout"
    first = {**{k: bool(v) for k, v in e["ever"].items()}, "tool_lift": e["lift_max"]}
    lines = []
    for k in range(1, e["step"] + 1):
        last = k == e["step"]
        lines.append(MetricsLine(episode=seed, step=k, reward=float(last and e["success"]),
                                 terminated=last and e["success"], truncated=last and not e["success"],
                                 metrics=e["final"] if k > 1 or e["step"] == 1 else first).encode())
    metrics = run / "metrics" / f"episode_{seed}.jsonl"
    metrics.parent.mkdir(parents=True, exist_ok=True)
    metrics.write_text("".join(lines))
    facts = episode_facts(metrics, seed, metrics.name)
    rel = metrics.relative_to(run).as_posix()
    summary = EpisodeSummary(
        env_id=env_id, seed=seed, instruction="x", step=facts.step, success=facts.success, terminated=facts.terminated,
        truncated=facts.truncated, outcome=outcome, final_metrics=facts.final_metrics, ever_true=facts.ever_true,
        first_true_step=facts.first_true_step, numeric_min=facts.numeric_min, numeric_max=facts.numeric_max,
        files={rel: {"size": metrics.stat().st_size, "sha256": file_sha256(metrics)}},
    )
    write_json_atomic(run / "summaries" / f"episode_{seed}.json", summary.to_json())
    return summary


def write_run(root: Path, name: str, episodes: list[dict], policy: dict = POLICY, stamp: str = "20260101-000000-aaaaaa",
              finished_at: str = "2026-01-01T00:00:00.000000+00:00") -> Path:
    """A validated, sealed run of condition `name` (max_steps 3000, no video) whose episodes end as given."""
    cond = suites.parse(name)
    suite = suites.suite_of(cond)
    run = root / name / f"run-{stamp}"
    seeds = [10000 + i for i in range(len(episodes))]
    settings = EvalConfig(
        protocol=suite.protocol.name, suite=suite.name, env_id=cond.env_id, condition=cond.name, instruction="x",
        episodes=len(seeds), seed_start=seeds[0], seeds=seeds, max_steps=3000, control_hz=50,
        action_schema="decoupled_v1", controller=suite.protocol.controller, robot_variant="test", record_video=False,
        visual_detail="fast", cameras=[], video={}, paper_metrics=False, look=suite.protocol.look,
    )
    fingerprint = {"policy": policy}
    config = RunConfig(**{k: getattr(settings, k) for k in EvalConfig.__struct_fields__}, fingerprint=fingerprint,
                       policy_info=policy, policy_label=policy["policy"])
    write_json_atomic(run / "evaluation_config.json", config.to_json())
    write_json_atomic(run / "policy_info.json", policy)
    summaries = [_write_episode(run, cond.env_id, seed, 3000, e) for seed, e in zip(seeds, episodes)]
    body = dict(
        protocol=settings.protocol, status="validated", suite=suite.name, env_id=cond.env_id, condition=cond.name,
        configuration=settings.to_json(), **integrity.figures(seeds, summaries), reportable=False, reasons=["a test"],
        policy_info={**policy, "chunk_size": None}, controller=settings.controller, robot_variant="test", control_hz=50,
        action_schema="decoupled_v1", videos=[], source_sha256={}, source_digest="0" * 64, assets={}, lock_sha256="",
        code={}, python="3", versions={}, execution_environment={}, render={}, execution={}, fingerprint=fingerprint,
        run_dir=str(run), wall_seconds=1.0, episodes_per_second=None, finished_at=finished_at,
        files=integrity.anchored_files(run, seeds), look=settings.look,
    )
    result = integrity.seal(BenchmarkResult(**body, record_sha256="").to_json())
    write_json_atomic(run / "benchmark_result.json", result)
    return run


def reseal(result_path: Path, **changes) -> None:
    """Change fields of a result and seal it again, as if the run had recorded them (a test's stand-in for a
    run too long to make, e.g. one of the standard protocol)."""
    result = {**json.loads(result_path.read_text()), **changes}
    write_json_atomic(result_path, integrity.seal(result))
