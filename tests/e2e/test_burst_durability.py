"""Many games move at the same instant (their commits grouped) and the bot is killed with
SIGKILL in the middle: every move whose board was shown is in the database afterwards."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bench.e2e import next_order, open_tables, send_move
from storage import Database
from tests.fake_discord import FakeDiscord

from .harness import BotProcess, Table


async def test_kill_9_mid_burst_loses_no_shown_move(fake: FakeDiscord, tmp_path: Path) -> None:
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=9)
    await process.start()
    db = await Database.open(db_path)
    try:
        tables = await open_tables(30, fake, db, "burst")
        before: dict[int, tuple[int, int]] = {}  # channel -> (game id, version)
        orders = []
        for table in tables:
            game = await table.game()
            order = await next_order(table)
            if game is not None and order is not None:
                before[table.channel.id] = (game.id, game.version)
                orders.append((table, order))
        shown: list[Table] = []

        async def move(table: Table, user: object, play: str) -> None:
            await send_move(table, user, play)  # type: ignore[arg-type]
            shown.append(table)

        tasks = [asyncio.create_task(move(t, *o)) for t, o in orders]
        while len(shown) < len(tasks) // 3:
            await asyncio.sleep(0.001)
        process.kill()
        seen = list(shown)  # shown before the kill: those moves were acknowledged
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        assert seen
        for table in seen:
            game_id, version = before[table.channel.id]
            after = await db.get_game(game_id)
            assert after is not None and after.version > version, table.channel.name
            moves = await db.game_moves(game_id)
            assert any(m.kind == "play" and m.actor_id is not None for m in moves)
    finally:
        process.stop()
        await db.close()
