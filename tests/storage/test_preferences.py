"""Board looks kept in storage: the server's theme (/settings theme) and each player's own
preferences (/preferences), on both backends."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest

from storage import GuildSettings, InvalidInputError, PlayerPreferences, Storage
from storage.database import Database
from storage.schema import MIGRATIONS_DIR
from tests.storage.conftest import GUILD


async def test_server_theme_defaults_changes_and_keeps_the_timers(db: Storage) -> None:
    assert (await db.get_guild_settings(GUILD)).board_theme == "default"
    timers = await db.set_guild_settings(GUILD, claim_after_seconds=7200)
    themed = await db.set_guild_settings(GUILD, board_theme="high-contrast")
    assert themed == GuildSettings(
        GUILD,
        timers.reminder_after_seconds,
        7200,
        timers.challenge_expiry_seconds,
        "high-contrast",
    )
    # Changing a timer keeps the theme, and another server keeps its own default.
    again = await db.set_guild_settings(GUILD, reminder_after_seconds=60)
    assert again.board_theme == "high-contrast" and again.claim_after_seconds == 7200
    assert await db.get_guild_settings(GUILD) == again
    assert (await db.get_guild_settings(GUILD + 1)).board_theme == "default"


@pytest.mark.parametrize("bad", ["", " x", "x" * 41, "a\x00b", "line\nbreak", 3])
async def test_bad_theme_names_are_refused_before_any_change(db: Storage, bad: object) -> None:
    before = await db.set_guild_settings(GUILD, board_theme="high-contrast")
    with pytest.raises(InvalidInputError):
        await db.set_guild_settings(GUILD, board_theme=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        await db.set_player_preferences(5, now=1.0, board_theme=bad)  # type: ignore[arg-type]
    assert await db.get_guild_settings(GUILD) == before
    assert await db.get_player_preferences(5) == PlayerPreferences(5)


async def test_player_preferences_default_update_and_forget(db: Storage) -> None:
    assert await db.get_player_preferences(7) == PlayerPreferences(7, None, True)
    chosen = await db.set_player_preferences(7, now=10.0, board_theme="high-contrast")
    assert chosen == PlayerPreferences(7, "high-contrast", True)
    # One option at a time: the other stays as it was.
    sided = await db.set_player_preferences(7, now=11.0, own_side=False)
    assert sided == PlayerPreferences(7, "high-contrast", False)
    assert await db.get_player_preferences(7) == sided
    back = await db.set_player_preferences(7, now=12.0, server_theme=True)
    assert back == PlayerPreferences(7, None, False)
    assert await db.get_player_preferences(7) == back
    assert await db.get_player_preferences(8) == PlayerPreferences(8)
    with pytest.raises(InvalidInputError):
        await db.set_player_preferences(7, now=13.0, board_theme="default", server_theme=True)
    with pytest.raises(InvalidInputError):
        await db.set_player_preferences(7, now=13.0, own_side=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        await db.set_player_preferences(-1, now=13.0, own_side=True)
    assert await db.get_player_preferences(7) == back


async def test_concurrent_first_preferences_both_land(db: Storage) -> None:
    await asyncio.gather(
        *(db.set_player_preferences(u, now=1.0, own_side=True) for u in range(100, 120)),
        *(db.set_player_preferences(100, now=2.0, board_theme="high-contrast") for _ in range(3)),
    )
    for user in range(101, 120):
        assert (await db.get_player_preferences(user)).own_side
    assert (await db.get_player_preferences(100)).board_theme == "high-contrast"


async def test_preferences_survive_a_reopen(target: str) -> None:
    from storage import open_storage

    db = await open_storage(target)
    await db.set_player_preferences(9, now=1.0, board_theme="high-contrast", own_side=True)
    await db.set_guild_settings(GUILD, board_theme="high-contrast")
    await db.close()
    again = await open_storage(target)
    try:
        assert await again.get_player_preferences(9) == PlayerPreferences(9, "high-contrast", True)
        assert (await again.get_guild_settings(GUILD)).board_theme == "high-contrast"
    finally:
        await again.close()


async def test_an_older_file_keeps_its_settings_and_gains_the_defaults(
    db_path: Path, tmp_path: Path
) -> None:
    """A SQLite file written before 0006 keeps its timers and gets the default look."""
    older = tmp_path / "older"
    older.mkdir()
    for sql in sorted(MIGRATIONS_DIR.glob("*.sql")):
        if int(sql.name[:4]) < 6:
            shutil.copy(sql, older / sql.name)
    db = await Database.open(db_path, migrations_dir=older)
    await db.close()
    with sqlite3.connect(db_path) as conn:
        conn.execute(
            "INSERT INTO guild_settings (guild_id, reminder_after_seconds) VALUES (?, 60)",
            (GUILD,),
        )
    current = await Database.open(db_path)
    try:
        assert await current.get_guild_settings(GUILD) == GuildSettings(
            GUILD, 60, 259200, 600, "default"
        )
        assert await current.get_player_preferences(1) == PlayerPreferences(1)
    finally:
        await current.close()
