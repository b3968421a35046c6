"""A bot that runs for weeks stays small: thousands of games through the client leave no trace but
the last FINISHED_KEPT records, and every game still reaches the game log, written off the loop."""

from __future__ import annotations

import json
from pathlib import Path

from arbiter.bots.client import FINISHED_KEPT, BotClient, BotSettings, ChallengeFilter
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain
from arbiter.protocol.server_messages import read

GAMES = 3000


def start(match_id: str) -> dict:
    """A match in which the opponent moves first (so the client asks its pool nothing)."""
    return {
        "type": "match_start", "match": match_id, "game": "tictactoe", "params": {},
        "players": [{"name": "them", "kind": "bot", "guest": False}, {"name": "us", "kind": "bot", "guest": False}],
        "color": 1, "clock": {"initial_ms": 1000, "increment_ms": 0, "move_limit_ms": None},
        "clocks": [1000, 1000], "rated": False, "to_move": 0, "levels": [None, None], "challenge": None, "moves": [],
    }  # fmt: skip


def end(match_id: str) -> dict:
    return {"type": "end", "match": match_id, "result": "1-0", "winner": 0, "reason": "resign",
            "clocks": [900, 1000], "ply": 0, "rating_changes": {}}  # fmt: skip


async def test_thousands_of_games_leave_the_client_as_small_as_after_a_thousand(tmp_path: Path) -> None:
    log_file = tmp_path / "games.jsonl"
    pool = BrainPool(RandomBrain, workers=1)  # never started: no decision is asked of it
    settings = BotSettings(games=("tictactoe",), accept=ChallengeFilter(games=frozenset()), game_log=log_file)
    client = BotClient("ws://127.0.0.1:9/", token="token", pool=pool, settings=settings)
    sizes = []
    for number in range(GAMES):
        client.handle_message(read(start(f"m{number}")))
        client.handle_message(read(end(f"m{number}")))
        if number + 1 in (FINISHED_KEPT, GAMES):
            sizes.append((len(client.finished), len(client.games), len(client.core._pending), len(pool._affinity)))
    assert sizes == [(FINISHED_KEPT, 0, 0, 0)] * 2  # flat after the first thousand
    assert client.finished_count == GAMES and client.finished[-1]["match"] == f"m{GAMES - 1}"
    await client.flush_game_log()
    lines = log_file.read_text().splitlines()
    assert len(lines) == GAMES and json.loads(lines[-1])["match"] == f"m{GAMES - 1}"  # all of them, in order
    assert [json.loads(line)["match"] for line in lines[:3]] == ["m0", "m1", "m2"]
