"""Every server setting in one place, with its default; the limits part is announced in welcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arbiter.engine import ParamError, create_game, game_names
from arbiter.protocol.codec import MAX_FRAME_BYTES
from arbiter.server.basics.pools import pool_key
from arbiter.server.net.client_address import IPNetwork

from .basics.clock import ClockSpec

# Ladder time controls: short enough that bots play many games, long enough to think.
DEFAULT_LADDER_CLOCKS: dict[str, ClockSpec] = {
    "tictactoe": ClockSpec(10_000, 200),
    "tictactoe4": ClockSpec(30_000, 500),
    "vanishing": ClockSpec(30_000, 500),
}
DEFAULT_LADDER_CLOCK = ClockSpec(60_000, 1_000)
# Balanced openings for ladder games between two bots (openings.py): plies per game, each opening
# played twice with the colours swapped. Deterministic bots would otherwise replay one game. A game
# with a book of judged openings (books/) gets its book's plies.
DEFAULT_LADDER_OPENINGS: dict[str, int] = {"gomoku": 3, "gomoku10": 3}


@dataclass(frozen=True)
class LadderConfig:
    """The ladder's settings: a clock per game (others get ``default_clock``) and the pairing knobs."""

    clocks: Mapping[str, ClockSpec] = field(default_factory=lambda: dict(DEFAULT_LADDER_CLOCKS))
    default_clock: ClockSpec = DEFAULT_LADDER_CLOCK
    openings: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_LADDER_OPENINGS))  # plies by game
    swaps: Mapping[str, str] = field(default_factory=dict)  # game → the swap opening its ladder plays (swap2)
    window: float = 200.0  # rating points a pairing may span at first
    widen_per_s: float = 10.0  # and more for every second of waiting
    rematch_after_s: float = 30.0  # two players who just met wait this long before meeting again
    retry_s: float = 1.0  # how often waiting players are looked at again
    seed: int | None = None  # for the pairing's randomness (tests)

    def clock_for(self, game: str) -> ClockSpec:
        return self.clocks.get(game, self.default_clock)

    def params_for(self, game: str) -> dict[str, Any]:
        """The rules of the ladder's ``game``: its defaults, with the swap opening it plays, if any."""
        return {"opening": self.swaps[game]} if game in self.swaps else {}

    def pool_of(self, game: str) -> str:
        """The ladder's rating pool for ``game``: its rules under the ladder's clock."""
        return pool_key(game, self.params_for(game), self.clock_for(game).describe())


def parse_analysis_delay(text: str) -> int | None:
    """``4`` (plies) or ``end``: how long spectators of a rated match wait for a move's analysis; ValueError."""
    if text == "end":
        return None
    if not text.isdigit() or int(text) > 1000:
        raise ValueError(f"{text!r}: a whole number of plies from 0 to 1000, or end")
    return int(text)


def parse_ladder_opening(text: str) -> tuple[str, int]:
    """``gomoku=3``: GAME=PLIES of the balanced opening ladder bot games start from (0: none); ValueError."""
    game, sep, plies = text.partition("=")
    if not sep or game not in game_names():
        raise ValueError(f"{text!r}: expected GAME=PLIES with a game from {game_names()}")
    if not plies.isdigit() or int(plies) > 20:
        raise ValueError(f"{text!r}: PLIES is a whole number from 0 to 20")
    return game, int(plies)


def parse_ladder_swap(text: str) -> tuple[str, str]:
    """``gomoku=swap2``: GAME=RULE, the swap opening the ladder's GAME plays (none: no swap); ValueError."""
    game, sep, rule = text.partition("=")
    if not sep or game not in game_names():
        raise ValueError(f"{text!r}: expected GAME=RULE with a game from {game_names()}")
    try:
        create_game(game, {"opening": rule})
    except ParamError as error:
        raise ValueError(f"{text!r}: {error}") from None
    return game, rule


