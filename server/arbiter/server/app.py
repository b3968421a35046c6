"""Start and stop the match server: websockets on one port, plain HTTP routes beside it.

>>> async with run_server(ServerConfig(port=0)) as server:   # doctest: +SKIP
...     async with websockets.connect(server.url) as ws: ...

``run_server`` is what the CLI and every test use: it warms the engine, opens the store, listens,
yields a ``RunningServer`` with the bound port, and on exit closes every connection (1001),
waits for ends being recorded and closes the store. Matches still live at exit stay unfinished in
the store (like after a crash); the store's restart rule resolves them. ``arbiter serve`` drains
first (``Hub.drain``), so on SIGTERM they finish, or are ended as interrupted, over the protocol.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from http import HTTPStatus
from typing import cast

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from arbiter.protocol.messages import PROTOCOL_VERSION
from arbiter.server.metrics import CONTENT_TYPE
from arbiter.server.store.base import Store
from arbiter.server.store.memory import MemoryStore

from .access.account_routes import AccountRoutes
from .access.attempts import AttemptLimiter
from .access.bans import BanWatch
from .access.heavy_reads import limit_heavy_reads
from .analysis.routes import ReviewRoutes
from .cluster import Cluster, ClusterError
from .config import ServerConfig
from .hub import Hub
from .net.connection import SessionConnection
from .net.http import HttpRoutes, add_security_headers, json_response, text_response
from .play.session import serve_connection
from .ranking.standings import CLUSTER_FIT_AGE_S, StandingsPages
from .results.rating_updates import rebuild_outdated_ratings
from .results.recovery import resolve_interrupted
from .tournaments.routes import TournamentPages
from .warmup import warm_games
from .web_routes import WebClient

log = logging.getLogger("arbiter.server")
SIGN_IN_ATTEMPTS_PER_MINUTE = 10  # per client address: sign-ins, sign-ups and password changes together
GC_YOUNG_THRESHOLD = 20_000  # allocations between young collections (Python's default: 700)
SWITCH_INTERVAL_S = 0.001  # a busy thread hands the GIL back to the event loop this soon (Python's default: 5 ms)


@dataclass(frozen=True)
class RunningServer:
    hub: Hub
    websocket_server: Server
    routes: HttpRoutes
    host: str
    port: int
    cluster: Cluster | None = None

    @property
    def url(self) -> str:
        """The websocket address clients connect to."""
        return f"ws://{self.host}:{self.port}/"

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.port}"


@asynccontextmanager
async def run_server(
    config: ServerConfig | None = None,
    store: Store | None = None,
    *,
    now: Callable[[], float] = time.monotonic,
) -> AsyncIterator[RunningServer]:
    """Run a server until the block exits. ``store`` is opened here and closed at the end
    (default: a fresh MemoryStore); ``config.port = 0`` picks a free port (see ``.port``); ``now``
    is the clock of the hub's timers and of the sign-in limit (a test may hold it still)."""
    config = config or ServerConfig(port=0)
    store = store or MemoryStore()
    if config.warm_engine:
        warm_games()
    await store.open()
    await rebuild_outdated_ratings(store)  # after a schema change: every rating replayed from the games
    hub = Hub(config, store, now=now)
    cluster = None
    if config.cluster_url is not None:
        cluster = Cluster(config.cluster_url, hub, node=config.node_id)
        try:
            await cluster.start()
        except ClusterError:
            await store.close()
            raise
        _label_logs(cluster.node)
    # Games a crash left unfinished: adjudicated or voided (in a cluster, not those other nodes play).
    await resolve_interrupted(store, None if cluster is None else cluster.owned_elsewhere)
    bans = BanWatch(store, config.ban_check_interval_s, hub.apply_bans, hub.check_revocations)
    await bans.check()  # banned players and networks are kept out from the first connection on
    routes = HttpRoutes()
    routes.add("/healthz", _healthz(hub))
    routes.add("/metrics", _metrics(hub))
    fit_age = None if config.cluster_url is None else CLUSTER_FIT_AGE_S  # alone, every rated game ends here
    standings = StandingsPages(store, config.ladder.pool_of, max_fit_age_s=fit_age)
    standings.add_routes(routes)
    hub.matches.end_listeners.append(standings.game_ended)
    WebClient(store).add_routes(routes)  # the browser client and replays, on the same port
    ReviewRoutes(store).add_routes(routes)
    attempts = AttemptLimiter(per_minute=SIGN_IN_ATTEMPTS_PER_MINUTE, burst=SIGN_IN_ATTEMPTS_PER_MINUTE, now=now)

    def allow_attempt(connection: ServerConnection, request: Request) -> bool:
        """Sign-in, sign-up and password attempts per client address (a trusted proxy's client)."""
        client = hub.guard.client_of_request(connection, request)
        return client is None or attempts.allow(client)

    def address_banned(connection: ServerConnection, request: Request) -> bool:
        client = hub.guard.client_of_request(connection, request)
        return client is not None and hub.guard.bans.address_banned(client.ip)

    account_routes = AccountRoutes(hub.accounts, secure_cookies=config.secure_cookies, allow_attempt=allow_attempt,
                                   address_banned=address_banned)  # fmt: skip
    account_routes.add_routes(routes)
    TournamentPages(store, hub.matches, account_routes.guarded).add_routes(routes)  # enter: as the accounts' POSTs
    if config.heavy_reads_per_minute is not None:
        reads = AttemptLimiter(per_minute=config.heavy_reads_per_minute, burst=config.heavy_reads_burst)
        limit_heavy_reads(routes, reads, hub.guard.client_of_request)

    def process_request(connection: ServerConnection, request: Request) -> Response | Awaitable[Response] | None:
        """A websocket handshake passes the guard (bans, caps); any other request goes to the routes."""
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return hub.guard.admit(connection, request)
        return routes(connection, request)

    async def handler(connection: ServerConnection) -> None:
        session_connection = cast(SessionConnection, connection)  # serve() makes them (create_connection)
        await serve_connection(hub, session_connection, hub.guard.client_of(connection))

    # What is loaded by now (numba, the engine, the games) lives as long as the process: keep it out
    # of the collector's full passes, each of which would otherwise stall every match for ~100 ms.
    gc.collect()
    gc.freeze()
    # Each move leaves a few small objects alive (its record, its wire value) and websockets makes
    # some per frame: at the default threshold (700) the young collections cost about 1.5 µs a move
    # (benchmarks/server_load.py), at 20,000 a tenth of that, for a few MiB more of young objects.
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    # Heavy reads run in threads (the store's, exports, BayesElo fits); while one holds the GIL the
    # loop waits for it at every wake-up: at most 1 ms each rather than 5 (benchmarks/heavy_reads.py).
    sys.setswitchinterval(SWITCH_INTERVAL_S)

    websocket_server = await serve(
        handler,
        config.host,
        config.port,
        process_request=process_request,
        process_response=add_security_headers,
        create_connection=SessionConnection,
        compression=None,
        max_size=config.max_frame_bytes,
        ping_interval=config.ping_interval_s,
        ping_timeout=config.ping_timeout_s,
        close_timeout=config.close_timeout_s,
        open_timeout=config.hello_timeout_s,
    )
    port = websocket_server.sockets[0].getsockname()[1]
    bans.start()
    hub.tournaments.start()
    try:
        yield RunningServer(hub, websocket_server, routes, config.host, port, cluster)
    finally:
        await bans.stop()
        await standings.fits.stop()
        hub.stop_timers()
        websocket_server.close()
        await websocket_server.wait_closed()
        hub.stop_timers()  # disconnects during the close started grace timers
        await hub.matches.drain()
        await hub.unread.drain()
        if cluster is not None:
            await cluster.stop()
        await store.close()


