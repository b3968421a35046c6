"""A proxy session's transport: the frames of a player connected to another node go to that node.

A node that owns a match (or holds a seek, or pairs the ladder) for a player whose connection is on
another node, its *home*, stands for the player with an ordinary ``Session`` over this transport:
each frame is published to the home's channel, which hands it to the player's socket untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from arbiter.protocol.errors import CloseCode

from ..players import Connection
from .keys import node_channel

if TYPE_CHECKING:
    from .node import Cluster


class RemoteTransport:
    """A proxy session's transport: frames go over Redis to the player's home node."""

    __slots__ = ("closed_by_client", "cluster", "home", "name")

    def __init__(self, cluster: Cluster, home: str, name: str) -> None:
        self.cluster = cluster
        self.home = home
        self.name = name
        self.closed_by_client = False  # as the home said when the player's socket went (node.py)

    def send(self, data: bytes) -> None:
        self.cluster.publish(node_channel(self.home), ["out", self.cluster.node, self.name, data])

    def confirm(self, on_confirmed: Callable[[], None]) -> None:
        """The home pings the player's socket and tells this node when its pong came (node.py)."""
        self.cluster.confirm_through(self.home, self.name, on_confirmed)

    def close(self, code: int, reason: str) -> None:
        if code == CloseCode.REPLACED:
            return  # the player connected elsewhere: its home closes its own connection
        self.cluster.publish(node_channel(self.home), ["close", self.cluster.node, self.name, int(code), reason])

    @property
    def latency(self) -> float:
        return 0.0  # the home measures the socket; the owner credits no lag it cannot see


def home_of(session: Connection | None) -> str | None:
    """The home node of a proxy session; None for a local connection."""
    transport = getattr(session, "transport", None)
    return transport.home if isinstance(transport, RemoteTransport) else None
