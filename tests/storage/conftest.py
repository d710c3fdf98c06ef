"""Fixtures: every storage test runs against a real SQLite file (in pytest's tmp_path) and a
real PostgreSQL database (a fresh one per test in the session's throwaway cluster)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Game, Storage, open_storage

GUILD = 111
CHANNEL = 222
BACKENDS = ("sqlite", "postgresql")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "bot.services.db"


@pytest.fixture(params=BACKENDS)
async def target(request: pytest.FixtureRequest, db_path: Path) -> str:
    """Where the test's database lives: a SQLite path or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(db_path)
    cluster = request.getfixturevalue("pg_cluster")
    url: str = await cluster.new_database()
    return url


@pytest.fixture
async def db(target: str) -> AsyncIterator[Storage]:
    database = await open_storage(target)
    try:
        yield database
    finally:
        await database.close()


async def new_game(
    db: Storage,
    *,
    channel: int = CHANNEL,
    x: int = 1,
    o: int = 2,
    variant: str = "classic",
    now: float = 1000.0,
    guild: int = GUILD,
) -> Game:
    return await db.create_game(guild, channel, variant, x, o, '{"turn": "x"}', now=now)
