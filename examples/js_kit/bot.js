// A starter bot for Arbiter in one file: every game the server hosts but renju and caro, over the
// bare protocol.
//
//     node bot.js ws://127.0.0.1:8765/ TOKEN [--ladder] [--games g1,g2]
//
// Only `ws` and `@msgpack/msgpack` (npm ci); nothing of Arbiter. It accepts every challenge for a
// game it knows, reconnects after a drop (resyncing its matches from `match_state`), and moves
// within its clock. The rules follow SPEC.md section 13: m,n,k games (tic-tac-toe, gomoku…),
// vanishing tic-tac-toe, 3-D tic-tac-toe, and paper soccer, whose turns bounce on touched points,
// may end in a goal mouth, or end stuck. Replace `choose` with your own. Renju and caro (the "five"
// family) it declines: renju's forbidden points for black need a rule longer than this whole bot; a
// bot through `arbiter bridge stdio` gets the legal moves listed.

import { decode, encode } from "@msgpack/msgpack";
import WebSocket from "ws";

const GAMES = ["tictactoe", "tictactoe4", "gomoku10", "gomoku", "mnk", "vanishing", "ttt3d", "qubic", "paper_soccer"];
const STOP_CODES = new Set([4001, 4003, 4010]); // refused hello, replaced by a newer connection, banned

const key = (cell) => cell.join(",");

// --- placement games: m,n,k, vanishing, ttt3d ------------------------------------------------------------------------

function linesIn(shape, k, directions) {
  // Every run of k cells in a box of `shape` along `directions`.
  const out = [];
  const starts = shape.reduce((acc, n) => acc.flatMap((p) => [...Array(n).keys()].map((v) => [...p, v])), [[]]);
  for (const start of starts) {
    for (const d of directions) {
      const line = [...Array(k).keys()].map((i) => start.map((s, j) => s + i * d[j]));
      if (line.every((cell) => cell.every((v, j) => v >= 0 && v < shape[j]))) out.push(line);
    }
  }
  return out;
}

class Placement {
  // Stones on cells; a move is a cell's coordinates. `over`: a line or a full board (`end` follows).
  constructor(cells, lines, exact = false) {
    this.cells = cells;
    this.exact = exact;
    this.byCell = new Map(cells.map((c) => [key(c), []]));
    for (const line of lines) for (const c of line) this.byCell.get(key(c)).push(line);
    this.board = new Map();
    this.history = [];
    this.over = false;
  }

  play(cell) {
    const player = this.history.length % 2;
    this.over = this.wins(cell, player);
    this.board.set(key(cell), player);
    this.history.push(cell);
    this.over ||= this.board.size === this.cells.length;
  }

  wins(cell, player, board = new Map(this.board)) {
    board.set(key(cell), player);
    return this.byCell.get(key(cell)).some(
      (line) => line.every((c) => board.get(key(c)) === player) && !(this.exact && this.overline(board, line, player)),
    );
  }

  overline(board, line, player) {
    const step = line[1].map((v, j) => v - line[0][j]);
    const before = line[0].map((v, j) => v - step[j]);
    const after = line[line.length - 1].map((v, j) => v + step[j]);
    return board.get(key(before)) === player || board.get(key(after)) === player;
  }

  choose(me) {
    // Win now; else block the opponent's win; else the free cell in the most lines still open to us.
    const free = this.cells.filter((c) => !this.board.has(key(c)));
    for (const player of [me, 1 - me]) {
      const win = free.find((c) => this.wins(c, player));
      if (win) return win;
    }
    const value = (cell) => {
      const lines = this.byCell.get(key(cell));
      const open = lines.filter((line) => line.every((c) => (this.board.get(key(c)) ?? me) === me)).length;
      const near = lines.reduce((n, line) => n + line.filter((c) => this.board.has(key(c))).length, 0);
      return open + 0.1 * near + Math.random() * 0.01;
    };
    return free.reduce((best, c) => (value(c) > value(best) ? c : best));
  }
}

const PLANE = [[1, 0], [0, 1], [1, 1], [1, -1]];

class Vanishing extends Placement {
  // From a player's fourth stone on, its oldest stone vanishes after each placement. Drawn when a
  // position (standing stones in age order, side to move) comes `repetition` times, or at `ply_limit`.
  constructor(params) {
    const cells = [0, 1, 2].flatMap((y) => [0, 1, 2].map((x) => [x, y]));
    super(cells, linesIn([3, 3], 3, PLANE));
    this.repetition = params.repetition;
    this.plyLimit = params.ply_limit;
    this.seen = new Map();
  }

  play(cell) {
    const line = this.wins(cell, this.history.length % 2);
    super.play(cell);
    if (this.history.length >= 7) this.board.delete(key(this.history[this.history.length - 7]));
    const position = JSON.stringify([this.history.slice(-6), this.history.length % 2]);
    this.seen.set(position, (this.seen.get(position) ?? 0) + 1);
    const repeated = this.repetition > 0 && this.seen.get(position) >= this.repetition;
    this.over = line || repeated || this.history.length >= this.plyLimit;
  }

