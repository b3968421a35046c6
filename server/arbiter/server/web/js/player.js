// @ts-check
// A player's page (#/player/NAME, from /player.json): its rating in each pool with a chart of its
// history, its recent games with links to their replays and, for a bot, the failure report (games
// lost, on time, abandoned, and each refused move with the position it was refused in, each linked
// to the replay at that ply) and the thinking time of each move against the clock of a chosen game.

import {
  describeClock, describeResult, errorText, fetchJson, fill, formatClock, h, playerLink, ratingCells, s,
} from "./ui.js";

const OUTCOMES = { win: "won", loss: "lost", draw: "drew", none: "no result" };

function fetchReport(name, match) {
  return fetchJson(`/player.json?${new URLSearchParams({ name, ...(match ? { match } : {}) })}`);
}

/** Points of a line chart in a width × height box, x and y scaled to their ranges. */
function scaled(xs, ys, width, height, pad = 4) {
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  const [yMin, yMax] = [Math.min(...ys), Math.max(...ys)];
  const x = (v) => pad + ((v - xMin) / (xMax - xMin || 1)) * (width - 2 * pad);
  const y = (v) => height - pad - ((v - yMin) / (yMax - yMin || 1)) * (height - 2 * pad);
  return { x, y, yMin, yMax };
}

function ratingChart(rating) {
  const points = rating.history;
  const width = 320;
  const height = 90;
  if (points.length < 2) {
    return h("p", { class: "muted chart-note" }, `${rating.label} in ${rating.pool}: one rated game so far.`);
  }
  const { x, y, yMin, yMax } = scaled(points.map((_, i) => i), points.map((p) => p.rating), width, height);
  const line = points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  return h(
    "figure",
    { class: "chart rating-chart", "data-pool": rating.pool, "data-label": rating.label },
    s(
      "svg",
      { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `rating history of ${rating.label}` },
      s("polyline", { points: line, class: "rating-line" }),
      points.map((p, i) =>
        s("circle", { cx: x(i), cy: y(p.rating), r: 2.2, class: "rating-dot" },
          s("title", {}, `${Math.round(p.rating)} on ${new Date(p.at_ms).toLocaleString()}`)),
      ),
    ),
    h("figcaption", { class: "muted" },
      `${rating.label} · ${rating.pool} · ${points.length} games, ${Math.round(yMin)}–${Math.round(yMax)}`),
  );
}

function ratingsCard(report) {
  const rows = report.ratings;
  return h(
    "section",
    { class: "card wide", id: "player-ratings" },
    h("h2", {}, "Ratings"),
    rows.length
      ? [
          h(
            "table",
            { class: "table" },
            h("thead", {}, h("tr", {}, ["pool", "as", "rating", "RD", "games", "W", "D", "L"].map((c) => h("th", {}, c)))),
            h(
              "tbody",
              {},
              rows.map((r) =>
                h(
                  "tr",
                  { "data-pool": r.pool },
                  h("td", {}, h("a", { href: `#/leaderboard/${r.pool.split(/[[/]/)[0]}` }, r.pool)),
                  h("td", { class: "name" }, r.label),
                  ratingCells(r),
                ),
              ),
            ),
          ),
          h("div", { class: "charts" }, rows.map(ratingChart)),
        ]
      : h("p", { class: "empty muted" }, "No rated games yet."),
  );
}

function gameLine(g) {
  return [
    h("span", { class: "what" }, h("b", {}, g.game), g.level ? h("small", { class: "muted" }, ` level ${g.level}`) : null),
    h("span", { class: "who" }, "vs ", playerLink(g.opponent)),
    h("span", { class: `outcome ${g.outcome}` }, `${OUTCOMES[g.outcome]} · ${describeResult(g.result, g.reason)}`),
    h("span", { class: "muted" }, `${g.plies} moves`),
    h("span", { class: "muted" }, g.ended_ms ? new Date(g.ended_ms).toLocaleString() : ""),
  ];
}

function gamesCard(report, showTimes) {
  return h(
    "section",
    { class: "card wide" },
    h("h2", {}, "Recent games"),
    h(
      "ul",
      { class: "list games", id: "player-games" },
      report.games.length
        ? report.games.map((g) =>
            h(
              "li",
              { "data-match": g.match },
              gameLine(g),
              h("button", { class: "small", title: "thinking time of each move", onclick: () => showTimes(g.match) },
                "Times"),
              h("a", { class: "button small", href: `#/replay/${g.match}` }, "Replay"),
            ),
          )
        : h("li", { class: "empty" }, "No finished games yet."),
    ),
  );
}

