"""Series between two bots over a real server: the score, its 95% interval and the Elo difference.

Two parts, so the arithmetic is testable without a socket:

- **Statistics** (pure): a ``Tally`` of wins, draws and losses from A's side becomes an
  ``Estimate``: the score (a draw is half a point), a confidence interval for it, and the Elo
  difference ``400·log10(s / (1 − s))`` with the interval's ends mapped the same way (the map is
  monotone, so the Elo interval has the score interval's coverage).
- **The runner** (``run_series``): starts a private server on 127.0.0.1 with an ephemeral port (or
  uses an existing one), runs both bots as ordinary websocket clients, each with its own warm
  ``BrainPool``, and has A challenge B game after game, A moving first in even-numbered games and
  second in odd ones. One game at a time, so neither bot's search competes with the other's for a
  core and the clock is fair to both.

Why the Wilson interval. A game's score X lies in [0, 1]; with mean μ its variance is at most
μ(1 − μ) (the Bhatia–Davis inequality), with equality exactly when there are no draws. The
Wilson interval inverts the normal test with that variance, so it is the usual binomial interval
for decisive games (whose coverage swings a little around 95 %, as Brown, Cai and DasGupta 2001
show) and errs on the wide (safe) side when draws make the scores less spread. The
plain normal approximation with the sample's own variance (p̂ ± z·s/√n) collapses to a zero-width
interval at 0 %, at 100 % and for an all-draw series — precisely the series a strength target like
"100 % against random" produces — while Wilson still says how far below 100 % the truth may be.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import math
import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from arbiter.bots.brain import Brain, ThinkRequest, ThinkResult
from arbiter.bots.client import BotClient, BotSettings, ChallengeRefused, LiveGame
from arbiter.bots.pool import BrainPool, PoolError
from arbiter.bots.random_bot import random_move
from arbiter.bots.timeman import TimeManager
from arbiter.engine import create_game
from arbiter.protocol.server_messages import ChallengeClosed, ServerMessage

CONFIDENCE = 0.95
CONNECT_TIMEOUT = 30.0  # seconds for both bots to be connected and welcomed
STOP_TIMEOUT = 30.0
FAILED_STARTS_ALLOWED = 3  # challenges in a row that may fail to start a game before the series stops
OTHER_SIDE_WAIT = 30.0  # seconds B may take to hear of an end A has heard of
CHALLENGE_WAIT = 90.0  # seconds for a challenge to close (servers expire unanswered ones after 60 s)


# --- statistics ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tally:
    """Wins, draws and losses from one player's side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        """Points per game, 0..1 (NaN before any game)."""
        return self.points / self.games if self.games else math.nan

    def add(self, points: float) -> Tally:
        """This tally with one more game scored ``points`` (1, 0.5 or 0)."""
        if points == 1:
            return dataclasses.replace(self, wins=self.wins + 1)
        if points == 0.5:
            return dataclasses.replace(self, draws=self.draws + 1)
        if points == 0:
            return dataclasses.replace(self, losses=self.losses + 1)
        raise ValueError(f"a game scores 1, 0.5 or 0 points, not {points!r}")


@dataclass(frozen=True)
class Estimate:
    """A score with its interval, and the Elo difference with its interval (±inf at 0 % and 100 %)."""

    score: float
    low: float
    high: float
    elo: float
    elo_low: float
    elo_high: float
    confidence: float = CONFIDENCE

    @property
    def elo_margin(self) -> float | None:
        """Half the Elo interval's width, the usual "± margin"; None when an end is infinite."""
        if math.isinf(self.elo_low) or math.isinf(self.elo_high):
            return None
        return (self.elo_high - self.elo_low) / 2


def z_value(confidence: float = CONFIDENCE) -> float:
    """The two-sided normal quantile for ``confidence`` (1.96 for 95 %)."""
    if not 0 < confidence < 1:
        raise ValueError(f"a confidence level lies strictly between 0 and 1, not {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(points: float, games: int, z: float) -> tuple[float, float]:
    """The Wilson score interval for a score of ``points`` out of ``games``."""
    if games <= 0:
        raise ValueError("an interval needs at least one game")
    if not 0 <= points <= games:
        raise ValueError(f"{points} points cannot come from {games} games")
    p = points / games
    z2n = z * z / games
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / games + z2n / (4 * games))
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_difference(score: float) -> float:
    """The Elo difference that predicts ``score`` (0..1) under the logistic model; ±inf at the ends."""
    if not 0 <= score <= 1:
        raise ValueError(f"a score lies between 0 and 1, not {score!r}")
    if score == 0:
        return -math.inf
    if score == 1:
        return math.inf
    return 400 * math.log10(score / (1 - score))


