// @ts-check
// Small DOM helpers shared by every view: element builders, notices, and text formatting.

const SVG_NS = "http://www.w3.org/2000/svg";

function build(element, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2), value);
    } else if (key === "text") {
      element.textContent = value;
    } else {
      element.setAttribute(key, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** An HTML element: h("button", {class: "primary", onclick}, "Play"). */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** A player's name linking to its page (#/player/NAME); a guest has no page, so plain text. */
export function playerLink(name, label = name) {
  if (name.toLowerCase().startsWith("guest-")) return h("span", { class: "player-name" }, label);
  return h("a", { class: "player-link", href: `#/player/${encodeURIComponent(name)}` }, label);
}

/** A rating's table cells: rating ("?" while provisional), deviation, games, wins, draws, losses. */
export function ratingCells(r) {
  return [`${Math.round(r.rating)}${r.provisional ? "?" : ""}`, Math.round(r.deviation), r.games, r.wins, r.draws,
    r.losses].map((value) => h("td", {}, value));
}

/** GET a JSON route; an Error with the server's own message when it answers an error. */
export async function fetchJson(url) {
  let response;
  try {
    response = await fetch(url, { cache: "no-store" });
  } catch {
    throw new Error("the server cannot be reached");
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || `the server answered ${response.status}`);
  return body;
}

/** Replace an element's children (arrays are flattened, null and false skipped). */
export function fill(element, ...children) {
  element.replaceChildren();
  return build(element, {}, children);
}

/** An SVG element, with the same conventions as h(). */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

/**
 * Show a short message at the top of the page; errors stay until dismissed or replaced.
 * @param {string} text
 * @param {string} [kind] info | error
 * @param {{ timeoutMs?: number, actions?: { label: string, run: () => void }[] }} [options]
 */
export function notify(text, kind = "info", { timeoutMs, actions = [] } = {}) {
  const area = /** @type {HTMLElement} */ (document.getElementById("notices")); // index.html's
  const close = () => note.remove();
  const note = h(
    "div",
    { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" },
    h("span", { class: "notice-text" }, text),
    actions.map(({ label, run }) =>
      h("button", { class: "small", onclick: () => { close(); run(); } }, label),
    ),
    h("button", { class: "notice-close", "aria-label": "dismiss", onclick: close }, "×"),
  );
  area.append(note);
  while (area.children.length > 4) area.firstElementChild?.remove();
  const wait = timeoutMs ?? (kind === "error" ? 12000 : 6000);
  if (wait > 0) setTimeout(close, wait);
  return close;
}

/** A clock reading: h:mm:ss, m:ss, or s.t under ten seconds. */
export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  if (clamped < 10000) return (Math.floor(clamped / 100) / 10).toFixed(1);
  const total = Math.floor(clamped / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** A time control as people say it: "5+3", "30 s/move". */
export function describeClock(clock) {
  const minutes = clock.initial_ms / 60000;
  const initial = minutes >= 1 ? `${+minutes.toFixed(2)} min` : `${clock.initial_ms / 1000} s`;
  const increment = clock.increment_ms ? ` + ${clock.increment_ms / 1000} s` : "";
  const limit = clock.move_limit_ms ? `, ${clock.move_limit_ms / 1000} s/move` : "";
  return initial + increment + limit;
}

/**
 * The rules as people say them: the five family's rule by name, then the parameters the game's name
 * does not already say (of a preset, the extras that differ from their defaults).
 */
export function describeRules(game, params) {
  const rule = ruleName(game, params);
  const preset = game && Object.keys(game.fixed).length ? game : null;
  const defaults = preset ? Object.fromEntries(preset.params.map((p) => [p.name, p.default])) : {};
  const shown = Object.entries(params || {}).filter(
    ([key, value]) =>
      key !== "opening" &&
      !(rule && (key === "rule" || key === "exact")) &&
      !(preset && (key in preset.fixed || defaults[key] === value)),
  );
  const opening = describeOpening(params && params.opening);
  return [rule, describeParams(Object.fromEntries(shown)), opening].filter(Boolean).join(" · ");
}

/** A swap opening's name for headers: "Swap2 opening"; "" for none. */
export function describeOpening(opening) {
  if (!opening || opening === "none") return "";
  return `${opening[0].toUpperCase()}${opening.slice(1)} opening`;
}

/** The rule a five-in-a-row game is played under: "Renju (RIF)", "Caro", "Caro, exactly five"; "" for other games. */
function ruleName(game, params) {
  if (!game || game.family !== "five" || !params) return "";
  if (params.rule === "renju") return "Renju (RIF)";
  return params.exact ? "Caro, exactly five" : "Caro";
}

/** Parameters as "m=3 k=3". */
export function describeParams(params) {
  return Object.entries(params || {})
    .map(([key, value]) => `${key}=${value}`)
    .join(" ");
}

const REASONS = {
  line: "a line",
  goal: "a goal",
  stuck: "the ball got stuck",
  board_full: "the board is full",
  repetition: "repetition",
  move_limit: "the move limit",
  resign: "resignation",
  timeout: "time ran out",
  draw_agreed: "agreement",
  abort: "aborted",
  abandoned: "a player left",
};

/** "0-1 · time ran out" for a result and its reason. */
export function describeResult(result, reason) {
  const why = REASONS[reason] || reason;
  if (result === null || result === undefined) return `No result · ${why}`;
  const score = result === "1/2-1/2" ? "½–½" : result.replace("-", "–");
  return `${score} · ${why}`;
}

/** The message an error gives people: the server's own words when it sent some. */
export function errorText(error) {
  return error && error.message ? error.message : String(error);
}
