"""Races and Discord-side faults through the fake Discord: every request gets a specific reply,
no traceback, and a committed action is never reported as failed."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest

from discord_ui.client import BackgammonBot
from engine.game import MOVE, GameState
from storage import Database
from tests.fake_discord import FakeDiscord, InteractionHandle
from tests.fake_discord.models import PERM_CREATE_PUBLIC_THREADS

from .harness import (
    TIMEOUT,
    BotProcess,
    Table,
    abort_game,
    board_images,
    eventually,
    interactions_done,
    mover_user,
)

CALLBACK = r"/interactions/\d+/[^/]+/callback$"
CHANNEL_POST = r"/channels/\d+/messages$"
FOLLOWUP = r"/webhooks/\d+/[^/]+$"
GENERIC = "Something went wrong"


def _no_errors_logged(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not bad, [r.getMessage() for r in bad]


async def _replies(handles: list[InteractionHandle]) -> list[tuple[bool, str]]:
    callbacks = await asyncio.gather(*(h.wait_initial(TIMEOUT) for h in handles))
    return [(c.ephemeral, c.content or "") for c in callbacks]


async def test_concurrent_challenges_in_one_channel(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    challengers = [table.alice, *(fake.add_user(f"c{i}") for i in range(5))]
    handles = await asyncio.gather(
        *(
            fake.slash(user, table.channel, "challenge", opponent=table.bob, variant="pin")
            for user in challengers
        )
    )
    replies = await _replies(list(handles))
    public = [text for ephemeral, text in replies if not ephemeral]
    refused = [text for ephemeral, text in replies if ephemeral]
    assert len(public) == 1 and "challenges you" in public[0]
    assert len(refused) == len(challengers) - 1
    assert all(GENERIC not in text and "challenge" in text for text in refused), refused
    _no_errors_logged(caplog)


async def test_concurrent_moderator_aborts(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    await table.challenge("pin")
    mods = fake.add_role("mods", permissions=1 << 13)
    moderators = [fake.add_user(f"mod{i}", roles=[mods]) for i in range(3)]
    replies = await asyncio.gather(*(abort_game(fake, user, table.channel) for user in moderators))
    assert sum(not e and "aborted" in t for e, t in replies) == 1, replies
    others = [t for e, t in replies if e]
    assert len(others) == 2 and all("already ended" in t for t in others), replies
    assert await table.game() is None
    _no_errors_logged(caplog)


async def test_both_players_abort_at_once(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    await table.challenge("pin")
    game = await table.game()
    assert game is not None
    replies = await asyncio.gather(
        abort_game(fake, table.alice, table.channel),
        abort_game(fake, table.bob, table.channel),
    )
    texts = sorted(t for _, t in replies)
    assert any("wants to abort" in t for t in texts), texts
    assert any("was aborted" in t for t in texts), texts
    assert await table.game() is None
    aborted = await table.db.get_game(game.id)
    assert aborted is not None and aborted.status == "aborted"
    _no_errors_logged(caplog)


async def test_repeated_abort_request_is_answered_privately(
    table: Table, fake: FakeDiscord
) -> None:
    await table.challenge("pin")
    ephemeral, said = await abort_game(fake, table.alice, table.channel)
    assert not ephemeral and "wants to abort" in said
    ephemeral, said = await abort_game(fake, table.alice, table.channel)
    assert ephemeral and "already asked" in said
    assert await table.game() is not None


async def test_a_move_cancels_a_pending_abort_request(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("pin")
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    asker = mover_user(game, state, table.users)
    other = table.bob if asker is table.alice else table.alice
    await abort_game(fake, asker, table.channel)
    assert await table.db.abort_requested_by(game.id) == asker.id
    await table.step()  # the asker plays on instead
    assert await table.db.abort_requested_by(game.id) is None
    _, said = await abort_game(fake, other, table.channel)
    assert "wants to abort" in said
    assert await table.game() is not None


async def test_abort_request_survives_a_restart(fake: FakeDiscord, tmp_path: Path) -> None:
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=3)
    await process.start()
    db = await Database.open(db_path)
    try:
        table = Table(fake, db, fake.general, fake.add_user("alice"), fake.add_user("bob"))
        await table.challenge("pin")
        _, said = await abort_game(fake, table.alice, table.channel)
        assert "wants to abort" in said
        process.kill()
        await process.start()
        ephemeral, said = await abort_game(fake, table.bob, table.channel)
        assert not ephemeral and "was aborted" in said
        assert await table.game() is None
    finally:
        process.stop()
        await db.close()


async def _send_move(table: Table) -> tuple[InteractionHandle, int]:
    """The player to move sends a legal /move; returns the handle and the version before."""
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    while state.phase != MOVE:
        await table.step()
        game = await table.game()
        assert game is not None
        state = GameState.from_json(game.state_json)
    play = sorted(p.text or "pass" for p in state.legal_plays())[0]
    user = mover_user(game, state, table.users)
    return await table.fake.slash(user, table.channel, "move", play=play), game.version


async def test_5xx_on_the_acknowledgement_the_move_still_counts_and_shows(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    await table.challenge("pin")
    # Discord takes the acknowledgement but answers 500; discord.py retries, and the retry is
    # refused as already acknowledged. Nothing was done yet: the bot carries on, commits, and
    # posts the next board in the channel.
    fault = fake.inject_fault("POST", CALLBACK, 500, after=True)
    mark = fake.mark()
    handle, version = await _send_move(table)
    board = await fake.wait_for_channel_message(
        table.channel, lambda m: bool(m.attachments) and not m.ephemeral, TIMEOUT, after=mark
    )
    assert fault.hits == 1 and board.attachments[0].data.startswith(b"\x89PNG")
    game = await table.game()
    assert game is not None and game.version == version + 1
    assert not any(GENERIC in m.text() for m in handle.messages)
    _no_errors_logged(caplog)


async def test_refused_board_after_a_committed_move(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    await table.challenge("pin")
    # Discord refuses the board, sent as the interaction's follow-up and then through the
    # channel (the bot lost Send Messages there): the player is told privately that the move
    # was recorded, never to try again.
    fault = fake.inject_fault("POST", FOLLOWUP, 403, code=50013, message="Missing Permissions")
    fake.inject_fault("POST", CHANNEL_POST, 403, code=50013, message="Missing Permissions")
    handle, version = await _send_move(table)
    followups = await handle.wait_followups(1, TIMEOUT)
    assert fault.hits >= 1
    text = followups[0].text()
    assert followups[0].ephemeral
    assert "recorded" in text and "/board" in text and "try again" not in text.lower()
    game = await table.game()
    assert game is not None and game.version == version + 1
    _no_errors_logged(caplog)


async def test_failed_board_the_channel_gets_it_at_the_next_command(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    await table.challenge("pin")
    # The board post is refused (follow-up, then channel): the move counts, the board is owed.
    fake.inject_fault("POST", FOLLOWUP, 403, code=50013, message="Missing Permissions")
    fake.inject_fault("POST", CHANNEL_POST, 403, code=50013, message="Missing Permissions")
    handle, version = await _send_move(table)
    game = await table.game()
    for _ in range(100):
        if game is not None and game.version == version + 1:
            break
        await asyncio.sleep(0.05)
        game = await table.game()
    assert game is not None and game.version == version + 1  # the move counts
    await handle.wait_followups(1, TIMEOUT)  # "recorded" privately
    mark = fake.mark()
    # Anyone using a game command there next makes the bot post the board it owes.
    watcher = fake.add_user("watcher")
    asked = await fake.slash(watcher, table.channel, "resign")
    assert (await asked.wait_initial(TIMEOUT)).ephemeral
    board = await fake.wait_for_channel_message(
        table.channel, lambda m: bool(m.attachments) and not m.ephemeral, TIMEOUT, after=mark
    )
    assert board.attachments[0].data.startswith(b"\x89PNG")
    _no_errors_logged(caplog)


async def test_late_acknowledgement_the_move_still_counts_and_shows(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    await table.challenge("pin")
    # Past Discord's 3 s the interaction is gone: 404 Unknown interaction. The board does not
    # need it: it is a channel message of its own.
    fake.inject_fault("POST", CALLBACK, 404, code=10062, message="Unknown interaction")
    mark = fake.mark()
    _, version = await _send_move(table)
    await fake.wait_for_channel_message(
        table.channel, lambda m: bool(m.attachments) and not m.ephemeral, TIMEOUT, after=mark
    )
    game = await table.game()
    assert game is not None and game.version == version + 1
    await asyncio.sleep(0.2)
    extra = [m for m in fake.messages_in(table.channel) if m.id > mark and m.attachments]
    assert len(extra) == 1, extra  # exactly one board, nothing owed
    _no_errors_logged(caplog)


async def test_challenge_posted_but_not_re_readable(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    fake.inject_fault(
        "GET",
        r"/webhooks/\d+/[^/]+/messages/@original$",
        404,
        code=10008,
        message="Unknown Message",
    )
    handle = await fake.slash(
        table.alice, table.channel, "challenge", opponent=table.bob, variant="pin"
    )
    callback = await handle.wait_initial(TIMEOUT)
    assert not callback.ephemeral and "challenges you" in (callback.content or "")
    mark = fake.mark()
    await fake.slash(table.bob, table.channel, "accept")
    await fake.wait_for_channel_message(
        table.channel, lambda m: bool(m.attachments) and not m.ephemeral, TIMEOUT, after=mark
    )
    assert await table.game() is not None
    _no_errors_logged(caplog)


async def test_database_file_deleted_under_the_running_bot(
    table: Table, fake: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    await table.challenge("pin")
    game = await table.game()
    assert game is not None
    db_file = Path(table.db.path)  # type: ignore[attr-defined]
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_file}{suffix}").unlink(missing_ok=True)
    state = GameState.from_json(game.state_json)
    user = mover_user(game, state, table.users)
    handle = await fake.slash(user, table.channel, "board")
    callback = await handle.wait_initial(TIMEOUT)
    assert callback.ephemeral
    assert "database file was removed or replaced" in (callback.content or "")
    assert GENERIC not in (callback.content or "")
    assert any(r.levelno == logging.CRITICAL for r in caplog.records)


async def test_a_board_that_got_out_is_not_posted_again(
    table: Table, fake: FakeDiscord, bot: BackgammonBot
) -> None:
    """Killed right after a board reached the channel, before its message id was stored: the
    debt is on record, but the board is in the channel (its buttons name the game and its
    version). Paying the debt finds it instead of posting a second board."""
    await table.challenge("classic")
    await table.step()
    await table.step()
    await interactions_done()  # nothing in flight: the kill comes between two actions
    game = await table.game()
    assert game is not None and game.board_message_id is not None
    live = game.board_message_id
    # What a kill between the post and its note leaves: the debt, and the older board's id.
    older = next(m.id for m in board_images(fake, table.channel) if m.id != live)
    with sqlite3.connect(table.db.path) as raw:  # type: ignore[attr-defined]
        raw.execute(
            "UPDATE games SET board_owed_version = version, board_message_id = ? WHERE id = ?",
            (older, game.id),
        )
    before = len(board_images(fake, table.channel))
    cog = bot.get_cog("Games")
    assert await cog.post_owed_boards() == 0  # type: ignore[union-attr]
    assert len(board_images(fake, table.channel)) == before
    paid = await table.db.get_game(game.id)
    assert paid is not None and paid.board_owed_version is None
    assert paid.board_message_id == live
    # An edit in place that got out likewise: the board is the stored one, just marked shown.
    with sqlite3.connect(table.db.path) as raw:  # type: ignore[attr-defined]
        raw.execute("UPDATE games SET board_owed_version = version WHERE id = ?", (game.id,))
    assert await cog.post_owed_boards() == 0  # type: ignore[union-attr]
    assert len(board_images(fake, table.channel)) == before
    paid = await table.db.get_game(game.id)
    assert paid is not None and paid.board_owed_version is None


async def test_a_deleted_thread_moves_its_game_to_the_channel(
    table: Table, fake: FakeDiscord
) -> None:
    """A moderator deletes a running game's thread: the game goes on in the channel it was
    challenged in, with its board, and nothing is lost."""
    await table.challenge("pin")
    await table.step()
    game = await table.game()
    assert game is not None and table.home is not None
    thread, home = table.channel, table.home
    await interactions_done()  # the last action's tidying is done before the deletion
    mark = fake.mark()
    fake.delete_thread(thread)
    board = await fake.wait_for_channel_message(
        home, lambda m: bool(m.attachments) and not m.ephemeral, TIMEOUT, after=mark
    )
    for _ in range(200):  # its message id is stored right after the post
        moved = await table.db.get_game(game.id)
        if moved is not None and moved.board_message_id is not None:
            break
        await asyncio.sleep(0.02)
    assert moved is not None and moved.status == "active"
    assert moved.channel_id == home.id and moved.parent_channel_id is None
    assert (moved.version, moved.state_json) == (game.version, game.state_json)
    assert moved.board_message_id == board.id and moved.board_owed_version is None
    table.channel = home
    await table.step()  # and it goes on there
    assert fake.errors == []


async def test_without_thread_permission_the_game_stays_in_the_channel(
    table: Table, fake: FakeDiscord
) -> None:
    for role in fake.guild.roles.values():
        role.permissions &= ~PERM_CREATE_PUBLIC_THREADS
    await table.challenge("dutch")
    game = await table.game()
    assert game is not None and game.channel_id == table.channel.id
    assert game.parent_channel_id is None and not list(fake.guild.threads())


async def test_a_confirmation_clicked_twice_acts_once(table: Table, fake: FakeDiscord) -> None:
    """/resign's Resign button clicked twice at once (a double click, two devices): one
    resignation, and the other click is answered privately."""
    await table.challenge("blocking")
    game = await table.game()
    assert game is not None
    asked = await fake.slash(table.alice, table.channel, "resign")
    question = await asked.wait_original()
    button = next(c for c in question.custom_ids() if c.startswith("bg:cf:resign:"))
    clicks = await asyncio.gather(
        fake.click(table.alice, question, button), fake.click(table.alice, question, button)
    )
    for click in clicks:
        await click.wait_initial(TIMEOUT)

    def refused() -> list[str]:
        return [m.text() for c in clicks for m in c.followups if m.ephemeral]

    await eventually(lambda: len(refused()) == 1, "the second click answered")
    assert "over" in refused()[0] or "older" in refused()[0], refused()
    finished = await table.db.get_game(game.id)
    assert finished is not None and finished.status == "finished"
    moves = await table.db.game_moves(game.id)
    assert sum(1 for m in moves if m.kind == "resign") == 1
