"""The database file deleted or replaced under an open Database: refuse, loudly, once."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from storage import Database, DatabaseGoneError
from tests.storage.conftest import CHANNEL, new_game


async def test_deleted_file_stops_everything(
    db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = await Database.open(db_path)
    try:
        game = await new_game(db)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        with caplog.at_level(logging.CRITICAL, logger="storage"):
            with pytest.raises(DatabaseGoneError, match="gone"):
                await db.commit_action(game.id, game.version, "{}", [], now=2000.0)
            with pytest.raises(DatabaseGoneError):
                await db.get_active_game(CHANNEL)
        critical = [r for r in caplog.records if r.levelno == logging.CRITICAL]
        assert len(critical) == 1 and "no action is accepted" in critical[0].getMessage()
    finally:
        await db.close()


async def test_replaced_file_stops_everything(db_path: Path, tmp_path: Path) -> None:
    db = await Database.open(db_path)
    other_path = tmp_path / "other.sqlite3"
    other = await Database.open(other_path)
    await other.close()
    try:
        game = await new_game(db)
        os.replace(other_path, db_path)
        with pytest.raises(DatabaseGoneError, match="replaced"):
            await db.commit_action(game.id, game.version, "{}", [], now=2000.0)
    finally:
        await db.close()


async def test_same_file_keeps_working(db_path: Path) -> None:
    db = await Database.open(db_path)
    try:
        game = await new_game(db)
        os.utime(db_path)  # touched, not replaced
        saved = await db.commit_action(game.id, game.version, "{}", [], now=2000.0)
        assert saved.version == game.version + 1
    finally:
        await db.close()
