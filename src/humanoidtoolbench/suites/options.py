"""Episode options as data: what a suite's `make_episode` takes beyond the condition, seed and look.

`htb-eval` turns each row into a flag and the Gymnasium environments take
the same names as keywords, so a suite with an option of its own needs no
edit outside itself. The first value is the standard protocol's; a run with
any other is diagnostic and records `reason`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Option:
    name: str  # the keyword `make_episode` takes
    values: tuple  # the allowed values, the standard one first
    help: str
    reason: str  # why a run off the standard value is not the protocol's

    @property
    def standard(self):
        return self.values[0]

    @property
    def switch(self) -> bool:
        """A yes/no option: its flag takes no value and sets the other one."""
        return len(self.values) == 2 and all(isinstance(v, bool) for v in self.values)

    @property
    def flag(self) -> str:
        name = self.name.replace("_", "-")
        return f"--no-{name}" if self.switch and self.standard else f"--{name}"

    def given(self, parsed):
        """The value the parsed flag asks for, or None where it was not given."""
        value = getattr(parsed, self.flag[2:].replace("-", "_"), None)
        if self.switch:
            return self.values[1] if value else None
        return value
