// @ts-check
// Paper soccer rules in the browser, so the board can highlight the legal steps, explain an illegal
// one, and let a player build a turn step by step before sending it. The server checks every turn
// with the engine; this mirrors arbiter/engine/paper_soccer.py (same field, same closed-direction
// masks per point, same bounce, goal and stuck rules) and is tested against it.
//
// Points are (x, y) with 0 <= x <= width, 0 <= y <= length, y growing southwards, plus the goal
// points (c-1..c+1, -1) and (c-1..c+1, length+1), c = width / 2. Directions: 0 N, then clockwise.
// The first player attacks the north goal (y = -1), the second the south one.

export const DX = [0, 1, 1, 1, 0, -1, -1, -1];
export const DY = [-1, -1, 0, 1, 1, 1, 0, -1];
export const ARROWS = ["↑", "↗", "→", "↘", "↓", "↙", "←", "↖"];
const ALL_CLOSED = 0xff;

function segmentKey(ax, ay, bx, by) {
  return ax < bx || (ax === bx && ay < by) ? `${ax},${ay}|${bx},${by}` : `${bx},${by}|${ax},${ay}`;
}

/** The direction from (ax, ay) to its neighbour (bx, by), or -1 when they are not neighbours. */
export function directionBetween(ax, ay, bx, by) {
  for (let d = 0; d < 8; d++) if (ax + DX[d] === bx && ay + DY[d] === by) return d;
  return -1;
}

export class SoccerField {
  constructor({ width, length, stuck }) {
    this.width = width;
    this.length = length;
    this.c = width / 2;
    this.stuckDraw = stuck === "draw";
    this.columns = width + 1;
    this.predrawn = this._predrawn();
    this.closed = new Uint8Array(this.columns * (length + 3)).fill(ALL_CLOSED);
    for (let y = -1; y <= length + 1; y++) {
      for (let x = 0; x <= width; x++) {
        const goal = this.isGoal(x, y);
        if (!goal && !this.onField(x, y)) continue;
        let mask = 0;
        for (let d = 0; d < 8; d++) {
          const drawn = this.predrawn.has(segmentKey(x, y, x + DX[d], y + DY[d]));
          if (drawn || (!goal && !this.stepStaysIn(x, y, d))) mask |= 1 << d;
        }
        this.closed[this.index(x, y)] = mask;
      }
    }
    this.ball = { x: this.c, y: length / 2 };
    this.toMove = 0;
    this.status = "ongoing"; // ongoing | win0 | win1 | draw
    this.reason = null;
    this.steps = []; // {d, from, to, by, passed}
  }

  _predrawn() {
    const { width: w, length: n, c } = this;
    const lines = new Set();
    for (let y = 0; y < n; y++) {
      lines.add(segmentKey(0, y, 0, y + 1));
      lines.add(segmentKey(w, y, w, y + 1));
    }
    for (let x = 0; x < w; x++) {
      if (x !== c - 1 && x !== c) {
        lines.add(segmentKey(x, 0, x + 1, 0));
        lines.add(segmentKey(x, n, x + 1, n));
      }
    }
    for (const x of [c - 1, c + 1]) {
      lines.add(segmentKey(x, 0, x, -1));
      lines.add(segmentKey(x, n, x, n + 1));
    }
    return lines;
  }

  index(x, y) {
    return (y + 1) * this.columns + x;
  }

  onField(x, y) {
    return x >= 0 && x <= this.width && y >= 0 && y <= this.length;
  }

  isGoal(x, y) {
    return (y === -1 || y === this.length + 1) && x >= this.c - 1 && x <= this.c + 1;
  }

  /** Whether a step from field point (x, y) stays on the field or enters a goal through its mouth. */
  stepStaysIn(x, y, d) {
    const tx = x + DX[d];
    const ty = y + DY[d];
    if (this.onField(tx, ty)) return true;
    const goalLine = ty < 0 ? 0 : this.length;
    return this.isGoal(tx, ty) && y === goalLine && x >= this.c - 1 && x <= this.c + 1;
  }

  get over() {
    return this.status !== "ongoing";
  }

  /** Whether the point has a line on it (a step landing there bounces). */
  touched(x, y) {
    return this.closed[this.index(x, y)] !== 0;
  }

  legalSteps() {
    if (this.over) return [];
    const mask = this.closed[this.index(this.ball.x, this.ball.y)];
    const out = [];
    for (let d = 0; d < 8; d++) if (((mask >> d) & 1) === 0) out.push(d);
    return out;
  }

  /** Why the step in direction d is not allowed now, in words; null when it is. */
  whyIllegal(d) {
    if (this.over) return "The game is over.";
    const { x, y } = this.ball;
    if (((this.closed[this.index(x, y)] >> d) & 1) === 0) return null;
    const tx = x + DX[d];
    const ty = y + DY[d];
    if (!this.stepStaysIn(x, y, d)) {
      return this.isGoal(tx, ty)
        ? "The ball enters a goal only between the posts."
        : "That step leaves the field.";
    }
    if (this.predrawn.has(segmentKey(x, y, tx, ty))) return "The ball cannot run along the border or a goal wall.";
    return "That line is already drawn — every line is used once.";
  }

  /** Kick the ball one legal step (the caller checked whyIllegal). */
  play(d) {
    const from = { ...this.ball };
    const to = { x: from.x + DX[d], y: from.y + DY[d] };
    const target = this.index(to.x, to.y);
    const bounce = this.closed[target] !== 0;
    this.closed[this.index(from.x, from.y)] |= 1 << d;
    this.closed[target] |= 1 << ((d + 4) & 7);
    this.ball = to;
    const by = this.toMove;
    let passed = false;
    if (to.y < 0) {
      this.status = "win0";
      this.reason = "goal";
    } else if (to.y > this.length) {
      this.status = "win1";
      this.reason = "goal";
    } else {
      if (!bounce) {
        this.toMove = 1 - this.toMove;
        passed = true;
      }
      if (this.closed[target] === ALL_CLOSED) {
        this.reason = "stuck";
        this.status = this.stuckDraw ? "draw" : this.toMove === 0 ? "win1" : "win0";
      }
    }
    this.steps.push({ d, from, to, by, passed });
  }

  /** Take back the last step. */
  undo() {
    const step = this.steps.pop();
    const { d, from, to, passed } = step;
    this.closed[this.index(from.x, from.y)] &= ~(1 << d);
    this.closed[this.index(to.x, to.y)] &= ~(1 << ((d + 4) & 7));
    this.ball = from;
    if (passed) this.toMove = 1 - this.toMove;
    this.status = "ongoing";
    this.reason = null;
  }
}
