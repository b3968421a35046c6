"""``arbiter pbrain``: any Arbiter brain as a Gomocup engine. The protocol state machine line by line,
then real ``arbiter pbrain`` processes driven by a harness that speaks the protocol as a Gomocup
manager does (START, INFO, BEGIN / TURN, BOARD…DONE, END), every answer checked by the engine."""

from __future__ import annotations

import asyncio
import random
import sys

import pytest

from arbiter.bots.pbrain.engine import PbrainEngine
from arbiter.bots.perfect import PerfectBrain
from arbiter.bots.random_bot import RandomBrain
from arbiter.engine import State, create_game
from arbiter.engine.gomocup import info_rule

pytestmark = pytest.mark.timeout(300)


def answers(engine: PbrainEngine, *lines: str) -> list[str]:
    return [out for line in lines for out in engine.handle(line)]


def test_the_conversation_and_its_errors() -> None:
    engine = PbrainEngine(PerfectBrain(), name="arbiter-perfect")
    assert answers(engine, "BEGIN") == ["ERROR START first"]
    assert answers(engine, "ABOUT")[0].startswith('name="arbiter-perfect", version=')
    assert answers(engine, "START 15") == ["ERROR perfect does not play 15x15 (mnk)"]
    assert answers(engine, "START x")[0].startswith("ERROR START takes a board size")
    assert answers(engine, "START 3", "", "info timeout_turn 500") == ["OK"]
    first = answers(engine, "BEGIN")
    assert first == ["1,1"] or first[-1] == "1,1"  # the centre: perfect's best opening on 3x3
    assert answers(engine, "TURN 1,1")[0].startswith("ERROR move 1,1")  # occupied: nothing changes
    reply = answers(engine, "TURN 0,0")
    assert reply[-1].count(",") == 1 and "ERROR" not in reply[-1]
    assert answers(engine, "FOO 1") == ["UNKNOWN FOO is not a command of this engine"]
    assert answers(engine, "INFO rule 12") == [  # renju and caro at once: no rule
        "ERROR INFO rule 12 is none of 0, 1, 4, 8, 9 (with 2 for a continuous game); the rule stays 0"
    ]
    assert answers(engine, "RECTSTART 3,4")[0].startswith("ERROR unsupported board 3x4")
    assert answers(engine, "RESTART") == ["OK"]
    # A whole position: two stones each, ours at the top; it is our move, and we complete the row.
    assert answers(engine, "BOARD", "0,0,1", "1,0,1", "0,1,2", "1,1,2", "DONE")[-1] == "2,0"
    assert answers(engine, "BOARD", "0,0,1", "1,0,1", "0,1,2", "DONE")[-1].startswith("ERROR a position with 2")
    assert answers(engine, "BOARD", "0,0", "DONE")[0].startswith("ERROR a BOARD line is x,y,who")
    assert not engine.finished and answers(engine, "END") == [] and engine.finished


def test_exact_five_follows_info_rule_even_after_start() -> None:
    engine = PbrainEngine(RandomBrain(), name="r")
    assert answers(engine, "START 10", "INFO rule 1") == ["OK"]
    answers(engine, "BEGIN")
    assert engine.game is not None
    assert engine.game.params == {"m": 10, "n": 10, "k": 5, "exact": True, "opening": "none"}


@pytest.mark.parametrize(
    ("rule", "params"),
    [(4, {"rule": "renju", "exact": False}), (8, {"rule": "caro", "exact": False}),
     (9, {"rule": "caro", "exact": True}), (6, {"rule": "renju", "exact": False})],  # 2: a continuous game, ignored
)  # fmt: skip
def test_renju_and_caro_follow_info_rule(rule: int, params: dict) -> None:
    engine = PbrainEngine(RandomBrain(), name="r")
    assert answers(engine, "START 15", f"INFO rule {rule}") == ["OK"]
    answers(engine, "BEGIN")
    assert engine.game is not None and engine.game.family == "five"
    assert engine.game.params == {"m": 15, "n": 15, **params, "opening": "none"}


