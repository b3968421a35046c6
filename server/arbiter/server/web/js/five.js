// @ts-check
// The five board (renju, caro): the m,n,k board with five in a row judged as the rule judges it,
// and in renju black's forbidden points crossed out while black is to move, so a click on one is
// explained instead of sent. The server sends those points with each `moved` and `match_state`
// (SPEC.md section 13): the page does not work out renju's recursive threes itself.

import { MnkBoard, moveText } from "./mnk.js";
import { s } from "./ui.js";

const FIVE = 5;
const BLACK = 0;
const KINDS = { "double-three": "a double-three", "double-four": "a double-four", overline: "an overline" };

export { moveText };

export class Board extends MnkBoard {
  constructor(params, options) {
    super({ ...params, k: FIVE }, options);
    this.rule = params.rule;
    this.forbidden = new Map(); // cell index → why black may not play it, in the position after forbiddenPly moves
    this.forbiddenPly = -1;
  }

  /**
   * Black's forbidden points in the position after `ply` moves, as the server lists them.
   * @param {number} ply
   * @param {import("arbiter-protocol").ForbiddenPoint[] | undefined} points
   */
  setForbidden(ply, points) {
    this.forbidden = new Map((points || []).map(({ move: [x, y], kind }) => [y * this.width + x, kind]));
    this.forbiddenPly = ply;
    this.draw();
  }

  /** Why black may not play on cell `index` now, or undefined (a legal point, or white to move). */
  forbiddenKind(index) {
    return !this.over && this.moves.length === this.forbiddenPly ? this.forbidden.get(index) : undefined;
  }

  /** Renju: black wins with exactly five, white with five or more. Caro: five wins unless the
   * opponent's stones block both its ends (the board's edge does not block); more than five wins
   * unless exact. */
  wins(length, player, ends) {
    if (this.rule === "renju") return length === FIVE || (length > FIVE && player !== BLACK);
    if (length > FIVE) return !this.exact;
    return length === FIVE && !ends.every((end) => end === 1 - player);
  }

  refusal(stone, index) {
    const kind = stone ? undefined : this.forbiddenKind(index);
    if (kind) return `Forbidden for black: that point makes ${KINDS[kind]} (renju).`;
    return super.refusal(stone, index);
  }

  decorations(index, stone) {
    const classes = super.decorations(index, stone);
    const kind = stone ? undefined : this.forbiddenKind(index);
    if (kind) classes.push("forbidden", kind);
    return classes;
  }

  adorn(cell, index, classes) {
    super.adorn(cell, index, classes);
    const kind = classes.includes("forbidden") ? this.forbiddenKind(index) : undefined;
    if (!kind) {
      delete cell.el.dataset.forbidden;
      cell.el.removeAttribute("aria-label");
      return;
    }
    cell.el.dataset.forbidden = kind;
    cell.el.setAttribute("aria-label", `forbidden for black: ${kind}`);
    const [cx, cy, d] = [cell.x + 0.5, cell.y + 0.5, 0.16];
    cell.content.append(
      s(
        "g",
        { class: "forbidden-mark" },
        s("line", { x1: cx - d, y1: cy - d, x2: cx + d, y2: cy + d }),
        s("line", { x1: cx - d, y1: cy + d, x2: cx + d, y2: cy - d }),
      ),
    );
  }
}
