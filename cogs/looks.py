"""How boards look: the server's theme (/settings theme) and each player's preferences
(/preferences), resolved for a board about to be drawn.

The server's theme is read for every board the bot posts, so it is cached briefly per storage
(a guild's interactions all reach the process that owns its shard, which drops its entry when
/settings changes it; the time limit covers anything else).
"""

from __future__ import annotations

import time
import weakref
from typing import Any

import discord
from discord import app_commands

from cogs.options import OptionError
from render.theme import THEMES
from storage import PlayerPreferences, Storage
from storage.models import DEFAULT_BOARD_THEME

#: What each theme looks like, for the choice lists and replies (a theme added to the renderer
#: without a line here is still offered, under its own name).
THEME_ABOUT = {
    "default": "wood frame, green felt, cream and black checkers",
    "high-contrast": "black and white, colour-blind safe, readable in grayscale",
}
#: The /preferences value that forgets the player's theme: boards follow each server's.
SERVER_THEME = "server"
CACHE_SECONDS = 30.0


def theme_label(name: str) -> str:
    about = THEME_ABOUT.get(name)
    return f"{name} ({about})" if about else name


def legal_themes(*, with_server: bool) -> str:
    names = [f"`{name}`" for name in THEMES]
    if with_server:
        names.append(f"`{SERVER_THEME}` (the server's theme)")
    return ", ".join(names)


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
    def choices(self) -> list[app_commands.Choice[str]]:
        choices = [app_commands.Choice(name=theme_label(name)[:100], value=name) for name in THEMES]
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


class _ThemeCache:
    def __init__(self) -> None:
        self.entries: dict[int, tuple[str, float]] = {}


_CACHES: weakref.WeakKeyDictionary[Storage, _ThemeCache] = weakref.WeakKeyDictionary()


def _cache(db: Storage) -> _ThemeCache:
    cache = _CACHES.get(db)
    if cache is None:
        cache = _CACHES[db] = _ThemeCache()
    return cache


def known_theme(name: str | None) -> str:
    """A theme the renderer has: a stored name it no longer knows falls back to the default."""
    return name if name is not None and name in THEMES else DEFAULT_BOARD_THEME


async def server_theme(db: Storage, guild_id: int) -> str:
    """The theme of the boards the bot posts in the guild's channels."""
    cache = _cache(db)
    hit = cache.entries.get(guild_id)
    now = time.monotonic()
    if hit is not None and hit[1] > now:
        return hit[0]
    theme = known_theme((await db.get_guild_settings(guild_id)).board_theme)
    cache.entries[guild_id] = (theme, now + CACHE_SECONDS)
    return theme


def forget_server_theme(db: Storage, guild_id: int) -> None:
    """After /settings changed the guild's theme."""
    _cache(db).entries.pop(guild_id, None)


def player_theme(prefs: PlayerPreferences, server: str) -> str:
    """The theme of a board shown to this player alone."""
    return known_theme(prefs.board_theme) if prefs.board_theme is not None else server
