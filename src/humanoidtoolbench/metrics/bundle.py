"""A submission bundle: one policy's scored runs, copied whole, listed and sealed, checkable by anyone offline.

`write` copies each run a report scores (per condition, the latest validated
one) into `runs/CONDITION/RUN/` and writes `bundle.json`: the suite, the
policy, the scores it claims, the SHA-256 of every file and a seal over all
of it. `check` trusts none of it: the seal, every file's hash (a file missing
or not listed is named too), each run's own chain (`eval.integrity.verify`:
result, summaries, episode files, videos), the standard protocol (seeds, step
budget, controller, look), each run's reportability, one policy throughout,
and every score derived again from the episodes' metrics files and compared
with the claim. The first problem found ends the check; nothing here loads
the simulator. Like the run chain, this catches edits, not a forger who
rewrites every file and hash alike.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from .. import suites
from ..digest import file_sha256
from ..eval.derive import FactsError, episode_facts
from ..eval.identity import policy_label
from ..eval.integrity import canonical_sha256, verify
from ..eval.rundir import CONFIG, RESULT
from ..record.files import write_json_atomic
from .report import json_object, standing

MANIFEST = "bundle.json"
FORMAT = "humanoidtoolbench_bundle_v1"
SEAL = "record_sha256"
SKIPPED = ("run.lock",)  # a run's own lock: not part of what it recorded


class BundleError(ValueError):
    """A bundle that does not check out: `path` is the first bad file (bundle-relative), `reason` one line."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


@dataclass(frozen=True)
class Run:
    """One run to bundle: its condition, its directory and its policy label."""

    condition: str
    path: Path
    policy: str


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink())


