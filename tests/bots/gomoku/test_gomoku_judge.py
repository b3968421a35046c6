"""src/arbiter/lab/gomoku_judge.py: the engine's evaluations read from its messages, and the script end to end
on a game log the gauntlet wrote, judged by a real pbrain process (our own ``arbiter pbrain`` engine)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from arbiter.lab import gomoku_gauntlet as gauntlet
from arbiter.lab import gomoku_judge as judge

pytestmark = [pytest.mark.process, pytest.mark.timeout(300)]  # the judge is an engine process

ENGINE = [sys.executable, "-m", "arbiter.cli", "pbrain", "gomoku", "--level", "2"]
BOT = "level=3:nodes=300"


def test_an_engines_evaluation_is_read_from_its_last_message_that_gives_one() -> None:
    mate = judge.MATE
    assert judge.engine_value(["Speed 654K | Depth 11-17 | Eval -130 | Node 5893 | Time 9ms", "Bestline H7 I7"]) == -130
    assert judge.engine_value(["Depth 9 | Eval 12", "Depth 12 | Eval +M19 | Node 305K"]) == mate - 19
    assert judge.engine_value(["Eval -M4"]) == -(mate - 4)
    assert judge.engine_value(["depth 4 score 35 nodes 300"]) == 35
    assert judge.engine_value(["depth 4 score 999999990"]) == mate  # a win printed as a huge number
    assert judge.engine_value(["thinking", "pv H7"]) is None


def test_the_script_judges_each_of_our_moves_against_the_first_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "games.jsonl"
    gauntlet.main(["--bot", BOT, "--pairs", "1", "--time", "2", "--seed", "3", "--node-limits", "100",
                   "--game-log", str(log), "--", *ENGINE])  # fmt: skip
    ours = sum(len(json.loads(line)["decisions"]) for line in log.read_text().splitlines())
    capsys.readouterr()
    judge.main(["--log", str(log), "--time", "2", "--nodes", "1000", "--decided", str(judge.MATE), BOT, "level=2",
                "--", *ENGINE])  # fmt: skip
    out = capsys.readouterr().out
    assert f"\n{ours} positions undecided by the engine" in out  # every one: --decided keeps them all
    rows = re.findall(r"^(\S+)\s+(\d+) moves  mean loss\s+([\d.]+)  median\s+\d+  into a forced loss\s+(\d+)  "
                      r"the engine's move\s+(\d+)(.*)$", out, re.M)  # fmt: skip
    assert [row[0] for row in rows] == [BOT, "level=2"]
    assert all(int(row[1]) == ours and int(row[3]) <= ours and int(row[4]) <= ours for row in rows)
    assert rows[0][5] == "" and re.fullmatch(rf"  vs {re.escape(BOT)}: [+-][\d.]+ ± [\d.]+", rows[1][5])


def test_bad_flags_and_files_are_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text('{"moves": [[7, 7]]}\n')  # no decisions: not a gauntlet's game
    for argv in (
        ["--log", str(garbage), BOT, "--", *ENGINE],
        ["--log", str(tmp_path / "none.jsonl"), BOT, "--", *ENGINE],
        ["--log", str(tmp_path / "none.jsonl"), BOT],
        ["--log", __file__, "--nodes", "0", BOT, "--", *ENGINE],
    ):
        with pytest.raises(SystemExit) as refused:
            judge.main(argv)
        assert refused.value.code != 0
    with pytest.raises(SystemExit, match=r"garbage.jsonl:1: not a game of gomoku_gauntlet.py --game-log"):
        judge.main(["--log", str(garbage), BOT, "--", *ENGINE])


def test_a_five_is_judged_without_asking_the_engine() -> None:
    """A move that makes five needs no evaluation (an engine answers a five without one): the side to move after
    it has lost; before it, the game goes on."""
    game = judge.create_game("gomoku")
    five = [[3, 7], [3, 0], [4, 7], [4, 0], [5, 7], [5, 0], [6, 7], [6, 0], [7, 7]]
    assert judge.Judge.outcome(game, five) == -judge.MATE
    assert judge.Judge.outcome(game, five[:-1]) is None
