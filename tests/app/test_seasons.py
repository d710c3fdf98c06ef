"""Seasons: calendar-aligned months (or longer seasons that restart each January), parsing of
`current`, `previous` and `YYYY-MM`, and a season page over real finished games."""

from __future__ import annotations

import datetime as dt

import pytest

from app.seasons import BadSeason, Seasons, parse_season, season_containing
from storage import OVERALL, MatchResult, Storage
from tests.app.conftest import ALICE, BOB, GUILD, FakeClock, new_game


def at(year: int, month: int, day: int = 1) -> float:
    return dt.datetime(year, month, day, 12, tzinfo=dt.UTC).timestamp()


def test_seasons_are_calendar_aligned() -> None:
    november = season_containing(at(2026, 11, 27), 1)
    assert november.label == "November 2026" and november.key == "2026-11"
    assert november.start == dt.datetime(2026, 11, 1, tzinfo=dt.UTC).timestamp()
    assert november.end == dt.datetime(2026, 12, 1, tzinfo=dt.UTC).timestamp()
    assert november.before().label == "October 2026"
    quarter = season_containing(at(2026, 11, 27), 3)
    assert (quarter.label, quarter.key) == ("Oct – Dec 2026", "2026-10")
    assert quarter.before().before().before().label == "Jan – Mar 2026"
    assert quarter.before().before().before().before().label == "Oct – Dec 2025"
    five = season_containing(at(2026, 12, 5), 5)
    assert (five.label, five.months) == ("Nov – Dec 2026", 2)  # each year restarts in January
    assert five.before().label == "Jun – Oct 2026"


def test_parse_season() -> None:
    now = at(2026, 11, 27)
    assert parse_season("current", now, 1).key == "2026-11"
    assert parse_season("previous", now, 1).key == "2026-10"
    assert parse_season("2025-02", now, 3).key == "2025-01"
    for bad in ("2026-13", "soon", "2027-01", "1969-12"):
        with pytest.raises(BadSeason):
            parse_season(bad, now, 1)


async def test_a_season_page_ranks_the_games_of_its_dates(db: Storage, clock: FakeClock) -> None:
    clock.now = at(2026, 11, 20)
    seasons = Seasons(db, clock)
    for when, winner in ((at(2026, 10, 5), ALICE), (at(2026, 11, 5), BOB)):
        game = await new_game(db, channel=int(when), now=when)
        score = (1, 0) if winner == ALICE else (0, 1)
        await db.finish_game(
            game.id, 0, "{}", MatchResult(winner, "single", 1, *score), now=when + 60
        )
    current = await seasons.page(GUILD, OVERALL, "current")
    assert current.season.label == "November 2026"
    assert [(r.user_id, r.wins, r.losses) for r in current.rows] == [(BOB, 1, 0), (ALICE, 0, 1)]
    previous = await seasons.page(GUILD, "classic", "previous")
    assert [(r.user_id, r.wins) for r in previous.rows] == [(ALICE, 1), (BOB, 0)]
    offered = await seasons.offered(GUILD, "")
    assert offered[0] == ("November 2026 (current)", "2026-11") and len(offered) == 12
    await db.set_guild_settings(GUILD, season_months=12)
    year = await seasons.page(GUILD, OVERALL, "current")
    assert year.season.label == "Jan – Dec 2026" and year.total == 2
