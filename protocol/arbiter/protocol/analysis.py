"""Analysis messages: a game's review and the analysis board's request, and the jobs analysis
workers take (SPEC.md section "Analysis").

The server never searches: workers are clients that say ``hello.analysis``, take ``analysis_job``s
from the server's bounded queue and send back one ``analysis_result`` each, which the server checks
before it uses it. Registered into the message tables on import, as the ladder's are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from msgspec import UNSET, UnsetType

from .messages import (
    IDENT,
    INT32,
    MAX_PV,
    NAME,
    FieldError,
    Request,
    _accepts,
    _is_int,
    integer,
    json_schema_of,
    optional,
    params,
    register,
    spec,
    wire_move,
)
from .server_messages import Move, Re, ServerMessage
from .server_messages import register as register_server

MAX_JOB_PLIES = 64  # positions one analysis_job asks for (a review is cut into jobs of at most this)
MAX_ANALYSE_MOVES = 1024  # moves of an analysis-board position
MAX_ANALYSE_BUDGET_MS = 5000


def moves_list(value: Any) -> list[Any]:
    """list of moves (up to 1024), each a move in the game's encoding"""
    if type(value) is not list or len(value) > MAX_ANALYSE_MOVES:
        raise FieldError(f"must be a list of at most {MAX_ANALYSE_MOVES} moves")
    for move in value:
        wire_move(move)
    return value


def evals(value: Any) -> list[dict[str, Any]]:
    """list (up to 64) of maps {ply: int, win: number 0..1, best: move or nil, pv?: list of moves (up to 64),
    depth?: int, nodes?: int}"""
    if type(value) is not list or not 0 < len(value) <= MAX_JOB_PLIES:
        raise FieldError(f"must be a list of 1 to {MAX_JOB_PLIES} evaluations")
    for item in value:
        if type(item) is not dict:
            raise FieldError("holds something other than a map")
        unknown = set(item) - {"ply", "win", "best", "pv", "depth", "nodes"}
        if unknown:
            raise FieldError(f"has unknown key {sorted(map(str, unknown))[0]!r}")
        if not _is_int(item.get("ply")) or not 0 <= item["ply"] <= INT32:
            raise FieldError("ply must be a non-negative integer")
        win: Any = item.get("win")
        if type(win) not in (int, float) or not 0 <= win <= 1:  # NaN fails this too
            raise FieldError("win must be a probability from 0 to 1")
        if "best" not in item:
            raise FieldError("each evaluation needs best (nil when the position is over)")
        if item["best"] is not None:
            wire_move(item["best"])
        pv = item.get("pv", [])
        if type(pv) is not list or len(pv) > MAX_PV:
            raise FieldError(f"pv must be a list of at most {MAX_PV} moves")
        for move in pv:
            wire_move(move)
        for key in ("depth", "nodes"):
            if key in item and (not _is_int(item[key]) or not 0 <= item[key] < 2**63):
                raise FieldError(f"{key} must be a non-negative integer")
    return value


_MOVE = json_schema_of(wire_move)
_accepts(moves_list, {"type": "array", "maxItems": MAX_ANALYSE_MOVES, "items": _MOVE})
_accepts(
    evals,
    {"type": "array", "minItems": 1, "maxItems": MAX_JOB_PLIES,
     "items": {"type": "object", "required": ["ply", "win", "best"], "additionalProperties": False,
               "properties": {"ply": {"type": "integer", "minimum": 0, "maximum": INT32},
                              "win": {"type": "number", "minimum": 0, "maximum": 1},
                              "best": {"anyOf": [_MOVE, {"type": "null"}]},
                              "pv": {"type": "array", "maxItems": MAX_PV, "items": _MOVE},
                              "depth": {"type": "integer", "minimum": 0},
                              "nodes": {"type": "integer", "minimum": 0}}}},
)  # fmt: skip


# --- requesters ---------------------------------------------------------------------------------
@dataclass(slots=True, kw_only=True)
class Review(Request):
    TYPE: ClassVar[str] = "review"
    match: str = field(metadata=spec(IDENT, "a finished game's id: its review, cached or made by the workers"))


@dataclass(slots=True, kw_only=True)
class Analyse(Request):
    TYPE: ClassVar[str] = "analyse"
    game: str = field(metadata=spec(NAME, "a game name from welcome.games"))
    params: dict[str, Any] | None = field(
        default=None, metadata=spec(optional(params), "rule parameters; absent ones take their defaults")
    )
    moves: list[Any] = field(metadata=spec(moves_list, "the position: the moves played from the start"))
    budget_ms: int | None = field(
        default=None,
        metadata=spec(optional(integer(1, MAX_ANALYSE_BUDGET_MS)), "the search's time; absent: the server's default"),
    )


# --- workers ------------------------------------------------------------------------------------
@dataclass(slots=True, kw_only=True)
class AnalysisResult(Request):
    TYPE: ClassVar[str] = "analysis_result"
    job: str = field(metadata=spec(IDENT, "the analysis_job's id"))
    evals: list[dict[str, Any]] = field(
        metadata=spec(evals, "one per ply of the job: win = the chance of the side to move there (draw ½)")
    )


for _cls in (Review, Analyse, AnalysisResult):
    register(_cls)


class ReviewState(ServerMessage, frozen=True, tag="review_state"):
    match: str
    status: Literal["queued", "running", "done", "failed"]
    done: int  # positions evaluated so far
    total: int  # positions to evaluate
    re: Re = UNSET


class AnalysisReply(ServerMessage, frozen=True, tag="analysis"):
    win: list[float]  # [first's chance, second's chance]
    best: Move | None
    pv: list[Move]
    re: Re = UNSET
    depth: int | UnsetType = UNSET
    nodes: int | UnsetType = UNSET


class AnalysisJob(ServerMessage, frozen=True, tag="analysis_job"):
    job: str
    game: str
    params: dict[str, Any]
    moves: list[Move]
    plies: list[int]
    budget_ms: int


for _server_cls in (ReviewState, AnalysisReply, AnalysisJob):
    register_server(_server_cls)
