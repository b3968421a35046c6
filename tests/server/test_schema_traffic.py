"""The published JSON Schema (protocol.schema.json) against the server's real traffic.

Registered bots, a guest and a spectator play tic-tac-toe, paper soccer and vanishing to the end,
play a ladder match from an opening, offer and decline draws, resign, abort, seek and cancel,
drop and come back, read the lobby and the standings, and send malformed requests. Every message
both ways is validated with the ``jsonschema`` library: each one the server takes is valid, and
each one it refuses for its shape (missing, unknown or mistyped field, unknown type) is invalid.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from arbiter.engine import create_game
from arbiter.protocol.schema import SCHEMA_FILE
from arbiter.server import ServerConfig
from arbiter.server.config import LadderConfig, parse_ladder_clock
from tests.support.wsclient import Client, play_move, play_out, start_match

SHAPE_CODES = {"missing_field", "unknown_field", "bad_field", "unknown_type"}
Log = list[tuple[Client, str, dict[str, Any]]]


def validator(definition: str) -> jsonschema.protocols.Validator:
    """The published file's ``definition``, integers read as msgpack's (never a float)."""
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine_many(
        {"integer": lambda _, v: type(v) is int, "number": lambda _, v: type(v) in (int, float)}
    )
    kind = jsonschema.validators.extend(base, type_checker=checker)
    return kind({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})


@pytest.fixture
def config() -> ServerConfig:
    ladder = LadderConfig(clocks=dict([parse_ladder_clock("tictactoe=10+0")]), openings={"tictactoe": 2}, seed=1)
    return ServerConfig(port=0, reconnect_grace_s=5.0, ladder=ladder)


async def malformed(client: Client) -> None:
    """Requests refused for their shape, then ones refused for what they ask."""
    for kind, fields in [
        ("no_such_type", {}),
        ("challenge", {"game": "tictactoe"}),  # no clock
        ("challenge", {"game": "tictactoe", "clock": {"initial_ms": "60"}}),
        ("move", {"match": "m", "ply": -1, "move": [1, 1]}),
        ("ping", {"extra": True}),
        ("hello", {"protocol": 1, "client": "again"}),
        ("accept", {"challenge": "nope"}),
        ("spectate", {"match": "nope"}),
        ("challenge", {"to": "nobody", "game": "tictactoe", "clock": {"initial_ms": 60_000}}),
        ("challenge", {"game": "chess", "clock": {"initial_ms": 60_000}}),
    ]:
        assert (await client.request(kind, **fields))["type"] == "error"


async def test_every_frame_of_real_games_is_valid_by_the_published_schema(server, store) -> None:
    log: Log = []
    tokens = {name: await store.add_player(name, "bot") for name in ("alpha", "beta")}
    alpha = await Client.connect(server.url, record=log, token=tokens["alpha"], games=["tictactoe"], levels=3)
    beta = await Client.connect(server.url, record=log, token=tokens["beta"], capacity=4)
    guest = await Client.connect(server.url, record=log)
    watcher = await Client.connect(server.url, record=log)
    clients = [alpha, beta, guest, watcher]
    try:
        await watcher.request("subscribe")
        await watcher.request("lobby")
        await watcher.request("ping")
        for seed, game in enumerate(("tictactoe", "paper_soccer", "vanishing")):
            match = await start_match(alpha, beta, game)
            await watcher.request("spectate", match=match)
            await play_out((alpha, beta), match, game, None, seed)
        # Analysis, draws, a resignation, a reconnect and an abort in tic-tac-toe.
        match = await start_match(alpha, guest)
        info = {"score": 0.5, "unit": "win", "depth": 2, "nodes": 10, "pv": [[1, 1], [0, 0]]}
        await watcher.request("spectate", match=match)
        await alpha.send({"type": "move", "id": "a0", "match": match, "ply": 0, "move": [1, 1], "info": info})
        await guest.expect("moved", match=match, ply=0)
        await guest.request("offer_draw", match=match)
        await alpha.request("decline_draw", match=match)
        await guest.request("sync", match=match)
        await play_move(alpha, match, 1, [0, 0])  # not its turn: an error
        await guest.close()
        back = await Client.connect(server.url, record=log, token=guest.welcome["resume_token"])
        clients.append(back)
        await back.expect("match_state", match=match)
        await back.request("resign", match=match)
        await alpha.expect("end", match=match)
        match = await start_match(back, alpha)
        await back.request("abort", match=match)
        # Challenges: declined, a seek cancelled, a level asked.
        await beta.request("challenge", to=alpha.name, game="tictactoe", clock={"initial_ms": 60_000}, level=2)
        await alpha.request("decline", challenge=(await alpha.expect("challenge_offered"))["challenge"]["id"])
        seek = await beta.request("challenge", game="tictactoe", clock={"initial_ms": 60_000, "move_limit_ms": None})
        await beta.request("cancel", challenge=seek["challenge"]["id"])
        # The ladder: a match from its opening, then the standings.
        for bot in (alpha, beta):
            assert (await bot.request("ladder_join", game="tictactoe"))["type"] == "ladder_joined"
        start = await alpha.expect("match_start", timeout=60)  # its opening's playouts may load numba's cache first
        assert start["moves"] and start["challenge"] is None
        players = (alpha, beta) if start["color"] == 0 else (beta, alpha)
        await beta.expect("match_start", match=start["match"])
        for bot in (alpha, beta):
            await bot.request("ladder_leave", game="tictactoe")
        await play_out_from_opening(players, start)
        for bot in (alpha, beta):
            await bot.request("leaderboard", game="tictactoe")
            await bot.request("crosstable", game="tictactoe")
        await malformed(watcher)
        assert (await alpha.request("ping"))["type"] == "pong"
    finally:
        for client in clients:
            await client.close()
    check(log)


async def play_out_from_opening(players: tuple[Client, Client], start: dict[str, Any]) -> None:
    """Play a ladder match on from its opening with the legal move of the lowest cell, to its end."""
    game = create_game(start["game"], start["params"])
    state = game.new_state()
    for wire in start["moves"]:
        state.play(game.decode_move(wire))
    ply = len(start["moves"])
    while not state.is_terminal:
        wire = game.encode_move(state.legal_moves()[0])
        assert (await play_move(players[state.to_move], start["match"], ply, wire))["type"] == "moved"
        state.play(game.decode_move(wire))
        ply += 1
    for player in players:
        await player.expect("end", match=start["match"])


def check(log: Log) -> None:
    client_schema, server_schema = validator("ClientMessage"), validator("ServerMessage")
    refused = {(client, message["re"]): message["code"] for client, way, message in log
               if way == "received" and message["type"] == "error" and "re" in message}  # fmt: skip
    kinds = {"sent": set(), "received": set()}
    shape_refusals = 0
    for client, way, message in log:
        kinds[way].add(message["type"])
        if way == "received":
            errors = [e.message for e in server_schema.iter_errors(message)]
            assert not errors, (message, errors)
        elif refused.get((client, message.get("id"))) in SHAPE_CODES:
            assert not client_schema.is_valid(message), message
            shape_refusals += 1
        else:
            errors = [e.message for e in client_schema.iter_errors(message)]
            assert not errors, (message, errors)
    assert shape_refusals >= 5
    assert {"hello", "move", "challenge", "ladder_join", "spectate", "resign", "abort", "cancel"} <= kinds["sent"]
    seen = {"welcome", "match_start", "moved", "end", "match_state", "error", "lobby_state", "presence", "seek_added",
            "seek_removed", "challenge_closed", "draw_offered", "draw_declined", "player_left", "player_returned",
            "ladder_joined", "leaderboard", "crosstable", "match_listed", "match_unlisted"}  # fmt: skip
    assert seen <= kinds["received"]
