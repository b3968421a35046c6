// @ts-check
// A line of moves drawn over any family's board without playing it: the best move at a mistake and
// the line the analysis expects after it, or an analysis board's principal variation. Grid boards
// (m,n,k, five, vanishing, the cube's layers) get numbered see-through pieces, the best move ringed;
// paper soccer gets the ball's path, each turn dashed in its kicker's colour. The drawing sits in
// its own layer, so the board's own redraws leave it alone.

import { SoccerField } from "./soccer_rules.js";
import { s } from "./ui.js";

const SHOWN = 6; // moves of a line drawn at most: further on the board gets too busy to read

/** @type {WeakMap<object, Element[]>} */
const drawn = new WeakMap();

/** Remove what drawLine drew on `board`. */
export function clearLine(board) {
  for (const layer of drawn.get(board) || []) layer.remove();
  drawn.delete(board);
}

/**
 * Draw `line` (moves in the wire encoding) on `board` as played from the position after `before`
 * (the moves up to it), replacing any line drawn before.
 * @param {any} board a board of boards.js
 * @param {string} family
 * @param {object} params
 * @param {any[]} before
 * @param {any[]} line
 */
export function drawLine(board, family, params, before, line) {
  clearLine(board);
  const shown = (line || []).slice(0, SHOWN);
  if (!shown.length) return;
  const first = before.length % 2; // who plays the line's first move
  if (family === "paper_soccer") drawn.set(board, [soccerPath(board, params, before, shown, first)]);
  else if (family === "ttt3d") drawn.set(board, cubeMarks(board, shown, first));
  else drawn.set(board, [gridMarks(board.svg, shown.map(([x, y]) => [x, y]), first)]);
}

function marker([x, y], index, mover) {
  return s(
    "g",
    { class: `line-move p${mover}${index === 0 ? " best" : ""}`, "data-line": index, "data-cell": `${x},${y}` },
    s("circle", { class: "line-piece", cx: x + 0.5, cy: y + 0.5, r: 0.36 }),
    s("text", { class: "line-number", x: x + 0.5, y: y + 0.5, "font-size": 0.42 }, String(index + 1)),
  );
}

/** @param {(index: number) => boolean} [keep] which of the line's moves this grid shows */
function gridMarks(svg, cells, first, keep = (index) => index >= 0) {
  const layer = s("g", { class: "best-line" });
  cells.forEach((cell, index) => {
    if (keep(index)) layer.append(marker(cell, index, (first + index) % 2));
  });
  svg.append(layer);
  return layer;
}

/** The cube: each move marked in its layer's grid, numbered along the whole line. */
function cubeMarks(board, line, first) {
  return board.layers.map((grid, z) =>
    gridMarks(grid.svg, line.map(([x, y]) => [x, y]), first, (index) => line[index][2] === z),
  );
}

/** Paper soccer: the ball's path through the line's turns from where it stands, as far as each step is legal. */
function soccerPath(board, params, before, turns, first) {
  const field = new SoccerField(params);
  for (const move of before) for (const d of move) field.play(d);
  const layer = s("g", { class: "best-line" });
  turns.forEach((steps, index) => {
    const points = [`${field.ball.x},${field.ball.y}`];
    for (const d of steps) {
      if (field.over || field.whyIllegal(d)) break;
      field.play(d);
      points.push(`${field.ball.x},${field.ball.y}`);
    }
    if (points.length < 2) return;
    const mover = (first + index) % 2;
    const end = field.ball;
    layer.append(
      s(
        "g",
        { class: `line-move p${mover}${index === 0 ? " best" : ""}`, "data-line": index },
        s("polyline", { class: "line-path", points: points.join(" ") }),
        s("circle", { class: "line-end", cx: end.x, cy: end.y, r: 0.22 }),
      ),
    );
  });
  board.layer.append(layer);
  return layer;
}
