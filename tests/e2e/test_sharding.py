"""End to end at scale: two bot processes (shards 0 and 1 of 2) sharing one PostgreSQL database,
against the fake Discord serving a guild on each shard."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.table import GameTable
from discord_ui.client import IDENTIFY_SPACING
from storage import Storage
from storage.postgres import PostgresDatabase
from tests.fake_discord import BotNotConnectedError, FakeDiscord
from tests.fake_discord.models import FakeChannel, FakeMessage
from tests.postgres_server import Cluster

from .harness import GAME_COMMANDS, TIMEOUT, ShardProcess, Table
from .test_league import embed_of, ranks

SHARDS = 2


@pytest.fixture
async def url(pg_cluster: Cluster) -> str:
    return await pg_cluster.new_database()


@pytest.fixture
async def db(url: str) -> AsyncIterator[Storage]:
    database = await PostgresDatabase.open(url)
    try:
        yield database
    finally:
        await database.close()


def reminders(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    return [m for m in fake.messages_in(channel) if "it is your turn" in (m.text() or "")]


async def resign(fake: FakeDiscord, table: Table) -> None:
    game = await table.game()
    assert game is not None
    loser = table.users[game.player_o]
    winner = table.users[game.player_x]
    await table.act(loser, "resign")
    if await table.game() is not None:  # classic: an offer the winner accepts
        await table.press(winner, "rsyes")
    assert table.last_board is not None and "Game over" in table.last_board.text()
    assert await table.game() is None


async def play_some(table: Table, decisions: int) -> None:
    for i in range(decisions):
        if await table.game() is None:
            return
        await table.step(use_buttons=i % 2 == 0)


async def test_two_shard_processes_share_one_postgresql(
    fake: FakeDiscord, db: Storage, url: str, tmp_path: Path
) -> None:
    guilds = [
        fake.add_guild(f"Shard {i} Guild", shard=(i, SHARDS), channel_names=("general", "lobby"))
        for i in range(SHARDS)
    ]
    channels = [next(iter(g.text_channels())) for g in guilds]
    lobby = next(c for c in guilds[1].text_channels() if c.name == "lobby")
    players = [
        (fake.add_user(f"p{i}a", guilds=[g]), fake.add_user(f"p{i}b", guilds=[g]))
        for i, g in enumerate(guilds)
    ]

    # A game in shard 1's guild, idle for 30 hours: due for a reminder (24 h), not a claim.
    idler, waiter = (
        fake.add_user("idler", guilds=[guilds[1]]),
        fake.add_user("w", guilds=[guilds[1]]),
    )
    old = time.time() - 30 * 3600
    setup = GameTable(db, random.Random(5), clock=lambda: old)
    challenge = await db.create_challenge(
        guilds[1].id, lobby.id, idler.id, waiter.id, "classic", now=old
    )
    await setup.start(challenge, ("idler", "w"))

    processes = [
        ShardProcess(fake, url, (shard,), SHARDS, tmp_path, seed=11 + shard)
        for shard in range(SHARDS)
    ]
    try:
        # Both start together: migrations once, identifies one slot apart (max_concurrency 1).
        markers = [p.launch() for p in processes]
        await asyncio.gather(*(p.ready(m) for p, m in zip(processes, markers, strict=True)))
        shard_times = {shard: t for t, shard in fake.identify_log}
        gap = abs(shard_times[(0, SHARDS)] - shard_times[(1, SHARDS)])
        # Taking turns: the second waited for its slot. (The slot is 5.5 s after the first's
        # reservation; a loaded machine may delay the first IDENTIFY's arrival by a little.)
        assert gap >= IDENTIFY_SPACING - 1.5, f"identifies only {gap:.2f} s apart"
        synced = {name for cmd in fake.commands(None) for name in [cmd["name"]]}
        assert set(GAME_COMMANDS) <= synced
        assert fake.sync_count == 1, "only shard 0's process syncs the commands"
        assert "not syncing commands" in processes[1].log()

        # The reminder: posted once by shard 1's process, not by shard 0's, despite both
        # sweeping at start.
        await fake.wait_for_channel_message(
            lobby, lambda m: "it is your turn" in (m.text() or ""), TIMEOUT
        )
        await asyncio.sleep(2.0)
        assert len(reminders(fake, lobby)) == 1

        tables = [Table(fake, db, channels[i], players[i][0], players[i][1]) for i in range(SHARDS)]
        for table in tables:
            await table.challenge("classic")
        for _ in range(3):
            for table in tables:
                await play_some(table, 4)

        # kill -9 the process running shard 1: shard 0's game is untouched and plays on.
        before = await tables[0].game()
        processes[1].kill()
        assert await tables[0].game() == before
        with pytest.raises(BotNotConnectedError):
            await fake.slash(players[1][0], channels[1], "board")
        await play_some(tables[0], 6)
        await resign(fake, tables[0])

        # Restarted, shard 1's process resumes its own game where it was.
        marker = processes[1].launch()
        await processes[1].ready(marker)
        resumed = await tables[1].game()
        assert resumed is not None
        await play_some(tables[1], 6)
        assert (await tables[1].game()).version > resumed.version  # type: ignore[union-attr]
        await resign(fake, tables[1])
        await asyncio.sleep(1.0)
        assert len(reminders(fake, lobby)) == 1, "the restart did not remind again"

        # Each guild's leaderboard holds its own players, rated once per game.
        for i, guild in enumerate(guilds):
            rows = await db.leaderboard(guild.id)
            assert sorted(r.user_id for r in rows) == sorted(u.id for u in players[i])
            assert [r.games for r in rows] == [1, 1]
            # ... and so does the board the bot shows there (answered by that shard's process).
            handle = await fake.slash(players[i][0], channels[i], "leaderboard")
            shown = ranks(embed_of(await handle.wait_initial(TIMEOUT))["description"])
            assert sorted(r[1] for r in shown) == sorted(u.id for u in players[i])
    finally:
        for process in processes:
            process.stop()
