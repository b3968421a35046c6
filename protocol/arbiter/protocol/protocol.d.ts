// The Arbiter protocol, version 1: every message as TypeScript types (SPEC.md is the reference).
// Generated from protocol.schema.json by `python -m arbiter.protocol.schema`: do not edit.
// An integer is a msgpack integer: send whole numbers as integers, never as floats.

/** Any message a client sends. */
export type ClientMessage = Hello | Ping | Lobby | Subscribe | Unsubscribe | Challenge | Accept | Decline | Cancel | MakeMove | Resign | Abort | OfferDraw | AcceptDraw | DeclineDraw | Spectate | Unspectate | Sync | Swap | Review | Analyse | AnalysisResult | LadderJoin | LadderLeave | Leaderboard | Crosstable | Takeback | AcceptTakeback | DeclineTakeback | Hint | HintAnswer | TournamentEnter;

/** Any message a server sends. */
export type ServerMessage = Welcome | Error | Ok | Pong | LobbyState | Presence | PlayerOffline | SeekAdded | SeekRemoved | MatchListed | MatchUnlisted | ChallengeCreated | ChallengeOffered | ChallengeClosed | MatchStart | MatchState | Moved | DrawOffered | DrawDeclined | PlayerLeft | PlayerReturned | End | Swapped | ReviewState | AnalysisReply | AnalysisJob | LadderJoined | LeaderboardState | CrosstableState | TakebackOffered | TakebackDeclined | TakenBack | HintRequest | HintGiven | TournamentGames;

/** The client message `hello` (SPEC.md, Client messages). */
export interface Hello {
  type: "hello";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the protocol version the client speaks: 1 */
  protocol: number;
  /** the client's name and version, e.g. `mybot/2.1` */
  client: string;
  /** a player token, or a guest's resume_token; absent: a new guest */
  token?: string | null;
  /** games this client plays (shown in presence) */
  games?: string[] | null;
  /** matches this client plays at once, across all games: the ladder never gives it more */
  capacity?: number | null;
  /** a bot's strength levels, 1 (weakest) to this (shown in presence; a challenge may name one) */
  levels?: number | null;
  /** a bot's takeback policy: grants them in casual games, or never (section 15); nil: never */
  takebacks?: "casual" | "never" | null;
  /** a bot that suggests moves to its casual opponents on request (section 15) */
  hints?: boolean | null;
  /** protocol extensions the client speaks (`swap`: the swap openings); unknown ones are ignored */
  features?: string[] | null;
  /** an analysis worker: the analysis jobs it takes at once, for the games in `games` (section 18) */
  analysis?: number | null;
}

/** The client message `ping` (SPEC.md, Client messages). */
export interface Ping {
  type: "ping";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
}

/** The client message `lobby` (SPEC.md, Client messages). */
export interface Lobby {
  type: "lobby";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
}

/** The client message `subscribe` (SPEC.md, Client messages). */
export interface Subscribe {
  type: "subscribe";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
}

/** The client message `unsubscribe` (SPEC.md, Client messages). */
export interface Unsubscribe {
  type: "unsubscribe";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
}

/** The client message `challenge` (SPEC.md, Client messages). */
export interface Challenge {
  type: "challenge";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the player challenged; absent or nil: an open seek */
  to?: string | null;
  /** a game name from welcome.games */
  game: string;
  /** rule parameters; absent ones take their defaults */
  params?: Record<string, number | boolean | string> | null;
  /** the time control */
  clock: { initial_ms: number; increment_ms?: number; move_limit_ms?: number | null };
  /** the challenger's side */
  color?: "first" | "second" | "random";
  /** rated (both players registered) */
  rated?: boolean;
  /** the strength asked of the challenged bot, within the levels its presence shows; needs `to` */
  level?: number | null;
}

/** The client message `accept` (SPEC.md, Client messages). */
export interface Accept {
  type: "accept";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the challenge or seek id */
  challenge: string;
}

/** The client message `decline` (SPEC.md, Client messages). */
export interface Decline {
  type: "decline";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the challenge id (direct challenges only) */
  challenge: string;
}

/** The client message `cancel` (SPEC.md, Client messages). */
export interface Cancel {
  type: "cancel";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the challenger's own challenge or seek id */
  challenge: string;
}

