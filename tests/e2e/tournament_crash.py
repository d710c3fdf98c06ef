"""Tournaments driven to their end through the fake Discord, and one crash try: the bot killed
with SIGKILL at a tournament kill point (``app/faults.py``), restarted, and the event's channel
counted. Used by ``tests/e2e/test_tournament_shards.py`` and ``bench/kill_points.py`` (through
``crash_attacks.one_try``).

Every event is a 4-player knockout started by its clock (its start time has come when the bot
starts), each match conceded by its second player. What counts as a failure
(:func:`problems_of`): a round paired other than once, a round's announcement, a match's
message or the final standings posted other than once, a match played outside its message's
thread or not finished.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.faults import ENV
from storage import Database, Storage
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeChannel, FakeGuild, FakeUser

from .crash_points import Try
from .harness import ROOT, TIMEOUT, BotProcess

PLAYERS = 4
#: A 4-player knockout: two matches, then the final.
TABLES_PER_ROUND = {1: 2, 2: 1}
#: A variant with one resignation level: /resign concedes at once (nobody has to accept).
VARIANT = "blocking"
#: How many times an event reaches each tournament kill point: its start, round 2 and its
#: end; round 1's, round 2's and the end's announcement; its three matches' messages.
LAST_KILL = {"tournament_paired": 3, "tournament_announced": 3, "tournament_match_posted": 3}


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


async def tournament_try(point: str, nth: int, workdir: Path, root: Path = ROOT) -> Try:
    """Kill at the ``nth`` ``point`` of a 4-player knockout, restart, play it to its end and
    count. The fake Discord ignores nonces: the restart comes as if long after the kill."""
    outcome = Try(point, nth)
    async with FakeDiscord() as fake:
        fake.enforce_nonces = False
        db_path = workdir / "bot.sqlite3"
        db = await Database.open(db_path)
        process = BotProcess(fake, db_path, seed=9, extra_env={ENV: f"{point}:{nth}"}, root=root)
        try:
            event = await open_event(fake, db, fake.guild, fake.general, "Crash cup")
            await process.start()

            async def restart_if_killed() -> None:
                assert process.proc is not None
                if process.proc.poll() is not None and not outcome.killed:
                    outcome.killed = True
                    process.extra_env = {}
                    await process.start()

            try:
                await play_out(fake, db, [event], timeout=240.0, on_idle=restart_if_killed)
            except AssertionError as exc:
                outcome.problems.append(f"lost: {str(exc)[:200]}")
            await asyncio.sleep(2.0)  # a second post would be out by now
            outcome.problems.extend(await problems_of(fake, db, event))
        finally:
            process.stop()
            await db.close()
    return outcome
