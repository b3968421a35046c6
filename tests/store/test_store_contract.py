"""What every Store does, run against each implementation: players and tokens, games and moves,
ends, ratings, leaderboard, crosstable, interrupted games and the errors they share.

A new store joins by adding one entry to STORES; a behaviour only one store has (SQLite's file,
batching, schema) is tested in that store's own file. PostgreSQL runs on the session's own
server (arbiter.soak.services), one fresh database per test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path

import pytest
from store_helpers import GOMOKU, TTT, game_start, play

from arbiter.server.basics.ratings import INITIAL_DEVIATION, INITIAL_RATING, INITIAL_VOLATILITY
from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import (
    MAX_REFUSALS_KEPT,
    MAX_REFUSED_MOVE_CHARS,
    AlreadyBanned,
    AlreadyEntered,
    AsideMove,
    BadBan,
    BadName,
    GameStart,
    MoveRecord,
    NameTaken,
    NotBanned,
    NotEntered,
    Rating,
    RefusedMove,
    Store,
    StoreError,
    TournamentError,
    TournamentExists,
    TournamentGame,
    UnknownPlayer,
    UnknownTournament,
)
from arbiter.server.store.memory import MemoryStore
from arbiter.server.store.postgresql import PostgresStore
from arbiter.server.store.sqlite import SqliteStore

X_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]

STORES: dict[str, Callable[[pytest.FixtureRequest, Path], Store]] = {
    "sqlite": lambda request, folder: SqliteStore(folder / "arbiter.db"),
    "memory": lambda request, folder: MemoryStore(),
    "postgresql": lambda request, folder: PostgresStore(request.getfixturevalue("postgres_url")),
}


@pytest.fixture(params=sorted(STORES))
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    opened = STORES[request.param](request, tmp_path)
    await opened.open()
    yield opened
    await opened.close()


async def players(store: Store, *names: str) -> None:
    for name in names:
        await store.add_player(name, "bot")


def fresh(player: str, pool: str = TTT, level: int | None = None) -> Rating:
    return Rating(player, pool, INITIAL_RATING, INITIAL_DEVIATION, INITIAL_VOLATILITY, level=level)


def numbers(rating: Rating) -> tuple[float, ...]:
    return (rating.rating, rating.deviation, rating.volatility, rating.games, rating.wins, rating.draws, rating.losses)


async def test_tokens_authenticate_until_revoked_and_reissued(store: Store) -> None:
    token = await store.add_player("alice", "bot")
    other = await store.add_player("bob", "human")
    assert token != other and len(token) >= 40
    player = await store.authenticate(token)
    assert player is not None and (player.name, player.kind, player.revoked) == ("alice", "bot", False)
    assert (await store.authenticate(other)).name == "bob"  # type: ignore[union-attr]
    for wrong in [token[:-1] + ("A" if token[-1] != "A" else "B"), token + "x", "", "x"]:
        assert await store.authenticate(wrong) is None
    await store.revoke_player("alice", by_owner=True)
    assert await store.authenticate(token) is None
    assert (await store.get_player("alice")).revoked  # type: ignore[union-attr]
    assert [(p.name, p.revoked) for p in await store.list_players()] == [("alice", True), ("bob", False)]
    new = await store.reissue_token("alice")  # a new token lifts the owner's revocation
    assert new != token and await store.authenticate(token) is None
    player = await store.authenticate(new)
    assert player is not None and (player.name, player.revoked) == ("alice", False)
    assert await store.get_player("nobody") is None


async def test_the_operators_revocation_outlasts_a_new_token_until_reinstated(store: Store) -> None:
    await store.add_player("ann", "human")
    token = await store.add_player("ann-bot", "bot", owner="ann")
    await store.add_session("ann", "sel", b"h" * 32, expires=2_000_000_000.0)
    await store.revoke_player("ann-bot")  # the operator's (arbiter player revoke)
    await store.revoke_player("ann")
    bot = await store.get_player("ann-bot")
    assert bot is not None and (bot.revoked, bot.revoked_by_operator) == (True, True)
    rotated = await store.reissue_token("ann-bot")  # what the owner's browser does
    assert await store.authenticate(rotated) is None and await store.authenticate(token) is None
    assert [(b.name, b.revoked, b.revoked_by_operator) for b in await store.bots_of("ann")] == [("ann-bot", True, True)]
    assert await store.session_player("sel", b"h" * 32, now=1_900_000_000.0) is None
    await store.revoke_player("ann-bot", by_owner=True)  # the owner's revocation too: both must be lifted
    await store.reinstate_player("ann-bot")
    assert await store.authenticate(rotated) is None
    assert (await store.get_player("ann-bot")).revoked_by_operator is False  # type: ignore[union-attr]
    newest = await store.reissue_token("ann-bot")
    found = await store.authenticate(newest)
    assert found is not None and (found.name, found.revoked, found.revoked_by_operator) == ("ann-bot", False, False)
    await store.reinstate_player("ann")
    assert (await store.session_player("sel", b"h" * 32, now=1_900_000_000.0)).name == "ann"  # type: ignore[union-attr]
    with pytest.raises(UnknownPlayer):
        await store.reinstate_player("nobody")


async def test_a_persons_bots_passwords_and_sessions(store: Store) -> None:
    """Accounts from the browser: a person with a password owns the bots it creates; sessions
    find their player until they expire, end, or the account is revoked."""
    await store.add_player("ann", "human", password_hash="$argon2id$hash-1")
    assert await store.password_hash("ann") == "$argon2id$hash-1"
    await store.set_password_hash("ann", "$argon2id$hash-2")
    assert await store.password_hash("ann") == "$argon2id$hash-2"
    assert await store.password_hash("nobody") is None
    with pytest.raises(UnknownPlayer):
        await store.set_password_hash("nobody", "x")

    token = await store.add_player("ann-bot", "bot", owner="ann")
    await store.add_player("zed-bot", "bot", owner="ann")
    bot = await store.authenticate(token)
    assert bot is not None and (bot.name, bot.owner) == ("ann-bot", "ann")
    assert [(b.name, b.owner) for b in await store.bots_of("ann")] == [("ann-bot", "ann"), ("zed-bot", "ann")]
    await store.reissue_token("ann-bot")  # a rotated token keeps the owner
    assert (await store.get_player("ann-bot")).owner == "ann"  # type: ignore[union-attr]
    await store.revoke_player("zed-bot", by_owner=True)
    assert [(b.name, b.revoked) for b in await store.bots_of("ann")] == [("ann-bot", False), ("zed-bot", True)]
    with pytest.raises(UnknownPlayer):
        await store.add_player("orphan", "bot", owner="nobody")
    with pytest.raises(UnknownPlayer):
        await store.add_player("bot-of-bot", "bot", owner="ann-bot")  # only a person owns bots
    with pytest.raises(StoreError):
        await store.add_player("person", "human", owner="ann")

    await store.add_session("ann", "sel1", b"h" * 32, expires=2_000_000_000.0)
    await store.add_session("ann", "sel2", b"i" * 32, expires=2_000_000_000.0)
    found = await store.session_player("sel1", b"h" * 32, now=1_900_000_000.0)
    assert found is not None and found.name == "ann"
    assert await store.session_player("sel1", b"x" * 32, now=1_900_000_000.0) is None  # wrong secret
    assert await store.session_player("sel1", b"h" * 32, now=2_000_000_001.0) is None  # expired
    assert await store.session_player("nope", b"h" * 32, now=1_900_000_000.0) is None
    with pytest.raises(UnknownPlayer):
        await store.add_session("nobody", "sel3", b"h" * 32, expires=2_000_000_000.0)
    assert await store.end_sessions(selector="sel1") == 1
    assert await store.session_player("sel1", b"h" * 32, now=1_900_000_000.0) is None
    assert await store.session_player("sel2", b"i" * 32, now=1_900_000_000.0) is not None
    await store.revoke_player("ann")
    assert await store.session_player("sel2", b"i" * 32, now=1_900_000_000.0) is None  # a revoked account
    assert await store.end_sessions(name="ann") == 1


async def test_bans_of_players_and_networks_are_kept_listed_and_lifted(store: Store) -> None:
    await players(store, "Alice", "bob")
    version = await store.bans_version()
    assert await store.list_bans() == []
    alice = await store.add_ban("player", "alice", "flooding the lobby")  # any case finds the player
    assert (alice.kind, alice.target, alice.reason) == ("player", "Alice", "flooding the lobby")
    assert await store.bans_version() != version
    v4 = await store.add_ban("network", "203.0.113.0/24")
    one = await store.add_ban("network", "198.51.100.7")  # one address: a /32
    v6 = await store.add_ban("network", "2001:DB8:0:1::/64")
    assert (v4.target, one.target, v6.target, v6.reason) == (
        "203.0.113.0/24",
        "198.51.100.7/32",
        "2001:db8:0:1::/64",
        None,
    )
    assert [b.target for b in await store.list_bans()] == [
        "Alice", "203.0.113.0/24", "198.51.100.7/32", "2001:db8:0:1::/64"
    ]  # fmt: skip
    assert [b.kind for b in await store.list_bans()] == ["player", "network", "network", "network"]
    assert all(b.created > 0 for b in await store.list_bans())
    version = await store.bans_version()
    await store.remove_ban("player", "ALICE")
    await store.remove_ban("network", "198.51.100.7/32")
    assert await store.bans_version() != version
    assert [b.target for b in await store.list_bans()] == ["203.0.113.0/24", "2001:db8:0:1::/64"]
    assert (await store.add_ban("player", "Alice")).reason is None  # banned again after being let back in


async def test_bad_bans_are_refused_and_change_nothing(store: Store) -> None:
    await players(store, "alice")
    await store.add_ban("player", "alice")
    await store.add_ban("network", "10.0.0.0/8")
    version, before = await store.bans_version(), await store.list_bans()
    refused: list[tuple[type[StoreError], str, str]] = [
        (UnknownPlayer, "player", "nobody"),
        (AlreadyBanned, "player", "ALICE"),
        (AlreadyBanned, "network", "10.0.0.0/8"),
        (BadBan, "network", "10.0.0.1/8"),  # host bits set: which network was meant?
        (BadBan, "network", "10.0.0.0/33"),
        (BadBan, "network", "example.com"),
        (BadBan, "network", ""),
        (BadBan, "account", "alice"),
    ]
    for error, kind, target in refused:
        with pytest.raises(error):
            await store.add_ban(kind, target)  # type: ignore[arg-type]
    with pytest.raises(BadBan):
        await store.add_ban("network", "192.0.2.0/24", "x" * 501)
    for error, kind, target in [
        (NotBanned, "player", "bob"),
        (NotBanned, "network", "10.0.0.0/16"),
        (BadBan, "network", "x"),
    ]:
        with pytest.raises(error):
            await store.remove_ban(kind, target)  # type: ignore[arg-type]
    assert await store.bans_version() == version and await store.list_bans() == before


async def test_names_are_unique_regardless_of_case_and_guest_names_reserved(store: Store) -> None:
    await store.add_player("Alice", "human")
    with pytest.raises(NameTaken):
        await store.add_player("alice", "bot")
    for bad in ["guest-1234", "Guest_x", "", "a b", "-dash", "x" * 33, "ünï"]:
        with pytest.raises(BadName):
            await store.add_player(bad, "bot")
    with pytest.raises(StoreError, match="kind"):
        await store.add_player("carol", "robot")  # type: ignore[arg-type]
    with pytest.raises(UnknownPlayer):
        await store.revoke_player("nobody")
    with pytest.raises(UnknownPlayer):
        await store.reissue_token("nobody")
    assert [p.name for p in await store.list_players()] == ["Alice"]


async def test_a_rated_game_is_recorded_with_its_moves_and_the_servers_ratings(store: Store) -> None:
    await players(store, "alice", "bob")
    changes = await play(store, "m1", X_WINS, "1-0", "line")
    alice_after, bob_after = rate_result(fresh("alice"), fresh("bob"), "1-0")  # what the server computes
    assert changes == pytest.approx({"alice": alice_after.rating - 1500, "bob": bob_after.rating - 1500})
    assert changes["alice"] > 0 > changes["bob"]
    record = await store.get_game("m1")
    assert record is not None
    assert [m.move for m in record.moves] == X_WINS
    assert [m.elapsed_ms for m in record.moves] == [100, 101, 102, 103, 104]
    assert (record.result, record.reason, record.ended) == ("1-0", "line", 1_700_000_060.0)
    assert record.start == game_start("m1")
    assert record.rating_changes == pytest.approx(changes)
    alice = await store.get_rating("alice", TTT)
    assert numbers(alice) == pytest.approx(numbers(alice_after)) and alice.provisional
    assert (alice.games, alice.wins, alice.draws, alice.losses) == (1, 1, 0, 0)
    bob = await store.get_rating("bob", TTT)
    assert (bob.games, bob.wins, bob.draws, bob.losses) == (1, 0, 0, 1)


@pytest.mark.parametrize("swapped", [False, True])
async def test_a_swap_opening_keeps_its_choices_and_rates_the_final_colours(store: Store, swapped: bool) -> None:
    await players(store, "alice", "bob")
    start = replace(game_start("s1", game="gomoku"), params={"opening": "swap1"}, levels=(2, None))
    await store.start_game(start)
    for ply, move in enumerate([[7, 7], [8, 7], [7, 9]]):
        store.record_move("s1", MoveRecord(ply, move, 100))
    choices = [{"by": "bob", "choice": "black" if swapped else "white", "ply": 3}]
    store.record_swap("s1", choices, swapped=swapped)
    store.record_move("s1", MoveRecord(3, [0, 0], 100))
    changes = await store.finish_game("s1", "1-0", "resign", start.started + 60, rate_result)
    record = await store.get_game("s1")
    assert record is not None and record.swap == choices and len(record.moves) == 4
    black, white = ("bob", "alice") if swapped else ("alice", "bob")
    assert record.start.players == (black, white)
    assert record.start.levels == ((None, 2) if swapped else (2, None))  # the level follows its player
    assert changes[black] > 0 > changes[white]  # black won, whoever opened
    assert (await store.list_games())[0].swap == choices


async def test_analysis_text_of_any_kind_comes_back_as_written(store: Store) -> None:
    """A move's analysis is free text from an engine: the characters a bulk format treats as
    field, row or NULL markers (PostgreSQL's COPY) are stored as they came."""
    await players(store, "alice", "bob")
    await store.start_game(game_start("m1"))
    texts = ["tab\there", "line\nbreak", "cr\rhere", "back\\slash", "\\N", "quote \" ' ü 五", "", "\\\t\\n"]
    for ply, text in enumerate(texts):
        store.record_move("m1", MoveRecord(ply, [ply % 3, ply // 3], ply, {"pv": text, "depth": ply}))
    await store.finish_game("m1", None, "aborted", 1_700_000_060.0)
    record = await store.get_game("m1")
    assert record is not None
    assert [m.info for m in record.moves] == [{"pv": text, "depth": ply} for ply, text in enumerate(texts)]


async def test_refused_moves_come_back_with_their_game_the_first_few_kept_and_all_counted(store: Store) -> None:
    await players(store, "alice", "bob")
    await store.start_game(game_start("m1"))
    store.record_move("m1", MoveRecord(0, [1, 1], 100))
    store.record_refusal("m1", RefusedMove.of(1, 1, [1, 1], "illegal_move", 1_700_000_001.5))
    store.record_refusal("m1", RefusedMove.of(1, 0, [0, 0], "not_your_turn", 1_700_000_002.0))
    flood = "x" * 10_000
    for _ in range(MAX_REFUSALS_KEPT + 20):
        store.record_refusal("m1", RefusedMove.of(1, 1, [flood], "bad_move", 1_700_000_003.0))
    store.record_move("m1", MoveRecord(1, [0, 1], 100))
    await store.finish_game("m1", "1-0", "resign", 1_700_000_060.0)
    await play(store, "clean", X_WINS, "1-0", "line")
    record = await store.get_game("m1")
    assert record is not None
    assert record.refused == MAX_REFUSALS_KEPT + 22
    assert len(record.refusals) == MAX_REFUSALS_KEPT
    assert record.refusals[:2] == [
        RefusedMove(1, 1, "[1,1]", "illegal_move", 1_700_000_001.5),
        RefusedMove(1, 0, "[0,0]", "not_your_turn", 1_700_000_002.0),
    ]
    assert {len(r.move) for r in record.refusals[2:]} == {MAX_REFUSED_MOVE_CHARS}
    assert [m.move for m in record.moves] == [[1, 1], [0, 1]]
    clean = await store.get_game("clean")
    assert clean is not None and (clean.refusals, clean.refused) == ([], 0)
    listed = {r.start.match_id: r for r in await store.list_games(player="bob")}
    assert listed["m1"].refusals == record.refusals and listed["m1"].refused == record.refused


async def test_rating_history_per_pool_and_level_oldest_first(store: Store) -> None:
    await players(store, "alice", "bob")
    alice, bob = fresh("alice"), fresh("bob")
    expected = []
    for i, result in enumerate(["1-0", "0-1", "1/2-1/2"]):
        await play(store, f"m{i}", X_WINS, result, "line", started=1_700_000_000.0 + 100 * i)
        alice, bob = rate_result(alice, bob, result)
        expected.append((1_700_000_060.0 + 100 * i, alice.rating, alice.deviation))
    await play(store, "unrated", X_WINS, "1-0", "line", rated=False, started=1_700_001_000.0)
    await store.start_game(replace(game_start("lvl", "alice", "bob", game="gomoku"), levels=(3, None)))
    await store.finish_game("lvl", "0-1", "line", 1_700_002_000.0, rate_result)
    history = await store.rating_history("alice", TTT)
    assert [point for row in history for point in row] == pytest.approx([point for row in expected for point in row])
    assert len(await store.rating_history("bob", TTT)) == 3
    assert await store.rating_history("alice", GOMOKU) == []  # only level 3 played gomoku
    (point,) = await store.rating_history("alice", GOMOKU, 3)
    assert point[0] == 1_700_002_000.0 and point[1] < INITIAL_RATING
    assert await store.rating_history("bob", "tictactoe/blitz") == []
    with pytest.raises(UnknownPlayer):
        await store.rating_history("nobody", TTT)


async def test_each_game_is_rated_from_the_ratings_before_it(store: Store) -> None:
    await players(store, "alice", "bob")
    alice, bob = fresh("alice"), fresh("bob")
    for i, result in enumerate(["1-0", "1/2-1/2", "0-1", "1-0"]):
        await play(store, f"m{i}", X_WINS, result, "line")
        alice, bob = rate_result(alice, bob, result)
    assert numbers(await store.get_rating("alice", TTT)) == pytest.approx(numbers(alice))
    assert numbers(await store.get_rating("bob", TTT)) == pytest.approx(numbers(bob))
    assert (bob.games, bob.wins, bob.draws, bob.losses) == (4, 1, 1, 2)


async def test_unrated_aborted_and_guest_games_change_no_rating_and_count_nowhere(store: Store) -> None:
    await players(store, "alice", "bob")
    assert await play(store, "u", X_WINS, "1-0", "line", rated=False) == {}
    assert await play(store, "a", [[0, 0]], None, "abort") == {}
    assert await play(store, "g", X_WINS, "0-1", "line", second="guest-7f3a", rated=False) == {}
    await store.start_game(game_start("no-rater"))
    assert await store.finish_game("no-rater", "1-0", "line", 5.0) == {}  # nothing given, nothing saved
    for name in ("alice", "bob"):
        assert await store.get_rating(name, TTT) == fresh(name)
    assert await store.leaderboard(TTT) == []
    assert await store.crosstable(TTT) == {"alice": {"bob": [1, 0, 0]}, "bob": {"alice": [0, 0, 1]}}
    assert (await store.get_game("a")).result is None  # type: ignore[union-attr]
    with pytest.raises(UnknownPlayer):
        await store.get_rating("guest-7f3a", TTT)


async def test_an_end_written_again_is_not_rated_again(store: Store) -> None:
    await players(store, "alice", "bob")
    changes = await play(store, "m", X_WINS, "1-0", "line")
    assert await store.finish_game("m", "1-0", "line", 1.0, rate_result) == pytest.approx(changes)
    alice = await store.get_rating("alice", TTT)
    assert alice.games == 1 and alice.rating == pytest.approx(1500 + changes["alice"])
    assert (await store.get_game("m")).ended == 1_700_000_060.0  # type: ignore[union-attr]


async def test_ending_errors(store: Store) -> None:
    await players(store, "alice", "bob")
    await play(store, "u", X_WINS, "1-0", "line", rated=False)
    with pytest.raises(StoreError, match="already finished"):
        await store.finish_game("u", "0-1", "resign", 1.0, rate_result)
    with pytest.raises(StoreError, match="no game"):
        await store.finish_game("never-started", "0-1", "resign", 1.0, rate_result)
    await store.start_game(game_start("live"))
    with pytest.raises(StoreError, match="result"):
        await store.finish_game("live", "2-0", "resign", 1.0, rate_result)
    assert (await store.get_game("live")).ended is None  # type: ignore[union-attr]


async def test_leaderboard_and_crosstable(store: Store) -> None:
    await players(store, "alice", "bob", "carol")
    await play(store, "1", X_WINS, "1-0", "line", first="alice", second="bob")
    await play(store, "2", X_WINS, "1/2-1/2", "board_full", first="bob", second="alice")
    await play(store, "3", X_WINS, "0-1", "line", first="carol", second="alice")
    await play(store, "4", X_WINS, "1-0", "line", first="bob", second="carol")
    await play(store, "5", X_WINS, "1-0", "line", first="bob", second="carol", rated=False)
    await play(store, "6", X_WINS, "1-0", "line", first="bob", second="carol", game="gomoku")
    board = await store.leaderboard(TTT)
    assert [r.player for r in board] == ["alice", "bob", "carol"]
    assert [(r.games, r.wins, r.draws, r.losses) for r in board] == [(3, 2, 1, 0), (3, 1, 1, 1), (2, 0, 0, 2)]
    assert board[0].rating > board[1].rating > board[2].rating
    assert await store.crosstable(TTT) == {
        "alice": {"bob": [1, 1, 0], "carol": [1, 0, 0]},
        "bob": {"alice": [0, 1, 1], "carol": [1, 0, 0]},
        "carol": {"alice": [0, 0, 1], "bob": [0, 0, 1]},
    }
    assert [r.player for r in await store.leaderboard(GOMOKU)] == ["bob", "carol"]
    await store.revoke_player("carol")
    assert [r.player for r in await store.leaderboard(TTT)] == ["alice", "bob"]


async def test_list_games_filters_newest_first(store: Store) -> None:
    for i in range(5):
        await play(store, f"m{i}", X_WINS[: i + 1], "1-0", "line", started=1000.0 + i,
                   first="alice" if i % 2 else "carol", game="tictactoe" if i < 4 else "gomoku")  # fmt: skip
    assert [g.start.match_id for g in await store.list_games()] == ["m4", "m3", "m2", "m1", "m0"]
    assert [g.start.match_id for g in await store.list_games(player="ALICE")] == ["m3", "m1"]
    assert [g.start.match_id for g in await store.list_games(game="gomoku")] == ["m4"]
    assert [g.start.match_id for g in await store.list_games(limit=2)] == ["m4", "m3"]
    assert [len(g.moves) for g in await store.list_games(limit=None)] == [5, 4, 3, 2, 1]
    await store.start_game(game_start("live", started=2000.0))  # the newest, but not over
    assert [g.start.match_id for g in await store.list_games(limit=2)] == ["live", "m4"]
    assert [g.start.match_id for g in await store.list_games(limit=2, finished=True)] == ["m4", "m3"]
    assert await store.get_game("nope") is None


async def test_list_games_continues_after_a_game(store: Store) -> None:
    for i in range(5):
        await play(store, f"m{i}", X_WINS[:1], "1-0", "line", started=1000.0 + i,
                   first="alice" if i % 2 else "carol")  # fmt: skip
    await store.start_game(game_start("live", started=1005.0))
    assert [g.start.match_id for g in await store.list_games(after="live", limit=2)] == ["m4", "m3"]
    assert [g.start.match_id for g in await store.list_games(after="m3", finished=True)] == ["m2", "m1", "m0"]
    assert [g.start.match_id for g in await store.list_games(after="m3", player="carol")] == ["m2", "m0"]
    assert await store.list_games(after="m0") == []
    assert await store.list_games(after="nope") == []


async def test_a_discarded_game_is_gone_with_its_moves_a_live_one_stays(store: Store) -> None:
    await play(store, "kept", X_WINS, "1-0", "line", rated=False)
    await play(store, "aborted", X_WINS[:1], None, "abort", rated=False)
    await store.start_game(game_start("live", rated=False))
    store.record_move("live", MoveRecord(0, [0, 0], 5))
    await store.discard_game("aborted")
    await store.discard_game("live")  # not over: stays
    await store.discard_game("nope")
    await store.flush()
    assert await store.get_game("aborted") is None
    assert {g.start.match_id for g in await store.list_games()} == {"kept", "live"}
    assert await store.orphan_moves() == {}  # no move left behind
    live = await store.get_game("live")
    assert live is not None and len(live.moves) == 1


async def test_rated_results_are_the_rated_games_of_a_pool_in_the_order_they_ended(store: Store) -> None:
    await players(store, "alice", "bob")
    await play(store, "late", X_WINS, "0-1", "line", started=2000.0)
    await play(store, "early", X_WINS, "1/2-1/2", "agreed", started=1000.0, first="bob", second="alice")
    await play(store, "unrated", X_WINS, "1-0", "line", rated=False)
    await play(store, "aborted", [], None, "abort")
    await play(store, "other", X_WINS, "1-0", "line", game="gomoku")
    assert await store.rated_results(TTT) == [("bob", "alice", "1/2-1/2"), ("alice", "bob", "0-1")]
    assert await store.rated_results("nope/bullet") == []


async def test_interrupted_games_are_listed_with_their_moves_until_finished(store: Store) -> None:
    await players(store, "alice", "bob")
    await play(store, "done", X_WINS, "1-0", "line")
    await store.start_game(game_start("live", started=1_700_000_100.0))
    store.record_move("live", MoveRecord(0, [1, 1], 7))
    await store.flush()
    [interrupted] = await store.interrupted_games()
    assert interrupted.start.match_id == "live" and interrupted.result is None and interrupted.reason is None
    assert interrupted.moves == [MoveRecord(0, [1, 1], 7)]
    assert await store.finish_game("live", None, "interrupted", 2.0, rate_result) == {}
    assert await store.interrupted_games() == []
    voided = await store.get_game("live")
    assert voided is not None and (voided.result, voided.reason, voided.ended) == (None, "interrupted", 2.0)
    assert (await store.get_rating("alice", TTT)).games == 1


async def test_every_game_streams_pool_by_pool_in_the_order_they_ended_then_the_unfinished(store: Store) -> None:
    """What `arbiter check` walks: every game once, with its moves, whatever the page size."""
    await players(store, "alice", "bob")
    ends = {"t1": 30.0, "g1": 20.0, "t2": 10.0, "t3": 30.0, "g2": 5.0}  # t1 and t3 end together: stored order
    for match_id, ended in ends.items():
        await store.start_game(game_start(match_id, game="gomoku" if match_id[0] == "g" else "tictactoe"))
        for ply, move in enumerate(X_WINS[:3]):
            store.record_move(match_id, MoveRecord(ply, move, ply))
        await store.finish_game(match_id, "1-0", "resign", ended, rate_result)
    await store.start_game(game_start("live1"))
    store.record_move("live1", MoveRecord(0, [1, 1], 7))
    await store.start_game(game_start("live2"))
    await store.flush()
    for batch_size in (2, 5, 200):  # pages that split a pool, that end exactly with it, one page for all
        streamed = [record async for record in store.stream_games(batch_size=batch_size)]
        assert [r.start.match_id for r in streamed[:5]] in (
            ["g2", "g1", "t2", "t1", "t3"],
            ["t2", "t1", "t3", "g2", "g1"],  # (pools in any order, each whole)
        )
        assert all([m.move for m in r.moves] == X_WINS[:3] for r in streamed[:5])
        unfinished = {r.start.match_id: r.moves for r in streamed[5:]}
        assert unfinished == {"live1": [MoveRecord(0, [1, 1], 7)], "live2": []} and len(streamed) == 7
        assert streamed[0].rating_changes and streamed[-1].ended is None
    assert await store.orphan_moves() == {}  # only a hand edit leaves a move without its game


async def test_each_level_and_each_pool_is_rated_apart(store: Store) -> None:
    """A bot's level is its own rated identity, and the rules and the clock category make the pool."""
    await players(store, "alpha", "bob")
    levels = {"levels": (2, None)}
    await store.start_game(replace(game_start("l2", "alpha", "bob", game="gomoku"), **levels))
    await store.finish_game("l2", "1-0", "line", 1.0, rate_result)
    exact = GameStart("x", "gomoku", {"exact": True}, ("bob", "alpha"), {"initial_ms": 600_000}, True, 2.0)
    await store.start_game(exact)
    await store.finish_game("x", "1-0", "line", 3.0, rate_result)
    assert exact.pool == "gomoku[exact=true]/rapid"
    assert (await store.get_rating("alpha", GOMOKU, 2)).wins == 1  # level 2 moved …
    assert (await store.get_rating("alpha", GOMOKU, 4)) == fresh("alpha", GOMOKU, 4)  # … level 4 did not
    assert (await store.get_rating("alpha", GOMOKU)) == fresh("alpha", GOMOKU)  # nor its own level
    assert [r.label for r in await store.leaderboard(GOMOKU)] == ["alpha@2", "bob"]
    assert await store.crosstable(GOMOKU) == {"alpha@2": {"bob": [1, 0, 0]}, "bob": {"alpha@2": [0, 0, 1]}}
    assert [r.label for r in await store.leaderboard(exact.pool)] == ["bob", "alpha"]
    assert await store.rating_pools("gomoku") == [GOMOKU, exact.pool]
    assert await store.rating_pools("tictactoe") == []


async def test_rebuilding_the_ratings_replays_the_same_numbers(store: Store) -> None:
    await players(store, "alice", "bob", "carol")
    await play(store, "1", X_WINS, "1-0", "line", first="alice", second="bob")
    await play(store, "2", X_WINS, "1/2-1/2", "board_full", first="bob", second="carol")
    await play(store, "3", X_WINS, "0-1", "line", first="carol", second="alice", rated=False)
    before = await store.leaderboard(TTT)
    assert await store.rebuild_ratings(rate_result) == 2
    assert await store.leaderboard(TTT) == before


async def test_an_end_stays_unread_for_each_registered_player_until_its_client_read_it(store: Store) -> None:
    await players(store, "alice", "bob")
    changes = await play(store, "m1", X_WINS, "1-0", "line")
    for name in ("alice", "bob"):
        (unread,) = await store.unread_ends(name, 0.0, 10)
        assert (unread.start.match_id, unread.result, unread.reason, len(unread.moves)) == ("m1", "1-0", "line", 5)
        assert unread.rating_changes == pytest.approx(changes)
    await store.ends_read([("alice", "m1"), ("alice", "nope"), ("nobody", "m1")])
    assert await store.unread_ends("alice", 0.0, 10) == []
    assert [r.start.match_id for r in await store.unread_ends("bob", 0.0, 10)] == ["m1"]
    assert await store.finish_game("m1", "1-0", "line", 1_700_000_060.0) == pytest.approx(changes)  # a retry
    assert await store.unread_ends("alice", 0.0, 10) == []  # not marked unread again
    await store.ends_read([("bob", "m1")])
    assert await store.unread_ends("bob", 0.0, 10) == []


async def test_the_unread_ends_are_the_last_few_since_a_time_oldest_first(store: Store) -> None:
    await players(store, "alice", "bob")
    for i in range(4):  # ended at 1_700_000_060 + 100 i
        await play(store, f"m{i}", X_WINS, "1-0", "line", started=1_700_000_000.0 + 100 * i, rated=False)
    assert [r.start.match_id for r in await store.unread_ends("alice", 0.0, 10)] == ["m0", "m1", "m2", "m3"]
    assert [r.start.match_id for r in await store.unread_ends("alice", 0.0, 2)] == ["m2", "m3"]
    assert [r.start.match_id for r in await store.unread_ends("bob", 1_700_000_160.0, 10)] == ["m1", "m2", "m3"]


async def test_a_guest_is_owed_no_stored_end_and_a_discarded_game_owes_none(store: Store) -> None:
    await players(store, "alice")
    await play(store, "g1", X_WINS, "0-1", "line", second="guest-0a1b2c", rated=False)
    assert [r.start.match_id for r in await store.unread_ends("alice", 0.0, 10)] == ["g1"]
    assert await store.unread_ends("guest-0a1b2c", 0.0, 10) == []
    await play(store, "g2", X_WINS[:1], None, "abort", second="guest-0a1b2c", rated=False)
    await store.discard_game("g2")
    assert [r.start.match_id for r in await store.unread_ends("alice", 0.0, 10)] == ["g1"]


async def test_a_takeback_cuts_the_line_in_queue_order_and_keeps_what_it_took_back(store: Store) -> None:
    """All in one batch: the moves before the takeback, the takeback, the moves played again after it."""
    await players(store, "alice", "bob")
    await store.start_game(game_start("m1", rated=False))
    for ply, move in enumerate([[0, 0], [1, 1], [2, 2]]):
        store.record_move("m1", MoveRecord(ply, move, 100 + ply))
    taken = [AsideMove("taken_back", 1, 1, [1, 1], 101), AsideMove("taken_back", 2, 0, [2, 2], 102)]
    store.record_asides("m1", taken, keep=1)
    store.record_move("m1", MoveRecord(1, [0, 1], 200))
    store.record_asides("m1", [AsideMove("hint", 2, 0, [0, 2])])
    await store.finish_game("m1", "1-0", "resign", 1_700_000_060.0)
    record = await store.get_game("m1")
    assert record is not None
    assert [(m.ply, m.move, m.elapsed_ms) for m in record.moves] == [(0, [0, 0], 100), (1, [0, 1], 200)]
    assert record.asides == [*taken, AsideMove("hint", 2, 0, [0, 2])]
    await store.discard_game("m1")
    assert await store.get_game("m1") is None


async def test_tournaments_keep_their_field_pairings_and_results(store: Store) -> None:
    await players(store, "alice", "bob", "carol")
    spec = {"format": "round_robin", "game": "tictactoe", "clock": {"initial_ms": 1000, "increment_ms": 0}}
    made = await store.add_tournament("Spring-1", spec)
    assert (made.name, made.spec, made.state) == ("Spring-1", spec, "open")
    with pytest.raises(TournamentExists):
        await store.add_tournament("spring-1", {})
    with pytest.raises(BadName):
        await store.add_tournament("no spaces", {})
    assert (await store.get_tournament("SPRING-1")) == made and await store.get_tournament("autumn") is None
    assert [t.name for t in await store.list_tournaments()] == ["Spring-1"]
    for name in ("carol", "Alice", "bob"):
        await store.enter_tournament("spring-1", name)
    with pytest.raises(AlreadyEntered):
        await store.enter_tournament("Spring-1", "ALICE")
    with pytest.raises(UnknownPlayer):
        await store.enter_tournament("Spring-1", "dave")
    with pytest.raises(UnknownTournament):
        await store.enter_tournament("autumn", "alice")
    entries = await store.tournament_entries("Spring-1")
    assert [(e.name, e.seed, e.withdrawn) for e in entries] == [("carol", None, False), ("alice", None, False),
                                                                  ("bob", None, False)]  # fmt: skip

    games = [
        TournamentGame(1, 1, "alice", "bob", 3),
        TournamentGame(1, 2, "carol", None),
        TournamentGame(2, 1, "bob", "carol", 0),
    ]
    await store.add_tournament_games("Spring-1", games, seeds={"alice": 1, "bob": 2, "carol": 3}, state="running")
    assert (await store.get_tournament("Spring-1")).state == "running"  # type: ignore[union-attr]
    assert {e.name: e.seed for e in await store.tournament_entries("Spring-1")} == {"alice": 1, "bob": 2, "carol": 3}
    assert await store.tournament_games("Spring-1") == games
    with pytest.raises(TournamentError):  # a round's board is paired once
        await store.add_tournament_games("Spring-1", [TournamentGame(1, 2, "alice", "carol")])
    assert await store.tournament_games("Spring-1") == games

    played = replace(games[0], match_id="m1", score=0.0, cause="crash")
    await store.update_tournament_game("Spring-1", played)
    await store.update_tournament_game("Spring-1", replace(games[1], score=1.0, forfeit="bye"))
    with pytest.raises(TournamentError):
        await store.update_tournament_game("Spring-1", TournamentGame(9, 1, "alice", "bob"))
    assert await store.tournament_games("Spring-1") == [played, replace(games[1], score=1.0, forfeit="bye"), games[2]]

    await store.withdraw_from_tournament("Spring-1", "carol")
    with pytest.raises(NotEntered):
        await store.withdraw_from_tournament("Spring-1", "carol")
    with pytest.raises(NotEntered):
        await store.withdraw_from_tournament("Spring-1", "dave")
    assert [e.withdrawn for e in await store.tournament_entries("Spring-1")] == [True, False, False]
    await store.set_tournament_state("Spring-1", "finished")
    assert (await store.get_tournament("Spring-1")).state == "finished"  # type: ignore[union-attr]
    with pytest.raises(UnknownTournament):
        await store.set_tournament_state("autumn", "paused")


async def test_a_review_is_kept_replaced_and_deleted_with_its_game(store: Store) -> None:
    await players(store, "alice", "bob")
    await play(store, "m1", X_WINS, "1-0", "line", rated=False)
    assert await store.get_review("m1") is None
    review = {"match": "m1", "positions": [{"win": [0.5, 0.5], "best": [1, 1]}], "summary": [], "text": "ü 五\t"}
    await store.save_review("m1", review)
    assert await store.get_review("m1") == review
    await store.save_review("m1", {**review, "budget_ms": 300})  # a new review replaces the old
    assert await store.get_review("m1") == {**review, "budget_ms": 300}
    await store.discard_game("m1")
    assert await store.get_review("m1") is None
