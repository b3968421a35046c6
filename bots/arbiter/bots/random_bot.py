"""``random``: a uniformly random legal move in any game — the weakest ladder anchor and a test opponent.

A move is built one action at a time until the turn passes or the game ends, so the same code
plays one-cell moves and paper soccer's multi-step turns (each step uniform among the legal ones;
listing every complete turn first could take exponential time).
"""

from __future__ import annotations

import numpy as np

from arbiter.engine import Game, Move, State, create_game, game_names

from .brain import Brain, ThinkRequest, ThinkResult


class RandomBrain(Brain):
    name = "random"

    @classmethod
    def plays(cls, game: Game) -> bool:
        return True

    def think(self, request: ThinkRequest) -> ThinkResult:
        state = request.position()
        move = random_move(state, np.random.default_rng([request.seed, len(request.moves)]))
        return ThinkResult(state.game.encode_move(move))

    def warm_up(self) -> None:
        super().warm_up()
        for name in game_names():
            random_move(create_game(name).new_state(), np.random.default_rng(0))


def random_move(state: State, rng: np.random.Generator) -> Move:
    """A random legal move for the side to move; ``state`` itself is left unchanged."""
    if state.is_terminal:
        raise ValueError("the game is over: there is no move to choose")
    trial = state.copy()
    mover = trial.to_move
    while True:
        actions = trial.legal_actions()
        trial.play_action(int(actions[rng.integers(len(actions))]))
        if trial.is_terminal or trial.to_move != mover:
            return trial.moves()[-1]
