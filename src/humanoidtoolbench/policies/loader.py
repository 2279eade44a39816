"""Load a `--policy` reference (`MODULE:FUNCTION` or `path/to/file.py:FUNCTION`) into a callable.

Loading records what a result needs to identify the policy: its name, whether
it is a diagnostic or privileged example, and `adapter_sha256`, a hash of the
user's adapter code.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import itertools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .errors import PolicyLoadError, describe_exception, is_user_file, one_line, user_frame

_file_modules = itertools.count()


@dataclass(frozen=True)
class LoadedPolicy:
    """A policy ready to call: `predict(request) -> (T, 36) array` and what identifies it."""

    predict: Callable[[dict], Any]
    name: str
    source: str
    file: Path | None
    adapter_sha256: str | None  # None for a `--model`: its weights and configuration are hashed instead
    diagnostic: bool = False
    privileged: bool = False


def adapter_sha256(files) -> str:
    """Hash of the adapter's source files, stable across machines where the same files are used.

    Rule: for each file, sorted by its path relative to the files' common
    directory, feed ``relative_posix_path + "\\0" + size (8 bytes, big-endian) +
    file_bytes`` into one SHA-256 (the size keeps file boundaries unambiguous).
    """
    paths = sorted({Path(f).resolve() for f in files})
    if not paths:
        return hashlib.sha256().hexdigest()
    root = Path(os.path.commonpath([p.parent for p in paths]))
    digest = hashlib.sha256()
    for path in sorted(paths, key=lambda p: p.relative_to(root).as_posix()):
        data = path.read_bytes()
        digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0" + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def is_file_ref(module_part: str) -> bool:
    return module_part.endswith(".py") or "/" in module_part or os.sep in module_part


def _import_error(what: str, exc: BaseException) -> PolicyLoadError:
    detail = describe_exception(exc) if user_frame(exc.__traceback__) else f"{type(exc).__name__}: {one_line(str(exc))}"
    return PolicyLoadError(f"cannot import policy {what}: {detail}")


def _import(module_part: str):
    """Import the module of a reference with its own directory (or the current one) first on sys.path."""
    if is_file_ref(module_part):
        path = Path(module_part).expanduser().resolve()
        if not path.is_file():
            raise PolicyLoadError(f"policy file not found: {module_part}")
        what, search_dir = f"file '{module_part}'", str(path.parent)
        name = f"htb_policy_{next(_file_modules)}_{path.stem}"
    else:
        what, search_dir, name, path = f"module '{module_part}'", os.getcwd(), module_part, None
    sys.path.insert(0, search_dir)
    importlib.invalidate_caches()
    try:
        if path is None:
            return importlib.import_module(name), what
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # registered first, as `import` does, for dataclasses and pickling
        spec.loader.exec_module(module)
        return module, what
    except (Exception, SystemExit) as exc:
        if path is not None:
            sys.modules.pop(name, None)
        raise _import_error(what, exc) from None
    finally:
        sys.path.remove(search_dir)


def _own_files(module) -> set[str]:
    """User source files the policy module reaches through its globals (modules, and the modules
    that define its functions and classes), transitively: whatever was imported before, they count."""
    seen, files, pending = set(), set(), [module]
    while pending:
        mod = pending.pop()
        if id(mod) in seen:
            continue
        seen.add(id(mod))
        file = getattr(mod, "__file__", None)
        if not (file and is_user_file(file) and Path(file).is_file()):
            continue
        files.add(file)
        for value in list(vars(mod).values()):
            target = value if inspect.ismodule(value) else sys.modules.get(getattr(value, "__module__", None) or "")
            if target is not None:
                pending.append(target)
    return files


def _flag(predict, module, attr: str, default):
    """`predict.attr` (or `predict.ATTR`), else the module's `ATTR` (or `attr`), else `default`."""
    for owner, name in ((predict, attr.lower()), (predict, attr.upper()), (module, attr.upper()), (module, attr.lower())):
        if hasattr(owner, name):
            return getattr(owner, name)
    return default


def load_policy(ref: str, aliases: dict[str, str] | None = None) -> LoadedPolicy:
    """Load `ref` (or `aliases[ref]`, keeping `ref` as the source); any failure is one-line `PolicyLoadError`."""
    target = (aliases or {}).get(ref, ref)
    module_part, _, function = target.rpartition(":")
    names_ok = all(part.isidentifier() for part in module_part.split("."))
    if not module_part or not function.isidentifier() or not (is_file_ref(module_part) or names_ok):
        builtins = f" or a built-in ({', '.join(aliases)})" if aliases else ""
        raise PolicyLoadError(
            f"invalid policy reference '{target}': expected MODULE:FUNCTION or path/to/file.py:FUNCTION{builtins}"
        )

    before = set(sys.modules)
    module, what = _import(module_part)
    predict = getattr(module, function, None)
    if predict is None:
        raise PolicyLoadError(f"{what} has no function '{function}'")
    if not callable(predict):
        raise PolicyLoadError(f"'{target}' is not callable (it is a {type(predict).__name__})")

    defining = sys.modules.get(getattr(predict, "__module__", None) or "", module)
    file = getattr(defining, "__file__", None) or getattr(module, "__file__", None)
    imported = [getattr(sys.modules[n], "__file__", None) for n in set(sys.modules) - before]
    files = [f for f in imported if f and is_user_file(f) and Path(f).is_file()]
    files += sorted(_own_files(defining) | _own_files(module))
    default_name = f"{Path(module_part).stem if is_file_ref(module_part) else module_part}:{function}"
    return LoadedPolicy(
        predict=predict,
        name=str(_flag(predict, module, "policy_name", default_name)),
        source=ref,
        file=Path(file).resolve() if file else None,
        adapter_sha256=adapter_sha256(files + ([file] if file else [])),
        diagnostic=bool(_flag(predict, module, "diagnostic", False)),
        privileged=bool(_flag(predict, module, "privileged", False)),
    )
