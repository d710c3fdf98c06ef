"""app.records: the texts about stored games and the recent games offered for a game number."""

from __future__ import annotations

from app.records import GameRecords, duration, game_outcome_for, variant_name
from storage import OVERALL, ImportedGame, MatchResult, Storage

from .conftest import ALICE, BOB, GUILD, START


def test_durations() -> None:
    assert duration(0) == "1 min"
    assert duration(61) == "2 min"
    assert duration(3600) == "1 h"
    assert duration(3660) == "1 h 1 min"
    assert duration(86400) == "1 day"
    assert duration(3 * 86400 + 4 * 3600) == "3 days 4 h"


def test_variant_names() -> None:
    assert variant_name(OVERALL) == "Overall"
    assert variant_name("classic") == "Backgammon"
    assert variant_name("nonesuch") == "nonesuch"


async def test_recent_choices_filtered_by_the_number_typed(db: Storage) -> None:
    games = [
        ImportedGame(GUILD, 1, "classic", ALICE, BOB, MatchResult(ALICE, "gammon", 2), at, at + 9)
        for at in (START, START + 100)
    ]
    assert await db.bulk_import_finished_games(games) == 2
    records = GameRecords(db)
    choices = await records.recent_choices(GUILD, BOB, "")
    assert [c.label for c in choices] == [
        "#2 Backgammon vs Player 1001: Lost 2 pts (gammon)",
        "#1 Backgammon vs Player 1001: Lost 2 pts (gammon)",
    ]
    assert [c.game_id for c in await records.recent_choices(GUILD, ALICE, " #1")] == [1]
    assert await records.recent_choices(None, ALICE, "") == []
    found = await records.on_server(GUILD, 2)
    assert game_outcome_for(found, ALICE) == "Won 2 pts (gammon)"
