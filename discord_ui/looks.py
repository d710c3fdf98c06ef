"""How boards look, the Discord side: the theme options of /settings and /preferences.

The themes themselves, the server's theme (cached) and each player's are resolved in
app.settings; they are re-exported here for the cogs that draw boards.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from app.settings import (
    SERVER_THEME,
    THEME_ABOUT,
    forget_server_theme,
    known_theme,
    legal_themes,
    player_theme,
    server_theme,
    theme_label,
)
from discord_ui.options import OptionError
from render.theme import THEMES

__all__ = [
    "SERVER_THEME",
    "THEME_ABOUT",
    "PlayerTheme",
    "ServerTheme",
    "ThemeOption",
    "forget_server_theme",
    "known_theme",
    "legal_themes",
    "player_theme",
    "server_theme",
    "theme_label",
]


class ThemeOption(app_commands.Transformer):
    """A board theme, offered as a choice list (every theme the renderer has); with
    ``with_server`` also ``server``, "no theme of my own". Anything else is refused with the
    legal values."""

    def __init__(self, *, with_server: bool) -> None:
        self.with_server = with_server

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def choices(self) -> list[app_commands.Choice[int | float | str]]:
        # Typed as the base class's property (a list is invariant in its item type).
        choices: list[app_commands.Choice[int | float | str]] = [
            app_commands.Choice(name=theme_label(name)[:100], value=name) for name in THEMES
        ]
        if self.with_server:
            choices.append(
                app_commands.Choice(name="server (whatever each server uses)", value=SERVER_THEME)
            )
        return choices

    async def transform(self, interaction: discord.Interaction[Any], value: Any, /) -> str:
        if isinstance(value, str):
            name = value.strip().lower()
            if name in THEMES or (self.with_server and name == SERVER_THEME):
                return name
        shown = str(value)[:40]
        raise OptionError(
            f"There is no board theme `{shown}`. "
            f"Choose one of {legal_themes(with_server=self.with_server)}."
        )


ServerTheme = app_commands.Transform[str, ThemeOption(with_server=False)]
PlayerTheme = app_commands.Transform[str, ThemeOption(with_server=True)]
