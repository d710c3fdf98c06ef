"""Slash commands are synced at start only when they changed since the last sync (the hash of
the payload is kept in the database)."""

from __future__ import annotations

from pathlib import Path

from storage import Database
from tests.fake_discord import FakeDiscord

from .harness import bot_in_process


async def test_a_second_start_with_unchanged_commands_does_not_sync(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db_path = tmp_path / "bot.sqlite3"
    async with bot_in_process(fake, db_path):
        pass
    assert [s.guild_id for s in fake.command_syncs] == [fake.guild.id]
    first = fake.command_syncs[0].names
    assert "move" in first and "review" in first

    async with bot_in_process(fake, db_path):
        pass
    assert len(fake.command_syncs) == 1  # the restart left Discord alone

    # Other commands (here: a different hash on record, as after an upgrade) sync again.
    db = await Database.open(db_path)
    try:
        key = f"commands:{fake.application_id}:{fake.guild.id}"
        assert await db.get_bot_state(key) is not None
        await db.set_bot_state(key, "an older command set", now=1.0)
    finally:
        await db.close()
    async with bot_in_process(fake, db_path):
        pass
    assert len(fake.command_syncs) == 2
    assert sorted(fake.command_syncs[1].names) == sorted(first)
