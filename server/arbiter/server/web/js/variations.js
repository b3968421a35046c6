// @ts-check
// The analysis board: a copy of a game's board at some position, where the person plays variations
// (every move they try is kept in a tree, so they can go back and try another), and the server's
// analysis workers evaluate each position reached (`analyse`, a bounded search per request, rate
// limited per person: the page says so when it is over the limit). The evaluation, its line drawn
// on the board, and "Back to the game" return to where the person came from.

import { clearLine, drawLine } from "./bestline.js";
import { createBoard, moveText } from "./boards.js";
import { ErrorCode } from "./protocol.js";
import { errorText, fill, h } from "./ui.js";

/**
 * A position of the tree: the move that reached it from its parent, and what the server said of it.
 * @typedef {{ move: any, parent: Node | null, children: Node[], ply: number, result?: any, error?: string,
 *   errorCode?: string }} Node
 */

/** Why a position has no evaluation, as the person reads it. */
function refusalText(error, game) {
  if (error.code === ErrorCode.RATE_LIMITED) {
    return `The server limits how often you can ask for an analysis: ${errorText(error)}. Wait a moment, then ask again.`;
  }
  if (error.code === ErrorCode.NO_ANALYSIS_WORKER) return `No analysis worker is online for ${game}: no evaluation now.`;
  return `No evaluation: ${errorText(error)}`;
}

/**
 * Mount the analysis board into `holder`, starting after `start` (the moves from the game's start).
 * @param {HTMLElement} holder
 * @param {{ ctx: import("./app.js").Context, game: string, params: object, family: string,
 *   players: string[], start: any[], onBack: () => void }} options
 */