def estimate(tally: Tally, confidence: float = CONFIDENCE) -> Estimate:
    """Score, Wilson interval and Elo difference (with its interval) for ``tally``."""
    if tally.games == 0:
        raise ValueError("no game was scored")
    low, high = wilson_interval(tally.points, tally.games, z_value(confidence))
    return Estimate(
        tally.score,
        low,
        high,
        elo_difference(tally.score),
        elo_difference(low),
        elo_difference(high),
        confidence,
    )


# --- what a series is made of --------------------------------------------------------------------
@dataclass(frozen=True)
class SeriesPlayer:
    """One side of a series: a brain and how to run it (and its token on an existing server)."""

    brain: type[Brain]
    level: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    workers: int = 1
    token: str | None = None
    timeman: TimeManager = field(default_factory=TimeManager)
    # Off by default: on one machine a side's ponder takes a core from the other side's think.
    ponder: bool = False

    @property
    def label(self) -> str:
        """``gomoku level 3 (time=0.2)``: what plays, for the summary."""
        text = self.brain.name
        if self.brain.levels > 1:
            text += f" level {self.level if self.level is not None else self.brain.levels}"
        extras = [f"{k}={v}" for k, v in self.options.items()] + (["ponder"] if self.ponder else [])
        if extras:
            text += " (" + ", ".join(extras) + ")"
        return text

    def player_name(self, side: str) -> str:
        """The name this side registers on a private server (distinct for the two sides)."""
        level = "" if self.level is None else f"-{self.level}"
        return f"{self.brain.name}{level}-{side}"


@dataclass(frozen=True)
class SeriesConfig:
    a: SeriesPlayer
    b: SeriesPlayer
    game: str
    games: int
    clock: Mapping[str, Any]  # the protocol's clock map: initial_ms, increment_ms, move_limit_ms
    params: Mapping[str, Any] = field(default_factory=dict)  # only the parameters that differ from the game's
    seed: int = 0
    opening_plies: int = 0  # random plies that open each pair of games (see ``opening``)
    book: bool = False  # open each pair of games from the game's book of judged openings instead (``opening``)
    server: str | None = None  # an existing server's ws:// address; None starts a private one
    db: Path | None = None  # the private server's SQLite file; None keeps the games in memory
    game_log: Path | None = None  # A's finished games, one JSON line each


@dataclass(frozen=True)
class GameOutcome:
    """One game of the series, from A's side."""

    number: int
    a_color: int  # 0: A moved first
    a_points: float | None  # 1, 0.5, 0, or None when the game had no result or never started
    reason: str  # the end's reason (SPEC section 8), or "not_started"
    result: str | None = None
    match: str | None = None
    plies: int = 0
    fallbacks: tuple[int, int] = (0, 0)  # moves the clients sent without the brain's answer (A, B)
    error: str | None = None
    moves_hash: int | None = None  # of the move list: equal hashes with equal colours are the same game


