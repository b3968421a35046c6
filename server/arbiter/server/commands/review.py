"""``arbiter review MATCH``: a finished game's review in the terminal (SPEC.md section 18).

From the store (``--db``, as the other operator commands) when it keeps one; with ``--server URL``
it asks that server instead, which has its workers make the review if none is kept, and waits.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote

import click
from websockets.asyncio.client import connect

from arbiter.cli.errors import fail
from arbiter.protocol.codec import decode, encode
from arbiter.protocol.messages import PROTOCOL_VERSION
from arbiter.server.results.review_text import format_review
from arbiter.server.store.base import Store

from .database import DB_OPTION, run_with_store

WAIT_S = 600.0


async def ask_server(url: str, match: str) -> dict[str, Any]:
    """Ask ``url`` for the review (its workers make it if none is kept), wait for it, read it over HTTP."""
    async with asyncio.timeout(WAIT_S), connect(url, compression=None) as ws:
        await ws.send(encode({"type": "hello", "protocol": PROTOCOL_VERSION, "client": "arbiter-review/1"}))
        await ws.send(encode({"type": "review", "id": 1, "match": match}))
        while True:
            message = decode(await ws.recv())
            if message["type"] == "error":
                raise click.ClickException(f"{message['code']}: {message['message']}")
            if message["type"] == "review_state" and message["status"] == "failed":
                raise click.ClickException("the review failed: no worker could finish it")
            if message["type"] == "review_state" and message["status"] == "done":
                break
    http = url.replace("ws://", "http://", 1).replace("wss://", "https://", 1).rstrip("/")
    with urllib.request.urlopen(f"{http}/review.json?match={quote(match)}", timeout=30) as response:
        review: dict[str, Any] = json.loads(response.read())
    return review


@click.command()
@click.argument("match")
@click.option("--server", metavar="URL", help="Ask this server (ws://…), which makes the review if none is kept.")
@click.option("--json", "as_json", is_flag=True, help="Print the review's JSON (as /review.json serves it).")
@DB_OPTION
def review(match: str, server: str | None, as_json: bool, db: str) -> None:
    """MATCH's review: each move's class by the drop in its mover's winning chance, the best move
    and line at each mistake, each side's accuracy. Exit 1 if there is none."""
    if server is not None:
        try:
            found: dict[str, Any] | None = asyncio.run(ask_server(server, match))
        except (OSError, TimeoutError, urllib.error.URLError) as error:
            fail(f"cannot ask {server}: {error}")
    else:

        async def read(store: Store) -> dict[str, Any] | None:
            return await store.get_review(match)

        found = run_with_store(db, read)
        if found is None:
            fail(f"no review of {match} is kept in {db}: ask a server for one with --server URL", code=1)
    assert found is not None
    click.echo(json.dumps(found, indent=1) if as_json else format_review(found), nl=not as_json)


COMMANDS = [review]
