"""Fixtures of the app/ tests: a real SQLite file (in pytest's tmp_path), a GameTable on it
and a clock that only moves when a test moves it. No Discord anywhere."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.challenges import Challenges
from app.play import Play
from app.table import GameTable
from engine.game import GameState
from storage import Game, Storage, open_storage

GUILD = 111
CHANNEL = 222
ALICE = 1001
BOB = 1002
#: When the test games start (the fake clock's epoch).
START = 1_700_000_000.0


class FakeClock:
    """Time that moves only when a test says so."""

    def __init__(self, now: float = START) -> None:
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
    database = await open_storage(tmp_path / "bot.sqlite3")
    try:
        yield database
    finally:
        await database.close()


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


async def new_game(
    db: Storage,
    *,
    variant: str = "classic",
    channel: int = CHANNEL,
    now: float = START,
    hints: bool = False,
) -> Game:
    """An active game of alice (X) against bob (O) started at ``now``, opening roll played."""
    state = GameState.new(variant, ("alice", "bob"), random.Random(3))
    return await db.create_game(
        GUILD, channel, variant, ALICE, BOB, state.to_json(), now=now, hints=hints
    )
