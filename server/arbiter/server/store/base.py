"""The store interface the server, the ladder and the CLI use; SQLite implements it by default.

Every method is async so the event loop never waits on a disk: an implementation runs its
queries off the loop (SQLite: one writer thread that batches). A PostgreSQL store can implement
the same class later without the rest of Arbiter changing.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from arbiter.server.basics.pools import label, pool_key
from arbiter.server.basics.ratings import PROVISIONAL_DEVIATION
from arbiter.server.net.client_address import parse_network

PlayerKind = Literal["bot", "human"]
BanKind = Literal["player", "network"]
MAX_BAN_REASON = 500  # characters

# Names the server hands to guests start with this; nobody can register one (case-insensitive).
GUEST_PREFIX = "guest-"
STREAM_BATCH = 200  # games a store reads at a time for stream_games
MAX_NAME_LENGTH = 32
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


class StoreError(RuntimeError):
    """The store cannot do what was asked (disk full, file locked or corrupt, …). Message is for people."""


class NameTaken(StoreError):
    """A player with that name already exists."""


class UnknownPlayer(StoreError):
    """No player by that name."""


class BadName(StoreError):
    """A name that cannot be registered: empty, too long, odd characters, or reserved for guests."""


class BadBan(StoreError):
    """A ban that cannot be: an unknown kind, a malformed network, an overlong reason."""


class AlreadyBanned(StoreError):
    """That player or network is banned already."""


class NotBanned(StoreError):
    """No ban of that player or network to remove."""


def check_player_name(name: str) -> str:
    """Return ``name`` if it can be registered, else raise BadName saying why."""
    if not isinstance(name, str) or not name:
        raise BadName("a player name must be a non-empty string")
    if len(name) > MAX_NAME_LENGTH:
        raise BadName(f"a player name has at most {MAX_NAME_LENGTH} characters, {name!r} has {len(name)}")
    if not set(name) <= _NAME_CHARS or not name[0].isalnum():
        raise BadName(f"{name!r}: a player name is letters, digits, '_', '-', '.', and starts with a letter or digit")
    if name.lower().startswith(GUEST_PREFIX.rstrip("-")):
        raise BadName(f"{name!r}: names starting with 'guest' are reserved for guests")
    return name


def check_new_player(name: str, kind: str, owner: str | None) -> None:
    """StoreError unless a player named ``name`` of ``kind`` (owned by ``owner``) may be registered."""
    check_player_name(name)
    if kind not in ("bot", "human"):
        raise StoreError(f"a player's kind is 'bot' or 'human', not {kind!r}")
    if owner is not None and kind != "bot":
        raise StoreError("only a bot has an owner")


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    kind: PlayerKind
    created: float  # unix time
    revoked: bool = False  # by its owner or by the operator: it cannot log in
    owner: str | None = None  # the account that created this bot from the browser (accounts.py)
    revoked_by_operator: bool = False  # `arbiter player revoke`: only `arbiter player reinstate` lifts it


@dataclass(frozen=True)
class Ban:
    """A player (``target``: its registered name) or an IP network (``target``: CIDR, as
    ``ban_target`` writes it: ``203.0.113.7/32``, ``2001:db8::/48``) kept off the server."""

    kind: BanKind
    target: str
    reason: str | None
    created: float  # unix time


def ban_target(kind: str, target: str) -> str:
    """The target as a ban stores it: a network in its canonical CIDR form (a single address is a /32
    or /128); BadBan saying what is wrong. A player's name is checked against the players by the store."""
    if kind == "player":
        if not isinstance(target, str) or not target:
            raise BadBan("a player ban needs the player's name")
        return target
    if kind == "network":
        try:
            return str(parse_network(target))
        except ValueError as error:
            raise BadBan(str(error)) from None
    raise BadBan(f"a ban is of a 'player' or a 'network', not {kind!r}")


