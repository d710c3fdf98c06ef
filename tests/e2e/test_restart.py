"""kill -9 of the bot process mid-game, restart, and the game goes on from the same position."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from engine.game import DOUBLE, ROLL, GameState
from storage import Database, Game
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeChannel, FakeUser

from .harness import TIMEOUT, BotProcess, Table, eventually, game_started_from


async def test_kill_9_mid_game_and_resume(fake: FakeDiscord, tmp_path: Path) -> None:
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=7)
    await process.start()
    db = await Database.open(db_path)
    try:
        table = Table(fake, db, fake.general, fake.add_user("alice"), fake.add_user("bob"))
        await table.challenge("classic")
        # Play until the player to act must roll (a board with a Roll button), then once more.
        for _ in range(40):
            game = await table.game()
            assert game is not None
            if GameState.from_json(game.state_json).phase == ROLL and table.last_board:
                break
            await table.step(use_buttons=False)
        version = game.version
        acknowledged = await table.step()  # its board is shown: that action must survive
        assert acknowledged.callback is not None
        process.kill()  # SIGKILL right after the acknowledgement

        game = await table.game()
        assert game is not None and game.version == version + 1
        before = GameState.from_json(game.state_json)
        moves = await db.game_moves(game.id)
        assert moves[-1].kind in ("play", "roll", "note")

        await process.start()  # a new process on the same database
        # The board posted before the crash still works: its buttons are persistent.
        while GameState.from_json((await table.game()).state_json).phase != ROLL:  # type: ignore[union-attr]
            await table.step(use_buttons=False)
        game = await table.game()
        assert game is not None
        roll_button = next(c for c in table.last_board.custom_ids() if c.startswith("bg:roll:"))  # type: ignore[union-attr]
        state = GameState.from_json(game.state_json)
        user = table.users[game.player_x if state.mover == 0 else game.player_o]
        assert roll_button
        await table.press(user, "roll")  # the board is redrawn in place with the dice
        after = await table.game()
        assert after is not None and after.version == game.version + 1
        assert GameState.from_json(after.state_json).game_number == before.game_number
        final = await table.play_out()
        assert "Game over" in final.text()
    finally:
        process.stop()
        await db.close()


async def test_kill_9_during_the_computers_turn_plays_it_once_after_restart(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The bot dies while the computer thinks; the new process plays that turn exactly once."""
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=11)
    await process.start()
    db = await Database.open(db_path)
    human = fake.add_user("alice")
    channel = fake.general
    try:
        handle = await fake.slash(
            human, channel, "challenge", opponent=fake.bot_user, variant="classic", level="expert"
        )
        assert not (await handle.wait_initial(TIMEOUT)).ephemeral
        game = await game_started_from(db, channel)
        assert game is not None
        channel = fake.channel(game.channel_id)  # its thread
        killed_at: Game | None = None
        for _ in range(60):
            game = await db.get_game(game.id)
            assert game is not None and game.status == "active"
            state = GameState.from_json(game.state_json)
            if state.mover == 1:  # the computer is thinking: wait for its move
                for _ in range(600):
                    fresh = await db.get_game(game.id)
                    assert fresh is not None
                    if fresh.version != game.version:
                        break
                    await asyncio.sleep(0.05)
                continue
            # The person's move is committed at once; its answer waits for the computer's.
            after = await _send_turn(fake, channel, human, state, db, game)
            if after.status == "active" and GameState.from_json(after.state_json).mover == 1:
                process.kill()  # SIGKILL while the computer thinks about its answer
                killed_at = await db.get_game(game.id)
                assert killed_at is not None
                if GameState.from_json(killed_at.state_json).mover == 1:
                    break  # its turn was not committed before the kill
                await process.start()  # it was quicker than the kill: try the next turn
                killed_at = None
        assert killed_at is not None, "never caught the computer thinking"
        before = GameState.from_json(killed_at.state_json)
        board = fake.get_message(killed_at.board_message_id or 0)
        edits_before = board.edit_count if board is not None else 0
        posted_before = len(fake.messages_in(channel))

        await process.start()
        # The new process plays the pending turn (after its roll, if it rolled) exactly once.
        end = time.monotonic() + 60
        while time.monotonic() < end:
            now = await db.get_game(killed_at.id)
            assert now is not None
            state = GameState.from_json(now.state_json)
            if now.status != "active" or state.mover == 0:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the computer's turn was not resumed after the restart")
        new_lines = state.record[len(before.record) :]
        mine = "Computer (expert) "
        plays = [line for line in new_lines if line.startswith(mine) and ": " in line]
        cube = [line for line in new_lines if "doubles" in line]
        assert len(plays) + len(cube) == 1, new_lines  # one decision, not two
        assert state.record[: len(before.record)] == before.record
        await asyncio.sleep(0.5)  # nothing more happens: no second play
        again = await db.get_game(killed_at.id)
        assert again is not None and again.version == now.version

        # Its reply is shown on the board of the turn (edited in place), or a new one.
        def shown() -> bool:
            latest = fake.get_message(now.board_message_id or 0)
            edited = board is not None and board.edit_count > edits_before
            posted = any(
                m.author.id == fake.bot_user.id and m.attachments
                for m in fake.messages_in(channel)[posted_before:]
            )
            return latest is not None and (edited or posted)

        await eventually(shown, "the computer's reply on a board")
    finally:
        process.stop()
        await db.close()


