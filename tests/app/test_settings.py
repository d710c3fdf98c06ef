"""app.settings without Discord: a server's settings (permission, the reminder before the
claim time, the theme), a player's preferences round trip and the theme of a board."""

from __future__ import annotations

import pytest

from app.settings import (
    SERVER_THEME,
    NotAServerManager,
    PlayerPreferences,
    Preferences,
    ReminderNotBeforeClaim,
    ServerSettings,
    known_theme,
    player_theme,
    server_theme,
)
from storage import GuildSettings, Storage

from .conftest import ALICE, BOB, GUILD, FakeClock


async def test_settings_shown_changed_and_refused(db: Storage) -> None:
    settings = ServerSettings(db)
    with pytest.raises(NotAServerManager, match="Manage Server permission"):
        await settings.show_or_change(GUILD, may_manage=False, by=ALICE)
    with pytest.raises(NotAServerManager):  # not even a change
        await settings.show_or_change(GUILD, may_manage=False, by=ALICE, claim_hours=5)
    shown = await settings.show_or_change(GUILD, may_manage=True, by=ALICE)
    assert not shown.changed and shown.settings == GuildSettings(GUILD)

    changed = await settings.show_or_change(
        GUILD, may_manage=True, by=ALICE, reminder_hours=2, claim_hours=5, challenge_minutes=30
    )
    assert changed.changed
    assert (
        changed.settings.reminder_after_seconds,
        changed.settings.claim_after_seconds,
        changed.settings.challenge_expiry_seconds,
    ) == (7200, 18000, 1800)
    assert await db.get_guild_settings(GUILD) == changed.settings

    # The reminder must come before the claim time, also against the stored other value.
    with pytest.raises(ReminderNotBeforeClaim) as refused:
        await settings.show_or_change(GUILD, may_manage=True, by=ALICE, reminder_hours=5)
    assert str(refused.value) == (
        "The reminder (5 h) must come before the claim time (5 h). Nothing was changed."
    )
    with pytest.raises(ReminderNotBeforeClaim, match=r"\(1 h\)\. Nothing was changed\."):
        await settings.show_or_change(
            GUILD, may_manage=True, by=ALICE, claim_hours=1, challenge_minutes=5
        )
    assert await db.get_guild_settings(GUILD) == changed.settings  # nothing changed


async def test_a_new_theme_is_seen_at_once(db: Storage) -> None:
    settings = ServerSettings(db)
    assert await settings.theme(GUILD) == "default"  # cached from now on
    shown = await settings.show_or_change(GUILD, may_manage=True, by=ALICE, theme="high-contrast")
    assert shown.settings.board_theme == "high-contrast"
    assert await server_theme(db, GUILD) == "high-contrast"
    assert await server_theme(db, GUILD + 1) == "default"


async def test_preferences_round_trip(db: Storage, clock: FakeClock) -> None:
    preferences = Preferences(db, clock)
    # By default a player sees private boards from their own side.
    assert await preferences.get(ALICE) == PlayerPreferences(ALICE, None, True)
    saved = await preferences.save(ALICE, theme="high-contrast", own_side=True)
    assert saved == PlayerPreferences(ALICE, "high-contrast", True)
    assert await preferences.get(ALICE) == saved
    assert await preferences.get(BOB) == PlayerPreferences(BOB)
    # Only what is given changes.
    assert await preferences.save(ALICE, own_side=False) == PlayerPreferences(
        ALICE, "high-contrast", False
    )
    assert await preferences.theme_for(ALICE, GUILD) == "high-contrast"
    # "server": back to each server's theme.
    back = await preferences.save(ALICE, theme=SERVER_THEME)
    assert back == PlayerPreferences(ALICE, None, False)
    await ServerSettings(db).show_or_change(GUILD, may_manage=True, by=BOB, theme="high-contrast")
    assert await preferences.theme_for(ALICE, GUILD) == "high-contrast"
    assert await preferences.server_theme(None) is None
    assert await preferences.server_theme(GUILD) == "high-contrast"


def test_themes_fall_back_to_ones_the_renderer_has() -> None:
    assert known_theme("gone") == "default" and known_theme(None) == "default"
    assert player_theme(PlayerPreferences(ALICE, "gone"), "high-contrast") == "default"
    assert player_theme(PlayerPreferences(ALICE), "high-contrast") == "high-contrast"
