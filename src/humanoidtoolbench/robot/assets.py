"""Install and verify the robot model: the one external asset.

The project carries only the facts of the upstream files (`g1_manifest.json`:
paths, sizes, SHA-256, pinned URL). `install` copies them from a local mirror
or downloads them, verifies every hash before writing, derives the edited
model and decimated meshes, and moves the finished tree into place with one
rename, so an interrupted install leaves nothing that looks installed.

Layout under the data directory (`HTB_HOME`, default
`~/.local/share/humanoidtoolbench`):

    robot/<name>-<commit12>/
        source/    verified upstream files
        derived/   edited models and decimated meshes
        INSTALL.json   hashes of everything above, recipe, asset manifest hashes
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..digest import file_sha256
from . import derive
from .variants import DEFAULT_VARIANT, VARIANTS

MANIFEST_PATH = Path(__file__).with_name("g1_manifest.json")
INSTALL_RECORD = "INSTALL.json"
MIRROR_ENV = "HTB_ASSET_MIRROR"
HOME_ENV = "HTB_HOME"
DOWNLOAD_TIMEOUT_S = 60


class AssetError(Exception):
    """A problem with the robot asset, stated in one line for the user."""


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_json(obj) -> str:
    return sha256_bytes(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode())


@lru_cache(maxsize=1)
def manifest() -> dict:
    return json.loads(MANIFEST_PATH.read_text())


def data_home() -> Path:
    if os.environ.get(HOME_ENV):
        return Path(os.environ[HOME_ENV]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "humanoidtoolbench"


def unwritable_home(exc: OSError, what: str) -> str:
    """One line for a data directory that cannot be written (read-only, not ours, a file): where, and the way out."""
    why = f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")
    return f"cannot write {what} under {data_home()} ({why}); set {HOME_ENV} to a writable directory"


def install_dir() -> Path:
    m = manifest()
    return data_home() / "robot" / f"{m['name']}-{m['upstream']['commit'][:12]}"


def _fetch_from_mirror(mirror: Path, rel: str) -> bytes:
    path = mirror / "unitree_g1" / rel
    if not path.is_file():
        raise AssetError(f"file missing from mirror: {path}")
    return path.read_bytes()


def _fetch_from_url(entry: dict) -> bytes:
    url = manifest()["raw_url_template"].format(path=entry["upstream_path"])
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as resp:
            return resp.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise AssetError(f"download failed for {entry['path']} from {url}: {reason}") from None


def _reuse(target: Path, entry: dict) -> bytes | None:
    """A source file already installed and intact (re-deriving needs no fetch)."""
    path = target / "source" / entry["path"]
    if path.is_file():
        data = path.read_bytes()
        if sha256_bytes(data) == entry["sha256"]:
            return data
    return None


def _verified(entry: dict, data: bytes) -> bytes:
    actual = sha256_bytes(data)
    if actual != entry["sha256"]:
        raise AssetError(f"hash mismatch for {entry['path']}: expected {entry['sha256']}, got {actual}")
    return data


@dataclass(frozen=True)
class InstalledRobot:
    root: Path
    record: dict

    def model_path(self, detail: str = "fast", variant: str = DEFAULT_VARIANT) -> Path:
        if detail not in derive.DETAILS:
            raise AssetError(f"unknown visual detail {detail!r}; choose one of {sorted(derive.DETAILS)}")
        if variant not in VARIANTS:
            raise AssetError(f"unknown robot variant {variant!r}; choose one of {sorted(VARIANTS)}")
        return self.root / "derived" / VARIANTS[variant].files[detail]

    def manifest_sha256(self, detail: str = "fast", variant: str = DEFAULT_VARIANT) -> str:
        """Hash of everything that affects physics or images for this variant and detail level."""
        return self.record["asset_manifest_sha256"][variant][detail]


def _asset_manifest_hashes(files: dict[str, str]) -> dict[str, dict[str, str]]:
    """Per variant and visual detail, one hash over the sources, the variant's recipe and the files it loads."""
    out: dict[str, dict[str, str]] = {}
    for variant in VARIANTS.values():
        for detail, model_file in variant.files.items():
            used = {
                k: v
                for k, v in files.items()
                if k.startswith("source/") or k == f"derived/{model_file}" or (detail == "fast" and k.startswith("derived/meshes/"))
            }
            out.setdefault(variant.name, {})[detail] = sha256_json({"recipe": derive.recipe_sha256(variant.name), "files": used})
    return out


