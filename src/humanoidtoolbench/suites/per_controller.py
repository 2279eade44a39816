"""Per-controller tables: what a suite's code does differently on each controller, as rows by name.

A suite lists its tables in `Suite.controller_tables`; constructing the
suite checks each has a row for every controller it runs, so a controller
added to `controllers` without its rows fails at import with one line naming
the table and the controller, never later by a silent default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


class MissingRow(ValueError):
    """A per-controller table with no row for a controller; one line naming both."""


@dataclass(frozen=True)
class PerController(Generic[T]):
    name: str  # as its readers know it, e.g. "findsit PROFILES"
    rows: Mapping[str, T]

    def __getitem__(self, controller: str) -> T:
        try:
            return self.rows[controller]
        except KeyError:
            raise MissingRow(self.missing(controller)) from None

    def missing(self, controller: str) -> str:
        return f"{self.name} has no row for controller {controller!r} (rows: {', '.join(self.rows)})"
