"""``arbiter check``: whether a store agrees with itself, game by game and rating by rating.

Every stored game is replayed through the engine, as the server played it: each move legal, plies
0..n-1 without a gap, and the stored end the one the record gives. When the moves end the game (a
line, a goal, a full board) the stored result and reason must be the rules' own; when they do not,
the reason must be one that needs no board (``ENDS_WITHOUT_THE_BOARD``) and agree with the record:
a timeout is lost by the side to move, an abort comes before the aborting side's first move, an
interrupted or aborted game has no result. A game without an end is live, or waits for the restart
rule (recovery.py): counted, not a difference. Moves under a game id no game has are reported too.

Then every rating is recomputed from the rated, finished games in the order they ended, with the
server's own rule (``rate_result``), and compared with the stored ones, pool by pool. The store
streams its games pool by pool (``Store.stream_games``), so memory holds one page of games and one
pool's ratings, whatever the size of the store.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from arbiter.engine import EngineError, Game, State, create_game
from arbiter.engine.base import REASON_NAMES

from ..basics.pools import label
from ..basics.ratings import INITIAL_DEVIATION, INITIAL_RATING, INITIAL_VOLATILITY
from ..store.base import GameRecord, Rating, Store
from .rating_updates import rate_result
from .recovery import VOIDED_REASON

WINS = ("1-0", "0-1")
# Every end the server (or `arbiter import`) writes that the board does not give, and the results
# each allows: match.py's timeout, resign, abort, abandon and agreed draw; the restart rule's and
# the drain's void; an imported SGF's forfeit and an imported game without an end.
ENDS_WITHOUT_THE_BOARD: dict[str, tuple[str | None, ...]] = {
    "timeout": WINS,
    "resign": WINS,
    "abandoned": (*WINS, None),
    "draw_agreed": ("1/2-1/2",),
    "abort": (None,),
    VOIDED_REASON: (None,),
    "forfeit": WINS,
    "unfinished": (None,),
    "banned": (*WINS, None),  # the banned side lost; no result when both were banned (bans.py)
}
BOARD_REASONS = tuple(name for name in REASON_NAMES.values() if name != "none")  # what the rules end a game by
KIND_NAMES = {"game": "games", "moves": "moves without a game", "rating": "ratings"}
RATING_FIELDS = ("rating", "deviation", "volatility", "games", "wins", "draws", "losses")


@dataclass(frozen=True)
class Difference:
    """One thing the store holds that its own record contradicts."""

    kind: str  # "game", "moves" (without a game) or "rating"
    subject: str  # what it is about: "game ID (gomoku)", "rating alice@2 in gomoku/blitz", …
    text: str  # what was expected and what is stored
    ply: int | None = None

    @property
    def repairable(self) -> bool:
        """Whether ``rebuild_ratings`` derives the right value without guessing: ratings only."""
        return self.kind == "rating"

    def line(self) -> str:
        return f"{self.subject}" + ("" if self.ply is None else f" ply {self.ply}") + f": {self.text}"


@dataclass
class Summary:
    """What a check went through, and the differences it found by kind."""

    games: int = 0
    moves: int = 0
    unfinished: int = 0
    rated: int = 0
    pools: int = 0
    ratings: int = 0
    differences: Counter[str] = field(default_factory=Counter)
    repairable: int = 0

    @property
    def clean(self) -> bool:
        return not self.differences

    def line(self) -> str:
        found = self.differences.total()
        kinds = ", ".join(f"{KIND_NAMES[kind]}: {count}" for kind, count in sorted(self.differences.items()))
        return (
            f"checked {_count(self.games, 'game')} ({_count(self.moves, 'move')}; {self.unfinished} without an end:"
            f" live, or left for the restart rule), {_count(self.rated, 'rated game')},"
            f" {_count(self.ratings, 'rating')} in {_count(self.pools, 'pool')}: "
            + ("clean" if not found else f"{_count(found, 'difference')} ({kinds})")
        )


async def check_store(
    store: Store, report: Callable[[Difference], None], progress: Callable[[], None] | None = None
) -> Summary:
    """Check every game and every rating of ``store``, calling ``report`` with each difference as it
    is found (and ``progress`` after each game); the summary. Warm the engine's kernels first."""
    summary = Summary()

    def found(difference: Difference) -> None:
        summary.differences[difference.kind] += 1
        summary.repairable += difference.repairable
        report(difference)

    ratings = _PoolRatings(store, found, summary)
    async for record in store.stream_games():
        summary.games += 1
        summary.moves += len(record.moves)
        summary.unfinished += record.ended is None
        for difference in check_game(record):
            found(difference)
        if record.ended is not None:
            await ratings.add(record)
        if progress is not None:
            progress()
    await ratings.finish()
    for game_id, count in sorted((await store.orphan_moves()).items()):
        text = f"{_count(count, 'move')} stored, but no game has that id"
        found(Difference("moves", f"moves of game id {game_id}", text))
    return summary


