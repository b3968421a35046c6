"""The decision interface every bot implements: a position and a clock in, a move out.

A brain runs inside a worker process of the bot's process pool, never on the event loop, so
everything it receives and returns is plain picklable data. The runtime (client, pool, time
manager) knows nothing about any game's search, and a brain knows nothing about sockets.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from arbiter.engine import Game, State, create_game, game_names

FALLBACK_BUDGET = 0.02  # seconds a fallback move may think (Brain.fallback_move)
MAX_PV = 64  # moves of a principal variation a move's analysis carries (the protocol's bound)
MAX_SCORE = 10**9
CP_SCALE = 400.0  # an evaluation of this many centipawns counts as a clear edge (Brain.evaluate)


@dataclass(frozen=True)
class ThinkRequest:
    """One decision to make.

    ``moves`` are the wire moves played so far from the start position; ``budget`` is the time
    the time manager allows for this move, in seconds (the brain must answer within it);
    ``match_id`` lets a brain keep per-match memory (a search tree) between its moves; ``level``
    is the strength asked for this match (a challenge may name one), None for the bot's own.
    ``deadline`` (``time.monotonic()``, the same clock in every process of the machine) is when the
    answer must be back at the latest: the pool takes the most urgent request first, and counts
    ``budget`` from when a worker takes it, cut so that it ends by then.
    """

    match_id: str
    game: str
    params: dict[str, Any]
    moves: list[Any]
    budget: float
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    level: int | None = None
    deadline: float | None = None
    # The clocks when the turn came: remaining_ms (the mover's), opponent_ms, initial_ms, increment_ms,
    # move_limit_ms (if any).
    clock: dict[str, int] | None = None
    # A swap opening's decision instead of a move (the protocol's swap field: phase, stones, options):
    # the next stone of the phase, or one of its options (swap.py).
    swap: dict[str, Any] | None = None

    def game_rules(self) -> Game:
        return create_game(self.game, self.params)

    def position(self) -> State:
        """Replay ``moves`` on a fresh state of the game."""
        game = self.game_rules()
        state = game.new_state()
        for move in self.moves:
            state.play(game.decode_move(move))
        return state


@dataclass(frozen=True)
class ThinkResult:
    """The chosen move as a wire value, plus whatever the search wants to log (depth, nodes…)."""

    move: Any
    info: dict[str, Any] = field(default_factory=dict)


class BrainOptionError(ValueError):
    """An option a brain does not take, or a bad value for one; the message names the brain."""


def refuse_unknown_options(
    brain: str, options: Mapping[str, Any], known: Iterable[str], error: type[BrainOptionError] = BrainOptionError
) -> None:
    """Raise ``error`` naming the first of ``options`` that ``brain`` does not take (``known``)."""
    known = sorted(known)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise error(f"{brain}: unknown option {unknown[0]!r}; known: {', '.join(known) or 'none'}")


class Brain(ABC):
    """A bot's search. Subclasses set ``name`` and ``games`` and implement ``think``.

    ``level`` selects a strength (1 = weakest), the default for requests that name none (one warm
    pool serves matches at different levels); ``options`` carries explicit limits such as
    ``depth``, ``nodes`` or ``time``. One instance lives in each worker process.
    """

    name: ClassVar[str]
    levels: ClassVar[int] = 1
    # True when the runtime should run each decision on every worker and merge the answers with
    # merge() (root parallelism, e.g. MCTS with a different seed per worker).
    root_parallel: ClassVar[bool] = False
    # False for a brain without options: the constructor then refuses any. A brain that takes
    # options sets True and checks them itself (they also come per request).
    takes_options: ClassVar[bool] = False
    # What ThinkResult.info's evaluation means, for spectators (the protocol's move.info): "cp" for
    # an evaluation in info["score"], "win" for a winning probability in info["value"]; None: none.
    score_unit: ClassVar[str | None] = None

    def __init__(self, level: int | None = None, **options: Any) -> None:
        if not self.takes_options:
            refuse_unknown_options(self.name, options, ())
        self.level = self.levels if level is None else level
        self.options = options

    def level_for(self, request: ThinkRequest) -> int:
        """The level to think at: the request's (its match's) if it names one, else the brain's own."""
        return self.level if request.level is None else request.level

    @classmethod
    @abstractmethod
    def plays(cls, game: Game) -> bool:
        """Whether this bot can play ``game``."""

    @abstractmethod
    def think(self, request: ThinkRequest) -> ThinkResult:
        """Choose a move for the side to move in ``request.position()`` within ``request.budget``."""

    @classmethod
    def merge(cls, results: list[ThinkResult]) -> ThinkResult:
        """One answer from several workers that searched the same request with different seeds.

        The pool calls it for root parallelism; the default keeps the first answer. A brain that
        sets ``root_parallel`` overrides it, e.g. to add up per-move visit counts from ``info``.
        """
        return results[0]

    @classmethod
    def analysis(cls, result: ThinkResult) -> dict[str, Any] | None:
        """What a spectator may see of a decision: the protocol's ``move.info`` (SPEC.md section 10),
        from ``result.info``: depth, nodes, speed, time, principal variation and the evaluation in
        ``score_unit``. None when the search says nothing of it."""
        info = result.info
        out: dict[str, Any] = {}
        for key in ("depth", "nodes", "nps"):
            if type(info.get(key)) is int and 0 <= info[key] < 2**63:
                out[key] = info[key]
        if isinstance(info.get("seconds"), int | float) and info["seconds"] >= 0:
            out["time_ms"] = round(info["seconds"] * 1000)
        pv = info.get("pv")
        if isinstance(pv, list) and pv and all(isinstance(move, list) for move in pv):
            out["pv"] = pv[:MAX_PV]
        score = info.get("score") if cls.score_unit == "cp" else info.get("value")
        if cls.score_unit is not None and isinstance(score, int | float) and math.isfinite(score):
            if cls.score_unit == "cp":
                out["score"], out["unit"] = max(-MAX_SCORE, min(MAX_SCORE, score)), "cp"
            elif 0 <= score <= 1:
                out["score"], out["unit"] = score, "win"
        return out or None

    def evaluate(self, request: ThinkRequest) -> float | None:
        """The position's value for the side to move, from -1 (lost) to 1 (won), by this brain's own
        search within ``request.budget``: what a swap opening's choices rest on (swap.py). None
        when the search gives no evaluation (``score_unit``)."""
        info = self.think(dataclasses.replace(request, swap=None)).info
        if self.score_unit == "cp" and isinstance(info.get("score"), int | float):
            return math.tanh(info["score"] / CP_SCALE)
        if self.score_unit == "win" and isinstance(info.get("value"), int | float):
            return 2 * info["value"] - 1
        return None

    def fallback_move(self, request: ThinkRequest) -> ThinkResult:
        """The cheapest sound move, for when the request's deadline cannot be met: level 1 with a
        tiny budget, run on the caller's thread, the bot's event loop (a few milliseconds: a brain
        whose level 1 is slow overrides this). Never a uniform random move, unless random is what
        the brain plays."""
        hurried = dataclasses.replace(request, level=1, budget=FALLBACK_BUDGET, deadline=None)
        return self.think(hurried)

    def warm_up(self) -> None:
        """Compile and run every kernel once on a tiny input, before any clock starts.

        Here: two moves of every game this brain plays. Every request replays its moves
        (``ThinkRequest.position``) through the shared engine's rules, which numba compiles in each process on
        first use, so without this a first move paid for them on its clock (docs/PERFORMANCE.md). A brain with
        kernels of its own warms them after calling this."""
        for name in game_names():
            game = create_game(name)
            if self.plays(game):
                state = game.new_state()
                for _ in range(2):
                    state.play(state.legal_moves()[0])

    def forget(self, match_id: str) -> None:  # noqa: B027 - an optional hook for brains with memory
        """Drop per-match memory once a match is over."""

    def ponder(self, request: ThinkRequest, stop: threading.Event) -> None:  # noqa: B027 - optional
        """Think on the opponent's time: ``request.position()`` has the opponent to move (our move is
        the last of ``request.moves``). Runs in a thread of the worker until it is done or ``stop`` is
        set, and must leave the brain ready for the next ``think`` of the match, which may profit from
        it. The worker sets ``stop`` and calls ``stop_ponder`` when anything else comes for it, and
        waits for this to return before going on. The default does nothing."""

    def stop_ponder(self) -> None:  # noqa: B027 - optional, with ponder
        """Make a running ``ponder`` return at once (called from another thread, after its ``stop``
        is set: a search that only looks at the event now and then is interrupted here)."""

    @classmethod
    def can_ponder(cls) -> bool:
        """Whether this brain implements ``ponder`` (the runtime sends it nothing to ponder otherwise)."""
        return cls.ponder is not Brain.ponder
