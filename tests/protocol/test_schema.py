"""The published JSON Schema and TypeScript types: up to date, in agreement with the checkers that
parse client messages (on generated maps), and valid TypeScript.

The real server's traffic is validated against the same schema in tests/server/test_schema_traffic.py.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from arbiter.protocol import CLIENT_MESSAGES, SERVER_MESSAGES, ProtocolError, parse
from arbiter.protocol.messages import INT32, describe_client_messages
from arbiter.protocol.schema import SCHEMA_FILE, TYPESCRIPT_FILE, main, protocol_schema, rendered

ROOT = Path(__file__).parents[2]
TSC = ROOT / "protocol" / "node_modules" / ".bin" / "tsc"


def msgpack_validator(definition: str) -> jsonschema.protocols.Validator:
    """A validator of ``#/$defs/definition`` that reads types as msgpack does: an integer is never a float."""
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine_many(
        {
            "integer": lambda _, value: type(value) is int,
            "number": lambda _, value: type(value) in (int, float),
        }
    )
    kind = jsonschema.validators.extend(base, type_checker=checker)
    schema = protocol_schema()
    return kind({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})


def test_the_published_files_are_up_to_date(tmp_path: Path) -> None:
    for path, text in rendered().items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale: run python -m arbiter.protocol.schema"
    assert main(["--out", str(tmp_path)]) == 0  # the command writes the same files
    for path in (SCHEMA_FILE, TYPESCRIPT_FILE):
        assert (tmp_path / path.name).read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_the_schema_is_valid_and_names_every_message() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    defs = schema["$defs"]
    client = {
        defs[ref["$ref"].rsplit("/", 1)[-1]]["properties"]["type"]["const"] for ref in defs["ClientMessage"]["oneOf"]
    }
    server = {
        defs[ref["$ref"].rsplit("/", 1)[-1]]["properties"]["type"]["enum"][0] for ref in defs["ServerMessage"]["oneOf"]
    }
    assert client == set(CLIENT_MESSAGES) and server == set(SERVER_MESSAGES)


# --- the checkers and the schema agree --------------------------------------------------------------------
FIELDS = sorted({name for fields in describe_client_messages().values() for name, *_ in fields})
edges = st.sampled_from([0, 1, -1, INT32, INT32 + 1, -INT32, -INT32 - 1, 2**63, 2**64, 100, 101, 1000, 1001, 10_000])
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), edges, st.floats(allow_nan=False), st.just(0.5), st.just(1.0),
    st.text(max_size=3), st.just(""), st.just("x" * 33), st.just("x" * 65), st.just("x" * 257),
    st.sampled_from(["first", "random", "cp", "win", "mate", "deadline", "crash", "drain"]),
)  # fmt: skip
KEYS = ["initial_ms", "increment_ms", "move_limit_ms", "score", "unit", "depth", "nodes", "pv", "fallback", "m"]
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=4)), inner, max_size=4),
    ),
    max_leaves=6,
)
maps = st.builds(
    lambda kind, fields: {**fields, "type": kind},
    st.sampled_from(sorted(CLIENT_MESSAGES)),
    st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text(max_size=4)), values, max_size=6),
)
CLIENT = msgpack_validator("ClientMessage")


@settings(max_examples=1500, derandomize=True, deadline=None)
@given(maps)
@example({"type": "move", "match": "m", "ply": 0, "move": [], "info": {"score": 0.5, "unit": "win"}})
@example({"type": "move", "match": "m", "ply": 0, "move": [], "info": {"score": 2, "unit": "win"}})
@example({"type": "move", "match": "m", "ply": 0, "move": [], "info": {"score": 1.5, "unit": "mate"}})
@example({"type": "move", "match": "m", "ply": 0, "move": [], "info": {"score": 1}})
@example({"type": "move", "match": "m", "ply": 0, "move": [[1, 2], 3], "id": None})
@example({"type": "challenge", "game": "g", "clock": {"initial_ms": 1, "move_limit_ms": None}, "params": {"m": "x"}})
@example({"type": "hello", "protocol": 1, "client": "c", "games": ["a"], "levels": 100, "capacity": 1000})
def test_a_client_map_parses_exactly_when_the_schema_accepts_it(raw: dict) -> None:
    try:
        parse(raw)
        parsed = True
    except ProtocolError:
        parsed = False
    assert parsed == CLIENT.is_valid(raw), (raw, [e.message for e in CLIENT.iter_errors(raw)])


# --- TypeScript ----------------------------------------------------------------------------------------------
USAGE = """\
import type { ClientMessage, ServerMessage, MakeMove } from "./protocol";

export function describe(message: ServerMessage): string {
  switch (message.type) {
    case "moved":
      return `${message.match} ply ${message.ply} by ${message.by}: ${JSON.stringify(message.move)}`;
    case "end":
      return `${message.match} ${message.result ?? "*"} (${message.reason}), clocks ${message.clocks.join("/")}`;
    case "welcome":
      return `${message.player.name} on ${message.games.map((game) => game.name).join(", ")}`;
    case "challenge_offered":
      return `${message.challenge.from} offers ${message.challenge.game} at ${message.challenge.clock.initial_ms} ms`;
    default:
      return message.type;
  }
}

export const move: MakeMove = { type: "move", match: "mplQoWcr", ply: 0, move: [7, 7], id: undefined };
export const hello: ClientMessage = { type: "hello", protocol: 1, client: "mybot/1" };
"""


def test_the_typescript_types_compile_and_narrow_by_type(tmp_path: Path) -> None:
    if not TSC.exists():
        pytest.fail("the TypeScript compiler is missing: run `make install-test` (it installs protocol/package.json)")
    shutil.copy(TYPESCRIPT_FILE, tmp_path / TYPESCRIPT_FILE.name)
    (tmp_path / "usage.ts").write_text(USAGE, encoding="utf-8")
    bad = USAGE.replace("ply: 0, move: [7, 7]", 'ply: "0", move: [7, 7]')
    (tmp_path / "bad.ts").write_text(bad, encoding="utf-8")
    options = ["--noEmit", "--strict", "--target", "es2020", "--moduleResolution", "bundler", "--module", "esnext"]
    good = subprocess.run([str(TSC), *options, "usage.ts"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert good.returncode == 0, good.stdout + good.stderr
    wrong = subprocess.run([str(TSC), *options, "bad.ts"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    line = 1 + bad.splitlines().index(next(text for text in bad.splitlines() if 'ply: "0"' in text))
    assert wrong.returncode != 0 and f"bad.ts({line}," in wrong.stdout, wrong.stdout  # a string ply does not type-check
