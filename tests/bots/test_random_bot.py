"""``random`` plays a legal move in every game (whole turns in paper soccer) and the registry lists it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.random_bot import RandomBrain
from arbiter.bots.registry import BOTS, UnknownBot, bot_names, brain_class, games_played
from arbiter.cli import main
from arbiter.engine import create_game, game_names


@pytest.mark.parametrize("game_name", game_names())
def test_random_plays_legal_moves_to_the_end(game_name: str) -> None:
    brain = RandomBrain()
    game = create_game(game_name)
    for number in range(3):
        state = game.new_state()
        while not state.is_terminal:
            wire = [game.encode_move(m) for m in state.moves()]
            answer = brain.think(ThinkRequest("m", game_name, {}, wire, 1.0, seed=number))
            assert answer == brain.think(ThinkRequest("m", game_name, {}, wire, 1.0, seed=number))  # seeded
            state.play(game.decode_move(answer.move))  # raises IllegalMove on anything but a whole legal move
        assert state.outcome is not None


def test_random_varies_with_the_seed() -> None:
    brain = RandomBrain()
    moves = {tuple(brain.think(ThinkRequest("m", "gomoku", {}, [], 1.0, seed=s)).move) for s in range(20)}
    assert len(moves) > 10


def test_the_registry_resolves_and_lists_every_bot() -> None:
    assert {"random", "perfect"} <= set(bot_names())
    for name in BOTS:
        assert brain_class(name).name == name
    assert games_played(brain_class("random")) == game_names()
    assert games_played(brain_class("perfect")) == ["tictactoe", "tictactoe4", "vanishing", "ttt3d"]
    with pytest.raises(UnknownBot, match="known bots"):
        brain_class("nobody")


def test_bot_list_prints_each_bot_with_its_games() -> None:
    result = CliRunner().invoke(main, ["bot", "--list"])
    assert result.exit_code == 0, result.output
    lines = dict(line.split(":", 1) for line in result.output.strip().splitlines())
    assert lines["perfect"].split(",")[0].strip() == "tictactoe"
    assert "paper_soccer" in lines["random"]
