// @ts-check
// The paper soccer board: the field on squared paper, the goals, every line drawn so far (in the
// colour of the player who drew it), the ball, and the legal next steps highlighted.
//
// On their turn a player builds the turn step by step: each click on a highlighted point kicks the
// ball there; a bounce lets them go on; "Take back" undoes the last step; "Send turn" sends the
// whole turn once it is complete (the ball landed on a fresh point, in a goal, or got stuck).
// The opponent's turn arrives whole and is replayed step by step. A player attacking the south
// goal sees the field turned round, so their target is always at the top.

import { ARROWS, DX, DY, SoccerField, directionBetween } from "./soccer_rules.js";
import { fill, h, s } from "./ui.js";

const STEP_MS = 260; // the pace of a replayed turn

export function moveText(params, steps) {
  return steps.map((d) => ARROWS[d]).join("");
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class Board {
  constructor(params, { hint, perspective = null }) {
    this.params = params;
    this.hint = hint;
    this.flip = perspective === 1;
    this.moves = [];
    this.myTurn = false;
    this.over = false;
    this.onMove = null;
    this.pending = []; // steps of my turn not yet confirmed by the server
    this.sending = false;
    this.generation = 0; // bumped by reset(): a replay in progress stops
    this.field = new SoccerField(params);
    const { width: w, length: n, c } = this.field;
    this.svg = s("svg", {
      class: "board soccer",
      viewBox: `-0.9 -1.9 ${w + 1.8} ${n + 3.8}`,
      role: "group", // its points are buttons (keyboard.js): an "img" may hold no control
      "aria-label": `paper soccer field ${w}×${n}`,
    });
    const turned = this.flip ? `rotate(180 ${w / 2} ${n / 2})` : null;
    this.layer = s("g", { transform: turned });
    this.svg.append(this.layer);
    const paper = s("g", { class: "paper" });
    paper.append(s("rect", { class: "pitch", x: 0, y: 0, width: w, height: n }));
    paper.append(s("rect", { class: "goal-area g0", x: c - 1, y: -1, width: 2, height: 1 }));
    paper.append(s("rect", { class: "goal-area g1", x: c - 1, y: n, width: 2, height: 1 }));
    for (let x = 1; x < w; x++) paper.append(s("line", { class: "grid", x1: x, y1: 0, x2: x, y2: n }));
    for (let y = 1; y < n; y++) paper.append(s("line", { class: "grid", x1: 0, y1: y, x2: w, y2: y }));
    paper.append(s("line", { class: "grid", x1: c, y1: -1, x2: c, y2: 0 }));
    paper.append(s("line", { class: "grid", x1: c, y1: n, x2: c, y2: n + 1 }));
    for (const key of this.field.predrawn) {
      const [[ax, ay], [bx, by]] = key.split("|").map((p) => p.split(",").map(Number));
      paper.append(s("line", { class: "border", x1: ax, y1: ay, x2: bx, y2: by }));
    }
    paper.append(s("line", { class: "goal-back", x1: c - 1, y1: -1, x2: c + 1, y2: -1 }));
    paper.append(s("line", { class: "goal-back", x1: c - 1, y1: n + 1, x2: c + 1, y2: n + 1 }));
    this.lines = s("g", { class: "drawn" });
    this.targets = s("g", { class: "targets" });
    this.ballEl = s("circle", { class: "ball", r: 0.24 });
    this.points = s("g", { class: "points" });
    for (let y = -1; y <= n + 1; y++) {
      for (let x = 0; x <= w; x++) {
        if (this.field.onField(x, y) || this.field.isGoal(x, y)) {
          this.points.append(s("circle", { class: "point", cx: x, cy: y, r: 0.5, "data-point": `${x},${y}` }));
        }
      }
    }
    this.layer.append(paper, this.lines, this.targets, this.ballEl, this.points);
    const player = perspective === 0 || perspective === 1;
    this.svg.append(
      s("text", { class: "goal-label", x: w / 2, y: -1.35 }, player ? "you score here" : "first player scores here"),
      s("text", { class: "goal-label", x: w / 2, y: n + 1.65 }, player ? "your goal" : "second player scores here"),
    );
    this.points.addEventListener("click", (event) => {
      const point = event.target.closest(".point");
      if (point) this.clicked(point.dataset.point.split(",").map(Number));
    });

    this.takeBackButton = h("button", { class: "take-back", onclick: () => this.takeBack() }, "Take back");
    this.sendButton = h("button", { class: "send-turn primary", onclick: () => this.send() }, "Send turn");
    this.turnInfo = h("span", { class: "turn-info", role: "status" });
    this.controls = h("div", { class: "soccer-controls" }, this.turnInfo, this.takeBackButton, this.sendButton);
    this.el = h("div", { class: "soccer-board" }, this.svg, this.controls);
    this.draw();
  }

  get confirmedSteps() {
    return this.field.steps.length - this.pending.length;
  }

  reset(moves) {
    this.generation += 1;
    this.moves = moves.map((m) => [...m]);
    this.pending = [];
    this.sending = false;
    this.field = new SoccerField(this.params);
    for (const move of this.moves) for (const d of move) this.field.play(d);
    this.draw();
  }

  /** A turn the server confirmed: mine (already on the board) or the opponent's, replayed step by step. */
  async push(move, { animate = false } = {}) {
    const mine = this.pending.length === move.length && this.pending.every((d, i) => d === move[i]);
    this.moves.push([...move]);
    if (mine) {
      this.pending = [];
      this.sending = false;
      this.draw();
      return;
    }
    while (this.pending.length) {
      this.field.undo();
      this.pending.pop();
    }
    this.sending = false;
    const generation = this.generation;
    for (const d of move) {
      this.field.play(d);
      this.draw();
      if (animate) {
        await sleep(STEP_MS);
        if (generation !== this.generation) return;
      }
    }
    this.draw();
  }

  setTurn(myTurn) {
    this.myTurn = myTurn;
    this.draw();
  }

  setOver(over) {
    this.over = over;
    this.draw();
  }

  /** Whether my turn in progress has ended (fresh point, goal or stuck) and can be sent. */
  get turnComplete() {
    if (!this.pending.length) return false;
    const last = this.field.steps[this.field.steps.length - 1];
    return last.passed || this.field.over;
  }

  clicked([x, y]) {
    if (!this.onMove) return;
    if (this.over) return this.hint("The game is over.");
    if (!this.myTurn) return this.hint("It is not your turn.");
    if (this.sending) return this.hint("Your turn is on its way.");
    if (this.turnComplete) return this.hint("Your turn is complete: send it, or take back a step.");
    const ball = this.field.ball;
    const d = directionBetween(ball.x, ball.y, x, y);
    if (d < 0) {
      return this.hint(
        x === ball.x && y === ball.y
          ? "Pick one of the highlighted points next to the ball."
          : "The ball moves one point at a time: pick a highlighted point next to it.",
      );
    }
    const why = this.field.whyIllegal(d);
    if (why) return this.hint(why);
    this.field.play(d);
    this.pending.push(d);
    this.hint("");
    this.draw();
  }

  takeBack() {
    if (!this.pending.length || this.sending) return;
    this.field.undo();
    this.pending.pop();
    this.draw();
  }

  send() {
    if (!this.turnComplete || this.sending) return;
    this.sending = true;
    this.draw();
    this.onMove([...this.pending]).catch((error) => {
      this.sending = false;
      this.draw();
      this.hint(error.message);
    });
  }

  draw() {
    const field = this.field;
    const confirmed = this.confirmedSteps;
    let lastTurnStart = confirmed; // the opponent's or my last confirmed turn is drawn stronger
    if (confirmed > 0) {
      lastTurnStart = confirmed - 1;
      while (lastTurnStart > 0 && !field.steps[lastTurnStart - 1].passed) lastTurnStart -= 1;
    }
    fill(
      this.lines,
      field.steps.map((step, i) => {
        const classes = [`line p${step.by}`];
        if (i >= confirmed) classes.push("pending");
        else if (i >= lastTurnStart) classes.push("recent");
        return s("line", { class: classes.join(" "), x1: step.from.x, y1: step.from.y, x2: step.to.x, y2: step.to.y });
      }),
    );
    this.ballEl.setAttribute("cx", field.ball.x);
    this.ballEl.setAttribute("cy", field.ball.y);
    const interactive = Boolean(this.onMove) && this.myTurn && !this.over && !this.sending && !this.turnComplete;
    this.svg.classList.toggle("interactive", interactive);
    fill(
      this.targets,
      interactive
        ? field.legalSteps().map((d) =>
            s("circle", {
              class: `step-target${field.touched(field.ball.x + DX[d], field.ball.y + DY[d]) ? " bounce" : ""}`,
              cx: field.ball.x + DX[d],
              cy: field.ball.y + DY[d],
              r: 0.2,
              "data-dir": d,
            }),
          )
        : [],
    );
    const playing = Boolean(this.onMove) && !this.over;
    this.controls.hidden = !playing;
    this.takeBackButton.disabled = !this.pending.length || this.sending;
    this.sendButton.disabled = !this.turnComplete || this.sending;
    let info = "";
    if (playing && this.myTurn) {
      if (this.sending) info = "Sending…";
      else if (this.turnComplete) info = `Turn complete (${moveText(null, this.pending)}): send it or take back.`;
      else if (this.pending.length) info = `Bounce! Step ${this.pending.length + 1}: keep going.`;
      else info = "Your turn: click a highlighted point.";
    } else if (playing) info = "Opponent's turn.";
    this.turnInfo.textContent = info;
  }
}
