"""What the server sends, as typed values: one msgspec Struct per message type, tagged by ``type``.

A client turns a decoded map (``codec.decode``, with its size and depth bounds) into its typed
message with ``read(raw)``: each field is checked against the Struct's annotation, strictly (an
int is not a float, nil is not a string), and a map that is not exactly one of these raises a
``ProtocolError`` with the schema's stable codes (unknown_type, missing_field, bad_field,
unknown_field). The server's own tests hold every message it sends to the same types
(``check_server_message``), so the code, these classes and SPEC.md agree.

Fields that a message may leave out default to ``UNSET`` (falsy), so "absent" and "nil" stay
apart as they are on the wire. Nested maps (player, challenge, clock, …) stay plain maps when read,
so a client indexes them as it always did; each is annotated with its *shape*, a Struct below (SPEC.md's
shared objects), which the published JSON Schema (schema.py) refers to and ``check_server_message``
holds every nested map to.

Why msgspec here and not the client schema's checkers (messages.py): converting a map is a
single C call per message, and a client reads every ``moved`` of every match it plays or
watches; the client schema keeps its checkers because their field docs generate SPEC.md's
tables and their ranges are the server's first line of defence (see docs/PERFORMANCE.md for the
trial of both).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Struct, UnsetType

from .errors import ErrorCode, ProtocolError

RequestId = int | str
Re = RequestId | UnsetType


# --- the shared objects (SPEC.md, "Shared objects") ------------------------------------------------
class _Shape(Struct, frozen=True, forbid_unknown_fields=True):
    """A nested map's shape: only for the schema and the tests' checks, never what ``read`` returns."""


class Player(_Shape, frozen=True):
    name: str
    kind: Literal["bot", "human"]
    guest: bool
    owner: str | UnsetType = UNSET  # the person a bot created from its account page belongs to


class PresenceEntry(Player, frozen=True, kw_only=True):
    """A player as the lobby lists it."""

    games: list[str]
    levels: int | None
    playing: int
    away: bool


class Clock(_Shape, frozen=True):
    initial_ms: int
    increment_ms: int
    move_limit_ms: int | None


class ChallengeInfo(_Shape, frozen=True, kw_only=True):
    id: str
    from_: str = msgspec.field(name="from")
    to: str | None
    game: str
    params: dict[str, int | bool | str]
    clock: Clock
    color: Literal["first", "second", "random"]
    rated: bool
    level: int | None
    expires_ms: int


class MatchSummary(_Shape, frozen=True):
    match: str
    game: str
    params: dict[str, int | bool | str]
    players: list[str]
    clock: Clock
    rated: bool


class GameParam(_Shape, frozen=True):
    name: str
    type: Literal["int", "bool", "str"]
    default: int | bool | str
    doc: str
    min: int | UnsetType = UNSET
    max: int | UnsetType = UNSET
    choices: list[str] | UnsetType = UNSET


class GameInfo(_Shape, frozen=True):
    name: str
    family: str
    doc: str
    fixed: dict[str, int | bool | str]
    params: list[GameParam]
    draw_offers: bool


class ClockLimits(_Shape, frozen=True):
    min_initial_ms: int
    max_initial_ms: int
    max_increment_ms: int
    min_move_limit_ms: int
    max_move_limit_ms: int


class Limits(_Shape, frozen=True):
    max_frame_bytes: int
    rate_per_s: float
    rate_burst: int
    flood_tolerance: int
    hello_timeout_ms: int
    reconnect_grace_ms: int
    challenge_ttl_ms: int
    seek_ttl_ms: int
    max_open_challenges: int
    max_matches: int
    max_spectated: int
    max_spectators: int
    max_send_buffer_bytes: int
    max_lag_credit_ms: int
    clock: ClockLimits


class RatingEntry(_Shape, frozen=True):
    player: str
    level: int | None
    label: str
    pool: str
    rating: float
    deviation: float
    provisional: bool
    games: int
    wins: int
    draws: int
    losses: int


class ForbiddenPoint(_Shape, frozen=True):
    """One of black's forbidden points in renju, and why (SPEC.md section 13)."""

    move: list[int]
    kind: Literal["overline", "double-four", "double-three"]


class SwapChoice(_Shape, frozen=True):
    """One decision of a swap opening: ``by`` (a seat) chose ``choice`` with ``ply`` stones down."""

    by: int
    choice: Literal["black", "white", "place"]
    ply: int


class SwapInfo(_Shape, frozen=True):
    """A swap opening's phase (SPEC.md, "Swap openings"): seats, not colours, until ``colors`` is set."""

    rule: Literal["swap1", "swap2"]
    phase: Literal["place", "choose", "done"]
    to_act: int | None
    stones: int
    options: list[Literal["black", "white", "place"]]
    choices: list[SwapChoice]
    colors: list[int] | None


SHAPES: dict[str, type[_Shape]] = {
    cls.__name__: cls
    for cls in (Player, PresenceEntry, Clock, ChallengeInfo, MatchSummary, GameParam, GameInfo, ClockLimits,
                Limits, RatingEntry, ForbiddenPoint, SwapChoice, SwapInfo)
}  # fmt: skip


def _one(shape: type[_Shape]) -> msgspec.Meta:
    """A nested map read as plain data, of ``shape`` (the schema refers to it)."""
    return msgspec.Meta(extra_json_schema={"$ref": f"#/$defs/{shape.__name__}"})


def _many(shape: type[_Shape]) -> msgspec.Meta:
    """A list of nested maps read as plain data, each of ``shape``."""
    return msgspec.Meta(extra_json_schema={"items": {"$ref": f"#/$defs/{shape.__name__}"}})


