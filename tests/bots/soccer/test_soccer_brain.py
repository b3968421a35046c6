"""The soccer bot as the runtime sees it: options, levels, legal whole turns, the clock, and random beaten."""

from __future__ import annotations

import numpy as np
import pytest
from soccer_reference import random_position

from arbiter.bots.brain import ThinkRequest, ThinkResult
from arbiter.bots.random_bot import RandomBrain
from arbiter.bots.registry import brain_class, games_played
from arbiter.bots.soccer.brain import LEVELS, SoccerBrain, SoccerOptionError
from arbiter.engine import create_game
from arbiter.engine.paper_soccer import PaperSoccerState


def ask(brain: SoccerBrain, state: PaperSoccerState, budget: float = 0.2, **options) -> ThinkResult:
    wire = [state.game.encode_move(m) for m in state.moves()]
    return brain.think(ThinkRequest("m", "paper_soccer", dict(state.game.params), wire, budget, options=options))


def checked(state: PaperSoccerState, result: ThinkResult) -> PaperSoccerState:
    """The position after the bot's turn; IllegalMove unless the answer is one whole legal turn."""
    child = state.copy()
    child.play(state.game.decode_move(result.move))
    return child


def test_the_registry_knows_the_bot() -> None:
    assert brain_class("soccer") is SoccerBrain
    assert games_played(SoccerBrain) == ["paper_soccer"]
    assert SoccerBrain().level == len(LEVELS) == SoccerBrain.levels


@pytest.mark.parametrize(
    ("level", "options", "message"),
    [
        (0, {}, "level must be 1..6"),
        (7, {}, "level must be 1..6"),
        (6, {"speed": 3}, "unknown option 'speed'"),
        (6, {"style": "mcts"}, "style must be one of turns, source"),
        (6, {"depth": 0}, "depth must be an integer 1..63"),
        (6, {"style": "source", "depth": 7}, "depth must be an integer 0..6"),
        (6, {"depth": "3"}, "depth must be an integer"),
        (6, {"heuristic": "weakened"}, "heuristic applies to style 'source' only"),
        (1, {"heuristic": "strong"}, "heuristic must be one of normal, weakened"),
        (6, {"time": 0}, "time must be a positive number"),
        (6, {"time": True}, "time must be a positive number"),
    ],
)
def test_bad_levels_and_options_are_refused(level: int, options: dict, message: str) -> None:
    with pytest.raises(SoccerOptionError, match=message):
        SoccerBrain(level, **options)


def test_request_options_take_precedence_and_are_checked() -> None:
    brain = SoccerBrain()
    state = create_game("paper_soccer").new_state()
    assert ask(brain, state, style="source", depth=0).info["style"] == "source"
    assert ask(brain, state, budget=10, depth=2).info["depth"] == 2
    with pytest.raises(SoccerOptionError):
        ask(brain, state, depth=-1)
    with pytest.raises(ValueError, match="does not play"):
        brain.think(ThinkRequest("m", "gomoku", {}, [], 1.0))


@pytest.mark.parametrize(
    "params",
    [{}, {"stuck": "draw"}, {"width": 4, "length": 4}, {"width": 6, "length": 12, "stuck": "draw"}, {"width": 12}],
    ids=["8x10", "8x10-draw", "4x4", "6x12-draw", "12x10"],
)
def test_every_answer_is_one_whole_legal_turn(params: dict) -> None:
    brains = [SoccerBrain(level) for level in (1, 2, 4, 5, 6)]
    for seed in range(8):
        state = random_position(params, seed * 3, seed)
        for number in range(12):
            if state.is_terminal:
                break
            brain = brains[(seed + number) % len(brains)]
            state = checked(state, ask(brain, state, budget=0.03))


def test_the_answer_comes_within_the_budget() -> None:
    brain = SoccerBrain()
    brain.warm_up()  # as the runtime does before any clock runs
    for seed in range(4):
        state = random_position({}, 12 + seed, seed)
        if state.is_terminal:
            continue
        result = ask(brain, state, budget=0.1)
        checked(state, result)
        assert result.info["seconds"] < 0.1
        assert result.info["depth"] >= 1 and result.info["nodes"] >= 1


@pytest.mark.slow
def test_full_strength_beats_random_every_time() -> None:
    brain, random_brain = SoccerBrain(), RandomBrain()
    game = create_game("paper_soccer")
    for number in range(20):
        state = game.new_state()
        bot_side = number % 2
        while not state.is_terminal:
            if state.to_move == bot_side:
                state = checked(state, ask(brain, state, budget=0.03))
            else:
                wire = [game.encode_move(m) for m in state.moves()]
                move = random_brain.think(ThinkRequest("m", "paper_soccer", {}, wire, 1.0, seed=number)).move
                state.play(game.decode_move(move))
        assert state.outcome.winner == bot_side, f"game {number}: {state.outcome}"


def test_warm_up_compiles_both_players() -> None:
    brain = SoccerBrain(3)
    brain.warm_up()
    assert isinstance(np.asarray(ask(brain, create_game("paper_soccer").new_state()).move), np.ndarray)
