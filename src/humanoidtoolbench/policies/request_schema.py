"""The shape of a request, checked by the policy server before the policy sees it.

A malformed request otherwise fails inside the policy's own code and comes back
as a 500 that blames the policy; checked first, it is a 400 that names the
field. A schema is data, a table of `Field`s under a name (the request schema
id a server declares); each suite defines its own (`Suite.request_schema`)
and `htb-serve --suite` serves with it. Keys not in the table are allowed
(evaluators add their own). NumPy only: the server runs in a model's
environment.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_MISSING = object()


def _kind(value) -> str:
    """What a decoded wire value is, in the protocol's words."""
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    if isinstance(value, np.generic):  # a 0-d array travels as a scalar
        return f"a {value.dtype} scalar"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


@dataclass(frozen=True)
class Object:
    """A JSON object (a dict once decoded)."""

    description = "an object"

    def problem(self, value) -> str | None:
        return None if isinstance(value, dict) else f"got {_kind(value)}"


@dataclass(frozen=True)
class String:
    """A JSON string."""

    description = "a string"

    def problem(self, value) -> str | None:
        return None if isinstance(value, str) else f"got {_kind(value)}"


@dataclass(frozen=True)
class Array:
    """A NumPy array: `dtype` is a NumPy dtype name or "float" (any float dtype); a named dimension is any size >= 1."""

    dtype: str
    shape: tuple[int | str, ...]
    finite: bool = False

    @property
    def description(self) -> str:
        dims = ", ".join(map(str, self.shape)) + ("," if len(self.shape) == 1 else "")
        return f"a{' finite' if self.finite else ''} {self.dtype} array of shape ({dims})"

    def problem(self, value) -> str | None:
        if not isinstance(value, np.ndarray):
            return f"got {_kind(value)}"
        if not (value.dtype.kind == "f" if self.dtype == "float" else value.dtype == np.dtype(self.dtype)):
            return f"got dtype {value.dtype}"
        fits = value.ndim == len(self.shape) and all(
            n >= 1 if isinstance(want, str) else n == want for n, want in zip(value.shape, self.shape)
        )
        if not fits:
            return f"got shape {value.shape}"
        if self.finite and not np.isfinite(value).all():
            first = tuple(int(i) for i in np.argwhere(~np.isfinite(value))[0])
            return f"got {int((~np.isfinite(value)).sum())} NaN or infinite values (first at index {first})"
        return None


@dataclass(frozen=True)
class Field:
    """One entry: a dotted path into the request (list a parent before its children) and its check."""

    path: str
    check: Object | String | Array
    required: bool = True

    def problem(self, request: dict) -> str | None:
        """Why `request` fails this field, as one line naming it, or None."""
        value = request
        for key in self.path.split("."):
            value = value.get(key, _MISSING) if isinstance(value, dict) else _MISSING
        if value is _MISSING:
            return f"field '{self.path}' is missing; it must be {self.check.description}" if self.required else None
        problem = self.check.problem(value)
        return None if problem is None else f"field '{self.path}' must be {self.check.description}; {problem}"


@dataclass(frozen=True)
class RequestSchema:
    name: str  # the id a server declares in `/info` and the evaluator compares with its suite's
    fields: tuple[Field, ...]

    def problem(self, request: dict) -> str | None:
        """The first failing field's message, or None for a valid request."""
        return next((p for p in (f.problem(request) for f in self.fields) if p is not None), None)

    def lacks(self, paths) -> list[str]:
        """Those of `paths` (dotted, as the fields name them) that no field of this request is (an optional
        one counts: a model reading it fits the conditions that send it)."""
        present = {f.path for f in self.fields}
        return [p for p in paths if p not in present]


def image_and_state(name: str, image_key: str, state_dim: int | str) -> RequestSchema:
    """The request most suites send: one camera image, the contract's state rows, the instruction and
    the history flags."""
    return RequestSchema(
        name,
        (
            Field("image", Object()),
            Field(f"image.{image_key}", Array("uint8", ("H", "W", 3))),
            Field("state", Object()),
            Field("state.states", Array("float", (1, state_dim), finite=True)),
            Field("instruction", String()),
            Field("history", Object()),
        ),
    )


# Every route's body may name its evaluator's session; the server checks it whatever the schema.
SESSION = Field("session", String(), required=False)
