// @ts-check
// The m,n,k board (tic-tac-toe, 4×4, gomoku, any m×n up to 26×26): an SVG grid with coordinates,
// the last move marked and the winning line drawn. Small boards show X and O, larger ones stones.
//
// A move is a cell [x, y], 0-based, x the column, y the row from the top; its text is the column
// letter and the row number, "a1" top-left (the engine's notation).
//
// Every board module offers the same surface to the match and replay views:
//   new Board(params, {hint, perspective}) · board.el · board.reset(moves)
//   board.push(move, {animate}) → Promise · board.setTurn(bool) · board.setOver(bool)
//   board.onMove = (move) => Promise (set by a player's view; a click calls it with the move)
//   options.hint(text) says why a click did nothing; hint("") after a legal click clears it

import { fill, s } from "./ui.js";

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const DIRECTIONS = [[1, 0], [0, 1], [1, 1], [1, -1]];
const MARKS_UP_TO = 5; // boards up to 5×5 show X and O; larger ones show black and white stones

export function cellText([x, y]) {
  return `${LETTERS[x]}${y + 1}`;
}

export function moveText(params, move) {
  return cellText(move);
}

/**
 * The cells of a winning line through `cell` on `occupied` (index → player), or null. `wins(length,
 * player, ends)` judges each run through the cell: `ends` holds what stands just beyond either end
 * (a player, undefined on an empty cell, null off the board).
 */
export function winningLine(occupied, width, height, cell, wins) {
  const player = occupied.get(cell);
  if (player === undefined) return null;
  const x = cell % width;
  const y = Math.floor(cell / width);
  const inside = (px, py) => px >= 0 && px < width && py >= 0 && py < height;
  for (const [dx, dy] of DIRECTIONS) {
    const run = [[x, y]];
    const ends = [];
    for (const sign of [1, -1]) {
      let [px, py] = [x + sign * dx, y + sign * dy];
      while (inside(px, py) && occupied.get(py * width + px) === player) {
        run.push([px, py]);
        px += sign * dx;
        py += sign * dy;
      }
      ends.push(inside(px, py) ? occupied.get(py * width + px) : null);
    }
    if (wins(run.length, player, ends)) {
      run.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      return run;
    }
  }
  return null;
}

/** A mark for `player` centred in cell (x, y): X / O on small boards, a stone on large ones. */
export function piece(player, x, y, style) {
  const cx = x + 0.5;
  const cy = y + 0.5;
  if (style === "stones") {
    return s("circle", { class: `stone p${player}`, cx, cy, r: 0.42 });
  }
  if (player === 0) {
    const d = 0.27;
    return s(
      "g",
      { class: "mark p0" },
      s("line", { x1: cx - d, y1: cy - d, x2: cx + d, y2: cy + d }),
      s("line", { x1: cx - d, y1: cy + d, x2: cx + d, y2: cy - d }),
    );
  }
  return s("circle", { class: "mark p1", cx, cy, r: 0.29 });
}

/**
 * One cell of a grid: its element, the layers its piece and its hover ghost are drawn in, and what was
 * last drawn there (`key`; `ghostPlayer`, whose ghost piece it shows), so a redraw touches only changes.
 * @typedef {{ el: SVGElement, content: SVGElement, ghost: SVGElement, x: number, y: number, key: string,
 *   ghostPlayer?: number }} GridCell
 */

/**
 * A grid of clickable cells in one SVG, with coordinates along the top and the left side.
 * `cellId` names each cell in data-cell (tests and the 3-D board's layers use it).
 */
export function gridSvg(width, height, { style, label, cellId }) {
  const labelSize = Math.max(width, height) <= 5 ? 0.2 : 0.3; // in board units: small boards get small labels
  const margin = 0.3 + 1.5 * labelSize;
  const svg = s("svg", {
    class: `grid ${style}`,
    viewBox: `${-margin} ${-margin} ${width + margin + 0.25} ${height + margin + 0.25}`,
    role: "group", // its cells are buttons (keyboard.js); a "grid" would need rows
    "aria-label": label,
  });
  svg.append(s("rect", { class: "surface", x: -0.1, y: -0.1, width: width + 0.2, height: height + 0.2, rx: 0.12 }));
  const lines = s("g", { class: "lines" });
  const outline = style === "stones" ? 0 : 1; // a wooden board shows its edge lines, a paper grid does not
  for (let x = outline; x <= width - outline; x++) lines.append(s("line", { x1: x, y1: 0, x2: x, y2: height }));
  for (let y = outline; y <= height - outline; y++) lines.append(s("line", { x1: 0, y1: y, x2: width, y2: y }));
  svg.append(lines);
  const coords = s("g", { class: "coords", "font-size": labelSize }); // an attribute: the CSP allows no inline style
  for (let x = 0; x < width; x++) coords.append(s("text", { x: x + 0.5, y: -margin / 2 + 0.05 }, LETTERS[x]));
  for (let y = 0; y < height; y++) coords.append(s("text", { x: -margin / 2, y: y + 0.5 }, String(y + 1)));
  svg.append(coords);
  /** @type {GridCell[]} */
  const cells = [];
  const layer = s("g", { class: "cells" });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const hit = s("rect", { class: "hit", x, y, width: 1, height: 1 });
      const content = s("g", { class: "piece" });
      const ghost = s("g", { class: "ghost" });
      const cell = s("g", { class: "cell", "data-cell": cellId(x, y), "data-stone": "empty" }, hit, ghost, content);
      layer.append(cell);
      cells.push({ el: cell, content, ghost, x, y, key: "" });
    }
  }
  svg.append(layer);
  const overlay = s("g", { class: "overlay" });
  svg.append(overlay);
  return { svg, cells, overlay };
}

