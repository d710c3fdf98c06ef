"""finish_game: result + ratings + stats + history in one transaction; leaderboards; queries."""

from __future__ import annotations

from dataclasses import replace

import pytest

from league import glicko2
from storage import (
    OVERALL,
    ConflictError,
    ImportedGame,
    InvalidInputError,
    MatchResult,
    NewMove,
    PlayerStats,
    Storage,
)
from storage.models import FinishedGame, ResultKind
from tests.storage.conftest import GUILD, new_game

_channels = iter(range(10_000, 1_000_000))


async def play(
    db: Storage,
    x: int,
    o: int,
    winner: int | None,
    kind: ResultKind = "single",
    points: int = 1,
    *,
    variant: str = "classic",
    now: float = 1000.0,
    guild: int = GUILD,
) -> FinishedGame:
    game = await new_game(
        db, channel=next(_channels), x=x, o=o, variant=variant, now=now - 1, guild=guild
    )
    return await db.finish_game(game.id, 0, "{}", MatchResult(winner, kind, points), now=now)


async def test_finish_game_records_result_ratings_stats_and_history(db: Storage) -> None:
    game = await new_game(db, x=1, o=2, variant="pin")
    game = await db.commit_action(game.id, 0, '{"n": 1}', [NewMove(1, "play", "a")], now=1001.0)
    done = await db.finish_game(
        game.id,
        1,
        '{"final": true}',
        MatchResult(2, "backgammon", 42),
        now=1100.0,
        moves=[NewMove(2, "play", "6/off")],
    )

    g = done.game
    assert (g.status, g.winner_id, g.result_kind, g.points) == ("finished", 2, "backgammon", 42)
    assert (g.score_x, g.score_o, g.finished_at, g.version) == (0, 42, 1100.0, 2)
    assert g.state_json == '{"final": true}'
    assert [m.text for m in await db.game_moves(g.id)] == ["a", "6/off"]
    assert await db.get_active_game(g.channel_id) is None

    # Expected ratings: one Glicko-2 game from the defaults, computed by league.glicko2.
    loser, winner = glicko2.rate_game(glicko2.Rating(), glicko2.Rating(), glicko2.LOSS)
    for variant in ("pin", OVERALL):
        change_w = done.change_for(2, variant)
        change_l = done.change_for(1, variant)
        assert change_w is not None and change_l is not None
        assert change_w.before == change_l.before == glicko2.Rating()
        assert (change_w.after, change_l.after) == (winner, loser)
        assert change_w.delta > 0 > change_l.delta

        w = await db.get_player_stats(GUILD, 2, None if variant == OVERALL else variant)
        assert w == PlayerStats(
            GUILD,
            variant,
            2,
            winner.rating,
            winner.rd,
            winner.volatility,
            games=1,
            wins=1,
            points_won=42,
            backgammons_won=1,
            current_streak=1,
            best_streak=1,
            last_played_at=1100.0,
        )
        loser_stats = await db.get_player_stats(GUILD, 1, None if variant == OVERALL else variant)
        assert loser_stats is not None
        assert (loser_stats.losses, loser_stats.points_lost, loser_stats.current_streak) == (
            1,
            42,
            -1,
        )
        history = await db.rating_history(GUILD, 2, None if variant == OVERALL else variant)
        assert [(p.game_id, p.rating, p.rd, p.at) for p in history] == [
            (g.id, winner.rating, winner.rd, 1100.0)
        ]
    assert [s.variant for s in await db.player_stats(GUILD, 2)] == [OVERALL, "pin"]
    assert len(done.rating_changes) == 4


