"""One crash try: the bot process (``python bot.py``) killed with SIGKILL at a kill point
(``app/faults.py``), restarted, and the messages counted. Used by ``tests/e2e/test_kill_points.py``
(a handful of tries in CI) and ``bench/kill_points.py`` (many, with a table of failures).

A try plays a game against the computer in a thread of the fake Discord's general channel:
``decisions`` of the person's turns, then a resignation the computer accepts (a backgammon),
so that the game ends and its result card is due. The process kills itself the ``nth`` time it
reaches the kill point; whether it did or not (the game may end first), a new process is started
on the same database and, once it has settled, the try checks what the channels show:

* ``owed``: a board still owed (never shown);
* ``twice``: two board messages with the same text and picture, or two result cards;
* ``stale``: a message other than the game's current board with live game buttons, or a
  current board whose buttons name an older version (not the position the game is in);
* ``missing``: no current board, or a finished game without its result card;
* ``notices``: (the ``notice_posted`` point) a reminder not posted exactly once.
"""

from __future__ import annotations

import asyncio
import random
import re
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from app.computer import computer_to_act
from app.faults import ENV, KILL_POINTS
from app.table import GameTable
from engine.game import DOUBLE, ROLL, GameState
from storage import Database, Game
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeChannel, FakeMessage, FakeUser

from .harness import ROOT, TIMEOUT, BotProcess, game_started_from

#: Buttons that act on a running game (a result card's do not go stale).
_GAME_BUTTON = re.compile(r"^bg:(roll|double|take|pass|rsyes|rsno|play):(\d+):(\d+)$")
_RESULT_BUTTON = re.compile(r"^bg:res:[a-z]+:(\d+)$")
REMINDER = "it is your turn"
#: How many times a try's game reaches each kill point at least (the kill's N is drawn up to
#: this): two actions per turn of the person's, about one board per turn, one result card.
LAST_KILL = {
    "committed": 4,
    "thinking": 3,
    "board_posted": 2,
    "board_edited": 3,
    "before_result_card": 1,
    "result_card_posted": 1,
    "notice_posted": 1,
}


@dataclass
class Try:
    point: str
    nth: int
    killed: bool = False
    problems: list[str] = field(default_factory=list)
    #: The try itself failed (the harness, not the bot: a start that timed out under load).
    error: str | None = None

    @property
    def failed(self) -> bool:
        return bool(self.problems)


def _alive(process: BotProcess) -> bool:
    return process.proc is not None and process.proc.poll() is None


async def _wait_version(db: Database, game: Game, process: BotProcess, timeout: float) -> Game:
    """The game once its version moved past ``game``'s (or as it is when the process died or
    the time ran out)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and _alive(process):
        now = await db.get_game(game.id)
        assert now is not None
        if now.version != game.version:
            return now
        await asyncio.sleep(0.02)
    now = await db.get_game(game.id)
    assert now is not None
    return now


async def _persons_turn(
    fake: FakeDiscord, db: Database, process: BotProcess, game: Game, human: FakeUser
) -> None:
    """One decision of the person (the answer is not waited for: it waits for the computer)."""
    channel = fake.channel(game.channel_id)
    assert channel is not None
    state = GameState.from_json(game.state_json)
    try:
        if state.phase == ROLL:
            handle = await fake.slash(human, channel, "roll")
        elif state.phase == DOUBLE:
            handle = await fake.slash(human, channel, "take")
        else:
            play = min(state.legal_plays(), key=lambda p: (p.after.pips("X"), p.text or ""))
            handle = await fake.slash(human, channel, "move", play=play.text or "pass")
        await handle.wait_initial(TIMEOUT)
    except Exception:
        if _alive(process):  # not the kill: a real failure
            raise


async def _resign(fake: FakeDiscord, process: BotProcess, game: Game, human: FakeUser) -> None:
    """Offer a backgammon (the computer accepts any offer worth at least its equity)."""
    channel = fake.channel(game.channel_id)
    assert channel is not None
    try:
        asked = await fake.slash(human, channel, "resign", level=3)
        question = await asked.wait_original(timeout=TIMEOUT)
        confirm = next(c for c in question.custom_ids() if c.startswith("bg:cf:resign:"))
        click = await fake.click(human, question, confirm)
        await click.wait_initial(TIMEOUT)
    except Exception:
        if _alive(process):  # killed meanwhile (a kill point in the last turn's tidying)
            raise


async def _play(
    fake: FakeDiscord,
    db: Database,
    process: BotProcess,
    game: Game,
    human: FakeUser,
    decisions: int,
) -> None:
    """The person's ``decisions`` turns, then the resignation; stops when the process dies."""
    made = 0
    resigned = False
    end = time.monotonic() + 120
    while _alive(process) and time.monotonic() < end:
        now = await db.get_game(game.id)
        assert now is not None
        if not now.is_active:
            return
        state = GameState.from_json(now.state_json)
        if computer_to_act(now, state) or state.resign_offer is not None:
            await _wait_version(db, now, process, 30.0)
            continue
        if made >= decisions and not resigned:
            await _resign(fake, process, now, human)
            resigned = True
        else:
            await _persons_turn(fake, db, process, now, human)
            made += 1
        await _wait_version(db, now, process, 30.0)


