"""The message schema: every client message as a typed value, checked field by field.

``parse(raw)`` turns a decoded map into one of the dataclasses below or raises a
``ProtocolError`` (unknown_type, missing_field, bad_field, unknown_field) that echoes the
request's ``id``. Each class names its wire ``type`` and gives each field a checker in its
metadata; the table ``CLIENT_MESSAGES`` maps types to classes and ``register`` adds more (the
ladder adds its own). Checks are plain functions over plain values: no reflection per message.
The classes are not frozen (nothing changes a request once parsed): a frozen ``__init__`` costs
twice as much, and the server parses every move it receives.

What the server sends is typed in ``server_messages``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .codec import MAX_ARRAY_LEN, request_id_of
from .errors import ErrorCode, ProtocolError

PROTOCOL_VERSION = 1

RequestId = int | str
Checker = Callable[[Any], Any]

INT32 = 2**31 - 1
MAX_NAME_LEN = 32
MAX_ID_LEN = 64
MAX_LEVELS = 100  # a bot's strength levels are numbered 1..levels, and levels is at most this


class FieldError(Exception):
    """A checker's complaint; parse() turns it into bad_field with the field's name."""


# Each checker's JSON Schema: what it accepts, said once beside it, for the published schema (schema.py).
# tests/protocol/test_schema.py holds each checker and its schema to each other on generated values.
_JSON_SCHEMAS: dict[Checker, dict[str, Any]] = {}


def _accepts(check: Checker, json_schema: dict[str, Any]) -> Checker:
    _JSON_SCHEMAS[check] = json_schema
    return check


def json_schema_of(check: Checker) -> dict[str, Any]:
    """The JSON Schema of the values ``check`` accepts (an integer is a msgpack integer, never a float)."""
    return _JSON_SCHEMAS[check]


# --- field checkers ---------------------------------------------------------------------------
def _is_int(value: Any) -> bool:
    return type(value) is int


def string(max_len: int, min_len: int = 1) -> Checker:
    def check(value: Any) -> str:
        if type(value) is not str or not min_len <= len(value) <= max_len:
            raise FieldError(f"must be a string of {min_len} to {max_len} characters")
        return value

    check.__doc__ = f"string ({min_len}..{max_len} chars)"
    return _accepts(check, {"type": "string", "minLength": min_len, "maxLength": max_len})


def integer(low: int, high: int) -> Checker:
    def check(value: Any) -> int:
        if type(value) is not int or not low <= value <= high:
            raise FieldError(f"must be an integer from {low} to {high}")
        return value

    check.__doc__ = f"int ({low}..{high})"
    return _accepts(check, {"type": "integer", "minimum": low, "maximum": high})


def boolean(value: Any) -> bool:
    """bool"""
    if type(value) is not bool:
        raise FieldError("must be true or false")
    return value


def choice(*options: str) -> Checker:
    def check(value: Any) -> str:
        if value not in options or type(value) is not str:
            raise FieldError(f"must be one of {', '.join(options)}")
        return value

    check.__doc__ = " | ".join(f'"{o}"' for o in options)
    return _accepts(check, {"enum": list(options)})


def optional(inner: Checker) -> Checker:
    """The inner checker, or nil (meaning: not set)."""

    def check(value: Any) -> Any:
        return None if value is None else inner(value)

    check.__doc__ = f"{inner.__doc__} or nil"
    return _accepts(check, {"anyOf": [json_schema_of(inner), {"type": "null"}]})


def request_id(value: Any) -> RequestId | None:
    """int (int64/uint64) or string (up to 64 chars); nil is no id (a JS encoder's ``undefined``)"""
    if value is None:
        return None
    rid = request_id_of({"id": value})
    if rid is None:
        raise FieldError("must be an integer or a string of at most 64 characters")
    return rid


def params(value: Any) -> dict[str, Any]:
    """map string → int | bool | string (up to 16 entries)"""
    if type(value) is not dict or len(value) > 16:
        raise FieldError("must be a map of at most 16 parameters")
    for key, item in value.items():
        if type(key) is not str or len(key) > MAX_NAME_LEN:
            raise FieldError("parameter names are strings of at most 32 characters")
        if not (type(item) in (int, bool) or (type(item) is str and len(item) <= MAX_ID_LEN)):
            raise FieldError(f"parameter {key!r} must be an integer, a boolean or a short string")
    return value


def clock(value: Any) -> dict[str, Any]:
    """map {initial_ms: int, increment_ms?: int, move_limit_ms?: int | nil}"""
    if type(value) is not dict:
        raise FieldError("must be a map {initial_ms, increment_ms?, move_limit_ms?}")
    unknown = set(value) - {"initial_ms", "increment_ms", "move_limit_ms"}
    if unknown:
        raise FieldError(f"has unknown key {sorted(map(str, unknown))[0]!r}")
    initial = value.get("initial_ms")
    increment = value.get("increment_ms", 0)
    limit = value.get("move_limit_ms")
    if not isinstance(initial, int) or not _is_int(initial) or not 0 < initial <= INT32:
        raise FieldError("initial_ms must be a positive integer")
    if not _is_int(increment) or not 0 <= increment <= INT32:
        raise FieldError("increment_ms must be a non-negative integer")
    if limit is not None and (not _is_int(limit) or not 0 < limit <= INT32):
        raise FieldError("move_limit_ms must be a positive integer or nil")
    return {"initial_ms": initial, "increment_ms": increment, "move_limit_ms": limit}


def wire_move(value: Any) -> list[Any]:
    """list of ints, or of lists of ints (the game's own shape; the engine checks it)"""
    if type(value) is not list or len(value) > MAX_ARRAY_LEN:
        raise FieldError("must be a list")
    for item in value:
        if type(item) is int:
            if not -INT32 <= item <= INT32:
                raise FieldError("holds an integer out of range")
        elif type(item) is list:
            if not all(type(v) is int and -INT32 <= v <= INT32 for v in item):
                raise FieldError("holds a list with something other than integers")
        else:
            raise FieldError("must hold integers (or lists of integers)")
    return value


def names(value: Any) -> list[str]:
    """list of strings (up to 64, each up to 32 chars)"""
    if (
        type(value) is not list
        or len(value) > 64
        or not all(type(v) is str and 0 < len(v) <= MAX_NAME_LEN for v in value)
    ):
        raise FieldError("must be a list of at most 64 names")
    return value


ANALYSIS_UNITS = ("cp", "win", "mate")
FALLBACK_CAUSES = ("deadline", "pool", "illegal", "random")
MAX_PV = 64  # moves of a principal variation
MAX_SCORE = 10**9


def analysis(value: Any) -> dict[str, Any]:
    """map {score?: number, unit?: "cp" | "win" | "mate", depth?: int, nodes?: int, nps?: int, time_ms?: int,
    pv?: list of moves (up to 64), fallback?: "deadline" | "pool" | "illegal" | "random"}"""
    if type(value) is not dict or not value:
        raise FieldError("must be a non-empty map of analysis fields")
    unknown = set(value) - {"score", "unit", "depth", "nodes", "nps", "time_ms", "pv", "fallback"}
    if unknown:
        raise FieldError(f"has unknown key {sorted(map(str, unknown))[0]!r}")
    score = value.get("score")
    if score is not None:
        if type(score) not in (int, float) or not -MAX_SCORE <= score <= MAX_SCORE:  # NaN fails this too
            raise FieldError(f"score must be a number from -{MAX_SCORE} to {MAX_SCORE}")
        if value.get("unit") not in ANALYSIS_UNITS:
            raise FieldError(f"a score needs its unit: {', '.join(ANALYSIS_UNITS)}")
        if value["unit"] == "win" and not 0 <= score <= 1:
            raise FieldError("a win score is a probability, from 0 to 1")
        if value["unit"] == "mate" and type(score) is not int:
            raise FieldError("a mate score counts plies: an integer")
    elif "unit" in value:
        choice(*ANALYSIS_UNITS)(value["unit"])
    for key, high in (("depth", 10_000), ("nodes", 2**63 - 1), ("nps", 2**63 - 1), ("time_ms", INT32)):
        if key in value and (type(value[key]) is not int or not 0 <= value[key] <= high):
            raise FieldError(f"{key} must be an integer from 0 to {high}")
    if "fallback" in value:
        choice(*FALLBACK_CAUSES)(value["fallback"])
    if "pv" in value:
        pv = value["pv"]
        if type(pv) is not list or len(pv) > MAX_PV:
            raise FieldError(f"pv must be a list of at most {MAX_PV} moves")
        for move in pv:
            wire_move(move)
    return value


_INT32_SCHEMA = {"type": "integer", "minimum": -INT32, "maximum": INT32}
_MOVE_SCHEMA = {
    "type": "array",
    "maxItems": MAX_ARRAY_LEN,
    "items": {"anyOf": [_INT32_SCHEMA, {"type": "array", "items": _INT32_SCHEMA}]},
}
_accepts(boolean, {"type": "boolean"})
_accepts(
    request_id,
    {"anyOf": [{"type": "integer", "minimum": -(2**63), "maximum": 2**64 - 1},
               {"type": "string", "maxLength": MAX_ID_LEN}, {"type": "null"}]},
)  # fmt: skip
_accepts(
    params,
    {"type": "object", "maxProperties": 16, "propertyNames": {"maxLength": MAX_NAME_LEN},
     "additionalProperties": {"anyOf": [{"type": "integer"}, {"type": "boolean"},
                                        {"type": "string", "maxLength": MAX_ID_LEN}]}},
)  # fmt: skip
_accepts(
    clock,
    {"type": "object", "required": ["initial_ms"], "additionalProperties": False,
     "properties": {"initial_ms": {"type": "integer", "minimum": 1, "maximum": INT32},
                    "increment_ms": {"type": "integer", "minimum": 0, "maximum": INT32},
                    "move_limit_ms": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": INT32},
                                                {"type": "null"}]}}},
)  # fmt: skip
_accepts(wire_move, _MOVE_SCHEMA)
_accepts(
    names,
    {"type": "array", "maxItems": 64, "items": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_LEN}},
)
_accepts(
    analysis,
    {"type": "object", "minProperties": 1, "additionalProperties": False,
     "properties": {"score": {"type": "number", "minimum": -MAX_SCORE, "maximum": MAX_SCORE},
                    "unit": {"enum": list(ANALYSIS_UNITS)},
                    "depth": {"type": "integer", "minimum": 0, "maximum": 10_000},
                    "nodes": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
                    "nps": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
                    "time_ms": {"type": "integer", "minimum": 0, "maximum": INT32},
                    "pv": {"type": "array", "maxItems": MAX_PV, "items": _MOVE_SCHEMA},
                    "fallback": {"enum": list(FALLBACK_CAUSES)}},
     "dependentRequired": {"score": ["unit"]},
     "allOf": [{"if": {"required": ["score", "unit"], "properties": {"unit": {"const": "win"}}},
                "then": {"properties": {"score": {"minimum": 0, "maximum": 1}}}},
               {"if": {"required": ["score", "unit"], "properties": {"unit": {"const": "mate"}}},
                "then": {"properties": {"score": {"type": "integer"}}}}]},
)  # fmt: skip

