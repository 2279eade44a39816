"""The suite registry: every benchmark suite the core can run, found by module.

Built-in suites are listed here; `HTB_SUITES` adds importable modules (a
comma-separated list) that expose a `SUITE` object, so a suite outside the
package runs through the same commands, workers and Ray tasks (which inherit
the variable). Suites are imported on first use; importing one never imports
MuJoCo (`htb-metrics` needs none).
"""

from __future__ import annotations

import difflib
import importlib
import os
from functools import lru_cache

from .base import Condition, Suite

BUILTIN = ("humanoidtoolbench.suites.toolbench", "humanoidtoolbench.suites.fiatlux", "humanoidtoolbench.suites.findsit")
ENV_VAR = "HTB_SUITES"


class UnknownEnvironment(ValueError):
    """An environment ID no suite knows; the message names the closest."""


class SuiteError(ValueError):
    """A suite module that cannot be loaded; one line."""


def _modules() -> tuple[str, ...]:
    extra = tuple(m.strip() for m in os.environ.get(ENV_VAR, "").split(",") if m.strip())
    return tuple(dict.fromkeys(BUILTIN + extra))


@lru_cache(maxsize=None)
def _load(module: str) -> Suite:
    try:
        suite = importlib.import_module(module).SUITE
    except (ImportError, AttributeError) as exc:
        origin = "built in" if module in BUILTIN else f"from {ENV_VAR}"
        raise SuiteError(f"cannot load suite module {module!r} ({origin}): {exc}") from None
    return suite


def suites() -> tuple[Suite, ...]:
    return tuple(_load(m) for m in _modules())


def module_of(suite: Suite) -> str:
    """The module a suite was loaded from (its source digest covers that package)."""
    return next(m for m in _modules() if _load(m) is suite)


def get(name: str) -> Suite:
    """The suite called `name`, loading modules only until it is found (a policy server needs no other)."""
    for module in _modules():
        if _load(module).name == name:
            return _load(module)
    raise SuiteError(f"unknown suite {name!r}; available: {', '.join(s.name for s in suites())}")


def default() -> Suite:
    return _load(BUILTIN[0])


def suite_of(condition: Condition) -> Suite:
    return get(condition.suite)


def parse(text: str) -> Condition:
    """A condition of any suite, by ID or name (case-insensitive)."""
    for suite in suites():
        found = suite.parse(text)
        if found is not None:
            return found
    names = {c.name.lower(): c for s in suites() for c in s.listed}
    close = difflib.get_close_matches(text.strip().lower(), list(names), n=1, cutoff=0.0)
    hint = f"; did you mean {names[close[0]].name}?" if close else ""
    raise UnknownEnvironment(f"unknown environment {text!r}{hint} (see --list-envs)")


def register_gymnasium_envs() -> None:
    """Register every suite's IDs; skipped where Gymnasium is not installed (a policy server
    started from the source tree in a model's own environment needs only NumPy)."""
    try:
        import gymnasium
    except ModuleNotFoundError as exc:
        if exc.name != "gymnasium":
            raise
        return
    for suite in suites():
        suite.register_gymnasium(gymnasium)
