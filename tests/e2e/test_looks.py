"""End to end: how boards look. A player's /preferences (theme, own side) applied to their
private /board; the server's theme (/settings theme) on every board the bot posts; bad input
refused with the legal values; everything kept in the bot's database across a restart."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest
from PIL import Image

from engine.game import MOVE, GameState
from render import render_board
from render.game_scene import scene_for_game
from render.theme import THEMES
from storage import PlayerPreferences
from tests.fake_discord import FakeDiscord, FakeUser

from .harness import TIMEOUT, Table, bot_in_process, game_started_from, png_of, reply_of

MANAGE_GUILD = 1 << 5


def _background(png: bytes) -> tuple[int, int, int]:
    """The colour of the picture's top-left corner: the theme's background."""
    with Image.open(io.BytesIO(png)) as im:
        r, g, b = im.convert("RGB").getpixel((2, 2))  # type: ignore[misc]
    return (r, g, b)


def _expected(state: GameState, theme: str, viewer: int | None) -> bytes:
    return render_board(scene_for_game(state, state.players, viewer), theme)


async def _state(table: Table) -> tuple[GameState, int]:
    game = await table.game()
    assert game is not None
    return GameState.from_json(game.state_json), game.player_x


async def _private_board(fake: FakeDiscord, table: Table, user: FakeUser) -> tuple[bytes, str]:
    reply = await reply_of(await fake.slash(user, table.channel, "board"))
    assert reply.ephemeral and reply.message is not None
    png = png_of(reply.message)
    assert png is not None
    description = reply.message.attachments[0].description or ""
    return png, description


async def _admin(fake: FakeDiscord) -> FakeUser:
    return fake.add_user("admin", roles=[fake.add_role("admins", permissions=MANAGE_GUILD)])


async def test_preferences_shown_saved_and_applied_to_board(
    table: Table, fake: FakeDiscord
) -> None:
    shown = await reply_of(await fake.slash(table.alice, table.channel, "preferences"))
    assert shown.ephemeral
    # By default a player's private boards are seen from their own side.
    assert "the server's: default" in shown.content and "your own side" in shown.content

    saved = await reply_of(
        await fake.slash(
            table.alice, table.channel, "preferences", theme="high-contrast", own_side=True
        )
    )
    assert saved.ephemeral and "Preferences saved" in saved.content
    assert "high-contrast" in saved.content and "your own side" in saved.content
    assert await table.db.get_player_preferences(table.alice.id) == PlayerPreferences(
        table.alice.id, "high-contrast", True
    )
    again = await reply_of(await fake.slash(table.alice, table.channel, "preferences"))
    assert "high-contrast" in again.content and "your own side" in again.content

    await table.challenge("classic")
    state, player_x = await _state(table)
    alice_seat = 0 if player_x == table.alice.id else 1
    # Whoever is to act, Alice's own /board is high contrast and drawn from her side.
    png, alt = await _private_board(fake, table, table.alice)
    assert png == _expected(state, "high-contrast", alice_seat)
    assert _background(png) == THEMES["high-contrast"].background
    assert f"Seen from {table.alice.display_name}'s side." in alt
    # Bob chose nothing: the server's theme, from his own side.
    bob_seat = 1 - alice_seat
    bob_png, bob_alt = await _private_board(fake, table, table.bob)
    assert bob_png == _expected(state, "default", bob_seat)
    assert f"Seen from {table.bob.display_name}'s side." in bob_alt
    # Asked for the channel's side, he gets the challenger's.
    chosen = await reply_of(
        await fake.slash(table.bob, table.channel, "preferences", own_side=False)
    )
    assert "the challenger's" in chosen.content
    bob_png, bob_alt = await _private_board(fake, table, table.bob)
    assert bob_png == _expected(state, "default", 0)
    assert f"Seen from {state.players[0]}'s side." in bob_alt
    # Alice's public board is the channel's look, not hers.
    public = await reply_of(await fake.slash(table.alice, table.channel, "board", public=True))
    assert not public.ephemeral and public.message is not None
    public_png = png_of(public.message)
    assert public_png == _expected(state, "default", 0)
    # The live board in the channel is untouched by anyone's preferences.
    assert table.boards[-1] == _expected(state, "default", 0)

    # A spectator who likes their own side sees the board like the channel (no side of theirs).
    carol = fake.add_user("carol")
    await reply_of(await fake.slash(carol, table.channel, "preferences", own_side=True))
    carol_png, carol_alt = await _private_board(fake, table, carol)
    assert carol_png == _expected(state, "default", 0)
    assert f"Seen from {state.players[0]}'s side." in carol_alt

    # Back to the server's theme, keeping the side.
    back = await reply_of(
        await fake.slash(table.alice, table.channel, "preferences", theme="server")
    )
    assert "the server's" in back.content and "your own side" in back.content
    png, _ = await _private_board(fake, table, table.alice)
    assert png == _expected(state, "default", alice_seat)


async def test_server_theme_on_every_posted_board(table: Table, fake: FakeDiscord) -> None:
    admin = await _admin(fake)
    # Only moderators may change it; the refusal changes nothing.
    refused = await reply_of(
        await fake.slash(table.alice, table.channel, "settings", theme="high-contrast")
    )
    assert refused.ephemeral and "Manage Server" in refused.content
    assert (await table.db.get_guild_settings(fake.guild.id)).board_theme == "default"

    changed = await reply_of(
        await fake.slash(admin, table.channel, "settings", theme="high-contrast")
    )
    assert changed.ephemeral and "Board theme" in changed.content
    assert "high-contrast" in changed.content
    settings = await table.db.get_guild_settings(fake.guild.id)
    assert settings.board_theme == "high-contrast"
    assert settings.claim_after_seconds == 72 * 3600  # the timers are kept

    await table.challenge("classic")
    state, _ = await _state(table)
    assert table.boards[-1] == _expected(state, "high-contrast", 0)
    for _ in range(4):  # boards posted after plays and redrawn after rolls
        await table.step()
        state, _ = await _state(table)
        assert table.boards[-1] == _expected(state, "high-contrast", 0)
    # A player without preferences sees the server's theme on /board too (from their own side);
    # one with their own theme sees theirs. Every board is drawn from the same side, turn after
    # turn.
    state, player_x = await _state(table)
    bob_seat = 0 if player_x == table.bob.id else 1
    png, _ = await _private_board(fake, table, table.bob)
    assert png == _expected(state, "high-contrast", bob_seat)
    await reply_of(await fake.slash(table.bob, table.channel, "preferences", theme="default"))
    png, _ = await _private_board(fake, table, table.bob)
    assert png == _expected(state, "default", bob_seat)
    shown = await reply_of(await fake.slash(admin, table.channel, "settings"))
    assert "high-contrast" in shown.content


async def test_computer_boards_use_the_server_theme(table: Table, fake: FakeDiscord) -> None:
    admin = await _admin(fake)
    await reply_of(await fake.slash(admin, table.channel, "settings", theme="high-contrast"))
    bot_user = fake.bot_user
    handle = await fake.slash(
        table.alice, table.channel, "challenge", opponent=bot_user, variant="pin", level="beginner"
    )
    await reply_of(handle)
    game = await game_started_from(table.db, table.channel)
    assert game is not None and game.board_message_id is not None
    png = png_of(fake.get_message(game.board_message_id))
    assert png is not None and _background(png) == THEMES["high-contrast"].background


@pytest.mark.parametrize("command", ["preferences", "settings"])
async def test_unknown_theme_is_refused_with_the_legal_values(
    table: Table, fake: FakeDiscord, command: str, caplog: pytest.LogCaptureFixture
) -> None:
    user = await _admin(fake) if command == "settings" else table.alice
    for bad in ("neon", "", "HIGH-CONTRAST; DROP TABLE", "x" * 500):
        handle = await fake.slash(user, table.channel, command, theme=bad)
        callback = await handle.wait_initial(TIMEOUT)
        text = callback.content or ""
        assert callback.ephemeral, text
        assert "no board theme" in text and "`default`" in text and "`high-contrast`" in text
        assert ("`server`" in text) == (command == "preferences")
    assert (await table.db.get_guild_settings(fake.guild.id)).board_theme == "default"
    assert await table.db.get_player_preferences(user.id) == PlayerPreferences(user.id)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_preferences_follow_the_player_out_of_the_server_and_across_a_restart(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db_path = tmp_path / "bot.sqlite3"
    alice = fake.add_user("alice")
    async with bot_in_process(fake, db_path):
        reply = await reply_of(
            await fake.slash(alice, fake.general, "preferences", theme="high-contrast")
        )
        assert "Preferences saved" in reply.content
    async with bot_in_process(fake, db_path):
        # Kept per player, not per server: also in a direct message with the bot.
        shown = await reply_of(await fake.slash_in_dm(alice, "preferences"))
        assert shown.ephemeral and "high-contrast" in shown.content
        changed = await reply_of(await fake.slash_in_dm(alice, "preferences", own_side=False))
        assert "the challenger's" in changed.content and "high-contrast" in changed.content
        back = await reply_of(await fake.slash(alice, fake.general, "preferences"))
        assert "the challenger's" in back.content and "high-contrast" in back.content


async def test_help_is_not_hard_wrapped(table: Table, fake: FakeDiscord) -> None:
    """Discord wraps text itself: each line of /help is a whole topic, never half a sentence."""
    reply = await reply_of(await fake.slash(table.alice, table.channel, "help"))
    assert reply.ephemeral and reply.message is not None
    description = reply.message.embeds[0]["description"]
    lines = description.split("\n")
    assert len(lines) >= 6
    for line in lines:
        assert line.startswith("**") and line.rstrip().endswith("."), line
    assert "/preferences" in description and "/games" in description


async def test_messages_write_dice_one_way(table: Table, fake: FakeDiscord) -> None:
    """After a play the channel shows "alice 6-5: 24/18 13/8", never the record's "65"."""
    await table.challenge("classic")
    plays = 0
    for _ in range(12):
        game = await table.game()
        assert game is not None
        before = GameState.from_json(game.state_json)
        mover = before.players[before.mover]
        await table.step()
        if before.phase != MOVE or before.dice is None:
            continue
        plays += 1
        board = table.last_board
        assert board is not None
        dice = f"{before.dice.high}-{before.dice.low}"
        assert re.search(rf"^{re.escape(mover)} {dice}: ", board.text(), re.M), board.text()
        assert not re.search(r"\b[1-6][1-6]: ", board.text()), board.text()
    assert plays >= 3


async def test_themes_are_offered_as_choices(table: Table, fake: FakeDiscord) -> None:
    """Discord's client offers every theme the renderer has (no typing, no typos)."""
    commands = {c["name"]: c for c in fake.commands(fake.guild.id) or fake.commands()}
    settings = {o["name"]: o for o in commands["settings"]["options"]}
    preferences = {o["name"]: o for o in commands["preferences"]["options"]}
    assert {c["value"] for c in settings["theme"]["choices"]} == set(THEMES)
    assert {c["value"] for c in preferences["theme"]["choices"]} == {*THEMES, "server"}
    assert preferences["own_side"]["type"] == 5  # a boolean
    assert commands["preferences"].get("dm_permission") is not False  # also in DMs
