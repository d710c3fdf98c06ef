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


async def reply_error(interaction: discord.Interaction[Any], message: str) -> None:
    """Tell only the person who asked what is wrong (ephemeral), whatever was sent before."""
    if interaction.response.is_done():
        await interaction.followup.send(message, ephemeral=True)
    else:
        await interaction.response.send_message(message, ephemeral=True)
