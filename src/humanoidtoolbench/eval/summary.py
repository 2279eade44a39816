"""One summary over a suite's conditions, built from their validated results.

The headline number is the unweighted mean of the condition success rates,
given only when every condition of the suite has a result. The summary is
reportable only when every result is reportable and all of them come from
the same policy, code, robot asset, runtime, dependencies and controller:
a mean over results from different setups describes none of them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .. import suites
from ..record.files import write_bytes_atomic, write_json_atomic
from ..suites.base import Suite

MISSING = "no validated result"
# Fields that must agree across all results, with the words used when they do not.
_SHARED = (
    ("policy", "policies"),
    ("source_digest", "source digests"),
    ("manifest_sha256", "asset manifest hashes"),
    ("versions", "runtime version sets"),
    ("lock_sha256", "dependency lock hashes"),
    ("controller", "controllers"),
)


def mean_note(suite: Suite) -> str:
    return f"unweighted mean of the {len(suite.conditions)} condition success rates"


def summary_row(env_id: str, result: dict | None, result_path: str | None) -> dict:
    """`result`: a benchmark_result.json object, None where the condition has none."""
    cond = suites.parse(env_id)
    row = {
        "env_id": cond.env_id,
        "name": cond.name,
        "suite": cond.suite,
        **suites.suite_of(cond).summary_fields(cond),
        "result_path": result_path,
    }
    if result is None:
        return {
            **row,
            **dict.fromkeys(("episodes", "successes", "success_rate", "checkpoint") + tuple(f for f, _ in _SHARED)),
            "reportable": False,
            "reasons": [MISSING],
        }
    policy = result.get("policy_info") or {}
    return {
        **row,
        "episodes": result["episodes"],
        "successes": result["successes"],
        "success_rate": result["success_rate"],
        "reportable": bool(result.get("reportable")),
        "reasons": list(result.get("reasons") or []),
        "policy": policy.get("policy"),
        "checkpoint": policy.get("checkpoint"),
        "source_digest": result.get("source_digest"),
        "manifest_sha256": (result.get("assets") or {}).get("manifest_sha256"),
        "versions": result.get("versions"),
        "lock_sha256": result.get("lock_sha256"),
        "controller": result.get("controller"),
    }


def _shared_value(row: dict, field: str) -> str:
    """A comparable form of one identity field (policy means name and checkpoint)."""
    value = (row["policy"], row["checkpoint"]) if field == "policy" else row[field]
    return json.dumps(value, sort_keys=True)


def build_summary(rows: list[dict]) -> dict:
    by_name = {}
    for row in rows:
        if row["name"] in by_name:
            raise ValueError(f"two results for {row['name']}")
        by_name[row["name"]] = row
    names = {r["suite"] for r in rows}
    if len(names) != 1:
        raise ValueError(f"a summary covers one suite; got {sorted(names)}")
    suite = suites.get(names.pop())
    core = [by_name.get(c.name) or summary_row(c.env_id, None, None) for c in suite.conditions]
    ordered = core + [by_name[c.name] for c in suite.named_only if c.name in by_name]  # listed, outside the mean
    present = [r for r in ordered if r["success_rate"] is not None]
    complete = all(r["success_rate"] is not None for r in core)

    reasons = [f"{r['name']}: {reason}" for r in ordered if not r["reportable"] for reason in r["reasons"] or ["not reportable"]]
    for field, plural in _SHARED:
        distinct = {_shared_value(r, field) for r in present}
        if len(distinct) > 1:
            reasons.append(f"results come from {len(distinct)} different {plural}")
    return {
        "suite": suite.name,
        "conditions": ordered,
        "complete": complete,
        "mean_success_rate": sum(r["success_rate"] for r in core) / len(core) if complete else None,
        "mean_note": mean_note(suite),
        "reportable": not reasons,
        "reasons": reasons,
    }


def summary_markdown(summary: dict) -> str:
    suite = suites.get(summary["suite"])
    note = summary["mean_note"]
    mean = summary["mean_success_rate"]
    lines = suite.summary_markdown(summary["conditions"], mean, note)
    if mean is None:
        lines += ["", f"Mean success rate: — (not all {len(suite.conditions)} conditions have results; {note})"]
    else:
        lines += ["", f"Mean success rate: {100 * mean:.1f}% ({note})"]
    lines += ["", "Reportable: yes" if summary["reportable"] else "Reportable: no"]
    lines += [f"- {reason}" for reason in summary["reasons"]]
    return "\n".join(lines) + "\n"


def write_summary(output_dir: str | os.PathLike, rows: list[dict]) -> dict:
    summary = build_summary(rows)
    out = Path(output_dir)
    write_json_atomic(out / "summary.json", summary)
    write_bytes_atomic(out / "summary.md", summary_markdown(summary).encode())
    return summary