@dataclass
class SeriesResult:
    """Everything a series produced, the summary and the JSON built from it."""

    config: SeriesConfig
    names: tuple[str, str] = ("", "")
    outcomes: list[GameOutcome] = field(default_factory=list)
    stopped: str | None = None  # why the series ended before its last game

    def tally(self, a_color: int | None = None) -> Tally:
        """A's wins, draws and losses over the scored games (only those where A had ``a_color``)."""
        tally = Tally()
        for outcome in self.outcomes:
            if outcome.a_points is not None and a_color in (None, outcome.a_color):
                tally = tally.add(outcome.a_points)
        return tally

    def estimate(self) -> Estimate | None:
        tally = self.tally()
        return estimate(tally) if tally.games else None

    def reasons(self) -> Counter[str]:
        return Counter(o.reason for o in self.outcomes)

    def distinct_games(self) -> int:
        """Games played that no earlier game repeated move for move (bots that never vary repeat games)."""
        return len({(o.a_color, o.moves_hash) for o in self.outcomes if o.moves_hash is not None})

    def as_json(self) -> dict[str, Any]:
        config = self.config
        tally = self.tally()
        found = self.estimate()
        return {
            "a": {
                "name": self.names[0],
                "bot": config.a.brain.name,
                "level": config.a.level,
                "options": dict(config.a.options),
                "ponder": config.a.ponder,
                "label": config.a.label,
            },
            "b": {
                "name": self.names[1],
                "bot": config.b.brain.name,
                "level": config.b.level,
                "options": dict(config.b.options),
                "ponder": config.b.ponder,
                "label": config.b.label,
            },
            "game": config.game,
            "params": _full_params(config),
            "clock": dict(config.clock),
            "seed": config.seed,
            "opening_plies": config.opening_plies,
            "book": config.book,
            "games": config.games,
            "played": len(self.outcomes),
            "scored": tally.games,
            "wins": tally.wins,
            "draws": tally.draws,
            "losses": tally.losses,
            "score": None if found is None else found.score,
            "ci": None if found is None else [found.low, found.high],
            "confidence": CONFIDENCE,
            "elo": None if found is None else _finite(found.elo),
            "elo_ci": None if found is None else [_finite(found.elo_low), _finite(found.elo_high)],
            "elo_margin": None if found is None else found.elo_margin,
            "by_color": {side: dataclasses.asdict(self.tally(color)) for side, color in (("first", 0), ("second", 1))},
            "reasons": dict(self.reasons()),
            "distinct_games": self.distinct_games(),
            "fallbacks": [sum(o.fallbacks[0] for o in self.outcomes), sum(o.fallbacks[1] for o in self.outcomes)],
            "errors": [{"game": o.number, "error": o.error} for o in self.outcomes if o.error],
            "stopped": self.stopped,
            "outcomes": [dataclasses.asdict(o) for o in self.outcomes],
        }

    def summary_lines(self) -> list[str]:
        """The human summary: who played what, W/D/L, score with its interval, Elo, colours, ends."""
        config = self.config
        clock = format_clock(config.clock)
        params = " ".join(f"{k}={v}" for k, v in _full_params(config).items())
        lines = [
            f"A = {self.names[0]} ({config.a.label})   B = {self.names[1]} ({config.b.label})",
            f"{config.game} ({params}), clock {clock}, {len(self.outcomes)} of {config.games} games, "
            f"seed {config.seed}",
        ]
        if config.book:
            lines.append(f"each pair of games opens with one opening of {config.game}'s book, colours swapped")
        elif config.opening_plies:
            lines.append(f"each pair of games opens with the same {config.opening_plies} random plies, colours swapped")
        tally = self.tally()
        found = self.estimate()
        if found is None:
            lines.append("no game was scored")
        else:
            percent = f"{tally.wins} W  {tally.draws} D  {tally.losses} L"
            lines.append(f"A: {percent}   score {found.score:.1%}   95% CI [{found.low:.1%}, {found.high:.1%}]")
            margin = "" if found.elo_margin is None else f" ± {found.elo_margin:.0f}"
            lines.append(
                f"Elo difference A−B: {_signed(found.elo)}{margin}   "
                f"95% CI [{_signed(found.elo_low)}, {_signed(found.elo_high)}]"
            )
        for side, color in (("first", 0), ("second", 1)):
            part = self.tally(color)
            score = "" if not part.games else f"   score {part.score:.1%}"
            games = f"{part.games} game" + ("" if part.games == 1 else "s")
            lines.append(f"A moving {side}: {games}: {part.wins} W  {part.draws} D  {part.losses} L{score}")
        ends = ", ".join(f"{reason} {count}" for reason, count in sorted(self.reasons().items()))
        lines.append(f"ends: {ends or 'none'}")
        unscored = len(self.outcomes) - tally.games
        fallbacks = (sum(o.fallbacks[0] for o in self.outcomes), sum(o.fallbacks[1] for o in self.outcomes))
        lines.append(
            f"unscored games: {unscored}; moves sent without the brain's answer: A {fallbacks[0]}, B {fallbacks[1]}"
        )
        started = sum(1 for o in self.outcomes if o.moves_hash is not None)
        if self.distinct_games() < started:
            lines.append(
                f"distinct games: {self.distinct_games()} of {started} (repeated games are not independent samples)"
            )
        for outcome in self.outcomes:
            if outcome.error:
                lines.append(f"game {outcome.number + 1}: {outcome.error}")
        if self.stopped:
            lines.append(f"stopped early: {self.stopped}")
        return lines


