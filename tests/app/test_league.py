"""app.league without Discord: claims on time (who may claim, and when), leaderboard pages,
records and the reminder sweep, on a real SQLite file with a fake clock."""

from __future__ import annotations

import pytest

from app.league import (
    OVERALL,
    PAGE_SIZE,
    ClaimOnOwnTurn,
    ClaimTooEarly,
    Leaderboard,
    LeaderboardNotHere,
    League,
    NoGameToClaim,
    NoSuchGame,
    NotAPlayer,
    NotExportable,
    Notice,
    Reminders,
)
from app.table import GameTable
from storage import GuildSettings, ImportedGame, MatchResult, Storage

from .conftest import ALICE, CHANNEL, GUILD, START, FakeClock, new_game

CLAIM_AFTER = GuildSettings(GUILD).claim_after_seconds
REMIND_AFTER = GuildSettings(GUILD).reminder_after_seconds


async def idle_and_waiting(db: Storage, table: GameTable) -> tuple[int, int]:
    game = await db.get_active_game(CHANNEL)
    assert game is not None
    mover = table.state_of(game).mover
    return GameTable.user_of(game, mover), GameTable.user_of(game, 1 - mover)


# --- claims -----------------------------------------------------------------------------------


async def test_claim_refused_too_early_then_allowed_at_the_claim_time(
    db: Storage, table: GameTable, clock: FakeClock
) -> None:
    league = League(db, table, clock)
    await new_game(db)
    idle, waiting = await idle_and_waiting(db, table)
    clock.advance(CLAIM_AFTER - 90)
    with pytest.raises(ClaimTooEarly) as refused:
        await league.claim(GUILD, CHANNEL, waiting)
    assert refused.value.left == 90
    assert str(refused.value).endswith("You can claim in 2 min.")
    assert str(refused.value).startswith("Too early to claim: ")
    assert (await db.get_active_game(CHANNEL)) is not None  # nothing changed

    clock.advance(90)
    claim = await league.claim(GUILD, CHANNEL, waiting)
    assert claim.idle_user == idle
    assert claim.idle_seconds == CLAIM_AFTER
    assert claim.outcome.state.is_over
    assert await db.get_active_game(CHANNEL) is None
    finished = await db.get_game(claim.outcome.game.id)
    assert finished is not None
    assert finished.status == "finished" and finished.winner_id == waiting


async def test_claim_follows_the_servers_claim_time(
    db: Storage, table: GameTable, clock: FakeClock
) -> None:
    await db.set_guild_settings(GUILD, reminder_after_seconds=1800, claim_after_seconds=3600)
    await new_game(db)
    _, waiting = await idle_and_waiting(db, table)
    clock.advance(3600)
    claim = await League(db, table, clock).claim(GUILD, CHANNEL, waiting)
    assert claim.idle_seconds == 3600


async def test_who_may_claim(db: Storage, table: GameTable, clock: FakeClock) -> None:
    league = League(db, table, clock)
    with pytest.raises(NoGameToClaim):
        await league.claim(GUILD, CHANNEL, ALICE)
    await new_game(db)
    idle, _ = await idle_and_waiting(db, table)
    clock.advance(CLAIM_AFTER * 2)
    with pytest.raises(NotAPlayer, match=r"Only the players of this game can claim it\."):
        await league.claim(GUILD, CHANNEL, 4242)
    with pytest.raises(ClaimOnOwnTurn, match="it is your turn"):
        await league.claim(GUILD, CHANNEL, idle)
    assert await db.get_active_game(CHANNEL) is not None


# --- leaderboard ------------------------------------------------------------------------------


async def import_chain(db: Storage, players: list[int]) -> None:
    """Player k beats player k+1 three times: every rating differs."""
    games = []
    for round_ in range(3):
        for k in range(len(players) - 1):
            at = START - 100 * 86400 + (round_ * 100 + k) * 3600
            result = MatchResult(players[k], "single", 1)
            games.append(
                ImportedGame(GUILD, 1, "blocking", players[k], players[k + 1], result, at, at + 60)
            )
    assert await db.bulk_import_finished_games(games) == len(games)


