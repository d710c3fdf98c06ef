"""End to end: tournaments run by several bot processes on one PostgreSQL database (shards 0 and
1 of 2 in two processes; two processes briefly running the same shard, as in a rolling restart),
and a bot killed with SIGKILL at each tournament kill point and restarted. Every event is a
4-player knockout started by its clock and played to the end (see tournament_crash.py); the
fake Discord ignores message nonces throughout, so a post made twice stays twice. Counted: each
round paired once, its announcement, each match's message (and thread) and the final standings
posted exactly once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.faults import KILL_POINTS
from storage import Storage
from storage.postgres import PostgresDatabase
from tests.fake_discord import FakeDiscord
from tests.postgres_server import Cluster

from .harness import ShardProcess
from .tournament_crash import open_event, play_out, problems_of, tournament_try

pytestmark = pytest.mark.slow

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


async def test_two_shard_processes_each_run_their_own_servers_events(
    fake: FakeDiscord, db: Storage, url: str, tmp_path: Path
) -> None:
    fake.enforce_nonces = False
    guilds = [fake.add_guild(f"Shard {i}", shard=(i, SHARDS)) for i in range(SHARDS)]
    events = []
    for i, guild in enumerate(guilds):
        channel = next(iter(guild.text_channels()))
        events.append(await open_event(fake, db, guild, channel, f"Cup {i}a"))
        events.append(await open_event(fake, db, guild, channel, f"Cup {i}b"))
    processes = [
        ShardProcess(fake, url, (shard,), SHARDS, tmp_path, seed=21 + shard)
        for shard in range(SHARDS)
    ]
    try:
        markers = [p.launch() for p in processes]
        await asyncio.gather(*(p.ready(m) for p, m in zip(processes, markers, strict=True)))
        await play_out(fake, db, events)
        await asyncio.sleep(2.0)  # a second post would be out by now
        for event in events:
            assert await problems_of(fake, db, event) == [], event.name
        # Each event was started and moved on by its own shard's process alone.
        logs = [p.log() for p in processes]
        for i, event in enumerate(events):
            owner = i // 2
            assert f"tournament {event.id} started" in logs[owner]
            assert f"tournament {event.id}: round 2 paired" in logs[owner]
            assert f"tournament {event.id} finished" in logs[owner]
            assert f"tournament {event.id} " not in logs[1 - owner]
            assert f"tournament {event.id}:" not in logs[1 - owner]
    finally:
        for process in processes:
            process.stop()


async def test_two_processes_on_one_shard_pair_and_post_each_once(
    fake: FakeDiscord, db: Storage, url: str, tmp_path: Path
) -> None:
    """A rolling restart: the old and the new process both run shard 0 and both sweep the same
    events from their start; a slow Discord makes their posts overlap."""
    fake.enforce_nonces = False
    guild = fake.add_guild("Rolling", shard=(0, SHARDS), channel_names=("events", "more"))
    events = []
    for channel in guild.text_channels():
        for suffix in ("x", "y"):
            events.append(await open_event(fake, db, guild, channel, f"{channel.name} {suffix}"))
    fake.add_latency("POST", r"/channels/\d+/messages$", 0.25)
    processes = []
    for name in ("old", "new"):
        workdir = tmp_path / name
        workdir.mkdir()
        processes.append(ShardProcess(fake, url, (0,), SHARDS, workdir, seed=7))
    try:
        markers = [p.launch() for p in processes]
        await asyncio.gather(*(p.ready(m) for p, m in zip(processes, markers, strict=True)))
        await play_out(fake, db, events)
        await asyncio.sleep(2.0)
        for event in events:
            assert await problems_of(fake, db, event) == [], event.name
        logs = "".join(p.log() for p in processes)
        for event in events:
            assert logs.count(f"tournament {event.id} started") == 1
            assert logs.count(f"tournament {event.id}: round 2 paired") == 1
            assert logs.count(f"tournament {event.id} finished") == 1
    finally:
        for process in processes:
            process.stop()


#: Kill points and which time each is reached (see app/faults.py): the start, round 2 and the
#: end paired; round 1's and round 2's announcements out; the first and the final match's
#: message out.
KILLS = [
    ("tournament_paired", 1),
    ("tournament_paired", 2),
    ("tournament_paired", 3),
    ("tournament_announced", 1),
    ("tournament_announced", 2),
    ("tournament_match_posted", 1),
    ("tournament_match_posted", 3),
]


@pytest.mark.parametrize(("point", "nth"), KILLS)
async def test_a_kill_at_a_tournament_point_loses_and_repeats_nothing(
    tmp_path: Path, point: str, nth: int
) -> None:
    """Killed at the point, restarted as if long after (no nonce helps): nothing is lost,
    nothing is posted or paired twice."""
    assert point in KILL_POINTS
    outcome = await tournament_try(point, nth, tmp_path)
    assert outcome.killed, f"the bot never reached {point} #{nth}"
    assert outcome.problems == []