async def _settled(db: Database, game_id: int, timeout: float = 60.0) -> Game:
    """The game once the restarted bot has paid its debts and the computer is not to act."""
    end = time.monotonic() + timeout
    while True:
        game = await db.get_game(game_id)
        assert game is not None
        state = GameState.from_json(game.state_json)
        busy = game.is_active and (computer_to_act(game, state) or state.resign_offer is not None)
        if (game.board_owed_version is None and not busy) or time.monotonic() > end:
            return game
        await asyncio.sleep(0.05)


def _bot_messages(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    return [m for m in fake.messages_in(channel) if m.author.bot and not m.ephemeral]


def check_shown(
    fake: FakeDiscord, game: Game, thread: FakeChannel, parent: FakeChannel
) -> list[str]:
    """What is wrong with what the channels show of ``game`` (empty: shown exactly once)."""
    problems: list[str] = []
    if game.board_owed_version is not None:
        problems.append("owed: the latest board was never shown")
    boards = [m for m in _bot_messages(fake, thread) if any(a.is_png for a in m.attachments)]
    seen = Counter((m.text(), m.attachments[0].data) for m in boards)
    doubled = [content for (content, _), n in seen.items() if n > 1]
    if doubled:
        problems.append(f"twice: a board posted {max(seen.values())} times: {doubled[0][:80]!r}")
    current = fake.get_message(game.board_message_id or 0)
    if current is None or current.deleted:
        problems.append("missing: the game's board message is gone")
    for message in _bot_messages(fake, thread) + _bot_messages(fake, parent):
        for custom_id in message.custom_ids():
            match = _GAME_BUTTON.match(custom_id)
            if match is None or int(match[2]) != game.id:
                continue
            if message is not current or not game.is_active:
                problems.append(f"stale: live {custom_id} on an older message")
            elif int(match[3]) != game.version:
                problems.append(f"stale: the board's {custom_id} is not version {game.version}")
    if not game.is_active and game.status == "finished":
        cards = [
            m
            for m in _bot_messages(fake, parent)
            if any(
                (found := _RESULT_BUTTON.match(c)) and int(found[1]) == game.id
                for c in m.custom_ids()
            )
        ]
        if len(cards) != 1:
            kind = "missing" if not cards else "twice"
            problems.append(f"{kind}: {len(cards)} result cards")
        if current is not None and not any(_RESULT_BUTTON.match(c) for c in current.custom_ids()):
            problems.append("stale: the finished game's board has no result buttons")
    return problems


async def game_try(
    point: str, nth: int, decisions: int, seed: int, workdir: Path, root: Path = ROOT
) -> Try:
    """Kill at the ``nth`` ``point`` of a game of ``decisions`` turns, restart, and check."""
    outcome = Try(point, nth)
    async with FakeDiscord() as fake:
        db_path = workdir / "bot.sqlite3"
        process = BotProcess(fake, db_path, seed=seed, extra_env={ENV: f"{point}:{nth}"}, root=root)
        await process.start()
        db = await Database.open(db_path)
        try:
            human = fake.add_user("alice")
            handle = await fake.slash(
                human,
                fake.general,
                "challenge",
                opponent=fake.bot_user,
                variant="classic",
                level="beginner",
            )
            await handle.wait_initial(TIMEOUT)
            game = await game_started_from(db, fake.general)
            if game is None:  # the kill came before the first board got out
                game = (await db.list_active_games(fake.guild.id) or [None])[0]
            assert game is not None, "the challenge started no game"
            if _alive(process):
                await _play(fake, db, process, game, human, decisions)
            await asyncio.sleep(0.5)  # the bot's tidying after the last answer
            outcome.killed = not _alive(process)
            process.stop()
            process.extra_env = {}
            await process.start()
            settled = await _settled(db, game.id)
            await asyncio.sleep(1.0)  # buttons cleared after the debt is paid
            thread = fake.channel(settled.channel_id)
            assert thread is not None
            outcome.problems = check_shown(fake, settled, thread, fake.general)
        finally:
            process.stop()
            await db.close()
    return outcome


async def notice_try(seed: int, workdir: Path, root: Path = ROOT) -> Try:
    """Kill right after a reminder reached the channel (before it was recorded), restart:
    the reminder is in the channel exactly once."""
    outcome = Try("notice_posted", 1)
    async with FakeDiscord() as fake:
        db_path = workdir / "bot.sqlite3"
        idler, waiter = fake.add_user("idler"), fake.add_user("waiter")
        db = await Database.open(db_path)
        try:
            old = time.time() - 30 * 3600  # idle for 30 hours: a reminder is due (24 h)
            setup = GameTable(db, random.Random(seed), clock=lambda: old)
            challenge = await db.create_challenge(
                fake.guild.id, fake.general.id, idler.id, waiter.id, "classic", now=old
            )
            await setup.start(challenge, ("idler", "waiter"))
            process = BotProcess(
                fake, db_path, seed=seed, extra_env={ENV: "notice_posted:1"}, root=root
            )
            try:
                await process.start()
                end = time.monotonic() + 30
                while _alive(process) and time.monotonic() < end:
                    await asyncio.sleep(0.05)
                outcome.killed = not _alive(process)
                process.stop()
                process.extra_env = {}
                await process.start()
                await asyncio.sleep(3.0)  # its first sweep
            finally:
                process.stop()
            shown = [m for m in fake.messages_in(fake.general) if REMINDER in (m.text() or "")]
            if len(shown) != 1:
                outcome.problems.append(f"notices: the reminder shown {len(shown)} times")
        finally:
            await db.close()
    return outcome


def points() -> list[str]:
    return list(KILL_POINTS)


async def one_try(point: str, rng: random.Random, root: Path = ROOT) -> Try:
    """A try at ``point`` with a random kill instant, in a scratch folder."""
    with tempfile.TemporaryDirectory(prefix="kill-points-") as folder:
        if point.startswith("tournament_"):
            from .tournament_crash import LAST_KILL as EVENT_KILLS  # imports this module
            from .tournament_crash import tournament_try

            nth = rng.randint(1, EVENT_KILLS[point])
            return await tournament_try(point, nth, Path(folder), root)
        if point == "notice_posted":
            return await notice_try(rng.randrange(1000), Path(folder), root)
        nth = rng.randint(1, LAST_KILL[point])
        decisions = rng.randint(1, 6)
        return await game_try(point, nth, decisions, rng.randrange(1000), Path(folder), root)
