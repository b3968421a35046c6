"""src/arbiter/lab/gomoku_gauntlet.py end to end against a real pbrain process (our own ``arbiter pbrain``
engine at level 2), a few games at fixed seeds: the counts add up, the colours alternate, and the score
is printed with its interval; then the pieces it rests on (balanced openings, the even point)."""

from __future__ import annotations

import asyncio
import json
import math
import re
import sys
from pathlib import Path

import pytest

from arbiter.bots.gomoku.arena import Contender
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.engine import create_game
from arbiter.lab import gomoku_gauntlet as gauntlet
from arbiter.lab import gomoku_strength as strength

pytestmark = [pytest.mark.process, pytest.mark.timeout(300)]  # the opponent is an engine process

ENGINE = [sys.executable, "-m", "arbiter.cli", "pbrain", "gomoku", "--level", "2"]
BOT = "level=3:nodes=300"  # quick, and bounded by nodes rather than the clock
FAULTY = Path(__file__).resolve().parents[1] / "pbrain_engines" / "threat_engine.py"


def test_games_alternate_colours_over_balanced_openings() -> None:
    game = create_game("gomoku")
    openings = strength.balanced_openings(game, 2, seed=5, balance=100, spread=3)
    engine = gauntlet.Engine(ENGINE, game, ["INFO max_memory 0"])
    limits = gauntlet.Limits(bot_seconds=2.0, engine_seconds=2.0, grace=1.0)

    async def run() -> object:
        try:
            return await gauntlet.run_gauntlet(game, Contender("bot", GomokuBrain(3, nodes=300), 2.0), engine,
                                               openings, limits, seed=5)  # fmt: skip
        finally:
            await engine.close()

    tally = asyncio.run(run())
    assert [record.bot_first for record in tally.games] == [True, False, True, False]
    assert sum(tally.count()) == 4 == sum(tally.count(True)) + sum(tally.count(False))
    assert all(record.ending == "five" and record.plies > 3 for record in tally.games)
    assert engine.spawned == 1  # one engine, RESTARTed between games
    line = gauntlet.report("x", tally)
    assert re.search(r" 4 games  W\d+\s+D\d+\s+L\d+\s+score .*\[95% \d+\.\d%-\d+\.\d%\]", line)
    assert tally.bot_depths and tally.engine_depths and min(tally.engine_depths) >= 1
    assert re.search(r"median depth bot \d+(\.5)?, engine \d+(\.5)?\)$", line)


@pytest.mark.parametrize(
    ("fault", "ending"),
    [
        ("--hang-at", "timeout"),
        ("--crash-at", "crash"),
        ("--occupied-at", "illegal_move"),
        ("--garbage-at", "protocol_error"),
    ],
)
def test_an_engine_that_fails_forfeits_and_is_replaced(fault: str, ending: str) -> None:
    game = create_game("gomoku")
    engine = gauntlet.Engine([sys.executable, str(FAULTY), fault, "2"], game, [])
    limits = gauntlet.Limits(bot_seconds=2.0, engine_seconds=0.2, grace=0.3)
    openings = strength.balanced_openings(game, 1, seed=5, balance=100, spread=3)

    async def run() -> object:
        try:
            bot = Contender("bot", GomokuBrain(3, nodes=300), 2.0)
            return await gauntlet.run_gauntlet(game, bot, engine, openings, limits, seed=5)
        finally:
            await engine.close()

    tally = asyncio.run(run())
    assert [(record.result, record.ending) for record in tally.games] == [(1.0, ending)] * 2
    assert f"engine {2 if ending == 'timeout' else 0}" in gauntlet.report("x", tally)
    assert engine.spawned == (2 if ending in ("timeout", "crash") else 1)  # a dead engine is replaced


def test_the_script_prints_the_score_its_interval_and_the_even_point(capsys: pytest.CaptureFixture[str]) -> None:
    gauntlet.main(
        ["--bot", BOT, "--pairs", "1", "--time", "2", "--seed", "3", "--node-limits", "100,1000", "--", *ENGINE]
    )
    out = capsys.readouterr().out
    rows = re.findall(r"^([\d,]+) nodes\s+(\d+) games\s+W(\d+)\s+D(\d+)\s+L(\d+)\s+score\s+([\d.]+)% \[95% ", out, re.M)
    assert [row[0] for row in rows] == ["100", "1,000"]
    for _, games, wins, draws, losses, _ in rows:
        assert int(games) == 2 == int(wins) + int(draws) + int(losses)
    assert len(re.findall(r"\(first W/D/L \d+/\d+/\d+, second \d+/\d+/\d+;", out)) == 2
    assert re.search(r"^even (at about [\d,]+ nodes a move|: not within 100-1,000 nodes)", out, re.M)
    assert "losses on time: bot 0, engine 0" in out


