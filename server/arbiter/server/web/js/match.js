// @ts-check
// A live match, played or watched: the board, both clocks, the move list, the result and its
// reason, and resign / draw / abort where the rules allow them.
//
// The view asks for the match's full state with `spectate` (the server answers a player with its
// colour and a stranger as a new spectator), then follows `moved`, `end`, draw and presence
// events. After a reconnect it asks again, so a refresh or a dropped connection carries on.
//
// A swap opening (swap1, swap2: state.swap, SPEC.md section 17) runs before the colours are
// settled: colour indices are seats (0 the opener), the seat in `swap.to_act` places stones or
// chooses, with its clock running; the chooser's buttons are the choices `swap.options` allows
// ("Black", "White", "Place two more"). Once a colour is chosen the view is rebuilt from a fresh
// state, in colour order.

import { AnalysisPanel } from "./analysis.js";
import { createBoard, moveText } from "./boards.js";
import { Clocks } from "./clock.js";
import { Board as FiveBoard } from "./five.js";
import { Learner } from "./learner.js";
import { ErrorCode } from "./protocol.js";
import {
  describeClock,
  describeOpening,
  describeResult,
  describeRules,
  errorText,
  fill,
  h,
  notify,
  playerLink,
} from "./ui.js";

const HINT_MS = 4000;
const CONFIRM_MS = 3000;

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} ctx
 */
