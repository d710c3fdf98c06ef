"""Crash tries of the messages that go with a board or a challenge rather than being one: the
turn notice (the ping of a player whose decision an edited board now waits for) and the
"Expired" line of a challenge nobody accepted. Same shape as ``crash_points.py``: the bot
process kills itself at a kill point, a new one starts on the same database, and the try
counts what the channel shows.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from app.faults import ENV
from app.table import GameTable
from engine.game import MOVE, ROLL, GameState
from storage import Database, Game
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeMessage, FakeUser

from .crash_points import Try, _alive, _bot_messages, _settled, check_shown, open_as
from .harness import ROOT, TIMEOUT, BotProcess, game_started_from

#: The board's text and the turn notice's when a player doubles (the cube goes to 2).
DOUBLES = "doubles to 2"
EXPIRED = "Expired: nobody accepted in time."


async def _until(db: Database, game_id: int, done: object, process: BotProcess) -> Game:
    """The game once ``done(game)`` holds (or as it is when the process died or time ran out)."""
    end = time.monotonic() + TIMEOUT
    while True:
        game = await db.get_game(game_id)
        assert game is not None
        if done(game) or not _alive(process) or time.monotonic() > end:  # type: ignore[operator]
            return game
        await asyncio.sleep(0.02)


def _notices(fake: FakeDiscord, game: Game) -> list[FakeMessage]:
    """The turn notices of the double in the game's channel (text messages, not boards)."""
    channel = fake.channel(game.channel_id)
    assert channel is not None
    return [
        m for m in _bot_messages(fake, channel) if DOUBLES in (m.text() or "") and not m.attachments
    ]


async def double_try(point: str, seed: int, workdir: Path, root: Path = ROOT) -> Try:
    """Two people (``/preferences pings: always``) play in a thread; the first mover plays,
    the other doubles: the board is edited in place and the taker gets a turn notice. Killed
    the first time the bot reaches ``point`` (``board_edited``: before the notice;
    ``turn_notice_posted``: after it), restarted: the notice is in the thread exactly once,
    the board shows the double."""
    outcome = Try(f"double:{point}", 1)
    async with FakeDiscord() as fake:
        db_path = workdir / "bot.sqlite3"
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        users: dict[int, FakeUser] = {alice.id: alice, bob.id: bob}
        process = BotProcess(fake, db_path, seed=seed, extra_env={ENV: f"{point}:1"}, root=root)
        await process.start()
        db = await open_as(db_path, root)
        try:
            for user in (alice, bob):
                await db.set_player_preferences(user.id, now=time.time(), pings="always")
            asked = await fake.slash(
                alice, fake.general, "challenge", opponent=bob, variant="classic"
            )
            await asked.wait_original(timeout=TIMEOUT)
            await (await fake.slash(bob, fake.general, "accept")).wait_initial(TIMEOUT)
            started = await game_started_from(db, fake.general)
            assert started is not None and started.board_message_id, "the game did not start"
            game = started
            state = GameState.from_json(game.state_json)
            assert state.phase == MOVE, "the opening roll is the first mover's"
            thread = fake.channel(game.channel_id)
            assert thread is not None
            mover = users[GameTable.user_of(game, state.mover)]
            play = min(state.legal_plays(), key=lambda p: p.text or "")
            await fake.slash(mover, thread, "move", play=play.text or "pass")
            before = game.version
            game = await _until(
                db, game.id, lambda g: g.version > before and g.board_owed_version is None, process
            )
            state = GameState.from_json(game.state_json)
            assert state.phase == ROLL and state.can_double(state.turn), "no double to offer"
            doubler = users[GameTable.user_of(game, state.turn)]
            await fake.slash(doubler, thread, "double")
            end = time.monotonic() + 10
            while _alive(process) and time.monotonic() < end and not _notices(fake, game):
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)  # the bookkeeping after the notice
            outcome.killed = not _alive(process)
            process.stop()
            process.extra_env = {}
            await process.start()
            settled = await _settled(db, game.id)
            await asyncio.sleep(1.0)
            process.stop()
            outcome.problems = check_shown(fake, settled, thread, fake.general)
            shown = len(_notices(fake, settled))
            if shown != 1:
                outcome.problems.append(f"notices: the turn notice shown {shown} times")
            board = fake.get_message(settled.board_message_id or 0)
            if board is None or DOUBLES not in board.text():
                outcome.problems.append("missing: the board does not show the double")
        finally:
            process.stop()
            await db.close()
    return outcome


def _challenge(db_path: Path) -> tuple[int, int | None, str] | None:
    """(id, message id, status) of the latest challenge, read without the storage code (which
    knows only its own schema: ``--rev`` runs an older bot)."""
    with sqlite3.connect(db_path) as raw:
        row = raw.execute(
            "SELECT id, message_id, status FROM challenges ORDER BY id DESC LIMIT 1"
        ).fetchone()
    return None if row is None else (int(row[0]), row[1], str(row[2]))