def format_clock(clock: Mapping[str, Any]) -> str:
    """``10+0.1 s`` or ``10+0.1 s, 500 ms per move``."""
    text = f"{clock['initial_ms'] / 1000:g}+{(clock.get('increment_ms') or 0) / 1000:g} s"
    if clock.get("move_limit_ms"):
        text += f", {clock['move_limit_ms']} ms per move"
    return text


def _full_params(config: SeriesConfig) -> dict[str, Any]:
    return dict(create_game(config.game, config.params).params)


def _finite(value: float) -> float | None:
    return None if math.isinf(value) else value


def _signed(value: float) -> str:
    return ("+inf" if value > 0 else "-inf") if math.isinf(value) else f"{value:+.0f}"


# --- the runner ----------------------------------------------------------------------------------
class SeriesError(RuntimeError):
    """The series cannot go on: a bot refused or stopped, the server unreachable, games not starting."""


def opening(game: str, params: Mapping[str, Any], seed: int, pair: int, plies: int, book: bool = False) -> list[Any]:
    """The opening of games ``2·pair`` and ``2·pair + 1``: ``plies`` random wire moves, the game still on,
    or with ``book`` one of the game's book of judged openings (the ladder's: arbiter.server.ranking.openings).

    Bots that never vary their play (fixed-depth searches) would otherwise repeat one game per
    colour all series long; starting each pair of games from its own position, once with each
    colour, gives independent samples while keeping the pair fair to both sides. Random stones on
    a gomoku board mostly hand the game to one colour, so each pair splits whoever is stronger; the
    book's openings leave the colours about even.
    """
    rules = create_game(game, params)
    rng = np.random.default_rng([seed, pair])
    if book:
        from arbiter.server.ranking.openings import book_of  # the server's package: imported when needed

        shelf = book_of(rules)
        return [list(move) for move in shelf[int(rng.integers(len(shelf)))]]
    while True:
        state = rules.new_state()
        for _ in range(plies):
            if state.is_terminal:
                break
            state.play(random_move(state, rng))
        if not state.is_terminal:
            return [rules.encode_move(move) for move in state.moves()]


class SeriesClient(BotClient):
    """A bot client that tells the series how each challenge closed and each match ended.

    It also seeds every decision from the series seed, the game's number and the ply (instead of
    the server's random match id), so a series of fixed-budget bots is replayed exactly by
    running it again with the same seed; and it plays the series' opening moves itself.
    """

    def __init__(self, url: str, *, token: str, pool: BrainPool, settings: BotSettings, config: SeriesConfig) -> None:
        super().__init__(url, token=token, pool=pool, settings=settings)
        self.config = config
        self._openings: dict[int, list[Any]] = {}
        self._closures: dict[str, asyncio.Future[ChallengeClosed]] = {}
        self._results: dict[str, asyncio.Future[dict[str, Any] | None]] = {}
        self._numbers: dict[str, int] = {}

    def closure(self, challenge_id: str) -> asyncio.Future[ChallengeClosed]:
        """Resolves with the ``challenge_closed`` message of ``challenge_id``."""
        return self._closures.setdefault(challenge_id, asyncio.get_running_loop().create_future())

    def result(self, match_id: str) -> asyncio.Future[dict[str, Any] | None]:
        """Resolves with the match's record once it ends, or None if it ended while this bot was away."""
        return self._results.setdefault(match_id, asyncio.get_running_loop().create_future())

    def on_notice(self, message: ServerMessage) -> None:
        if isinstance(message, ChallengeClosed):
            closure = self.closure(message.challenge)
            if not closure.done():
                closure.set_result(message)

    def on_match_started(self, live: LiveGame) -> None:
        self._numbers.setdefault(live.id, len(self._numbers))

    def on_match_over(self, match_id: str, record: dict[str, Any] | None) -> None:
        result = self.result(match_id)
        if not result.done():
            result.set_result(record)

    async def search(self, request: ThinkRequest, *, alone: bool = False) -> ThinkResult:
        number = self._numbers.setdefault(request.match_id, len(self._numbers))
        ply = len(request.moves)
        config = self.config
        if config.book or ply < config.opening_plies:  # the pair's opening, however long, is played below
            pair = number // 2
            if pair not in self._openings:
                self._openings[pair] = opening(
                    config.game, config.params, config.seed, pair, config.opening_plies, config.book
                )
            moves = self._openings[pair]
            if ply < len(moves) and request.moves == moves[:ply]:
                return ThinkResult(moves[ply], {"opening": True})
        seed = zlib.crc32(f"{config.seed}/{number}/{ply}".encode())
        return await super().search(dataclasses.replace(request, seed=seed), alone=alone)


