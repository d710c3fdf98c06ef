"""Where a command was used (app/venues.py), and the use cases outside a server with the bot:
only the computer plays there, the game belongs to no server, and its record is its player's."""

from __future__ import annotations

import pytest

from app.challenges import Challenges
from app.league import League
from app.records import GameRecords, NoSuchGame
from app.table import GameTable, Outcome
from app.venues import NO_GUILD, NeedsServer, guild_scope, venue
from storage import MatchResult, Storage

from .conftest import ALICE, BOB, CHANNEL, GUILD, FakeClock

BOT = 999


@pytest.mark.parametrize(
    ("guild_id", "guild_installed", "bot_dm", "expected"),
    [
        (GUILD, True, False, "guild"),  # a server with the bot
        (None, False, True, "dm"),  # the bot's direct messages
        (GUILD, False, False, "user"),  # a server without the bot, the app on the user
        (None, False, False, "user"),  # a group DM or another DM
    ],
)
def test_venue(guild_id: int | None, guild_installed: bool, bot_dm: bool, expected: str) -> None:
    where = venue(guild_id=guild_id, guild_installed=guild_installed, bot_dm=bot_dm)
    assert where == expected
    assert guild_scope(guild_id, where) == (GUILD if expected == "guild" else NO_GUILD)


def test_needs_server_says_what_works_instead() -> None:
    dm = str(NeedsServer("/leaderboard", "dm"))
    assert dm.startswith("/leaderboard needs this bot in a server, so it does not work in direct")
    assert "/challenge without an opponent" in dm
    assert "bot is not in this server" in str(NeedsServer("/settings", "user"))


async def noop(outcome: Outcome) -> None:
    return None


@pytest.mark.parametrize("where", ["dm", "user"])
async def test_outside_a_server_only_the_computer_plays(
    challenges: Challenges, db: Storage, where: str
) -> None:
    with pytest.raises(NeedsServer, match="A game against another person"):
        await challenges.open(
            guild_id=GUILD,
            channel_id=CHANNEL,
            challenger_id=ALICE,
            opponent_id=BOB,
            variant="pin",
            where=where,  # type: ignore[arg-type]
        )
    assert await db.get_open_challenge(CHANNEL) is None
    opened = await challenges.open(
        guild_id=GUILD,  # the server of a user install is not the game's
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOT,
        variant="pin",
        computer=True,
        level="casual",
        where=where,  # type: ignore[arg-type]
    )
    assert opened.challenge.guild_id == NO_GUILD
    outcome = await challenges.start_against_computer(
        opened.challenge,
        ("alice", "Computer"),
        "casual",
        noop,
        where=where,  # type: ignore[arg-type]
    )
    game = outcome.game
    assert (game.guild_id, game.context, game.rated, game.hints) == (NO_GUILD, where, False, True)


async def test_practice_records_are_their_players_only(
    challenges: Challenges, table: GameTable, db: Storage, clock: FakeClock
) -> None:
    opened = await challenges.open(
        guild_id=0,
        channel_id=CHANNEL,
        challenger_id=ALICE,
        opponent_id=BOT,
        variant="pin",
        computer=True,
        where="dm",
    )
    game = (
        await challenges.start_against_computer(
            opened.challenge, ("alice", "Computer"), "casual", noop, where="dm"
        )
    ).game
    await db.finish_game(
        game.id, game.version, game.state_json, MatchResult(BOT, "resign", 1), now=clock()
    )
    records = GameRecords(db)
    assert (await records.on_server(NO_GUILD, game.id, user_id=ALICE)).id == game.id
    for guild, user in ((NO_GUILD, BOB), (NO_GUILD, None), (GUILD, ALICE)):
        with pytest.raises(NoSuchGame):
            await records.on_server(guild, game.id, user_id=user)
    league = League(db, table, clock)
    mine = await league.statistics(GUILD, ALICE, asked_by=ALICE)
    assert [(r.level, r.losses) for r in mine.practice] == [("casual", 1)]
    assert mine.rows == [] and mine.computer == []
    assert (await league.statistics(GUILD, ALICE, asked_by=BOB)).practice == []
    assert [
        r.games for r in (await league.statistics(NO_GUILD, ALICE, asked_by=ALICE)).practice
    ] == [1]
