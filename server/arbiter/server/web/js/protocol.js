// @ts-check
// The protocol's constants the browser client shares with the server (SPEC.md is the reference).
// Generated from arbiter.protocol by `python -m arbiter.server.web_protocol`: do not edit.

/** The protocol version this client speaks (hello's `protocol`). */
export const PROTOCOL_VERSION = 1;

/** The `code` of an error reply (SPEC.md, Error codes). */
export const ErrorCode = Object.freeze({
  /** the frame is not one valid msgpack value (or is a text frame, or uses ext/bin types) */
  BAD_FRAME: "bad_frame",
  /** the frame is larger than limits.max_frame_bytes (over a socket: close 1009) */
  FRAME_TOO_LARGE: "frame_too_large",
  /** the frame decodes to something other than a map with a string `type` */
  NOT_A_MAP: "not_a_map",
  /** no client message has this `type` */
  UNKNOWN_TYPE: "unknown_type",
  /** a required field is absent */
  MISSING_FIELD: "missing_field",
  /** a field has the wrong type or is out of range */
  BAD_FIELD: "bad_field",
  /** the message has a field its type does not define */
  UNKNOWN_FIELD: "unknown_field",
  /** hello asked for a protocol version this server does not speak (then close 4001) */
  PROTOCOL_VERSION: "protocol_version",
  /** the first message of a connection must be hello (then close 4001) */
  HELLO_FIRST: "hello_first",
  /** hello was sent twice on one connection */
  ALREADY_GREETED: "already_greeted",
  /** the token is unknown or revoked (then close 4001) */
  AUTH_FAILED: "auth_failed",
  /** too many messages too fast; this one was dropped (keep going: close 4008) */
  RATE_LIMITED: "rate_limited",
  /** the client's address already has as many guests as the server allows (then close 4001) */
  TOO_MANY_GUESTS: "too_many_guests",
  /** the player is banned from this server (then close 4010) */
  BANNED: "banned",
  /** no game by that name (see welcome.games) */
  UNKNOWN_GAME: "unknown_game",
  /** a game parameter is unknown, mistyped or out of range */
  BAD_PARAMS: "bad_params",
  /** the clock is outside limits.clock */
  BAD_CLOCK: "bad_clock",
  /** no player by that name is online */
  UNKNOWN_PLAYER: "unknown_player",
  /** a player cannot challenge or accept itself */
  SELF_CHALLENGE: "self_challenge",
  /** rated games are only between registered players (guests play unrated) */
  RATED_NEEDS_ACCOUNT: "rated_needs_account",
  /** no rated game between accounts of one owner (a person and its bot, two of its bots) */
  SAME_OWNER: "same_owner",
  /** no open challenge or seek with that id (it may have expired or been taken) */
  UNKNOWN_CHALLENGE: "unknown_challenge",
  /** only the target may accept or decline, only the challenger may cancel */
  NOT_YOUR_CHALLENGE: "not_your_challenge",
  /** the player already has limits.max_open_challenges open challenges and seeks */
  TOO_MANY_CHALLENGES: "too_many_challenges",
  /** a player would exceed limits.max_matches live matches */
  TOO_MANY_MATCHES: "too_many_matches",
  /** the game needs a protocol feature (e.g. `swap`) that a player's hello.features lacks */
  FEATURE_NEEDED: "feature_needed",
  /** no match with that id has been played on this server recently */
  UNKNOWN_MATCH: "unknown_match",
  /** the match has ended; nothing can be played in it */
  MATCH_OVER: "match_over",
  /** only the two players may act in a match (spectators and strangers may not) */
  NOT_A_PLAYER: "not_a_player",
  /** it is the opponent's turn */
  NOT_YOUR_TURN: "not_your_turn",
  /** `ply` is not the index of the next move (a move crossed another message) */
  STALE_PLY: "stale_ply",
  /** the move is not well-formed for this game (wrong shape, off the board) */
  BAD_MOVE: "bad_move",
  /** the move is well-formed but the rules forbid it here */
  ILLEGAL_MOVE: "illegal_move",
  /** abort is only allowed before the requesting side's first move */
  ABORT_TOO_LATE: "abort_too_late",
  /** this game does not allow draw offers */
  DRAW_NOT_ALLOWED: "draw_not_allowed",
  /** this side already has a draw offer standing */
  DRAW_PENDING: "draw_pending",
  /** there is no draw offer from the opponent to accept or decline */
  NO_DRAW_OFFER: "no_draw_offer",
  /** the connection already watches limits.max_spectated matches */
  TOO_MANY_SPECTATED: "too_many_spectated",
  /** takebacks are for casual games only (never rated or ladder ones) */
  TAKEBACK_NOT_ALLOWED: "takeback_not_allowed",
  /** the player has no move of its own to take back (the opening's are no one's) */
  NOTHING_TO_TAKE_BACK: "nothing_to_take_back",
  /** a takeback request already stands, or was declined at this ply */
  TAKEBACK_PENDING: "takeback_pending",
  /** there is no takeback request from the opponent to accept or decline */
  NO_TAKEBACK_REQUEST: "no_takeback_request",
  /** hints are for casual games against a bot that announced `hints` */
  HINT_NOT_ALLOWED: "hint_not_allowed",
  /** one hint per turn: this turn's was asked already */
  HINT_USED: "hint_used",
  /** no hint was asked of this bot for that match and ply */
  NO_HINT_REQUEST: "no_hint_request",
  /** no tournament by that name on this server */
  UNKNOWN_TOURNAMENT: "unknown_tournament",
  /** the tournament takes no entry: it has started, or its field is by invitation */
  ENTRY_CLOSED: "entry_closed",
  /** the swap opening waits for something else: a choice instead of a stone, or no choice now */
  SWAP_PHASE: "swap_phase",
  /** no analysis worker for this game is connected: the server does not search itself */
  NO_ANALYSIS_WORKER: "no_analysis_worker",
  /** the analysis queue holds its bound of requests already; try again later */
  ANALYSIS_QUEUE_FULL: "analysis_queue_full",
  /** every worker that took the analysis failed it (refused results, gone, too slow) */
  ANALYSIS_FAILED: "analysis_failed",
  /** the analysis board is closed to a player while it plays a game */
  ANALYSIS_WHILE_PLAYING: "analysis_while_playing",
  /** a review is of a finished game; this one is still being played */
  GAME_NOT_OVER: "game_not_over",
  /** a worker's analysis_result was refused (a ply missing, an illegal move, a bad win) */
  BAD_ANALYSIS: "bad_analysis",
  /** no analysis job with that id is this worker's (finished, or given to another) */
  UNKNOWN_JOB: "unknown_job",
  /** the server cannot do this now (storage failing, shutting down); try again later */
  UNAVAILABLE: "unavailable",
  /** a bug in the server; the request had no effect */
  INTERNAL: "internal",
});

/** The WebSocket close codes the server uses (SPEC.md, Close codes). */
export const CloseCode = Object.freeze({
  /** the server is shutting down */
  GOING_AWAY: 1001,
  /** a text frame was not valid UTF-8 */
  INVALID_DATA: 1007,
  /** a frame was larger than limits.max_frame_bytes, or a message had too many fragments */
  MESSAGE_TOO_BIG: 1009,
  /** the server failed while handling a message of this connection */
  INTERNAL_ERROR: 1011,
  /** hello was rejected (version, token, or another message came first) */
  HANDSHAKE_FAILED: 4001,
  /** no hello arrived within limits.hello_timeout_ms */
  HANDSHAKE_TIMEOUT: 4002,
  /** the same player opened a newer connection */
  REPLACED: 4003,
  /** the client kept sending after rate_limited errors (limits.flood_tolerance messages) */
  FLOOD: 4008,
  /** the client did not read; more than limits.max_send_buffer_bytes were waiting */
  TOO_SLOW: 4009,
  /** the player or the client's address is banned from this server */
  BANNED: 4010,
  /** the player's token was rotated or revoked, or its password changed */
  CREDENTIALS_ENDED: 4011,
});