def check_ban_reason(reason: str | None) -> None:
    if reason is not None and len(reason) > MAX_BAN_REASON:
        raise BadBan(f"a ban's reason has at most {MAX_BAN_REASON} characters")


@dataclass(frozen=True)
class GameStart:
    """What is known when a match starts. ``players[i]`` plays colour i (0 moves first).

    ``levels[i]`` is the level a challenge asked of player i (None: its own), which with the
    player makes the rated identity (pools.py); ``pool`` is the rating pool, from the game, its
    parameters and the clock unless given."""

    match_id: str
    game: str
    params: dict[str, Any]
    players: tuple[str, str]
    clock: dict[str, Any]
    rated: bool
    started: float
    levels: tuple[int | None, int | None] = (None, None)
    pool: str = ""
    opening: int = 0  # plies of a balanced opening the game started from (openings.py)

    def __post_init__(self) -> None:
        if not self.pool:
            object.__setattr__(self, "pool", pool_key(self.game, self.params, self.clock))

    @property
    def identities(self) -> tuple[str, str]:
        """The rated identities of both sides (``name`` or ``name@level``)."""
        return label(self.players[0], self.levels[0]), label(self.players[1], self.levels[1])


@dataclass(slots=True)  # not frozen: built on every move, and a frozen __init__ costs twice as much
class MoveRecord:
    ply: int  # 0-based index of the move in the game
    move: Any  # the wire value
    elapsed_ms: int  # thinking time the mover's clock was charged
    info: dict[str, Any] | None = None  # the mover's analysis, as the move carried it (protocol: move.info)


# A match keeps its first MAX_REFUSALS_KEPT refused moves, each move cut to MAX_REFUSED_MOVE_CHARS of
# JSON; the refusals beyond are only counted, so a client flooding bad moves cannot fill the disk.
MAX_REFUSALS_KEPT = 50
MAX_REFUSED_MOVE_CHARS = 200


RESIGNED = "resign:"  # the code of a failure that is no refused move: a bot's resignation with a cause


def resignation_code(cause: str) -> str:
    """The code under which a resignation for ``cause`` (its engine crashed, hung…) is kept with the refusals."""
    return RESIGNED + cause


@dataclass(frozen=True)
class RefusedMove:
    """A move the server refused in a live match, kept for the mover's failure report; or, with a
    code ``resign:CAUSE`` and no move, the bot's resignation for that cause (``resign.cause``)."""

    ply: int  # the ply the move was refused at (the number of moves accepted before it)
    color: int  # the side that sent it
    move: str  # JSON of the wire value, at most MAX_REFUSED_MOVE_CHARS characters
    code: str  # the protocol error code the mover got (illegal_move, bad_move, not_your_turn, …)
    at: float  # unix time

    @classmethod
    def of(cls, ply: int, color: int, wire: Any, code: str, at: float) -> RefusedMove:
        """A refusal of the wire value ``wire``, its JSON bounded in size (whatever the client sent)."""
        try:
            text = json.dumps(wire, separators=(",", ":"), default=repr)
        except (ValueError, TypeError):  # a circular or otherwise unprintable value
            text = repr(type(wire))
        return cls(ply, color, text[:MAX_REFUSED_MOVE_CHARS], code, at)


@dataclass(frozen=True, slots=True)
class AsideMove:
    """A move beside a casual game's line (SPEC.md section 15): ``taken_back`` (played at ``ply`` by
    ``color``, then taken back) or ``hint`` (suggested to ``color`` for its move at ``ply``)."""

    kind: Literal["taken_back", "hint"]
    ply: int
    color: int
    move: Any  # the wire value
    elapsed_ms: int = 0


@dataclass(frozen=True)
class Rating:
    """A rated identity's rating in a pool: the player at a level (None: its own), pools.py."""

    player: str
    pool: str
    rating: float
    deviation: float
    volatility: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    level: int | None = None

    @property
    def label(self) -> str:
        return label(self.player, self.level)

    @property
    def provisional(self) -> bool:
        """Glicko-2 deviation still high: the rating is an early estimate."""
        return self.deviation > PROVISIONAL_DEVIATION


