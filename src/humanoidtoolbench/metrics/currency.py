"""Whether recorded figures were measured by the code installed now.

Every result carries the source digest of its suite (the core plus what the
suite imports); a figure whose digest is not the current one was measured by
other code. It may still be right, but only a rerun can say so. This reads the
three shapes results are kept in: a run's `benchmark_result.json` (which also
holds the hash of each source file, so the files that changed can be named),
an `htb-eval` output's `summary.json`, and the JSON `htb-metrics --json` prints.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .. import suites
from ..eval.rundir import RESULT
from ..suites import UnknownEnvironment
from .report import json_object

SHAPES = (RESULT, "summary.json", "metrics.json")


@dataclass(frozen=True)
class Currency:
    file: Path
    condition: str
    recorded: str | None  # None: the file records no source digest
    current: str | None  # None: the condition is unknown to the installed suites
    changed: tuple[str, ...] | None = None  # source files added, removed or edited since; None: not recorded

    @property
    def is_current(self) -> bool:
        return self.recorded is not None and self.recorded == self.current


@lru_cache(maxsize=None)
def _installed(suite_name: str) -> tuple[dict[str, str], str]:
    """The installed code's per-file hashes of a suite and their digest, computed once per suite."""
    # Imported here: provenance reads MuJoCo's version, and the rest of htb-metrics runs without MuJoCo.
    from ..eval import provenance

    hashes = provenance.source_hashes(suites.get(suite_name))
    return hashes, provenance.source_digest(hashes)


def _current(condition: str) -> tuple[dict[str, str], str] | None:
    try:
        cond = suites.parse(condition)
    except UnknownEnvironment:
        return None
    return _installed(cond.suite)


def _recorded(path: Path, data: dict) -> Iterator[tuple[str, str | None, dict | None]]:
    """(condition, source digest, per-file hashes or None) of each row the file holds."""
    if path.name == RESULT:
        yield str(data.get("condition")), data.get("source_digest"), data.get("source_sha256")
        return
    # A summary lists its rows under "conditions", each named by "name"; htb-metrics keys them, naming
    # each by "condition" (its "offline" entry holds suite scores, not condition rows).
    rows = data.get("conditions") if path.name == "summary.json" else list(data.values())
    for row in rows if isinstance(rows, list) else []:
        name = row.get("condition", row.get("name")) if isinstance(row, dict) else None
        if isinstance(name, str) and row.get("result_path", "") is not None:  # None: a summary's missing condition
            yield name, row.get("source_digest"), None


def _changed(recorded: dict, current: dict[str, str]) -> tuple[str, ...]:
    return tuple(sorted(p for p in recorded.keys() | current.keys() if recorded.get(p) != current.get(p)))


def check_file(path: Path) -> list[Currency]:
    """The rows of one results file; [] for a file that cannot be read or has another shape."""
    data = json_object(path)
    found = []
    for condition, digest, hashes in _recorded(path, data):
        current, now = _current(condition) or (None, None)
        changed = _changed(hashes, current) if isinstance(hashes, dict) and current is not None else None
        found.append(Currency(path, condition, digest if isinstance(digest, str) else None, now, changed))
    return found


def check(root: Path) -> list[Currency]:
    """Every row of every results file under `root` (a file or a folder), in path order. Episode summaries
    inside run folders are not results and are not read."""
    files = [root] if root.is_file() else sorted(p for name in SHAPES for p in root.rglob(name))
    return [row for path in files if path.parent.name != "summaries" for row in check_file(path)]


def markdown(rows: list[Currency], root: Path) -> str:
    """One line per file and recorded digest (a summary's rows mostly share one), then the changed files."""
    def short(digest: str | None) -> str:
        return f"`{digest[:12]}`" if digest else "—"

    groups: dict[tuple, list[Currency]] = {}
    for r in rows:
        groups.setdefault((r.file, r.recorded, r.current), []).append(r)
    lines = ["| File | Conditions | Recorded digest | Current digest | Current |", "| --- | --- | --- | --- | --- |"]
    for (file, recorded, current), group in groups.items():
        where = file.relative_to(root) if file.is_relative_to(root) and file != root else file
        state = "yes" if group[0].is_current else ("no digest recorded" if recorded is None else "no")
        names = group[0].condition if len(group) == 1 else f"{len(group)}"
        lines.append(f"| {where} | {names} | {short(recorded)} | {short(current)} | {state} |")
    for r in rows:
        if r.changed and not r.is_current:
            lines.append(f"\n{r.condition} ({r.file.parent.name}): changed since: {', '.join(r.changed)}")
    stale = sum(not r.is_current for r in rows)
    lines.append(f"\n{len(rows) - stale} of {len(rows)} recorded results measured by the installed code.")
    return "\n".join(lines) + "\n"