GameCallback = Callable[[GameOutcome, SeriesResult], None]


async def run_series(config: SeriesConfig, *, on_game: GameCallback | None = None) -> SeriesResult:
    """Play the series; ``on_game`` is called after each game (a progress bar). SeriesError if it cannot go on.

    The returned result holds every game played; when the series stops early (a bot stopped for
    good, games no longer start), ``result.stopped`` says why and SeriesError is not raised.
    Failing to start at all (no connection, a refused token, a pool that cannot warm up) raises.
    """
    result = SeriesResult(config)
    given_tokens = _given_tokens(config)
    async with contextlib.AsyncExitStack() as stack:
        # The pools fork their workers before the server or the store starts any thread.
        pools = []
        for side, player in zip("AB", (config.a, config.b), strict=True):
            pool = BrainPool(player.brain, workers=player.workers, level=player.level, options=dict(player.options))
            try:
                pools.append(await stack.enter_async_context(pool))
            except PoolError as error:
                raise SeriesError(f"bot {side} could not start: {str(error).splitlines()[0]}") from None
            except Exception as error:  # the brain's own warm-up, run here before the workers fork
                raise SeriesError(f"bot {side} could not start: {type(error).__name__}: {error}") from error
        if config.server is None or given_tokens is None:
            url, tokens = await _private_server(stack, config)
        else:
            url, tokens = config.server, given_tokens
        clients = []
        for index, (player, pool, token) in enumerate(zip((config.a, config.b), pools, tokens, strict=True)):
            settings = BotSettings(
                games=(config.game,),
                max_matches=2,  # B may still be closing the last game when A's next challenge arrives
                timeman=player.timeman,
                game_log=config.game_log if index == 0 else None,
                ponder=player.ponder,
            )
            clients.append(SeriesClient(url, token=token, pool=pool, settings=settings, config=config))
        stop_now = asyncio.Event()
        tasks = [asyncio.ensure_future(client.run(stop_now=stop_now)) for client in clients]
        try:
            await _connected(clients, tasks, url)
            result.names = (clients[0].name or "", clients[1].name or "")
            playing = asyncio.ensure_future(_play_all(config, clients, result, on_game))
            done, _ = await asyncio.wait({playing, *tasks}, return_when=asyncio.FIRST_COMPLETED)
            if playing in done:
                playing.result()
            else:
                playing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await playing
                side = "A" if tasks[0] in done else "B"
                task = tasks[0] if side == "A" else tasks[1]
                reason = task.exception() or "its connection closed"
                result.stopped = f"bot {side} stopped: {reason}"
        except SeriesError as error:
            if not result.outcomes:
                raise
            result.stopped = str(error)
        finally:
            stop_now.set()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), STOP_TIMEOUT)
    return result


def _given_tokens(config: SeriesConfig) -> tuple[str, str] | None:
    """Both bots' tokens on an existing server (None for a private one); SeriesError if one is missing."""
    if config.server is None:
        return None
    if not config.a.token or not config.b.token:
        raise SeriesError("a series on an existing server needs a token for each bot")
    return config.a.token, config.b.token


async def _private_server(stack: contextlib.AsyncExitStack, config: SeriesConfig) -> tuple[str, tuple[str, str]]:
    """Start a server on 127.0.0.1 with a free port; register both sides; their tokens."""
    from arbiter.server import ServerConfig, run_server
    from arbiter.server.store.base import NameTaken, Store
    from arbiter.server.store.memory import MemoryStore

    store: Store
    if config.db is None:
        store = MemoryStore()
    else:
        from arbiter.server.store.sqlite import SqliteStore

        store = SqliteStore(config.db)
    server = await stack.enter_async_context(run_server(ServerConfig(port=0), store))
    tokens = []
    for player, side in ((config.a, "A"), (config.b, "B")):
        name = player.player_name(side)
        try:
            tokens.append(await store.add_player(name, "bot"))
        except NameTaken:  # a database kept from an earlier series
            tokens.append(await store.reissue_token(name))
    return server.url, (tokens[0], tokens[1])