@dataclass(frozen=True)
class GameRecord:
    """A finished (or interrupted) game as stored."""

    start: GameStart
    moves: list[MoveRecord]
    result: str | None  # "1-0", "0-1", "1/2-1/2", or None while live / interrupted
    reason: str | None
    ended: float | None
    rating_changes: dict[str, float] = field(default_factory=dict)
    refusals: list[RefusedMove] = field(default_factory=list)  # the first MAX_REFUSALS_KEPT, in order
    refused: int = 0  # every refused move, including those beyond the ones kept
    asides: list[AsideMove] = field(default_factory=list)  # moves taken back and hints given, in order
    swap: list[dict[str, Any]] = field(default_factory=list)  # a swap opening's choices ({by: name, choice, ply})


RESULTS = ("1-0", "0-1", "1/2-1/2")


def check_result(result: str | None) -> None:
    """StoreError unless ``result`` is one a game can end with (None: no result, e.g. aborted)."""
    if result is not None and result not in RESULTS:
        raise StoreError(f"a result is one of {', '.join(RESULTS)} or None, not {result!r}")


# Given both players' ratings at commit time (first mover first) and the result, their new ratings.
# The server passes ``arbiter.server.results.rating_updates.rate_result``; a store only saves what it returns.
Rater = Callable[[Rating, Rating, str], tuple[Rating, Rating]]