def _healthz(hub: Hub) -> Callable[[ServerConnection, Request], Response]:
    def healthz(connection: ServerConnection, request: Request) -> Response:
        return json_response(
            connection,
            HTTPStatus.OK,
            {
                "status": "draining" if hub.draining else "ok",
                "protocol": PROTOCOL_VERSION,
                "node": hub.node,
                "players": len(hub.roster),
                "matches": len(hub.matches.live),
            },
        )

    return healthz


class _NodeLabel(logging.Filter):
    """Adds the node's id to every log record (a cluster's nodes log into one place)."""

    def __init__(self, node: str) -> None:
        super().__init__()
        self.node = node

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "node"):
            record.node = self.node
        return True


def _label_logs(node: str) -> None:
    label = _NodeLabel(node)
    for handler in logging.getLogger("arbiter").handlers + logging.getLogger().handlers:
        handler.addFilter(label)


def _metrics(hub: Hub) -> Callable[[ServerConnection, Request], Response]:
    """``GET /metrics``: the Prometheus text format; gauges nothing else keeps current are read here."""

    def metrics(connection: ServerConnection, request: Request) -> Response:
        if hub.node is not None:
            hub.metrics.node.labels(hub.node).set(1)
        hub.metrics.ladder_pairing.set(1 if hub.ladder.may_pair() else 0)
        for game, size in hub.ladder.queue_sizes().items():
            hub.metrics.ladder_queue.labels(game).set(size)
        for game, size in hub.ladder.queue_members().items():
            hub.metrics.ladder_members.labels(game).set(size)
        return text_response(connection, HTTPStatus.OK, hub.metrics.render().decode(), CONTENT_TYPE)

    return metrics


async def serve_until(
    config: ServerConfig,
    store: Store,
    stop: asyncio.Event,
    *,
    announce: Callable[[str], None],
    hurry: asyncio.Event | None = None,
) -> None:
    """Run until ``stop`` is set (the CLI sets it on SIGINT/SIGTERM), then drain for up to
    ``config.drain_timeout_s`` (cut short by ``hurry``) and stop — or, on a node of a cluster, hand
    the live matches over to the other nodes; ``announce`` gets the address."""
    async with run_server(config, store) as server:
        announce(server.url)
        log.info("listening", extra={"url": server.url})
        await stop.wait()
        if server.cluster is not None:
            await server.cluster.hand_over()  # its matches go on on the other nodes
        else:
            await server.hub.drain(config.drain_timeout_s, hurry)
        log.info("stopping")
