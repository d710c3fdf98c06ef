"""Run the real bot (in-process or as a subprocess) against the fake Discord, and play games.

The driver plays like a person: it reads the board state from the bot's own SQLite file,
asks the /move autocomplete for the legal plays, picks one, and presses the same buttons.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from app.config import Config
from discord_ui.client import BackgammonBot
from endpoints import endpoint_overrides
from engine.game import DOUBLE, MOVE, ROLL, GameState
from engine.position import X
from storage import Game, Storage
from tests.fake_discord import FakeDiscord
from tests.fake_discord.interactions import Callback, CallbackFile, InteractionHandle
from tests.fake_discord.models import FakeChannel, FakeMessage, FakeUser

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 20.0
GAME_COMMANDS = ["challenge", "accept", "move", "roll", "double", "take", "pass", "board"]


#: How long closing the bot waits for interactions it is still answering.
DRAIN_TIMEOUT = 5.0
#: Names discord.py gives the tasks that run an interaction's handlers.
_INTERACTION_TASKS = ("discord.py: on_interaction", "CommandTree-invoker", "discord-ui-")


def _answers_an_interaction(task: asyncio.Task[object]) -> bool:
    return not task.done() and task.get_name().startswith(_INTERACTION_TASKS)


async def interactions_done(timeout: float = TIMEOUT) -> None:
    """Wait until the in-process bot has finished answering every interaction (the reply is
    out before the bookkeeping after it: old buttons cleared, debts paid)."""
    end = asyncio.get_running_loop().time() + timeout
    current = asyncio.current_task()
    while any(_answers_an_interaction(t) for t in asyncio.all_tasks() if t is not current):
        if asyncio.get_running_loop().time() > end:
            raise AssertionError("the bot is still answering interactions")
        await asyncio.sleep(0.01)


class PlainBot(BackgammonBot):
    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        return None  # the fake has no identify rate limit


@asynccontextmanager
async def bot_in_process(
    fake: FakeDiscord, db_path: Path, seed: int = 1, *, global_commands: bool = False
) -> AsyncIterator[BackgammonBot]:
    """``global_commands``: sync them globally, as a production bot does (guild commands are
    never available in DMs or where the app is installed to a user)."""
    config = Config(
        token=fake.token,
        database_path=db_path,
        api_base=fake.api_base,
        gateway_url=fake.gateway_url,
        guild_id=None if global_commands else fake.guild.id,
        log_level="INFO",
        dice_seed=seed,
    )
    with endpoint_overrides(fake.api_base, fake.gateway_url, cdn_base=fake.cdn_base):
        client = PlainBot(config)
        since = fake.readiness_marker()
        runner: asyncio.Task[None] | None = None
        try:
            await asyncio.wait_for(client.login(fake.token), TIMEOUT)
            runner = asyncio.create_task(client.connect(reconnect=False))
            # No new sync is required: a restart with unchanged commands skips it (the
            # commands synced by an earlier start are still there).
            await fake.wait_ready(TIMEOUT, since=since, require_sync=False, commands=GAME_COMMANDS)
            yield client
        finally:
            # A test may end while the bot still answers its last interaction (a board posted
            # after the reply): that work finishes before the client closes its HTTP session.
            answering = [t for t in asyncio.all_tasks() if _answers_an_interaction(t)]
            if answering:
                await asyncio.wait(answering, timeout=DRAIN_TIMEOUT)
            # discord.py dispatches ``ready`` from a task that first waits about two seconds
            # for more guilds; a test shorter than that would have it dispatch into the closed
            # client (an AttributeError logged as never retrieved, and the event's coroutine
            # never awaited). Nothing here waits for that event, so it is cancelled.
            delay_ready: asyncio.Task[None] | None = getattr(
                client._connection, "_ready_task", None
            )
            if delay_ready is not None:
                delay_ready.cancel()
                await asyncio.gather(delay_ready, return_exceptions=True)
            await asyncio.wait_for(client.close(), TIMEOUT)
            if runner is not None:
                runner.cancel()
                await asyncio.gather(runner, return_exceptions=True)
            # Events the gateway delivered just before the close are tasks that may not have
            # started: cancelled here, they end cleanly instead of being destroyed unawaited
            # when the test's event loop closes.
            late = [
                t
                for t in asyncio.all_tasks()
                if t.get_name().startswith("discord.py: ") and not t.done()
            ]
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)


@dataclass
class BotProcess:
    """The bot as a separate OS process (``python bot.py``), killable with SIGKILL."""

    fake: FakeDiscord
    db_path: Path
    seed: int = 1
    proc: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None
    log_level: str = "INFO"
    extra_env: dict[str, str] = field(default_factory=dict)
    #: The checkout whose bot.py runs (bench.e2e --baseline-rev runs an older commit's).
    root: Path = ROOT
    #: Sync the commands globally (no DISCORD_GUILD_ID), as a production bot does.
    global_commands: bool = False

    async def start(self) -> None:
        since = self.fake.readiness_marker()
        env = {
            "PATH": os.environ.get("PATH", ""),
            **self.fake.env(),
            "DATABASE_PATH": str(self.db_path),
            "DICE_SEED": str(self.seed),
            "LOG_LEVEL": self.log_level,
            **self.extra_env,
        }
        if self.global_commands:
            env.pop("DISCORD_GUILD_ID", None)
        self.log_path = self.db_path.with_suffix(".log")
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, str(self.root / "bot.py")],
            cwd=self.db_path.parent,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        # As in bot_in_process: a restart with unchanged commands does not sync.
        await self.fake.wait_ready(30.0, since=since, require_sync=False, commands=GAME_COMMANDS)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


async def abort_game(fake: FakeDiscord, user: FakeUser, channel: FakeChannel) -> tuple[bool, str]:
    """/abort, confirmed when the bot asks first (a player, a moderator): (ephemeral, text)
    of the answer that follows."""
    asked = await fake.slash(user, channel, "abort")
    callback = await asked.wait_initial(TIMEOUT)
    question = asked.original
    buttons = question.custom_ids() if question is not None else []
    confirm = next((c for c in buttons if c.startswith("bg:cf:abort:")), None)
    if question is None or confirm is None:
        return callback.ephemeral, callback.content or ""
    click = await fake.click(user, question, confirm)
    await click.wait_initial(TIMEOUT)
    (answer,) = await click.wait_followups(1, TIMEOUT)
    return answer.ephemeral, answer.text()


async def game_started_from(
    db: Storage, channel: FakeChannel, timeout: float = TIMEOUT
) -> Game | None:
    """The active game of ``channel``, or of the thread opened from it for the game, once its
    first board is out (the command's answer can come first); None if none in time."""
    end = asyncio.get_running_loop().time() + timeout
    while True:
        found = await db.get_active_game(channel.id)
        if found is None:
            for candidate in await db.list_active_games(channel.guild_id):
                if candidate.parent_channel_id == channel.id:
                    found = candidate
        if found is not None and found.board_message_id is not None:
            return found
        if asyncio.get_running_loop().time() > end:
            return found
        await asyncio.sleep(0.02)


def mover_user(game: Game, state: GameState, users: dict[int, FakeUser]) -> FakeUser:
    return users[game.player_x if state.mover == 0 else game.player_o]


def best_play(state: GameState, offered: list[str]) -> str:
    """A greedy racer: fewest own pips left, avoiding hits (games end in ~100 decisions)."""
    plays = {p.text or "pass": p for p in state.legal_plays()}
    assert set(offered) <= set(plays), f"autocomplete offered an illegal play: {offered}"
    return min(offered, key=lambda t: (plays[t].after.pips(X), plays[t].after.pips("O"), t))


def png_of(message: FakeMessage | None) -> bytes | None:
    if message is not None and message.attachments:
        return message.attachments[0].data
    return None


def board_images(fake: FakeDiscord, channel: FakeChannel) -> list[FakeMessage]:
    """The bot's messages in ``channel`` that carry a board picture, oldest first."""
    return [
        m
        for m in fake.messages_in(channel)
        if m.author.bot and not m.ephemeral and any(a.is_png for a in m.attachments)
    ]


@dataclass
class Table:
    """Two players at one channel."""

    fake: FakeDiscord
    db: Storage
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser
    boards: list[bytes] = field(default_factory=list)
    last_board: FakeMessage | None = None
    challenge_message: FakeMessage | None = None
    interactions: int = 0
    #: The channel where the challenge was made (``channel`` follows the game to its thread).
    home: FakeChannel | None = None

    @property
    def users(self) -> dict[int, FakeUser]:
        return {self.alice.id: self.alice, self.bob.id: self.bob}

    async def send(self, handle: InteractionHandle) -> InteractionHandle:
        await handle.wait_initial(TIMEOUT)
        self.interactions += 1
        return handle

    async def settle(
        self, game_id: int | None, board_id: int | None, edits: int, version: int | None = None
    ) -> Game:
        """Wait until the bot has shown an action: a new board message, the board edited, or
        (``version``: the game's version before it) the action committed and shown to its
        player alone (a step inside an Express chain)."""
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while True:
            if game_id is None:
                game = await self._game_here()
            else:
                game = await self.db.get_game(game_id)
            if game is not None and game.board_message_id is not None:
                if game.board_message_id != board_id:
                    return game
                msg = self.fake.get_message(board_id) if board_id is not None else None
                if msg is not None and msg.edit_count > edits:
                    return game
                if (
                    version is not None
                    and game.version != version
                    and game.board_owed_version is None
                ):
                    return game
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError("the bot did not show the action in time")
            await asyncio.sleep(0.01)

    def _edits(self, board_id: int | None) -> int:
        msg = self.fake.get_message(board_id) if board_id is not None else None
        return msg.edit_count if msg is not None else 0

    async def challenge(
        self, variant: str, length: int = 1, options: str | None = None
    ) -> InteractionHandle:
        extra = {} if options is None else {"options": options}
        handle = await self.send(
            await self.fake.slash(
                self.alice,
                self.channel,
                "challenge",
                extra,
                opponent=self.bob,
                variant=variant,
                length=length,
            )
        )
        assert handle.callback is not None and not handle.callback.ephemeral, handle.content
        msg = await handle.wait_original()
        self.challenge_message = msg
        accept = next(cid for cid in msg.custom_ids() if cid.startswith("bg:accept:"))
        click = await self.send(await self.fake.click(self.bob, msg, accept))
        assert click.callback is not None and not click.callback.ephemeral, click.callback.content
        game = await self.settle(None, None, 0)
        self._follow(game)
        self._board(game)
        return click

    async def _game_here(self) -> Game | None:
        """The active game of the table's channel, or of a thread opened from it."""
        game = await self.db.get_active_game(self.channel.id)
        if game is not None:
            return game
        for candidate in await self.db.list_active_games(self.fake.guild_of(self.channel).id):
            if candidate.parent_channel_id == self.channel.id:
                return candidate
        return None

    def _follow(self, game: Game) -> None:
        """Commands go to the game's thread from now on (the game is played there)."""
        if game.channel_id != self.channel.id:
            thread = self.fake.channel(game.channel_id)
            assert thread is not None and thread.is_thread, "the game's thread is unknown"
            self.home = self.home or self.channel
            self.channel = thread

    def _board(self, game: Game) -> None:
        assert game.board_message_id is not None
        msg = self.fake.get_message(game.board_message_id)
        png = png_of(msg)
        assert png is not None and png.startswith(b"\x89PNG"), "no board picture attached"
        self.boards.append(png)
        self.last_board = msg

    async def game(self) -> Game | None:
        return await self._game_here()

    async def act(self, user: FakeUser, command: str, **options: object) -> InteractionHandle:
        """A game command that the bot accepts; returns once its board is shown."""
        game = await self.game()
        assert game is not None
        board_id = game.board_message_id
        edits = self._edits(board_id)
        handle = await self.send(await self.fake.slash(user, self.channel, command, **options))
        if command == "resign":  # it asks first, privately: confirm
            handle = await self.confirm(user, handle, "resign")
        self._board(await self.settle(game.id, board_id, edits, game.version))
        return handle

    async def confirm(
        self, user: FakeUser, asked: InteractionHandle, action: str
    ) -> InteractionHandle:
        """Click the button ``action`` of a private question (/resign, /abort)."""
        question = await asked.wait_original()
        assert question.ephemeral, question.content
        buttons = [c for c in question.custom_ids() if c.startswith(f"bg:cf:{action}:")]
        assert buttons, f"no {action} confirmation: {question.content!r}"
        return await self.send(await self.fake.click(user, question, buttons[0]))

    async def press(self, user: FakeUser, action: str) -> InteractionHandle:
        """Click a button of the live board; returns once the bot has shown the result."""
        game = await self.game()
        assert game is not None and self.last_board is not None
        button = self._button(action)
        assert button is not None, f"no {action} button on {self.last_board.custom_ids()}"
        board_id = game.board_message_id
        edits = self._edits(board_id)
        handle = await self.send(await self.fake.click(user, self.last_board, button))
        self._board(await self.settle(game.id, board_id, edits))
        return handle

    async def step(self, use_buttons: bool = True) -> InteractionHandle:
        """Make one decision for whoever must act."""
        game = await self.game()
        assert game is not None
        state = GameState.from_json(game.state_json)
        user = mover_user(game, state, self.users)
        if state.phase == ROLL:
            if use_buttons and self._button("roll") is not None:
                handle = await self.press(user, "roll")
            else:
                handle = await self.act(user, "roll")
        elif state.phase == DOUBLE:
            handle = await self.act(user, "take")
        else:
            assert state.phase == MOVE
            ac = await self.fake.autocomplete(user, self.channel, "move", "play", play="")
            offered = [c["value"] for c in await ac.wait_autocomplete(TIMEOUT)]
            assert offered, "no autocomplete choices for the player to act"
            handle = await self.act(user, "move", play=best_play(state, offered))
        assert handle.callback is not None
        return handle

    def _button(self, action: str) -> str | None:
        if self.last_board is None:
            return None
        return next(
            (c for c in self.last_board.custom_ids() if c.startswith(f"bg:{action}:")), None
        )

    async def play_out(self, limit: int = 3000) -> FakeMessage:
        """Play until the game is over; returns the final board message."""
        for i in range(limit):
            if await self.game() is None:
                assert self.last_board is not None
                return self.last_board
            await self.step(use_buttons=i % 2 == 0)
        raise AssertionError(f"game did not end within {limit} decisions")


@dataclass
class ShardProcess:
    """``python bot.py`` running ``shards`` of ``count`` on a PostgreSQL database, killable with
    SIGKILL. Commands are synced globally (every guild needs them) by shard 0's process."""

    fake: FakeDiscord
    url: str
    shards: tuple[int, ...]
    count: int
    workdir: Path
    seed: int = 1
    proc: subprocess.Popen[bytes] | None = None

    @property
    def log_path(self) -> Path:
        return self.workdir / f"shards-{'-'.join(map(str, self.shards))}.log"

    def launch(self) -> int:
        """Start the process; returns the session marker :meth:`ready` waits after."""
        marker = self.fake.session_marker()
        env = {
            "PATH": os.environ.get("PATH", ""),
            **self.fake.env(),
            "DATABASE_URL": self.url,
            "SHARD_COUNT": str(self.count),
            "SHARD_IDS": ",".join(map(str, self.shards)),
            "DICE_SEED": str(self.seed),
            "LOG_LEVEL": "INFO",
        }
        del env["DISCORD_GUILD_ID"]
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "bot.py")],
            cwd=self.workdir,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        return marker

    async def ready(self, marker: int, timeout: float = 60.0) -> None:
        try:
            for shard in self.shards:
                await self.fake.wait_shard_ready((shard, self.count), timeout, after=marker)
        except Exception as exc:
            raise AssertionError(
                f"shards {self.shards} did not start: {exc}\n{self.log()[-3000:]}"
            ) from exc

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@dataclass
class Reply:
    """What the person who used a command finally sees from the bot."""

    ephemeral: bool
    content: str
    message: FakeMessage | None