class Store(ABC):
    """Players, games and ratings. Open with ``await store.open()``; close with ``await store.close()``."""

    @abstractmethod
    async def open(self) -> None: ...

    @abstractmethod
    async def close(self) -> None:
        """Flush every pending write, then release the database."""

    # --- players -----------------------------------------------------------------------------
    @abstractmethod
    async def add_player(
        self, name: str, kind: PlayerKind, *, owner: str | None = None, password_hash: str | None = None
    ) -> str:
        """Register a player; return its new token (stored only hashed). NameTaken if it exists.
        ``owner``: the human account a bot belongs to (UnknownPlayer if there is no such human);
        ``password_hash``: a person's password as ``accounts.hash_password`` made it."""

    @abstractmethod
    async def authenticate(self, token: str) -> Player | None:
        """The player whose token this is (compared in constant time), or None (unknown/revoked)."""

    @abstractmethod
    async def get_player(self, name: str) -> Player | None: ...

    @abstractmethod
    async def list_players(self) -> list[Player]: ...

    @abstractmethod
    async def reissue_token(self, name: str) -> str:
        """Replace the player's token with a new one (lifting its owner's revocation, never the
        operator's); return it once. UnknownPlayer if there is none. The old token stops working at once."""

    @abstractmethod
    async def revoke_player(self, name: str, *, by_owner: bool = False) -> None:
        """Revoke the player's token: by the operator (only ``reinstate_player`` lifts that), or
        ``by_owner`` from the browser (a new token lifts that). UnknownPlayer if there is none."""

    @abstractmethod
    async def reinstate_player(self, name: str) -> None:
        """Lift the operator's revocation (the token it had works again). UnknownPlayer if there is none."""

    @abstractmethod
    async def bots_of(self, owner: str) -> list[Player]:
        """The bots the account ``owner`` created, by name (revoked ones too)."""

    # --- accounts: passwords and browser sessions (accounts.py) ----------------------------------
    @abstractmethod
    async def password_hash(self, name: str) -> str | None:
        """The stored password hash of the player (None: no such player, or no password)."""

    @abstractmethod
    async def set_password_hash(self, name: str, password_hash: str) -> None:
        """Replace the player's password hash. UnknownPlayer if there is none."""

    @abstractmethod
    async def add_session(self, name: str, selector: str, secret_hash: bytes, expires: float) -> None:
        """Keep a signed-in browser session of player ``name`` until ``expires`` (unix time).
        UnknownPlayer if there is none."""

    @abstractmethod
    async def session_player(self, selector: str, secret_hash: bytes, now: float) -> Player | None:
        """The player of an unexpired session whose secret hashes to ``secret_hash`` (compared in
        constant time), unless its account is revoked; else None."""

    @abstractmethod
    async def end_sessions(self, *, selector: str | None = None, name: str | None = None) -> int:
        """End one session (``selector``) or every session of a player (``name``); how many ended."""

    # --- bans --------------------------------------------------------------------------------
    @abstractmethod
    async def add_ban(self, kind: BanKind, target: str, reason: str | None = None) -> Ban:
        """Ban a registered player (UnknownPlayer if there is none) or an IP network (BadBan if it
        does not parse: see ``ban_target``); AlreadyBanned if it is. Returns the ban as stored."""

    @abstractmethod
    async def remove_ban(self, kind: BanKind, target: str) -> None:
        """Lift a ban (a player's name in any case; a network as ``ban_target`` reads it); NotBanned if none."""

    @abstractmethod
    async def list_bans(self) -> list[Ban]:
        """Every ban, oldest first."""

    @abstractmethod
    async def bans_version(self) -> int:
        """A number that changes whenever a ban is added or removed, or the operator revokes a
        player (servers poll it, cheaply)."""

    # --- games -------------------------------------------------------------------------------
    @abstractmethod
    async def start_game(self, start: GameStart) -> None:
        """Record that a match began (queued; does not wait for the disk)."""

    @abstractmethod
    def record_move(self, match_id: str, move: MoveRecord) -> None:
        """Queue a move for the next batched write. Never blocks, never waits."""

    @abstractmethod
    def record_swap(self, match_id: str, choices: list[dict[str, Any]], *, swapped: bool) -> None:
        """Queue a swap opening's choices so far like ``record_move`` (after each): in order, each ``{by:
        player name, choice, ply}``; ``swapped``: the opener took white, so the game's players (and
        their levels) change places, the first being black (``GameStart.players``)."""

    @abstractmethod
    def record_refusal(self, match_id: str, refusal: RefusedMove) -> None:
        """Queue a refused move like ``record_move``: never blocks. The game counts every refusal
        and keeps the first MAX_REFUSALS_KEPT (``GameRecord.refusals``, ``GameRecord.refused``)."""

    @abstractmethod
    def record_asides(self, match_id: str, asides: list[AsideMove], keep: int | None = None) -> None:
        """Queue moves beside the line like ``record_move`` (never blocks); ``keep``: a takeback, after
        which the game's line is its first ``keep`` moves (the later ones are the asides taken back)."""

    async def flush(self) -> None:
        """Wait until every write queued so far is durably on disk; StoreError if it cannot be.
        A store that writes at once (or keeps nothing) has nothing to wait for."""
        return None

    @abstractmethod
    async def finish_game(
        self, match_id: str, result: str | None, reason: str, ended: float, rate: Rater | None = None
    ) -> dict[str, float]:
        """Commit the game's end durably, with both players' ratings from ``rate`` when the game is
        rated, has a result and both players are registered (end and ratings in one transaction);
        return the rating change of each player by name (empty when unrated or ``rate`` is None).

        Finishing a game again with the same result and reason changes nothing and returns the
        changes it brought (a retried end is never rated twice); another end is a StoreError, as
        is an unknown match. A store that cannot write the end now raises StoreError but keeps
        the end and writes it later (SQLite: retried, and kept in a side file across restarts)."""

    @abstractmethod
    async def get_game(self, match_id: str) -> GameRecord | None: ...

    @abstractmethod
    async def list_games(
        self,
        *,
        player: str | None = None,
        game: str | None = None,
        limit: int | None = 100,
        finished: bool = False,
        after: str | None = None,
    ) -> list[GameRecord]:
        """Games newest first (finished, live and interrupted; ``finished``: those that ended only),
        filtered; ``limit=None`` for all. ``after`` (a match id) continues a listing: only the games
        listed after that one (older), none if there is no such game."""

    @abstractmethod
    async def discard_game(self, match_id: str) -> None:
        """Forget a finished game with its moves (a guest's aborted game: not worth keeping). A live
        or unknown game is left as it is."""

    @abstractmethod
    def stream_games(self, *, batch_size: int = STREAM_BATCH) -> AsyncIterator[GameRecord]:
        """Every stored game with its moves, read ``batch_size`` games at a time, so a store of any
        size is walked in bounded memory (``arbiter check``): first the finished games pool by pool,
        each pool's in the order they ended (the order ``rebuild_ratings`` rates them in), then the
        others (live, interrupted, or from before rating pools)."""

    @abstractmethod
    async def orphan_moves(self) -> dict[int, int]:
        """Moves stored under a game id no game has, as {game id: number of moves}. The moves
        table has no foreign key (migration 5), so only a bug or a hand edit leaves any."""

    @abstractmethod
    async def interrupted_games(self) -> list[GameRecord]:
        """Games started but never finished (found after a crash), for the restart rule. A game
        whose end was announced but could not be written yet comes with that end (result,
        reason, ended) filled in, so the restart rule writes it rather than adjudicating."""

    # --- ratings -----------------------------------------------------------------------------
    @abstractmethod
    async def get_rating(self, player: str, pool: str, level: int | None = None) -> Rating:
        """The rating of ``player`` (at ``level``) in ``pool``; a fresh one if it never played there.
        UnknownPlayer if there is no such player."""

    @abstractmethod
    async def leaderboard(self, pool: str) -> list[Rating]:
        """Every rated identity of ``pool`` (registered players, each level apart), best first."""

    @abstractmethod
    async def rating_pools(self, game: str | None = None) -> list[str]:
        """The pools that hold ratings (of ``game``'s pools only, if given), sorted."""

    @abstractmethod
    async def rated_results(self, pool: str) -> list[tuple[str, str, str]]:
        """(first identity, second identity, result) of each rated, finished game of ``pool`` with a
        result, in the order they ended: a pool's BayesElo fit, without reading any moves."""

    @abstractmethod
    async def crosstable(self, pool: str) -> dict[str, dict[str, list[int]]]:
        """For each pair of rated identities (labels): [wins, draws, losses] of the first against
        the second (rated, finished games of the pool)."""

    @abstractmethod
    async def rating_history(
        self, player: str, pool: str, level: int | None = None
    ) -> list[tuple[float, float, float]]:
        """(time, rating, deviation) after each rated game of ``player`` (at ``level``) in ``pool``,
        oldest first. UnknownPlayer if there is no such player."""

    async def ratings_outdated(self) -> bool:
        """Whether the ratings must be rebuilt from the games (after a schema change): see
        ``rebuild_ratings``. A store that never keeps ratings from an older schema says no."""
        return False

    @abstractmethod
    async def rebuild_ratings(self, rate: Rater) -> int:
        """Recompute every rating by replaying the rated, finished games in the order they ended,
        with ``rate``; the number of games replayed."""

    # --- unread ends -------------------------------------------------------------------------
    @abstractmethod
    async def unread_ends(self, player: str, since: float, limit: int) -> list[GameRecord]:
        """The games ended at ``since`` or later whose end ``player``'s client has not confirmed
        reading: the ``limit`` that ended last, oldest first. ``finish_game`` marks the end unread for
        each registered player of the game, in the end's transaction (guests are never marked)."""

    @abstractmethod
    async def ends_read(self, reads: list[tuple[str, str]]) -> None:
        """Each ``(player, match id)``: the player's client confirmed reading the match's end."""

    # --- tournaments -------------------------------------------------------------------------
    @abstractmethod
    async def add_tournament(self, name: str, spec: dict[str, Any]) -> Tournament:
        """A new tournament, open for entries; TournamentExists if the name is taken (any case),
        BadName if it cannot be a tournament's name (as a player's: ``check_player_name``)."""

    @abstractmethod
    async def get_tournament(self, name: str) -> Tournament | None:
        """The tournament of that name (any case), or None."""

    @abstractmethod
    async def list_tournaments(self) -> list[Tournament]:
        """Every tournament, oldest first."""

    @abstractmethod
    async def set_tournament_state(self, name: str, state: TournamentState) -> None:
        """UnknownTournament if there is none."""

    @abstractmethod
    async def enter_tournament(self, name: str, player: str) -> None:
        """Add a registered player to the field (UnknownPlayer, UnknownTournament; AlreadyEntered
        if it is in the field, withdrawn or not)."""

    @abstractmethod
    async def withdraw_from_tournament(self, name: str, player: str) -> None:
        """The player leaves the field; NotEntered unless it is in it and not withdrawn already."""

    @abstractmethod
    async def tournament_entries(self, name: str) -> list[TournamentEntry]:
        """The field in the order it entered (UnknownTournament if there is none)."""

    @abstractmethod
    async def add_tournament_games(
        self, name: str, games: list[TournamentGame], *, seeds: dict[str, int] | None = None,
        state: TournamentState | None = None,
    ) -> None:  # fmt: skip
        """Add pairings, in one transaction with the entrants' ``seeds`` and the new ``state``
        if given (a start writes all three at once, so a crash leaves a tournament started with
        every pairing or not started at all). TournamentError if a round and board exist."""

    @abstractmethod
    async def tournament_games(self, name: str) -> list[TournamentGame]:
        """Every pairing with what is known of it, by round then board."""

    @abstractmethod
    async def update_tournament_game(self, name: str, game: TournamentGame) -> None:
        """Write the match id, score, forfeit and cause of the pairing at ``game``'s round and board
        (TournamentError if there is none)."""

    # --- reviews (SPEC section 18) ------------------------------------------------------------
    @abstractmethod
    async def save_review(self, match_id: str, review: dict[str, Any]) -> None:
        """Keep the finished game's review (JSON-able), replacing one kept before."""

    @abstractmethod
    async def get_review(self, match_id: str) -> dict[str, Any] | None:
        """The game's kept review, or None."""


