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
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from app.computer import computer_to_act
from app.faults import ENV
from app.table import GameTable
from engine.game import DOUBLE, ROLL, GameState
from storage import Database, Game
from tests.fake_discord import FakeDiscord
from tests.fake_discord.interactions import InteractionHandle
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
    #: What is wrong but out of the bot's reach, documented (not counted as a failure): where
    #: only interactions reach the channel, an older board whose webhook the killed process
    #: held keeps its buttons (docs/architecture.md, "Where the bot is not a member").
    limits: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.problems)


def _alive(process: BotProcess) -> bool:
    return process.proc is not None and process.proc.poll() is None


#: Where a try's game is played: a thread of a server with the bot, the bot's DM, or a server
#: without the bot where the app is installed to the player's account (``app/venues.py``).
VENUES = ("guild", "dm", "user")


@dataclass
class Place:
    """Where a try plays, and how its player's commands get there."""

    venue: str
    channel: FakeChannel

    async def slash(
        self, fake: FakeDiscord, user: FakeUser, command: str, **options: object
    ) -> InteractionHandle:
        if self.venue == "guild":
            return await fake.slash(user, self.channel, command, **options)  # type: ignore[arg-type]
        return await fake.slash_anywhere(user, self.channel, command, **options)  # type: ignore[arg-type]


def _place(fake: FakeDiscord, venue: str) -> tuple[Place, FakeUser]:
    """The try's channel and player in ``venue``."""
    if venue == "guild":
        return Place(venue, fake.general), fake.add_user("alice")
    if venue == "dm":
        human = fake.add_user("alice")
        return Place(venue, fake.dm_channel(human)), human
    elsewhere = fake.add_guild("No bot here", with_bot=False)
    human = fake.add_user("alice", guilds=[elsewhere])
    fake.install_to_user(human)
    return Place(venue, next(elsewhere.text_channels())), human


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
    fake: FakeDiscord, place: Place, process: BotProcess, game: Game, human: FakeUser
) -> None:
    """One decision of the person (the answer is not waited for: it waits for the computer)."""
    channel = fake.channel(game.channel_id)
    assert channel is not None
    here = Place(place.venue, channel)
    state = GameState.from_json(game.state_json)
    try:
        if state.phase == ROLL:
            handle = await here.slash(fake, human, "roll")
        elif state.phase == DOUBLE:
            handle = await here.slash(fake, human, "take")
        else:
            play = min(state.legal_plays(), key=lambda p: (p.after.pips("X"), p.text or ""))
            handle = await here.slash(fake, human, "move", play=play.text or "pass")
        await handle.wait_initial(TIMEOUT)
    except Exception:
        if _alive(process):  # not the kill: a real failure
            raise


async def _resign(
    fake: FakeDiscord, place: Place, process: BotProcess, game: Game, human: FakeUser
) -> None:
    """Offer a backgammon (the computer accepts any offer worth at least its equity)."""
    channel = fake.channel(game.channel_id)
    assert channel is not None
    try:
        asked = await Place(place.venue, channel).slash(fake, human, "resign", level=3)
        question = await asked.wait_original(timeout=TIMEOUT)
        confirm = next(c for c in question.custom_ids() if c.startswith("bg:cf:resign:"))
        click = await fake.click(human, question, confirm)
        await click.wait_initial(TIMEOUT)
    except Exception:
        if _alive(process):  # killed meanwhile (a kill point in the last turn's tidying)
            raise