export class MnkBoard {
  constructor(params, { hint }) {
    this.width = params.m;
    this.height = params.n;
    this.k = params.k;
    this.exact = Boolean(params.exact);
    this.hint = hint;
    this.moves = [];
    this.pending = null;
    this.myTurn = false;
    this.over = false;
    this.onMove = null;
    this.style = Math.max(this.width, this.height) <= MARKS_UP_TO ? "marks" : "stones";
    const grid = gridSvg(this.width, this.height, {
      style: this.style,
      label: `${this.width}×${this.height} board`,
      cellId: (x, y) => `${x},${y}`,
    });
    this.cells = grid.cells;
    this.overlay = grid.overlay;
    this.svg = grid.svg;
    this.svg.classList.add("board");
    this.el = this.svg;
    this.svg.addEventListener("click", (event) => {
      const cell = event.target.closest(".cell");
      if (cell) this.clicked(cell.dataset.cell.split(",").map(Number));
    });
    for (const cell of this.cells) cell.ghost.append(piece(0, cell.x, cell.y, this.style));
  }

  /** Which player's stone stands on each cell index, and at which ply it was placed. */
  standing() {
    const stones = new Map();
    this.moves.forEach(([x, y], ply) => stones.set(y * this.width + x, { player: ply % 2, ply }));
    return stones;
  }

  /**
   * Why the player to move may not play on cell `index`, where `stone` stands (if any), or null.
   * @returns {string | null}
   */
  refusal(stone, index) {
    return stone ? "That square is taken — pick an empty one." : null;
  }

  /** Whether a run of `length` of `player`'s stones wins (`ends`: see winningLine): k, or more unless exact. */
  wins(length, player, ends) {
    return length === this.k || (length > this.k && !this.exact);
  }

  /** Extra classes for a cell (the last move; subclasses add more). */
  decorations(index, stone) {
    const last = this.moves.length ? this.moves[this.moves.length - 1] : null;
    return stone && last && index === last[1] * this.width + last[0] ? ["last"] : [];
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
    this.svg.classList.toggle("interactive", myTurn);
    this.draw();
  }

  /** The game ended: no more turns, nothing marked as coming next. */
  setOver(over) {
    this.over = over;
    this.draw();
  }

  clicked([x, y]) {
    if (!this.onMove) return; // a replay, or a spectator
    if (this.over) {
      this.hint("The game is over.");
      return;
    }
    if (!this.myTurn || this.pending) {
      this.hint(this.pending ? "Your move is on its way." : "It is not your turn.");
      return;
    }
    const index = y * this.width + x;
    const why = this.refusal(this.standing().get(index), index);
    if (why) {
      this.hint(why);
      return;
    }
    this.pending = [x, y];
    this.hint("");
    this.draw();
    this.onMove([x, y]).catch((error) => {
      this.pending = null;
      this.draw();
      this.hint(error.message);
    });
  }

  draw() {
    const stones = this.standing();
    const toMove = this.moves.length % 2;
    for (const [index, cell] of this.cells.entries()) {
      const stone = stones.get(index);
      const pending = this.pending && this.pending[0] === cell.x && this.pending[1] === cell.y;
      const classes = this.decorations(index, stone);
      const key = `${stone ? stone.player : "-"}${pending ? "p" : ""}${classes.join(" ")}`;
      if (key !== cell.key) {
        cell.key = key;
        cell.el.dataset.stone = stone ? String(stone.player) : "empty";
        cell.el.setAttribute("class", ["cell", ...classes, pending ? "pending" : ""].join(" ").trim());
        cell.content.replaceChildren();
        if (stone) cell.content.append(piece(stone.player, cell.x, cell.y, this.style));
        else if (pending) cell.content.append(piece(toMove, cell.x, cell.y, this.style));
        this.adorn(cell, index, classes);
      }
      if (!stone && cell.ghostPlayer !== toMove) {
        cell.ghostPlayer = toMove;
        fill(cell.ghost, piece(toMove, cell.x, cell.y, this.style));
      }
    }
    this.drawWin(stones);
  }

  /** What a cell shows over its piece, drawn again whenever its classes change: the last move's dot. */
  adorn(cell, index, classes) {
    if (classes.includes("last") && this.style === "stones") {
      cell.content.append(s("circle", { class: "last-dot", cx: cell.x + 0.5, cy: cell.y + 0.5, r: 0.11 }));
    }
  }

  drawWin(stones) {
    this.overlay.replaceChildren();
    const last = this.moves[this.moves.length - 1];
    if (!last) return;
    const occupied = new Map([...stones].map(([index, stone]) => [index, stone.player]));
    const cell = last[1] * this.width + last[0];
    const wins = (length, player, ends) => this.wins(length, player, ends);
    const line = winningLine(occupied, this.width, this.height, cell, wins);
    if (!line) return;
    const [a, b] = [line[0], line[line.length - 1]];
    this.overlay.append(
      s("line", { class: "win-line", x1: a[0] + 0.5, y1: a[1] + 0.5, x2: b[0] + 0.5, y2: b[1] + 0.5 }),
    );
  }
}

export { MnkBoard as Board };
