// @ts-check
// What a bot's search says about the game, for spectators: an evaluation bar and the principal
// variation, from the `info` a move carries (SPEC.md section 10; a few plies late in rated games).
// Players never get it during their game, so the panel stays hidden for them. A checkbox hides
// it; the choice is remembered.

import { moveText } from "./boards.js";
import { h } from "./ui.js";

const STORAGE_KEY = "arbiter.showAnalysis";
const CP_SCALE = 400; // centi-points at which the bar reaches about 90% for one side

/** How much the position favours the first player (colour 0), from 0 to 1, as the mover's info says. */
export function firstPlayerShare(info, mover) {
  let share; // for the mover
  if (info.unit === "win") share = Math.min(1, Math.max(0, info.score));
  else if (info.unit === "mate") share = info.score > 0 ? 1 : info.score < 0 ? 0 : 0.5;
  else share = 1 / (1 + Math.pow(10, -info.score / CP_SCALE));
  return mover === 0 ? share : 1 - share;
}

/** The score as a person reads it: "+0.35", "win 62%", "mate in 3" (for the mover). */
export function scoreText(info) {
  if (info.score === undefined || info.score === null) return "";
  if (info.unit === "win") return `win ${Math.round(info.score * 100)}%`;
  if (info.unit === "mate") return info.score >= 0 ? `mate in ${info.score}` : `mated in ${-info.score}`;
  const points = info.score / 100;
  return `${points >= 0 ? "+" : ""}${points.toFixed(2)}`;
}

export class AnalysisPanel {
  constructor({ family, params, players }) {
    this.family = family;
    this.params = params;
    this.players = players;
    this.last = null;
    this.toggle = h("input", { type: "checkbox", id: "analysis-toggle" });
    this.toggle.checked = localStorage.getItem(STORAGE_KEY) !== "false";
    this.toggle.addEventListener("change", () => {
      localStorage.setItem(STORAGE_KEY, String(this.toggle.checked));
      this.render();
    });
    this.fillBar = h("div", { class: "eval-fill", id: "eval-fill" });
    this.bar = h("div", { class: "eval-bar", id: "eval-bar", role: "meter", "aria-valuemin": "0", "aria-valuemax": "100" },
      this.fillBar);
    this.line = h("p", { class: "analysis-line", id: "analysis-line" });
    this.pv = h("p", { class: "analysis-pv", id: "analysis-pv" });
    this.body = h("div", { class: "analysis-body" }, this.bar, this.line, this.pv);
    this.el = h(
      "section",
      { class: "analysis", id: "analysis", hidden: true },
      h("label", { class: "analysis-head" }, this.toggle, " Bot analysis"),
      this.body,
    );
  }

  /** The latest analysis of the game: `infos` from a match_state (one per move, nil where none). */
  fromState(infos, moves) {
    this.last = null;
    (infos || []).forEach((info, ply) => {
      if (info) this.last = { info, ply, mover: ply % 2 === 0 ? 0 : 1, moves: moves.length };
    });
    this.render();
  }

  /** A `moved` message; the panel keeps the last analysis until a newer one comes. In a rated
   * match the analysis comes plies late, as `analysis: {ply, info}` of an earlier move. */
  onMoved(message) {
    if (message.info) this.last = { info: message.info, ply: message.ply, mover: message.by };
    else if (message.analysis) {
      const { ply, info } = message.analysis;
      this.last = { info, ply, mover: ply % 2 === 0 ? 0 : 1 };
    }
    this.render();
  }

  render() {
    if (!this.last) {
      this.el.hidden = true;
      return;
    }
    this.el.hidden = false;
    this.body.hidden = !this.toggle.checked;
    const { info, mover } = this.last;
    const share = info.score === undefined ? 0.5 : firstPlayerShare(info, mover);
    this.fillBar.style.width = `${(share * 100).toFixed(1)}%`;
    this.bar.setAttribute("aria-valuenow", String(Math.round(share * 100)));
    this.bar.title = `${this.players[0].name}: ${Math.round(share * 100)}%`;
    const facts = [
      info.depth !== undefined ? `depth ${info.depth}` : "",
      info.nodes !== undefined ? `${formatCount(info.nodes)} nodes` : "",
      info.nps !== undefined ? `${formatCount(info.nps)}/s` : "",
    ].filter(Boolean);
    this.line.textContent = `${this.players[mover].name}: ${scoreText(info)}${facts.length ? ` (${facts.join(", ")})` : ""}`;
    const pv = (info.pv || []).map((move) => {
      try {
        return moveText(this.family, this.params, move);
      } catch {
        return "?";
      }
    });
    this.pv.textContent = pv.length ? `PV: ${pv.join(" ")}` : "";
  }
}

function formatCount(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)}k`;
  return String(n);
}
