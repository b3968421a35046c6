"""The server's log records carry match and player ids as fields; moves are logged at debug only."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from tests.support.wsclient import play_move, start_match

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def named(self, msg: str) -> list[logging.LogRecord]:
        return [r for r in self.records if r.msg == msg]


@pytest.fixture
def records() -> Iterator[Records]:
    """Every record of ``arbiter.server`` (a handler of its own: other tests may stop propagation)."""
    logger = logging.getLogger("arbiter.server")
    handler, level = Records(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


async def test_connects_matches_moves_and_errors_are_logged_with_ids(connect, records) -> None:
    alice, bob = await connect(), await connect()
    match = await start_match(alice, bob)
    wrong = await bob.request("move", match=match, ply=0, move=[1, 1])
    assert wrong["code"] == "not_your_turn"
    for ply, move in enumerate(FIRST_WINS):
        await play_move(alice if ply % 2 == 0 else bob, match, ply, move)
    await alice.expect("end", match=match)
    await alice.request("subscribe")
    await bob.close()
    await alice.expect("player_offline", name=bob.name)  # published right after the disconnect is logged

    connected = {r.player for r in records.named("player connected")}
    assert connected == {alice.name, bob.name}
    (started,) = records.named("match started")
    assert started.match == match and started.players == [alice.name, bob.name] and started.game == "tictactoe"
    moves = records.named("move")
    assert [(r.match, r.ply, r.player, r.levelno) for r in moves] == [
        (match, ply, (alice if ply % 2 == 0 else bob).name, logging.DEBUG) for ply in range(len(FIRST_WINS))
    ]
    (error,) = records.named("error reply: %s")
    assert error.code == "not_your_turn" and error.player == bob.name and error.levelno == logging.DEBUG
    (ended,) = records.named("match ended")
    assert (ended.match, ended.result, ended.reason, ended.ply) == (match, "1-0", "line", 5)
    (left,) = records.named("player disconnected")
    assert left.player == bob.name and left.levelno == logging.INFO
