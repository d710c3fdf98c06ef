"""Leaderboard seasons: a server's results ranked within a season's dates (a calendar month by
default, ``/settings season_months``), while the ratings themselves stay continuous. Any past
season can be asked for."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from app.errors import Refusal
from storage import OVERALL, SeasonRow, Storage

__all__ = ["Season", "SeasonPage", "Seasons", "season_containing"]

#: Rows a season leaderboard shows.
SEASON_ROWS = 20
#: Seasons offered by the autocomplete (the current one and those before it).
OFFERED = 12
MONTHS = tuple(dt.date(2000, month, 1).strftime("%B") for month in range(1, 13))


class BadSeason(Refusal):
    def __init__(self, text: str) -> None:
        shown = text if len(text) <= 40 else text[:40] + "..."
        super().__init__(
            f"`{shown}` is not a season: give `current`, `previous` or a month as `YYYY-MM` "
            "(the season that contains it)."
        )


@dataclass(frozen=True)
class Season:
    #: Months since year 0 of the season's first month.
    first_month: int
    #: How long it is (the last season of a year may be shorter than ``length``).
    months: int
    #: The server's season length.
    length: int = 0

    @property
    def start(self) -> float:
        return _month_start(self.first_month)

    @property
    def end(self) -> float:
        return _month_start(self.first_month + self.months)

    @property
    def label(self) -> str:
        year, month = divmod(self.first_month, 12)
        if self.months == 1:
            return f"{MONTHS[month]} {year}"
        last_year, last = divmod(self.first_month + self.months - 1, 12)
        tail = f"{MONTHS[last][:3]} {last_year}"
        head = f"{MONTHS[month][:3]}" + (f" {year}" if year != last_year else "")
        return f"{head} – {tail}"

    @property
    def key(self) -> str:
        year, month = divmod(self.first_month, 12)
        return f"{year:04d}-{month + 1:02d}"

    def before(self) -> Season:
        return season_containing(_month_start(self.first_month - 1), self.length)


def _month_start(month_index: int) -> float:
    year, month = divmod(month_index, 12)
    return dt.datetime(year, month + 1, 1, tzinfo=dt.UTC).timestamp()


def season_containing(when: float, months: int) -> Season:
    """The season (calendar-aligned, of ``months`` months, counted from January) at ``when``."""
    day = dt.datetime.fromtimestamp(when, dt.UTC)
    index = day.year * 12 + day.month - 1
    # Seasons start in January every year (a season of 5 months: Jan-May, Jun-Oct, Nov-Dec).
    year, month = divmod(index, 12)
    first = month - month % months
    return Season(year * 12 + first, min(months, 12 - first), months)


def parse_season(text: str, now: float, months: int) -> Season:
    current = season_containing(now, months)
    asked = text.strip().lower()
    if asked in ("", "current", "this"):
        return current
    if asked in ("previous", "last"):
        return current.before()
    found = re.fullmatch(r"([0-9]{4})-([0-9]{1,2})", asked)
    if found is None or not 1 <= int(found[2]) <= 12 or int(found[1]) < 1970:
        raise BadSeason(text)
    when = dt.datetime(int(found[1]), int(found[2]), 1, tzinfo=dt.UTC).timestamp()
    if when >= current.end:
        raise BadSeason(text)
    return season_containing(when, months)


@dataclass(frozen=True)
class SeasonPage:
    season: Season
    #: A variant id or OVERALL.
    board: str
    rows: list[SeasonRow]
    #: Players with results in the season (the page shows the first SEASON_ROWS).
    total: int


class Seasons:
    def __init__(self, db: Storage, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock

    async def page(self, guild_id: int, board: str, asked: str) -> SeasonPage:
        months = (await self.db.get_guild_settings(guild_id)).season_months
        season = parse_season(asked, self.clock(), months)
        rows = await self.db.season_results(
            guild_id, None if board == OVERALL else board, season.start, season.end
        )
        return SeasonPage(season, board, rows[:SEASON_ROWS], len(rows))

    async def offered(self, guild_id: int, typed: str) -> list[tuple[str, str]]:
        """(label, value) of the current season and the ones before it."""
        months = (await self.db.get_guild_settings(guild_id)).season_months
        season = season_containing(self.clock(), months)
        found: list[tuple[str, str]] = []
        for _ in range(OFFERED):
            label = season.label + (" (current)" if not found else "")
            if typed.lower() in label.lower() or typed in season.key:
                found.append((label, season.key))
            season = season.before()
        return found
