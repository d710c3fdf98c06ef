"""What the bot asks of the gateway: guild events only (no message events to parse and no
message cache), and games still run on interactions alone."""

from __future__ import annotations

from bot import BackgammonBot
from tests.fake_discord import FakeDiscord

from .harness import Table

GUILDS_INTENT = 1 << 0


async def test_the_bot_asks_for_guild_events_only(
    fake: FakeDiscord, bot: BackgammonBot, table: Table
) -> None:
    session = fake.active_session
    assert session is not None and session.intents == GUILDS_INTENT
    assert bot.intents.value == GUILDS_INTENT and bot._connection.max_messages is None
    await table.challenge("pin")
    for _ in range(4):
        await table.step(use_buttons=False)
    assert len(table.boards) >= 4
    assert not bot.cached_messages
