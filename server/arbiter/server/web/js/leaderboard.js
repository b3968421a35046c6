// The ladder standings of one game: Glicko-2 rating (provisional while the deviation is high),
// deviation, games and wins/draws/losses, read from the server's /leaderboard.json.

import { errorText, fill, h } from "./ui.js";

const COLUMNS = ["#", "player", "rating", "RD", "games", "W", "D", "L"];

export function mountLeaderboard(root, ctx, gameName) {
  const game = ctx.game(gameName) ? gameName : ctx.games[0].name;
  const select = h(
    "select",
    { id: "leaderboard-game", "aria-label": "game" },
    ctx.games.map((g) => h("option", { value: g.name, selected: g.name === game }, g.name)),
  );
  select.addEventListener("change", () => ctx.navigate(`#/leaderboard/${select.value}`));
  const body = h("div", { class: "standings" }, h("p", { class: "loading" }, "Loading…"));
  root.append(
    h(
      "section",
      { class: "card wide" },
      h("div", { class: "card-head" }, h("h2", {}, "Leaderboard"), select),
      body,
      h("p", { class: "muted" }, "? marks a provisional rating (few games so far). ",
        h("a", { href: `/leaderboard?game=${encodeURIComponent(game)}` }, "Crosstable and game records")),
    ),
  );
  let alive = true;

  fetch(`/leaderboard.json?game=${encodeURIComponent(game)}`, { cache: "no-store" })
    .then(async (response) => {
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
      return data;
    })
    .then(({ ratings }) => {
      if (!alive) return;
      if (!ratings.length) {
        fill(body, h("p", { class: "empty" }, `No rated ${game} games yet. Bots on the ladder will fill this.`));
        return;
      }
      fill(
        body,
        h(
          "table",
          { class: "table", id: "leaderboard" },
          h("thead", {}, h("tr", {}, COLUMNS.map((c) => h("th", {}, c)))),
          h(
            "tbody",
            {},
            ratings.map((r, i) =>
              h(
                "tr",
                {},
                h("td", {}, i + 1),
                h("td", { class: "name" }, r.player),
                h("td", {}, `${Math.round(r.rating)}${r.provisional ? "?" : ""}`),
                h("td", {}, Math.round(r.deviation)),
                h("td", {}, r.games),
                h("td", {}, r.wins),
                h("td", {}, r.draws),
                h("td", {}, r.losses),
              ),
            ),
          ),
        ),
      );
    })
    .catch((error) => {
      if (alive) fill(body, h("p", { class: "empty error" }, `The leaderboard did not load: ${errorText(error)}`));
    });

  return {
    unmount() {
      alive = false;
    },
  };
}
