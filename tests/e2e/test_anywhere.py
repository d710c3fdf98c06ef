"""Play anywhere: the computer in the bot's DM, and where the app is installed to a player's
account only (a server without the bot, a group DM), through the fake Discord. The bot syncs
its commands globally here, as in production (guild commands never reach DMs or user installs).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from discord_ui.client import BackgammonBot
from engine.game import DOUBLE, MOVE, ROLL, GameState
from storage import NO_GUILD, Database, Game, Storage
from tests.fake_discord import FakeDiscord
from tests.fake_discord.interactions import InteractionHandle
from tests.fake_discord.models import FakeChannel, FakeMessage, FakeUser
from tests.fake_discord.server import UnknownCommandError

from .harness import TIMEOUT, BotProcess, best_play, bot_in_process, eventually, reply_of

COMPUTER_TURN_TIMEOUT = 60.0


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[BackgammonBot]:
    async with bot_in_process(fake, tmp_path / "bot.sqlite3", global_commands=True) as client:
        yield client


async def active_game(db: Storage, channel: FakeChannel, timeout: float = TIMEOUT) -> Game:
    """The channel's active game once its first board is out."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        game = await db.get_active_game(channel.id)
        if game is not None and game.board_message_id is not None:
            return game
        await asyncio.sleep(0.02)
    raise AssertionError(f"no game with a board in channel {channel.id}")


async def start(
    fake: FakeDiscord, db: Storage, user: FakeUser, channel: FakeChannel, variant: str
) -> Game:
    """/challenge without an opponent: outside a server with the bot, the computer."""
    handle = await fake.slash_anywhere(user, channel, "challenge", variant=variant, level="casual")
    started = await reply_of(handle)
    assert not started.ephemeral and "Computer (casual)" in started.content, started.content
    return await active_game(db, channel)


async def settled(db: Storage, game: Game) -> Game | None:
    """Wait until the person's action and the computer's reply are committed and shown (no
    board owed, the person to act or the game over); None once it is over."""
    end = time.monotonic() + COMPUTER_TURN_TIMEOUT
    while time.monotonic() < end:
        fresh = await db.get_game(game.id)
        assert fresh is not None
        if fresh.version != game.version and fresh.board_owed_version is None:
            if fresh.status != "active":
                return None
            if GameState.from_json(fresh.state_json).mover == 0:
                return fresh
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game.id} did not come back to its player")


async def human_turn(
    fake: FakeDiscord, user: FakeUser, channel: FakeChannel, game: Game
) -> InteractionHandle:
    """One decision of the person (seat 0), typed as a command."""
    state = GameState.from_json(game.state_json)
    assert state.mover == 0
    if state.phase == ROLL:
        return await fake.slash_anywhere(user, channel, "roll")
    if state.phase == DOUBLE:
        return await fake.slash_anywhere(user, channel, "take")
    assert state.phase == MOVE
    ac = await fake.autocomplete(user, channel, "move", "play", play="")
    offered = [c["value"] for c in await ac.wait_autocomplete(TIMEOUT)]
    return await fake.slash_anywhere(user, channel, "move", play=best_play(state, offered))


async def play_turns(
    fake: FakeDiscord, db: Storage, user: FakeUser, channel: FakeChannel, game: Game, turns: int
) -> Game | None:
    """``turns`` decisions of the person, each answered by the computer; None once over."""
    current: Game | None = game
    for _ in range(turns):
        assert current is not None
        if GameState.from_json(current.state_json).mover != 0:
            current = await settled(db, current)
            if current is None:
                return None
        handle = await human_turn(fake, user, channel, current)
        answer = await reply_of(handle)
        assert not answer.content or user.display_name in answer.content, answer.content
        current = await settled(db, current)
        if current is None:
            return None
    return current


