"""Small helpers shared by the cogs."""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

import aiohttp
import discord
from discord import app_commands

from app.records import GameChoice
from app.venues import Venue, guild_scope, venue

log = logging.getLogger(__name__)

T = TypeVar("T")


def anywhere(command: T) -> T:
    """A command for wherever its user is: servers with the bot, the bot's DM, and, installed
    to the user's account, servers without the bot, group DMs and DMs (Discord shows it there)."""
    installs = app_commands.allowed_installs(guilds=True, users=True)
    contexts = app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    return contexts(installs(command))


def works_anywhere(command: object) -> bool:
    """Whether ``command`` was declared with :func:`anywhere`."""
    installs = getattr(command, "allowed_installs", None)
    return installs is not None and bool(installs.user)


#: The mark :func:`expensive` leaves on a command's callback.
_EXPENSIVE = "__backgammon_expensive__"


def expensive(callback: T) -> T:
    """Mark a command (put it under ``@app_commands.command``, like :func:`anywhere`) whose
    answer costs seconds of a worker (a report, a rollout, a picture): the tree counts it
    against the user's front-door limit before anything else runs."""
    setattr(callback, _EXPENSIVE, True)
    return callback


def is_expensive(command: object) -> bool:
    """Whether ``command`` was declared with :func:`expensive`."""
    return bool(getattr(getattr(command, "callback", None), _EXPENSIVE, False))


def where(interaction: discord.Interaction[Any]) -> Venue:
    """Where ``interaction`` came from (see :mod:`app.venues`)."""
    return venue(
        guild_id=interaction.guild_id,
        guild_installed=interaction.is_guild_integration(),
        # Discord's context 1 (BOT_DM) is discord.py's dm_channel flag.
        bot_dm=interaction.guild_id is None
        and interaction.context.dm_channel
        and not interaction.context.private_channel,
    )


def scope(interaction: discord.Interaction[Any]) -> int:
    """The guild whose games and ratings ``interaction`` sees (0: the user's practice)."""
    return guild_scope(interaction.guild_id, where(interaction))


def message_link(guild_id: int, channel_id: int, message_id: int) -> str:
    """A link to a message (a game of no server: its DM, ``@me``)."""
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


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
