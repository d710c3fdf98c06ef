"""Learning from games: animated replays, post-game reviews and hints.

Thin like the other cogs: app.reports checks the request and does the work (the renderer
draws, the computer players judge); the cog defers first (the channel shows the bot thinking)
and answers when the work is done.
"""

from __future__ import annotations

import io
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from app.records import variant_name
from app.reports import Reports, hint_lines, review_text
from app.services import Services
from cogs.common import game_choices
from cogs.options import GameNumber
from engine import get_variant


def unit_note(unit: str) -> str:
    if unit == "pip":
        return (
            "Equity is in pips (the game scores the loser's pips); the equity lost per "
            "decision is in pips too."
        )
    return (
        "Equity is in points per unit of stake; the error rate is the average equity lost "
        "per decision, in thousandths."
    )


__all__ = ["Coach", "hint_lines", "review_text", "setup"]

log = logging.getLogger(__name__)

REPLAY_FILE = "replay-{id}.gif"
CHART_FILE = "chances-{id}.png"


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
                interaction.guild_id, interaction.user.id, current
            )
        )

    @app_commands.command(name="replay", description="An animated replay of a game")
    @app_commands.describe(game="The game number (see /history)")
    @app_commands.guild_only()
    async def replay(
        self,
        interaction: discord.Interaction[Any],
        game: GameNumber,
    ) -> None:
        job = await self.reports.replay_job(interaction.guild_id, game, interaction.user.id)
        await interaction.response.defer(thinking=True)
        gif = await self.reports.replay(job)
        found = job.game
        names = job.state.players
        await interaction.followup.send(
            f"Replay of game #{found.id}: {names[0]} vs {names[1]} "
            f"({variant_name(found.variant)}), one frame per play.",
            file=discord.File(io.BytesIO(gif), filename=REPLAY_FILE.format(id=found.id)),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @replay.autocomplete("game")
    async def replay_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    # --- hints --------------------------------------------------------------------------------

    @app_commands.command(name="hint", description="The best plays for your turn (only you see)")
    @app_commands.guild_only()
    async def hint(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.channel_id is not None
        job = await self.reports.hint_job(interaction.channel_id, interaction.user.id)
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = await self.reports.hint(job)
        await interaction.followup.send(text[:1990], ephemeral=True)

    # --- reviews ------------------------------------------------------------------------------

    @app_commands.command(name="review", description="Mistakes, equity lost and luck of a game")
    @app_commands.describe(game="The game number (see /history)")
    @app_commands.guild_only()
    async def review(
        self,
        interaction: discord.Interaction[Any],
        game: GameNumber,
    ) -> None:
        job = await self.reports.review_job(interaction.guild_id, game, interaction.user.id)
        await interaction.response.defer(thinking=True)
        done = await self.reports.review(job)
        found, names = done.game, done.names
        unit = get_variant(found.variant).score_unit
        embed = discord.Embed(
            title=f"Review of game #{found.id}: {names[0]} vs {names[1]}",
            description=f"{variant_name(found.variant)}. " + unit_note(unit),
            colour=discord.Colour.dark_green(),
        )
        for seat in (0, 1):
            embed.add_field(
                name=names[seat][:250],
                value=review_text(done.reviews[seat], unit)[:1024],
                inline=False,
            )
        embed.set_image(url=f"attachment://{CHART_FILE.format(id=found.id)}")
        await interaction.followup.send(
            embed=embed,
            file=discord.File(io.BytesIO(done.chart), filename=CHART_FILE.format(id=found.id)),
            allowed_mentions=discord.AllowedMentions.none(),
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
