"""Fixtures: a real SQLite file per test (in pytest's tmp_path)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Database, Game

GUILD = 111
CHANNEL = 222


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "bot.db"


@pytest.fixture
async def db(db_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(db_path)
    try:
        yield database
    finally:
        await database.close()


async def new_game(
    db: Database,
    *,
    channel: int = CHANNEL,
    x: int = 1,
    o: int = 2,
    variant: str = "classic",
    now: float = 1000.0,
    guild: int = GUILD,
) -> Game:
    return await db.create_game(guild, channel, variant, x, o, '{"turn": "x"}', now=now)
