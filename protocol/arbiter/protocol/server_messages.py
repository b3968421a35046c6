"""What the server sends, as typed values: one msgspec Struct per message type, tagged by ``type``.

A client turns a decoded map (``codec.decode``, with its size and depth bounds) into its typed
message with ``read(raw)``: each field is checked against the Struct's annotation, strictly (an
int is not a float, nil is not a string), and a map that is not exactly one of these raises a
``ProtocolError`` with the schema's stable codes (unknown_type, missing_field, bad_field,
unknown_field). The server's own tests hold every message it sends to the same types
(``check_server_message``), so the code, these classes and SPEC.md agree.

Fields that a message may leave out default to ``UNSET`` (falsy), so "absent" and "nil" stay
apart as they are on the wire. Nested maps (player, challenge, clock, rating changes) stay plain
maps; SPEC.md describes them.

Why msgspec here and not the client schema's checkers (messages.py): converting a map is a
single C call per message, and a client reads every ``moved`` of every match it plays or
watches; the client schema keeps its checkers because their field docs generate SPEC.md's
tables and their ranges are the server's first line of defence (see docs/PERFORMANCE.md for the
trial of both).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

from .errors import ErrorCode, ProtocolError

RequestId = int | str
Re = RequestId | UnsetType


class ServerMessage(Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    """A message from the server; ``re`` is set on replies to a request that carried an ``id``."""


class Welcome(ServerMessage, frozen=True, tag="welcome"):
    protocol: int
    server: str
    player: dict[str, Any]
    resume_token: str | None
    games: list[Any]
    limits: dict[str, Any]
    resumed: list[str]
    re: Re = UNSET


class Error(ServerMessage, frozen=True, tag="error"):
    code: str
    message: str
    re: Re = UNSET


class Ok(ServerMessage, frozen=True, tag="ok"):
    re: Re = UNSET
    match: str | UnsetType = UNSET


class Pong(ServerMessage, frozen=True, tag="pong"):
    time_ms: int
    re: Re = UNSET


class LobbyState(ServerMessage, frozen=True, tag="lobby_state"):
    players: list[Any]
    seeks: list[Any]
    matches: list[Any]
    re: Re = UNSET


class Presence(ServerMessage, frozen=True, tag="presence"):
    player: dict[str, Any]


class PlayerOffline(ServerMessage, frozen=True, tag="player_offline"):
    name: str


class SeekAdded(ServerMessage, frozen=True, tag="seek_added"):
    seek: dict[str, Any]


class SeekRemoved(ServerMessage, frozen=True, tag="seek_removed"):
    seek: str
    reason: str


class MatchListed(ServerMessage, frozen=True, tag="match_listed"):
    match: dict[str, Any]


class MatchUnlisted(ServerMessage, frozen=True, tag="match_unlisted"):
    match: str
    result: str | None
    reason: str


class ChallengeCreated(ServerMessage, frozen=True, tag="challenge_created"):
    challenge: dict[str, Any]
    re: Re = UNSET


class ChallengeOffered(ServerMessage, frozen=True, tag="challenge_offered"):
    challenge: dict[str, Any]


class ChallengeClosed(ServerMessage, frozen=True, tag="challenge_closed"):
    challenge: str
    reason: str
    match: str | UnsetType = UNSET


class _MatchMessage(ServerMessage, frozen=True):
    """What match_start and match_state both say of a match (never sent on its own)."""

    match: str
    game: str
    params: dict[str, Any]
    players: list[dict[str, Any]]
    color: int | None  # the receiver's colour (nil for a spectator's match_state)
    clock: dict[str, Any]
    clocks: list[int]
    rated: bool
    to_move: int
    levels: list[int | None]


class MatchStart(_MatchMessage, frozen=True, tag="match_start"):
    color: int
    challenge: str | None
    moves: list[Any]


class MatchState(_MatchMessage, frozen=True, tag="match_state"):
    moves: list[Any]
    ply: int
    opening: int
    draw_offer: int | None
    connected: list[bool]
    re: Re = UNSET
    infos: list[Any] | UnsetType = UNSET


class Moved(ServerMessage, frozen=True, tag="moved"):
    match: str
    ply: int
    move: list[Any]
    by: int
    clocks: list[int]
    elapsed_ms: int
    info: dict[str, Any] | UnsetType = UNSET
    analysis: dict[str, Any] | UnsetType = UNSET  # a rated match's: {ply, info} of an earlier move


class DrawOffered(ServerMessage, frozen=True, tag="draw_offered"):
    match: str
    by: int


class DrawDeclined(ServerMessage, frozen=True, tag="draw_declined"):
    match: str
    by: int


class PlayerLeft(ServerMessage, frozen=True, tag="player_left"):
    match: str
    color: int
    grace_ms: int


class PlayerReturned(ServerMessage, frozen=True, tag="player_returned"):
    match: str
    color: int


class End(ServerMessage, frozen=True, tag="end"):
    match: str
    result: str | None
    winner: int | None
    reason: str
    clocks: list[int]
    ply: int
    rating_changes: dict[str, Any]


SERVER_MESSAGES: dict[str, type[ServerMessage]] = {}


def register(cls: type[ServerMessage]) -> type[ServerMessage]:
    """Add a server message type (the ladder adds its own)."""
    tag = msgspec.inspect.type_info(cls).tag  # type: ignore[attr-defined]
    if not isinstance(tag, str) or tag in SERVER_MESSAGES:
        raise ValueError(f"server message type {tag!r} has no tag or is already registered")
    SERVER_MESSAGES[tag] = cls
    return cls


for _cls in (
    Welcome, Error, Ok, Pong, LobbyState, Presence, PlayerOffline, SeekAdded, SeekRemoved, MatchListed,
    MatchUnlisted, ChallengeCreated, ChallengeOffered, ChallengeClosed, MatchStart, MatchState, Moved,
    DrawOffered, DrawDeclined, PlayerLeft, PlayerReturned, End,
):  # fmt: skip
    register(_cls)


def read(raw: dict[str, Any]) -> ServerMessage:
    """A decoded server map as its typed message, or ProtocolError with the schema's codes."""
    cls = SERVER_MESSAGES.get(raw.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown server message type {raw.get('type')!r}")
    kind = raw["type"]
    try:  # the class by its tag: converting to the union of them all re-reads the union every call
        message: ServerMessage = msgspec.convert(raw, cls, strict=True)
    except msgspec.ValidationError as error:
        text = str(error)
        if text.startswith("Object missing required field"):
            code = ErrorCode.MISSING_FIELD
        elif text.startswith("Object contains unknown field"):
            code = ErrorCode.UNKNOWN_FIELD
        else:
            code = ErrorCode.BAD_FIELD
        raise ProtocolError(code, f"{kind}: {text}") from None
    return message


def fields_of(kind: str) -> dict[str, bool]:
    """A server type's fields, each with whether it is required (for SPEC.md's test)."""
    return {f.encode_name: f.required for f in msgspec.structs.fields(SERVER_MESSAGES[kind])}


def check_server_message(message: Any) -> None:
    """Raise AssertionError unless ``message`` is a server message exactly as its Struct says."""
    assert type(message) is dict, f"not a map: {message!r}"
    try:
        read(message)
    except ProtocolError as error:
        raise AssertionError(f"{error.code}: {error.message}") from None
