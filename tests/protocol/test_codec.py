"""The codec: round trips, every refusal with its code, and fuzzing with thousands of random frames."""

from __future__ import annotations

import re

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.protocol import ErrorCode, ProtocolError, decode, encode, parse
from arbiter.protocol.codec import MAX_ARRAY_LEN, MAX_FRAME_BYTES, MAX_MAP_LEN

# What a message must never show: msgpack's and Python's own words instead of the protocol's.
INTERNALS = re.compile(
    r"max_\w+_len|exceeds|strict_map_key|is not allowed for map key|codec|can't decode|[Uu]npack|NoneType|"
    r"Traceback|<class|\w+Error\b|msgpack value: ?$|in position \d"
)


def refused(error: ProtocolError) -> ErrorCode:
    """The error's code, once its message is checked to say what was wrong in the protocol's terms."""
    assert error.message and not INTERNALS.search(error.message), error.message
    return error.code


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
    assert refused(caught.value) == code


@pytest.mark.parametrize(
    ("frame", "says"),
    [
        (b"\x82\x01\x02\xa4type\xa5hello", "map keys must be strings; this frame has an integer as a key"),
        (b"\x81\xc0\x01", "map keys must be strings; this frame has nil as a key"),
        (msgpack.packb({"type": b"ping"}), "binary is not part of the protocol"),
        (b"\x81\xa4type\xa2\xff\xfe", "a string is not valid UTF-8 (byte 0xff)"),
        (msgpack.packb({"type": "ping"}) + b"\x00", "bytes after its first msgpack value"),
        (b"\x82\xa4type", "ends in the middle of a msgpack value"),
        (
            msgpack.packb({"type": "ping", "a": [0] * (MAX_ARRAY_LEN + 1)}),
            "an array of 1025 items: arrays hold at most 1024",
        ),
        (msgpack.packb({"type": "ping", "t": msgpack.Timestamp(0, 0)}), "extension types"),
    ],
)
def test_a_refused_frame_says_what_was_wrong(frame, says):
    with pytest.raises(ProtocolError) as caught:
        decode(frame)
    assert refused(caught.value) == ErrorCode.BAD_FRAME and says in caught.value.message


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
            assert refused(error) in (ErrorCode.BAD_FRAME, ErrorCode.NOT_A_MAP)
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
            assert refused(error) in (ErrorCode.BAD_FRAME, ErrorCode.NOT_A_MAP, ErrorCode.FRAME_TOO_LARGE)
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
            assert refused(error) in (ErrorCode.BAD_FRAME, ErrorCode.NOT_A_MAP)


keys = st.one_of(st.sampled_from(["type", "id", "match", "ply", "move", "clock", "game"]), st.text(max_size=4),
                 st.integers(-3, 3), st.none(), st.booleans(), st.binary(max_size=3))  # fmt: skip
structures = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.lists(st.dictionaries(keys, structures, max_size=5), max_size=6))
def test_no_refusal_of_random_structures_shows_python_internals(batch):
    """Whatever the frame holds (non-string keys, bin, nested junk), decode and parse refuse it in protocol terms."""
    for value in batch:
        value.setdefault("type", "move")
        try:
            parse(decode(msgpack.packb(value, use_bin_type=True)))
        except ProtocolError as error:
            refused(error)
