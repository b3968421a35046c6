"""``arbiter bridge stdio --replay FILE -- PROGRAM``: one failed turn fed to the program again, on this machine.

FILE is what a failure left behind: the turn line the bridge sent (its game log keeps it in the
failed decision's ``request``, or the whole game-log record), or the request file a player page
offers for each failure (``/request.json``), which the server rebuilds from the game record: the
moves before the failing ply and both clocks as the bot's last message gave them. From that file
the turn line is built as the bridge builds it, its budget and deadline from the same time manager
(with no network latency). The program is started, says its handshake, gets the line, and what it
answered is printed with the verdict: legal and in time, or the failure's cause.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from arbiter.engine import EngineError

from ..brain import ThinkRequest
from ..client.deciding import GiveUp
from ..timeman import TimeManager, moves_left
from .base import ANSWER_MARGIN
from .stdio import StdioProcess, check_answer, position_of, turn_line

REQUEST_FILE_VERSION = 1  # the server's /request.json: {"arbiter_request": 1, …}


class ReplayError(ValueError):
    """A file that holds no turn to replay; the message says what it should hold."""


def turn_of(data: Any) -> dict[str, Any]:
    """The turn line to send, from a replay file's contents (see the module docstring)."""
    if isinstance(data, dict) and isinstance(data.get("decisions"), list):  # a game-log record
        requests = [d["request"] for d in data["decisions"] if isinstance(d, dict) and "request" in d]
        if not requests:
            raise ReplayError("this game-log record has no failed turn (no decision with a request)")
        data = requests[-1]
    if isinstance(data, dict) and data.get("type") == "turn":
        for key in ("game", "params", "moves", "deadline_ms"):
            if key not in data:
                raise ReplayError(f"the turn line has no {key!r}")
        return data
    if isinstance(data, dict) and data.get("arbiter_request") == REQUEST_FILE_VERSION:
        return _rebuilt_turn(data)
    raise ReplayError('expected a turn line {"type": "turn", …}, a bridge game-log record, '
                      'or a request file {"arbiter_request": 1, …} from a player page')  # fmt: skip


def _rebuilt_turn(data: dict[str, Any]) -> dict[str, Any]:
    try:
        game, params, moves, color = data["game"], data["params"], data["moves"], data["color"]
        clock, clocks = data["clock"], data["clocks"]
        state = position_of(game, params, moves)
    except (KeyError, TypeError) as error:
        raise ReplayError(f"the request file lacks {error}") from None
    except EngineError as error:
        raise ReplayError(f"the request file's moves are not a game of {data.get('game')}: {error}") from None
    plan = TimeManager().plan(
        remaining_ms=clocks[color],
        increment_ms=clock.get("increment_ms") or 0,
        move_limit_ms=clock.get("move_limit_ms"),
        latency=0.0,
        moves_left=moves_left(state),
    )
    request = ThinkRequest(
        data.get("match", "replay"),
        game,
        params,
        moves,
        plan.budget,
        clock={
            "remaining_ms": clocks[color],
            "opponent_ms": clocks[1 - color],
            "initial_ms": clock.get("initial_ms") or 0,
            "increment_ms": clock.get("increment_ms") or 0,
            **({"move_limit_ms": clock["move_limit_ms"]} if clock.get("move_limit_ms") else {}),
        },
    )
    return turn_line(request, state, max(0, round((plan.deadline - ANSWER_MARGIN) * 1000)))


async def replay(argv: Sequence[str], turn: dict[str, Any], say: Callable[[str], None]) -> bool:
    """Feed ``turn`` to a fresh process of ``argv``; True if it answered a legal move in time."""
    try:
        state = position_of(turn["game"], turn["params"], turn["moves"])
    except EngineError as error:
        raise ReplayError(f"the turn's moves are not a game of {turn['game']}: {error}") from None
    say(f"sent:    {json.dumps(turn, separators=(',', ':'))}")
    process: StdioProcess | None = None
    try:
        process = await StdioProcess.start(argv)
        began = time.monotonic()
        line = await process.ask(turn, began + turn["deadline_ms"] / 1000)
        say(f"answer:  {line}  ({(time.monotonic() - began) * 1000:.1f} ms of {turn['deadline_ms']} ms)")
        check_answer(line, state, process.name)
    except GiveUp as error:
        say(f"verdict: {error}")
        return False
    finally:
        if process is not None:
            await process.close()
    say("verdict: legal, in time")
    return True
