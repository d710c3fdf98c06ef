"""/preferences: how a player sees the boards shown to them alone (/board).

Kept per player, not per server: a look chosen for reading comfort (the high-contrast theme,
the board from one's own side) is the player's, and should follow them to every server the
bot plays in, as Discord's own appearance settings do. A server's theme (/settings theme)
stays the look of the boards everybody sees in its channels.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.looks import SERVER_THEME, PlayerTheme, known_theme, server_theme, theme_label
from storage import PlayerPreferences, Storage

log = logging.getLogger(__name__)


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
        else "the side of the player to act, as in the channel"
    )
    embed.add_field(name="Board seen from", value=side, inline=False)
    embed.set_footer(
        text="They apply to /board, which only you see, in every server. Boards posted in a "
        "channel use the server's theme (/settings)."
    )
    return embed


class Preferences(commands.Cog):
    """A player's own board look."""

    def __init__(self, bot: commands.Bot, db: Storage) -> None:
        self.bot = bot
        self.db = db

    @app_commands.command(
        name="preferences", description="Your board theme and side for /board (only you see)"
    )
    @app_commands.describe(
        theme="The theme of boards shown only to you (server: each server's theme)",
        own_side="See the board from your own side in games you play (else: the side to act)",
    )
    async def preferences(
        self,
        interaction: discord.Interaction[Any],
        theme: PlayerTheme | None = None,
        own_side: bool | None = None,
    ) -> None:
        user = interaction.user.id
        server = (
            await server_theme(self.db, interaction.guild_id)
            if interaction.guild_id is not None
            else None
        )
        if theme is None and own_side is None:
            prefs = await self.db.get_player_preferences(user)
            await interaction.response.send_message(
                embed=preferences_embed(prefs, server, "Your preferences"), ephemeral=True
            )
            return
        prefs = await self.db.set_player_preferences(
            user,
            now=discord.utils.utcnow().timestamp(),
            board_theme=None if theme in (None, SERVER_THEME) else theme,
            own_side=own_side,
            server_theme=theme == SERVER_THEME,
        )
        log.info("preferences of %s changed: %s", user, prefs)
        await interaction.response.send_message(
            embed=preferences_embed(prefs, server, "Preferences saved"), ephemeral=True
        )


async def setup(bot: commands.Bot) -> None:
    db = getattr(bot, "db", None)
    if not isinstance(db, Storage):
        raise RuntimeError("the bot must open its storage before loading cogs.preferences")
    await bot.add_cog(Preferences(bot, db))