/** The client message `move` (SPEC.md, Client messages). */
export interface MakeMove {
  type: "move";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
  /** the index of this move in the match (0 for the first move) */
  ply: number;
  /** the move in the game's encoding */
  move: (number | number[])[];
  /** what the mover's search found (section 10): spectators see it at once */
  info?: { score?: number; unit?: "cp" | "win" | "mate"; depth?: number; nodes?: number; nps?: number; time_ms?: number; pv?: ((number | number[])[])[]; fallback?: "deadline" | "pool" | "illegal" | "random" } | null;
}

/** The client message `resign` (SPEC.md, Client messages). */
export interface Resign {
  type: "resign";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
  /** why a bot gives up, when it is not a choice (its engine failed, a drain): counted in /metrics */
  cause?: "crash" | "timeout" | "illegal_move" | "protocol_error" | "drain" | null;
}

/** The client message `abort` (SPEC.md, Client messages). */
export interface Abort {
  type: "abort";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `offer_draw` (SPEC.md, Client messages). */
export interface OfferDraw {
  type: "offer_draw";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `accept_draw` (SPEC.md, Client messages). */
export interface AcceptDraw {
  type: "accept_draw";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `decline_draw` (SPEC.md, Client messages). */
export interface DeclineDraw {
  type: "decline_draw";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `spectate` (SPEC.md, Client messages). */
export interface Spectate {
  type: "spectate";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `unspectate` (SPEC.md, Client messages). */
export interface Unspectate {
  type: "unspectate";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `sync` (SPEC.md, Client messages). */
export interface Sync {
  type: "sync";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `swap` (SPEC.md, Client messages). */
export interface Swap {
  type: "swap";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
  /** the decider's choice in a swap opening: a colour, or (swap2's chooser, at 3 stones) to place two more */
  choice: "black" | "white" | "place";
}

/** The client message `review` (SPEC.md, Client messages). */
export interface Review {
  type: "review";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** a finished game's id: its review, cached or made by the workers */
  match: string;
}

/** The client message `analyse` (SPEC.md, Client messages). */
export interface Analyse {
  type: "analyse";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** a game name from welcome.games */
  game: string;
  /** rule parameters; absent ones take their defaults */
  params?: Record<string, number | boolean | string> | null;
  /** the position: the moves played from the start */
  moves: ((number | number[])[])[];
  /** the search's time; absent: the server's default */
  budget_ms?: number | null;
}

/** The client message `analysis_result` (SPEC.md, Client messages). */
export interface AnalysisResult {
  type: "analysis_result";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the analysis_job's id */
  job: string;
  /** one per ply of the job: win = the chance of the side to move there (draw ½) */
  evals: ({ ply: number; win: number; best: (number | number[])[] | null; pv?: ((number | number[])[])[]; depth?: number; nodes?: number })[];
}

/** The client message `ladder_join` (SPEC.md, Client messages). */
export interface LadderJoin {
  type: "ladder_join";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** a game name from welcome.games */
  game: string;
  /** ladder matches to play at once (a bot may take several) */
  max_matches?: number;
}

/** The client message `ladder_leave` (SPEC.md, Client messages). */
export interface LadderLeave {
  type: "ladder_leave";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the game whose queue to leave; matches in progress go on */
  game: string;
}

/** The client message `leaderboard` (SPEC.md, Client messages). */
export interface Leaderboard {
  type: "leaderboard";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** a game name from welcome.games */
  game: string;
  /** a rating pool of the game, e.g. `gomoku[exact=true]/rapid` (see `ladder_join`); absent: its ladder's */
  pool?: string | null;
}

/** The client message `crosstable` (SPEC.md, Client messages). */
export interface Crosstable {
  type: "crosstable";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** a game name from welcome.games */
  game: string;
  /** a rating pool of the game, e.g. `gomoku[exact=true]/rapid` (see `ladder_join`); absent: its ladder's */
  pool?: string | null;
}

/** The client message `takeback` (SPEC.md, Client messages). */
export interface Takeback {
  type: "takeback";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `accept_takeback` (SPEC.md, Client messages). */
export interface AcceptTakeback {
  type: "accept_takeback";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `decline_takeback` (SPEC.md, Client messages). */
export interface DeclineTakeback {
  type: "decline_takeback";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `hint` (SPEC.md, Client messages). */
export interface Hint {
  type: "hint";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
}

/** The client message `hint_answer` (SPEC.md, Client messages). */
export interface HintAnswer {
  type: "hint_answer";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the match id */
  match: string;
  /** the ply of the `hint_request` answered */
  ply: number;
  /** the suggested move for the side to move, in the game's encoding */
  move: (number | number[])[];
}

/** The client message `tournament_enter` (SPEC.md, Client messages). */
export interface TournamentEnter {
  type: "tournament_enter";
  /** chosen by the client, echoed as `re` */
  id?: number | string | null;
  /** the name of an open tournament */
  tournament: string;
}

/** The server message `welcome` (SPEC.md, Server messages). */
export interface Welcome {
  type: "welcome";
  protocol: number;
  server: string;
  player: Player;
  resume_token: string | null;
  games: GameInfo[];
  limits: Limits;
  resumed: string[];
  re?: number | string;
  features?: string[];
}

/** The server message `error` (SPEC.md, Server messages). */
export interface Error {
  type: "error";
  code: string;
  message: string;
  re?: number | string;
}

/** The server message `ok` (SPEC.md, Server messages). */
export interface Ok {
  type: "ok";
  re?: number | string;
  match?: string;
}

/** The server message `pong` (SPEC.md, Server messages). */
export interface Pong {
  type: "pong";
  time_ms: number;
  re?: number | string;
}

/** The server message `lobby_state` (SPEC.md, Server messages). */
export interface LobbyState {
  type: "lobby_state";
  players: PresenceEntry[];
  seeks: ChallengeInfo[];
  matches: MatchSummary[];
  re?: number | string;
}

/** The server message `presence` (SPEC.md, Server messages). */
export interface Presence {
  type: "presence";
  player: PresenceEntry;
}

/** The server message `player_offline` (SPEC.md, Server messages). */
export interface PlayerOffline {
  type: "player_offline";
  name: string;
}

/** The server message `seek_added` (SPEC.md, Server messages). */
export interface SeekAdded {
  type: "seek_added";
  seek: ChallengeInfo;
}

/** The server message `seek_removed` (SPEC.md, Server messages). */
export interface SeekRemoved {
  type: "seek_removed";
  seek: string;
  reason: string;
}

/** The server message `match_listed` (SPEC.md, Server messages). */
export interface MatchListed {
  type: "match_listed";
  match: MatchSummary;
}

/** The server message `match_unlisted` (SPEC.md, Server messages). */
export interface MatchUnlisted {
  type: "match_unlisted";
  match: string;
  result: string | null;
  reason: string;
}

/** The server message `challenge_created` (SPEC.md, Server messages). */
export interface ChallengeCreated {
  type: "challenge_created";
  challenge: ChallengeInfo;
  re?: number | string;
}

/** The server message `challenge_offered` (SPEC.md, Server messages). */
export interface ChallengeOffered {
  type: "challenge_offered";
  challenge: ChallengeInfo;
}

/** The server message `challenge_closed` (SPEC.md, Server messages). */
export interface ChallengeClosed {
  type: "challenge_closed";
  challenge: string;
  reason: string;
  match?: string;
}

/** The server message `match_start` (SPEC.md, Server messages). */
export interface MatchStart {
  type: "match_start";
  match: string;
  game: string;
  params: Record<string, unknown>;
  players: (Record<string, unknown>)[];
  color: number;
  clock: Clock;
  clocks: number[];
  rated: boolean;
  to_move: number;
  levels: (number | null)[];
  challenge: string | null;
  moves: ((number | number[])[])[];
  swap?: SwapInfo;
}

/** The server message `match_state` (SPEC.md, Server messages). */
export interface MatchState {
  type: "match_state";
  match: string;
  game: string;
  params: Record<string, unknown>;
  players: (Record<string, unknown>)[];
  color: number | null;
  clock: Clock;
  clocks: number[];
  rated: boolean;
  to_move: number;
  levels: (number | null)[];
  moves: ((number | number[])[])[];
  ply: number;
  opening: number;
  draw_offer: number | null;
  connected: boolean[];
  re?: number | string;
  infos?: unknown[];
  forbidden?: ForbiddenPoint[];
  swap?: SwapInfo;
}

/** The server message `moved` (SPEC.md, Server messages). */
export interface Moved {
  type: "moved";
  match: string;
  ply: number;
  move: (number | number[])[];
  by: number;
  clocks: number[];
  elapsed_ms: number;
  info?: Record<string, unknown>;
  analysis?: Record<string, unknown>;
  forbidden?: ForbiddenPoint[];
  swap?: SwapInfo;
}

/** The server message `draw_offered` (SPEC.md, Server messages). */
export interface DrawOffered {
  type: "draw_offered";
  match: string;
  by: number;
}

/** The server message `draw_declined` (SPEC.md, Server messages). */
export interface DrawDeclined {
  type: "draw_declined";
  match: string;
  by: number;
}

/** The server message `player_left` (SPEC.md, Server messages). */
export interface PlayerLeft {
  type: "player_left";
  match: string;
  color: number;
  grace_ms: number;
}

/** The server message `player_returned` (SPEC.md, Server messages). */
export interface PlayerReturned {
  type: "player_returned";
  match: string;
  color: number;
}

/** The server message `end` (SPEC.md, Server messages). */
export interface End {
  type: "end";
  match: string;
  result: string | null;
  winner: number | null;
  reason: string;
  clocks: number[];
  ply: number;
  rating_changes: Record<string, number>;
}

/** The server message `swapped` (SPEC.md, Server messages). */
export interface Swapped {
  type: "swapped";
  match: string;
  by: number;
  choice: "black" | "place" | "white";
  swap: SwapInfo;
  players: (Record<string, unknown>)[];
  levels: (number | null)[];
  clocks: number[];
  to_move: number;
}

/** The server message `review_state` (SPEC.md, Server messages). */
export interface ReviewState {
  type: "review_state";
  match: string;
  status: "done" | "failed" | "queued" | "running";
  done: number;
  total: number;
  re?: number | string;
}

/** The server message `analysis` (SPEC.md, Server messages). */
export interface AnalysisReply {
  type: "analysis";
  win: number[];
  best: (number | number[])[] | null;
  pv: ((number | number[])[])[];
  re?: number | string;
  depth?: number;
  nodes?: number;
}

/** The server message `analysis_job` (SPEC.md, Server messages). */
export interface AnalysisJob {
  type: "analysis_job";
  job: string;
  game: string;
  params: Record<string, unknown>;
  moves: ((number | number[])[])[];
  plies: number[];
  budget_ms: number;
}

/** The server message `ladder_joined` (SPEC.md, Server messages). */
export interface LadderJoined {
  type: "ladder_joined";
  game: string;
  pool: string;
  clock: Clock;
  rating: RatingEntry;
  waiting: number;
  re?: number | string;
}

/** The server message `leaderboard` (SPEC.md, Server messages). */
export interface LeaderboardState {
  type: "leaderboard";
  ratings: RatingEntry[];
  game: string;
  pool: string;
  pools: string[];
  re?: number | string;
}

/** The server message `crosstable` (SPEC.md, Server messages). */
export interface CrosstableState {
  type: "crosstable";
  game: string;
  pool: string;
  table: Record<string, unknown>;
  re?: number | string;
}

/** The server message `takeback_offered` (SPEC.md, Server messages). */
export interface TakebackOffered {
  type: "takeback_offered";
  match: string;
  by: number;
  ply: number;
}

/** The server message `takeback_declined` (SPEC.md, Server messages). */
export interface TakebackDeclined {
  type: "takeback_declined";
  match: string;
  by: number;
}

/** The server message `taken_back` (SPEC.md, Server messages). */
export interface TakenBack {
  type: "taken_back";
  match: string;
  by: number;
  ply: number;
  moves: ((number | number[])[])[];
  clocks: number[];
  to_move: number;
}

/** The server message `hint_request` (SPEC.md, Server messages). */
export interface HintRequest {
  type: "hint_request";
  match: string;
  ply: number;
}

/** The server message `hint` (SPEC.md, Server messages). */
export interface HintGiven {
  type: "hint";
  match: string;
  ply: number;
  move: (number | number[])[];
  used: number;
}

/** The server message `tournament_games` (SPEC.md, Server messages). */
export interface TournamentGames {
  type: "tournament_games";
  tournament: string;
  state: string;
  game: string;
  params: Record<string, unknown>;
  clock: Clock;
  games: (Record<string, unknown>)[];
}

/** A shared object of server messages (SPEC.md, Shared objects): Player. */
export interface Player {
  name: string;
  kind: "bot" | "human";
  guest: boolean;
  owner?: string;
}

/** A shared object of server messages (SPEC.md, Shared objects): PresenceEntry. */
export interface PresenceEntry {
  name: string;
  kind: "bot" | "human";
  guest: boolean;
  owner?: string;
  games: string[];
  levels: number | null;
  playing: number;
  away: boolean;
}

/** A shared object of server messages (SPEC.md, Shared objects): Clock. */
export interface Clock {
  initial_ms: number;
  increment_ms: number;
  move_limit_ms: number | null;
}

/** A shared object of server messages (SPEC.md, Shared objects): ChallengeInfo. */
export interface ChallengeInfo {
  id: string;
  from: string;
  to: string | null;
  game: string;
  params: Record<string, number | boolean | string>;
  clock: Clock;
  color: "first" | "random" | "second";
  rated: boolean;
  level: number | null;
  expires_ms: number;
}

/** A shared object of server messages (SPEC.md, Shared objects): MatchSummary. */
export interface MatchSummary {
  match: string;
  game: string;
  params: Record<string, number | boolean | string>;
  players: string[];
  clock: Clock;
  rated: boolean;
}

/** A shared object of server messages (SPEC.md, Shared objects): GameParam. */
export interface GameParam {
  name: string;
  type: "bool" | "int" | "str";
  default: number | boolean | string;
  doc: string;
  min?: number;
  max?: number;
  choices?: string[];
}

/** A shared object of server messages (SPEC.md, Shared objects): GameInfo. */
export interface GameInfo {
  name: string;
  family: string;
  doc: string;
  fixed: Record<string, number | boolean | string>;
  params: GameParam[];
  draw_offers: boolean;
}

/** A shared object of server messages (SPEC.md, Shared objects): ClockLimits. */
export interface ClockLimits {
  min_initial_ms: number;
  max_initial_ms: number;
  max_increment_ms: number;
  min_move_limit_ms: number;
  max_move_limit_ms: number;
}

/** A shared object of server messages (SPEC.md, Shared objects): Limits. */
export interface Limits {
  max_frame_bytes: number;
  rate_per_s: number;
  rate_burst: number;
  flood_tolerance: number;
  hello_timeout_ms: number;
  reconnect_grace_ms: number;
  challenge_ttl_ms: number;
  seek_ttl_ms: number;
  max_open_challenges: number;
  max_matches: number;
  max_spectated: number;
  max_spectators: number;
  max_send_buffer_bytes: number;
  max_lag_credit_ms: number;
  clock: ClockLimits;
}

/** A shared object of server messages (SPEC.md, Shared objects): RatingEntry. */
export interface RatingEntry {
  player: string;
  level: number | null;
  label: string;
  pool: string;
  rating: number;
  deviation: number;
  provisional: boolean;
  games: number;
  wins: number;
  draws: number;
  losses: number;
}

/** A shared object of server messages (SPEC.md, Shared objects): ForbiddenPoint. */
export interface ForbiddenPoint {
  move: number[];
  kind: "double-four" | "double-three" | "overline";
}

/** A shared object of server messages (SPEC.md, Shared objects): SwapChoice. */
export interface SwapChoice {
  by: number;
  choice: "black" | "place" | "white";
  ply: number;
}

/** A shared object of server messages (SPEC.md, Shared objects): SwapInfo. */
export interface SwapInfo {
  rule: "swap1" | "swap2";
  phase: "choose" | "done" | "place";
  to_act: number | null;
  stones: number;
  options: ("black" | "place" | "white")[];
  choices: SwapChoice[];
  colors: number[] | null;
}