def test_a_brain_that_does_not_play_a_rule_refuses_it_and_keeps_its_rule() -> None:
    engine = PbrainEngine(PerfectBrain(), name="arbiter-perfect")  # tic-tac-toe only
    assert answers(engine, "INFO rule 4") == ["ERROR perfect does not play Renju; the rule stays 0"]
    assert answers(engine, "START 3", "INFO rule 4") == ["OK"]  # no rule of five on a tic-tac-toe board


class Engine:
    """An ``arbiter pbrain`` process, spoken to as a Gomocup manager speaks to a brain."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.messages: list[str] = []

    @classmethod
    async def start(cls, bot: str, *flags: str) -> Engine:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "arbiter.cli", "pbrain", bot, *flags,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        return cls(process)

    async def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("".join(f"{line}\r\n" for line in lines).encode())  # managers end lines CR LF
        await self.process.stdin.drain()

    async def answer(self, timeout: float = 120) -> str:
        """The next answer line; MESSAGE and DEBUG lines are kept apart, as a manager logs them."""
        assert self.process.stdout is not None
        async with asyncio.timeout(timeout):
            while True:
                line = (await self.process.stdout.readline()).decode().strip()
                assert line, "the engine exited"
                if line.startswith(("MESSAGE", "DEBUG")):
                    self.messages.append(line)
                    continue
                return line

    async def end(self) -> int:
        await self.send("END")
        async with asyncio.timeout(30):
            return await self.process.wait()


def cell(answer: str) -> list[int]:
    x, y = answer.split(",")
    return [int(x), int(y)]


async def play(engines: list[Engine | None], game_name: str, size: int, rng: random.Random, *,
               resume_at: int | None = None) -> State:  # fmt: skip
    """A whole game between two engines (None: the harness plays random legal moves itself)."""
    game = create_game(game_name)
    state = game.new_state()
    for engine in engines:
        if engine is not None:
            await engine.send(f"START {size}", "INFO timeout_turn 300", "INFO timeout_match 0",
                              f"INFO rule {info_rule(game) or 0}")  # fmt: skip
            assert await engine.answer() == "OK"
    last: list[int] | None = None
    while not state.is_terminal:
        engine = engines[state.to_move]
        if engine is None:
            move = game.encode_move(game.decode_move(_random_cell(state, rng)))
        elif resume_at is not None and state.ply == resume_at:  # the manager resends the whole position
            await engine.send("RESTART")
            assert await engine.answer() == "OK"
            lines = [f"{x},{y},{1 if i % 2 == state.ply % 2 else 2}" for i, (x, y) in enumerate(state.moves())]
            await engine.send("BOARD", *lines, "DONE")
            move = cell(await engine.answer())
        elif last is None:
            await engine.send("BEGIN")
            move = cell(await engine.answer())
        else:
            await engine.send(f"TURN {last[0]},{last[1]}")
            move = cell(await engine.answer())
        state.play(game.decode_move(move))  # an illegal answer fails the test here
        last = move
    return state


def _random_cell(state: State, rng: random.Random) -> list[int]:
    action = int(rng.choice(list(state.legal_actions())))
    probe = state.copy()
    probe.play_action(action)
    return state.game.encode_move(probe.moves()[-1])


async def test_arbiter_pbrain_gomoku_plays_a_whole_game_and_a_board_resume_for_a_manager() -> None:
    engine = await Engine.start("gomoku")
    try:
        await engine.send("ABOUT")
        assert (await engine.answer()).startswith('name="arbiter-gomoku"')
        state = await play([engine, None], "gomoku", 15, random.Random(3), resume_at=6)
        assert state.outcome is not None and state.outcome.winner == 0  # gomoku beats random
        assert any(m.startswith("MESSAGE depth") for m in engine.messages)  # its analysis, as managers log it
        state = await play([None, engine], "gomoku", 15, random.Random(4))
        assert state.outcome is not None and state.outcome.winner == 1
        assert await engine.end() == 0
    finally:
        if engine.process.returncode is None:
            engine.process.kill()


@pytest.mark.parametrize(
    ("bots", "game", "size", "expected"),
    [(("gomoku", "random"), "gomoku", 15, 0), (("perfect", "perfect"), "tictactoe", 3, None),
     (("random", "random"), "renju", 15, None), (("random", "random"), "caro", 15, None)],
)  # fmt: skip
async def test_two_brains_play_each_other_through_two_pbrain_processes(bots, game, size, expected) -> None:  # fmt: skip
    engines = [await Engine.start(bot) for bot in bots]
    try:
        state = await play(list(engines), game, size, random.Random(5))  # every answer legal: no forbidden point
        assert state.outcome is not None and (expected is None or state.outcome.winner == expected)
        assert [await engine.end() for engine in engines] == [0, 0]
    finally:
        for engine in engines:
            if engine.process.returncode is None:
                engine.process.kill()


def _stones(answer: str) -> list[str]:
    return answer.split()


@pytest.mark.parametrize("rule", [0, 4])
def test_swap2board_proposes_chooses_and_refuses_bad_positions(rule: int) -> None:
    from arbiter.bots.gomoku.brain import GomokuBrain

    engine = PbrainEngine(GomokuBrain(level=3), name="g")
    assert answers(engine, "START 15", "INFO timeout_turn 400", f"INFO rule {rule}") == ["OK"]
    game = create_game("renju" if rule == 4 else "gomoku")
    proposal = _stones(answers(engine, "SWAP2BOARD", "DONE")[-1])  # three stones on an empty board
    assert len(proposal) == 3
    state = game.new_state()
    for stone in proposal:
        state.play(game.decode_move(cell(stone)))  # legal, all three
    choice = answers(engine, "SWAP2BOARD", *proposal, "DONE")[-1]
    assert choice == "SWAP" or len(_stones(choice)) in (1, 2)
    for stone in [] if choice == "SWAP" else _stones(choice):
        state.play(game.decode_move(cell(stone)))
    if choice != "SWAP" and len(_stones(choice)) == 1:  # it stays white: the game goes on with TURN
        assert engine.state is not None and engine.state.ply == 4
        reply = answers(engine, "TURN 0,0")[-1]
        state.play(game.decode_move([0, 0]))
        state.play(game.decode_move(cell(reply)))
    # Five stones, as BOARD writes them (x,y,who) or Gomocup's x,y: SWAP or white's sixth stone.
    five = ["7,7,2", "8,7,1", "9,9,2", "8,8,1", "8,6,2"]
    for lines in (five, [line.rsplit(",", 1)[0] for line in five]):
        choice = answers(engine, "SWAP2BOARD", *lines, "DONE")[-1]
        assert choice == "SWAP" or (len(_stones(choice)) == 1 and cell(choice) not in ([7, 7], [8, 7], [9, 9]))
    assert answers(engine, "SWAP2BOARD", "7,7", "DONE") == ["ERROR SWAP2BOARD decides at 0, 3 or 5 stones, not 1"]
    assert answers(engine, "SWAP2BOARD", "7,7", "7,7", "8,8", "DONE")[0].startswith("ERROR the stones are not")
    assert answers(engine, "SWAP2BOARD", "7,7,x")[0].startswith("ERROR a SWAP2BOARD line is x,y or x,y,who")


async def test_arbiter_pbrain_answers_swap2board_over_its_pipes() -> None:
    """A manager's swap2 opening with a real ``arbiter pbrain gomoku``: three stones, then a choice on them."""
    engine = await Engine.start("gomoku", "--level", "3")
    try:
        await engine.send("START 15", "INFO timeout_turn 500", "INFO rule 4", "SWAP2BOARD", "DONE")
        assert await engine.answer() == "OK"
        proposal = (await engine.answer()).split()
        assert len(proposal) == 3 and all(len(cell(stone)) == 2 for stone in proposal)
        await engine.send("SWAP2BOARD", *proposal, "DONE")
        choice = await engine.answer()
        assert choice == "SWAP" or len(choice.split()) in (1, 2)
        assert await engine.end() == 0
    finally:
        if engine.process.returncode is None:
            engine.process.kill()