def write(runs: list[Run], dest: Path) -> dict:
    """Copy `runs` (of one suite and policy) into the new folder `dest` and seal its manifest; returns it."""
    if dest.exists():
        raise FileExistsError(f"{dest} exists; a bundle is written to a new folder")
    suite = suites.suite_of(suites.parse(runs[0].condition))
    tmp = dest.with_name(f".{dest.name}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    entries, scores = {}, {}
    try:
        for run in runs:
            rel = Path("runs") / run.condition / run.path.name
            shutil.copytree(run.path, tmp / rel, ignore=shutil.ignore_patterns(*SKIPPED), symlinks=True)
            scores[run.condition] = derive_scores(tmp / rel, rel.as_posix())
            entries[run.condition] = rel.as_posix()
        files = {p.relative_to(tmp).as_posix(): file_sha256(p) for p in _files(tmp)}
        body = {"format": FORMAT, "suite": suite.name, "protocol": suite.protocol.name, "policy": runs[0].policy,
                "runs": entries, "scores": scores, "files": files}
        manifest = {**body, SEAL: canonical_sha256(body)}
        write_json_atomic(tmp / MANIFEST, manifest)
        tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest


def derive_scores(run_dir: Path, rel: str) -> dict:
    """Successes of the configured seeds, each read from its episode's metrics file alone."""
    config = json_object(run_dir / CONFIG)
    seeds = [s for s in config.get("seeds") or [] if isinstance(s, int)]
    successes = 0
    for seed in seeds:
        name = f"metrics/episode_{seed}.jsonl"
        try:
            successes += bool(episode_facts(run_dir / name, seed, name).success)
        except (FactsError, OSError) as exc:
            raise BundleError(f"{rel}/{name}", f"cannot be scored: {exc}") from None
    return {"episodes": len(seeds), "successes": successes}


def _manifest(root: Path) -> dict:
    path = root / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BundleError(MANIFEST, f"unreadable ({exc})") from None
    keys = {"format", "suite", "protocol", "policy", "runs", "scores", "files", SEAL}
    if not isinstance(manifest, dict) or set(manifest) != keys or manifest["format"] != FORMAT:
        raise BundleError(MANIFEST, f"not a {FORMAT} manifest")
    if canonical_sha256({k: v for k, v in manifest.items() if k != SEAL}) != manifest[SEAL]:
        raise BundleError(MANIFEST, f"changed after it was sealed ({SEAL} does not match its contents)")
    if not isinstance(manifest["files"], dict) or not isinstance(manifest["runs"], dict) or not manifest["runs"]:
        raise BundleError(MANIFEST, "lists no runs or no files")
    return manifest


def _check_files(root: Path, listed: dict) -> None:
    present = {p.relative_to(root).as_posix() for p in _files(root)} - {MANIFEST}
    for rel in sorted(set(listed) | present):
        path = root / rel
        if rel not in listed:
            raise BundleError(rel, "not listed in the manifest")
        if path.is_symlink():
            raise BundleError(rel, "is a link; a bundle holds files only")
        if not path.is_file():
            raise BundleError(rel, "missing")
        if file_sha256(path) != listed[rel]:
            raise BundleError(rel, "changed after the bundle was sealed (sha256 mismatch)")


def _check_protocol(suite, cond, config: dict, rel: str) -> None:
    protocol = suite.protocol
    seeds = list(range(protocol.seed_start, protocol.seed_start + protocol.episodes))
    wanted = {"protocol": protocol.name, "seeds": seeds, "max_steps": suite.budget(cond),
              "controller": protocol.controller, "look": protocol.look, "condition": cond.name}
    for key, value in wanted.items():
        if config.get(key) != value:
            shown = f"{len(config.get(key) or [])} seeds, not the protocol's {len(seeds)} from {protocol.seed_start}" \
                if key == "seeds" else f"{config.get(key)!r}, not the protocol's {value!r}"
            raise BundleError(f"{rel}/{CONFIG}", f"{key} is {shown}")


def _first_problem(check) -> tuple[str, str] | None:
    """(run-relative file, reason) of a run check's first problem, an episode's before the run's: the file it
    names, else the episode's summary or the result."""
    found = [(f"summaries/episode_{seed}.json", p) for seed in sorted(check.episodes) for p in check.episodes[seed]]
    found += [(RESULT, p) for p in check.run]  # after the episodes': a result is wrong because an episode is
    if not found:
        return None
    default, text = found[0]
    head, _, rest = text.partition(": ")
    return (head, rest) if rest and (head.endswith((".json", ".jsonl", ".mp4", ".h5")) or "/" in head) else (default, text)


def check(root: str | Path) -> dict:
    """The leaderboard row a bundle earns, or `BundleError` naming its first bad file."""
    root = Path(root)
    manifest = _manifest(root)
    _check_files(root, manifest["files"])
    try:
        suite = suites.get(manifest["suite"])
    except suites.SuiteError as exc:
        raise BundleError(MANIFEST, str(exc)) from None
    if manifest["protocol"] != suite.protocol.name:
        raise BundleError(MANIFEST, f"protocol {manifest['protocol']!r} is not the {suite.name} suite's {suite.protocol.name!r}")
    rows = {}
    for name, rel in manifest["runs"].items():
        cond = suite.parse(str(name)) if isinstance(name, str) else None
        if cond is None or cond.name != name or not isinstance(rel, str) or not rel.startswith(f"runs/{name}/"):
            raise BundleError(MANIFEST, f"run {name!r} at {rel!r} is not a condition of the {suite.name} suite in runs/")
        run_dir = root / rel
        found = _first_problem(verify(run_dir))
        if found:
            raise BundleError(f"{rel}/{found[0]}", found[1])
        config, result = json_object(run_dir / CONFIG), json_object(run_dir / RESULT)
        _check_protocol(suite, cond, config, rel)
        reportable, reasons = standing(name, result)
        if not reportable:
            raise BundleError(f"{rel}/{RESULT}", "not reportable: " + "; ".join(reasons or ["flagged so"]))
        label = policy_label(config.get("policy_info") or {}, config.get("controller"), suite.protocol.controller,
                             config.get("look"), suite.protocol.look)
        if label != manifest["policy"]:
            raise BundleError(f"{rel}/{CONFIG}", f"policy {label!r}, not the bundle's {manifest['policy']!r}")
        derived = derive_scores(run_dir, rel)
        if manifest["scores"].get(name) != derived:
            raise BundleError(MANIFEST, f"claims {manifest['scores'].get(name)} on {name}; its episodes give {derived}")
        rows[name] = {**derived, "success_rate": derived["successes"] / derived["episodes"]}
    complete = len(rows) == len(suite.conditions)
    return {
        "policy": manifest["policy"], "suite": suite.name, "protocol": suite.protocol.name, "conditions": rows,
        "complete": complete,
        "mean_success_rate": sum(r["success_rate"] for r in rows.values()) / len(rows) if complete else None,
        "bundle_sha256": manifest[SEAL],
    }
