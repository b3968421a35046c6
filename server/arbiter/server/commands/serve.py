"""``arbiter serve``: run the match server until Ctrl-C or SIGTERM, then drain and stop cleanly."""

from __future__ import annotations

import asyncio
import signal

import click

from arbiter.cli.errors import fail
from arbiter.cli.logs import configure_logging, log_options
from arbiter.server.app import serve_until
from arbiter.server.cluster import ClusterError
from arbiter.server.config import (
    DEFAULT_LADDER_CLOCKS,
    DEFAULT_LADDER_OPENINGS,
    LadderConfig,
    ServerConfig,
    parse_analysis_delay,
    parse_ladder_clock,
    parse_ladder_opening,
    parse_ladder_swap,
)
from arbiter.server.event_loop import LOOPS, LoopUnavailable, default_loop
from arbiter.server.event_loop import run as run_on_loop
from arbiter.server.net.client_address import PROXY_HEADERS, IPNetwork, parse_network
from arbiter.server.store.base import StoreError
from arbiter.server.store.factory import MEMORY, is_url, store_for

DEFAULTS = ServerConfig()
# A public server's caps (ServerConfig's own defaults are no caps, for tests and embedding): a
# household or a bot author's machine rarely needs more than a few connections; 0 turns a cap off.
PUBLIC_MAX_CONNECTIONS = 10_000
PUBLIC_MAX_CONNECTIONS_PER_IP = 20
PUBLIC_MAX_GUESTS_PER_IP = 5
# Password work of a public server: each hash takes 64 MiB and ~0.1 s, two at a time.
PUBLIC_MAX_HASHING_QUEUE = 32
PUBLIC_SIGN_IN_ATTEMPTS_PER_S = 20.0
PUBLIC_ACCOUNT_FAILURES_PER_MINUTE = 5.0
PUBLIC_HEAVY_READS_PER_MINUTE = 30


