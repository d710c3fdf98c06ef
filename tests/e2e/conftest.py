from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from discord_ui.client import BackgammonBot
from tests.fake_discord import FakeDiscord

from .harness import Table, bot_in_process


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as server:
        yield server


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[BackgammonBot]:
    async with bot_in_process(fake, tmp_path / "bot.sqlite3") as client:
        yield client


@pytest.fixture
def table(fake: FakeDiscord, bot: BackgammonBot) -> Table:
    return Table(fake, bot.services.db, fake.general, fake.add_user("alice"), fake.add_user("bob"))