def _expire_now(db_path: Path, challenge_id: int) -> None:
    """Move the challenge's expiry into the past (the bot's own clock cannot be moved)."""
    with sqlite3.connect(db_path) as raw:
        raw.execute("UPDATE challenges SET expires_at = 1 WHERE id = ?", (challenge_id,))


async def expiry_try(point: str, seed: int, workdir: Path, root: Path = ROOT) -> Try:
    """A challenge posted, then past its time when a bot starts that kills itself at
    ``point`` (its first sweep expires it: ``challenge_closed`` right after that commit,
    ``challenge_retired`` right after the message was edited). After a restart the message
    says it expired exactly once and has no buttons left."""
    outcome = Try(f"expiry:{point}", 1)
    async with FakeDiscord() as fake:
        db_path = workdir / "bot.sqlite3"
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        process = BotProcess(fake, db_path, seed=seed, root=root)
        await process.start()
        try:
            handle = await fake.slash(
                alice, fake.general, "challenge", opponent=bob, variant="classic"
            )
            message = await handle.wait_original(timeout=TIMEOUT)
            end = time.monotonic() + TIMEOUT
            while ((row := _challenge(db_path)) is None or row[1] is None) and (
                time.monotonic() < end
            ):
                await asyncio.sleep(0.02)
            assert row is not None and row[1] == message.id, "challenge not stored"
            process.stop()
            _expire_now(db_path, row[0])
            process.extra_env = {ENV: f"{point}:1"}
            try:
                await process.start()
            except TimeoutError:
                # Its first sweep runs as it connects: it may die before it is ready.
                if _alive(process):
                    raise
            end = time.monotonic() + 10
            while _alive(process) and time.monotonic() < end:
                fresh = _challenge(db_path)
                if fresh is not None and fresh[2] == "expired" and EXPIRED in message.text():
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.5)
            outcome.killed = not _alive(process)
            process.stop()
            process.extra_env = {}
            await process.start()
            await asyncio.sleep(3.0)  # its first sweep
            process.stop()
            lines = message.text().count(EXPIRED)
            if lines != 1:
                outcome.problems.append(f"notices: 'expired' shown {lines} times")
            if message.custom_ids():
                left = message.custom_ids()
                outcome.problems.append(f"stale: the expired challenge keeps {left}")
            extra = [m for m in _bot_messages(fake, fake.general) if m.id != message.id]
            if extra:
                outcome.problems.append(f"twice: {len(extra)} other messages in the channel")
        finally:
            process.stop()
    return outcome


#: What a challenge's message ends with once answered (the answer's own words, or the sweep's
#: after a restart, which names the player by a mention).
ANSWERED = {"accept": "Accepted by ", "decline": "Challenge declined by "}


async def answer_try(answer: str, point: str, seed: int, workdir: Path, root: Path = ROOT) -> Try:
    """Bob accepts (or declines) alice's challenge with its button; the bot kills itself at
    ``point`` (``challenge_closed``: the answer committed, the message not yet edited;
    ``challenge_retired``: edited, not yet recorded). After a restart the challenge's message
    has no buttons and one line saying how it ended; an accepted game shows its board once."""
    outcome = Try(f"{answer}:{point}", 1)
    async with FakeDiscord() as fake:
        db_path = workdir / "bot.sqlite3"
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        process = BotProcess(fake, db_path, seed=seed, extra_env={ENV: f"{point}:1"}, root=root)
        await process.start()
        db = await open_as(db_path, root)
        try:
            asked = await fake.slash(
                alice, fake.general, "challenge", opponent=bob, variant="classic"
            )
            message = await asked.wait_original(timeout=TIMEOUT)
            button = next(c for c in message.custom_ids() if c.startswith(f"bg:{answer}:"))
            end = time.monotonic() + TIMEOUT
            while ((row := _challenge(db_path)) is None or row[1] is None) and (
                time.monotonic() < end
            ):
                await asyncio.sleep(0.02)  # clicked before its id is stored, the sweep waits
            await fake.click(bob, message, button)
            end = time.monotonic() + 10
            while _alive(process) and time.monotonic() < end and message.custom_ids():
                await asyncio.sleep(0.05)
            await asyncio.sleep(1.0)  # the first board after the accept
            outcome.killed = not _alive(process)
            process.stop()
            process.extra_env = {}
            await process.start()
            game = None
            if answer == "accept":
                started = await game_started_from(db, fake.general)
                if started is not None:
                    game = await _settled(db, started.id)
            await asyncio.sleep(3.0)  # the first sweep of the challenges
            process.stop()
            lines = message.text().count(ANSWERED[answer])
            if lines != 1:
                outcome.problems.append(f"notices: the answer shown {lines} times")
            if message.custom_ids():
                left = message.custom_ids()
                outcome.problems.append(f"stale: the answered challenge keeps {left}")
            if answer == "accept":
                if game is None:
                    outcome.problems.append("missing: the accepted challenge started no game")
                else:
                    thread = fake.channel(game.channel_id)
                    assert thread is not None
                    outcome.problems += check_shown(fake, game, thread, fake.general)
        finally:
            process.stop()
            await db.close()
    return outcome