@click.command()
@click.option(
    "--host", default=DEFAULTS.host, show_default=True, help="Address to listen on (0.0.0.0: every interface)."
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=DEFAULTS.port, show_default=True, help="Port; 0 picks a free one."
)
@click.option(
    "--db",
    envvar="ARBITER_DB",
    default="arbiter.db",
    show_default="$ARBITER_DB or ./arbiter.db",
    help=f"SQLite database file, created if missing; or a postgresql://user:password@host:port/database URL "
    f"(the database must exist; its tables are created); {MEMORY} keeps nothing.",
)
@click.option(
    "--grace",
    type=click.FloatRange(0, 3600),
    default=DEFAULTS.reconnect_grace_s,
    show_default=True,
    help="Seconds a disconnected player may take to come back before its matches are adjudicated.",
)
@click.option(
    "--challenge-ttl",
    type=click.FloatRange(1, 86400),
    default=DEFAULTS.challenge_ttl_s,
    show_default=True,
    help="Seconds before an unanswered direct challenge expires.",
)
@click.option(
    "--seek-ttl",
    type=click.FloatRange(1, 86400),
    default=DEFAULTS.seek_ttl_s,
    show_default=True,
    help="Seconds before an open seek nobody took expires.",
)
@click.option(
    "--max-matches",
    type=click.IntRange(1, 100_000),
    default=DEFAULTS.max_matches,
    show_default=True,
    help="Live matches one player may play at once.",
)
@click.option(
    "--rate",
    type=click.FloatRange(1, 1e6),
    default=DEFAULTS.rate_per_s,
    show_default=True,
    help="Messages per second one connection may send (burst: twice that).",
)
@click.option(
    "--ladder-clock",
    "ladder_clocks",
    multiple=True,
    metavar="GAME=SECS+INC[/LIMIT]",
    help="The ladder's time control for a game, e.g. gomoku=60+1 (repeatable; defaults in docs/STORE.md).",
)
@click.option(
    "--ladder-rematch-after",
    type=click.FloatRange(0, 86400),
    default=DEFAULTS.ladder.rematch_after_s,
    show_default=True,
    help="Seconds two players who just met on the ladder wait before they may be paired again.",
)
@click.option(
    "--ladder-opening",
    "ladder_openings",
    multiple=True,
    metavar="GAME=PLIES",
    help="Ladder games between two bots start from a balanced opening of PLIES moves, each played twice with the "
    "colours swapped: drawn from the game's book of judged openings if it has one of that length (gomoku and "
    "gomoku10: 3 plies), else random moves checked by playouts; e.g. gomoku=3; 0 turns it off (repeatable; "
    "defaults: gomoku=3, gomoku10=3).",
)
@click.option(
    "--ladder-swap",
    "ladder_swaps",
    multiple=True,
    metavar="GAME=RULE",
    help="The ladder's GAME plays a swap opening, its own rating pool: e.g. gomoku=swap2 (swap1, swap2; none: "
    "no swap). Only clients that announce the swap feature may join it (repeatable).",
)
@click.option(
    "--max-open-challenges",
    type=click.IntRange(1, 10_000),
    default=DEFAULTS.max_open_challenges,
    show_default=True,
    help="Direct challenges and seeks one player may have open at once.",
)
@click.option(
    "--max-spectators",
    type=click.IntRange(0, 1_000_000),
    default=DEFAULTS.max_spectators,
    show_default=True,
    help="Spectators one match may have.",
)
@click.option(
    "--analysis-queue",
    type=click.IntRange(1, 100_000),
    default=DEFAULTS.analysis_queue,
    show_default=True,
    help="Reviews and analysis-board requests the workers' queue holds at once (SPEC section 18).",
)
@click.option(
    "--review-budget-ms",
    type=click.IntRange(1, 60_000),
    default=DEFAULTS.review_budget_ms,
    show_default=True,
    help="A review's search time per position, on the analysis workers.",
)
@click.option(
    "--max-lag-credit-ms",
    type=click.IntRange(0, 10_000),
    default=DEFAULTS.max_lag_credit_ms,
    show_default=True,
    help="The most of its measured network round trip a mover is credited each move (0: none).",
)
@click.option(
    "--max-spectated",
    type=click.IntRange(0, 10_000),
    default=DEFAULTS.max_spectated,
    show_default=True,
    help="Matches one connection may watch at once.",
)
@click.option(
    "--max-frame-bytes",
    type=click.IntRange(1024, 16 * 1024 * 1024),
    default=DEFAULTS.max_frame_bytes,
    show_default=True,
    help="Largest incoming websocket frame; a larger one closes the connection (1009).",
)
@click.option(
    "--max-send-buffer",
    type=click.IntRange(64 * 1024, 1024**3),
    default=DEFAULTS.max_send_buffer_bytes,
    show_default=True,
    help="Bytes that may wait to be sent to one client; a client that does not read past this is closed (4009).",
)
@click.option(
    "--flood-tolerance",
    type=click.IntRange(0, 1_000_000),
    default=DEFAULTS.flood_tolerance,
    show_default=True,
    help="Messages a client may send past the rate limit (each dropped) before it is disconnected (4008).",
)
@click.option(
    "--hello-timeout",
    type=click.FloatRange(0.1, 3600),
    default=DEFAULTS.hello_timeout_s,
    show_default=True,
    help="Seconds a new connection has to send hello (else closed with 4002).",
)
@click.option(
    "--max-connections",
    type=click.IntRange(0, 10_000_000),
    default=PUBLIC_MAX_CONNECTIONS,
    show_default=True,
    help="Websocket connections this node holds at once; more are refused (HTTP 503). 0: no cap.",
)
@click.option(
    "--max-connections-per-ip",
    type=click.IntRange(0, 10_000_000),
    default=PUBLIC_MAX_CONNECTIONS_PER_IP,
    show_default=True,
    help="Websocket connections from one client address (an IPv4 address, an IPv6 /64) this node holds "
    "at once; more are refused (HTTP 429). 0: no cap.",
)
@click.option(
    "--max-guests-per-ip",
    type=click.IntRange(0, 10_000_000),
    default=PUBLIC_MAX_GUESTS_PER_IP,
    show_default=True,
    help="Guests (hello without a token) from one client address on this node; more get too_many_guests. 0: no cap.",
)
@click.option(
    "--trusted-proxy",
    "trusted_proxies",
    multiple=True,
    metavar="CIDR",
    help="A reverse proxy's address or network (repeatable): from it, the client is the rightmost "
    "address of --proxy-header that is not a trusted proxy. Default: none (the socket's peer is the client).",
)
@click.option(
    "--proxy-header",
    type=click.Choice(sorted(PROXY_HEADERS)),
    default=DEFAULTS.proxy_header,
    show_default=True,
    help="The header the trusted proxies name the client in (forwarded: RFC 7239's Forwarded). "
    "Only that one is read: the other is the client's own to forge.",
)
@click.option(
    "--ban-check-interval",
    type=click.FloatRange(0.05, 3600),
    default=DEFAULTS.ban_check_interval_s,
    show_default=True,
    help="Seconds between looks at the store's ban list (`arbiter ban`): a new ban takes effect within this.",
)
@click.option(
    "--heavy-reads-per-minute",
    type=click.IntRange(0, 1_000_000),
    default=PUBLIC_HEAVY_READS_PER_MINUTE,
    show_default=True,
    help="Heavy HTTP reads (/export, the leaderboard and crosstable pages, replays, player pages) one client "
    f"address may make a minute, after a burst of {DEFAULTS.heavy_reads_burst}; more get HTTP 429. 0: no cap.",
)
@click.option(
    "--analysis-delay",
    default=str(DEFAULTS.analysis_delay_plies),
    show_default=True,
    metavar="PLIES|end",
    help="In rated games, spectators get a move's analysis (move.info) this many plies after the move, or "
    "only in the record once the game is over (end), so that no opponent reads it in time. 0: at once.",
)
@click.option(
    "--ping-interval",
    type=click.FloatRange(0, 3600),
    default=DEFAULTS.ping_interval_s,
    show_default=True,
    help="Seconds between websocket keep-alive pings; 0 sends none.",
)
@click.option(
    "--ping-timeout",
    type=click.FloatRange(0, 3600),
    default=DEFAULTS.ping_timeout_s,
    show_default=True,
    help="Seconds a ping may go unanswered before the connection is dropped; 0 waits forever.",
)
@click.option(
    "--drain-timeout",
    type=click.FloatRange(0, 86400),
    default=DEFAULTS.drain_timeout_s,
    show_default=True,
    help="On SIGTERM or Ctrl-C, seconds live matches may take to finish (no new ones start) before "
    "the rest end as interrupted; a second signal ends them at once. (A cluster's node hands its "
    "matches over to the other nodes instead.)",
)
@click.option(
    "--cluster",
    "cluster_url",
    envvar="ARBITER_CLUSTER",
    metavar="redis://HOST:PORT/DB",
    help="Run as a node of a cluster: the Redis that joins the nodes. Every node uses the same "
    "--db postgresql://… URL; a client may connect to any node.",
)
@click.option("--node-id", help="This node's name in the cluster (logs, /healthz); default: host-pid-random.")
@click.option(
    "--registration",
    type=click.Choice(["open", "closed"]),
    default="open",
    show_default=True,
    help="Whether people may create accounts from the browser (closed: only `arbiter player add`).",
)
@click.option(
    "--secure-cookies",
    is_flag=True,
    help="Mark the browser's session cookies Secure: set it when people reach the server over https "
    "(TLS at a reverse proxy, docs/DEPLOY.md).",
)
@click.option(
    "--max-hashing-queue",
    type=click.IntRange(0, 100_000),
    default=PUBLIC_MAX_HASHING_QUEUE,
    show_default=True,
    help="Sign-ins, sign-ups and password changes waiting for a password hash (two run at once, 64 MiB "
    "each); more are refused (HTTP 503, Retry-After).",
)
@click.option(
    "--sign-in-attempts-per-s",
    type=click.FloatRange(0, 100_000),
    default=PUBLIC_SIGN_IN_ATTEMPTS_PER_S,
    show_default=True,
    help="Sign-ins, sign-ups and password changes of the whole node per second, from any address; more "
    "are refused (HTTP 503, Retry-After). 0: no cap.",
)
@click.option(
    "--account-failures-per-minute",
    type=click.FloatRange(0, 100_000),
    default=PUBLIC_ACCOUNT_FAILURES_PER_MINUTE,
    show_default=True,
    help="Failed sign-ins of one account name per minute on this node (as many at once), from any address; past it "
    "every sign-in of that name is refused (HTTP 429, Retry-After) until one more is allowed. 0: no cap.",
)
@click.option(
    "--loop",
    type=click.Choice(LOOPS),
    default=default_loop(),
    show_default="uvloop if installed, else asyncio",
    help="The event loop: uvloop (the optional dependency arbiter-server[uvloop]) or asyncio's own.",
)
@click.option("--no-warm", is_flag=True, help="Skip compiling the engine before listening (first moves will be slow).")
@log_options(
    help="Least severe log record on stderr: info has connections and match starts and ends; debug adds every move."
)
def serve(
    host: str,
    port: int,
    db: str,
    grace: float,
    challenge_ttl: float,
    seek_ttl: float,
    max_matches: int,
    rate: float,
    ladder_clocks: tuple[str, ...],
    ladder_rematch_after: float,
    ladder_openings: tuple[str, ...],
    ladder_swaps: tuple[str, ...],
    max_open_challenges: int,
    max_spectators: int,
    analysis_queue: int,
    review_budget_ms: int,
    max_lag_credit_ms: int,
    max_spectated: int,
    max_frame_bytes: int,
    max_send_buffer: int,
    flood_tolerance: int,
    hello_timeout: float,
    max_connections: int,
    max_connections_per_ip: int,
    max_guests_per_ip: int,
    trusted_proxies: tuple[str, ...],
    proxy_header: str,
    ban_check_interval: float,
    heavy_reads_per_minute: int,
    analysis_delay: str,
    ping_interval: float,
    ping_timeout: float,
    drain_timeout: float,
    cluster_url: str | None,
    node_id: str | None,
    registration: str,
    secure_cookies: bool,
    max_hashing_queue: int,
    sign_in_attempts_per_s: float,
    account_failures_per_minute: float,
    loop: str,
    no_warm: bool,
    log_level: str,
    log_format: str,
) -> None:
    """Run the match server: websocket protocol, GET /healthz and /metrics on one port.

    SIGTERM or Ctrl-C drains: no new match starts (challenges, accepts and ladder joins get
    ``unavailable``), live matches play on for up to --drain-timeout seconds while players may still
    log in to finish them, then the rest end as ``interrupted``; every end is announced and stored,
    and the process exits 0. A second signal ends the drain at once. On a node of a cluster
    (--cluster) SIGTERM hands the live matches over instead: every move is stored, the clients are
    closed with 1001 to connect again, and the other nodes go on with the matches at once.
    """
    configure_logging(log_level, log_format)
    if cluster_url is not None:
        if not cluster_url.startswith(("redis://", "rediss://", "unix://")):
            fail(f"--cluster must be a redis:// URL, not {cluster_url!r}")
        if not is_url(db):
            fail("a cluster's nodes share one store: give --db postgresql://…")
    clocks = dict(DEFAULT_LADDER_CLOCKS)
    for text in ladder_clocks:
        try:
            game, clock = parse_ladder_clock(text)
        except ValueError as error:
            fail(f"--ladder-clock {error}")
        clocks[game] = clock
    proxies: list[IPNetwork] = []
    for text in trusted_proxies:
        try:
            proxies.append(parse_network(text))
        except ValueError as error:
            fail(f"--trusted-proxy {error}")
    openings = dict(DEFAULT_LADDER_OPENINGS)
    for text in ladder_openings:
        try:
            game, plies = parse_ladder_opening(text)
        except ValueError as error:
            fail(f"--ladder-opening {error}")
        openings[game] = plies
    swaps: dict[str, str] = {}
    for text in ladder_swaps:
        try:
            game, rule = parse_ladder_swap(text)
        except ValueError as error:
            fail(f"--ladder-swap {error}")
        if rule == "none":
            swaps.pop(game, None)
        else:
            swaps[game] = rule
    try:
        delay_plies = parse_analysis_delay(analysis_delay)
    except ValueError as error:
        fail(f"--analysis-delay {error}")
    config = ServerConfig(
        host=host,
        port=port,
        reconnect_grace_s=grace,
        challenge_ttl_s=challenge_ttl,
        seek_ttl_s=seek_ttl,
        max_matches=max_matches,
        rate_per_s=rate,
        rate_burst=int(2 * rate),
        flood_tolerance=flood_tolerance,
        max_open_challenges=max_open_challenges,
        max_spectators=max_spectators,
        analysis_queue=analysis_queue,
        review_budget_ms=review_budget_ms,
        max_spectated=max_spectated,
        max_lag_credit_ms=max_lag_credit_ms,
        max_frame_bytes=max_frame_bytes,
        max_send_buffer_bytes=max_send_buffer,
        hello_timeout_s=hello_timeout,
        max_connections=max_connections or None,
        max_connections_per_ip=max_connections_per_ip or None,
        max_guests_per_ip=max_guests_per_ip or None,
        trusted_proxies=tuple(proxies),
        proxy_header=proxy_header,
        ban_check_interval_s=ban_check_interval,
        heavy_reads_per_minute=heavy_reads_per_minute or None,
        analysis_delay_plies=delay_plies,
        ping_interval_s=ping_interval or None,
        ping_timeout_s=ping_timeout or None,
        drain_timeout_s=drain_timeout,
        ladder=LadderConfig(clocks=clocks, openings=openings, swaps=swaps, rematch_after_s=ladder_rematch_after),
        warm_engine=not no_warm,
        cluster_url=cluster_url,
        node_id=node_id,
        registration_open=registration == "open",
        secure_cookies=secure_cookies,
        max_hashing_queue=max_hashing_queue,
        sign_in_attempts_per_s=sign_in_attempts_per_s or None,
        account_failures_per_minute=account_failures_per_minute or None,
    )
    try:
        store = store_for(db)
    except StoreError as error:
        fail(str(error))

    async def main() -> None:
        stop, hurry = asyncio.Event(), asyncio.Event()  # the first signal drains, a second cuts it short
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, lambda: (hurry if stop.is_set() else stop).set())
        await serve_until(
            config, store, stop, hurry=hurry, announce=lambda url: click.echo(f"listening on {url}", err=True)
        )

    try:
        run_on_loop(main(), loop)
    except (StoreError, ClusterError, LoopUnavailable) as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error.strerror or error}")
    click.echo("stopped", err=True)


COMMANDS = [serve]
