"""Small helpers shared by the cogs."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

import discord


async def guarded(interaction: discord.Interaction[Any], work: Coroutine[Any, Any, None]) -> None:
    """Button callbacks bypass the command tree; send their errors to the same boundary."""
    try:
        await work
    except Exception as exc:
        await interaction.client.tree.report_unexpected(interaction, exc, "button")


def mention(user_id: int) -> str:
    return f"<@{user_id}>"
