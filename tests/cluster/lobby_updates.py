"""Reading a cluster lobby's updates in the tests: a subscriber's presence entries, as they arrive."""

from __future__ import annotations

from tests.support.wsclient import Client


async def until(client: Client, kind: str, **fields: object) -> dict:
    return await client.expect(kind, timeout=20, **fields)


async def presence_of(client: Client, name: str) -> dict:
    """The next presence update about ``name`` (others' are skipped)."""
    while (update := await until(client, "presence"))["player"]["name"] != name:
        pass
    return update


async def listed(client: Client, wanted: dict[str, dict]) -> None:
    """Presence updates until each named player's latest entry has the fields wanted."""
    seen: dict[str, dict] = {}
    while not all(fields.items() <= seen.get(name, {}).items() for name, fields in wanted.items()):
        player = (await until(client, "presence"))["player"]
        seen[player["name"]] = player