async def _connected(clients: Sequence[SeriesClient], tasks: Sequence[asyncio.Future[None]], url: str) -> None:
    """Wait until both clients are welcomed; SeriesError if one gives up or the time runs out."""
    for side, client, task in zip("AB", clients, tasks, strict=True):
        waiting: asyncio.Future[Any] = asyncio.ensure_future(client.connected.wait())
        done, _ = await asyncio.wait({waiting, task}, timeout=CONNECT_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if task in done:
            raise SeriesError(f"bot {side} could not join {url}: {task.exception() or 'it stopped'}")
        if not done:
            raise SeriesError(f"bot {side} could not connect to {url} within {CONNECT_TIMEOUT:.0f} s")
    if clients[0].name == clients[1].name:
        raise SeriesError(f"both tokens belong to {clients[0].name!r}; a series needs two players")


async def _play_all(
    config: SeriesConfig, clients: list[SeriesClient], result: SeriesResult, on_game: GameCallback | None
) -> None:
    failed_starts = 0
    for number in range(config.games):
        outcome = await _play_one(config, clients, result.names[1], number)
        result.outcomes.append(outcome)
        if on_game is not None:
            on_game(outcome, result)
        failed_starts = failed_starts + 1 if outcome.reason == "not_started" else 0
        if failed_starts >= FAILED_STARTS_ALLOWED:
            raise SeriesError(f"{failed_starts} challenges in a row started no game (last: {outcome.error})")


async def _play_one(config: SeriesConfig, clients: list[SeriesClient], opponent: str, number: int) -> GameOutcome:
    """Game ``number``: A challenges B with A's colour alternating; the outcome from A's side."""
    a, b = clients
    a_color = number % 2
    try:
        challenge = await a.challenge(
            opponent, config.game, dict(config.clock), params=dict(config.params), color=("first", "second")[a_color]
        )
        closed = await asyncio.wait_for(asyncio.shield(a.closure(challenge["id"])), CHALLENGE_WAIT)
    except (ChallengeRefused, ConnectionError, TimeoutError) as error:
        return GameOutcome(number, a_color, None, "not_started", error=f"the challenge failed: {error}")
    if closed.reason != "accepted" or not isinstance(closed.match, str):
        return GameOutcome(number, a_color, None, "not_started", error=f"the challenge closed: {closed.reason}")
    match = closed.match
    record_a = await a.result(match)
    try:
        record_b = await asyncio.wait_for(asyncio.shield(b.result(match)), OTHER_SIDE_WAIT)
    except TimeoutError:
        record_b = None
    return outcome_of(number, match, record_a, record_b)


def outcome_of(
    number: int, match: str, record_a: dict[str, Any] | None, record_b: dict[str, Any] | None
) -> GameOutcome:
    """A game's outcome from A's side, from A's record of it (or B's, if A was away at the end)."""
    record = record_a or record_b
    if record is None:
        return GameOutcome(
            number, number % 2, None, "unknown", match=match, error="both bots were away when the game ended"
        )
    a_color = record["color"] if record is record_a else 1 - record["color"]
    winner, result = record.get("winner"), record.get("result")
    if result is None:
        points = None
    elif winner is None:
        points = 0.5
    else:
        points = 1.0 if winner == a_color else 0.0
    error = None
    if record["reason"] in ("timeout", "abandoned", "abort"):
        loser = None if winner is None else ("B" if winner == a_color else "A")
        error = f"ended by {record['reason']}" + ("" if loser is None else f" ({loser} lost)")
    return GameOutcome(
        number,
        a_color,
        points,
        record["reason"],
        result=result,
        match=match,
        plies=len(record["moves"]),
        fallbacks=(_fallbacks(record_a), _fallbacks(record_b)),
        error=error,
        moves_hash=zlib.crc32(json.dumps(record["moves"]).encode()),
    )


def _fallbacks(record: dict[str, Any] | None) -> int:
    if record is None:
        return 0
    return sum(1 for decision in record["decisions"] if decision["source"] != "brain")
