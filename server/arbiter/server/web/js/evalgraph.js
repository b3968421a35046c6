// @ts-check
// The evaluation graph of a reviewed game: the viewer's win probability after each move as a filled
// curve over the game (plain SVG, no chart library), the positions not analysed yet left out, a dot
// on each inaccuracy, mistake and blunder, and a cursor at the position shown. A click on the graph
// goes to the position under it.

import { s } from "./ui.js";

const WIDTH = 400;
const HEIGHT = 140;
const PAD = 4; // the dots at either end stay inside the picture

export class EvalGraph {
  /** @param {{ viewer: number, viewerName: string, onPick: (ply: number) => void }} options */
  constructor({ viewer, viewerName, onPick }) {
    this.viewer = viewer;
    this.viewerName = viewerName;
    this.plies = 0;
    this.area = s("path", { class: "graph-area" });
    this.curve = s("path", { class: "graph-curve" });
    this.dots = s("g", { class: "graph-dots" });
    this.cursor = s("line", { class: "graph-cursor", y1: 0, y2: HEIGHT });
    this.el = s(
      "svg",
      { class: "eval-graph", id: "eval-graph", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img" },
      s("rect", { class: "graph-back", x: 0, y: 0, width: WIDTH, height: HEIGHT }),
      this.area,
      s("line", { class: "graph-middle", x1: 0, y1: HEIGHT / 2, x2: WIDTH, y2: HEIGHT / 2 }),
      this.curve,
      this.cursor,
      this.dots,
    );
    this.el.addEventListener("click", (event) => {
      const box = this.el.getBoundingClientRect();
      if (!box.width || !this.plies) return;
      const x = ((event.clientX - box.left) / box.width) * WIDTH;
      onPick(Math.max(0, Math.min(this.plies, Math.round(((x - PAD) / (WIDTH - 2 * PAD)) * this.plies))));
    });
  }

  x(ply) {
    return PAD + (this.plies ? (ply / this.plies) * (WIDTH - 2 * PAD) : 0);
  }

  /** The viewer's share at a position drawn as a height: 0% at the bottom, 100% at the top. */
  y(firstShare) {
    const share = this.viewer === 0 ? firstShare : 1 - firstShare;
    return PAD + (1 - share) * (HEIGHT - 2 * PAD);
  }

  /**
   * Draw the game: `shares[p]` is the first player's win probability after p moves (null where not
   * analysed yet); `marks` the judged moves worth a dot ({ply: the move's index, kind}).
   * @param {(number | null)[]} shares
   * @param {{ ply: number, kind: string, text: string }[]} marks
   */
  update(shares, marks) {
    this.plies = shares.length - 1;
    const known = shares.map((share, ply) => [ply, share]).filter(([, share]) => share !== null);
    const points = known.map(([ply, share]) => `${this.x(ply).toFixed(1)},${this.y(share).toFixed(1)}`);
    const bottom = HEIGHT - PAD;
    this.curve.setAttribute("d", points.length ? `M${points.join("L")}` : "");
    this.area.setAttribute(
      "d",
      points.length ? `M${this.x(known[0][0]).toFixed(1)},${bottom}L${points.join("L")}` +
        `L${this.x(known[known.length - 1][0]).toFixed(1)},${bottom}Z` : "",
    );
    this.dots.replaceChildren(
      ...marks
        .filter(({ ply }) => shares[ply + 1] !== null && shares[ply + 1] !== undefined)
        .map(({ ply, kind, text }) =>
          s(
            "circle",
            { class: `graph-dot ${kind}`, "data-ply": ply, cx: this.x(ply + 1), cy: this.y(shares[ply + 1]), r: 4 },
            s("title", {}, text),
          ),
        ),
    );
    const last = known.length ? known[known.length - 1][1] : null;
    const viewerShare = last === null ? null : this.viewer === 0 ? last : 1 - last;
    this.el.setAttribute(
      "aria-label",
      viewerShare === null
        ? "evaluation graph: no position analysed yet"
        : `evaluation graph over ${this.plies} moves; at the end ${this.viewerName}'s win chance is ${Math.round(viewerShare * 100)}%`,
    );
  }

  /** Put the cursor on the position after `ply` moves. */
  setPly(ply) {
    const x = this.x(ply).toFixed(1);
    this.cursor.setAttribute("x1", x);
    this.cursor.setAttribute("x2", x);
  }
}
