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

from app.analysis import Analyst, analysis_text, deep_hint_text
from app.reports import Reports, hint_lines, review_text
from app.services import Services
from discord_ui.common import anywhere, expensive, game_choices, scope
from discord_ui.options import GameNumber
from discord_ui.report_messages import replay_message, review_message, unit_note
from discord_ui.review_pages import ReviewPageButton, mistake_browser, send_mistakes

__all__ = ["Coach", "hint_lines", "review_text", "setup", "unit_note"]

log = logging.getLogger(__name__)


class Coach(commands.Cog):
    """/replay, /hint, /review and /analyze."""

    def __init__(self, bot: commands.Bot, reports: Reports, analyst: Analyst) -> None:
        self.bot = bot
        self.reports = reports
        self.analyst = analyst

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(ReviewPageButton)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(ReviewPageButton)

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
    @expensive
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
    @app_commands.describe(depth="quick (the default) or deep: the plays ranked by rollouts")
    @app_commands.choices(
        depth=[
            app_commands.Choice(name="quick", value="quick"),
            app_commands.Choice(name="deep (rollouts, a few seconds)", value="deep"),
        ]
    )
    @anywhere
    @expensive
    async def hint(self, interaction: discord.Interaction[Any], depth: str = "quick") -> None:
        assert interaction.channel_id is not None
        job = await self.reports.hint_job(interaction.channel_id, interaction.user.id)
        deep = depth == "deep" and self.analyst.deep_hint_applies(job, interaction.user.id)
        await interaction.response.defer(ephemeral=True, thinking=True)
        if deep:
            rolled = await self.analyst.deep_hint(job)
            text = deep_hint_text(rolled, job.state.rules.score_unit)
            await interaction.followup.send(text[:1990], ephemeral=True)
            return
        text = await self.reports.hint(job)
        await interaction.followup.send(text[:1990], ephemeral=True)

    # --- analysis -----------------------------------------------------------------------------

    @app_commands.command(name="analyze", description="The plays of a position ranked by rollouts")
    @app_commands.describe(
        game="A game here (see /history), with move",
        move="The move of that game to analyse (1 = its first play)",
        position="A position text with its dice (docs/rules.md §12)",
        gnubg="A backgammon position ID of GNU Backgammon, with dice",
        dice="The roll to play, e.g. 63 (for gnubg, or to replace the position's)",
    )
    @app_commands.guild_only()
    @expensive
    async def analyze(
        self,
        interaction: discord.Interaction[Any],
        game: GameNumber | None = None,
        move: app_commands.Range[int, 1, 10000] | None = None,
        position: app_commands.Range[str, 1, 400] | None = None,
        gnubg: app_commands.Range[str, 1, 40] | None = None,
        dice: app_commands.Range[str, 1, 10] | None = None,
    ) -> None:
        assert interaction.channel_id is not None
        job = await self.analyst.analyze_job(
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
            game=game,
            move=move,
            position=position,
            gnubg=gnubg,
            dice=dice,
        )
        await interaction.response.defer(ephemeral=True, thinking=True)
        done = await self.analyst.analyze(job)
        await interaction.followup.send(analysis_text(done)[:1990], ephemeral=True)

    @analyze.autocomplete("game")
    async def analyze_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)

    # --- reviews ------------------------------------------------------------------------------

    @app_commands.command(name="review", description="Mistakes, equity lost and luck of a game")
    @app_commands.describe(game="The game number (see /history)")
    @anywhere
    @expensive
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
        await send_mistakes(interaction, self.analyst, done.game.id)

    async def turn_mistake_page(
        self, interaction: discord.Interaction[Any], game_id: int, who: int, page: int
    ) -> None:
        """Previous/Next: the page shown by editing the message the button is on."""
        shown = await self.analyst.mistake_page(interaction.guild_id, game_id, who, page)
        text, view = mistake_browser(shown)
        await interaction.response.edit_message(content=text, view=view)

    @review.autocomplete("game")
    async def review_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        return await self._game_choices(interaction, current)


async def setup(bot: commands.Bot) -> None:
    services = getattr(bot, "services", None)
    if not isinstance(services, Services):
        raise RuntimeError("the bot must open its services before loading cogs.coach")
    await bot.add_cog(Coach(bot, services.reports, services.analyst))