async def test_kill_9_after_the_computers_move_before_its_board_posts_it_once_after_restart(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The computer's move is committed and its board is on its way to Discord when the bot
    dies: the restarted bot posts that board (once) and plays nothing again."""
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=5)
    await process.start()
    db = await Database.open(db_path)
    human = fake.add_user("carol")
    channel = fake.add_channel("owed-board")
    try:
        handle = await fake.slash(
            human, channel, "challenge", opponent=fake.bot_user, variant="pin", level="expert"
        )
        await handle.wait_initial(TIMEOUT)
        game = await game_started_from(db, channel)
        assert game is not None
        channel = fake.channel(game.channel_id)  # its thread
        held = None
        for _ in range(60):
            game = await db.get_game(game.id)
            assert game is not None and game.status == "active"
            state = GameState.from_json(game.state_json)
            if state.mover == 1:  # the computer's turn: wait for its board
                await _until_humans_turn(db, game.id)
                continue
            # Hold the next board (the person's move with the computer's reply, sent as the
            # command's follow-up) until the bot is dead.
            mark = fake.mark()
            fault = fake.inject_fault("POST", FOLLOWUP, 500, delay=120.0)
            await _send_turn(fake, channel, human, state, db, game)
            for _ in range(800):
                answered = [m for m in fake.messages_in(channel) if m.id > mark and m.attachments]
                if fault.hits or answered:
                    break
                await asyncio.sleep(0.025)
            if fault.hits:
                held = fault
                break
            fake.faults.remove(fault)  # no board was due (a roll): try the next turn
            await _until_humans_turn(db, game.id)
        assert held is not None, "never caught the computer's board on its way"
        # The board post is held: the computer's move is committed, the channel has not got it.
        killed_at = await db.get_game(game.id)
        assert killed_at is not None
        assert killed_at.version > game.version + 1 and killed_at.board_owed_version is not None
        process.kill()
        fake.faults.remove(held)
        before = GameState.from_json(killed_at.state_json)
        assert before.last is not None and before.last.seat == 1  # the computer's play
        mark = fake.mark()

        await process.start()
        board = await fake.wait_for_channel_message(
            channel, lambda m: bool(m.attachments) and not m.ephemeral, TIMEOUT, after=mark
        )
        assert "Computer (expert) played " in board.text(), board.text()
        assert before.last.text in board.text()
        assert board.attachments[0].data.startswith(b"\x89PNG")
        if not before.is_over:
            assert f"<@{human.id}>" in board.text()  # the person is asked to act
        await asyncio.sleep(1.0)  # nothing more comes: no second board, no second move
        boards = [m for m in fake.messages_in(channel) if m.id > mark and m.attachments]
        assert boards == [board]
        after = await db.get_game(killed_at.id)
        assert after is not None
        assert (after.version, after.state_json) == (killed_at.version, killed_at.state_json)
        assert after.board_owed_version is None and after.board_message_id == board.id
    finally:
        process.stop()
        await db.close()


FOLLOWUP = r"/webhooks/\d+/[^/]+$"


async def _send_turn(
    fake: FakeDiscord,
    channel: FakeChannel,
    human: FakeUser,
    state: GameState,
    db: Database,
    game: Game,
) -> Game:
    """The person's decision, sent without waiting for its answer; the game once committed."""
    if state.phase == ROLL:
        handle = await fake.slash(human, channel, "roll")
    elif state.phase == DOUBLE:
        handle = await fake.slash(human, channel, "take")
    else:
        play = min(state.legal_plays(), key=lambda p: (p.after.pips("X"), p.text))
        handle = await fake.slash(human, channel, "move", play=play.text or "pass")
    await handle.wait_initial(TIMEOUT)
    for _ in range(600):
        after = await db.get_game(game.id)
        assert after is not None
        if after.version != game.version:
            return after
        await asyncio.sleep(0.01)
    raise AssertionError("the person's decision was not committed")


async def _until_humans_turn(db: Database, game_id: int) -> None:
    for _ in range(600):
        game = await db.get_game(game_id)
        assert game is not None
        if game.status != "active" or GameState.from_json(game.state_json).mover == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the computer did not answer")


async def test_a_board_discord_refused_is_posted_after_a_kill_9(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Between two people: the board of an accepted move was refused by Discord, then the bot
    was killed before anyone used a command: the restarted bot posts the board it owed."""
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=9)
    await process.start()
    db = await Database.open(db_path)
    try:
        channel = fake.add_channel("refused-board")
        table = Table(fake, db, channel, fake.add_user("dora"), fake.add_user("eve"))
        await table.challenge("pin")
        game = await table.game()
        assert game is not None
        state = GameState.from_json(game.state_json)
        user = table.users[game.player_x if state.mover == 0 else game.player_o]
        play = state.legal_plays()[0].text or "pass"
        channel = table.channel  # the game's thread
        # The board is refused as the command's follow-up and through the channel.
        fake.inject_fault("POST", FOLLOWUP, 403, code=50013, message="Missing Access")
        fault = fake.inject_fault(
            "POST", rf"/channels/{channel.id}/messages$", 403, code=50013, message="Missing Access"
        )
        handle = await fake.slash(user, channel, "move", play=play)
        await handle.wait_followups(1, TIMEOUT)  # told privately that the move was recorded
        assert fault.hits == 1
        moved = await db.get_game(game.id)
        assert moved is not None and moved.version == game.version + 1
        assert moved.board_owed_version == moved.version
        process.kill()
        mark = fake.mark()

        await process.start()
        board = await fake.wait_for_channel_message(
            channel, lambda m: bool(m.attachments) and not m.ephemeral, TIMEOUT, after=mark
        )
        after = GameState.from_json(moved.state_json)
        mover = table.users[moved.player_x if after.mover == 0 else moved.player_o]
        assert f"<@{mover.id}>" in board.text()  # whoever must act now is asked to
        await asyncio.sleep(0.5)
        assert [m for m in fake.messages_in(channel) if m.id > mark and m.attachments] == [board]
        paid = await db.get_game(game.id)
        assert paid is not None and paid.board_owed_version is None
        assert paid.version == moved.version
    finally:
        process.stop()
        await db.close()
