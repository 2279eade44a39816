"""What the commands share: one-line usage errors, the numbers they accept, the conditions and the policy a
user names, and what a suite's policies speak."""

from __future__ import annotations

import argparse
import os

from .. import suites
from ..policies.policy_source import Speaks
from ..suites.base import Suite

MAX_EPISODES = 100_000
MAX_WORKERS = 1024
SEED_LIMIT = 2**31  # every seed stays a non-negative 32-bit signed integer


class UsageError(Exception):
    """Bad input: reported as one line, exit status 2, before anything is simulated."""


class OneLineParser(argparse.ArgumentParser):
    """Reports argparse's own errors (a non-number, an unknown flag) as one line, like all other bad input."""

    def error(self, message: str):
        raise UsageError(f"{message} (see {self.prog} --help)")


def conditions_of(env: str):
    """The conditions named on the command line, in the order given, each once, all of one suite."""
    text = env.strip().lower()
    try:
        if text == "all":
            return list(suites.default().conditions)
        if text.endswith(":all"):
            return list(suites.get(text[: -len(":all")]).conditions)
        named = [suites.parse(name) for name in env.split(",") if name.strip()]
    except (suites.UnknownEnvironment, suites.SuiteError) as exc:
        raise UsageError(str(exc)) from None
    if not named:
        raise UsageError("name a condition, several separated by commas, or 'all'")
    unique = list(dict.fromkeys(named))
    if len(unique) < len(named):
        raise UsageError("a condition is named twice")
    if len({c.suite for c in unique}) > 1:
        raise UsageError("the conditions belong to different suites; evaluate each suite with its own command")
    return unique


def worker_count(given: str) -> int:
    """A --workers value for this machine: 1 to MAX_WORKERS, or 'auto' for one per core."""
    text = given.strip().lower()
    if text == "auto":
        return os.cpu_count() or 1
    try:
        count = int(text) if text.isascii() and text.isdigit() else 0
    except ValueError:  # more digits than int() converts
        count = 0
    if not 1 <= count <= MAX_WORKERS:
        raise UsageError(f"--workers must be a number from 1 to {MAX_WORKERS} or 'auto', got {given!r}")
    return count


def check_controller(suite: Suite, controller: str | None) -> None:
    """Refuse a controller the suite's commands cannot run on (None: the protocol's)."""
    if controller is not None and controller not in suite.controllers:
        raise UsageError(f"--controller {controller}: the {suite.name} suite's commands run on {', '.join(suite.controllers)}")


def check_look(suite: Suite, look: str | None) -> None:
    """Refuse a look the suite is not drawn in (None: the protocol's)."""
    if look is not None and look not in suite.looks:
        raise UsageError(f"--look {look}: the {suite.name} suite is drawn in {', '.join(suite.looks)}")


def check_seed_range(suite: Suite, conditions, seed_start: int, count: int) -> None:
    """Where seeds index a fixed episode list (find-navigate-sit), the range must lie within it."""
    for cond in conditions:
        size = suite.seed_count(cond)
        if size is not None and seed_start + count > size:
            raise UsageError(
                f"{cond.name} has seeds 0..{size - 1} (its episodes' indices); {count} seeds from {seed_start} go past them"
            )


def speaks(suite: Suite, controller: str | None) -> Speaks:
    """The action and request schemas of `suite`'s policies under `controller` (None: the protocol's)."""
    controller = controller or suite.protocol.controller
    schema = suite.request_schema
    return Speaks(suite.name, controller, suite.contract_for(controller), schema.name if schema else None,
                  suite.action_contract(controller).action_dim)


def check_model_fits(suite: Suite, controller: str | None, model) -> None:
    """Refuse a model (`policies.model.load.ModelInfo`) that answers another action contract than the suite's
    policies under `controller`, or reads a request field the suite does not send."""
    wanted = speaks(suite, controller)
    schema = suite.request_schema
    lacks = list(model.reads) if schema is None else schema.lacks(model.reads)
    problems = [f"takes {wanted.action_schema}"] if model.contract != wanted.action_schema else []
    if lacks:
        problems.append(f"sends {wanted.request_schema} requests, without {', '.join(lacks)}")
    if problems:
        raise UsageError(
            f"--model: this {model.family.upper()} model answers {model.contract} and reads {', '.join(model.reads) or 'nothing'}; "
            f"the {suite.name} suite on {wanted.controller} {' and '.join(problems)}"
        )
