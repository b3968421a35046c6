// @ts-check
// The lobby: start a game (a game, its parameters, a clock, an opponent bot and its level, rated or
// not, or an open seek), and see who is online, the open seeks and the live games, kept current by
// the lobby subscription. Each level of the chosen bot shows its rating in the pool the game would
// be rated in, so a person can pick an opponent of about their strength.

import { describeLevel, suggestLevel } from "./levels.js";
import { describeClock, describeParams, describeRules, errorText, fill, h, notify, playerLink } from "./ui.js";

export const CLOCKS = [
  { label: "1 min + 1 s", initial_ms: 60000, increment_ms: 1000 },
  { label: "3 min + 2 s", initial_ms: 180000, increment_ms: 2000 },
  { label: "5 min + 3 s", initial_ms: 300000, increment_ms: 3000 },
  { label: "10 min + 5 s", initial_ms: 600000, increment_ms: 5000 },
  { label: "30 min + 20 s", initial_ms: 1800000, increment_ms: 20000 },
  { label: "30 s per move", initial_ms: 1800000, increment_ms: 0, move_limit_ms: 30000 },
];
const DEFAULT_CLOCK = 2;
const SEEK = "";

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} ctx
 */
export function mountLobby(root, ctx) {
  const { conn } = ctx;
  const myself = /** @type {import("arbiter-protocol").Player} */ (conn.player); // the lobby opens after welcome
  const me = myself.name;
  const players = new Map();
  const seeks = new Map();
  const matches = new Map();
  let waiting = null; // {id, close()} while my challenge or seek is open

  // --- the new-game form ---------------------------------------------------------------------
  const gameSelect = h(
    "select",
    { id: "game", name: "game" },
    ctx.games.map((g) => h("option", { value: g.name }, `${g.name} — ${g.doc}`)),
  );
  const paramBox = h("div", { class: "params" });
  const clockSelect = h(
    "select",
    { id: "clock", name: "clock" },
    CLOCKS.map((c, i) => h("option", { value: String(i), selected: i === DEFAULT_CLOCK }, c.label)),
  );
  const opponentSelect = h("select", { id: "opponent", name: "opponent" });
  const levelSelect = h("select", { id: "level", name: "level" });
  const levelLabel = h("label", { hidden: true }, "Level", levelSelect);
  const colorSelect = h(
    "select",
    { id: "color", name: "color" },
    h("option", { value: "random" }, "random"),
    h("option", { value: "first" }, "first (moves first)"),
    h("option", { value: "second" }, "second"),
  );
  const guest = myself.guest;
  const ratedBox = h("input", { type: "checkbox", id: "rated", name: "rated", disabled: guest });
  const ratedLabel = h(
    "label",
    { class: "check", title: guest ? "Sign in with your token to play rated games" : "The result moves both ratings" },
    "Rated",
    ratedBox,
    h("small", {}, guest ? "guests' games are never rated: sign in below" : ""),
  );
  const ratingLine = h("p", { class: "muted", id: "opponent-rating" });
  const suggestionLine = h("p", { class: "muted", id: "level-suggestion" }); // levels.js
  const playButton = h("button", { id: "play", class: "primary", type: "submit" }, "Play");
  const waitBox = h("div", { class: "waiting", hidden: true });
  const form = h(
    "form",
    { class: "new-game", onsubmit: (event) => { event.preventDefault(); submit(); } },
    h("label", {}, "Game", gameSelect),
    paramBox,
    h("label", {}, "Clock", clockSelect),
    h("label", {}, "Opponent", opponentSelect),
    levelLabel,
    suggestionLine,
    ratingLine,
    h("label", {}, "Your side", colorSelect),
    ratedLabel,
    h("div", { class: "actions" }, playButton),
    waitBox,
  );

  /** The game the form shows: one of ctx.games, the only ones the select lists. */
  function selectedGame() {
    return /** @type {import("arbiter-protocol").GameInfo} */ (ctx.game(gameSelect.value));
  }

  /** Whether the game is five in a row (its k fixed or by default 5), the games a swap opening is for. */
  function fiveInARow(game) {
    const k = game.params.find((p) => p.name === "k");
    return game.family === "five" || (game.fixed.k ?? (k && k.default)) === 5;
  }

  function renderParams() {
    const game = selectedGame();
    const fixed = describeParams(game.fixed);
    fill(
      paramBox,
      fixed ? h("p", { class: "fixed" }, fixed) : null,
      game.params.filter((p) => p.name !== "opening" || fiveInARow(game)).map((p) => {
        const name = `param-${p.name}`;
        let input;
        if (p.type === "bool") input = h("input", { type: "checkbox", name, checked: p.default });
        else if (p.choices) {
          input = h("select", { name }, p.choices.map((c) => h("option", { value: c, selected: c === p.default }, c)));
        } else input = h("input", { type: "number", name, value: p.default, min: p.min, max: p.max, required: true });
        const kind = p.type === "bool" ? "check" : null;
        return h("label", { class: kind, title: p.doc }, p.name, input, h("small", {}, p.doc));
      }),
    );
  }

  function readParams() {
    const game = selectedGame();
    /** @type {Record<string, string | number | boolean>} */
    const params = {};
    for (const p of game.params) {
      const input = paramBox.querySelector(`[name="param-${p.name}"]`);
      if (!input) continue; // a parameter the form does not show (the opening of a game that is not five in a row)
      if (p.type === "bool") params[p.name] = input.checked;
      else if (p.type === "int") params[p.name] = Number.parseInt(input.value, 10);
      else params[p.name] = input.value;
    }
    return params;
  }

  function renderOpponents() {
    const game = gameSelect.value;
    const previous = opponentSelect.value;
    const bots = [...players.values()].filter(
      (p) => p.kind === "bot" && !p.away && (p.games.length === 0 || p.games.includes(game)),
    );
    fill(
      opponentSelect,
      bots.map((p) => h("option", { value: p.name }, `${p.name} (bot)`)),
      h("option", { value: SEEK }, "Open seek — anyone may accept"),
    );
    if ([...opponentSelect.options].some((o) => o.value === previous)) opponentSelect.value = previous;
    renderLevels();
  }

  // A bot that announced levels gets a level select, 1 (weakest) to its strongest. The default is
  // the middle level: the strongest levels beat nearly every person, the weakest teach little, and
  // the whole range is one click away.
  function renderLevels() {
    const bot = players.get(opponentSelect.value);
    const levels = bot && bot.kind === "bot" ? bot.levels || 1 : 1;
    levelLabel.hidden = levels < 2;
    if (!levelLabel.hidden && levelSelect.dataset.bot !== bot.name) {
      levelSelect.dataset.bot = bot.name;
      const { level: suggested } = suggestLevel({ bot: bot.name, levels, ratings: new Map(), myRating: null, guest });
      fill(
        levelSelect,
        Array.from({ length: levels }, (_, i) => i + 1).map((level) =>
          h("option", { value: String(level), selected: level === suggested }, String(level)),
        ),
      );
    }
    showRatings();
  }

  // The ratings of the bot's identities (name@level) in the pool this game would be rated in.
  let ratingsShown = 0;
  function showRatings() {
    const bot = players.get(opponentSelect.value);
    const clock = CLOCKS[Number(clockSelect.value)];
    if (!bot || bot.kind !== "bot") {
      ratingLine.textContent = suggestionLine.textContent = "";
      return;
    }
    // The server names the pool from the rules (standings.py), as it will for the match: one rule, in pools.py.
    const query = new URLSearchParams({
      game: gameSelect.value,
      params: JSON.stringify(readParams()),
      initial_ms: String(clock.initial_ms),
      increment_ms: String(clock.increment_ms),
    });
    const asked = ++ratingsShown;
    fetch(`/leaderboard.json?${query}`, { cache: "no-store" })
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
      .then(({ pool, ratings }) => {
        if (asked !== ratingsShown) return; // a later choice was made meanwhile
        const byLabel = new Map(ratings.map((r) => [r.label, r]));
        const levels = levelLabel.hidden ? 0 : levelSelect.options.length;
        const levelRatings = new Map();
        for (const option of levelSelect.options) {
          const level = Number(option.value);
          const rated = byLabel.get(`${bot.name}@${level}`);
          if (rated) levelRatings.set(level, rated.rating);
          const text = [String(level), describeLevel(level, levels), rated ? `${Math.round(rated.rating)}${rated.provisional ? "?" : ""}` : null];
          option.textContent = text.filter(Boolean).join(" — ");
        }
        if (levels) {
          const mine = byLabel.get(me);
          const { level, why } = suggestLevel({ bot: bot.name, levels, ratings: levelRatings, myRating: mine ? mine.rating : null, guest });
          if (levelSelect.dataset.chosen !== bot.name) levelSelect.value = String(level);
          suggestionLine.textContent = `Suggested: level ${level} (${why})`;
        } else suggestionLine.textContent = "";
        const shown = byLabel.get(levelLabel.hidden ? bot.name : `${bot.name}@${levelSelect.value}`);
        ratingLine.textContent = shown
          ? `${shown.label}: ${Math.round(shown.rating)}${shown.provisional ? "?" : ""} in ${pool} ` +
            `(${shown.games} ${shown.games === 1 ? "game" : "games"})`
          : `${bot.name} has no rating in ${pool} yet`;
      })
      .catch(() => {
        if (asked === ratingsShown) ratingLine.textContent = "";
      });
  }

  async function submit() {
    const clock = CLOCKS[Number(clockSelect.value)];
    const request = {
      game: gameSelect.value,
      params: readParams(),
      clock: { initial_ms: clock.initial_ms, increment_ms: clock.increment_ms, move_limit_ms: clock.move_limit_ms },
      color: colorSelect.value,
      to: opponentSelect.value === SEEK ? undefined : opponentSelect.value,
      level: levelLabel.hidden ? undefined : Number(levelSelect.value),
      rated: ratedBox.checked && !guest,
    };
    playButton.disabled = true;
    try {
      const { challenge } = await conn.request("challenge", request);
      showWaiting(challenge);
    } catch (error) {
      notify(errorText(error), "error");
      playButton.disabled = false;
    }
  }

  function showWaiting(challenge) {
    const cancel = h("button", {
      class: "small",
      onclick: () => conn.request("cancel", { challenge: challenge.id }).catch((e) => notify(errorText(e), "error")),
    }, "Cancel");
    const text = challenge.to
      ? `Waiting for ${challenge.to} to accept…`
      : "Your seek is open: waiting for an opponent…";
    fill(waitBox, h("span", { class: "spinner", "aria-hidden": "true" }), h("span", {}, text), cancel);
    waitBox.hidden = false;
    waiting = {
      id: challenge.id,
      close() {
        waitBox.hidden = true;
        playButton.disabled = false;
        waiting = null;
      },
    };
  }

  // --- the lists -----------------------------------------------------------------------------
  const liveList = h("ul", { class: "list", id: "live-games" });
  const seekList = h("ul", { class: "list", id: "seeks" });
  const botList = h("ul", { class: "list", id: "bots" });
  const peopleList = h("ul", { class: "list", id: "people" });

  function empty(text) {
    return h("li", { class: "empty" }, text);
  }

  function renderLists() {
    const live = [...matches.values()];
    fill(
      liveList,
      live.length
        ? live.map((m) => {
            const mine = m.players.includes(me);
            return h(
              "li",
              { "data-match": m.match },
              h("span", { class: "what" }, h("b", {}, m.game), " ", describeRules(ctx.game(m.game), m.params)),
              h("span", { class: "who" }, playerLink(m.players[0]), " vs ", playerLink(m.players[1])),
              h("span", { class: "muted" }, describeClock(m.clock)),
              h(
                "a",
                { class: `button small${mine ? " primary" : ""}`, href: `#/match/${m.match}` },
                mine ? "Resume" : "Watch",
              ),
            );
          })
        : empty("No games are being played right now."),
    );
    const open = [...seeks.values()];
    fill(
      seekList,
      open.length
        ? open.map((seek) => {
            const mine = seek.from === me;
            const action = mine
              ? () => conn.request("cancel", { challenge: seek.id })
              : () => conn.request("accept", { challenge: seek.id });
            return h(
              "li",
              { "data-seek": seek.id },
              h("span", { class: "what" }, h("b", {}, seek.game), " ", describeRules(ctx.game(seek.game), seek.params)),
              h("span", { class: "who" }, playerLink(seek.from)),
              h("span", { class: "muted" }, describeClock(seek.clock)),
              h("button", {
                class: `small${mine ? "" : " primary"}`,
                onclick: () => action().catch((e) => notify(errorText(e), "error")),
              }, mine ? "Cancel" : "Accept"),
            );
          })
        : empty("No open seeks. Open one with the form."),
    );
    const everyone = [...players.values()].sort((a, b) => a.name.localeCompare(b.name));
    const bots = everyone.filter((p) => p.kind === "bot");
    const people = everyone.filter((p) => p.kind !== "bot");
    fill(
      botList,
      bots.length
        ? bots.map((p) =>
            h(
              "li",
              { "data-player": p.name },
              h("span", { class: "who" }, h("b", {}, playerLink(p.name)), p.away ? h("small", { class: "muted" }, " away") : null),
              p.owner ? h("small", { class: "muted owner" }, "by ", playerLink(p.owner)) : null,
              h("span", { class: "games" }, p.games.map((g) => h("span", { class: "chip" }, g))),
              p.levels > 1 ? h("span", { class: "muted levels" }, `levels 1–${p.levels}`) : null,
              h("span", { class: "muted" }, p.playing ? `playing ${p.playing}` : "idle"),
              h("button", { class: "small", onclick: () => pickBot(p) }, "Play"),
            ),
          )
        : empty("No bots are online."),
    );
    people.sort((a, b) => (a.name === me ? -1 : b.name === me ? 1 : 0));
    fill(
      peopleList,
      people.map((p) =>
        h(
          "li",
          { "data-player": p.name },
          h("span", { class: "who" }, h("b", {}, playerLink(p.name)), p.name === me ? h("small", {}, " (you)") : null,
            p.guest ? h("small", { class: "muted" }, " guest") : null,
            p.away ? h("small", { class: "muted" }, " away") : null),
          h("span", { class: "muted" }, p.playing ? `playing ${p.playing}` : "idle"),
          p.name === me || p.away
            ? null
            : h("button", { class: "small", onclick: () => challengeHuman(p) }, "Challenge"),
        ),
      ),
    );
    renderOpponents();
  }

  function pickBot(player) {
    if (player.games.length && !player.games.includes(gameSelect.value)) {
      gameSelect.value = player.games.find((g) => ctx.game(g)) || gameSelect.value;
      renderParams();
      renderOpponents();
    }
    opponentSelect.value = player.name;
    renderLevels();
    form.scrollIntoView({ behavior: "smooth", block: "start" });
    playButton.focus();
  }

  function challengeHuman(player) {
    opponentSelect.append(h("option", { value: player.name }, player.name));
    opponentSelect.value = player.name;
    submit();
  }

  // --- the subscription ------------------------------------------------------------------------
  function load(state) {
    players.clear();
    seeks.clear();
    matches.clear();
    for (const p of state.players) players.set(p.name, p);
    for (const seek of state.seeks) seeks.set(seek.id, seek);
    for (const m of state.matches) matches.set(m.match, m);
    renderLists();
  }

  function subscribe() {
    conn.request("subscribe").then(load, (error) => notify(`The lobby did not load: ${errorText(error)}`, "error"));
  }

  const offs = [
    conn.on("welcome", subscribe),
    conn.on("presence", ({ player }) => { players.set(player.name, player); renderLists(); }),
    conn.on("player_offline", ({ name }) => { players.delete(name); renderLists(); }),
    conn.on("seek_added", ({ seek }) => { seeks.set(seek.id, seek); renderLists(); }),
    conn.on("seek_removed", ({ seek }) => { seeks.delete(seek); renderLists(); }),
    conn.on("match_listed", ({ match }) => { matches.set(match.match, match); renderLists(); }),
    conn.on("match_unlisted", ({ match }) => { matches.delete(match); renderLists(); }),
    conn.on("challenge_closed", ({ challenge, reason }) => {
      if (!waiting || waiting.id !== challenge) return;
      waiting.close();
      if (reason !== "accepted") notify(`Your challenge closed: ${reason}.`, reason === "cancelled" ? "info" : "error");
    }),
  ];

  gameSelect.addEventListener("change", () => { renderParams(); renderOpponents(); });
  opponentSelect.addEventListener("change", renderLevels);
  levelSelect.addEventListener("change", showRatings);
  levelSelect.addEventListener("change", () => (levelSelect.dataset.chosen = levelSelect.dataset.bot)); // the person's choice stands
  clockSelect.addEventListener("change", showRatings);
  paramBox.addEventListener("change", showRatings);
  renderParams();

  const account = myself.guest
    ? h("p", { class: "account muted" }, h("a", { href: "#/account", id: "sign-in-link" }, "Sign in or create an account"),
        " to play rated games.")
    : h("p", { class: "account muted" }, "Signed in as ", myself.name, " · ", h("a", { href: "#/account" }, "account"));

  root.append(
    h(
      "div",
      { class: "lobby" },
      h("section", { class: "card play" }, h("h2", {}, "New game"), form, account),
      h(
        "div",
        { class: "stack" },
        h("section", { class: "card" }, h("h2", {}, "Live games"), liveList),
        h("section", { class: "card" }, h("h2", {}, "Open seeks"), seekList),
        h("section", { class: "card" }, h("h2", {}, "Bots online"), botList),
        h("section", { class: "card" }, h("h2", {}, "People online"), peopleList),
      ),
    ),
  );
  renderLists();
  subscribe();

  return {
    unmount() {
      for (const off of offs) off(); // an open seek stays open: it is listed with Cancel on return
      conn.request("unsubscribe").catch(() => {});
    },
  };
}