NAME = string(MAX_NAME_LEN)
IDENT = string(MAX_ID_LEN)
PLY = integer(0, INT32)


def spec(check: Checker, doc: str = "") -> dict[str, Any]:
    """Field metadata: its checker and a line for SPEC.md."""
    return {"check": check, "doc": doc}


# --- client messages --------------------------------------------------------------------------
@dataclass(slots=True, kw_only=True)
class Request:
    """Every client message may carry ``id``; replies and errors echo it as ``re``."""

    TYPE: ClassVar[str] = ""
    id: RequestId | None = field(default=None, metadata=spec(request_id, "chosen by the client, echoed as `re`"))

    def wire(self) -> dict[str, Any]:
        """The message as the map a client sends (fields left unset are left out)."""
        out: dict[str, Any] = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = value
        return out


@dataclass(slots=True, kw_only=True)
class Hello(Request):
    TYPE: ClassVar[str] = "hello"
    protocol: int = field(metadata=spec(integer(0, INT32), "the protocol version the client speaks: 1"))
    client: str = field(metadata=spec(string(64), "the client's name and version, e.g. `mybot/2.1`"))
    token: str | None = field(
        default=None,
        metadata=spec(optional(string(256)), "a player token, or a guest's resume_token; absent: a new guest"),
    )
    games: list[str] | None = field(
        default=None, metadata=spec(optional(names), "games this client plays (shown in presence)")
    )
    capacity: int | None = field(
        default=None,
        metadata=spec(
            optional(integer(1, 1000)),
            "matches this client plays at once, across all games: the ladder never gives it more",
        ),
    )
    levels: int | None = field(
        default=None,
        metadata=spec(
            optional(integer(1, MAX_LEVELS)),
            "a bot's strength levels, 1 (weakest) to this (shown in presence; a challenge may name one)",
        ),
    )
    takebacks: str | None = field(
        default=None,
        metadata=spec(
            optional(choice("casual", "never")),
            "a bot's takeback policy: grants them in casual games, or never (section 15); nil: never",
        ),
    )
    hints: bool | None = field(
        default=None,
        metadata=spec(optional(boolean), "a bot that suggests moves to its casual opponents on request (section 15)"),
    )
    features: list[str] | None = field(
        default=None,
        metadata=spec(
            optional(names),
            "protocol extensions the client speaks (`swap`: the swap openings); unknown ones are ignored",
        ),
    )
    analysis: int | None = field(
        default=None,
        metadata=spec(
            optional(integer(1, 64)),
            "an analysis worker: the analysis jobs it takes at once, for the games in `games` (section 18)",
        ),
    )


