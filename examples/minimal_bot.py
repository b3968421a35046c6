"""A complete Arbiter bot in one file, using nothing of Arbiter: only `websockets` and `msgpack`.

    python examples/minimal_bot.py ws://127.0.0.1:8765/ TOKEN

It logs in with a bot account's token (`arbiter player add mybot --kind bot`), joins the
tic-tac-toe ladder, accepts every tic-tac-toe challenge, and on its turn plays the first empty cell;
when the connection drops it connects again, and the server resends its live matches. Everything it
does is in protocol/arbiter/protocol/SPEC.md: this is the shape of a client in any language.
"""

from __future__ import annotations

import asyncio
import itertools
import sys

import msgpack
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

GAME = "tictactoe"
LINES = [[(x, y) for x in range(3)] for y in range(3)] + [[(x, y) for y in range(3)] for x in range(3)]
LINES += [[(i, i) for i in range(3)], [(i, 2 - i) for i in range(3)]]


def over(moves: list[tuple[int, int]]) -> bool:
    """A line, or a full board: then the server's `end` follows the last `moved`, and nobody moves."""
    last = moves[len(moves) - 1 :: -2]  # the last mover's stones (colour 0 plays the even plies)
    return len(moves) == 9 or any(all(cell in last for cell in line) for line in LINES)


async def play(url: str, token: str) -> None:
    """Play until stopped, connecting again a second after the connection drops."""
    while True:
        try:
            await session(url, token)
        except (ConnectionClosed, OSError) as error:
            print(f"connection lost ({error}); again in a second", file=sys.stderr)
        await asyncio.sleep(1)


async def session(url: str, token: str) -> None:
    """One connection, from hello until it closes."""
    ids = itertools.count(1)
    boards: dict[str, dict] = {}  # match id -> {"color", "size", "moves"}
    async with connect(url, compression=None) as ws:

        async def send(message: dict) -> None:
            await ws.send(msgpack.packb({**message, "id": next(ids)}))

        async def move_if_our_turn(match: str, ply: int) -> None:
            board = boards[match]
            if ply % 2 != board["color"] or over(board["moves"]):
                return
            columns, rows = board["size"]
            cell = next([x, y] for y in range(rows) for x in range(columns) if (x, y) not in board["moves"])
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
                moves = [tuple(move) for move in message.get("moves", [])]
                boards[message["match"]] = {
                    "color": message["color"],
                    "size": (params["m"], params["n"]),
                    "moves": moves,
                }
                await move_if_our_turn(message["match"], len(moves))
            elif kind == "moved" and message["match"] in boards:
                boards[message["match"]]["moves"].append(tuple(message["move"]))
                await move_if_our_turn(message["match"], message["ply"] + 1)
            elif kind == "end" and boards.pop(message["match"], None) is not None:
                print(f"{message['match']}: {message['result']} ({message['reason']})", flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python examples/minimal_bot.py ws://HOST:PORT/ TOKEN")
    asyncio.run(play(sys.argv[1], sys.argv[2]))
