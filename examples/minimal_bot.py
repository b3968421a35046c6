"""A complete Arbiter bot in one file, using nothing of Arbiter: only `websockets` and `msgpack`.

    python examples/minimal_bot.py ws://127.0.0.1:8765/ TOKEN

It logs in with a bot account's token (`arbiter player add mybot --kind bot`), joins the
tic-tac-toe ladder, accepts every tic-tac-toe challenge, and on its turn plays the first empty cell.
Everything it does is in protocol/arbiter/protocol/SPEC.md: this is the shape of a client in any language.
"""

from __future__ import annotations

import asyncio
import itertools
import sys

import msgpack
from websockets.asyncio.client import connect

GAME = "tictactoe"


async def play(url: str, token: str, *, games: int | None = None) -> None:
    """Play until the connection closes (or until ``games`` matches have ended)."""
    ids = itertools.count(1)
    boards: dict[str, dict] = {}  # match id -> {"color", "size", "taken"}
    ended = 0
    async with connect(url, compression=None) as ws:

        async def send(message: dict) -> None:
            await ws.send(msgpack.packb({**message, "id": next(ids)}))

        async def move_if_our_turn(match: str, ply: int) -> None:
            board = boards[match]
            if ply % 2 != board["color"]:
                return
            columns, rows = board["size"]
            cell = next(([x, y] for y in range(rows) for x in range(columns) if (x, y) not in board["taken"]), None)
            if cell is None:  # a full board: the game is over, its `end` is on the way
                return
            await send({"type": "move", "match": match, "ply": ply, "move": cell})

        await send({"type": "hello", "protocol": 1, "client": "minimal_bot/1", "token": token, "games": [GAME]})
        await send({"type": "ladder_join", "game": GAME})
        async for frame in ws:
            message = msgpack.unpackb(frame)
            kind = message["type"]
            if kind == "error":
                print(f"error {message['code']}: {message['message']}", file=sys.stderr)
            elif kind == "challenge_offered":
                challenge = message["challenge"]
                if challenge["game"] == GAME:
                    await send({"type": "accept", "challenge": challenge["id"]})
                else:
                    await send({"type": "decline", "challenge": challenge["id"]})
            elif kind in ("match_start", "match_state"):  # a new match, or one resumed after a reconnect
                params = message["params"]
                taken = {tuple(move) for move in message.get("moves", [])}
                boards[message["match"]] = {
                    "color": message["color"],
                    "size": (params["m"], params["n"]),
                    "taken": taken,
                }
                await move_if_our_turn(message["match"], len(taken))
            elif kind == "moved" and message["match"] in boards:
                boards[message["match"]]["taken"].add(tuple(message["move"]))
                await move_if_our_turn(message["match"], message["ply"] + 1)
            elif kind == "end" and boards.pop(message["match"], None) is not None:
                print(f"{message['match']}: {message['result']} ({message['reason']})")
                ended += 1
                if games is not None and ended >= games:
                    return


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python examples/minimal_bot.py ws://HOST:PORT/ TOKEN")
    asyncio.run(play(sys.argv[1], sys.argv[2]))
