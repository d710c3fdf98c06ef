"""Settings and preferences: a guild's settings (timers, board theme) and a player's own
preferences (the same in every guild)."""

from __future__ import annotations

from dataclasses import replace

from storage.checks import MAX_SETTING_SECONDS, check_count, check_id, check_theme_name, check_time
from storage.core import StorageCore
from storage.errors import InvalidInputError
from storage.models import PING_POLICIES, GuildSettings, PlayerPreferences
from storage.rows import Row


class SettingsRepository(StorageCore):
    """The ``guild_settings`` and ``player_preferences`` tables."""

    # ------------------------------------------------------------------ guild settings

    _SETTINGS_COLUMNS = (
        "reminder_after_seconds, claim_after_seconds, challenge_expiry_seconds, board_theme, "
        "game_threads, organiser_role_id, season_months"
    )

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, or the defaults if it never changed them."""
        check_id("guild_id", guild_id)
        row = await self._fetch_by_key(
            f"SELECT {self._SETTINGS_COLUMNS} FROM guild_settings WHERE guild_id = ?",
            (guild_id,),
        )
        if row is None:
            return GuildSettings(guild_id)
        return _settings(guild_id, row)

    async def set_guild_settings(
        self,
        guild_id: int,
        *,
        reminder_after_seconds: int | None = None,
        claim_after_seconds: int | None = None,
        challenge_expiry_seconds: int | None = None,
        board_theme: str | None = None,
        game_threads: bool | None = None,
        organiser_role_id: int | None = None,
        no_organiser_role: bool = False,
        season_months: int | None = None,
    ) -> GuildSettings:
        """Change the given settings (None = keep); returns the settings now in force.
        ``board_theme`` is a theme name; which names exist is the renderer's business.
        ``no_organiser_role``: forget the organiser role."""
        check_id("guild_id", guild_id)
        changes: dict[str, int | str | None] = {
            "reminder_after_seconds": reminder_after_seconds,
            "claim_after_seconds": claim_after_seconds,
            "challenge_expiry_seconds": challenge_expiry_seconds,
        }
        for name, value in changes.items():
            if value is not None:
                check_count(name, value, 1, MAX_SETTING_SECONDS)
        if board_theme is not None:
            changes["board_theme"] = check_theme_name(board_theme)
        if game_threads is not None:
            if not isinstance(game_threads, bool):
                raise InvalidInputError(f"game_threads must be a bool, got {game_threads!r}")
            changes["game_threads"] = game_threads
        if organiser_role_id is not None:
            changes["organiser_role_id"] = check_id("organiser_role_id", organiser_role_id)
        if season_months is not None:
            changes["season_months"] = check_count("season_months", season_months, 1, 12)
        async with self._write() as tx:
            await self._lock_guild(tx, guild_id)
            rows = await tx.fetchall(
                f"SELECT {self._SETTINGS_COLUMNS} FROM guild_settings WHERE guild_id = ?"
                + self._FOR_UPDATE,
                (guild_id,),
            )
            current = _settings(guild_id, rows[0]) if rows else GuildSettings(guild_id)
            new = replace(current, **{k: v for k, v in changes.items() if v is not None})  # type: ignore[arg-type]
            if no_organiser_role:
                new = replace(new, organiser_role_id=None)
            await tx.execute(
                "INSERT INTO guild_settings (guild_id, reminder_after_seconds, "
                "claim_after_seconds, challenge_expiry_seconds, board_theme, game_threads, "
                "organiser_role_id, season_months) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET "
                "reminder_after_seconds = excluded.reminder_after_seconds, "
                "claim_after_seconds = excluded.claim_after_seconds, "
                "challenge_expiry_seconds = excluded.challenge_expiry_seconds, "
                "board_theme = excluded.board_theme, game_threads = excluded.game_threads, "
                "organiser_role_id = excluded.organiser_role_id, "
                "season_months = excluded.season_months",
                (
                    guild_id,
                    new.reminder_after_seconds,
                    new.claim_after_seconds,
                    new.challenge_expiry_seconds,
                    new.board_theme,
                    int(new.game_threads),
                    new.organiser_role_id,
                    new.season_months,
                ),
            )
        return new

    # ------------------------------------------------------------------ player preferences

    async def get_player_preferences(self, user_id: int) -> PlayerPreferences:
        """The player's preferences (the same in every server), or the defaults."""
        check_id("user_id", user_id)
        row = await self._fetch_by_key(
            "SELECT board_theme, own_side, pings FROM player_preferences WHERE user_id = ?",
            (user_id,),
        )
        if row is None:
            return PlayerPreferences(user_id)
        return PlayerPreferences(user_id, row[0], bool(row[1]), row[2])

    async def set_player_preferences(
        self,
        user_id: int,
        *,
        now: float,
        board_theme: str | None = None,
        own_side: bool | None = None,
        server_theme: bool = False,
        pings: str | None = None,
    ) -> PlayerPreferences:
        """Change the given preferences (None = keep; ``server_theme=True`` forgets the chosen
        theme, so boards follow each server's); returns the preferences now in force."""
        check_id("user_id", user_id)
        check_time("now", now)
        if board_theme is not None:
            check_theme_name(board_theme)
            if server_theme:
                raise InvalidInputError("give board_theme or server_theme, not both")
        if own_side is not None and not isinstance(own_side, bool):
            raise InvalidInputError(f"own_side must be a bool, got {own_side!r}")
        if pings is not None and pings not in PING_POLICIES:
            raise InvalidInputError(f"pings must be one of {PING_POLICIES}, got {pings!r}")
        async with self._write() as tx:
            rows = await tx.fetchall(
                "SELECT board_theme, own_side, pings FROM player_preferences WHERE user_id = ?"
                + self._FOR_UPDATE,
                (user_id,),
            )
            current = (
                PlayerPreferences(user_id, rows[0][0], bool(rows[0][1]), rows[0][2])
                if rows
                else PlayerPreferences(user_id)
            )
            new = PlayerPreferences(
                user_id,
                None if server_theme else (board_theme or current.board_theme),
                current.own_side if own_side is None else own_side,
                current.pings if pings is None else pings,
            )
            # Two first-time /preferences at once: the upsert keeps both from failing.
            await tx.execute(
                "INSERT INTO player_preferences (user_id, board_theme, own_side, pings, "
                "updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "board_theme = excluded.board_theme, own_side = excluded.own_side, "
                "pings = excluded.pings, updated_at = excluded.updated_at",
                (user_id, new.board_theme, int(new.own_side), new.pings, now),
            )
        return new


def _settings(guild_id: int, row: Row) -> GuildSettings:
    reminder, claim, expiry, theme, threads, organiser_role, season_months = row
    return GuildSettings(
        guild_id, reminder, claim, expiry, theme, bool(threads), organiser_role, season_months
    )