  wins(cell, player) {
    const board = new Map(this.board);
    if (this.history.length >= 6) board.delete(key(this.history[this.history.length - 6])); // vanishes first
    board.set(key(cell), player);
    return this.byCell.get(key(cell)).some((line) => line.every((c) => board.get(key(c)) === player));
  }
}

function placementGame(game, params) {
  if (game === "vanishing") return new Vanishing(params);
  if ("m" in params) {
    const { m, n, k } = params;
    const cells = [...Array(n).keys()].flatMap((y) => [...Array(m).keys()].map((x) => [x, y]));
    return new Placement(cells, linesIn([m, n], k, PLANE), Boolean(params.exact));
  }
  const n = params.n; // ttt3d: the 13 directions of a cube
  const directions = [];
  for (const dx of [-1, 0, 1]) for (const dy of [-1, 0, 1]) for (const dz of [-1, 0, 1]) {
    const d = [dx, dy, dz];
    const first = d.find((v) => v !== 0);
    if (first === 1) directions.push(d);
  }
  const cells = [];
  for (let z = 0; z < n; z++) for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) cells.push([x, y, z]);
  return new Placement(cells, linesIn([n, n, n], n, directions));
}

// --- paper soccer ----------------------------------------------------------------------------------------------------

const STEPS = [[0, -1], [1, -1], [1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1]]; // 0 N, clockwise
const segment = (a, b) => (key(a) < key(b) ? `${key(a)}|${key(b)}` : `${key(b)}|${key(a)}`);

class Soccer {
  // The field of SPEC.md section 13: drawn segments, the ball, whose turn, and the end.
  constructor(params) {
    this.w = params.width;
    this.n = params.length;
    this.stuckDraws = params.stuck === "draw";
    this.c = this.w / 2;
    this.drawn = new Set();
    this.touched = new Map(); // point -> how many drawn segments touch it
    const draw = (a, b) => this.draw(a, b);
    for (let y = 0; y < this.n; y++) { draw([0, y], [0, y + 1]); draw([this.w, y], [this.w, y + 1]); }
    for (let x = 0; x < this.w; x++) {
      if (x !== this.c - 1 && x !== this.c) { draw([x, 0], [x + 1, 0]); draw([x, this.n], [x + 1, this.n]); }
    }
    for (const x of [this.c - 1, this.c + 1]) { draw([x, 0], [x, -1]); draw([x, this.n], [x, this.n + 1]); }
    this.ball = [this.c, this.n / 2];
    this.toMove = 0;
    this.winner = null;
    this.over = false;
  }

  draw(a, b) {
    this.drawn.add(segment(a, b));
    for (const p of [a, b]) this.touched.set(key(p), (this.touched.get(key(p)) ?? 0) + 1);
  }

  erase(a, b) {
    this.drawn.delete(segment(a, b));
    for (const p of [a, b]) this.touched.set(key(p), this.touched.get(key(p)) - 1);
  }

  target(d) {
    // Where a step d from the ball lands, or null when it is illegal.
    const [x, y] = this.ball;
    const to = [x + STEPS[d][0], y + STEPS[d][1]];
    const inside = to[0] >= 0 && to[0] <= this.w && to[1] >= 0 && to[1] <= this.n;
    const intoGoal = (to[1] === -1 || to[1] === this.n + 1) && Math.abs(to[0] - this.c) <= 1 && Math.abs(x - this.c) <= 1;
    if (!(inside || intoGoal) || this.drawn.has(segment(this.ball, to))) return null;
    return to;
  }

  legal() {
    return [...Array(8).keys()].filter((d) => this.target(d) !== null);
  }

  step(d) {
    // Play one step; returns what undo() needs.
    const to = this.target(d);
    if (to === null) throw new Error(`illegal step ${d} from ${this.ball}`);
    const record = [this.ball, to, this.toMove, this.winner, this.over];
    const bounce = (this.touched.get(key(to)) ?? 0) > 0; // touched before this step
    this.draw(this.ball, to);
    this.ball = to;
    if (to[1] < 0 || to[1] > this.n) {
      this.over = true; // a goal: north for the first player, south for the second
      this.winner = to[1] < 0 ? 0 : 1;
    } else if (!bounce) {
      this.toMove = 1 - this.toMove;
    } else if (this.legal().length === 0) {
      this.over = true; // bounced into a dead end: stuck
      this.winner = this.stuckDraws ? null : 1 - this.toMove;
    }
    return record;
  }

  undo([start, to, toMove, winner, over]) {
    this.erase(start, to);
    Object.assign(this, { ball: start, toMove, winner, over });
  }

  play(turn) {
    for (const d of turn) this.step(d);
  }

