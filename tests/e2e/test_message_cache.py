"""The bot keeps no message cache (its own messages come back from each request, and nothing
reads old ones from the cache) and asks for no message, reaction, typing or poll events (it acts
on interactions only), and games run as before without them."""

from __future__ import annotations

from discord_ui.client import BackgammonBot
from tests.fake_discord import FakeDiscord
from tests.fake_discord.gateway import INTENT_GUILD_MESSAGES, INTENT_GUILDS

from .harness import Table


async def test_the_bot_keeps_no_message_cache(
    fake: FakeDiscord, bot: BackgammonBot, table: Table
) -> None:
    assert bot._connection.max_messages is None
    await table.challenge("pin")
    for _ in range(4):
        await table.step(use_buttons=False)
    assert len(table.boards) >= 4
    assert not bot.cached_messages
    session = fake.active_session
    assert session is not None and session.intents == bot.intents.value
    # The fake sends MESSAGE_CREATE/UPDATE/DELETE only to a session with this intent.
    assert session.intents & INTENT_GUILDS and not session.intents & INTENT_GUILD_MESSAGES
    intents = bot.intents
    assert not (intents.messages or intents.reactions or intents.typing or intents.polls)
    assert not (intents.members or intents.presences or intents.message_content)  # privileged
