"""The application layer under test: real SQLite files, a fake clock, no Discord."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.challenges import Challenges
from app.play import Play
from app.table import GameTable
from storage import Storage, open_storage


class FakeClock:
    """Time that moves only when a test says so."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Storage]:
    storage = await open_storage(tmp_path / "app.sqlite3")
    try:
        yield storage
    finally:
        await storage.close()


@pytest.fixture
def table(db: Storage, clock: FakeClock) -> GameTable:
    # No render pool: these tests draw nothing.
    return GameTable(db, random.Random(7), clock=clock)


@pytest.fixture
def challenges(db: Storage, table: GameTable) -> Challenges:
    return Challenges(db, table)


@pytest.fixture
def play(db: Storage, table: GameTable) -> Play:
    return Play(db, table)
