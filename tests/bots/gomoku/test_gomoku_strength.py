"""Strength on small samples (the long series are src/arbiter/lab/gomoku_strength.py): short but able to fail.

Each series plays every opening twice with the colours swapped, through Brain.think as the bot
runtime calls it; node budgets keep the results independent of the machine's load.
"""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from arbiter.bots.brain import ThinkRequest, ThinkResult
from arbiter.bots.gomoku.arena import Contender, Tally, random_opening, scattered_opening, series
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.random_bot import RandomBrain
from arbiter.engine import create_game
from arbiter.lab import gomoku_strength as strength

FULL = {"nodes": 20_000}  # full strength, bounded by nodes rather than the clock


def test_openings_are_three_touching_stones_and_reproducible() -> None:
    game = create_game("gomoku")
    first = random_opening(game, 3, random.Random(4))
    assert first == random_opening(game, 3, random.Random(4))
    assert len(first) == 3 and abs(first[0][0] - 7) <= 1 and abs(first[0][1] - 7) <= 1
    for i, (x, y) in enumerate(first[1:], start=1):
        assert any(max(abs(x - a), abs(y - b)) == 1 for a, b in first[:i])


@pytest.mark.slow
@pytest.mark.parametrize("game", ["gomoku", "gomoku10"])
def test_beats_random_every_game(game: str) -> None:
    tally = series(game, Contender("full", GomokuBrain(**FULL)), Contender("random", RandomBrain()), 3, seed=2)
    assert tally.wins == tally.games == 6


@pytest.mark.slow
@pytest.mark.parametrize(("game", "pairs"), [("gomoku", 10), ("gomoku10", 5)])
def test_beats_the_sources_player(game: str, pairs: int) -> None:
    tally = series(game, Contender("full", GomokuBrain(**FULL)), Contender("level 1", GomokuBrain(1)), pairs, seed=3)
    assert tally.wins >= tally.games - 1


@pytest.mark.slow
@pytest.mark.parametrize("level", [2, 3])
def test_each_level_below_full_strength_beats_the_one_below(level: int) -> None:
    tally = series(
        "gomoku", Contender("upper", GomokuBrain(level)), Contender("lower", GomokuBrain(level - 1)), 8, seed=level
    )
    assert tally.score >= 0.7


