"""A server's settings (timers, board theme) and each player's preferences (board theme, side),
and how a board about to be drawn looks.

The server's theme is read for every board the bot posts, so it is cached briefly per storage
(a guild's interactions all reach the process that owns its shard, which drops its entry when
the settings change it; the time limit covers anything else).

Player preferences are kept per player, not per server: a look chosen for reading comfort (the
high-contrast theme, the board from one's own side) is the player's, and follows them to every
server the bot plays in. A server's theme stays the look of the boards everybody sees there.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from app.errors import Refusal
from app.records import duration
from render.theme import THEMES
from storage import GuildSettings, PlayerPreferences, Storage
from storage.models import DEFAULT_BOARD_THEME

__all__ = [
    "PING_CHOICES",
    "SERVER_THEME",
    "THEME_ABOUT",
    "GuildSettings",
    "NotAServerManager",
    "PlayerPreferences",
    "Preferences",
    "ReminderNotBeforeClaim",
    "ServerSettings",
    "SettingsShown",
    "forget_server_theme",
    "known_theme",
    "legal_themes",
    "player_theme",
    "server_theme",
    "theme_label",
]

log = logging.getLogger(__name__)

#: What each theme looks like, for the choice lists and replies (a theme added to the renderer
#: without a line here is still offered, under its own name).
THEME_ABOUT = {
    "default": "wood frame, green felt, cream and black checkers",
    "high-contrast": "black and white, colour-blind safe, readable in grayscale",
}
#: The player's theme value that forgets their own theme: boards follow each server's.
SERVER_THEME = "server"
CACHE_SECONDS = 30.0
MANAGE_GUILD_REFUSAL = "Only members with the Manage Server permission can use /settings."


class NotAServerManager(Refusal):
    """Changing (or seeing) a server's settings needs the Manage Server permission."""

    def __init__(self) -> None:
        super().__init__(MANAGE_GUILD_REFUSAL)


class ReminderNotBeforeClaim(Refusal):
    """The reminder would come at or after the claim time."""

    def __init__(self, reminder: int, claim: int) -> None:
        super().__init__(
            f"The reminder ({duration(reminder)}) must come before the claim time "
            f"({duration(claim)}). Nothing was changed."
        )


def theme_label(name: str) -> str:
    about = THEME_ABOUT.get(name)
    return f"{name} ({about})" if about else name


def legal_themes(*, with_server: bool) -> str:
    names = [f"`{name}`" for name in THEMES]
    if with_server:
        names.append(f"`{SERVER_THEME}` (the server's theme)")
    return ", ".join(names)


def known_theme(name: str | None) -> str:
    """A theme the renderer has: a stored name it no longer knows falls back to the default."""
    return name if name is not None and name in THEMES else DEFAULT_BOARD_THEME


class _ThemeCache:
    def __init__(self) -> None:
        self.entries: dict[int, tuple[str, float]] = {}


_CACHES: weakref.WeakKeyDictionary[Storage, _ThemeCache] = weakref.WeakKeyDictionary()


def _cache(db: Storage) -> _ThemeCache:
    cache = _CACHES.get(db)
    if cache is None:
        cache = _CACHES[db] = _ThemeCache()
    return cache


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
    """After the guild's theme changed."""
    _cache(db).entries.pop(guild_id, None)


def player_theme(prefs: PlayerPreferences, server: str) -> str:
    """The theme of a board shown to this player alone."""
    return known_theme(prefs.board_theme) if prefs.board_theme is not None else server


@dataclass(frozen=True)
class SettingsShown:
    settings: GuildSettings
    #: False: nothing was asked to change, ``settings`` are the current ones.
    changed: bool


class ServerSettings:
    """A server's timers (reminder, claim, challenge expiry) and board theme."""

    def __init__(self, db: Storage) -> None:
        self.db = db

    async def current(self, guild_id: int) -> GuildSettings:
        return await self.db.get_guild_settings(guild_id)

    async def theme(self, guild_id: int) -> str:
        return await server_theme(self.db, guild_id)

    async def show_or_change(
        self,
        guild_id: int,
        *,
        may_manage: bool,
        by: int,
        reminder_hours: int | None = None,
        claim_hours: int | None = None,
        challenge_minutes: int | None = None,
        theme: str | None = None,
        threads: bool | None = None,
        organiser_role_id: int | None = None,
        no_organiser_role: bool = False,
        season_months: int | None = None,
    ) -> SettingsShown:
        """The settings (nothing to change), or the settings after the changes asked for.

        ``may_manage``: the asking member has the Manage Server permission (checked here too:
        a server can let others see the command). The reminder must come before the claim
        time; nothing changes otherwise."""
        if not may_manage:
            raise NotAServerManager()
        current = await self.db.get_guild_settings(guild_id)
        asked = (
            reminder_hours,
            claim_hours,
            challenge_minutes,
            theme,
            threads,
            organiser_role_id,
            season_months,
        )
        if all(value is None for value in asked) and not no_organiser_role:
            return SettingsShown(current, changed=False)
        reminder = (
            current.reminder_after_seconds if reminder_hours is None else reminder_hours * 3600
        )
        claim = current.claim_after_seconds if claim_hours is None else claim_hours * 3600
        if reminder >= claim:
            raise ReminderNotBeforeClaim(reminder, claim)
        new = await self.db.set_guild_settings(
            guild_id,
            reminder_after_seconds=reminder,
            claim_after_seconds=claim,
            challenge_expiry_seconds=None if challenge_minutes is None else challenge_minutes * 60,
            board_theme=theme,
            game_threads=threads,
            organiser_role_id=organiser_role_id,
            no_organiser_role=no_organiser_role,
            season_months=season_months,
        )
        forget_server_theme(self.db, guild_id)
        log.info("guild %s settings changed by %s: %s", new.guild_id, by, new)
        return SettingsShown(new, changed=True)


#: /preferences pings: the choice's value -> its label.
PING_CHOICES = {
    "always": "always, when your turn starts",
    "away": "when away: only if you have not acted in that game for two minutes",
    "never": "never",
}


class Preferences:
    """Each player's own board look (theme, side) for the boards shown to them alone."""

    def __init__(self, db: Storage, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    async def server_theme(self, guild_id: int | None) -> str | None:
        """The theme of the server asked from (None outside a server)."""
        return await server_theme(self.db, guild_id) if guild_id is not None else None

    async def get(self, user_id: int) -> PlayerPreferences:
        return await self.db.get_player_preferences(user_id)

    async def save(
        self,
        user_id: int,
        *,
        theme: str | None = None,
        own_side: bool | None = None,
        pings: str | None = None,
    ) -> PlayerPreferences:
        """Change what is given; theme :data:`SERVER_THEME` forgets the player's own theme."""
        prefs = await self.db.set_player_preferences(
            user_id,
            now=self.clock(),
            board_theme=None if theme in (None, SERVER_THEME) else theme,
            own_side=own_side,
            server_theme=theme == SERVER_THEME,
            pings=pings,
        )
        log.info("preferences of %s changed: %s", user_id, prefs)
        return prefs

    async def theme_for(self, user_id: int, guild_id: int) -> str:
        """The theme of a board shown to this player alone in this server."""
        prefs = await self.get(user_id)
        return player_theme(prefs, await server_theme(self.db, guild_id))
