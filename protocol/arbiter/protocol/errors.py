"""Stable error codes and close codes: the part of the protocol a client program branches on.

An error reply is ``{type: "error", re, code, message}``: ``code`` is one of ``ErrorCode`` and
never changes meaning; ``message`` is for people and may change. Abuse ends the connection with
one of the ``CloseCode`` values instead. SPEC.md lists both tables; a test keeps them in sync.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Any


class ErrorCode(StrEnum):
    # Frames and message shape
    BAD_FRAME = "bad_frame"
    FRAME_TOO_LARGE = "frame_too_large"
    NOT_A_MAP = "not_a_map"
    UNKNOWN_TYPE = "unknown_type"
    MISSING_FIELD = "missing_field"
    BAD_FIELD = "bad_field"
    UNKNOWN_FIELD = "unknown_field"
    # Handshake and connection
    PROTOCOL_VERSION = "protocol_version"
    HELLO_FIRST = "hello_first"
    ALREADY_GREETED = "already_greeted"
    AUTH_FAILED = "auth_failed"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_GUESTS = "too_many_guests"
    BANNED = "banned"
    # Challenges and seeks
    UNKNOWN_GAME = "unknown_game"
    BAD_PARAMS = "bad_params"
    BAD_CLOCK = "bad_clock"
    UNKNOWN_PLAYER = "unknown_player"
    SELF_CHALLENGE = "self_challenge"
    RATED_NEEDS_ACCOUNT = "rated_needs_account"
    SAME_OWNER = "same_owner"
    UNKNOWN_CHALLENGE = "unknown_challenge"
    NOT_YOUR_CHALLENGE = "not_your_challenge"
    TOO_MANY_CHALLENGES = "too_many_challenges"
    TOO_MANY_MATCHES = "too_many_matches"
    FEATURE_NEEDED = "feature_needed"
    # Matches
    UNKNOWN_MATCH = "unknown_match"
    MATCH_OVER = "match_over"
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_TURN = "not_your_turn"
    STALE_PLY = "stale_ply"
    BAD_MOVE = "bad_move"
    ILLEGAL_MOVE = "illegal_move"
    ABORT_TOO_LATE = "abort_too_late"
    DRAW_NOT_ALLOWED = "draw_not_allowed"
    DRAW_PENDING = "draw_pending"
    NO_DRAW_OFFER = "no_draw_offer"
    TOO_MANY_SPECTATED = "too_many_spectated"
    # Takebacks and hints (section 15)
    TAKEBACK_NOT_ALLOWED = "takeback_not_allowed"
    NOTHING_TO_TAKE_BACK = "nothing_to_take_back"
    TAKEBACK_PENDING = "takeback_pending"
    NO_TAKEBACK_REQUEST = "no_takeback_request"
    HINT_NOT_ALLOWED = "hint_not_allowed"
    HINT_USED = "hint_used"
    NO_HINT_REQUEST = "no_hint_request"
    # Tournaments
    UNKNOWN_TOURNAMENT = "unknown_tournament"
    ENTRY_CLOSED = "entry_closed"
    SWAP_PHASE = "swap_phase"
    # Analysis (reviews and the analysis board)
    NO_ANALYSIS_WORKER = "no_analysis_worker"
    ANALYSIS_QUEUE_FULL = "analysis_queue_full"
    ANALYSIS_FAILED = "analysis_failed"
    ANALYSIS_WHILE_PLAYING = "analysis_while_playing"
    GAME_NOT_OVER = "game_not_over"
    BAD_ANALYSIS = "bad_analysis"
    UNKNOWN_JOB = "unknown_job"
    # Server side
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"


ERROR_DESCRIPTIONS: dict[ErrorCode, str] = {
    ErrorCode.BAD_FRAME: "the frame is not one valid msgpack value (or is a text frame, or uses ext/bin types)",
    ErrorCode.FRAME_TOO_LARGE: "the frame is larger than limits.max_frame_bytes (over a socket: close 1009)",
    ErrorCode.NOT_A_MAP: "the frame decodes to something other than a map with a string `type`",
    ErrorCode.UNKNOWN_TYPE: "no client message has this `type`",
    ErrorCode.MISSING_FIELD: "a required field is absent",
    ErrorCode.BAD_FIELD: "a field has the wrong type or is out of range",
    ErrorCode.UNKNOWN_FIELD: "the message has a field its type does not define",
    ErrorCode.PROTOCOL_VERSION: "hello asked for a protocol version this server does not speak (then close 4001)",
    ErrorCode.HELLO_FIRST: "the first message of a connection must be hello (then close 4001)",
    ErrorCode.ALREADY_GREETED: "hello was sent twice on one connection",
    ErrorCode.AUTH_FAILED: "the token is unknown or revoked (then close 4001)",
    ErrorCode.RATE_LIMITED: "too many messages too fast; this one was dropped (keep going: close 4008)",
    ErrorCode.TOO_MANY_GUESTS: "the client's address already has as many guests as the server allows (then close 4001)",
    ErrorCode.BANNED: "the player is banned from this server (then close 4010)",
    ErrorCode.UNKNOWN_GAME: "no game by that name (see welcome.games)",
    ErrorCode.BAD_PARAMS: "a game parameter is unknown, mistyped or out of range",
    ErrorCode.BAD_CLOCK: "the clock is outside limits.clock",
    ErrorCode.UNKNOWN_PLAYER: "no player by that name is online",
    ErrorCode.SELF_CHALLENGE: "a player cannot challenge or accept itself",
    ErrorCode.RATED_NEEDS_ACCOUNT: "rated games are only between registered players (guests play unrated)",
    ErrorCode.SAME_OWNER: "no rated game between accounts of one owner (a person and its bot, two of its bots)",
    ErrorCode.UNKNOWN_CHALLENGE: "no open challenge or seek with that id (it may have expired or been taken)",
    ErrorCode.NOT_YOUR_CHALLENGE: "only the target may accept or decline, only the challenger may cancel",
    ErrorCode.TOO_MANY_CHALLENGES: "the player already has limits.max_open_challenges open challenges and seeks",
    ErrorCode.TOO_MANY_MATCHES: "a player would exceed limits.max_matches live matches",
    ErrorCode.FEATURE_NEEDED: "the game needs a protocol feature (e.g. `swap`) that a player's hello.features lacks",
    ErrorCode.UNKNOWN_MATCH: "no match with that id has been played on this server recently",
    ErrorCode.MATCH_OVER: "the match has ended; nothing can be played in it",
    ErrorCode.NOT_A_PLAYER: "only the two players may act in a match (spectators and strangers may not)",
    ErrorCode.NOT_YOUR_TURN: "it is the opponent's turn",
    ErrorCode.STALE_PLY: "`ply` is not the index of the next move (a move crossed another message)",
    ErrorCode.BAD_MOVE: "the move is not well-formed for this game (wrong shape, off the board)",
    ErrorCode.ILLEGAL_MOVE: "the move is well-formed but the rules forbid it here",
    ErrorCode.ABORT_TOO_LATE: "abort is only allowed before the requesting side's first move",
    ErrorCode.DRAW_NOT_ALLOWED: "this game does not allow draw offers",
    ErrorCode.DRAW_PENDING: "this side already has a draw offer standing",
    ErrorCode.NO_DRAW_OFFER: "there is no draw offer from the opponent to accept or decline",
    ErrorCode.TOO_MANY_SPECTATED: "the connection already watches limits.max_spectated matches",
    ErrorCode.TAKEBACK_NOT_ALLOWED: "takebacks are for casual games only (never rated or ladder ones)",
    ErrorCode.NOTHING_TO_TAKE_BACK: "the player has no move of its own to take back (the opening's are no one's)",
    ErrorCode.TAKEBACK_PENDING: "a takeback request already stands, or was declined at this ply",
    ErrorCode.NO_TAKEBACK_REQUEST: "there is no takeback request from the opponent to accept or decline",
    ErrorCode.HINT_NOT_ALLOWED: "hints are for casual games against a bot that announced `hints`",
    ErrorCode.HINT_USED: "one hint per turn: this turn's was asked already",
    ErrorCode.NO_HINT_REQUEST: "no hint was asked of this bot for that match and ply",
    ErrorCode.UNKNOWN_TOURNAMENT: "no tournament by that name on this server",
    ErrorCode.ENTRY_CLOSED: "the tournament takes no entry: it has started, or its field is by invitation",
    ErrorCode.SWAP_PHASE: "the swap opening waits for something else: a choice instead of a stone, or no choice now",
    ErrorCode.NO_ANALYSIS_WORKER: "no analysis worker for this game is connected: the server does not search itself",
    ErrorCode.ANALYSIS_QUEUE_FULL: "the analysis queue holds its bound of requests already; try again later",
    ErrorCode.ANALYSIS_FAILED: "every worker that took the analysis failed it (refused results, gone, too slow)",
    ErrorCode.ANALYSIS_WHILE_PLAYING: "the analysis board is closed to a player while it plays a game",
    ErrorCode.GAME_NOT_OVER: "a review is of a finished game; this one is still being played",
    ErrorCode.BAD_ANALYSIS: "a worker's analysis_result was refused (a ply missing, an illegal move, a bad win)",
    ErrorCode.UNKNOWN_JOB: "no analysis job with that id is this worker's (finished, or given to another)",
    ErrorCode.UNAVAILABLE: "the server cannot do this now (storage failing, shutting down); try again later",
    ErrorCode.INTERNAL: "a bug in the server; the request had no effect",
}


class CloseCode(IntEnum):
    """WebSocket close codes the server uses (4000-4999 are the application's own range)."""

    GOING_AWAY = 1001  # the server is shutting down
    INVALID_DATA = 1007  # a text frame that is not UTF-8 (RFC 6455)
    MESSAGE_TOO_BIG = 1009  # a frame over limits.max_frame_bytes (sent by the websocket layer), or too many fragments
    INTERNAL_ERROR = 1011  # a bug in the server while handling the connection's message
    HANDSHAKE_FAILED = 4001  # hello rejected: version, token, or not hello first; an error came just before
    HANDSHAKE_TIMEOUT = 4002  # no hello within limits.hello_timeout_ms
    REPLACED = 4003  # the same player connected again; the newer connection wins
    FLOOD = 4008  # kept sending past the rate limit
    TOO_SLOW = 4009  # did not read its messages; the server's send buffer for it overflowed
    BANNED = 4010  # the player or the client's address is banned (at hello, or the moment a ban is made)
    CREDENTIALS_ENDED = 4011  # the token or password the player signed in with was rotated, revoked or changed


CLOSE_DESCRIPTIONS: dict[CloseCode, str] = {
    CloseCode.GOING_AWAY: "the server is shutting down",
    CloseCode.INVALID_DATA: "a text frame was not valid UTF-8",
    CloseCode.MESSAGE_TOO_BIG: "a frame was larger than limits.max_frame_bytes, or a message had too many fragments",
    CloseCode.INTERNAL_ERROR: "the server failed while handling a message of this connection",
    CloseCode.HANDSHAKE_FAILED: "hello was rejected (version, token, or another message came first)",
    CloseCode.HANDSHAKE_TIMEOUT: "no hello arrived within limits.hello_timeout_ms",
    CloseCode.REPLACED: "the same player opened a newer connection",
    CloseCode.FLOOD: "the client kept sending after rate_limited errors (limits.flood_tolerance messages)",
    CloseCode.TOO_SLOW: "the client did not read; more than limits.max_send_buffer_bytes were waiting",
    CloseCode.BANNED: "the player or the client's address is banned from this server",
    CloseCode.CREDENTIALS_ENDED: "the player's token was rotated or revoked, or its password changed",
}


class ProtocolError(Exception):
    """A request that cannot be honoured; becomes an ``error`` reply and changes nothing."""

    def __init__(self, code: ErrorCode, message: str, *, re: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.re = re

    def to_message(self) -> dict[str, Any]:
        """The error as the wire map (``re`` is omitted when the request had no id)."""
        out: dict[str, Any] = {"type": "error", "code": self.code.value, "message": self.message}
        if self.re is not None:
            out["re"] = self.re
        return out