def check_game(record: GameRecord) -> list[Difference]:
    """What is wrong with one stored game, replayed through the engine (empty: nothing)."""
    start = record.start
    subject = f"game {start.match_id} ({start.game})"

    def wrong(text: str, ply: int | None = None) -> list[Difference]:
        return [Difference("game", subject, text, ply)]

    for index, move in enumerate(record.moves):
        if move.ply < index:
            return wrong("stored twice", move.ply)
        if move.ply > index:
            jump = f"plies jump from {index - 1} to {move.ply}" if index else f"plies start at {move.ply}"
            return wrong(f"{jump}: {move.ply - index} missing", index)
    try:
        game = create_game(start.game, start.params)
    except EngineError as error:
        return wrong(f"cannot be replayed: {error}")
    if start.opening > len(record.moves):
        return wrong(f"starts from an opening of {start.opening} plies, but only {len(record.moves)} moves are stored")
    state = game.new_state()
    moved = [0, 0]  # moves by each side after the opening (an abort must come before the aborter's first)
    for move in record.moves:
        if state.is_terminal:
            return wrong(f"a move ({move.move}) after the game was over ({_end_of(state)})", move.ply)
        mover = state.to_move
        try:
            state.play(game.decode_move(move.move))
        except EngineError as error:
            return wrong(f"illegal move {move.move} by {start.players[mover]}: {error}", move.ply)
        if move.ply >= start.opening:
            moved[mover] += 1
        elif move.ply == start.opening - 1 and state.is_terminal:
            return wrong(f"the opening of {start.opening} plies ends the game ({_end_of(state)})", move.ply)
    return [Difference("game", subject, text) for text in _end_differences(record, game, state, moved)]


def _end_differences(record: GameRecord, game: Game, state: State, moved: list[int]) -> list[str]:
    """How the stored end disagrees with the replayed position (empty: it agrees)."""
    result, reason = record.result, record.reason
    stored = f"stored {result or 'no result'} by {reason}"
    if record.ended is None:
        return [] if result is None and reason is None else [f"has no end time, yet an end: {stored}"]
    outcome = state.outcome
    if outcome is not None:
        if (result, reason) != (outcome.result, outcome.reason):
            return [f"the moves end it {outcome.result} by {outcome.reason} at ply {len(record.moves) - 1}; {stored}"]
        return []
    if reason is None:
        return [f"ended without a reason ({result or 'no result'})"]
    allowed = ENDS_WITHOUT_THE_BOARD.get(reason)
    if allowed is None and reason in BOARD_REASONS:
        return [f"{stored}, but after {_count(len(record.moves), 'move')} the game is not over"]
    if allowed is None:
        return [
            f"{stored}: a reason Arbiter never writes (it knows {', '.join([*BOARD_REASONS, *ENDS_WITHOUT_THE_BOARD])})"
        ]
    if result not in allowed:
        expected = " or ".join(r or "no result" for r in allowed)
        return [f"a game ended by {reason} has {expected}; {stored}"]
    if reason == "timeout" and result != WINS[1 - state.to_move]:
        side = record.start.players[state.to_move]
        return [f"{side} was to move, so a timeout is {WINS[1 - state.to_move]}; {stored}"]
    if reason == "abort" and min(moved) > 0:
        return [f"an abort comes before the aborting side's first move, but both moved ({moved[0]} and {moved[1]})"]
    if reason == "draw_agreed" and not game.allows_draw_offer:
        return [f"{game.name} has no draw offers; {stored}"]
    return []


