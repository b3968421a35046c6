// @ts-check
// Keyboard play on every board: the arrow keys move a focus over the board's cells (or paper
// soccer's points), Enter or Space plays there as a click would, and each cell or point has a label a
// screen reader says ("c3, empty", "b2, alice"). One roving tab stop: Tab enters the board once.

const TARGETS = ".cell[data-cell], .point[data-point]";
const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/** @param {Element} target */
const coordinates = (target) =>
  (target instanceof SVGElement || target instanceof HTMLElement
    ? target.dataset.cell || target.dataset.point || ""
    : ""
  )
    .split(",")
    .map(Number);

/**
 * Make `board` (a board's element) playable from the keyboard; `names` are the players' names.
 * @param {Element} board
 * @param {string[]} names
 */
export function keyboardPlay(board, names) {
  const targets = () => /** @type {SVGElement[]} */ ([...board.querySelectorAll(TARGETS)]);
  let focused = 0;

  function label(target) {
    const [x, y, z] = coordinates(target);
    if (target.classList.contains("point")) return `point ${x},${y}`;
    if (target.dataset.forbidden) return `forbidden for black: ${target.dataset.forbidden}`; // five.js's own words
    const where = `${LETTERS[x]}${y + 1}${z === undefined || Number.isNaN(z) ? "" : `:${z + 1}`}`;
    const stone = target.dataset.stone;
    const who = stone === "0" || stone === "1" ? names[Number(stone)] : "empty";
    return `${where}, ${who}`;
  }

  /** Give every target its label and the roving tab stop (call after the board redraws). */
  function relabel() {
    targets().forEach((target, i) => {
      target.setAttribute("role", "button");
      target.setAttribute("tabindex", i === focused ? "0" : "-1");
      target.setAttribute("aria-label", label(target));
    });
  }

  board.addEventListener("keydown", (event) => {
    if (!(event instanceof KeyboardEvent)) return;
    const all = targets();
    const current = all.indexOf(/** @type {SVGElement} */ (document.activeElement));
    if (current < 0) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      all[current].dispatchEvent(new MouseEvent("click", { bubbles: true }));
      return;
    }
    const step = STEPS[event.key];
    if (!step) return;
    event.preventDefault();
    const [x, y, z] = coordinates(all[current]);
    const next = all.findIndex((target) => {
      const [tx, ty, tz] = coordinates(target);
      return tx === x + step[0] && ty === y + step[1] && (tz === z || (Number.isNaN(tz) && Number.isNaN(z)));
    });
    if (next < 0) return;
    focused = next;
    relabel();
    all[next].focus();
  });
  relabel();
  return { relabel };
}