export function mountMatch(root, ctx, matchId) {
  const { conn } = ctx;
  let state = null; // the last match_state, kept current by events
  let board = null;
  let clocks = null;
  let queue = Promise.resolve(); // moves are put on the board in order, opponent turns animated
  let replaying = 0; // moves still being put on the board
  let queueGeneration = 0; // a full state starts a new queue
  let moveInFlight = false; // my move is sent and its `moved` not back yet
  let ended = null; // the end message once the match is over
  let away = null; // {color, until} while a player is disconnected
  let awayTimer = null;
  let hintTimer = null;
  let analysis = null; // spectators: the bots' evaluation and principal variation
  let learner = null; // takebacks, hints, sounds, the title, keyboard play (learner.js)

  const hint = h("p", { class: "hint", id: "hint", role: "status", "aria-live": "polite" });
  const status = h("div", { class: "match-status", id: "match-status" });
  const resultBox = h("div", { class: "result", id: "result", hidden: true });
  const actions = h("div", { class: "match-actions" });
  const swapBox = h("div", { class: "swap-choice", id: "swap-choice", hidden: true });
  const moveList = h("ol", { class: "moves", id: "moves" });
  const analysisHolder = h("div", { class: "analysis-holder" });
  const boardHolder = h("div", { class: "board-holder" });
  const bars = [h("div", { class: "player-bar" }), h("div", { class: "player-bar" })];
  const title = h("h2", { class: "match-title" }, "Loading the game…");
  const layout = h(
    "div",
    { class: "match", "data-match": matchId },
    h("div", { class: "board-col" }, bars[1], boardHolder, hint, bars[0]),
    h("aside", { class: "side card" }, title, status, swapBox, resultBox, actions, analysisHolder, h("h3", {}, "Moves"), moveList),
  );
  root.append(layout);

  /** Say why a click did nothing; an empty text clears the last hint (a legal move was made). */
  function showHint(text) {
    clearTimeout(hintTimer);
    if (!text) {
      hint.classList.remove("show");
      return;
    }
    hint.textContent = text;
    hint.classList.add("show");
    hintTimer = setTimeout(() => hint.classList.remove("show"), HINT_MS);
  }

  const myColor = () => (state ? state.color : null);
  const playing = () => myColor() !== null && myColor() !== undefined;
  const opponent = () => state.players[1 - myColor()];
  const gameInfo = () => ctx.game(state.game) || { family: state.game, draw_offers: false };
  /** The swap opening while the colours are not settled, else null. */
  const swapPhase = () => (state && state.swap && state.swap.phase !== "done" ? state.swap : null);
  /** Whose clock runs and who acts: the seat to act in a swap phase, else the colour to move. */
  const acting = () => (swapPhase() ? swapPhase().to_act : state.to_move);

  // --- building the view from a full state ---------------------------------------------------
  function applyState(message) {
    const fresh = !state || !board;
    state = { ...message, moves: message.moves.map((m) => [...m]) };
    queue = Promise.resolve();
    queueGeneration += 1;
    replaying = 0;
    if (fresh) build();
    board.reset(state.moves);
    if (board instanceof FiveBoard) board.setForbidden(state.moves.length, message.forbidden);
    clocks.update(state.clocks, ended ? null : acting());
    away = null;
    state.connected.forEach((connected, color) => {
      if (!connected && color !== myColor()) away = { color, until: null };
    });
    if (analysis) analysis.fromState(message.infos, state.moves);
    renderMoves();
    refresh();
  }

  function build() {
    const info = gameInfo();
    board = createBoard(info.family, state.params, { hint: showHint, perspective: myColor() });
    if (playing()) board.onMove = sendMove;
    clocks = new Clocks(state.clock);
    if (!playing()) {
      analysis = new AnalysisPanel({ family: info.family, params: state.params, players: state.players });
      fill(analysisHolder, analysis.el);
    }
    fill(boardHolder, board.el);
    learner = new Learner({ conn, matchId, state: () => state, board, resync, say: showHint, notify: (text) => notify(text, "error"),
      moveText: (move) => moveText(info.family, state.params, move) });
    actions.after(learner.el);
    boardHolder.dataset.family = info.family;
    if (board.style) layout.dataset.pieces = board.style; // the side marks take the pieces' colours
    // The player at the bottom is me (or the first player when watching).
    const bottom = playing() ? myColor() : 0;
    const order = [bottom, 1 - bottom];
    order.forEach((color, slot) => {
      const player = state.players[color];
      bars[slot].dataset.color = color;
      fill(
        bars[slot],
        h("span", { class: `side-mark p${color}`, "aria-hidden": "true" }),
        h(
          "span",
          { class: "name" },
          playerLink(player.name),
          player.kind === "bot" ? h("small", { class: "badge" }, "bot") : null,
          state.levels && state.levels[color] ? h("small", { class: "badge level" }, `level ${state.levels[color]}`) : null,
          player.guest ? h("small", { class: "badge" }, "guest") : null,
          color === myColor() ? h("small", { class: "badge you" }, "you") : null,
        ),
        h("span", { class: "presence" }),
        clocks.faces[color].el,
      );
    });
    const names = `${state.players[0].name} vs ${state.players[1].name}`;
    const rules = describeRules(ctx.game(state.game), state.params);
    const about = [rules, describeClock(state.clock), state.rated ? "rated" : ""].filter(Boolean).join(" · ");
    fill(
      title,
      h("span", {}, state.game, " "),
      h("small", { class: "muted" }, about),
    );
    document.title = `${state.game}: ${names} · Arbiter`;
  }

  // --- events ---------------------------------------------------------------------------------
  function onMoved(message) {
    if (!state || message.match !== matchId) return;
    if (message.ply !== state.moves.length) {
      resync();
      return;
    }
    state.moves.push([...message.move]);
    state.to_move = (message.ply + 1) % 2; // the next stone's colour (in a swap phase `by` is a seat)
    if (message.swap) state.swap = message.swap;
    if (analysis) analysis.onMoved(message);
    if (state.draw_offer !== null && state.draw_offer !== message.by) state.draw_offer = null;
    clocks.update(message.clocks, ended ? null : acting());
    renderMoves();
    const animate = message.by !== myColor();
    replaying += 1; // my turn starts once the opponent's turn has been shown
    const generation = queueGeneration;
    if (board instanceof FiveBoard) board.setForbidden(message.ply + 1, message.forbidden); // marked once pushed
    queue = queue
      .then(() => board.push(message.move, { animate }))
      .finally(() => {
        if (generation === queueGeneration) replaying -= 1;
        refresh();
      });
    refresh();
  }

  function onSwapped(message) {
    if (!state || message.match !== matchId) return;
    state.swap = message.swap;
    if (message.swap.phase === "done") {
      board = null; // the players come in colour order now: the view is built again
      resync();
      return;
    }
    state.clocks = message.clocks;
    clocks.update(message.clocks, ended ? null : acting());
    refresh();
  }

  function sendChoice(choice) {
    swapBox.querySelectorAll("button").forEach((button) => (button.disabled = true));
    conn.request("swap", { match: matchId, choice }).catch((error) => {
      notify(errorText(error), "error");
      refresh();
    });
  }

  function renderSwap() {
    const phase = swapPhase();
    const mine = phase && playing() && phase.to_act === myColor() && phase.phase === "choose" && !ended;
    swapBox.hidden = !mine;
    if (!mine) return;
    const labels = { black: "Black", white: "White", place: "Place two more" };
    fill(
      swapBox,
      h("p", {}, "Choose your colour", phase.options.includes("place") ? ", or place two more stones and let your opponent choose" : "", ":"),
      phase.options.map((choice) =>
        h("button", { class: "small primary", "data-choice": choice, onclick: () => sendChoice(choice) }, labels[choice] || choice),
      ),
    );
  }

  function onEnd(message) {
    if (message.match !== matchId) return;
    ended = message;
    hint.classList.remove("show"); // a hint about a move no longer matters
    if (clocks) clocks.update(message.clocks, null);
    queue = queue.then(() => {
      if (board) board.setOver(true);
      refresh();
    });
    refresh();
  }

  function sendMove(move) {
    const ply = state.moves.length;
    moveInFlight = true;
    refresh();
    return conn
      .request("move", { match: matchId, ply, move }, {
        until: (m) => m.type === "moved" && m.match === matchId && m.ply === ply,
      })
      .catch((error) => {
        if (error.code === ErrorCode.STALE_PLY || error.code === ErrorCode.NOT_YOUR_TURN) resync();
        throw error;
      })
      .finally(() => {
        moveInFlight = false;
        refresh();
      });
  }

  function resync() {
    conn.request("sync", { match: matchId }).then(applyState, loadFailed);
  }

  function load() {
    conn.request("spectate", { match: matchId }).then(applyState, loadFailed);
  }

  function loadFailed(error) {
    if (error.code === ErrorCode.MATCH_OVER) {
      notify("That game has ended; here is its replay.", "info");
      ctx.navigate(`#/replay/${matchId}`);
      return;
    }
    if (ended) return; // the end arrived first: the view already shows it
    if (error.code === "offline" || error.code === "disconnected") return; // the next welcome loads again
    layout.replaceWith(
      h(
        "div",
        { class: "panel error", role: "alert" },
        h("h2", {}, "This game cannot be shown"),
        h("p", {}, errorText(error)),
        h("a", { class: "button", href: "#/" }, "Back to the lobby"),
      ),
    );
  }

  const act = (type) => () =>
    conn.request(type, { match: matchId }).catch((error) => notify(errorText(error), "error"));

  function confirmButton(label, question, run, extra) {
    const button = h("button", { class: `small ${extra || ""}`.trim() }, label);
    let armed = null;
    button.addEventListener("click", () => {
      if (armed) {
        clearTimeout(armed);
        armed = null;
        run();
        return;
      }
      button.textContent = question;
      button.classList.add("armed");
      armed = setTimeout(() => {
        armed = null;
        button.textContent = label;
        button.classList.remove("armed");
      }, CONFIRM_MS);
    });
    return button;
  }

  // --- rendering ------------------------------------------------------------------------------
  function renderMoves() {
    const info = gameInfo();
    const rows = [];
    for (let ply = 0; ply < state.moves.length; ply += 2) {
      const cells = [ply, ply + 1]
        .filter((p) => p < state.moves.length)
        .map((p) => {
          const current = p === state.moves.length - 1 ? " current" : "";
          const book = p < (state.opening || 0) ? " book" : ""; // the server's balanced opening
          return h("span", { class: `move p${p % 2}${current}${book}`, "data-ply": p },
            moveText(info.family, state.params, state.moves[p]));
        });
      rows.push(h("li", {}, cells));
    }
    fill(moveList, ...rows);
    moveList.scrollTop = moveList.scrollHeight;
  }

  function refresh() {
    if (!state) return;
    const me = myColor();
    const over = Boolean(ended);
    const phase = swapPhase();
    const placing = !phase || phase.phase === "place";
    const myTurn = !over && playing() && acting() === me && placing && replaying === 0;
    if (board) board.setTurn(myTurn);
    layout.classList.toggle("my-turn", myTurn && !moveInFlight); // waiting for my move's echo is not my turn
    if (learner) learner.refresh(myTurn, over);
    for (const bar of bars) {
      const color = Number(bar.dataset.color);
      bar.classList.toggle("to-move", !over && acting() === color);
      const presence = bar.querySelector(".presence");
      if (presence) {
        presence.textContent =
          away && away.color === color
            ? away.until
              ? `disconnected · ${Math.max(0, Math.ceil((away.until - Date.now()) / 1000))} s to return`
              : "disconnected"
            : "";
      }
    }
    renderSwap();
    if (over) {
      const { result, reason, winner } = ended;
      let headline;
      if (result === null) headline = "No result";
      else if (winner === null || winner === undefined) headline = "Draw";
      else if (playing()) headline = winner === me ? "You won" : "You lost";
      else headline = `${state.players[winner].name} won`;
      status.textContent = "Game over";
      resultBox.hidden = false;
      const changes = Object.entries(ended.rating_changes || {}).map(
        ([name, delta]) => `${name} ${delta >= 0 ? "+" : ""}${delta.toFixed(1)}`,
      );
      fill(
        resultBox,
        h("strong", {}, headline),
        h("span", { class: "reason" }, describeResult(result, reason)),
        changes.length ? h("small", {}, `rating: ${changes.join(", ")}`) : null,
      );
      fill(
        actions,
        h("a", { class: "button small", href: `#/replay/${matchId}` }, "Replay"),
        h("a", { class: "button small", id: "review-link", href: `#/review/${matchId}` }, "Review"),
        playing() ? h("button", { class: "small primary", onclick: playAgain }, "Play again") : null,
        h("a", { class: "button small", href: "#/" }, "Lobby"),
      );
      return;
    }
    resultBox.hidden = true;
    const mover = state.players[acting()].name;
    if (phase) {
      const doing = phase.phase === "choose" ? "chooses" : `places stone ${state.moves.length + 1} of ${phase.stones}`;
      if (!playing() || acting() !== me) status.textContent = `${describeOpening(phase.rule)} · ${mover} ${doing}`;
      else if (phase.phase === "choose") status.textContent = "Your choice";
      else status.textContent = `Place stone ${state.moves.length + 1} of ${phase.stones} (${state.moves.length % 2 ? "white" : "black"})`;
    } else if (!playing()) status.textContent = `Watching · ${mover} to move`;
    else if (myTurn) status.textContent = "Your turn";
    else status.textContent = `${opponent().name} is thinking…`;
    if (!playing()) {
      actions.replaceChildren();
      return;
    }
    const iMoved = state.swap ? state.moves.length > 0 : state.moves.some((_, ply) => ply % 2 === me);
    const offer = state.draw_offer;
    const buttons = [];
    if (!iMoved) buttons.push(confirmButton("Abort", "Abort the game?", act("abort")));
    if (gameInfo().draw_offers) {
      if (offer === 1 - me) {
        buttons.push(h("button", { class: "small primary", onclick: act("accept_draw") }, "Accept draw"));
        buttons.push(h("button", { class: "small", onclick: act("decline_draw") }, "Decline draw"));
      } else if (offer === me) {
        buttons.push(h("button", { class: "small", disabled: true }, "Draw offered"));
      } else {
        buttons.push(h("button", { class: "small", onclick: offerDraw }, "Offer draw"));
      }
    }
    buttons.push(confirmButton("Resign", "Really resign?", act("resign"), "danger"));
    fill(actions, ...buttons);
    if (offer === 1 - me) status.textContent = `${opponent().name} offers a draw`;
  }

  function offerDraw() {
    conn.request("offer_draw", { match: matchId }).then(
      () => {
        if (!ended) state.draw_offer = myColor();
        refresh();
      },
      (error) => notify(errorText(error), "error"),
    );
  }

  function playAgain() {
    /** @type {import("./connection.js").Fields<"challenge">} */
    const request = {
      to: opponent().name,
      game: state.game,
      params: state.params,
      clock: { ...state.clock },
      color: myColor() === 0 ? "second" : "first",
      level: (state.levels && state.levels[1 - myColor()]) || undefined, // the same strength again
    };
    conn.request("challenge", request).then(
      ({ challenge }) => {
        status.textContent = `Waiting for ${challenge.to} to accept…`;
        rematch = challenge.id;
      },
      (error) => notify(errorText(error), "error"),
    );
  }
  let rematch = null;

  const offs = [
    conn.on("welcome", load),
    conn.on("match_state", (message) => {
      if (message.match === matchId) applyState(message);
    }),
    conn.on("moved", onMoved),
    conn.on("end", onEnd),
    conn.on("swapped", onSwapped),
    conn.on("draw_offered", ({ match, by }) => {
      if (match !== matchId || !state) return;
      state.draw_offer = by;
      if (by !== myColor() && playing()) showHint(`${state.players[by].name} offers a draw.`);
      refresh();
    }),
    conn.on("draw_declined", ({ match, by }) => {
      if (match !== matchId || !state) return;
      state.draw_offer = null;
      if (by !== myColor() && playing()) showHint(`${state.players[by].name} declined the draw.`);
      refresh();
    }),
    conn.on("player_left", ({ match, color, grace_ms }) => {
      if (match !== matchId || !state) return;
      away = { color, until: Date.now() + grace_ms };
      clearInterval(awayTimer);
      awayTimer = setInterval(refresh, 1000);
      refresh();
    }),
    conn.on("player_returned", ({ match, color }) => {
      if (match !== matchId || !state || !away || away.color !== color) return;
      away = null;
      clearInterval(awayTimer);
      refresh();
    }),
    conn.on("challenge_closed", ({ challenge, reason }) => {
      if (challenge !== rematch) return;
      rematch = null;
      if (reason !== "accepted") {
        notify(`The rematch was not accepted: ${reason}.`, "info");
        refresh();
      }
    }),
    conn.on("state", ({ state: connection }) => {
      layout.classList.toggle("offline", connection !== "open");
    }),
  ];
  load();

  return {
    unmount() {
      for (const off of offs) off();
      if (clocks) clocks.stop();
      clearInterval(awayTimer);
      clearTimeout(hintTimer);
      if (learner) learner.unmount();
      if (state && !playing() && !ended) conn.request("unspectate", { match: matchId }).catch(() => {});
      document.title = "Arbiter";
    },
  };
}