@dataclass(slots=True, kw_only=True)
class Ping(Request):
    TYPE: ClassVar[str] = "ping"


@dataclass(slots=True, kw_only=True)
class Lobby(Request):
    TYPE: ClassVar[str] = "lobby"


@dataclass(slots=True, kw_only=True)
class Subscribe(Request):
    TYPE: ClassVar[str] = "subscribe"


@dataclass(slots=True, kw_only=True)
class Unsubscribe(Request):
    TYPE: ClassVar[str] = "unsubscribe"


@dataclass(slots=True, kw_only=True)
class Challenge(Request):
    TYPE: ClassVar[str] = "challenge"
    to: str | None = field(
        default=None, metadata=spec(optional(NAME), "the player challenged; absent or nil: an open seek")
    )
    game: str = field(metadata=spec(NAME, "a game name from welcome.games"))
    params: dict[str, Any] | None = field(
        default=None, metadata=spec(optional(params), "rule parameters; absent ones take their defaults")
    )
    clock: dict[str, Any] = field(metadata=spec(clock, "the time control"))
    color: str = field(default="random", metadata=spec(choice("first", "second", "random"), "the challenger's side"))
    rated: bool = field(default=False, metadata=spec(boolean, "rated (both players registered)"))
    level: int | None = field(
        default=None,
        metadata=spec(
            optional(integer(1, MAX_LEVELS)),
            "the strength asked of the challenged bot, within the levels its presence shows; needs `to`",
        ),
    )


