"""In-process series between brains on m,n,k games: strength checks without a server.

Games come in pairs: each opening (a few random stones near the centre, seeded) is played twice
with the colours swapped, so neither side profits from a lucky opening or from moving first.
Every move goes through ``Brain.think`` with a ThinkRequest, exactly as the bot runtime calls it,
and is checked by the engine (an illegal move raises). The measured side is the first contender:
its score is (wins + draws / 2) / games.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from arbiter.engine import Game, IllegalMove, Move, create_game

from ..brain import Brain, ThinkRequest


@dataclass
class Contender:
    """A brain with the budget (seconds) and options it gets for every move."""

    label: str
    brain: Brain
    budget: float = 1.0
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class GameRecord:
    winner: int | None  # 0 = the first player, 1 = the second, None = draw
    moves: list[Move]
    think_seconds: tuple[list[float], list[float]]


@dataclass
class Tally:
    """The first contender's results in a series."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    wins_as_first: int = 0
    wins_as_second: int = 0
    think_seconds: list[float] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @classmethod
    def merged(cls, parts: Sequence[Tally]) -> Tally:
        """One tally of several series' games (parts of one series played apart), in the parts' order."""
        total = cls()
        for part in parts:
            for name in ("wins", "draws", "losses", "wins_as_first", "wins_as_second"):
                setattr(total, name, getattr(total, name) + getattr(part, name))
            total.think_seconds.extend(part.think_seconds)
            total.lengths.extend(part.lengths)
        return total

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0


def random_opening(game: Game, stones: int, rng: random.Random) -> list[Move]:
    """``stones`` random moves played the way openings go: each next to the stones already down.

    The first stone lands within one cell of the centre; each later one touches (Chebyshev
    distance 1) a stone already placed. Three stones make the classic opening shape (a stone for
    the first player, an answer beside it, a second stone): the second player is then to move.
    """
    m, n = game.params["m"], game.params["n"]
    state = game.new_state()
    placed: list[Move] = []
    for i in range(stones):
        if i == 0:
            choices = [(x, y) for x in range(m) for y in range(n) if abs(x - m // 2) <= 1 and abs(y - n // 2) <= 1]
        else:
            choices = sorted(
                {(x + dx, y + dy) for x, y in placed for dx in (-1, 0, 1) for dy in (-1, 0, 1)} - set(placed)
            )
            choices = [(x, y) for x, y in choices if 0 <= x < m and 0 <= y < n]
        if not choices:
            break
        cell = rng.choice(choices)
        state.play(cell)
        if state.is_terminal:
            state.undo()
            break
        placed.append(cell)
    return state.moves()


def scattered_opening(game: Game, stones: int, spread: int, rng: random.Random) -> list[Move]:
    """``stones`` random moves anywhere in the square of cells within ``spread`` of the centre.

    Touching stones (``random_opening``) give the side with more stones a game that is nearly
    always won between equals; stones apart leave some openings even, which a judge can pick.
    """
    m, n = game.params["m"], game.params["n"]
    square = [(x, y) for x in range(m) for y in range(n) if abs(x - m // 2) <= spread and abs(y - n // 2) <= spread]
    state = game.new_state()
    for cell in rng.sample(square, stones):
        state.play(cell)
        if state.is_terminal:
            state.undo()
            break
    return state.moves()


def play_game(game: Game, first: Contender, second: Contender, opening: list[Move], seed: int) -> GameRecord:
    """One game from ``opening``; each side thinks with its own budget and options."""
    state = game.new_state()
    for move in opening:
        state.play(move)
    seconds: tuple[list[float], list[float]] = ([], [])
    players = (first, second)
    while not state.is_terminal:
        side = state.to_move
        player = players[side]
        request = ThinkRequest(
            match_id=f"arena-{seed}",
            game=game.name,
            params=dict(game.params),
            moves=[game.encode_move(m) for m in state.moves()],
            budget=player.budget,
            seed=seed * 2 + side,
            options=player.options,
        )
        result = player.brain.think(request)
        try:
            state.play(game.decode_move(result.move))
        except IllegalMove as error:
            raise IllegalMove(f"{player.label} played an illegal move {result.move}: {error}") from None
        seconds[side].append(float(result.info.get("seconds", 0.0)))
    outcome = state.outcome
    return GameRecord(outcome.winner if outcome else None, state.moves(), seconds)


def series(
    game: Game | str,
    a: Contender,
    b: Contender,
    pairs: int,
    *,
    seed: int = 0,
    opening_stones: int = 3,
    openings: Sequence[list[Move]] | None = None,
    first_pair: int = 0,
) -> Tally:
    """``pairs`` openings, each played with a first then with b first; a's tally.

    The openings are drawn at random (``random_opening``, seeded), or the first ``pairs`` of
    ``openings`` when given (a balanced set, say). ``first_pair`` numbers the pairs from there, so
    a series split into parts seeds each game as the whole series would.
    """
    if isinstance(game, str):
        game = create_game(game)
    rng = random.Random(seed)
    if openings is not None and len(openings) < pairs:
        raise ValueError(f"{pairs} pairs asked for, {len(openings)} openings given")
    tally = Tally()
    for pair in tqdm(range(pairs), desc=f"{a.label} v {b.label}", unit="pair", disable=None, leave=False):
        opening = random_opening(game, opening_stones, rng) if openings is None else openings[pair]
        for a_moves_first in (True, False):
            game_seed = seed * 100_003 + (first_pair + pair) * 2 + int(a_moves_first)
            first, second = (a, b) if a_moves_first else (b, a)
            record = play_game(game, first, second, opening, game_seed)
            a_side = 0 if a_moves_first else 1
            if record.winner is None:
                tally.draws += 1
            elif record.winner == a_side:
                tally.wins += 1
                if a_moves_first:
                    tally.wins_as_first += 1
                else:
                    tally.wins_as_second += 1
            else:
                tally.losses += 1
            tally.think_seconds.extend(record.think_seconds[a_side])
            tally.lengths.append(len(record.moves))
    return tally