async def _play(
    fake: FakeDiscord,
    place: Place,
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
            await _resign(fake, place, process, now, human)
            resigned = True
        else:
            await _persons_turn(fake, place, process, now, human)
            made += 1
        await _wait_version(db, now, process, 30.0)


async def _settled(
    db: Database, game_id: int, timeout: float = 60.0, *, owed_ok: bool = False
) -> Game:
    """The game once the restarted bot has paid its debts and the computer is not to act
    (``owed_ok``: a board may stay owed, where only the player's next interaction shows it)."""
    end = time.monotonic() + timeout
    while True:
        game = await db.get_game(game_id)
        assert game is not None
        state = GameState.from_json(game.state_json)
        busy = game.is_active and (computer_to_act(game, state) or state.resign_offer is not None)
        paid = owed_ok or game.board_owed_version is None
        if (paid and not busy) or time.monotonic() > end:
            return game
        await asyncio.sleep(0.05)


async def _started_in(db: Database, channel: FakeChannel) -> Game | None:
    """The channel's active game once its first board is out (or as it is after a while)."""
    end = time.monotonic() + TIMEOUT
    while True:
        game = await db.get_active_game(channel.id)
        if (game is not None and game.board_message_id is not None) or time.monotonic() > end:
            return game
        await asyncio.sleep(0.02)


async def _board_command(
    fake: FakeDiscord, place: Place, db: Database, game: Game, human: FakeUser
) -> Game:
    """Where only interactions reach the channel, the player's /board shows the board owed
    since the restart; the game once that is recorded."""
    await (await place.slash(fake, human, "board")).wait_initial(TIMEOUT)
    end = time.monotonic() + TIMEOUT
    while True:
        fresh = await db.get_game(game.id)
        assert fresh is not None
        if fresh.board_owed_version is None or time.monotonic() > end:
            return fresh
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
    shown = _bot_messages(fake, thread)
    if parent.id != thread.id:
        shown += _bot_messages(fake, parent)
    for message in shown:
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


async def open_as(db_path: Path, root: Path) -> Database:
    """The try's own view of the bot's database, at the schema of the bot under test (the
    checkout ``root``; ``bench/kill_points.py --rev`` runs an older one): never migrated
    ahead of the bot, which would then refuse to start."""
    return await Database.open(db_path, migrations_dir=root / "storage" / "migrations")


def _unreachable(problem: str) -> bool:
    """An older board's live buttons: where the bot is not a member, only the webhook of the
    interaction that posted a board can edit it, and a killed process takes those along."""
    return problem.startswith("stale: live ") and problem.endswith(" on an older message")


async def game_try(
    point: str,
    nth: int,
    decisions: int,
    seed: int,
    workdir: Path,
    root: Path = ROOT,
    *,
    venue: str = "guild",
) -> Try:
    """Kill at the ``nth`` ``point`` of a game of ``decisions`` turns in ``venue``, restart,
    and check."""
    outcome = Try(point if venue == "guild" else f"{venue}:{point}", nth)
    async with FakeDiscord() as fake:
        db_path = workdir / "bot.sqlite3"
        process = BotProcess(
            fake,
            db_path,
            seed=seed,
            extra_env={ENV: f"{point}:{nth}"},
            root=root,
            global_commands=venue != "guild",
        )
        await process.start()
        db = await open_as(db_path, root)
        try:
            place, human = _place(fake, venue)
            if venue == "guild":
                opponent: dict[str, object] = {"opponent": fake.bot_user}
            else:  # outside a server with the bot, no opponent means the computer
                opponent = {}
            handle = await place.slash(
                fake, human, "challenge", variant="classic", level="beginner", **opponent
            )
            await handle.wait_initial(TIMEOUT)
            if venue == "guild":
                game = await game_started_from(db, place.channel)
                if game is None:  # the kill came before the first board got out
                    game = (await db.list_active_games(fake.guild.id) or [None])[0]
            else:
                game = await _started_in(db, place.channel)
            assert game is not None, "the challenge started no game"
            if _alive(process):
                await _play(fake, place, db, process, game, human, decisions)
            await asyncio.sleep(0.5)  # the bot's tidying after the last answer
            outcome.killed = not _alive(process)
            process.stop()
            process.extra_env = {}
            await process.start()
            settled = await _settled(db, game.id, owed_ok=venue == "user")
            if settled.board_owed_version is not None and venue == "user":
                settled = await _board_command(fake, place, db, settled, human)
            await asyncio.sleep(1.0)  # buttons cleared after the debt is paid
            thread = fake.channel(settled.channel_id)
            assert thread is not None
            parent = fake.general if venue == "guild" else thread
            outcome.problems = check_shown(fake, settled, thread, parent)
            if venue == "user":
                outcome.limits = [p for p in outcome.problems if _unreachable(p)]
                outcome.problems = [p for p in outcome.problems if not _unreachable(p)]
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
        db = await open_as(db_path, root)
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
