"""End to end: tournaments run by several bot processes on one PostgreSQL database (shards 0 and
1 of 2 in two processes; two processes briefly running the same shard, as in a rolling restart),
and a bot killed with SIGKILL at each tournament kill point and restarted. Every event is a
4-player knockout started by its clock and played to the end (the loser of each match
concedes); the fake Discord ignores message nonces throughout, so a post made twice stays
twice. Counted: each round paired once, its announcement, each match's message (and thread)
and the final standings posted exactly once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.faults import ENV
from storage import Database, Storage
from storage.postgres import PostgresDatabase
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeChannel, FakeGuild, FakeUser
from tests.postgres_server import Cluster

from .harness import TIMEOUT, BotProcess, ShardProcess

pytestmark = pytest.mark.slow

SHARDS = 2
PLAYERS = 4
#: A 4-player knockout: two matches, then the final.
TABLES_PER_ROUND = {1: 2, 2: 1}
#: A variant with one resignation level: /resign concedes at once (nobody has to accept).
VARIANT = "blocking"


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


@dataclass
class Event:
    id: int
    name: str
    channel: FakeChannel
    players: dict[int, FakeUser]


async def open_event(
    fake: FakeDiscord, db: Storage, guild: FakeGuild, channel: FakeChannel, name: str
) -> Event:
    """A knockout whose start time has come, its players signed up (the sweep starts it)."""
    players = [fake.add_user(f"{name}-{i}", guilds=[guild]) for i in range(PLAYERS)]
    now = time.time()
    created = await db.create_tournament(
        guild.id,
        channel.id,
        players[0].id,
        name=name,
        format="knockout",
        variant=VARIANT,
        now=now,
        starts_at=now,
    )
    for player in players:
        assert await db.join_tournament(created.id, player.id, now=now) == "joined"
    return Event(created.id, name, channel, {p.id: p for p in players})


async def concede(
    fake: FakeDiscord, db: Storage, game_id: int, thread_id: int, loser: FakeUser
) -> None:
    """The loser resigns the match (the game ends at once); returns once it has ended."""
    thread = fake.channel(thread_id)
    assert thread is not None and thread.is_thread
    asked = await fake.slash(loser, thread, "resign")
    question = await asked.wait_original(timeout=TIMEOUT)
    confirm = next(c for c in question.custom_ids() if c.startswith("bg:cf:resign:"))
    click = await fake.click(loser, question, confirm)
    await click.wait_initial(TIMEOUT)
    end = time.monotonic() + TIMEOUT
    while time.monotonic() < end:
        game = await db.get_game(game_id)
        if game is not None and game.status != "active":
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game_id} did not end")


async def concede_ready_matches(fake: FakeDiscord, db: Storage, event: Event) -> int:
    """Concede every match whose game is on and first board shown (the first-listed player
    wins); how many."""
    done = 0
    for p in await db.tournament_pairings(event.id):
        if p.state != "playing" or p.game_id is None or not p.posted or p.thread_id is None:
            continue
        game = await db.get_game(p.game_id)
        if game is None or game.status != "active" or game.board_message_id is None:
            continue
        assert p.second_id is not None
        await concede(fake, db, p.game_id, p.thread_id, event.players[p.second_id])
        done += 1
    return done


async def event_over(db: Storage, event: Event) -> bool:
    """Finished, and its final standings recorded as announced."""
    owed = {t.id for t in await db.unannounced_tournaments()}
    t = await db.get_tournament(event.id)
    return t is not None and t.state == "finished" and event.id not in owed


async def play_out(
    fake: FakeDiscord,
    db: Storage,
    events: list[Event],
    *,
    timeout: float = 180.0,
    on_idle: Callable[[], object] | None = None,
) -> None:
    """Concede matches as they come until every event is over. ``on_idle`` runs each pass
    (a restart of a killed process)."""
    end = time.monotonic() + timeout
    while True:
        if on_idle is not None:
            waited = on_idle()
            if asyncio.iscoroutine(waited):
                await waited
        pending = [e for e in events if not await event_over(db, e)]
        if not pending:
            return
        if time.monotonic() > end:
            states = [(e.name, await db.get_tournament(e.id)) for e in pending]
            raise AssertionError(f"events not over in time: {states}")
        for event in pending:
            try:
                await concede_ready_matches(fake, db, event)
            except Exception:
                if on_idle is None:
                    raise
                # The bot was killed under the concession: the next pass restarts it.
        await asyncio.sleep(0.2)


async def problems_of(fake: FakeDiscord, db: Storage, event: Event) -> list[str]:
    """What the event's channel shows wrong (empty: everything exactly once)."""
    problems: list[str] = []
    bot_messages = [m for m in fake.messages_in(event.channel) if m.author.bot and not m.ephemeral]
    pairings = await db.tournament_pairings(event.id)
    for number, tables in TABLES_PER_ROUND.items():
        paired = [p for p in pairings if p.round == number]
        if len(paired) != tables:
            problems.append(f"round {number}: {len(paired)} tables paired, not {tables}")
        heads = [
            m
            for m in bot_messages
            if m.text().split("\n")[0] == f"**{event.name}**, round {number} of 2:"
        ]
        if len(heads) != 1:
            problems.append(f"round {number}: announced {len(heads)} times")
    for p in pairings:
        shown = [
            m
            for m in bot_messages
            if f"<@{p.first_id}> vs <@{p.second_id}>. Your match" in m.text()
        ]
        if len(shown) != 1:
            problems.append(f"match {p.id}: its message posted {len(shown)} times")
        elif p.thread_id != shown[0].id:
            problems.append(f"match {p.id}: played in {p.thread_id}, not its message's thread")
        if p.state != "finished":
            problems.append(f"match {p.id}: {p.state}")
    final = [m for m in bot_messages if m.text().startswith(f"**{event.name}**: final standings")]
    if len(final) != 1:
        problems.append(f"final standings posted {len(final)} times")
    threads = [c for c in fake.guild_of(event.channel).threads() if c.parent_id == event.channel.id]
    mine = {p.thread_id for p in pairings}
    if len([c for c in threads if c.id in mine]) != len(pairings):
        problems.append("a match without its own thread")
    return problems


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
    "tournament_paired:1",
    "tournament_paired:2",
    "tournament_paired:3",
    "tournament_announced:1",
    "tournament_announced:2",
    "tournament_match_posted:1",
    "tournament_match_posted:3",
]


@pytest.mark.parametrize("kill", KILLS)
async def test_a_kill_at_a_tournament_point_loses_and_repeats_nothing(
    fake: FakeDiscord, tmp_path: Path, kill: str
) -> None:
    """Killed at the point, restarted long after any nonce would help (the fake ignores them):
    nothing is lost, nothing is posted or paired twice."""
    fake.enforce_nonces = False
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=9, extra_env={ENV: kill})
    db = await Database.open(db_path)
    killed = False
    try:
        event = await open_event(fake, db, fake.guild, fake.general, "Crash cup")
        await process.start()

        async def restart_if_killed() -> None:
            nonlocal killed
            assert process.proc is not None
            if process.proc.poll() is not None and not killed:
                killed = True
                process.extra_env = {}
                await process.start()

        await play_out(fake, db, [event], timeout=240.0, on_idle=restart_if_killed)
        await asyncio.sleep(2.0)
        assert killed, f"the bot never reached {kill}"
        assert await problems_of(fake, db, event) == []
    finally:
        process.stop()
        await db.close()