def parse_ladder_clock(text: str) -> tuple[str, ClockSpec]:
    """``gomoku=60+1`` or ``gomoku=60+1/5``: GAME=INITIAL+INCREMENT[/MOVE_LIMIT] in seconds; ValueError."""
    game, sep, spec = text.partition("=")
    if not sep or game not in game_names():
        raise ValueError(f"{text!r}: expected GAME=INITIAL+INCREMENT[/MOVE_LIMIT] with a game from {game_names()}")
    times, slash, limit = spec.partition("/")
    initial, _, increment = times.partition("+")
    try:
        clock = ClockSpec(
            round(float(initial) * 1000),
            round(float(increment or 0) * 1000),
            round(float(limit) * 1000) if slash else None,
        )
    except ValueError:
        raise ValueError(f"{text!r}: times are seconds, like gomoku=60+1 or gomoku=60+1/5") from None
    if (
        clock.initial_ms <= 0
        or clock.increment_ms < 0
        or (clock.move_limit_ms is not None and clock.move_limit_ms <= 0)
    ):
        raise ValueError(f"{text!r}: the initial time and a move limit must be positive, the increment not negative")
    return game, clock


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765  # 0 picks a free port (tests)

    # Frames and connections
    max_frame_bytes: int = MAX_FRAME_BYTES  # larger incoming frames close the connection (1009)
    max_send_buffer_bytes: int = 4 * 1024 * 1024  # a client that does not read beyond this is closed (4009)
    ping_interval_s: float | None = 20.0  # websocket keepalive; a dead peer is dropped after interval + timeout
    ping_timeout_s: float | None = 20.0
    hello_timeout_s: float = 10.0  # the first message must be hello within this (4002)
    close_timeout_s: float = 5.0

    # Abuse controls of a public server (None: no cap; ``arbiter serve`` sets public defaults). The
    # caps count this node's own connections; a client address is an IPv4 address or an IPv6 /64.
    max_connections: int | None = None  # websocket connections in all; past it the handshake gets 503
    max_connections_per_ip: int | None = None  # from one client address; past it 429
    max_guests_per_ip: int | None = None  # guests welcomed from one client address; past it too_many_guests
    trusted_proxies: tuple[IPNetwork, ...] = ()  # reverse proxies whose proxy_header names the client
    proxy_header: str = "x-forwarded-for"  # or "forwarded" (RFC 7239): the one header they write
    ban_check_interval_s: float = 1.0  # how often the ban list is looked up in the store
    # Heavy HTTP reads (exports, standings, replays: heavy_reads.py) per client address: a burst,
    # then this many a minute; past it 429.
    heavy_reads_per_minute: int | None = None
    heavy_reads_burst: int = 10

    # Rate limit per connection: a token bucket; past it, messages are dropped with rate_limited,
    # and a client that keeps going for flood_tolerance more messages is closed (4008).
    rate_per_s: float = 200.0
    rate_burst: int = 400
    flood_tolerance: int = 200

    # Players, challenges, matches
    reconnect_grace_s: float = 30.0  # a dropped player may come back this long; then its matches are adjudicated
    challenge_ttl_s: float = 60.0  # a direct challenge not answered by then expires
    seek_ttl_s: float = 600.0  # an open seek not taken by then expires
    max_open_challenges: int = 20  # per player: direct challenges and seeks it has open
    max_matches: int = 100  # live matches per player (bots play many at once)
    max_spectated: int = 32  # matches one connection may watch
    max_spectators: int = 1000  # spectators of one match
    # Spectators of a rated match get each move's analysis (move.info) this many plies after the move
    # (None: only in the record, after the game), so an opponent watching too learns it too late to use.
    analysis_delay_plies: int | None = 4
    finished_ids_kept: int = 10_000  # ended matches remembered, to answer match_over instead of unknown_match
    # A mover is not charged its connection's round trip (measured by the websocket pings), up to this.
    max_lag_credit_ms: int = 200

    # Clocks accepted in challenges (milliseconds)
    min_initial_ms: int = 100
    max_initial_ms: int = 3 * 3600 * 1000
    max_increment_ms: int = 600 * 1000
    min_move_limit_ms: int = 100
    max_move_limit_ms: int = 3600 * 1000

    ladder: LadderConfig = field(default_factory=LadderConfig)  # ladder clocks per game and pairing
    tournament_interval_s: float = 1.0  # how often the tournaments are looked at (tournaments/scheduler.py)

    drain_timeout_s: float = 30.0  # on SIGTERM, live matches may finish this long before they are interrupted

    warm_engine: bool = True  # compile every game's kernels before listening, so no clock runs during it

    # A node of a cluster (cluster.py): the Redis that joins the nodes, and this node's id (default:
    # host-pid-random). The nodes share one PostgreSQL store.
    cluster_url: str | None = None
    node_id: str | None = None

    # Accounts from the browser (accounts.py): whether anyone may sign up, and whether the session
    # cookies are marked Secure (the server is reached over https).
    registration_open: bool = True
    secure_cookies: bool = False
    # Password work (each hash takes 64 MiB; two run at once): requests waiting for a hash (past it
    # 503), sign-in attempts per second of the whole server (past it 503), and failed sign-ins of
    # one account name per minute from any address (past it 429). None: no bound (``arbiter serve``
    # sets public defaults).
    max_hashing_queue: int | None = None
    sign_in_attempts_per_s: float | None = None
    account_failures_per_minute: float | None = None

    # Analysis (SPEC section 18): requests (reviews and analysis-board positions) held at once by the
    # queue the workers take jobs from, past it analysis_queue_full; a review's time per position;
    # analysis-board requests per person: a bucket of analyse_burst refilled at analyse_per_s.
    analysis_queue: int = 50
    review_budget_ms: int = 300
    analyse_per_s: float = 1.0
    analyse_burst: int = 5

    def limits(self) -> dict[str, Any]:
        """The limits a client must respect, as sent in welcome."""
        return {
            "max_frame_bytes": self.max_frame_bytes,
            "rate_per_s": self.rate_per_s,
            "rate_burst": self.rate_burst,
            "flood_tolerance": self.flood_tolerance,
            "hello_timeout_ms": int(self.hello_timeout_s * 1000),
            "reconnect_grace_ms": int(self.reconnect_grace_s * 1000),
            "challenge_ttl_ms": int(self.challenge_ttl_s * 1000),
            "seek_ttl_ms": int(self.seek_ttl_s * 1000),
            "max_open_challenges": self.max_open_challenges,
            "max_matches": self.max_matches,
            "max_spectated": self.max_spectated,
            "max_spectators": self.max_spectators,
            "max_send_buffer_bytes": self.max_send_buffer_bytes,
            "max_lag_credit_ms": self.max_lag_credit_ms,
            "clock": {
                "min_initial_ms": self.min_initial_ms,
                "max_initial_ms": self.max_initial_ms,
                "max_increment_ms": self.max_increment_ms,
                "min_move_limit_ms": self.min_move_limit_ms,
                "max_move_limit_ms": self.max_move_limit_ms,
            },
        }
