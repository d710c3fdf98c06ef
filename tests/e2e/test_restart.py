"""kill -9 of the bot process mid-game, restart, and the game goes on from the same position."""

from __future__ import annotations

from pathlib import Path

from engine.game import ROLL, GameState
from storage import Database
from tests.fake_discord import FakeDiscord

from .harness import TIMEOUT, BotProcess, Table


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
        acknowledged = await table.step()  # a reply was received: that action must survive
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
        clicked = await fake.click(user, table.last_board, roll_button)  # type: ignore[arg-type]
        callback = await clicked.wait_initial(TIMEOUT)
        assert not callback.ephemeral and callback.files, callback.content
        after = await table.game()
        assert after is not None and after.version == game.version + 1
        assert GameState.from_json(after.state_json).game_number == before.game_number
        table.last_board = clicked.original
        final = await table.play_out()
        assert "Game over" in (final.callback.content or "")  # type: ignore[union-attr]
    finally:
        process.stop()
        await db.close()
