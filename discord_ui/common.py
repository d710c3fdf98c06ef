"""Small helpers shared by the cogs."""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import Any

import aiohttp
import discord
from discord import app_commands

from app.records import GameChoice

log = logging.getLogger(__name__)


async def guarded(interaction: discord.Interaction[Any], work: Coroutine[Any, Any, None]) -> None:
    """Button callbacks bypass the command tree; send their errors to the same boundary."""
    try:
        await work
    except Exception as exc:
        await interaction.client.tree.report_unexpected(interaction, exc, "button")


async def send_committed(
    interaction: discord.Interaction[Any], send: Coroutine[Any, Any, object], recorded: str
) -> bool:
    """Send the reply to an action that is already committed; False if Discord did not take
    it (5xx, 429, a late callback). Then never suggest trying again: tell the player privately
    that it was recorded (``recorded``), if Discord still lets the bot."""
    try:
        await send
    except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
        log.warning(
            "action in channel %s committed but its reply failed: %s", interaction.channel_id, exc
        )
        try:
            await interaction.followup.send(recorded, ephemeral=True)
        except Exception as again:
            log.warning("the follow-up failed too: %s", again)
        return False
    return True


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


async def reply_error(interaction: discord.Interaction[Any], message: str) -> None:
    """Tell only the person who asked what is wrong (ephemeral), whatever was sent before."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)
    except discord.NotFound:
        # The interaction could not be acknowledged in time (Discord answers 404 for it):
        # there is nobody left to tell.
        log.info("refusal for interaction %s not delivered: %s", interaction.id, message[:80])


def game_choices(choices: list[GameChoice]) -> list[app_commands.Choice[int]]:
    """Recent games offered for a game-number option (autocomplete)."""
    return [app_commands.Choice(name=c.label, value=c.game_id) for c in choices]
