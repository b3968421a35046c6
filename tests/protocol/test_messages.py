"""The schema: every client message parses, every refusal has its code, random maps never crash it,
and SPEC.md documents every message type, field, error code and close code the code defines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.protocol import (
    CLIENT_MESSAGES,
    CLOSE_DESCRIPTIONS,
    ERROR_DESCRIPTIONS,
    SERVER_MESSAGES,
    CloseCode,
    ErrorCode,
    ProtocolError,
    Request,
    check_server_message,
    parse,
)
from arbiter.protocol.messages import Challenge, Hello, MakeMove, describe_client_messages
from arbiter.protocol.server_messages import End, Moved, fields_of, read

SPEC = (Path(__file__).parents[2] / "protocol" / "arbiter" / "protocol" / "SPEC.md").read_text()

VALID = {
    "hello": {"protocol": 1, "client": "x/1", "token": "t", "games": ["gomoku"]},
    "ping": {},
    "lobby": {},
    "subscribe": {},
    "unsubscribe": {},
    "challenge": {
        "to": "bob",
        "game": "gomoku",
        "params": {"exact": True},
        "clock": {"initial_ms": 1000},
        "color": "first",
        "rated": True,
    },
    "accept": {"challenge": "c1"},
    "decline": {"challenge": "c1"},
    "cancel": {"challenge": "c1"},
    "move": {"match": "m1", "ply": 0, "move": [[0, 1], 2]},
    "resign": {"match": "m1"},
    "abort": {"match": "m1"},
    "offer_draw": {"match": "m1"},
    "accept_draw": {"match": "m1"},
    "decline_draw": {"match": "m1"},
    "spectate": {"match": "m1"},
    "unspectate": {"match": "m1"},
    "sync": {"match": "m1"},
}


def test_every_core_type_has_a_valid_example():
    core = {
        "hello",
        "ping",
        "lobby",
        "subscribe",
        "unsubscribe",
        "challenge",
        "accept",
        "decline",
        "cancel",
        "move",
        "resign",
        "abort",
        "offer_draw",
        "accept_draw",
        "decline_draw",
        "spectate",
        "unspectate",
        "sync",
    }
    assert set(VALID) == core and core <= set(CLIENT_MESSAGES)


@pytest.mark.parametrize("kind", sorted(VALID))
def test_valid_messages_parse(kind):
    message = parse({"type": kind, "id": 42, **VALID[kind]})
    assert isinstance(message, CLIENT_MESSAGES[kind]) and message.id == 42


def test_defaults_and_normalised_clock():
    challenge = parse({"type": "challenge", "game": "tictactoe", "clock": {"initial_ms": 500}})
    assert isinstance(challenge, Challenge)
    assert (challenge.to, challenge.color, challenge.rated, challenge.params) == (None, "random", False, None)
    assert challenge.clock == {"initial_ms": 500, "increment_ms": 0, "move_limit_ms": None}
    hello = parse({"type": "hello", "protocol": 1, "client": "c"})
    assert isinstance(hello, Hello) and hello.token is None


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "nope"}, ErrorCode.UNKNOWN_TYPE),
        ({"type": "move", "match": "m", "ply": 0}, ErrorCode.MISSING_FIELD),
        ({"type": "move", "match": "m", "ply": -1, "move": []}, ErrorCode.BAD_FIELD),
        ({"type": "move", "match": "m", "ply": True, "move": []}, ErrorCode.BAD_FIELD),
        ({"type": "move", "match": "m", "ply": 0, "move": [1.5]}, ErrorCode.BAD_FIELD),
        ({"type": "move", "match": "m", "ply": 0, "move": [[[1]]]}, ErrorCode.BAD_FIELD),
        ({"type": "move", "match": "", "ply": 0, "move": []}, ErrorCode.BAD_FIELD),
        ({"type": "move", "match": "m", "ply": 0, "move": [], "extra": 1}, ErrorCode.UNKNOWN_FIELD),
        ({"type": "ping", "id": [1]}, ErrorCode.BAD_FIELD),
        ({"type": "ping", "id": "x" * 65}, ErrorCode.BAD_FIELD),
        ({"type": "challenge", "game": "g", "clock": {"initial_ms": 0}}, ErrorCode.BAD_FIELD),
        ({"type": "challenge", "game": "g", "clock": {"initial_ms": 1, "bonus": 1}}, ErrorCode.BAD_FIELD),
        ({"type": "challenge", "game": "g", "clock": {"initial_ms": 1, "move_limit_ms": 0}}, ErrorCode.BAD_FIELD),
        ({"type": "challenge", "game": "g", "clock": 5}, ErrorCode.BAD_FIELD),
        ({"type": "challenge", "game": "g", "clock": {"initial_ms": 1}, "params": {"k": [1]}}, ErrorCode.BAD_FIELD),
        ({"type": "challenge", "game": "g", "clock": {"initial_ms": 1}, "rated": 1}, ErrorCode.BAD_FIELD),
        ({"type": "hello", "protocol": 1, "client": "c", "games": "gomoku"}, ErrorCode.BAD_FIELD),
        ({"type": "hello", "protocol": 1}, ErrorCode.MISSING_FIELD),
    ],
)
def test_refusals(message, code):
    with pytest.raises(ProtocolError) as caught:
        parse({"id": 9, **message})
    assert caught.value.code == code
    assert caught.value.re == (9 if "id" not in message else None)


field_names = st.sampled_from(sorted({f for fields in describe_client_messages().values() for f, *_ in fields}))
field_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8), st.just("x" * 300)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=14), inner, max_size=3)),
    max_leaves=4,
)
maps = st.builds(
    lambda kind, fields: {**fields, "type": kind},
    st.one_of(st.sampled_from(sorted(CLIENT_MESSAGES)), st.text(max_size=12)),
    st.dictionaries(st.one_of(field_names, field_names, st.text(max_size=6)), field_values, max_size=6),
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.lists(maps, min_size=2, max_size=8))
def test_random_maps_parse_or_refuse(batch):
    for raw in batch:
        try:
            message = parse(raw)
        except ProtocolError as error:
            assert error.code in (ErrorCode.UNKNOWN_TYPE, ErrorCode.MISSING_FIELD, ErrorCode.BAD_FIELD,
                                  ErrorCode.UNKNOWN_FIELD)  # fmt: skip
        else:
            assert isinstance(message, Request)
            assert raw["type"] == message.TYPE
            if isinstance(message, MakeMove):
                assert type(message.ply) is int and type(message.move) is list


# --- SPEC.md stays complete ---------------------------------------------------------------------------
def spec_section(title: str) -> str:
    start = SPEC.index(f"## {title}")
    end = SPEC.find("\n## ", start + 1)
    return SPEC[start : end if end != -1 else None]


def test_spec_documents_every_client_message_and_field():
    section = spec_section("Client messages")
    for kind, fields in describe_client_messages().items():
        assert f"### `{kind}`" in section, kind
        body = section.split(f"### `{kind}`", 1)[1].split("\n### ", 1)[0]
        for name, *_ in fields:
            assert name == "id" or f"`{name}`" in body, (kind, name)  # `id` is said once for all


def test_spec_documents_every_server_message_and_field():
    section = spec_section("Server messages")
    for kind in SERVER_MESSAGES:
        assert f"### `{kind}`" in section, kind
        body = section.split(f"### `{kind}`", 1)[1].split("\n### ", 1)[0]
        for name in fields_of(kind):
            assert f"`{name}`" in body, (kind, name)


def test_spec_lists_every_error_and_close_code():
    errors = spec_section("Error codes")
    for code in ErrorCode:
        assert re.search(rf"^\| `{code.value}` \|", errors, re.M), code
    assert set(ERROR_DESCRIPTIONS) == set(ErrorCode)
    closes = spec_section("Close codes")
    for close in CloseCode:
        assert re.search(rf"^\| {close.value} \|", closes, re.M), close
    assert set(CLOSE_DESCRIPTIONS) == set(CloseCode)


def test_spec_examples_are_valid_messages():
    blocks = re.findall(r"```json\n(.*?)```", SPEC, re.S)
    assert len(blocks) > 20
    for block in blocks:
        try:
            examples = [json.loads(block)]
        except json.JSONDecodeError:
            examples = [json.loads(line) for line in block.splitlines() if line.strip()]
        for example in examples:
            if example["type"] in CLIENT_MESSAGES and "re" not in example:
                parse(example)
            else:
                check_server_message(example)


MOVED = {"type": "moved", "match": "m1", "ply": 3, "move": [4], "by": 1, "clocks": [900, 800], "elapsed_ms": 12}


def test_server_messages_read_as_typed_values():
    moved = read(MOVED)
    assert isinstance(moved, Moved) and moved.ply == 3 and moved.clocks == [900, 800]
    assert not moved.info  # absent: UNSET, which is falsy and not nil
    end = read({"type": "end", "match": "m1", "result": None, "winner": None, "reason": "aborted",
                "clocks": [1, 2], "ply": 0, "rating_changes": {}})  # fmt: skip
    assert isinstance(end, End) and end.winner is None


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"type": "nope"}, "unknown_type"),
        ({"ply": "3"}, "bad_field"),  # strict: a string is not an int
        ({"clocks": [1.5, 2]}, "bad_field"),
        ({"info": None}, "bad_field"),  # an optional field is absent, never nil
        ({"extra": 1}, "unknown_field"),
    ],
)
def test_a_server_message_off_its_type_gets_the_schema_code(change, code):
    with pytest.raises(ProtocolError) as caught:
        read({**MOVED, **change})
    assert caught.value.code == code


def test_a_server_message_missing_a_field_gets_missing_field():
    with pytest.raises(ProtocolError) as caught:
        read({k: v for k, v in MOVED.items() if k != "by"})
    assert caught.value.code == "missing_field"


@pytest.mark.parametrize("kind", sorted(VALID))
def test_a_typed_request_goes_on_the_wire_as_the_map_it_was_parsed_from(kind):
    message = parse({"type": kind, "id": 5, **VALID[kind]})
    assert parse(message.wire()) == message
