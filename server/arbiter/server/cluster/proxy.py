"""A proxy session's transport: the frames of a player connected to another node go to that node.

A node that owns a match (or holds a seek, or pairs the ladder) for a player whose connection is on
another node, its *home*, stands for the player with an ordinary ``Session`` over this transport:
each frame is published to the home's channel, which hands it to the player's socket untouched.
"""

from __future__ import annotations

from collections.abc import Callable

from arbiter.protocol.errors import CloseCode

from ..play.players import Connection
from .keys import node_channel
from .link import Link

# Ask a player's home to say once its client has read what was sent so far: (home, name, callback).
ConfirmThrough = Callable[[str, str, Callable[[], None]], None]


class RemoteTransport:
    """A proxy session's transport: frames go over Redis to the player's home node."""

    __slots__ = ("closed_by_client", "confirm_through", "home", "link", "name")

    def __init__(self, link: Link, home: str, name: str, confirm_through: ConfirmThrough) -> None:
        self.link = link
        self.confirm_through = confirm_through
        self.home = home
        self.name = name
        self.closed_by_client = False  # as the home said when the player's socket went (node.py)

    def send(self, data: bytes) -> None:
        self.link.publish(node_channel(self.home), ["out", self.link.node, self.name, data])

    def confirm(self, on_confirmed: Callable[[], None]) -> None:
        """The home pings the player's socket and tells this node when its pong came (node.py)."""
        self.confirm_through(self.home, self.name, on_confirmed)

    def close(self, code: int, reason: str) -> None:
        if code == CloseCode.REPLACED:
            return  # the player connected elsewhere: its home closes its own connection
        self.link.publish(node_channel(self.home), ["close", self.link.node, self.name, int(code), reason])

    @property
    def latency(self) -> float:
        return 0.0  # the home measures the socket; the owner credits no lag it cannot see


def home_of(session: Connection | None) -> str | None:
    """The home node of a proxy session; None for a local connection."""
    transport = getattr(session, "transport", None)
    return transport.home if isinstance(transport, RemoteTransport) else None
