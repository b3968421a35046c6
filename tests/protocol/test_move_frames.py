"""The move fast path (move_frames.py) accepts only what the general decode and parse accept, as the same request."""

from __future__ import annotations

import msgpack
from hypothesis import example, given, settings
from hypothesis import strategies as st

from arbiter.protocol import ProtocolError, decode
from arbiter.protocol.messages import INT32, MakeMove, parse
from arbiter.protocol.move_frames import MoveFrame, decode_move_frame

BOUNDARY_INTS = st.sampled_from([0, 1, -1, INT32, INT32 + 1, -INT32, -INT32 - 1, 2**63, -(2**63), 2**64 - 1])
INTS = st.one_of(st.integers(-5, 30), BOUNDARY_INTS)
LONG_TEXT = st.text(min_size=60, max_size=70)
SCALARS = st.one_of(st.none(), st.booleans(), INTS, st.floats(), st.text(max_size=3), LONG_TEXT, st.binary(max_size=3))
MOVES = st.one_of(
    st.lists(INTS, max_size=4),
    st.lists(st.one_of(INTS, st.lists(INTS, max_size=3)), max_size=4),
    st.lists(SCALARS, max_size=3),
    SCALARS,
)
INFOS = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "score": st.one_of(st.integers(-3, 3), st.floats(-2, 2), st.just(float("nan")), st.just(10**10)),
            "unit": st.sampled_from(["cp", "win", "mate", "elo", 3]),
            "depth": INTS,
            "nodes": INTS,
            "pv": st.lists(MOVES, max_size=3),
            "fallback": st.sampled_from(["deadline", "pool", "oops"]),
            "extra": st.just(1),
        },
    ),
    SCALARS,
)
FIELDS = {
    "type": st.sampled_from(["move", "move", "move", "resign", "mov", 7]),
    "match": st.one_of(st.text(max_size=4), LONG_TEXT, SCALARS),
    "ply": st.one_of(INTS, SCALARS),
    "move": MOVES,
    "id": st.one_of(INTS, st.text(max_size=3), LONG_TEXT, SCALARS),
    "info": INFOS,
    "spare": SCALARS,
}
# A frame as a list of (key, value) pairs, so keys may repeat or be missing; packed by hand.
PAIRS = st.lists(st.sampled_from(sorted(FIELDS)).flatmap(lambda key: st.tuples(st.just(key), FIELDS[key])), max_size=7)


def pack_pairs(pairs: list[tuple[str, object]], *, bin_strings: bool) -> bytes:
    packer = msgpack.Packer(use_bin_type=bin_strings)
    return packer.pack_map_header(len(pairs)) + b"".join(packer.pack(k) + packer.pack(v) for k, v in pairs)


def general(frame: bytes) -> object:
    try:
        return parse(decode(frame))
    except ProtocolError as error:
        return error.code


def as_request(fast: MoveFrame) -> MakeMove:
    """The fast path's struct as the general path's request, field by field."""
    return MakeMove(id=fast.request_id, match=fast.match, ply=fast.ply, move=fast.move, info=fast.info)


VALID = [("type", "move"), ("match", "m1"), ("ply", 3), ("move", [4, 5])]


@settings(max_examples=2000, deadline=None)
@given(pairs=PAIRS, bin_strings=st.booleans(), cut=st.integers(0, 4))
@example(pairs=[*VALID, ("id", None)], bin_strings=True, cut=0)  # an explicit nil id is no id
@example(pairs=[*VALID, ("ply", -1)], bin_strings=True, cut=0)  # the last of two keys counts
@example(pairs=[*VALID, ("ply", 4)], bin_strings=True, cut=0)
@example(pairs=[*VALID, ("info", {"score": 1.5, "unit": "win"})], bin_strings=True, cut=0)
@example(pairs=[*VALID, ("move", [[1, 2], [INT32 + 1]])], bin_strings=True, cut=0)
@example(pairs=[*VALID, ("match", "m" * 65)], bin_strings=True, cut=0)  # one past each length bound
@example(pairs=[*VALID, ("id", "r" * 65)], bin_strings=True, cut=0)
@example(pairs=[*VALID, ("match", "")], bin_strings=True, cut=0)
@example(pairs=VALID[1:], bin_strings=False, cut=0)  # no type: no move
def test_the_fast_path_accepts_only_what_the_general_one_accepts(pairs: list, bin_strings: bool, cut: int) -> None:
    frame = pack_pairs(pairs, bin_strings=bin_strings)
    frame = frame[: len(frame) - cut] if cut < len(frame) else frame
    fast = decode_move_frame(frame)
    if fast is not None:
        request = general(frame)
        assert request == as_request(fast)
        assert isinstance(request, MakeMove) and fast.wire() == request.wire()  # what a cluster forwards


@settings(max_examples=500, deadline=None)
@given(
    match=st.text(min_size=1, max_size=64),
    ply=st.integers(0, INT32),
    move=st.lists(st.one_of(st.integers(-INT32, INT32), st.lists(st.integers(-INT32, INT32), max_size=3)), max_size=5),
    rid=st.one_of(st.none(), st.integers(-(2**63), 2**64 - 1), st.text(max_size=64)),
    info=st.one_of(st.none(), st.just({"score": 12, "unit": "cp", "depth": 3, "pv": [[1, 2]], "nodes": 99})),
)
def test_every_valid_move_takes_the_fast_path(match: str, ply: int, move: list, rid: object, info: object) -> None:
    message = {"type": "move", "match": match, "ply": ply, "move": move}
    if rid is not None:
        message["id"] = rid
    if info is not None:
        message["info"] = info
    frame = msgpack.packb(message)
    fast = decode_move_frame(frame)
    assert fast is not None
    request = general(frame)
    assert as_request(fast) == request
    assert isinstance(request, MakeMove) and fast.wire() == request.wire()  # what a cluster forwards
