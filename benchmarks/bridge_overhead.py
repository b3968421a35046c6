"""What ``arbiter bridge pbrain`` adds to a Gomocup engine's own time per move, in the same run.

Three ways to get the same engine's answers to the same positions (the test engine of
tests/bots/pbrain_engines, or any pbrain engine given after ``--``), one game of random opening
moves each, medians per move:

1. a direct pipe: ``TURN x,y`` written to the engine, its move read back (the baseline);
2. the bridge's engine pool (``EnginePool.think``): INFO lines, the position, the answer's
   legality and its analysis, as the bridge does for every move;
3. the whole path: a player on a real server (loopback) sends a move and waits for the bridged
   engine's ``moved`` (server, websocket, bot client core, pool, engine and back).

    python benchmarks/bridge_overhead.py [--moves 40] [-- ENGINE_CMD …]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
from server_load import Conn  # the load benchmark's client: its replies and messages by predicate
from websockets.asyncio.client import connect

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.bridge.engines import EnginePool
from arbiter.bots.bridge.process import SETTLE, EngineProcess
from arbiter.bots.client import BotClient, BotSettings
from arbiter.engine import EngineError, State, create_game
from arbiter.protocol import PROTOCOL_VERSION
from arbiter.server import ServerConfig, run_server

GAME = "gomoku"
TEST_ENGINE = [sys.executable, str(Path(__file__).resolve().parents[1] / "tests/bots/pbrain_engines/threat_engine.py")]


def opening_moves(count: int, seed: int) -> list[list[int]]:
    """Cells for the player's side: random free cells away from the edge, different each move."""
    rng = random.Random(seed)
    cells = [[x, y] for x in range(2, 13) for y in range(2, 13)]
    rng.shuffle(cells)
    return cells[:count]


def played(state: State, moves: int) -> Iterator[list[int]]:
    """The player's cells still free when their turn comes, each played into ``state`` first."""
    for cell in opening_moves(moves * 3, 1):
        if state.is_terminal:
            return
        try:
            state.play(state.game.decode_move(cell))
        except EngineError:
            continue
        yield cell


async def direct_pipe(argv: list[str], moves: int) -> list[float]:
    engine = await EngineProcess.spawn(argv)
    try:
        await engine.send("START 15", "INFO timeout_turn 1000")
        await engine.answer(time.monotonic() + 5, expect="ok")
        times, taken = [], set()
        for cell in opening_moves(moves * 3, 1):
            if len(times) == moves:
                break
            if tuple(cell) in taken:
                continue
            await asyncio.sleep(SETTLE)  # as in a game: the opponent's move comes well after ours
            began = time.perf_counter()
            await engine.send(f"TURN {cell[0]},{cell[1]}")
            line = await engine.answer(time.monotonic() + 5, expect="move")
            times.append(time.perf_counter() - began)
            taken.update({tuple(cell), tuple(int(v) for v in line.split(","))})
    finally:
        await engine.close()
    return times


async def engine_pool(argv: list[str], moves: int) -> list[float]:
    pool = EnginePool(argv, slots=1)
    await pool.warm(15)
    state = create_game(GAME).new_state()
    history: list[Any] = []
    times = []
    try:
        for cell in played(state, moves):
            if len(times) == moves:
                break
            history.append(cell)
            await asyncio.sleep(SETTLE)
            request = ThinkRequest("m", GAME, {}, list(history), 1.0, deadline=time.monotonic() + 5)
            began = time.perf_counter()
            answer = await pool.think(request)
            times.append(time.perf_counter() - began)
            state.play(state.game.decode_move(answer.move))
            history.append(answer.move)
    finally:
        await pool.close()
    return times


async def whole_path(argv: list[str], moves: int) -> list[float]:
    async with run_server(ServerConfig(port=0)) as server:
        token = await server.hub.store.add_player("engine", "bot")
        pool = EnginePool(argv, slots=1)
        await pool.probe([15])
        await pool.warm(15)
        settings = BotSettings(games=(GAME,))
        try:
            async with BotClient(server.url, token=token, pool=pool, settings=settings).running():
                human = Conn(await connect(server.url, compression=None))
                token = await server.hub.store.add_player("p", "human")
                await human.request({"type": "hello", "id": 0, "protocol": PROTOCOL_VERSION, "client": "bench/1",
                                     "token": token})  # fmt: skip
                await human.request({"type": "challenge", "id": 1, "to": "engine", "game": GAME, "color": "first",
                                     "clock": {"initial_ms": 600_000, "increment_ms": 0}})  # fmt: skip
                match = (await human.expect(lambda m: m["type"] == "match_start"))["match"]
                state, times, ply = create_game(GAME).new_state(), [], 0
                for cell in played(state, moves):
                    if len(times) == moves:
                        break
                    await asyncio.sleep(SETTLE)
                    began = time.perf_counter()
                    await human.ws.send(msgpack.packb({"type": "move", "match": match, "ply": ply, "move": cell}))
                    answer = await human.expect(lambda m, ply=ply: m["type"] == "moved" and m["ply"] == ply + 1)
                    times.append(time.perf_counter() - began)
                    state.play(state.game.decode_move(answer["move"]))
                    ply += 2
                await human.request({"type": "resign", "id": 2, "match": match})
        finally:
            await pool.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("engine", nargs="*", help="the engine's command (default: the tests' threat engine)")
    args = parser.parse_args()
    argv = args.engine or TEST_ENGINE
    direct = asyncio.run(direct_pipe(argv, args.moves))
    pooled = asyncio.run(engine_pool(argv, args.moves))
    whole = asyncio.run(whole_path(argv, args.moves))
    base = statistics.median(direct)
    print(f"engine {Path(argv[-1]).name}, {GAME}, {args.moves} moves each, median per move")
    print(f"{'path':<44} {'ms':>8} {'added ms':>9} {'ratio':>7}")
    for name, times in (("direct pipe (baseline)", direct), ("bridge engine pool", pooled),
                        ("server + client + bridge (loopback)", whole)):  # fmt: skip
        median = statistics.median(times)
        print(f"{name:<44} {median * 1000:>8.2f} {(median - base) * 1000:>9.2f} {median / base:>6.2f}×")


if __name__ == "__main__":
    main()