function failuresCard(report) {
  const { counts, scanned, games } = report.failures;
  const resigned = Object.entries(counts.resigned || {}).map(([cause, n]) => `${cause} ${n}`);
  const summary =
    `In the last ${scanned} games: ${counts.lost} lost (${counts.timeout} on time), ${counts.abandoned} abandoned, ` +
    `${counts.refused_moves} refused moves in ${counts.games_with_refused_moves} games.` +
    (resigned.length ? ` Resigned by their engine: ${resigned.join(", ")}.` : "");
  return h(
    "section",
    { class: "card wide", id: "player-failures" },
    h("h2", {}, "Failure report"),
    h("p", { class: "muted", id: "failure-counts" }, summary),
    h(
      "ul",
      { class: "list failures", id: "failures" },
      games.length
        ? games.map((f) =>
            h(
              "li",
              { "data-match": f.match, "data-ply": f.ply },
              h("div", { class: "failure-head" },
                gameLine(f),
                h("span", { class: "failure-cause" }, f.cause),
                h("a", { class: "button small replay-at", href: f.replay }, `Replay at ply ${f.ply}`),
                h("a", { class: "button small request-file", href: f.request, download: "",
                         title: "What the bot was given at that turn: arbiter bridge stdio --replay FILE -- PROGRAM" },
                  "Download request")),
              f.refusals.length
                ? h(
                    "ol",
                    { class: "refusals" },
                    f.refusals.map((r) =>
                      h(
                        "li",
                        { "data-ply": r.ply, "data-code": r.code },
                        h("a", { href: r.replay }, `ply ${r.ply}`),
                        " refused ",
                        h("code", {}, r.move),
                        ` (${r.code}) `,
                        h("a", { class: "request-file", href: r.request, download: "" }, "request"),
                        r.position
                          ? h("details", {}, h("summary", {}, "position"), h("pre", { class: "position" }, r.position))
                          : null,
                      ),
                    ),
                  )
                : null,
              f.refused_beyond_kept
                ? h("p", { class: "muted" }, `and ${f.refused_beyond_kept} more refused moves, counted but not kept`)
                : null,
            ),
          )
        : h("li", { class: "empty" }, "No failures: no game lost, abandoned or with a refused move."),
    ),
  );
}

function thinkingChart(thinking) {
  const moves = thinking.moves;
  const width = 640;
  const height = 160;
  const top = Math.max(thinking.clock.initial_ms, ...moves.map((m) => m.clock_ms), 1);
  const longest = Math.max(...moves.map((m) => m.elapsed_ms), 1);
  const step = (width - 8) / Math.max(moves.length, 1);
  const clockY = (ms) => height - 4 - (ms / top) * (height - 8);
  const barHeight = (ms) => (ms / longest) * (height - 8) * 0.6;
  return s(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, class: "chart thinking-chart", role: "img",
      "aria-label": "thinking time per move (bars) and the clock left (line)" },
    moves.map((m, i) =>
      s("rect", { x: 4 + i * step + step * 0.15, y: height - 4 - barHeight(m.elapsed_ms), width: step * 0.7,
                  height: barHeight(m.elapsed_ms), class: "think-bar" },
        s("title", {}, `ply ${m.ply}: ${formatClock(m.elapsed_ms)} s, ${formatClock(m.clock_ms)} left`)),
    ),
    s("polyline", {
      class: "clock-line",
      points: moves.map((m, i) => `${(4 + (i + 0.5) * step).toFixed(1)},${clockY(m.clock_ms).toFixed(1)}`).join(" "),
    }),
  );
}

function thinkingCard(thinking) {
  if (!thinking) {
    return h("section", { class: "card wide", id: "player-thinking" }, h("h2", {}, "Thinking times"),
      h("p", { class: "empty muted" }, "No game with a move of this player yet."));
  }
  const sum = thinking.summary;
  return h(
    "section",
    { class: "card wide", id: "player-thinking", "data-match": thinking.match },
    h("h2", {}, "Thinking times"),
    h("p", {}, "In ", h("a", { href: thinking.replay }, `${thinking.game} vs ${thinking.opponent}`),
      ` (${describeClock(thinking.clock)}; ${OUTCOMES[thinking.outcome]} by ${thinking.reason})`),
    sum.moves
      ? [
          h("p", { class: "muted" },
            `${sum.moves} moves · mean ${formatClock(sum.mean_ms)} s · longest ${formatClock(sum.max_ms)} s · ` +
            `least clock left ${formatClock(sum.min_clock_ms)}`),
          thinkingChart(thinking),
          h("p", { class: "muted legend" }, "Bars: time taken by each move. Line: the clock left after it."),
          h(
            "table",
            { class: "table thinking" },
            h("thead", {}, h("tr", {}, h("th", {}, "ply"), h("th", {}, "took"), h("th", {}, "clock left"))),
            h("tbody", {}, thinking.moves.map((m) =>
              h("tr", { "data-ply": m.ply }, h("td", {}, m.ply), h("td", {}, formatClock(m.elapsed_ms)),
                h("td", {}, formatClock(m.clock_ms))))),
          ),
        ]
      : h("p", { class: "empty muted" }, "It made no move in this game."),
  );
}

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} ctx
 */
export function mountPlayer(root, ctx, name) {
  const holder = h("div", { class: "player-page" }, h("p", { class: "loading" }, "Loading…"));
  root.append(holder);
  let alive = true;
  let thinkingHolder = null;

  function showTimes(match) {
    fetchReport(name, match).then(
      (report) => alive && thinkingHolder.replaceChildren(thinkingCard(report.thinking)),
      (error) => alive && fill(thinkingHolder, h("p", { class: "empty error" }, errorText(error))),
    );
  }

  fetchReport(name).then(
    (report) => {
      if (!alive) return;
      const player = report.player;
      document.title = `${player.name} · Arbiter`;
      thinkingHolder = h("div", {}, thinkingCard(report.thinking));
      fill(
        holder,
        h("section", { class: "card wide player-head" },
          h("h2", { id: "player-name" }, player.name, " ", h("small", { class: "badge" }, player.kind),
            player.revoked ? h("small", { class: "badge" }, "revoked") : null),
          h("p", { class: "muted" }, `registered ${new Date(player.created * 1000).toLocaleDateString()}`,
            player.owner ? [" · a bot of ", playerLink(player.owner)] : null)),
        ratingsCard(report),
        player.kind === "bot" ? failuresCard(report) : null,
        gamesCard(report, showTimes),
        thinkingHolder,
      );
    },
    (error) =>
      alive &&
      fill(holder, h("div", { class: "panel error", role: "alert" }, `This player's page cannot be shown: ${errorText(error)}`)),
  );
  return {
    unmount() {
      alive = false;
    },
  };
}
