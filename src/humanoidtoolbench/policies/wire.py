"""The JSON wire format of the HTTP policy protocol, compatible with the original.

An array travels as ``{"__numpy__": base64(array.tobytes()), "dtype": "<f4",
"shape": [...]}`` (dtype written by `numpy.lib.format.dtype_to_descr`; a NumPy
scalar travels as a 0-d array and comes back as a scalar). Dicts and lists are
encoded recursively; everything else is plain JSON. Only plain numeric and
boolean dtypes are accepted and nothing received is ever unpickled or
evaluated, so a policy server cannot be made to run code by its client.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re

import numpy as np

_DESCR = re.compile(r"[<>|=][biuf]\d{1,2}")


class WireError(ValueError):
    """Input that is not valid wire format; the message is one line."""


def _pack(obj):
    if isinstance(obj, (np.ndarray, np.generic)):
        a = np.asarray(obj)
        if a.dtype.kind not in "biuf":
            raise WireError(f"cannot encode an array of dtype {a.dtype}: only numeric and bool arrays travel")
        return {
            "__numpy__": base64.b64encode(a.tobytes()).decode("ascii"),
            "dtype": np.lib.format.dtype_to_descr(a.dtype),
            "shape": list(a.shape),
        }
    if isinstance(obj, dict):
        return {key: _pack(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_pack(value) for value in obj]
    return obj


def encode(obj) -> bytes:
    """Wire-encode `obj` as UTF-8 JSON; NaN or infinite plain floats and unknown types raise `WireError`."""
    try:
        return json.dumps(_pack(obj), allow_nan=False, separators=(",", ":")).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise WireError(f"cannot encode: {exc}") from None


def _unpack_array(d: dict):
    descr, shape, data = d.get("dtype"), d.get("shape"), d["__numpy__"]
    if not isinstance(descr, str) or not _DESCR.fullmatch(descr):
        raise WireError(f"unsupported array dtype {descr!r}: only numeric and bool dtypes are accepted")
    try:
        dtype = np.dtype(descr)
    except TypeError:
        raise WireError(f"unsupported array dtype {descr!r}") from None
    if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
        raise WireError(f"array shape must be a list of non-negative integers; got {shape!r}")
    if not isinstance(data, str):
        raise WireError("array data must be a base64 string")
    try:
        raw = base64.b64decode(data, validate=True)
    except binascii.Error as exc:
        raise WireError(f"array data is not valid base64: {exc}") from None
    expected = math.prod(shape) * dtype.itemsize
    if len(raw) != expected:
        raise WireError(f"array data has {len(raw)} bytes; dtype {descr} and shape {shape} need {expected}")
    a = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    return a[()] if a.ndim == 0 else a


def _object_hook(d: dict):
    return _unpack_array(d) if "__numpy__" in d else d


def _reject_constant(name: str):
    raise WireError(f"non-finite number {name} is not allowed")


def decode(data: bytes):
    """Decode wire-format JSON; anything malformed raises `WireError`."""
    try:
        return json.loads(data, object_hook=_object_hook, parse_constant=_reject_constant)
    except WireError:
        raise
    except (ValueError, TypeError, RecursionError) as exc:
        raise WireError(f"not valid JSON: {exc}") from None