async def test_leaderboard_pages(db: Storage) -> None:
    players = [9000 + k for k in range(23)]
    await import_chain(db, players)
    boards = Leaderboard(db)
    first = await boards.page(GUILD, OVERALL, 0)
    assert (first.page, first.pages, first.total) == (0, 3, 23)
    assert [row.rank for row in first.rows] == list(range(1, PAGE_SIZE + 1))
    assert first.rows[0].user_id == players[0]  # the chain's top beats everybody below
    last = await boards.page(GUILD, OVERALL, 2)
    assert [row.rank for row in last.rows] == [21, 22, 23]
    assert last.rows[-1].user_id == players[-1]
    # Past either end: the nearest page.
    assert (await boards.page(GUILD, OVERALL, 99)).page == 2
    assert (await boards.page(GUILD, OVERALL, -5)).page == 0
    # Per variant: blocking has them all, classic nobody.
    assert (await boards.page(GUILD, "blocking", 1)).rows[0].rank == 11
    empty = await boards.page(GUILD, "classic", 0)
    assert (empty.total, empty.pages, empty.rows, empty.variant) == (0, 1, [], "classic")
    # Buttons only turn pages of their own server and known boards.
    assert (await boards.turn_page(GUILD, GUILD, "blocking", 1)).page == 1
    with pytest.raises(LeaderboardNotHere):
        await boards.turn_page(GUILD + 1, GUILD, OVERALL, 1)
    with pytest.raises(LeaderboardNotHere):
        await boards.turn_page(GUILD, GUILD, "chess", 0)


# --- records ----------------------------------------------------------------------------------


async def test_record_requests(db: Storage, table: GameTable, clock: FakeClock) -> None:
    league = League(db, table, clock)
    game = await new_game(db, variant="pin")
    with pytest.raises(NoSuchGame, match=f"There is no game #{game.id + 1} on this server."):
        await league.record_request(GUILD, game.id + 1, mat=False)
    with pytest.raises(NoSuchGame):
        await league.record_request(GUILD + 1, game.id, mat=False)
    with pytest.raises(NotExportable, match=f"game #{game.id} is The Pin Game\\. "):
        await league.record_request(GUILD, game.id, mat=True)
    made = await league.record(await league.record_request(GUILD, game.id, mat=False))
    assert made.filename == f"game-{game.id}.txt" and made.names == ("alice", "bob")
    text = made.body.decode("utf-8")
    assert text.startswith(f"game: {game.id}\nvariant: pin (The Pin Game)\n")
    assert text.endswith("final: in progress\n")


# --- reminders --------------------------------------------------------------------------------


async def due(reminders: Reminders) -> list[Notice]:
    """The notices due, each then recorded as posted (as the bot's sweep does)."""
    notices = [notice async for notice in reminders.due()]
    for notice in notices:
        assert await reminders.sent(notice)
    return notices


async def test_one_reminder_then_one_claim_notice_per_idle_period(
    db: Storage, table: GameTable, clock: FakeClock
) -> None:
    reminders = Reminders(db, table, clock)
    await new_game(db)
    idle, waiting = await idle_and_waiting(db, table)
    assert await due(reminders) == []
    clock.advance(REMIND_AFTER + 60)
    [reminder] = await due(reminders)
    assert not reminder.claim
    assert (reminder.idle_user, reminder.waiting_user) == (idle, waiting)
    assert reminder.idle_seconds == REMIND_AFTER + 60
    assert reminder.claim_after_seconds == CLAIM_AFTER
    assert await due(reminders) == []  # told once
    clock.advance(CLAIM_AFTER)
    [notice] = await due(reminders)
    assert notice.claim and notice.waiting_user == waiting
    assert await due(reminders) == []


def test_the_rating_charts_alt_text_gives_its_key_facts() -> None:
    from app.league import ALT_LIMIT, rating_chart_alt

    day = 86400.0
    t0 = 1_700_000_000.0  # 14 Nov 2023
    series = {
        "Overall": [(t0, 1500.0), (t0 + day, 1480.4), (t0 + 30 * day, 1562.0)],
        "Backgammon": [(t0, 1500.0)],
        "Pin": [],
    }
    alt = rating_chart_alt("alice", series)
    assert alt.startswith("Line chart of alice's rating (y axis) by date (x axis, UTC).")
    assert "Overall: 1500 to 1562 over the last 3 games (14 Nov 2023 to 14 Dec 2023)" in alt
    assert "lowest 1480, highest 1562" in alt
    assert "Backgammon: 1500 to 1500 over the last 1 game " in alt and "Pin" not in alt
    assert "No rated games yet." in rating_chart_alt("bob", {})
    long = {f"variant {i} " * 10: [(t0, 1500.0)] for i in range(30)}
    assert len(rating_chart_alt("x", long)) <= ALT_LIMIT
