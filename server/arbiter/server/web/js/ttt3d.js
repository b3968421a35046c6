// @ts-check
// Tic-tac-toe in an n×n×n cube, drawn as its n layers side by side (wrapping on narrow screens).
// A move is [x, y, z]: x the column, y the row from the top, z the layer; its text is the layer's
// m,n,k cell, a colon and the layer number from 1 ("b2:2" is the centre of 3×3×3).

import { cellText, gridSvg, piece } from "./mnk.js";
import { fill, h } from "./ui.js";

// The 13 directions of a line in a cube (one of each opposite pair).
const DIRECTIONS = [];
for (let dz = -1; dz <= 1; dz++) {
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      const first = [dz, dy, dx].find((v) => v !== 0);
      if (first === 1) DIRECTIONS.push([dx, dy, dz]);
    }
  }
}

export function moveText(params, [x, y, z]) {
  return `${cellText([x, y])}:${z + 1}`;
}

export class Board {
  constructor(params, { hint }) {
    this.n = params.n;
    this.hint = hint;
    this.moves = [];
    this.pending = null;
    this.myTurn = false;
    this.over = false;
    this.onMove = null;
    this.layers = [];
    this.el = h("div", { class: "board layers", role: "group", "aria-label": `${this.n}×${this.n}×${this.n} cube` });
    for (let z = 0; z < this.n; z++) {
      const grid = gridSvg(this.n, this.n, {
        style: "marks",
        label: `layer ${z + 1}`,
        cellId: (x, y) => `${x},${y},${z}`,
      });
      this.layers.push(grid);
      this.el.append(h("figure", { class: "layer" }, grid.svg, h("figcaption", {}, `layer ${z + 1}`)));
    }
    this.el.addEventListener("click", (event) => {
      const cell = event.target.closest(".cell");
      if (cell) this.clicked(cell.dataset.cell.split(",").map(Number));
    });
  }

  /** @param {number[]} cell x, y and z */
  index([x, y, z]) {
    return (z * this.n + y) * this.n + x;
  }

  reset(moves) {
    this.moves = moves.map((m) => [...m]);
    this.pending = null;
    this.draw();
  }

  push(move) {
    this.moves.push([...move]);
    this.pending = null;
    this.draw();
    return Promise.resolve();
  }

  setTurn(myTurn) {
    this.myTurn = myTurn;
    this.el.classList.toggle("interactive", myTurn);
  }

  setOver(over) {
    this.over = over;
  }

  clicked(cell) {
    if (!this.onMove) return;
    if (this.over || !this.myTurn || this.pending) {
      this.hint(this.over ? "The game is over." : this.pending ? "Your move is on its way." : "It is not your turn.");
      return;
    }
    if (this.moves.some((m) => this.index(m) === this.index(cell))) {
      this.hint("That cell is taken — pick an empty one.");
      return;
    }
    this.pending = cell;
    this.hint("");
    this.draw();
    this.onMove(cell).catch((error) => {
      this.pending = null;
      this.draw();
      this.hint(error.message);
    });
  }

  /** The cells of the line of n through the last move, if it completed one. */
  winningLine() {
    const last = this.moves[this.moves.length - 1];
    if (!last) return null;
    const player = (this.moves.length - 1) % 2;
    const mine = new Set(this.moves.filter((_, ply) => ply % 2 === player).map((m) => this.index(m)));
    const inside = (c) => c.every((v) => v >= 0 && v < this.n);
    for (const [dx, dy, dz] of DIRECTIONS) {
      const run = [last];
      for (const sign of [1, -1]) {
        let c = [last[0] + sign * dx, last[1] + sign * dy, last[2] + sign * dz];
        while (inside(c) && mine.has(this.index(c))) {
          run.push(c);
          c = [c[0] + sign * dx, c[1] + sign * dy, c[2] + sign * dz];
        }
      }
      if (run.length >= this.n) return run;
    }
    return null;
  }

  draw() {
    const stones = new Map(this.moves.map((m, ply) => [this.index(m), ply % 2]));
    const last = this.moves.length ? this.index(this.moves[this.moves.length - 1]) : -1;
    const pending = this.pending ? this.index(this.pending) : -1;
    const winning = new Set((this.winningLine() || []).map((c) => this.index(c)));
    const toMove = this.moves.length % 2;
    this.layers.forEach((grid, z) => {
      for (const cell of grid.cells) {
        const index = this.index([cell.x, cell.y, z]);
        const player = stones.get(index);
        const classes = ["cell"];
        if (index === last) classes.push("last");
        if (winning.has(index)) classes.push("win");
        if (index === pending) classes.push("pending");
        const key = `${player ?? "-"}${classes.join(" ")}`;
        if (key !== cell.key) {
          cell.key = key;
          cell.el.setAttribute("class", classes.join(" "));
          cell.el.dataset.stone = player === undefined ? "empty" : String(player);
          cell.content.replaceChildren();
          if (player !== undefined) cell.content.append(piece(player, cell.x, cell.y, "marks"));
          else if (index === pending) cell.content.append(piece(toMove, cell.x, cell.y, "marks"));
        }
        if (player === undefined && cell.ghostPlayer !== toMove) {
          cell.ghostPlayer = toMove;
          fill(cell.ghost, piece(toMove, cell.x, cell.y, "marks"));
        }
      }
    });
  }
}
