"""Balanced openings for bot games: a few seeded random plies that leave neither side clearly winning.

Bots that play the same deterministic game from the empty board repeat it; a ladder of such games
measures one line, not the bots. So a ladder game between two bots may start from an opening of
``plies`` legal moves (whole turns in paper soccer), and each opening is played twice with
the colours swapped (ladder.py), so whatever edge it gives one side is given to both bots.

"Neither side clearly winning" is measured, not assumed, in one of two ways:

- **A book**, where one is shipped (``books/NAME.json``, for a game at its default rules and openings
  of that many plies): a seeded choice among openings an alpha-beta bot judged even, made offline by
  ``python -m arbiter.lab.gomoku_strength`` (``--save-openings``; docs/STORE.md says how each book was made). Random
  playouts say little about gomoku: a four-stone opening that bot proves won for the first player
  scored 0.46 and 0.53 over two sets of playouts, and the openings they passed gave the side to move
  a median of +695 cp by that judge, where about -240 is even (docs/lab/strength-2026-11-29.md).
- **Playouts** otherwise. A candidate is refused if the game is over, if the side to move can win at
  once, or if ``PLAYOUTS`` random playouts from it (the engine's kernel, seeded) score outside ``BAND``
  for the first player. Of ``TRIES`` seeded candidates the first that passes is taken, else the one
  whose playout score is closest to one half.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from arbiter.engine import Game, State, create_game
from arbiter.engine.ops import playouts

BOOKS = Path(__file__).resolve().parent / "books"
PLAYOUTS = 256
BAND = (0.35, 0.65)  # the first player's playout score an opening must leave
TRIES = 24


def balanced_opening(game: Game, plies: int, seed: int) -> list[Any]:
    """``plies`` wire moves from the start of ``game`` that leave it balanced (see the module docstring)."""
    rng = random.Random(seed)
    shelf = book_of(game)
    if shelf and len(shelf[0]) == plies:
        return [list(move) for move in rng.choice(shelf)]
    best: tuple[float, list[Any]] | None = None
    for attempt in range(TRIES):
        state = game.new_state()
        moves = []
        for _ in range(plies):
            if state.is_terminal:
                break
            moves.append(_random_move(state, rng))
        if state.is_terminal or wins_at_once(state):
            continue
        score = playout_score(state, seed * TRIES + attempt)
        if BAND[0] <= score <= BAND[1]:
            return moves
        if best is None or abs(score - 0.5) < best[0]:
            best = (abs(score - 0.5), moves)
    return best[1] if best is not None else []


@cache
def book(name: str) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The judged openings shipped for the game ``name`` at its default rules, as wire moves; () if none.
    Every opening of a book has the same number of plies (tests/server/test_openings.py checks each)."""
    path = BOOKS / f"{name}.json"
    if not path.is_file():
        return ()
    document = json.loads(path.read_text())
    return tuple(tuple(tuple(move) for move in opening) for opening in document["openings"])


def book_of(game: Game) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``game``'s book: the one shipped for its name if it is at its default rules (a book is judged
    on those), else ()."""
    return book(game.name) if game == create_game(game.name) else ()


def playout_score(state: State, seed: int) -> float:
    """The first player's score over PLAYOUTS random playouts from ``state`` (wins 1, draws ½)."""
    game = state.game
    state_buffer = np.empty_like(state.s)
    action_buffer = np.empty(max(game.max_actions, game.state_size), dtype=np.int64)
    wins0, _, draws = playouts(game.gid, game.param_array, state.s, PLAYOUTS, state_buffer, action_buffer, seed)
    return float(wins0 + draws / 2) / PLAYOUTS


def _random_move(state: State, rng: random.Random) -> Any:
    """Play a random legal whole move on ``state``, action by action (a paper-soccer turn has several);
    its wire value."""
    mover, before = state.to_move, len(state.moves())
    while True:
        actions = state.legal_actions()
        state.play_action(int(actions[rng.randrange(len(actions))]))
        if state.is_terminal or state.to_move != mover:
            break
    (move,) = state.moves()[before:]
    return state.game.encode_move(move)


def wins_at_once(state: State) -> bool:
    """Whether the side to move has a move that wins on the spot (single-action moves; enough for m,n,k)."""
    mover = state.to_move
    for action in state.legal_actions():
        trial = state.copy()
        trial.play_action(int(action))
        outcome = trial.outcome
        if trial.is_terminal and outcome is not None and outcome.winner == mover:
            return True
    return False