def components(items: list[dict[str, object]]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for item in items:
        out.append(item)
        children = item.get("components")
        if isinstance(children, list):
            out.extend(components(children))
    return out


async def click_to_play(
    fake: FakeDiscord, db: Storage, user: FakeUser, board: FakeMessage, game: Game
) -> Game:
    """The board's Play button, the first offered step until the play is whole, Confirm;
    returns the game once the computer has answered."""
    state = GameState.from_json(game.state_json)
    assert state.phase == MOVE and state.mover == 0, "the player is not to move"
    play = next(c for c in board.custom_ids() if c.startswith("bg:play:"))
    builder = await (await fake.click(user, board, play)).wait_original()
    await eventually(lambda: not builder.loading, "the move builder")
    assert builder.ephemeral and builder.attachments
    for _ in range(12):
        menus = [c for c in components(builder.components) if c.get("type") == 3]
        if not menus:
            break
        options = menus[0]["options"]
        assert isinstance(options, list) and options
        before = builder.edit_count
        await fake.select(user, builder, str(menus[0]["custom_id"]), [options[0]["value"]])
        await eventually(lambda b=before: builder.edit_count > b, "the builder to change")
    confirm = next(
        c
        for c in components(builder.components)
        if str(c.get("custom_id", "")).startswith("bg:mb:confirm")
    )
    await (await fake.click(user, builder, str(confirm["custom_id"]))).wait_initial(TIMEOUT)
    answered = await settled(db, game)
    assert answered is not None, "the game ended on the clicked play"
    return answered


def channel_calls(fake: FakeDiscord, channel: FakeChannel) -> list[str]:
    """Every REST call the bot made to ``channel`` itself (not through an interaction)."""
    return [f"{r.method} {r.path}" for r in fake.requests if f"/channels/{channel.id}" in r.path]


async def refused(handle: InteractionHandle) -> str:
    answer = await reply_of(handle)
    assert answer.ephemeral, answer.content
    return answer.content


async def test_a_game_in_the_bot_dm_is_practice_apart_from_the_server(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    db = bot.services.db
    alice = fake.add_user("alice")
    dm = fake.dm_channel(alice)
    game = await start(fake, db, alice, dm, "blocking-express")
    assert (game.context, game.guild_id, game.rated) == ("dm", NO_GUILD, False)
    assert game.channel_id == dm.id and game.parent_channel_id is None
    current = await play_turns(fake, db, alice, dm, game, 1)
    assert current is not None
    hint = await reply_of(await fake.slash_anywhere(alice, dm, "hint"))
    assert hint.ephemeral and "1." in hint.content, hint.content
    done = await play_turns(fake, db, alice, dm, current, 3000)
    assert done is None
    finished = await db.get_game(game.id)
    assert finished is not None and finished.status == "finished"
    final = fake.get_message(finished.board_message_id or 0)
    assert final is not None and final.channel_id == dm.id and "Game over" in final.text()
    assert "Not rated" in final.text()

    # The server never sees it: not in /games, the leaderboard, /history or its /record.
    games = await reply_of(await fake.slash(alice, fake.general, "games"))
    assert f"#{game.id}" not in games.content and "blocking" not in games.content.lower()
    assert await db.leaderboard_count(fake.guild.id) == 0
    assert await db.recent_games(fake.guild.id, alice.id) == []
    text = await refused(await fake.slash(alice, fake.general, "record", game=game.id))
    assert text == f"There is no game #{game.id} on this server."
    # /stats shows it as practice, to its player only, in the server and in the DM.
    for channel in (fake.general, dm):
        handle = await fake.slash_anywhere(alice, channel, "stats")
        callback = await handle.wait_initial(TIMEOUT)
        embeds = callback.data.get("embeds") or []
        fields = {f["name"]: f["value"] for e in embeds for f in e.get("fields", [])}
        practice = fields.get("Practice (direct messages and elsewhere, not rated)", "")
        assert practice.startswith("casual: 1 game"), fields
        assert "Against the computer (not rated)" not in fields
    bob = fake.add_user("bob")
    other = await fake.slash(bob, fake.general, "stats", user=alice)
    assert "Practice" not in str((await other.wait_initial(TIMEOUT)).data)
    # Its player has its record in the DM, and a rematch starts there at once.
    record = await reply_of(await fake.slash_anywhere(alice, dm, "record", game=game.id))
    assert record.message is not None and record.message.attachments, record.content
    # A review takes seconds of a worker per decision (more on a busy machine).
    asked = await fake.slash_anywhere(alice, dm, "review", game=game.id)
    review = await reply_of(asked, timeout=COMPUTER_TURN_TIMEOUT * 3)
    assert review.message is not None and review.message.embeds, review.content
    # The result card's Record button works there too, for its player.
    button = next(c for c in final.custom_ids() if c.startswith("bg:res:record:"))
    click = await fake.click(alice, final, button)
    (sent,) = await click.wait_followups(1, TIMEOUT)
    assert sent.ephemeral and sent.attachments, sent.content
    # Nobody else's: bob's DM does not find alice's practice game.
    bobs = await refused(
        await fake.slash_anywhere(bob, fake.dm_channel(bob), "record", game=game.id)
    )
    assert bobs == f"There is no game #{game.id} of yours outside a server."
    rematch = next(c for c in final.custom_ids() if c.startswith("bg:res:rematch:"))
    await (await fake.click(alice, final, rematch)).wait_initial(TIMEOUT)
    again = await active_game(db, dm)
    assert again.id != game.id and again.context == "dm" and again.variant == game.variant
    assert [e for e in fake.errors if e.status in (401, 403)] == []


async def test_user_install_in_a_server_without_the_bot(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    db = bot.services.db
    elsewhere = fake.add_guild("No bot here", with_bot=False)
    channel = next(elsewhere.text_channels())
    carol = fake.add_user("carol", guilds=[elsewhere])
    dave = fake.add_user("dave", guilds=[elsewhere])
    # Without the app on their account Discord offers nothing there.
    with pytest.raises(UnknownCommandError):
        await fake.slash_anywhere(carol, channel, "challenge", variant="pin")
    fake.install_to_user(carol)

    # Server-only commands: Discord does not show them there; sent all the same (a stale
    # command list), the bot says what to do instead, privately.
    for command, options in (("leaderboard", {}), ("settings", {}), ("games", {}), ("claim", {})):
        with pytest.raises(UnknownCommandError):
            await fake.slash_anywhere(carol, channel, command, options)
        text = await refused(
            await fake.slash_anywhere(carol, channel, command, options, shown=False)
        )
        assert "needs this bot in a server" in text and "bot is not in this server" in text
    text = await refused(
        await fake.slash_anywhere(carol, channel, "challenge", variant="pin", opponent=dave)
    )
    assert text.startswith("A game against another person needs this bot in a server")
    assert await db.get_active_game(channel.id) is None

    game = await start(fake, db, carol, channel, "pin")
    assert (game.context, game.guild_id, game.rated) == ("user", NO_GUILD, False)
    current = await play_turns(fake, db, carol, channel, game, 4)
    assert current is not None, "the game ended too soon to test a pause"
    board = fake.get_message(current.board_message_id or 0)
    assert board is not None and board.channel_id == channel.id and board.webhook_id

    # A pause past Discord's 15 minutes: no interaction so far can show anything any more.
    fake.expire_interactions()
    shown = await fake.slash_anywhere(carol, channel, "board")
    posted = (await reply_of(shown)).message
    assert posted is not None and "Pips:" in posted.text()
    end = time.monotonic() + TIMEOUT
    while (resumed := await db.get_game(game.id)) is None or (
        resumed.board_message_id != posted.id
    ):
        assert time.monotonic() < end, "/board did not become the live board"
        await asyncio.sleep(0.02)
    assert resumed.version == current.version  # nothing lost
    # The live board's buttons work there: Play opens the private move builder, Confirm plays.
    resumed = await click_to_play(fake, db, carol, posted, resumed)
    live = fake.get_message(resumed.board_message_id or 0)
    assert live is not None and not live.ephemeral and live.attachments
    # It goes on from there, to the end, through the new interactions only.
    rest = await play_turns(fake, db, carol, channel, resumed, 3000)
    assert rest is None
    finished = await db.get_game(game.id)
    assert finished is not None and finished.status == "finished"
    assert finished.board_owed_version is None
    # Never a call to the channel itself: Discord would refuse it (403 Missing Access).
    assert channel_calls(fake, channel) == []
    assert [e for e in fake.errors if e.status == 403] == []
    # Its player's practice record has it; no server does.
    assert [r.games for r in await db.practice_record(carol.id)] == [1]


async def test_a_group_dm_with_the_app_on_a_players_account(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    db = bot.services.db
    erin, frank = fake.add_user("erin"), fake.add_user("frank")
    group = fake.add_group_dm("friends", [erin, frank])
    fake.install_to_user(erin)
    game = await start(fake, db, erin, group, "dutch")
    assert game.context == "user"
    assert await play_turns(fake, db, erin, group, game, 3) is not None
    rules = await fake.slash_anywhere(erin, group, "rules", variant="dutch")
    assert (await rules.wait_initial(TIMEOUT)).data.get("embeds")
    # Resigning asks first, privately; confirmed, the game ends with its Rematch button.
    asked = await fake.slash_anywhere(erin, group, "resign")
    question = await asked.wait_original()
    assert question.ephemeral
    confirm = next(c for c in question.custom_ids() if c.startswith("bg:cf:resign:"))
    await (await fake.click(erin, question, confirm)).wait_initial(TIMEOUT)
    end = time.monotonic() + TIMEOUT
    while (
        (over := await db.get_game(game.id)) is None
        or over.board_owed_version is not None
        or (over.status == "active")
    ):
        assert time.monotonic() < end, "the resignation was not shown"
        await asyncio.sleep(0.02)
    assert over.status == "finished" and over.result_kind == "resign"
    card = fake.get_message(over.board_message_id or 0)
    assert card is not None and any(c.startswith("bg:res:rematch:") for c in card.custom_ids())
    assert channel_calls(fake, group) == []


async def test_kill_9_in_the_middle_of_a_dm_game(fake: FakeDiscord, tmp_path: Path) -> None:
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=5, global_commands=True)
    await process.start()
    db = await Database.open(db_path)
    try:
        alice = fake.add_user("alice")
        dm = fake.dm_channel(alice)
        game = await start(fake, db, alice, dm, "pin")
        current = await play_turns(fake, db, alice, dm, game, 3)
        assert current is not None
        # An action committed, then SIGKILL while the computer may still be thinking.
        await human_turn(fake, alice, dm, current)
        end = time.monotonic() + TIMEOUT
        while (await db.get_game(game.id)).version == current.version:  # type: ignore[union-attr]
            assert time.monotonic() < end, "the action was not committed"
            await asyncio.sleep(0.005)
        process.kill()
        await process.start()
        # The committed action survived; the computer's turn is resumed and its board owed
        # in the DM is posted (the bot may post there).
        fresh = await settled(db, current)
        if fresh is not None:
            board = fake.get_message(fresh.board_message_id or 0)
            assert board is not None and board.channel_id == dm.id
            assert await play_turns(fake, db, alice, dm, fresh, 3000) is None
        finished = await db.get_game(game.id)
        assert finished is not None and finished.status == "finished"
        assert finished.board_owed_version is None
        moves = await db.game_moves(game.id)
        assert len({m.seq for m in moves}) == len(moves)
    finally:
        await db.close()
        process.stop()


async def test_kill_9_in_a_user_install_game_then_board(fake: FakeDiscord, tmp_path: Path) -> None:
    """Where the bot is not a member, the board of the computer's turn resumed after a restart
    cannot be posted: it stays owed until the player's next interaction shows it."""
    elsewhere = fake.add_guild("No bot here", with_bot=False)
    channel = next(elsewhere.text_channels())
    carol = fake.add_user("carol", guilds=[elsewhere])
    fake.install_to_user(carol)
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=3, global_commands=True)
    await process.start()
    db = await Database.open(db_path)
    try:
        game = await start(fake, db, carol, channel, "blocking")
        current = await play_turns(fake, db, carol, channel, game, 2)
        assert current is not None
        await human_turn(fake, carol, channel, current)
        end = time.monotonic() + TIMEOUT
        while (await db.get_game(game.id)).version == current.version:  # type: ignore[union-attr]
            assert time.monotonic() < end, "the action was not committed"
            await asyncio.sleep(0.005)
        process.kill()
        committed = await db.get_game(game.id)
        assert committed is not None
        await process.start()
        # The computer's turn is played after the restart; its board is owed, not posted.
        end = time.monotonic() + COMPUTER_TURN_TIMEOUT
        while True:
            fresh = await db.get_game(game.id)
            assert fresh is not None
            state = GameState.from_json(fresh.state_json)
            if fresh.status != "active" or (state.mover == 0 and not state.is_over):
                break
            assert time.monotonic() < end, "the computer's turn was not resumed"
            await asyncio.sleep(0.05)
        computer_owed = GameState.from_json(committed.state_json).mover == 1
        if fresh.status == "active":
            if computer_owed:  # played after the restart: nothing could show it yet
                assert fresh.version > committed.version and fresh.board_owed_version is not None
            shown = await reply_of(await fake.slash_anywhere(carol, channel, "board"))
            assert shown.message is not None and not shown.ephemeral
            end = time.monotonic() + TIMEOUT
            while (paid := await db.get_game(game.id)) is None or paid.board_owed_version:
                assert time.monotonic() < end, "/board did not pay the owed board"
                await asyncio.sleep(0.02)
            assert paid.board_message_id == shown.message.id and paid.version == fresh.version
            await play_turns(fake, db, carol, channel, paid, 3)
            after = await db.get_game(game.id)
            assert after is not None and after.version > paid.version
        assert channel_calls(fake, channel) == []
        assert [e for e in fake.errors if e.status == 403] == []
    finally:
        await db.close()
        process.stop()