@dataclass(slots=True, kw_only=True)
class Accept(Request):
    TYPE: ClassVar[str] = "accept"
    challenge: str = field(metadata=spec(IDENT, "the challenge or seek id"))


@dataclass(slots=True, kw_only=True)
class Decline(Request):
    TYPE: ClassVar[str] = "decline"
    challenge: str = field(metadata=spec(IDENT, "the challenge id (direct challenges only)"))


@dataclass(slots=True, kw_only=True)
class Cancel(Request):
    TYPE: ClassVar[str] = "cancel"
    challenge: str = field(metadata=spec(IDENT, "the challenger's own challenge or seek id"))


@dataclass(slots=True, kw_only=True)
class MatchRequest(Request):
    """A request about one match."""

    match: str = field(metadata=spec(IDENT, "the match id"))


@dataclass(slots=True, kw_only=True)
class MakeMove(MatchRequest):
    TYPE: ClassVar[str] = "move"
    ply: int = field(metadata=spec(PLY, "the index of this move in the match (0 for the first move)"))
    move: list[Any] = field(metadata=spec(wire_move, "the move in the game's encoding"))
    info: dict[str, Any] | None = field(
        default=None,
        metadata=spec(optional(analysis), "what the mover's search found (section 10): spectators see it at once"),
    )


RESIGN_CAUSES = ("crash", "timeout", "illegal_move", "protocol_error", "drain")


@dataclass(slots=True, kw_only=True)
class Resign(MatchRequest):
    TYPE: ClassVar[str] = "resign"
    cause: str | None = field(
        default=None,
        metadata=spec(
            optional(choice(*RESIGN_CAUSES)),
            "why a bot gives up, when it is not a choice (its engine failed, a drain): counted in /metrics",
        ),
    )


