"""This node's link to the others, as the cluster's parts see it: the node's id, the nodes alive,
ordered Redis writes and messages, and the directory's answer to where a player is.

``node.py``'s ``Cluster`` is the one link; the failover, the lobby, the ladder lease and the proxy
transport each take it as this protocol, with the parts of the hub they use passed beside it, so
none of them imports the node or another part (the import contract in pyproject.toml).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..play.players import Connection


class Link(Protocol):
    @property
    def node(self) -> str:
        """This node's id."""

    @property
    def alive(self) -> set[str]:
        """The nodes seen alive lately (this one always)."""

    def publish(self, channel: str, envelope: list[Any]) -> None:
        """Queue a message; messages and commands go out in the order they were queued."""

    def command(self, *command: Any) -> None:
        """Queue a Redis command, in order with the messages."""

    async def is_alive(self, node: str) -> bool: ...

    async def find_home(self, name: str) -> str | None:
        """The node the player is connected to, as the directory says."""

    def is_proxy(self, session: Connection | None) -> bool:
        """Whether ``session`` stands here for a player connected to another node."""