  score(me) {
    if (this.over) return this.winner === null ? 0 : this.winner === me ? 1e6 : -1e6;
    const goalY = me === 0 ? -1 : this.n + 1;
    return -Math.abs(this.ball[1] - goalY) - 0.5 * Math.abs(this.ball[0] - this.c);
  }

  choose(me, deadline) {
    // The best-scoring complete turn found depth first before the deadline (at least one is).
    let best = null;
    let nodes = 0;
    const path = [];
    const search = () => {
      const steps = this.legal().sort(() => Math.random() - 0.5);
      for (const d of steps) {
        nodes += 1;
        const record = this.step(d);
        path.push(d);
        let stop;
        if (this.over || this.toMove !== me) { // complete: a goal, stuck, or an untouched point
          const value = this.score(me);
          if (best === null || value > best.value) best = { value, turn: [...path] };
          stop = value >= 1e6 || (nodes % 64 === 0 && Date.now() > deadline);
        } else {
          stop = search();
        }
        path.pop();
        this.undo(record);
        if (stop) return true;
      }
      return best !== null && Date.now() > deadline;
    };
    search();
    return best.turn;
  }
}

// --- the protocol ----------------------------------------------------------------------------------------------------

class Match {
  // One match: the position rebuilt from its moves, our colour, whose turn, our clock.
  constructor(message) {
    Object.assign(this, { id: message.match, game: message.game, color: message.color, clock: message.clock });
    this.position = this.game === "paper_soccer" ? new Soccer(message.params) : placementGame(this.game, message.params);
    for (const move of message.moves) this.position.play(move);
    this.ply = message.moves.length;
    this.toMove = message.to_move;
    this.remaining = message.clocks[this.color];
  }

  budgetMs() {
    // At most a twentieth of what is left, within a third of the per-move limit.
    const limit = this.clock.move_limit_ms ?? this.remaining;
    return Math.max(5, Math.min(this.remaining / 20, limit / 3, 2000));
  }

  choose() {
    if (this.position instanceof Soccer) return this.position.choose(this.color, Date.now() + this.budgetMs());
    return this.position.choose(this.color);
  }
}

function session(url, token, games, ladder) {
  // One connection from hello to close; resolves with the close code.
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const matches = new Map();
    let nextId = 1;
    const send = (message) => ws.send(encode({ ...message, id: nextId++ }));
    const moveIfOurs = (match) => {
      if (match.toMove === match.color && !match.position.over) {
        send({ type: "move", match: match.id, ply: match.ply, move: match.choose() });
      }
    };
    ws.on("open", () => send({ type: "hello", protocol: 1, client: "js-kit/1", token, games }));
    ws.on("message", (data) => {
      const message = decode(data);
      switch (message.type) {
        case "welcome":
          if (ladder) for (const game of games) send({ type: "ladder_join", game });
          break;
        case "challenge_offered": {
          const { id, game } = message.challenge;
          send({ type: games.includes(game) ? "accept" : "decline", challenge: id });
          break;
        }
        case "match_start":
        case "match_state": // new, or resynced after a reconnect
          if (message.color !== null) {
            const match = new Match(message);
            matches.set(match.id, match);
            moveIfOurs(match);
          }
          break;
        case "moved": {
          const match = matches.get(message.match);
          if (!match) break;
          if (message.ply !== match.ply) { // out of step: ask for the whole position again
            send({ type: "sync", match: match.id });
            break;
          }
          match.position.play(message.move);
          match.ply += 1;
          match.toMove = 1 - message.by;
          match.remaining = message.clocks[match.color];
          moveIfOurs(match);
          break;
        }
        case "end": {
          const match = matches.get(message.match);
          if (match) {
            matches.delete(match.id);
            console.log(`${match.id} ${match.game}: ${message.result} (${message.reason})`);
          }
          break;
        }
        case "error":
          console.error(`error ${message.code}: ${message.message}`);
          break;
      }
    });
    ws.on("error", (error) => console.error(`connection: ${error.message}`));
    ws.on("close", (code) => resolve(code));
  });
}

async function main() {
  const args = process.argv.slice(2);
  const positional = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--games");
  if (positional.length !== 2) {
    console.error("usage: node bot.js ws://HOST:PORT/ TOKEN [--ladder] [--games g1,g2]");
    process.exit(2);
  }
  const [url, token] = positional;
  const gamesAt = args.indexOf("--games");
  const games = gamesAt >= 0 ? args[gamesAt + 1].split(",") : GAMES;
  let delay = 200;
  for (;;) { // play until stopped, reconnecting with back-off whenever the connection drops
    const started = Date.now();
    const code = await session(url, token, games, args.includes("--ladder"));
    if (STOP_CODES.has(code)) {
      console.error(`the server closed the connection with ${code}`);
      process.exit(1);
    }
    delay = Date.now() - started > 10_000 ? 200 : Math.min(delay * 2, 5000);
    await new Promise((r) => setTimeout(r, delay * (0.5 + Math.random())));
  }
}

main();