async def reply_of(handle: InteractionHandle, timeout: float = TIMEOUT) -> Reply:
    """The answer to an interaction, following a deferral ("thinking") to its final text."""
    callback = await handle.wait_initial(timeout)
    if callback.type == 5:  # deferred: the answer is the edited placeholder

        def resolved() -> FakeMessage | None:
            msg = handle.original
            return msg if msg is not None and (msg.deleted or not msg.loading) else None

        original = await handle.signal.wait_for(resolved, timeout, lambda: repr(handle))
        text = "" if original.deleted else original.text()
        return Reply(original.ephemeral, text, original)
    if callback.type == 6:  # a click answered later by editing its message, or a followup
        followups = await handle.wait_followups(1, timeout)
        return Reply(followups[0].ephemeral, followups[0].text(), followups[0])
    original = handle.original
    text = original.text() if original is not None else (callback.content or "")
    return Reply(callback.ephemeral, text, original)


async def final_callback(handle: InteractionHandle, timeout: float = TIMEOUT) -> Callback:
    """The bot's answer as one callback: a deferred ("thinking") one is followed to the
    message that resolved it (slow commands such as /stats, /claim and /record answer so)."""
    callback = await handle.wait_initial(timeout)
    if callback.type != 5:
        return callback
    msg = await handle.wait_original(timeout=timeout)
    return Callback(
        4,
        {
            "content": msg.content,
            "embeds": msg.embeds,
            "components": msg.components,
            "flags": msg.flags,
        },
        [CallbackFile(a.filename, a.data, a.content_type) for a in msg.attachments],
    )


async def eventually(check: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    """Wait until ``check()`` holds (the bot finishes an action with a few more messages)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)
