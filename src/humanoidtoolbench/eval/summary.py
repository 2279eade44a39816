"""One summary over the 18 conditions, built from their validated results.

The headline number is the unweighted mean of the 18 condition success
rates, given only when every condition has a result. The summary is
reportable only when every result is reportable and all of them come from
the same policy, code, robot asset, runtime, dependencies and controller:
a mean over results from different setups describes none of them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..record.files import write_bytes_atomic, write_json_atomic
from ..tasks import registry

MEAN_NOTE = "unweighted mean of the 18 condition success rates"
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


def summary_row(env_id: str, result: dict | None, result_path: str | None) -> dict:
    cond = registry.parse(env_id)
    row = {
        "env_id": cond.env_id,
        "name": cond.name,
        "scenario": cond.scenario,
        "level": cond.level,
        "mode": cond.mode,
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
    ordered = [by_name.get(c.name) or summary_row(c.name, None, None) for c in registry.CONDITIONS]
    present = [r for r in ordered if r["success_rate"] is not None]
    complete = len(present) == len(registry.CONDITIONS)

    reasons = [f"{r['name']}: {reason}" for r in ordered if not r["reportable"] for reason in r["reasons"] or ["not reportable"]]
    for field, plural in _SHARED:
        distinct = {_shared_value(r, field) for r in present}
        if len(distinct) > 1:
            reasons.append(f"results come from {len(distinct)} different {plural}")
    return {
        "conditions": ordered,
        "complete": complete,
        "mean_success_rate": sum(r["success_rate"] for r in ordered) / len(ordered) if complete else None,
        "mean_note": MEAN_NOTE,
        "reportable": not reasons,
        "reasons": reasons,
    }


def _cell(row: dict) -> str:
    if row["success_rate"] is None:
        return "—"
    return f"{row['successes']}/{row['episodes']} ({100 * row['success_rate']:.1f}%)"


def summary_markdown(summary: dict) -> str:
    cells = {(r["scenario"], r["level"], r["mode"]): _cell(r) for r in summary["conditions"]}
    lines = ["| Scenario | Level | S | R |", "|---|---|---|---|"]
    for scenario in registry.SCENARIOS:
        for level in registry.LEVELS:
            s, r = (cells[(scenario, level, mode)] for mode in registry.MODES)
            lines.append(f"| {scenario} | L{level} | {s} | {r} |")
    mean = summary["mean_success_rate"]
    if mean is None:
        lines += ["", f"Mean success rate: — (not all 18 conditions have results; {MEAN_NOTE})"]
    else:
        lines += ["", f"Mean success rate: {100 * mean:.1f}% ({MEAN_NOTE})"]
    lines += ["", "Reportable: yes" if summary["reportable"] else "Reportable: no"]
    lines += [f"- {reason}" for reason in summary["reasons"]]
    return "\n".join(lines) + "\n"


def write_summary(output_dir: str | os.PathLike, rows: list[dict]) -> dict:
    summary = build_summary(rows)
    out = Path(output_dir)
    write_json_atomic(out / "summary.json", summary)
    write_bytes_atomic(out / "summary.md", summary_markdown(summary).encode())
    return summary
