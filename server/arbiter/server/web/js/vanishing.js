// @ts-check
// Vanishing tic-tac-toe: the 3×3 board where at most six stones stand. From the 7th ply on, the
// mover's oldest stone vanishes after the new one is placed, so that stone is marked as the next
// to go; its square stays taken until then. Moves and their text are those of m,n,k.

import { MnkBoard, moveText } from "./mnk.js";
import { h } from "./ui.js";

const STANDING = 6;

export { moveText };

export class Board extends MnkBoard {
  constructor(params, options) {
    super({ m: 3, n: 3, k: 3, exact: false }, options);
    this.el = h(
      "div",
      { class: "vanishing-board" },
      this.svg,
      h("p", { class: "legend" }, h("span", { class: "swatch" }), "fading stone: it vanishes after the next move"),
    );
  }

  /** Only the last six plies' stones stand. */
  standing() {
    const stones = new Map();
    const first = Math.max(0, this.moves.length - STANDING);
    for (let ply = first; ply < this.moves.length; ply++) {
      const [x, y] = this.moves[ply];
      stones.set(y * this.width + x, { player: ply % 2, ply });
    }
    return stones;
  }

  /** The ply of the stone that vanishes after the next move, or -1 while fewer than six stand. */
  vanishingPly() {
    return !this.over && this.moves.length >= STANDING ? this.moves.length - STANDING : -1;
  }

  refusal(stone) {
    if (stone && stone.ply === this.vanishingPly()) {
      return "That stone vanishes only after your move — its square is not free yet.";
    }
    return super.refusal(stone);
  }

  decorations(index, stone) {
    const classes = super.decorations(index, stone);
    if (stone && stone.ply === this.vanishingPly()) classes.push("vanishing");
    return classes;
  }
}