def test_the_script_plays_the_openings_of_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = create_game("gomoku")
    saved = tmp_path / "openings.json"
    strength.save_openings(saved, game, [[(7, 7), (3, 4), (9, 10)], [(6, 6), (8, 8), (7, 9)]], {"by": "hand"})
    log = tmp_path / "games.jsonl"
    gauntlet.main(["--bot", BOT, "--pairs", "1", "--skip", "1", "--time", "2", "--node-limits", "100",
                   "--openings", str(saved), "--game-log", str(log), "--", *ENGINE])  # fmt: skip
    out = capsys.readouterr().out
    assert f"1 openings {saved} " in out and re.search(r"^100 nodes\s+2 games", out, re.M)
    # The log replays: each game from the file's second opening (its index kept), ours at the plies of
    # our colour, to its end.
    games = [json.loads(line) for line in log.read_text().splitlines()]
    assert [entry["bot_first"] for entry in games] == [True, False]
    for entry in games:
        assert entry["moves"][:3] == [[6, 6], [8, 8], [7, 9]] and entry["opening"] == 1
        assert entry["engine_nodes"] == 100
        state = game.new_state()
        for move in entry["moves"]:
            state.play(game.decode_move(move))
        assert state.is_terminal and entry["ending"] == "five"
        ours = range(4 if entry["bot_first"] else 3, len(entry["moves"]), 2)
        assert sorted(int(ply) for ply in entry["decisions"]) == list(ours)
        assert entry["result"] == (1.0 if len(entry["moves"]) - 1 in ours else 0.0)
        assert all({"score", "depth", "nodes", "reason"} <= set(info) for info in entry["decisions"].values())
    with pytest.raises(SystemExit) as refused:
        gauntlet.main(["--openings", str(saved), "--save-openings", str(tmp_path / "new.json"), "--", *ENGINE])
    assert refused.value.code == 2


def test_balanced_openings_are_reproducible_distinct_and_within_the_margin() -> None:
    game = create_game("gomoku")
    first = strength.balanced_openings(game, 4, seed=7, balance=100, spread=3)  # the gauntlet's defaults
    assert first == strength.balanced_openings(game, 4, seed=7, balance=100, spread=3)
    assert len({tuple(opening) for opening in first}) == 4 and all(len(opening) == 3 for opening in first)
    with pytest.raises(SystemExit, match="widen --balance"):
        strength.balanced_openings(game, 1, seed=7, balance=-1)


def test_the_even_point_is_read_off_the_curve_in_log_nodes() -> None:
    assert gauntlet.even_nodes([(1000, 0.7), (10_000, 0.3)]) == pytest.approx(math.sqrt(1000 * 10_000))
    assert gauntlet.even_nodes([(10_000, 0.4), (1000, 0.6), (3000, 0.5)]) == 3000
    assert gauntlet.even_nodes([(1000, 0.8), (3000, 0.6)]) is None
    assert gauntlet.even_nodes([(1000, 0.6), (3000, 0.4), (10_000, 0.6)]) == pytest.approx(math.sqrt(3000 * 1000))


def test_the_nodes_an_engine_reports_are_read_from_its_messages() -> None:
    assert gauntlet.reported_nodes(["Speed 648K | Depth 16-32 | Eval -101 | Node 305K | Time 472ms"]) == 305_000
    assert gauntlet.reported_nodes(["depth 4 nodes 223 score 10", "Bestline G8 H10"]) == 223
    assert gauntlet.reported_nodes(["nodes=1.5M"]) == 1_500_000
    assert gauntlet.reported_nodes(["Bestline G8 H10"]) is None


def test_the_depth_an_engine_reports_is_read_from_its_messages() -> None:
    assert gauntlet.reported_depth(["Speed 648K | Depth 16-32 | Eval -101 | Node 305K | Time 472ms"]) == 16
    assert gauntlet.reported_depth(["depth 4 nodes 223 score 10", "Bestline G8 H10"]) == 4
    assert gauntlet.reported_depth(["depth=7", "nodes 12"]) == 7
    assert gauntlet.reported_depth(["Bestline G8 H10", "Node 305K"]) is None