@dataclass(slots=True, kw_only=True)
class Abort(MatchRequest):
    TYPE: ClassVar[str] = "abort"


@dataclass(slots=True, kw_only=True)
class OfferDraw(MatchRequest):
    TYPE: ClassVar[str] = "offer_draw"


@dataclass(slots=True, kw_only=True)
class AcceptDraw(MatchRequest):
    TYPE: ClassVar[str] = "accept_draw"


@dataclass(slots=True, kw_only=True)
class DeclineDraw(MatchRequest):
    TYPE: ClassVar[str] = "decline_draw"


SWAP_CHOICES = ("black", "white", "place")


@dataclass(slots=True, kw_only=True)
class Swap(MatchRequest):
    TYPE: ClassVar[str] = "swap"
    choice: str = field(
        metadata=spec(
            choice(*SWAP_CHOICES),
            "the decider's choice in a swap opening: a colour, or (swap2's chooser, at 3 stones) to place two more",
        )
    )


@dataclass(slots=True, kw_only=True)
class Spectate(MatchRequest):
    TYPE: ClassVar[str] = "spectate"


@dataclass(slots=True, kw_only=True)
class Unspectate(MatchRequest):
    TYPE: ClassVar[str] = "unspectate"


@dataclass(slots=True, kw_only=True)
class Sync(MatchRequest):
    TYPE: ClassVar[str] = "sync"


# --- the table and the parser -----------------------------------------------------------------
@dataclass(frozen=True)
class _Schema:
    cls: type[Request]
    checks: dict[str, Checker]
    required: frozenset[str]


CLIENT_MESSAGES: dict[str, type[Request]] = {}
_SCHEMAS: dict[str, _Schema] = {}


def register(cls: type[Request]) -> type[Request]:
    """Add a client message type (its class must be a kw_only Request dataclass with field checkers)."""
    if not cls.TYPE or cls.TYPE in CLIENT_MESSAGES:
        raise ValueError(f"message type {cls.TYPE!r} is empty or already registered")
    checks = {f.name: f.metadata["check"] for f in dataclasses.fields(cls)}
    required = frozenset(
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    CLIENT_MESSAGES[cls.TYPE] = cls
    _SCHEMAS[cls.TYPE] = _Schema(cls, checks, required)
    return cls


for _cls in (
    Hello, Ping, Lobby, Subscribe, Unsubscribe, Challenge, Accept, Decline, Cancel, MakeMove, Resign, Abort,
    OfferDraw, AcceptDraw, DeclineDraw, Spectate, Unspectate, Sync, Swap,
):  # fmt: skip
    register(_cls)


def parse(raw: dict[str, Any]) -> Request:
    """A decoded map (from codec.decode) as its typed message, or ProtocolError echoing its id."""
    schema = _SCHEMAS.get(raw["type"])
    if schema is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {raw['type']!r}", re=request_id_of(raw))
    checks = schema.checks
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "type":
            continue
        check = checks.get(key)
        if check is None:
            raise ProtocolError(
                ErrorCode.UNKNOWN_FIELD, f"{schema.cls.TYPE} has no field {key!r}", re=request_id_of(raw)
            )
        try:
            values[key] = check(value)
        except FieldError as error:
            raise ProtocolError(
                ErrorCode.BAD_FIELD, f"{schema.cls.TYPE}.{key} {error}", re=request_id_of(raw)
            ) from None
    if not schema.required <= values.keys():
        missing = ", ".join(sorted(schema.required.difference(values)))
        raise ProtocolError(ErrorCode.MISSING_FIELD, f"{schema.cls.TYPE} needs {missing}", re=request_id_of(raw))
    return schema.cls(**values)


def describe_client_messages() -> dict[str, list[tuple[str, str, bool, str]]]:
    """Each client type's fields as (name, type, required, doc), for SPEC.md and its test."""
    out = {}
    for kind, schema in _SCHEMAS.items():
        out[kind] = [
            (f.name, f.metadata["check"].__doc__ or "", f.name in schema.required, f.metadata["doc"])
            for f in dataclasses.fields(schema.cls)
        ]
    return out
