// @ts-check
// What the match view offers a person learning against bots (SPEC.md section 15): takebacks in casual
// games (asked of a person, granted by a bot by its policy), a hint once per turn against a bot, the
// sounds (sound.js), "Your turn" in the title while the tab is in the background, keyboard play
// (keyboard.js) and the move list's screen-reader labels. The match view (match.js) builds one
// with its board and calls `refresh` whenever it redraws; a takeback resyncs the whole match.

import { keyboardPlay } from "./keyboard.js";
import { rememberBotGame } from "./levels.js";
import { play } from "./sound.js";
import { h } from "./ui.js";

const YOUR_TURN = "Your turn · ";
const LOW_MS = 10_000; // "low time": under ten seconds, or a tenth of the initial time if that is less

export class Learner {
  /**
   * @param {{conn: any, matchId: string, state: () => any, board: any, moveText: (move: any) => string,
   *   resync: () => void, say: (text: string) => void, notify: (text: string) => void}} options
   */
  constructor({ conn, matchId, state, board, moveText, resync, say, notify }) {
    this.conn = conn;
    this.matchId = matchId;
    this.state = state;
    this.moveText = moveText;
    this.say = say;
    this.notify = notify;
    this.asked = -1; // the ply my takeback request stands at
    this.offered = -1; // the ply the opponent's request stands at
    this.hintPly = -1; // the ply of the hint I asked (once per turn)
    this.hint = null; // the last hint: {ply, move, used}
    this.lowWarned = false;
    this.clocks = { at: performance.now(), ms: [...state().clocks] };
    this.myTurn = false;
    this.over = false;
    this.el = h("div", { class: "learner", id: "learner" });
    this.keys = keyboardPlay(board.el, state().players.map((p) => p.name));
    const me = () => this.state().color;
    const mine = (message) => message.match === matchId;
    this.offs = [
      conn.on("moved", (message) => {
        if (!mine(message)) return;
        this.clocks = { at: performance.now(), ms: [...message.clocks] };
        if (message.by !== me() && me() !== null) play("move");
      }),
      conn.on("end", (message) => {
        if (!mine(message)) return;
        play("end");
        const { color, players, levels } = this.state();
        const bot = color !== null && players[1 - color].kind === "bot";
        if (bot && message.result !== null) {
          const score = message.winner === color ? 1 : message.winner === null ? 0.5 : 0;
          rememberBotGame(players[1 - color].name, (levels && levels[1 - color]) || 1, score); // the lobby's suggestion
        }
      }),
      conn.on("takeback_offered", (message) => {
        if (!mine(message)) return;
        if (message.by === me()) this.asked = this.plies();
        else {
          this.offered = this.plies();
          say(`${this.name(message.by)} asks to take back their last move.`);
        }
        this.draw();
      }),
      conn.on("takeback_declined", (message) => {
        if (!mine(message)) return;
        if (message.by !== me()) say(`${this.name(message.by)} declined the takeback.`);
        this.asked = this.offered = -1;
        this.draw();
      }),
      conn.on("taken_back", (message) => {
        if (!mine(message)) return;
        this.asked = this.offered = -1;
        this.clocks = { at: performance.now(), ms: [...message.clocks] };
        const plies = message.moves.length;
        say(`${plies === 1 ? "One move" : `${plies} moves`} taken back.`);
        resync(); // the whole match again, from the server: the board, the clocks and the move list
      }),
      conn.on("hint", (message) => {
        if (!mine(message)) return;
        this.hint = message;
        this.draw();
      }),
    ];
    this.timer = setInterval(() => this.checkTime(), 500);
    this.onVisibility = () => this.title();
    document.addEventListener("visibilitychange", this.onVisibility);
  }

  plies() {
    return this.state().moves.length;
  }

  name(color) {
    return this.state().players[color].name;
  }

  /** The match view redrew: my turn or not, over or not. */
  refresh(myTurn, over) {
    this.myTurn = myTurn;
    this.over = over;
    this.keys.relabel();
    this.labelMoves();
    this.title();
    this.draw();
  }

  /** "Your turn · " before the title while it is my turn and the tab is in the background. */
  title() {
    const base = document.title.startsWith(YOUR_TURN) ? document.title.slice(YOUR_TURN.length) : document.title;
    document.title = this.myTurn && !this.over && document.hidden ? YOUR_TURN + base : base;
  }

  checkTime() {
    const state = this.state();
    if (!this.myTurn || this.over || this.lowWarned || state.color === null) return;
    const left = this.clocks.ms[state.color] - (performance.now() - this.clocks.at);
    if (left < Math.min(LOW_MS, state.clock.initial_ms / 10)) {
      this.lowWarned = true;
      play("low");
    }
  }

  labelMoves() {
    const state = this.state();
    for (const span of document.querySelectorAll("#moves .move")) {
      const ply = Number(/** @type {HTMLElement} */ (span).dataset.ply);
      span.setAttribute("aria-label", `move ${ply + 1}, ${this.name(ply % 2)}: ${span.textContent}`);
    }
    const list = document.getElementById("moves");
    if (list) list.setAttribute("aria-label", `moves of ${state.players[0].name} and ${state.players[1].name}`);
  }

  /** The panel's buttons, for a player of a casual game that is not over. */
  draw() {
    const state = this.state();
    const me = state.color;
    if (me === null || me === undefined || state.rated || this.over) {
      this.el.replaceChildren();
      return;
    }
    const plies = this.plies();
    const opening = state.opening || 0;
    const mine = [plies - 1, plies - 2].some((ply) => ply >= opening && ply % 2 === me);
    const parts = [];
    if (this.offered === plies) {
      parts.push(h("button", { class: "small primary", id: "accept-takeback", onclick: () => this.act("accept_takeback") },
        "Accept takeback"));
      parts.push(h("button", { class: "small", id: "decline-takeback", onclick: () => this.act("decline_takeback") },
        "Decline takeback"));
    } else if (this.asked === plies) {
      parts.push(h("button", { class: "small", id: "takeback", disabled: true }, "Takeback asked"));
    } else if (mine) {
      parts.push(h("button", { class: "small", id: "takeback", onclick: () => this.act("takeback") }, "Take back"));
    }
    const bot = state.players[1 - me].kind === "bot";
    if (bot && this.myTurn && this.hintPly !== plies) {
      parts.push(h("button", { class: "small", id: "hint-button", onclick: () => this.askHint() }, "Hint"));
    }
    if (this.hint && this.hint.ply === plies) {
      parts.push(h("p", { class: "hint-move", id: "hint-move", role: "status" },
        `Hint: ${this.moveText(this.hint.move)} (${this.hint.used} used)`));
    }
    this.el.replaceChildren(...parts);
  }

  askHint() {
    this.hintPly = this.plies();
    this.draw();
    this.act("hint");
  }

  act(type) {
    this.conn.request(type, { match: this.matchId }).catch((error) => this.notify(error.message || String(error)));
  }

  unmount() {
    for (const off of this.offs) off();
    clearInterval(this.timer);
    document.removeEventListener("visibilitychange", this.onVisibility);
  }
}