async def test_finish_game_is_atomic(db: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    game = await new_game(db)

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    # Fail after the game row and both rating rows were written, before the history.
    monkeypatch.setattr(type(db), "_insert_history", broken)
    with pytest.raises(RuntimeError):
        await db.finish_game(game.id, 0, "{}", MatchResult(1, "gammon", 2), now=1100.0)
    monkeypatch.undo()

    assert await db.get_game(game.id) == game  # still active, same version
    assert await db.player_stats(GUILD, 1) == []
    assert await db.rating_history(GUILD, 1) == []
    assert await db.leaderboard_count(GUILD) == 0

    done = await db.finish_game(game.id, 0, "{}", MatchResult(1, "gammon", 2), now=1100.0)
    assert done.game.status == "finished"
    assert len(await db.rating_history(GUILD, 1)) == 1


async def test_the_engine_result_is_refused(db: Storage) -> None:
    """storage's result names the winner by user id; the engine's, by seat. Passing the
    engine's by mistake is refused, not misread; storage has no type of that name."""
    import storage
    from engine.game import GameResult as EngineResult

    assert not hasattr(storage, "GameResult")
    game = await new_game(db, x=1, o=2)
    with pytest.raises(InvalidInputError, match="MatchResult"):
        await db.finish_game(game.id, 0, "{}", EngineResult(0, 1, "single"), now=1100.0)  # type: ignore[arg-type]
    done = await db.finish_game(game.id, 0, "{}", MatchResult(2, "single", 1), now=1100.0)
    assert done.game.winner_id == 2


async def test_finish_game_conflicts_and_bad_results_write_nothing(db: Storage) -> None:
    game = await new_game(db, x=1, o=2)
    bad_results = [
        MatchResult(3, "single", 1),  # not a player
        MatchResult(None, "single", 1),  # a win needs a winner
        MatchResult(1, "tie", 0),  # a tie has no winner
        MatchResult(None, "draw", 2),  # draws score 0
        MatchResult(1, "single", -1),
        MatchResult(1, "landslide", 1),  # type: ignore[arg-type]
        MatchResult(1, "single", 1, score_x=1, score_o=None),
    ]
    for result in bad_results:
        with pytest.raises(InvalidInputError):
            await db.finish_game(game.id, 0, "{}", result, now=1100.0)
    with pytest.raises(ConflictError):
        await db.finish_game(game.id, 1, "{}", MatchResult(1, "single", 1), now=1100.0)
    assert await db.get_game(game.id) == game
    assert await db.player_stats(GUILD, 1) == []

    await db.finish_game(game.id, 0, "{}", MatchResult(1, "single", 1), now=1100.0)
    with pytest.raises(ConflictError):  # finishing twice
        await db.finish_game(game.id, 1, "{}", MatchResult(1, "single", 1), now=1200.0)
    stats = await db.get_player_stats(GUILD, 1)
    assert stats is not None and stats.games == 1


async def test_tie_is_rated_as_a_draw(db: Storage) -> None:
    await play(db, 1, 2, 1, now=1000.0)  # overall, 1 is now rated above 2
    done = await play(db, 1, 2, None, "tie", 0, variant="pin-mother", now=2000.0)
    assert (done.game.winner_id, done.game.points, done.game.score_x) == (None, 0, 0)

    s1 = await db.get_player_stats(GUILD, 1, "pin-mother")
    s2 = await db.get_player_stats(GUILD, 2, "pin-mother")
    assert s1 is not None and s2 is not None
    # Equal players in that variant: a draw leaves their ratings where they were.
    assert s1.rating == s2.rating == glicko2.DEFAULT_RATING
    assert (s1.games, s1.draws, s1.wins, s1.losses, s1.current_streak) == (1, 1, 0, 0, 0)

    # Overall, 1 was ahead: each scored 0.5 against the other's pre-game rating.
    c1, c2 = done.change_for(1, OVERALL), done.change_for(2, OVERALL)
    assert c1 is not None and c2 is not None
    assert c1.before.rating > c2.before.rating
    assert (c1.after, c2.after) == glicko2.rate_game(c1.before, c2.before, glicko2.DRAW)
    assert c1.delta < 0 < c2.delta
    o1 = await db.get_player_stats(GUILD, 1)
    assert o1 is not None
    assert (o1.games, o1.wins, o1.draws, o1.current_streak, o1.best_streak) == (2, 1, 1, 0, 1)


@pytest.mark.parametrize("kind", ["resign", "timeout", "pass", "mother", "gammon", "single"])
async def test_decisive_kinds_are_wins(db: Storage, kind: ResultKind) -> None:
    done = await play(db, 1, 2, 2, kind, 2, variant="pin-mother")
    change = done.change_for(2, "pin-mother")
    assert change is not None and change.delta > 0
    stats = await db.get_player_stats(GUILD, 2, "pin-mother")
    assert stats is not None
    assert (stats.wins, stats.points_won) == (1, 2)
    assert (stats.gammons_won, stats.backgammons_won, stats.mother_wins) == (
        kind == "gammon",
        0,
        kind == "mother",
    )


async def test_streaks_and_match_scores(db: Storage) -> None:
    for i, winner in enumerate([1, 1, 1, 2, 1, 1]):
        await play(db, 1, 2, winner, now=1000.0 + i)
    s1 = await db.get_player_stats(GUILD, 1)
    s2 = await db.get_player_stats(GUILD, 2)
    assert s1 is not None and s2 is not None
    assert (s1.current_streak, s1.best_streak, s1.wins, s1.losses) == (2, 3, 5, 1)
    assert (s2.current_streak, s2.best_streak) == (-2, 1)

    # A match to 5: the final scores, not the last game's points, go to the totals.
    game = await new_game(db, channel=next(_channels), x=3, o=4)
    await db.finish_game(
        game.id, 0, "{}", MatchResult(4, "gammon", 2, score_x=3, score_o=5), now=2000.0
    )
    s3, s4 = await db.get_player_stats(GUILD, 3), await db.get_player_stats(GUILD, 4)
    assert s3 is not None and s4 is not None
    assert (s3.points_won, s3.points_lost, s4.points_won, s4.points_lost) == (3, 5, 5, 3)
    assert s4.gammons_won == 1


async def test_rating_history_order_and_limit(db: Storage) -> None:
    for i in range(5):
        await play(db, 1, 2, 1 if i % 2 else 2, variant="dutch", now=1000.0 + 10 * i)
    history = await db.rating_history(GUILD, 1, "dutch")
    assert [p.at for p in history] == [1000.0, 1010.0, 1020.0, 1030.0, 1040.0]
    current = await db.get_player_stats(GUILD, 1, "dutch")
    assert current is not None and history[-1].rating == current.rating
    assert [p.at for p in await db.rating_history(GUILD, 1, "dutch", limit=2)] == [1030.0, 1040.0]
    assert len(await db.rating_history(GUILD, 1)) == 5  # overall
    assert await db.rating_history(GUILD, 1, "classic") == []
    assert await db.rating_history(GUILD + 1, 1, "dutch") == []


async def test_leaderboard_order_ties_and_pagination(db: Storage) -> None:
    # Players whose ratings are exactly equal: a draw between two fresh players keeps both at
    # exactly 1500 (E = 0.5, so the update is 0). 40/30 draw twice, 20/10 once.
    await play(db, 40, 30, None, "draw", 0, now=1.0)
    await play(db, 30, 40, None, "draw", 0, now=2.0)
    await play(db, 20, 10, None, "draw", 0, now=3.0)
    await play(db, 7, 8, 7, now=4.0)  # 7 above 1500, 8 below
    board = await db.leaderboard(GUILD, limit=100)
    assert [(r.rank, r.user_id, r.games) for r in board] == [
        (1, 7, 1),
        (2, 30, 2),  # same rating: more games first, then lower user id
        (2, 40, 2),
        (2, 10, 1),
        (2, 20, 1),
        (6, 8, 1),
    ]
    assert all(r.provisional for r in board)
    assert await db.leaderboard_count(GUILD) == 6

    # Pages join up to the full board, ranks included (a page may start inside a tie).
    pages = [await db.leaderboard(GUILD, limit=2, offset=o) for o in range(0, 8, 2)]
    assert [r for page in pages for r in page] == board
    assert pages[1][0].rank == 2
    assert pages[3] == []
    assert await db.leaderboard(GUILD, limit=0) == []

    # Per variant and per guild.
    assert await db.leaderboard(GUILD, "classic", limit=100) == board
    assert await db.leaderboard(GUILD, "pin") == []
    assert await db.leaderboard_count(GUILD + 1) == 0


async def test_leaderboard_established_players_only(db: Storage) -> None:
    # Playing many games brings a player's RD under 110 (lichess's provisional threshold);
    # player 1 plays every game, 2 and 3 half of them each.
    stats: PlayerStats | None = None
    for i in range(100):
        await play(db, 1, 2 + i % 2, 1 if i % 3 else 2 + i % 2, now=1000.0 + i)
        stats = await db.get_player_stats(GUILD, 1)
        assert stats is not None
        if not stats.provisional:
            break
    assert stats is not None and stats.rd <= glicko2.PROVISIONAL_RD
    await play(db, 50, 51, 50, now=2000.0)
    full = await db.leaderboard(GUILD, limit=100)
    assert {50, 51, 1} <= {r.user_id for r in full}
    established = await db.leaderboard(GUILD, limit=100, include_provisional=False)
    assert [r.user_id for r in established] == [r.user_id for r in full if not r.provisional]
    assert 1 in [r.user_id for r in established]
    assert [r.rank for r in established] == list(range(1, len(established) + 1))
    assert not any(r.provisional for r in established)
    count = await db.leaderboard_count(GUILD, include_provisional=False)
    assert count == len(established) < len(full)


async def test_recent_games(db: Storage) -> None:
    await play(db, 1, 2, 1, now=100.0)
    await play(db, 3, 1, 1, now=300.0)
    await play(db, 3, 4, 4, now=200.0)
    await play(db, 1, 2, 2, now=400.0, guild=GUILD + 1)
    active = await new_game(db, channel=next(_channels), x=1, o=5)
    everyone = await db.recent_games(GUILD)
    assert [g.finished_at for g in everyone] == [300.0, 200.0, 100.0]
    mine = await db.recent_games(GUILD, 1)
    assert [g.finished_at for g in mine] == [300.0, 100.0]
    assert all(g.has_player(1) for g in mine)
    assert active.id not in [g.id for g in mine]
    assert [g.finished_at for g in await db.recent_games(GUILD, 1, limit=1)] == [300.0]
    assert await db.recent_games(GUILD, 99) == []


async def test_bulk_import_matches_finish_game(db: Storage) -> None:
    results: list[tuple[int, int, MatchResult, str]] = [
        (1, 2, MatchResult(1, "gammon", 2), "classic"),
        (2, 3, MatchResult(None, "tie", 0), "pin-mother"),
        (3, 1, MatchResult(3, "mother", 2), "pin-mother"),
        (1, 2, MatchResult(2, "resign", 1), "classic"),
        (2, 1, MatchResult(2, "single", 1, score_x=5, score_o=4), "dutch"),
    ]
    for i, (x, o, result, variant) in enumerate(results):
        game = await new_game(db, channel=next(_channels), x=x, o=o, variant=variant)
        await db.finish_game(game.id, 0, "{}", result, now=1000.0 + i)

    other_guild = GUILD + 7
    count = await db.bulk_import_finished_games(
        ImportedGame(other_guild, 5, variant, x, o, result, 999.0, 1000.0 + i)
        for i, (x, o, result, variant) in enumerate(results)
    )
    assert count == len(results)

    for user in (1, 2, 3):
        live = await db.player_stats(GUILD, user)
        imported = await db.player_stats(other_guild, user)
        assert [replace(s, guild_id=0) for s in live] == [replace(s, guild_id=0) for s in imported]
        for board in (None, "classic", "pin-mother", "dutch"):
            live_h = await db.rating_history(GUILD, user, board)
            imported_h = await db.rating_history(other_guild, user, board)
            assert [(p.rating, p.rd, p.at) for p in live_h] == [
                (p.rating, p.rd, p.at) for p in imported_h
            ]
    assert await db.leaderboard_count(other_guild) == 3
    assert len(await db.recent_games(other_guild)) == len(results)
    # Imported games got fresh ids after the existing ones.
    ids = [g.id for g in await db.recent_games(other_guild, limit=100)]
    assert len(set(ids)) == len(ids) and min(ids) > len(results)

    with pytest.raises(InvalidInputError):
        await db.bulk_import_finished_games(
            [ImportedGame(other_guild, 5, "classic", 1, 2, MatchResult(9, "single", 1), 1.0, 2.0)]
        )
    assert await db.leaderboard_count(other_guild) == 3  # rolled back as a whole


async def test_provisional_flag_accepts_any_truthy_value(db: Storage) -> None:
    # PostgreSQL has a real boolean: an int must not reach it as the flag.
    await play(db, 1, 2, 1)
    assert await db.leaderboard_count(GUILD, include_provisional=0) == 0  # type: ignore[arg-type]
    assert len(await db.leaderboard(GUILD, include_provisional=1)) == 2  # type: ignore[arg-type]