class OpeningsSeen(RandomBrain):
    """A random player that notes the stones on the board at its first move of each game."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[list[list[int]]] = []

    def think(self, request: ThinkRequest) -> ThinkResult:
        if len(request.moves) <= 4:
            self.seen.append(request.moves[:3])
        return super().think(request)


def test_a_series_plays_the_openings_it_is_given_each_with_both_colours() -> None:
    game = create_game("gomoku")
    openings = [[(7, 7), (8, 8), (6, 6)], [(7, 7), (7, 8), (8, 7)]]
    a, b = OpeningsSeen(), OpeningsSeen()
    tally = series(game, Contender("a", a), Contender("b", b), 2, seed=1, openings=openings)
    assert tally.games == 4
    expected = [[list(game.encode_move(move)) for move in opening] for opening in openings for _ in "ab"]
    assert [list(map(list, stones)) for stones in a.seen] == expected  # a is to move first in each game
    with pytest.raises(ValueError, match="3 pairs asked for, 2 openings given"):
        series(game, Contender("a", a), Contender("b", b), 3, openings=openings)


def test_scattered_openings_lie_within_their_spread_and_are_reproducible() -> None:
    game = create_game("gomoku")
    for seed in range(20):
        opening = scattered_opening(game, 3, 3, random.Random(seed))
        assert opening == scattered_opening(game, 3, 3, random.Random(seed))
        assert len(set(opening)) == 3 and all(abs(x - 7) <= 3 and abs(y - 7) <= 3 for x, y in opening)
    assert len({tuple(scattered_opening(game, 3, 3, random.Random(seed))) for seed in range(20)}) == 20


@pytest.mark.parametrize(("spread", "balance"), [(0, 400), (3, 100)])  # touching stones are never within 100
def test_the_strength_script_plays_balanced_openings_on_request(spread: int, balance: int) -> None:
    game = create_game("gomoku")
    openings = strength.balanced_openings(game, 2, seed=5, balance=balance, spread=spread)
    for opening in openings:
        near = max(max(abs(x - 7), abs(y - 7)) for x, y in opening)
        assert (
            near <= 3
            if spread
            else all(  # touching: each stone beside an earlier one
                any(max(abs(x - a), abs(y - b)) == 1 for a, b in opening[:i]) for i, (x, y) in enumerate(opening) if i
            )
        )
    tally = series(game, Contender("a", RandomBrain()), Contender("b", RandomBrain()), 2, seed=5, openings=openings)
    assert tally.games == 4
    assert openings == strength.balanced_openings(game, 2, seed=5, balance=balance, spread=spread)  # seeded


@pytest.mark.parametrize("flags", [["--spread", "3"], ["--balance", "100", "--spread", "-1"]])
def test_the_strength_script_refuses_a_spread_it_cannot_use(flags: list[str]) -> None:
    command = [sys.executable, "-m", "arbiter.lab.gomoku_strength", *flags, "random", "random"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "--spread takes a distance of 0 or more" in result.stderr


def test_openings_saved_to_a_file_are_played_again_and_bad_files_are_refused(tmp_path) -> None:
    game = create_game("gomoku")
    saved = tmp_path / "openings.json"
    script = [sys.executable, "-m", "arbiter.lab.gomoku_strength", "--pairs", "1", "--seed", "5"]
    judged = subprocess.run([*script, "--balance", "100", "--spread", "3", "--save-openings", str(saved),
                             "random", "random"], capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    assert " 2 games " in judged.stdout
    openings = strength.balanced_openings(game, 1, seed=5, balance=100, spread=3)
    assert strength.load_openings(saved, game, 1) == openings  # a later version reads the same stones
    replayed = subprocess.run([*script, "--openings", str(saved), "random", "random"],
                              capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    assert " 2 games " in replayed.stdout
    with pytest.raises(SystemExit, match="fewer than the 2 pairs"):
        strength.load_openings(saved, game, 2)
    with pytest.raises(SystemExit, match="not of 'gomoku10'"):
        strength.load_openings(saved, create_game("gomoku10"), 1)
    # --skip N: the openings after the file's first N, or a refusal when too few are left.
    three = [[(7, 7), (3, 4), (9, 10)], [(6, 6), (8, 8), (7, 9)], [(5, 5), (9, 9), (7, 10)]]
    strength.save_openings(saved, game, three, {})
    assert strength.load_openings(saved, game, 2, skip=1) == three[1:]
    with pytest.raises(SystemExit, match="fewer than the 2 pairs asked after the 2 skipped"):
        strength.load_openings(saved, game, 2, skip=2)
    strength.save_openings(saved, game, [[(7, 7), (7, 7), (8, 8)]], {})
    with pytest.raises(SystemExit, match="opening 1 is not legal"):
        strength.load_openings(saved, game, 1)
    saved.write_text("[1, 2]")
    with pytest.raises(SystemExit, match="not an openings file"):
        strength.load_openings(saved, game, 1)
    for flags, said in (
        (["--openings", str(saved), "--balance", "100"], "--openings plays a file's openings"),
        (["--save-openings", str(saved)], "--save-openings keeps judged openings"),
        (["--openings", str(saved), "--save-openings", str(saved)], "give one of them"),
        (["--openings", str(saved), "--skip", "-1"], "--skip takes a count of 0 or more"),
        (["--skip", "1"], "--skip passes over a file's openings"),
        (["--jobs", "0"], "--jobs takes a count of 1 or more"),
        (["--centre", "-240"], "--centre moves the window of judged openings"),
        (["--openings", str(saved), "--centre", "-240"], "--centre moves the window of judged openings"),
    ):
        refused = subprocess.run([*script, *flags, "random", "random"], capture_output=True, text=True, timeout=120)
        assert refused.returncode == 2 and said in refused.stderr, refused.stderr


def test_openings_judged_around_a_centre_score_lie_within_the_balance_of_it() -> None:
    """The judge underrates the move itself, so --centre moves the window the openings are kept in."""
    game = create_game("gomoku")
    for centre in (-240, -480):
        (opening,) = strength.balanced_openings(game, 1, seed=6, balance=60, spread=3, centre=centre)
        assert abs(strength.judge_score(game, opening) - centre) <= 60


def test_another_checkouts_bot_is_warm_when_warm_up_returns_and_then_plays() -> None:
    """The gauntlet warms its player before the first clock: a child bot must have warmed by then, or
    its start-up is timed as its first move (the first game lost on time in X40, X41, X46)."""
    child = strength.ChildBrain(sys.executable, 3, {"nodes": 500})
    try:
        assert child.warm_seconds is None
        child.warm_up()
        assert child.warm_seconds is not None and child.warm_seconds > 0  # read from the child's ready line
        child.warm_up()  # once only: a second call must not wait for another line
        game = create_game("gomoku")
        opening = [list(game.encode_move(move)) for move in [(7, 7), (8, 8), (6, 6)]]
        move = child.think(ThinkRequest("m", game.name, dict(game.params), opening, budget=5.0)).move
        state = game.new_state()
        for stone in opening:
            state.play(game.decode_move(stone))
        assert game.decode_move(move) in state.legal_moves()
    finally:
        child.child.kill()
        child.child.wait()


@pytest.mark.parametrize(("by_hand", "seen"), [(False, "unset|unset"), (True, "/by-hand|/keyed")])
def test_a_child_bot_keys_its_own_numba_cache_unless_one_was_set_by_hand(tmp_path, monkeypatch, by_hand, seen) -> None:
    """The child runs another checkout: in the folder keyed for this one's sources it could load kernels cached
    there for other sources at its paths (docs/lab/strength-2026-11-29.md, stop 51). A stand-in interpreter
    reports what it got."""
    report = tmp_path / "env"
    python = tmp_path / "python"
    python.write_text(
        "#!/bin/sh\n"
        f'printf "%s|%s" "${{NUMBA_CACHE_DIR-unset}}" "${{ARBITER_NUMBA_KEYED-unset}}" > {report}\n'
        "echo '{\"warm_seconds\": 0.1}'\n"
    )
    python.chmod(0o755)
    monkeypatch.setenv("NUMBA_CACHE_DIR", "/by-hand" if by_hand else "/keyed")
    monkeypatch.setenv("ARBITER_NUMBA_KEYED", "/keyed")
    child = strength.ChildBrain(str(python), 3, {})
    child.warm_up()
    child.child.wait()
    assert report.read_text() == seen


def test_a_child_bot_that_cannot_start_is_refused_with_a_message() -> None:
    child = strength.ChildBrain(sys.executable, 9, {})  # no level 9: the child stops at once
    try:
        with pytest.raises(SystemExit, match="ended before it was ready"):
            child.warm_up()
    finally:
        child.child.wait()


def test_a_series_split_into_jobs_plays_the_games_its_parts_would_play_in_turn() -> None:
    """--jobs deals consecutive pairs to processes: with node-bound players the merged tally is the
    parts' tallies, game for game, and one job plays the openings series itself would draw."""
    a, b, budget, seed = "level=4:nodes=800", "level=3:nodes=800", 30.0, 7
    fields = ("wins", "draws", "losses", "wins_as_first", "wins_as_second", "lengths")
    whole = strength.play_series("gomoku10", a, b, 3, budget, seed, None, jobs=1)
    game = create_game("gomoku10")
    drawn = series(game, strength.make_player(a, budget), strength.make_player(b, budget), 3, seed=seed)
    assert [getattr(whole, name) for name in fields] == [getattr(drawn, name) for name in fields]

    rng = random.Random(seed)
    openings = [random_opening(game, 3, rng) for _ in range(3)]
    split = strength.play_series("gomoku10", a, b, 3, budget, seed, None, jobs=2)
    parts = [strength.play_part("gomoku10", a, b, budget, seed, openings[lo:hi], lo) for lo, hi in ((0, 2), (2, 3))]
    in_turn = Tally.merged(parts)
    assert split.games == 6 and len(split.think_seconds) == len(in_turn.think_seconds)
    assert [getattr(split, name) for name in fields] == [getattr(in_turn, name) for name in fields]
