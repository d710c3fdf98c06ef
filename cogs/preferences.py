"""/preferences: how a player sees the boards shown to them alone (/board).

Kept per player, not per server: a look chosen for reading comfort (the high-contrast theme,
the board from one's own side) is the player's, and should follow them to every server the
bot plays in, as Discord's own appearance settings do. A server's theme (/settings theme)
stays the look of the boards everybody sees in its channels.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from app.services import Services
from app.settings import PING_CHOICES, PlayerPreferences, Preferences
from discord_ui.common import anywhere
from discord_ui.looks import PlayerTheme, known_theme, theme_label


def preferences_embed(prefs: PlayerPreferences, server: str | None, title: str) -> discord.Embed:
    """The player's preferences as they apply here (``server``: this server's theme, None
    outside a server)."""
    embed = discord.Embed(title=title, colour=discord.Colour.dark_teal())
    if prefs.board_theme is None:
        theme = f"the server's: {theme_label(server)}" if server else "the server's (none chosen)"
    else:
        theme = theme_label(known_theme(prefs.board_theme))
    embed.add_field(name="Board theme", value=theme, inline=False)
    side = (
        "your own side of the table (in games you play)"
        if prefs.own_side
        else "the side the channel's board is drawn from (the challenger's)"
    )
    embed.add_field(name="Board seen from", value=side, inline=False)
    embed.add_field(name="Pings", value=PING_CHOICES[prefs.pings], inline=False)
    embed.set_footer(
        text="Theme and side apply to /board, which only you see, in every server. Boards "
        "posted in a channel use the server's theme (/settings). Pings: when your turn starts."
    )
    return embed


class PreferencesCog(commands.Cog, name="Preferences"):
    """A player's own board look."""

    def __init__(self, bot: commands.Bot, preferences: Preferences) -> None:
        self.bot = bot
        self.service = preferences

    @app_commands.command(
        name="preferences",
        description="Your board theme and side for /board, and when you are pinged",
    )
    @app_commands.describe(
        theme="The theme of boards shown only to you (server: each server's theme)",
        own_side=(
            "See private boards from your own side in games you play (default; else: as in "
            "the channel)"
        ),
        pings="When your turn starts: always, when away (not acted for 2 minutes), or never",
    )
    @app_commands.choices(
        pings=[
            app_commands.Choice(name="always", value="always"),
            app_commands.Choice(name="when away", value="away"),
            app_commands.Choice(name="never", value="never"),
        ]
    )
    @anywhere
    async def preferences(
        self,
        interaction: discord.Interaction[Any],
        theme: PlayerTheme | None = None,
        own_side: bool | None = None,
        pings: app_commands.Choice[str] | None = None,
    ) -> None:
        user = interaction.user.id
        server = await self.service.server_theme(interaction.guild_id)
        if theme is None and own_side is None and pings is None:
            prefs = await self.service.get(user)
            await interaction.response.send_message(
                embed=preferences_embed(prefs, server, "Your preferences"), ephemeral=True
            )
            return
        prefs = await self.service.save(
            user, theme=theme, own_side=own_side, pings=None if pings is None else pings.value
        )
        await interaction.response.send_message(
            embed=preferences_embed(prefs, server, "Preferences saved"), ephemeral=True
        )


async def setup(bot: commands.Bot) -> None:
    services = getattr(bot, "services", None)
    if not isinstance(services, Services):
        raise RuntimeError("the bot must open its services before loading cogs.preferences")
    await bot.add_cog(PreferencesCog(bot, services.preferences))