def _resolve_mirror(mirror: str | os.PathLike | None) -> Path | None:
    if mirror is None:
        mirror = os.environ.get(MIRROR_ENV) or None
    if mirror is None:
        return None
    path = Path(mirror).expanduser()
    if not path.is_dir():
        raise AssetError(f"mirror directory not found: {path}")
    return path


def install(mirror: str | os.PathLike | None = None, log=lambda msg: None) -> InstalledRobot:
    """Install (or confirm) the robot asset. Re-running on a good install is a no-op."""
    target = install_dir()
    if target.exists() and not check(target):
        log(f"robot asset already installed and verified at {target}")
        return _load(target)
    source = _resolve_mirror(mirror)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        for stale in target.parent.glob(".install-*"):
            shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=".install-", dir=target.parent))
    except OSError as exc:
        raise AssetError(unwritable_home(exc, "the robot asset")) from None
    try:
        files: dict[str, str] = {}
        entries = manifest()["files"]
        origin = str(source) if source else "pinned upstream URLs"
        log(f"installing {len(entries)} files from {origin}")
        for entry in entries:
            data = _reuse(target, entry)
            if data is None:
                data = _fetch_from_mirror(source, entry["path"]) if source else _fetch_from_url(entry)
            dest = tmp / "source" / entry["path"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(_verified(entry, data))
            files[f"source/{entry['path']}"] = entry["sha256"]
        log("deriving edited model and decimated visual meshes")
        for rel in derive.build(tmp / "source", tmp / "derived"):
            files[f"derived/{rel}"] = file_sha256(tmp / "derived" / rel)
        record = {
            "name": manifest()["name"],
            "upstream": manifest()["upstream"],
            "recipe_sha256": {v: derive.recipe_sha256(v) for v in VARIANTS},
            "files": files,
            "asset_manifest_sha256": _asset_manifest_hashes(files),
        }
        (tmp / INSTALL_RECORD).write_text(json.dumps(record, indent=1, sort_keys=True))
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _cached_install.cache_clear()
    log(f"installed robot asset at {target}")
    return _load(target)


def check(root: Path | None = None) -> list[str]:
    """Every problem with an installation, one line each; empty when it is good."""
    root = root or install_dir()
    if not root.is_dir():
        return [f"robot asset not installed at {root}; run htb-setup"]
    rec_path = root / INSTALL_RECORD
    if not rec_path.is_file():
        return [f"{rec_path} missing; run htb-setup"]
    try:
        record = json.loads(rec_path.read_text())
    except json.JSONDecodeError:
        return [f"{rec_path} is not valid JSON; run htb-setup"]
    problems = []
    if record.get("recipe_sha256") != {v: derive.recipe_sha256(v) for v in VARIANTS}:
        problems.append("derived robot files were made by another version of humanoidtoolbench; run htb-setup")
    expected_sources = {f"source/{e['path']}": e["sha256"] for e in manifest()["files"]}
    recorded = record.get("files", {})
    for rel, digest in {**recorded, **expected_sources}.items():
        path = root / rel
        if not path.is_file():
            problems.append(f"missing file {rel}")
            continue
        actual = file_sha256(path)
        if actual != digest:
            problems.append(f"hash mismatch for {rel}: expected {digest}, got {actual}")
    return problems


def _load(root: Path) -> InstalledRobot:
    return InstalledRobot(root, json.loads((root / INSTALL_RECORD).read_text()))


@lru_cache(maxsize=1)
def _cached_install(root: Path) -> InstalledRobot:
    problems = check(root)
    if problems:
        hint = "" if problems[0].endswith("htb-setup") else " (run htb-setup)"
        raise AssetError(problems[0] + hint)
    return _load(root)


def installed() -> InstalledRobot:
    """The verified installation; hashes are checked once per process."""
    return _cached_install(install_dir())