TournamentState = Literal["open", "running", "paused", "finished"]
TOURNAMENT_STATES: tuple[TournamentState, ...] = ("open", "running", "paused", "finished")


class TournamentError(StoreError):
    """A tournament request the store cannot do (a base for the more precise ones below)."""


class TournamentExists(TournamentError):
    """A tournament with that name already exists."""


class UnknownTournament(TournamentError):
    """No tournament by that name."""


class AlreadyEntered(TournamentError):
    """The player is in the field already."""


class NotEntered(TournamentError):
    """The player is not in the field (or has withdrawn already)."""


@dataclass(frozen=True)
class Tournament:
    """A tournament as stored: ``spec`` is its settings as ``tournaments.spec`` reads them."""

    name: str
    spec: dict[str, Any]
    state: TournamentState
    created: float  # unix time


@dataclass(frozen=True)
class TournamentEntry:
    name: str
    seed: int | None  # set at the start (1: the top seed)
    withdrawn: bool = False


@dataclass(frozen=True)
class TournamentGame:
    """One pairing and what became of it: ``white`` None is a bye; ``score`` is black's (1, 0.5, 0)
    once decided; ``forfeit`` why it was decided without play, ``cause`` how a played game ended
    when it matters (crash, time, illegal_move, …); ``match_id`` the game played for it."""

    round: int
    board: int
    black: str
    white: str | None
    opening: int | None = None
    match_id: str | None = None
    score: float | None = None
    forfeit: str | None = None
    cause: str | None = None
