"""The door of a node: who may open a websocket, who may be a guest, and which sessions a ban closes.

At the websocket handshake (``admit``, run as part of ``process_request``) the guard works out the
client's address (client_address.py), refuses a banned network (403) or a connection over a cap
(503 for the node, 429 for the address), and otherwise takes a slot that the connection gives back
when it is gone, however it goes (a failed handshake, a timeout, a close). Then it keeps every open
session, so a new ban list can close those it bans at once, and counts guests per address.
"""

from __future__ import annotations

import asyncio
import logging
from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from arbiter.protocol.errors import ErrorCode, ProtocolError

from ..access.bans import BanList
from ..access.connection_caps import ConnectionCaps
from ..config import ServerConfig
from ..metrics import ServerMetrics
from ..net.client_address import ClientAddress, TrustedProxies
from .players import Identity
from .session import Session

log = logging.getLogger("arbiter.server")


class Guard:
    def __init__(self, config: ServerConfig, metrics: ServerMetrics) -> None:
        self.metrics = metrics
        self.proxies = TrustedProxies(config.trusted_proxies, config.proxy_header)
        self.caps = ConnectionCaps(
            total=config.max_connections,
            per_address=config.max_connections_per_ip,
            guests_per_address=config.max_guests_per_ip,
        )
        self.bans = BanList()
        self.sessions: dict[Session, None] = {}  # every open websocket session, in the order they came
        self._clients: dict[ServerConnection, ClientAddress] = {}  # admitted connections, until they are gone
        self._guests: set[Session] = set()  # sessions counted as a guest of their address
        self._watches: set[asyncio.Task[None]] = set()

    # --- the handshake ----------------------------------------------------------------------------
    def client_of_request(self, connection: ServerConnection, request: Request) -> ClientAddress | None:
        """The client of any HTTP request on this port (a sign-in, a handshake): the peer, or whom a
        trusted proxy names; None when not over IP."""
        return self.proxies.client_of(_peer_host(connection), request.headers.get_all(self.proxies.header))

    def admit(self, connection: ServerConnection, request: Request) -> Response | None:
        """A websocket handshake: None to let it through (a slot is taken), else the refusal to answer."""
        client = self.client_of_request(connection, request)
        if client is None:
            return None  # not over IP (a Unix socket): nothing to count it by
        if self.bans.address_banned(client.ip):
            log.info("connection refused: banned address", extra={"client": str(client)})
            self.metrics.refused.labels("banned").inc()
            return connection.respond(HTTPStatus.FORBIDDEN, "your address is banned from this server\n")
        refusal = self.caps.admit(client.key)
        if refusal is not None:
            log.info("connection refused: %s", refusal.reason, extra={"client": str(client)})
            self.metrics.refused.labels(refusal.cause).inc()
            return connection.respond(HTTPStatus(refusal.status), refusal.reason + "\n")
        self._clients[connection] = client
        watch = asyncio.get_running_loop().create_task(connection.wait_closed())
        self._watches.add(watch)
        watch.add_done_callback(lambda done: self._gone(connection, done))
        return None

    def client_of(self, connection: ServerConnection) -> ClientAddress | None:
        """The client address ``admit`` found for this connection."""
        return self._clients.get(connection)

    def _gone(self, connection: ServerConnection, watch: asyncio.Task[None]) -> None:
        self._watches.discard(watch)
        client = self._clients.pop(connection, None)
        if client is not None:
            self.caps.release(client.key)

    # --- sessions ---------------------------------------------------------------------------------
    def opened(self, session: Session) -> bool:
        """Keep the session; False if its address is banned by now (banned after its handshake)."""
        self.sessions[session] = None
        return session.client is None or not self.bans.address_banned(session.client.ip)

    def closed(self, session: Session) -> None:
        self.sessions.pop(session, None)
        if session in self._guests:
            self._guests.discard(session)
            assert session.client is not None
            self.caps.remove_guest(session.client.key)

    def check_new_guest(self, session: Session) -> None:
        """ProtocolError(too_many_guests) if the session's address has as many guests as allowed."""
        if session.client is not None and not self.caps.guest_allowed(session.client.key):
            raise ProtocolError(
                ErrorCode.TOO_MANY_GUESTS,
                f"too many guests from your address (at most {self.caps.guests_per_address}); sign in, or use a token",
            )

    def guest_welcomed(self, session: Session) -> None:
        if session.client is not None and session not in self._guests:
            self._guests.add(session)
            self.caps.add_guest(session.client.key)

    def check_player(self, name: str, owner: str | None = None) -> None:
        """ProtocolError(banned) if the registered player ``name`` is banned, or its owner is."""
        ban = self.bans.ban_of(name, owner)
        if ban is not None:
            whose = name if ban.target.lower() == name.lower() else f"{name}'s owner {ban.target}"
            raise ProtocolError(ErrorCode.BANNED, f"{whose} is banned from this server")

    def player_banned(self, identity: Identity) -> bool:
        """Whether the ban list keeps this player out (a guest is kept out by its address only)."""
        return not identity.guest and self.bans.ban_of(identity.name, identity.owner) is not None

    def banned_sessions(self) -> list[Session]:
        """The open sessions the current ban list bans: by their address, their player or its owner."""
        bans = self.bans
        return [
            session
            for session in self.sessions
            if (session.client is not None and bans.address_banned(session.client.ip))
            or (session.player is not None and self.player_banned(session.player.identity))
        ]  # fmt: skip


def _peer_host(connection: ServerConnection) -> str:
    """The socket peer's address as text ('' when not over IP)."""
    peer = connection.remote_address
    return str(peer[0]) if isinstance(peer, tuple) and peer else ""
