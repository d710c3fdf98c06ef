"""Season leaderboards on both backends: results counted within the season's dates only, the
rating continuous (the change over the season starts from the rating before it)."""

from __future__ import annotations

from storage import Storage
from tests.storage.conftest import GUILD
from tests.storage.test_ratings import play

OCTOBER = 1_000_000.0
NOVEMBER = 2_000_000.0
DECEMBER = 3_000_000.0


async def test_a_season_counts_its_own_games_and_continues_the_ratings(db: Storage) -> None:
    before = await play(db, 1, 2, 1, now=OCTOBER + 10)  # last season: not counted
    await play(db, 1, 2, 2, now=NOVEMBER + 10)
    await play(db, 2, 3, 2, now=NOVEMBER + 20, points=2, kind="gammon")
    last = await play(db, 1, 3, None, kind="tie", points=0, now=NOVEMBER + 30)
    await play(db, 3, 1, 3, now=DECEMBER)  # next season: not counted
    rows = await db.season_results(GUILD, "classic", NOVEMBER, DECEMBER)
    by_user = {r.user_id: r for r in rows}
    assert {u: (r.wins, r.losses, r.draws, r.games) for u, r in by_user.items()} == {
        2: (2, 0, 0, 2),
        1: (0, 1, 1, 2),
        3: (0, 1, 1, 2),
    }
    # Ranked by score, then by the rating gained over the season (1 and 3 both scored 0.5).
    assert [r.rank for r in rows] == [1, 2, 3] and rows[0].user_id == 2
    assert rows[1].change > rows[2].change
    assert rows[0].points_won == 1 + 2
    one = by_user[1]
    start = before.change_for(1, "classic")
    end = last.change_for(1, "classic")
    assert start is not None and end is not None
    # Continuous: player 1's season starts at the rating October left them with.
    assert one.rating == end.after.rating
    assert abs(one.change - (end.after.rating - start.after.rating)) < 1e-9
    # Player 3 never played before the season: they start from the default rating.
    three = by_user[3]
    assert abs(three.change - (three.rating - 1500.0)) < 1e-9
    assert await db.season_results(GUILD, "classic", DECEMBER + 1, DECEMBER + 2) == []
    overall = await db.season_results(GUILD, None, NOVEMBER, DECEMBER)
    assert overall[0].user_id == 2 and len(overall) == 3
