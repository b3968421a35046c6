// @ts-check
// The board of each game family, and the move notation each one uses in move lists.

import * as five from "./five.js";
import * as mnk from "./mnk.js";
import * as soccer from "./soccer.js";
import * as ttt3d from "./ttt3d.js";
import * as vanishing from "./vanishing.js";

const FAMILIES = { mnk, five, vanishing, ttt3d, paper_soccer: soccer };

/** A new board for `family` with the game's full parameters; options: {hint, perspective}. */
export function createBoard(family, params, options) {
  const module = FAMILIES[family];
  if (!module) throw new Error(`this page cannot show the game family ${family}`);
  return new module.Board(params, options);
}

/** A move in the family's notation, for move lists. */
export function moveText(family, params, move) {
  return FAMILIES[family].moveText(params, move);
}