def _end_of(state: State) -> str:
    outcome = state.outcome
    return "" if outcome is None else f"{outcome.result} by {outcome.reason}"


class _PoolRatings:
    """The ratings the rated games of one pool give, rebuilt as the games stream by in the order
    they ended, and compared with the stored ones when the stream moves on to the next pool."""

    def __init__(self, store: Store, found: Callable[[Difference], None], summary: Summary) -> None:
        self.store = store
        self.found = found
        self.summary = summary
        self.pool: str | None = None
        self.ratings: dict[tuple[str, int | None], Rating] = {}
        self.seen: set[str] = set()
        self.registered: dict[str, str | None] = {}  # a name as games spell it → as registered (None: not)

    async def add(self, record: GameRecord) -> None:
        start = record.start
        if start.pool != self.pool:
            await self._compare()
            self.pool, self.ratings = start.pool, {}
            self.seen.add(start.pool)
        if not start.rated or record.result is None:
            return
        names = [await self._registered(name) for name in start.players]
        for given, name in zip(start.players, names, strict=True):
            if name is None:
                text = f"rated {record.result}, but {given} is not a registered player: not rated"
                self.found(Difference("game", f"game {start.match_id} ({start.game})", text))
        if names[0] is None or names[1] is None:
            return
        keys = [(names[0], start.levels[0] or None), (names[1], start.levels[1] or None)]
        before = [self.ratings.get(key) or _fresh(key, start.pool) for key in keys]
        for key, after in zip(keys, rate_result(before[0], before[1], record.result), strict=True):
            self.ratings[key] = after
        self.summary.rated += 1

    async def finish(self) -> None:
        """Compare the last pool, then every pool that holds ratings but no finished game."""
        await self._compare()
        self.ratings = {}
        for pool in await self.store.rating_pools():
            if pool not in self.seen:
                self.pool = pool
                await self._compare()

    async def _compare(self) -> None:
        if self.pool is None:
            return
        self.summary.pools += 1
        for (name, level), expected in sorted(self.ratings.items(), key=lambda item: label(*item[0])):
            self.summary.ratings += 1
            self._differ(expected, await self.store.get_rating(name, self.pool, level))
        for stored in await self.store.leaderboard(self.pool):
            if (stored.player, stored.level) not in self.ratings:
                self._differ(_fresh((stored.player, stored.level), self.pool), stored, unrated=True)

    def _differ(self, expected: Rating, stored: Rating, *, unrated: bool = False) -> None:
        changed = [
            f"{name} {_number(getattr(expected, name))} expected, {_number(getattr(stored, name))} stored"
            for name in RATING_FIELDS
            if not math.isclose(getattr(expected, name), getattr(stored, name), rel_tol=1e-9, abs_tol=1e-6)
        ]
        if changed:
            subject = f"rating {expected.label} in {expected.pool}"
            self.found(Difference("rating", subject, ("no rated game, yet " if unrated else "") + "; ".join(changed)))

    async def _registered(self, name: str) -> str | None:
        if name not in self.registered:
            player = await self.store.get_player(name)
            self.registered[name] = None if player is None else player.name
        return self.registered[name]


def _fresh(key: tuple[str, int | None], pool: str) -> Rating:
    return Rating(key[0], pool, INITIAL_RATING, INITIAL_DEVIATION, INITIAL_VOLATILITY, level=key[1])


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}" + ("" if number == 1 else "s")


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, int) else f"{value:.6f}".rstrip("0").rstrip(".")
