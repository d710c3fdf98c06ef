"""The error boundary: the one place where errors escaping slash commands and button callbacks
end up, and the answer each gets.

A typed refusal (:class:`app.errors.Refusal`) is answered privately with its own message and
logged at INFO; input Discord should not have let through gets a specific answer; a database
that disappeared gets :data:`DATABASE_GONE_REPLY`; anything else is logged with its traceback
and the user is told briefly that something went wrong.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from app.errors import DatabaseGoneError, Refusal
from app.limits import RateLimited
from app.services import Services
from app.venues import NeedsServer
from discord_ui.common import is_expensive, where, works_anywhere
from discord_ui.options import OptionError, check_option_types

log = logging.getLogger("backgammon")

DATABASE_GONE_REPLY = (
    "The bot cannot record anything right now: its database file was removed or replaced "
    "while it was running. Nothing was changed. The bot's operator has to restore the file "
    "and restart it."
)


class NotHere(app_commands.CheckFailure):
    """A command that needs the bot in the server, used elsewhere (its message says why)."""


class ErrorBoundaryTree(app_commands.CommandTree[commands.Bot]):
    """The single place where errors escaping slash commands end up."""

    async def interaction_check(self, interaction: discord.Interaction[commands.Bot], /) -> bool:
        if await self._refused_at_front_door(interaction):
            return False  # answered already; discord.py drops the command silently
        # Discord hides a command where it is not available (a server-only one in DMs, or
        # where the app is only installed to the user), but a modified client or a stale
        # command list can still send one: it is refused before it touches anything.
        command = interaction.command
        # Before discord.py turns the options into objects (it cannot turn a malformed id).
        check_option_types(interaction)
        if command is None or works_anywhere(command):
            return True
        here = where(interaction)
        if here != "guild":
            raise NotHere(str(NeedsServer(f"/{command.qualified_name}", here)))
        return True

    async def _refused_at_front_door(self, interaction: discord.Interaction[commands.Bot]) -> bool:
        """Count an expensive command against its user's limit; over it, answer "try again in
        N s" with the interaction response and return True. This runs first, before any
        database query, deferral or work: a member flooding such commands costs the bot one
        dictionary lookup and one HTTP request each (bench/move_under_flood.py)."""
        if interaction.type != discord.InteractionType.application_command or not is_expensive(
            interaction.command
        ):
            return False  # autocompletes are not counted: empty suggestions would not say why
        services = getattr(self.client, "services", None)
        if not isinstance(services, Services):
            return False
        try:
            services.front_door.take(interaction.user.id)
        except RateLimited as refusal:
            # DEBUG: a flood must not flood the log as well.
            log.debug("front door refused user %s: %s", interaction.user.id, refusal)
            await tell_user(interaction, str(refusal))
            return True
        return False

    async def on_error(
        self, interaction: discord.Interaction[commands.Bot], error: app_commands.AppCommandError
    ) -> None:
        command = interaction.command.qualified_name if interaction.command else None
        refusal = _refusal(interaction, error)
        if refusal is not None:
            # Input Discord would normally have refused (a modified client, an API change, a
            # stale command list): a specific answer, no traceback.
            log.info("command %s refused for user %s: %s", command, interaction.user.id, error)
            await tell_user(interaction, refusal)
            return
        if isinstance(error, app_commands.CheckFailure):
            # Expected refusals (cooldowns, missing permissions) carry a message for the user.
            log.info("command %s refused for user %s: %s", command, interaction.user.id, error)
            await tell_user(interaction, str(error) or "You can't use this command here.")
            return
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        await self.report_unexpected(interaction, original, f"command {command}")

    async def report_unexpected(
        self, interaction: discord.Interaction[commands.Bot], error: BaseException, where: str
    ) -> None:
        """Log an error with its context and tell the user briefly (never raises). A typed
        refusal is not unexpected: its message is the answer, logged at INFO.

        Slash commands reach this through ``on_error``; button callbacks call it directly.
        """
        if isinstance(error, Refusal):
            # A use case declined before changing anything: the message says why.
            log.info("%s refused for user %s: %s", where, interaction.user.id, error)
            await tell_user(interaction, str(error))
            return
        if isinstance(error, DatabaseGoneError):
            # Logged CRITICAL once by the storage; nothing was recorded, and retrying is futile.
            log.error("refused %s in channel %s: %s", where, interaction.channel_id, error)
            await tell_user(interaction, DATABASE_GONE_REPLY)
            return
        log.error(
            "unexpected error in %s (user %s, channel %s, guild %s)",
            where,
            interaction.user.id,
            interaction.channel_id,
            interaction.guild_id,
            exc_info=error,
        )
        await tell_user(interaction, "Something went wrong while doing that. Please try again.")


async def tell_user(interaction: discord.Interaction[commands.Bot], message: str) -> None:
    """Answer ``interaction`` privately with ``message`` (a follow-up if it was answered
    already); never raises. An autocomplete can only be answered with choices: it gets none
    (Discord rejects a message there, and the user would see the box fail)."""
    try:
        if interaction.type == discord.InteractionType.autocomplete:
            if not interaction.response.is_done():
                await interaction.response.autocomplete([])
        elif interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)
    except (discord.InteractionResponded, discord.NotFound) as exc:
        # Answered meanwhile (another process of the same shard took it during a rolling
        # restart) or expired: nobody is left to tell, and no traceback is needed for it.
        log.info("interaction %s not answered with the error: %s", interaction.id, exc)
    except Exception:
        # The API may be down; the error is logged already and the boundary itself must
        # never raise.
        log.warning("could not report the error to the user", exc_info=True)


def _refusal(
    interaction: discord.Interaction[commands.Bot], error: app_commands.AppCommandError
) -> str | None:
    """The reply to an option or command Discord should not have let through, else None."""
    if isinstance(error, OptionError):
        return str(error)
    if isinstance(error, app_commands.TransformerError):
        if error.type == discord.AppCommandOptionType.user:
            if where(interaction) != "guild":
                # Only the computer plays here; a person cannot be picked as a member.
                return str(NeedsServer("A game against another person", where(interaction)))
            return "That user is not a member of this server (any more); pick someone who is."
        return "One of the options has a value this command does not take."
    if isinstance(error, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return (
            "This bot does not have that command (any more). Discord may show an old command "
            "list for a while: restart Discord or wait a few minutes."
        )
    return None
