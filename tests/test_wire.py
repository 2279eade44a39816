"""The JSON wire format: round trips, the documented array form, and refusal of malformed input."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from humanoidtoolbench.policies.wire import WireError, decode, encode

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset


def test_round_trip_of_a_request():
    rng = np.random.default_rng(0)
    request = {
        "image": {"rgb_head_stereo_left": rng.integers(0, 256, (360, 640, 3), dtype=np.uint8)},
        "instruction": "push the ball into the ring",
        "history": {"reset": True, "steps": [1, 2.5, None]},
        "state": {"states": rng.standard_normal((1, 32)).astype(np.float32)},
        "scalar": np.float64(0.25),
    }
    out = decode(encode(request))
    image, states = out["image"]["rgb_head_stereo_left"], out["state"]["states"]
    assert image.dtype == np.uint8 and image.shape == (360, 640, 3)
    np.testing.assert_array_equal(image, request["image"]["rgb_head_stereo_left"])
    assert states.dtype == np.float32 and states.shape == (1, 32)
    np.testing.assert_array_equal(states, request["state"]["states"])
    assert out["instruction"] == request["instruction"] and out["history"] == request["history"]
    assert isinstance(out["scalar"], np.float64) and out["scalar"] == 0.25
    states[0, 0] = 1.0  # decoded arrays are writable


def test_documented_array_form():
    a = np.array([[1.0, -2.0]], dtype=np.float32)
    packed = json.loads(encode({"a": a, "b": np.zeros(2, np.uint8)}))
    assert packed["a"] == {"__numpy__": base64.b64encode(a.tobytes()).decode(), "dtype": "<f4", "shape": [1, 2]}
    assert packed["b"]["dtype"] == "|u1"
    assert json.loads(encode(np.int64(3)))["shape"] == []


def _array(data: str, dtype: str = "<f4", shape=(1,)) -> bytes:
    return json.dumps({"__numpy__": data, "dtype": dtype, "shape": list(shape)}).encode()


@pytest.mark.parametrize(
    "payload",
    [
        _array("not base64!"),
        _array(base64.b64encode(b"\0" * 8).decode()),  # 8 bytes for one float32
        _array(base64.b64encode(b"\0" * 8).decode(), dtype="|O"),
        _array("", dtype="<U1", shape=(0,)),
        b"{not json",
        b"\xff\xfe",
        b'{"x": NaN}',
    ],
)
def test_malformed_payloads_raise_wire_error(payload):
    with pytest.raises(WireError) as info:
        decode(payload)
    assert "\n" not in str(info.value)


def test_non_finite_plain_float_and_unknown_types_refuse_to_encode():
    with pytest.raises(WireError):
        encode({"x": float("nan")})
    with pytest.raises(WireError):
        encode({"x": object()})