PlayerMap = Annotated[dict[str, Any], _one(Player)]
PlayerList = Annotated[list[dict[str, Any]], _many(Player)]
PresenceMap = Annotated[dict[str, Any], _one(PresenceEntry)]
PresenceList = Annotated[list[Any], _many(PresenceEntry)]
ClockMap = Annotated[dict[str, Any], _one(Clock)]
ChallengeMap = Annotated[dict[str, Any], _one(ChallengeInfo)]
ChallengeList = Annotated[list[Any], _many(ChallengeInfo)]
SummaryMap = Annotated[dict[str, Any], _one(MatchSummary)]
SummaryList = Annotated[list[Any], _many(MatchSummary)]
GameList = Annotated[list[Any], _many(GameInfo)]
LimitsMap = Annotated[dict[str, Any], _one(Limits)]
RatingMap = Annotated[dict[str, Any], _one(RatingEntry)]
RatingList = Annotated[list[Any], _many(RatingEntry)]
ForbiddenList = Annotated[list[Any], _many(ForbiddenPoint)]
SwapMap = Annotated[dict[str, Any], _one(SwapInfo)]

# A move: a list of ints, or of lists of ints (SPEC.md section 13).
Move = list[int | list[int]]


class ServerMessage(Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    """A message from the server; ``re`` is set on replies to a request that carried an ``id``."""


class Welcome(ServerMessage, frozen=True, tag="welcome"):
    protocol: int
    server: str
    player: PlayerMap
    resume_token: str | None
    games: GameList
    limits: LimitsMap
    resumed: list[str]
    re: Re = UNSET
    features: list[str] | UnsetType = UNSET  # absent from a server older than the extensions


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
    players: PresenceList
    seeks: ChallengeList
    matches: SummaryList
    re: Re = UNSET


class Presence(ServerMessage, frozen=True, tag="presence"):
    player: PresenceMap


class PlayerOffline(ServerMessage, frozen=True, tag="player_offline"):
    name: str


class SeekAdded(ServerMessage, frozen=True, tag="seek_added"):
    seek: ChallengeMap


class SeekRemoved(ServerMessage, frozen=True, tag="seek_removed"):
    seek: str
    reason: str


class MatchListed(ServerMessage, frozen=True, tag="match_listed"):
    match: SummaryMap


class MatchUnlisted(ServerMessage, frozen=True, tag="match_unlisted"):
    match: str
    result: str | None
    reason: str


class ChallengeCreated(ServerMessage, frozen=True, tag="challenge_created"):
    challenge: ChallengeMap
    re: Re = UNSET


class ChallengeOffered(ServerMessage, frozen=True, tag="challenge_offered"):
    challenge: ChallengeMap


class ChallengeClosed(ServerMessage, frozen=True, tag="challenge_closed"):
    challenge: str
    reason: str
    match: str | UnsetType = UNSET


class _MatchMessage(ServerMessage, frozen=True):
    """What match_start and match_state both say of a match (never sent on its own)."""

    match: str
    game: str
    params: dict[str, Any]
    players: PlayerList
    color: int | None  # the receiver's colour (nil for a spectator's match_state)
    clock: ClockMap
    clocks: list[int]
    rated: bool
    to_move: int
    levels: list[int | None]


class MatchStart(_MatchMessage, frozen=True, tag="match_start"):
    color: int
    challenge: str | None
    moves: list[Move]
    swap: SwapMap | UnsetType = UNSET  # a swap opening's phase (color is then the seat)


class MatchState(_MatchMessage, frozen=True, tag="match_state"):
    moves: list[Move]
    ply: int
    opening: int
    draw_offer: int | None
    connected: list[bool]
    re: Re = UNSET
    infos: list[Any] | UnsetType = UNSET
    forbidden: ForbiddenList | UnsetType = UNSET  # renju, black to move: its forbidden points
    swap: SwapMap | UnsetType = UNSET  # a swap opening's phase


class Swapped(ServerMessage, frozen=True, tag="swapped"):
    """A decision of a swap opening, to players and spectators."""

    match: str
    by: int
    choice: Literal["black", "white", "place"]
    swap: SwapMap
    players: PlayerList
    levels: list[int | None]
    clocks: list[int]
    to_move: int


class Moved(ServerMessage, frozen=True, tag="moved"):
    match: str
    ply: int
    move: Move
    by: int
    clocks: list[int]
    elapsed_ms: int
    info: dict[str, Any] | UnsetType = UNSET
    analysis: dict[str, Any] | UnsetType = UNSET  # a rated match's: {ply, info} of an earlier move
    forbidden: ForbiddenList | UnsetType = UNSET  # renju, black to move next: its forbidden points
    swap: SwapMap | UnsetType = UNSET  # a swap opening's stone: the phase after it


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
    rating_changes: dict[str, float]


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
    DrawOffered, DrawDeclined, PlayerLeft, PlayerReturned, End, Swapped,
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
    """Raise AssertionError unless ``message`` is a server message exactly as its Struct says, each
    nested map of the shape its field names."""
    assert type(message) is dict, f"not a map: {message!r}"
    try:
        read(message)
    except ProtocolError as error:
        raise AssertionError(f"{error.code}: {error.message}") from None
    for field in msgspec.inspect.type_info(SERVER_MESSAGES[message["type"]]).fields:  # type: ignore[attr-defined]
        extra = getattr(field.type, "extra_json_schema", None) or {}
        ref = extra.get("$ref") or extra.get("items", {}).get("$ref")
        if ref is None or field.encode_name not in message:
            continue
        shape = SHAPES[ref.rsplit("/", 1)[-1]]
        value = message[field.encode_name]
        try:
            for item in value if "items" in extra else [value]:
                msgspec.convert(item, shape, strict=True)
        except msgspec.ValidationError as error:
            raise AssertionError(f"{message['type']}.{field.encode_name}: {error}") from None
