"""Learning from games: animated replays, post-game reviews and hints.

Thin like the other cogs: app.reports checks the request and does the work (the renderer
draws, the computer players judge); the cog defers first (the channel shows the bot thinking)
and answers when the work is done.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from app.reports import Reports, hint_lines, review_text
from app.services import Services
from discord_ui.common import anywhere, game_choices, scope
from discord_ui.options import GameNumber
from discord_ui.report_messages import replay_message, review_message, unit_note

__all__ = ["Coach", "hint_lines", "review_text", "setup", "unit_note"]

log = logging.getLogger(__name__)


class Coach(commands.Cog):
    """/replay, /hint and /review."""

    def __init__(self, bot: commands.Bot, reports: Reports) -> None:
        self.bot = bot
        self.reports = reports

    async def _game_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return game_choices(
            await self.reports.games.recent_choices(
                scope(interaction), interaction.user.id, current
            )
        )

    @app_commands.command(name="replay", description="An animated replay of a game")
    @app_commands.describe(game="The game number (see /history)")
    @anywhere
    async def replay(
        self,
        interaction: discord.Interaction[Any],
        game: GameNumber,
    ) -> None:
        job = await self.reports.replay_job(scope(interaction), game, interaction.user.id)
        await interaction.response.defer(thinking=True)
        gif = await self.reports.replay(job)
        text, file = replay_message(job, gif)
        await interaction.followup.send(
            text, file=file, allowed_mentions=discord.AllowedMentions.none()
        )

    @replay.autocomplete("game")
    async def replay_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    # --- hints --------------------------------------------------------------------------------

    @app_commands.command(name="hint", description="The best plays for your turn (only you see)")
    @anywhere
    async def hint(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.channel_id is not None
        job = await self.reports.hint_job(interaction.channel_id, interaction.user.id)
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = await self.reports.hint(job)
        await interaction.followup.send(text[:1990], ephemeral=True)

    # --- reviews ------------------------------------------------------------------------------

    @app_commands.command(name="review", description="Mistakes, equity lost and luck of a game")
    @app_commands.describe(game="The game number (see /history)")
    @anywhere
    async def review(
        self,
        interaction: discord.Interaction[Any],
        game: GameNumber,
    ) -> None:
        job = await self.reports.review_job(scope(interaction), game, interaction.user.id)
        await interaction.response.defer(thinking=True)
        done = await self.reports.review(job)
        embed, file = review_message(done)
        await interaction.followup.send(
            embed=embed, file=file, allowed_mentions=discord.AllowedMentions.none()
        )

    @review.autocomplete("game")
    async def review_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)


async def setup(bot: commands.Bot) -> None:
    services = getattr(bot, "services", None)
    if not isinstance(services, Services):
        raise RuntimeError("the bot must open its services before loading cogs.coach")
    await bot.add_cog(Coach(bot, services.reports))
