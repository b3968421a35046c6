"""The codec: round trips, every refusal with its code, and fuzzing with thousands of random frames."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.protocol import ErrorCode, ProtocolError, decode, encode
from arbiter.protocol.codec import MAX_ARRAY_LEN, MAX_FRAME_BYTES, MAX_MAP_LEN

# msgpack values as a client might send them (what the decoder must survive).
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**63), max_value=2**64 - 1), st.floats(),
    st.text(max_size=20), st.binary(max_size=20),
)  # fmt: skip
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=10,
)


@settings(max_examples=300)
@given(st.dictionaries(st.text(max_size=8), st.one_of(values, st.text(min_size=30, max_size=300)), max_size=6))
def test_encode_writes_msgpacks_bytes(message):
    """The server encodes with msgspec; any msgpack reader must read what msgpack's own packer writes."""
    assert encode(message) == msgpack.packb(message, use_bin_type=True)


def test_round_trip():
    message = {"type": "moved", "match": "abc", "ply": 3, "move": [[1, 2], 7], "clocks": [1000, 2000], "x": None}
    assert decode(encode(message)) == message


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"", ErrorCode.BAD_FRAME),
        (b"\xc1", ErrorCode.BAD_FRAME),
        (msgpack.packb({"type": "ping"}) + b"\x90", ErrorCode.BAD_FRAME),
        (msgpack.packb({"type": b"ping"}), ErrorCode.BAD_FRAME),
        (msgpack.packb({"type": "ping", "t": msgpack.Timestamp(0, 0)}), ErrorCode.BAD_FRAME),
        (msgpack.packb({"type": "ping", "t": msgpack.ExtType(1, b"")}), ErrorCode.BAD_FRAME),
        (b"\x81\x01\xa4ping", ErrorCode.BAD_FRAME),  # an integer map key
        (b"\x81\x90\x01", ErrorCode.BAD_FRAME),  # a list as a map key
        (msgpack.packb({"type": "ping", "a": [0] * (MAX_ARRAY_LEN + 1)}), ErrorCode.BAD_FRAME),
        (msgpack.packb({"type": "ping", **{f"k{i}": 0 for i in range(MAX_MAP_LEN)}}), ErrorCode.BAD_FRAME),
        (b"\x91" * 5000 + b"\xc0", ErrorCode.BAD_FRAME),
        ("text", ErrorCode.BAD_FRAME),
        (b"\x00" * (MAX_FRAME_BYTES + 1), ErrorCode.FRAME_TOO_LARGE),
        (msgpack.packb([1]), ErrorCode.NOT_A_MAP),
        (msgpack.packb(3), ErrorCode.NOT_A_MAP),
        (msgpack.packb({"id": 1}), ErrorCode.NOT_A_MAP),
        (msgpack.packb({"type": None}), ErrorCode.NOT_A_MAP),
    ],
)
def test_refusals(frame, code):
    with pytest.raises(ProtocolError) as caught:
        decode(frame)
    assert caught.value.code == code


def test_shapeless_request_still_echoes_its_id():
    with pytest.raises(ProtocolError) as caught:
        decode(msgpack.packb({"id": "r1", "type": 5}))
    assert caught.value.re == "r1"


# Each example is a batch of frames: thousands of frames for a fraction of hypothesis' per-example cost.
@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.lists(st.binary(max_size=64), min_size=1, max_size=10))
def test_random_bytes_decode_or_refuse(frames):
    for frame in frames:
        try:
            message = decode(frame)
        except ProtocolError as error:
            assert error.code in (ErrorCode.BAD_FRAME, ErrorCode.NOT_A_MAP)
        else:
            assert type(message) is dict and type(message["type"]) is str


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    st.lists(st.one_of(values, st.dictionaries(st.sampled_from(["type", "id", "x"]), values, max_size=3)), max_size=8)
)
def test_random_values_decode_or_refuse(batch):
    for value in batch:
        try:
            message = decode(msgpack.packb(value))
        except ProtocolError as error:
            assert error.code in (ErrorCode.BAD_FRAME, ErrorCode.NOT_A_MAP, ErrorCode.FRAME_TOO_LARGE)
        else:
            assert message == value and type(message["type"]) is str


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.lists(st.tuples(st.binary(min_size=1, max_size=40), st.integers(min_value=0, max_value=39)), max_size=8))
def test_corrupted_valid_frames(corruptions):
    for noise, at in corruptions:
        frame = bytearray(encode({"type": "move", "id": 1, "match": "abc", "ply": 0, "move": [1, 2]}))
        at %= len(frame)
        frame[at : at + len(noise)] = noise
        try:
            decode(bytes(frame))
        except ProtocolError as error:
            assert error.code in (ErrorCode.BAD_FRAME, ErrorCode.NOT_A_MAP)
