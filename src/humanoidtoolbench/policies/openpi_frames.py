"""openpi's frames: msgpack with openpi-client's NumPy extension, decoded so that no peer can forge an object array.

`openpi_client.msgpack_numpy` refuses object dtypes when it packs, but builds
whatever dtype a frame names when it unpacks, and an object array built from
received bytes holds raw pointers. `unpack` checks each array's dtype first
(numbers, booleans and fixed-width strings only) and then hands the array to
openpi-client's own decoder, so both sides still speak its format exactly.
"""

from __future__ import annotations

import msgpack
import numpy as np
from openpi_client import msgpack_numpy

SAFE_KINDS = "biufUS"  # no object, void (structured), complex, datetime or timedelta arrays

pack = msgpack_numpy.packb


class FrameError(ValueError):
    """Bytes that are not an openpi frame we accept; the message is one line."""


def _checked(obj: dict):
    if b"__ndarray__" in obj or b"__npgeneric__" in obj:
        dtype = np.dtype(obj[b"dtype"])
        if dtype.kind not in SAFE_KINDS or dtype.hasobject:
            raise FrameError(f"arrays of dtype {dtype} are not accepted (numbers, booleans and strings only)")
    return msgpack_numpy.unpack_array(obj)


def unpack(data: bytes):
    """A frame's value, or FrameError in one line, whatever the bytes."""
    try:
        return msgpack.unpackb(data, object_hook=_checked)
    except FrameError:
        raise
    except Exception as exc:  # msgpack's and NumPy's own errors on hostile bytes
        raise FrameError(" ".join(str(exc).split()) or type(exc).__name__) from None
