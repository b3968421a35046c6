"""The tournament scheduler on a real server: a double round robin of N bots (clients that play
random tic-tac-toe moves, one match at a time) played to the end, sampled every few milliseconds
for a bot left idle while a game of its waits with its opponent idle too (a sample falls between a
game's end and the pass it triggers now and then: that latency is what the idle samples count).

    python benchmarks/tournament_schedule.py --bots 50

Prints the games, the wall time, the idle samples, and the ratio of the wall time to the ideal
measured in the same run: every game's own duration summed and spread over N/2 boards at once
(no schedule of players who play one game at a time can beat it).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from arbiter.engine import State, create_game
from arbiter.protocol import PROTOCOL_VERSION
from arbiter.protocol.codec import decode, encode
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore
from arbiter.server.tournaments import lifecycle
from arbiter.server.tournaments.spec import TournamentSpec


async def player(url: str, token: str) -> ClientConnection:
    """A connection welcomed as the bot of ``token``, playing one match at a time."""
    ws = await connect(url, compression=None)
    await ws.send(encode({"type": "hello", "id": 0, "protocol": PROTOCOL_VERSION, "client": "bench/1",
                          "token": token, "capacity": 1}))  # fmt: skip
    welcome = decode(await ws.recv())
    assert welcome["type"] == "welcome", welcome
    return ws


async def autoplay(ws: ClientConnection, seed: int, durations: dict[str, float]) -> None:
    """Random legal moves in every match the client is given; each match's wall time into ``durations``."""
    rng = random.Random(seed)
    states: dict[str, tuple[State, int, float]] = {}
    while True:
        message: dict[str, Any] = decode(await ws.recv())  # type: ignore[assignment]
        match = message.get("match")
        if message["type"] == "match_start":
            states[match] = (create_game(message["game"]).new_state(), message["color"], time.perf_counter())
        elif message["type"] == "moved" and match in states:
            state = states[match][0]
            state.play(state.game.decode_move(message["move"]))
        elif message["type"] == "end":
            if match in states:
                durations[match] = time.perf_counter() - states.pop(match)[2]
            continue
        if match in states:
            state, color, _ = states[match]
            if not state.is_terminal and state.to_move == color:
                ply = len(state.moves())
                probe = state.copy()  # tic-tac-toe: one action is one move
                probe.play_action(int(rng.choice(list(probe.legal_actions()))))
                move = state.game.encode_move(probe.moves()[-1])
                await ws.send(encode({"type": "move", "id": ply, "match": match, "ply": ply, "move": move}))


async def idle_pairs(server: RunningServer, name: str) -> int:
    """Games not started whose two players are both connected and playing nothing."""

    def idle(player: str) -> bool:
        online = server.hub.roster.get(player)
        return online is not None and online.connected and not online.matches and online.ending == 0

    games = await server.hub.store.tournament_games(name)
    return sum(1 for g in games if g.score is None and g.match_id is None and idle(g.black) and idle(g.white or ""))


async def run(bots: int) -> None:
    config = ServerConfig(port=0, tournament_interval_s=0.05, warm_engine=False)
    async with run_server(config, MemoryStore()) as server:
        store = server.hub.store
        names = [f"bot{n:03}" for n in range(bots)]
        tokens = {name: await store.add_player(name, "bot") for name in names}
        spec = TournamentSpec.check(
            {
                "format": "round_robin",
                "game": "tictactoe",
                "double": True,
                "grace_s": 600.0,
                "concurrency": bots,
                "clock": {"initial_ms": 60_000, "increment_ms": 0},
            }
        )
        await lifecycle.create(store, "bench", spec, names)
        clients = [await player(server.url, tokens[name]) for name in names]
        durations: dict[str, float] = {}
        players = [asyncio.create_task(autoplay(client, seed, durations)) for seed, client in enumerate(clients)]
        samples: list[int] = []
        games = len(await lifecycle.start(store, "bench"))
        began = time.perf_counter()
        server.hub.tournaments.kick()
        await server.hub.tournaments.wait_idle()  # the first pass: every game it can start is started
        while (await store.get_tournament("bench")).state != "finished":  # type: ignore[union-attr]
            await asyncio.sleep(0.005)
            samples.append(await idle_pairs(server, "bench"))
        elapsed = time.perf_counter() - began
        for task in players:
            task.cancel()
        for client in clients:
            await client.close()  # (a move's reply or an end may still be on the way: not read)
    ideal = sum(durations.values()) / (bots // 2)
    idle_share = sum(1 for s in samples if s) / max(1, len(samples))
    print(f"double round robin of {bots} bots: {games} games in {elapsed:.1f} s")
    print(f"game wall time: median {statistics.median(durations.values()) * 1000:.0f} ms")
    most = max(samples, default=0)
    print(f"idle pairs with a game waiting: {idle_share:.1%} of {len(samples)} samples, at most {most}")
    print(f"ideal (summed game time over {bots // 2} boards): {ideal:.1f} s")
    print(f"the schedule: {elapsed / ideal:.2f}x the ideal")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=50)
    asyncio.run(run(parser.parse_args().bots))


if __name__ == "__main__":
    main()
