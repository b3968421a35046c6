// @ts-check
// Levels a person understands: a plain description of each of a bot's levels, and the level to suggest.
//
// The suggestion: before any game against bots, a registered player gets the level whose rating in the
// pool is closest to its own (a new account's is the pool's starting rating), a guest the weakest. After
// three games against bots (remembered in this browser, localStorage), the level closest to an even
// score: the player's performance over its last games (the mean of the opponents' ratings plus 400 ×
// (wins − losses) / games, the classic estimate), matched to the levels' ratings; where the levels have
// no ratings yet, one level up after more wins than losses, one down after more losses.

const KEY = "arbiter.botGames";
const KEPT = 50;
const AFTER = 3; // games against bots before the results, not the rating, choose
const START = 1500; // the rating pool's starting rating (Glicko-2, docs/STORE.md)

/** @param {number} level @param {number} levels */
export function describeLevel(level, levels) {
  const at = levels > 1 ? (level - 1) / (levels - 1) : 1;
  if (at === 0) return "beginner: plays quickly and misses threats";
  if (at < 0.4) return "casual: sees a move or two ahead";
  if (at < 0.7) return "club player: punishes loose moves";
  if (at < 1) return "strong: few mistakes";
  return "full strength: very hard to beat";
}

/** @returns {{bot: string, level: number, score: number}[]} */
export function botGames() {
  try {
    const games = JSON.parse(localStorage.getItem(KEY) || "[]");
    return Array.isArray(games) ? games : [];
  } catch {
    return [];
  }
}

/** Remember a finished game against a bot: `score` 1, ½ or 0 for the person. */
export function rememberBotGame(bot, level, score) {
  try {
    localStorage.setItem(KEY, JSON.stringify([...botGames(), { bot, level, score }].slice(-KEPT)));
  } catch {
    // nowhere to keep it: the suggestion goes on from the rating
  }
}

/**
 * The level to suggest against `bot` (1..levels), and why.
 * @param {{bot: string, levels: number, ratings: Map<number, number>, myRating: number | null, guest: boolean}} at
 * `ratings`: the bot's rating at each level in the pool (those it has); `myRating`: the player's, if rated.
 */
export function suggestLevel({ bot, levels, ratings, myRating, guest }) {
  const closest = (target) => {
    let best = 1;
    for (let level = 1; level <= levels; level++) {
      const rating = ratings.get(level);
      const bestRating = ratings.get(best);
      if (rating !== undefined && (bestRating === undefined || Math.abs(rating - target) < Math.abs(bestRating - target))) best = level;
    }
    return best;
  };
  const games = botGames();
  if (games.length >= AFTER) {
    const recent = games.slice(-10);
    const net = recent.reduce((sum, g) => sum + (g.score === 1 ? 1 : g.score === 0 ? -1 : 0), 0);
    const rated = recent.filter((g) => g.bot === bot && ratings.has(g.level));
    if (rated.length) {
      const mean = rated.reduce((sum, g) => sum + /** @type {number} */ (ratings.get(g.level)), 0) / rated.length;
      const performance = mean + (400 * net) / recent.length;
      return { level: closest(performance), why: `closest to an even score after your last ${recent.length} games` };
    }
    const last = [...recent].reverse().find((g) => g.bot === bot) || { level: 1 };
    const level = Math.min(levels, Math.max(1, last.level + Math.sign(net)));
    return { level, why: `after your last ${recent.length} games against bots` };
  }
  if (guest) return { level: 1, why: "the weakest, for a first game" };
  if (!ratings.size) return { level: 1, why: "the weakest: this bot has no ratings here yet" };
  return { level: closest(myRating ?? START), why: "closest to your rating" };
}
