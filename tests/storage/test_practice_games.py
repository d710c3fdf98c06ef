"""Games of no server (the bot's DM, the app installed to a player's account): kept apart from
every server's games, never rated, counted as the player's practice record; both backends."""

from __future__ import annotations

import pytest

from storage import NO_GUILD, InvalidInputError, MatchResult, Storage

from .conftest import CHANNEL, GUILD

BOT = 999
DM = 7001
ELSEWHERE = 7002  # a channel of a server without the bot


async def finish(db: Storage, game_id: int, winner: int | None) -> None:
    game = await db.get_game(game_id)
    assert game is not None
    await db.finish_game(game_id, game.version, "{}", MatchResult(winner, "single", 1), now=2000.0)


async def test_practice_games_are_kept_apart_from_the_servers(db: Storage) -> None:
    dm = await db.create_game(
        NO_GUILD, DM, "pin", 1, BOT, "{}", now=1000.0, ai_level="expert", rated=False, context="dm"
    )
    user = await db.create_game(
        NO_GUILD,
        ELSEWHERE,
        "blocking-express",
        1,
        BOT,
        "{}",
        now=1000.0,
        ai_level="casual",
        rated=False,
        context="user",
    )
    server = await db.create_game(
        GUILD, CHANNEL, "pin", 1, BOT, "{}", now=1000.0, ai_level="expert", rated=False
    )
    assert (dm.context, user.context, server.context) == ("dm", "user", "guild")
    assert await db.get_game(dm.id) == dm and await db.get_game(user.id) == user
    assert dm.channel_reachable and not user.channel_reachable and server.channel_reachable
    assert not dm.in_server and not user.in_server and server.in_server
    assert (await db.get_active_game(ELSEWHERE)) == user
    assert [g.id for g in await db.list_active_games(GUILD)] == [server.id]
    for game, winner in ((dm, 1), (user, BOT), (server, 1)):
        await finish(db, game.id, winner)
    # The server sees only its own game; the practice record only the games of no server.
    assert [g.id for g in await db.recent_games(GUILD)] == [server.id]
    assert [g.id for g in await db.recent_games(GUILD, 1)] == [server.id]
    assert {(r.level, r.games, r.wins) for r in await db.computer_record(GUILD, 1)} == {
        ("expert", 1, 1)
    }
    practice = {r.level: r for r in await db.practice_record(1)}
    assert set(practice) == {"expert", "casual"}
    assert (practice["expert"].wins, practice["casual"].losses) == (1, 1)
    assert await db.practice_record(2) == []
    assert await db.player_stats(GUILD, 1) == [] and await db.leaderboard_count(GUILD) == 0


async def test_owed_boards_of_practice_games_survive_like_the_others(db: Storage) -> None:
    game = await db.create_game(
        NO_GUILD,
        ELSEWHERE,
        "pin",
        1,
        BOT,
        "{}",
        now=1000.0,
        ai_level="expert",
        rated=False,
        context="user",
        owe_board=True,
    )
    owed = await db.list_owed_boards()
    assert [(g.id, g.context, g.board_owed_version) for g in owed] == [(game.id, "user", 0)]


@pytest.mark.parametrize(
    ("guild", "rated", "context"),
    [(GUILD, False, "dm"), (NO_GUILD, True, "user"), (NO_GUILD, False, "server")],
)
async def test_a_practice_game_has_no_guild_and_no_rating(
    db: Storage, guild: int, rated: bool, context: str
) -> None:
    with pytest.raises(InvalidInputError):
        await db.create_game(
            guild,
            DM,
            "pin",
            1,
            BOT,
            "{}",
            now=1000.0,
            ai_level="expert",
            rated=rated,
            context=context,  # type: ignore[arg-type]
        )
    assert await db.get_active_game(DM) is None