export function mountVariations(holder, { ctx, game, params, family, players, start, onBack }) {
  const { conn } = ctx;
  const hintLine = h("p", { class: "hint", role: "status", "aria-live": "polite" });
  const showHint = (text) => {
    hintLine.textContent = text;
    hintLine.classList.toggle("show", Boolean(text));
  };
  const board = createBoard(family, params, { hint: showHint });
  /** @type {Node} */
  const root = { move: null, parent: null, children: [], ply: start.length };
  let current = root;
  let asking = null; // the node whose evaluation is on its way
  let wanted = null; // the node to evaluate once that one is back
  let alive = true;

  const fillBar = h("div", { class: "eval-fill", id: "variation-fill" });
  const bar = h("div", { class: "eval-bar", role: "meter", "aria-label": `${players[0]}'s chance`, "aria-valuemin": "0",
    "aria-valuemax": "100" }, fillBar);
  const evaluation = h("p", { class: "analysis-line", id: "variation-eval", "aria-live": "polite" });
  const pvLine = h("p", { class: "analysis-pv", id: "variation-pv" });
  const again = h("button", { class: "small", id: "variation-again", hidden: true, onclick: () => evaluate(current) },
    "Ask again");
  const tree = h("div", { class: "variation-tree", id: "variation-tree" });
  const text = (move) => moveText(family, params, move);

  const path = (node) => {
    const moves = [];
    for (let n = node; n.parent; n = n.parent) moves.unshift(n.move);
    return [...start, ...moves];
  };

  function play(move) {
    const same = JSON.stringify(move);
    let next = current.children.find((child) => JSON.stringify(child.move) === same);
    if (!next) {
      next = { move: [...move], parent: current, children: [], ply: current.ply + 1 };
      current.children.push(next);
    }
    current = next;
    return board.push(move).then(() => shown());
  }

  function goTo(node) {
    current = node;
    board.reset(path(node));
    shown();
  }

  /** Ask for `node`'s evaluation, one request at a time: positions passed through meanwhile are skipped. */
  function evaluate(node) {
    if (asking) {
      wanted = node;
      return;
    }
    asking = node;
    node.error = undefined;
    render();
    conn.request("analyse", { game, params, moves: path(node) }).then(
      (result) => {
        node.result = result;
      },
      (error) => {
        if (error.code === ErrorCode.ILLEGAL_MOVE || error.code === ErrorCode.BAD_MOVE) {
          forget(node, errorText(error));
          return;
        }
        node.error = refusalText(error, game);
        node.errorCode = error.code;
      },
    ).finally(() => {
      asking = null;
      if (!alive) return;
      const next = wanted;
      wanted = null;
      if (next && next !== node && !next.result) evaluate(next);
      else render();
    });
  }

  /** A move the server refused (a rule the page does not check, such as renju's forbidden points). */
  function forget(node, why) {
    const parent = /** @type {Node} */ (node.parent);
    parent.children = parent.children.filter((child) => child !== node);
    if (current === node) goTo(parent);
    showHint(`That move is not legal here: ${why}`);
  }

  function shown() {
    if (!current.result && !current.error) evaluate(current);
    render();
  }

  function render() {
    const node = current;
    const result = node.result;
    board.setOver(Boolean(result && result.best === null));
    board.setTurn(true);
    clearLine(board);
    again.hidden = !node.error;
    if (result) {
      const share = result.win[0];
      fillBar.style.width = `${(share * 100).toFixed(1)}%`;
      bar.setAttribute("aria-valuenow", String(Math.round(share * 100)));
      const facts = [result.depth !== undefined ? `depth ${result.depth}` : ""].filter(Boolean);
      evaluation.textContent = result.best === null
        ? `The game is over here: ${players[0]} ${Math.round(share * 100)}%.`
        : `${players[0]} ${Math.round(share * 100)}% · ${players[1]} ${Math.round(result.win[1] * 100)}%` +
          (facts.length ? ` (${facts.join(", ")})` : "");
      pvLine.textContent = result.pv.length ? `Line: ${result.pv.map(text).join(" ")}` : "";
      if (result.pv.length) drawLine(board, family, params, path(node), result.pv);
    } else {
      evaluation.textContent = node.error || "Evaluating…";
      pvLine.textContent = "";
    }
    evaluation.dataset.state = result ? "done" : node.error ? "error" : "waiting";
    if (node.errorCode) evaluation.dataset.code = node.errorCode;
    else delete evaluation.dataset.code;
    renderTree();
  }

  function moveButton(node) {
    const number = `${node.ply}.`;
    return h(
      "button",
      {
        class: `variation-move p${(node.ply - 1) % 2}${node === current ? " current" : ""}`,
        "data-ply": node.ply - 1,
        "aria-current": node === current ? "true" : undefined,
        onclick: () => goTo(node),
      },
      h("small", { class: "muted" }, number),
      " ",
      text(node.move),
    );
  }

  /** The tree as lichess draws it: each line's main continuation inline, the others nested under it. */
  function line(node, into) {
    for (let n = node; n.children.length; n = n.children[0]) {
      const [main, ...others] = n.children;
      into.append(moveButton(main));
      if (others.length) {
        into.append(h("ul", { class: "variation-branches" }, others.map((other) => {
          const item = h("li", {}, moveButton(other));
          line(other, item);
          return item;
        })));
      }
    }
  }

  function renderTree() {
    const start = h("button", { class: `variation-move start${root === current ? " current" : ""}`, onclick: () => goTo(root) },
      `position after ${root.ply} moves`);
    fill(tree, start);
    line(root, tree);
  }

  const keys = (event) => {
    if (event.target.closest && event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowLeft" && current.parent) goTo(current.parent);
    else if (event.key === "ArrowRight" && current.children.length) goTo(current.children[0]);
  };
  document.addEventListener("keydown", keys);

  board.reset(start);
  board.onMove = play;
  fill(
    holder,
    h(
      "div",
      { class: "variations", id: "variations", "data-pieces": board.style },
      h("div", { class: "board-col" }, h("div", { class: "board-holder", "data-family": family }, board.el), hintLine),
      h(
        "aside",
        { class: "side card" },
        h("h2", {}, "Analysis board"),
        h("p", { class: "muted" }, "Play moves on this copy of the board: the game itself does not change."),
        h("section", { class: "analysis" }, bar, evaluation, pvLine, again),
        h("h3", {}, "Variations"),
        tree,
        h("button", { class: "primary", id: "variation-back", onclick: () => onBack() }, "Back to the game"),
      ),
    ),
  );
  shown();

  return {
    unmount() {
      alive = false;
      document.removeEventListener("keydown", keys);
    },
  };
}
