"""A rolling restart: two bot processes briefly running the same shard on one PostgreSQL
database, both paying the boards the database says are owed. Each board is shown once."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.table import GameTable
from storage import Storage
from storage.postgres import PostgresDatabase
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeChannel
from tests.postgres_server import Cluster

from .harness import ShardProcess

pytestmark = pytest.mark.slow

SHARDS = 2
OWED = 60


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


def live_boards(fake: FakeDiscord, channel: FakeChannel) -> list[int]:
    """The bot's board messages in ``channel`` (a picture attached)."""
    return [
        m.id
        for m in fake.messages_in(channel)
        if m.author.bot and not m.ephemeral and any(a.is_png for a in m.attachments)
    ]


async def test_two_processes_on_one_shard_show_each_owed_board_once(
    fake: FakeDiscord, db: Storage, url: str, tmp_path: Path
) -> None:
    guild = fake.add_guild("Rolling", shard=(0, SHARDS))
    channels = [fake.add_channel(f"table-{i}", guild=guild) for i in range(OWED)]
    players = [fake.add_user(f"p{i}", guilds=[guild]) for i in range(2)]
    # Games whose first board is owed (a process stopped between the start and the post).
    setup = GameTable(db, random.Random(3))
    for channel in channels:
        challenge = await db.create_challenge(
            guild.id, channel.id, players[0].id, players[1].id, "classic", now=time.time()
        )
        await setup.start(challenge, ("p0", "p1"))
    assert len(await db.list_owed_boards()) == OWED

    # A slow Discord: paying the debts takes longer than the identify spacing, so the second
    # process starts paying while the first still is (the race of a rolling restart).
    fake.add_latency("POST", r"/channels/\d+/messages$", 0.25)
    processes = []
    for name in ("old", "new"):
        workdir = tmp_path / name
        workdir.mkdir()
        processes.append(ShardProcess(fake, url, (0,), SHARDS, workdir, seed=7))
    try:
        markers = [p.launch() for p in processes]
        await asyncio.gather(*(p.ready(m) for p, m in zip(processes, markers, strict=True)))
        end = time.monotonic() + 120
        while await db.list_owed_boards() and time.monotonic() < end:
            await asyncio.sleep(0.2)
        assert await db.list_owed_boards() == [], "boards still owed"
        await asyncio.sleep(2.0)  # a slower process's posts would land now
        counts = [len(live_boards(fake, channel)) for channel in channels]
        doubled = sum(n > 1 for n in counts)
        missing = sum(n == 0 for n in counts)
        logs = [p.log() for p in processes]
        assert all("board(s) owed since before the restart" in log for log in logs), (
            "both processes paid some of the debts"
        )
        assert (doubled, missing) == (0, 0), (
            f"{doubled} shown twice, {missing} never ({fake.nonce_hits} nonce hits): {counts}"
        )
        # Each game's stored board is the one in its channel.
        for channel, game in zip(
            channels,
            sorted(await db.list_active_games(guild.id), key=lambda g: g.channel_id),
            strict=True,
        ):
            assert game.channel_id == channel.id
            assert live_boards(fake, channel) == [game.board_message_id]
    finally:
        for process in processes:
            process.stop()
