"""End to end: a game's board message is a Discord layout (components V2): one container in
the colour of the player to act, the board picture with its alt text, the board's text and an
action row with live buttons; an old board loses its buttons and keeps its picture and text."""

from __future__ import annotations

from typing import Any

from discord_ui.client import BackgammonBot
from engine.game import MOVE, GameState
from render.game_scene import SEAT_COLOURS
from render.theme import get_theme
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeMessage, iter_components

from .harness import Table, eventually, mover_user

CONTAINER, MEDIA_GALLERY, TEXT_DISPLAY, SEPARATOR, ACTION_ROW = 17, 12, 10, 14, 1


def colour_of(seat: int, theme: str = "default") -> int:
    red, green, blue = getattr(get_theme(theme), SEAT_COLOURS[seat]).fill
    return red << 16 | green << 8 | blue


def container_of(message: FakeMessage) -> dict[str, Any]:
    """The board's one container (a layout message has nothing else at its top level)."""
    assert message.components_v2 and message.content == "" and not message.embeds
    (container,) = message.components
    assert container["type"] == CONTAINER
    return container


def kinds(message: FakeMessage) -> list[int]:
    return [c["type"] for c in container_of(message)["components"]]


def picture(message: FakeMessage) -> tuple[dict[str, Any], bytes]:
    """The gallery's one item and the PNG attachment it shows."""
    (gallery,) = [c for c in container_of(message)["components"] if c["type"] == MEDIA_GALLERY]
    (item,) = gallery["items"]
    (attachment,) = [a for a in message.attachments if str(a.id) == item["media"]["attachment_id"]]
    assert attachment.is_png and item["media"]["url"] == attachment.url
    return item, attachment.data


async def state_of(table: Table) -> GameState:
    game = await table.game()
    assert game is not None
    return GameState.from_json(game.state_json)


async def test_board_is_a_layout_in_the_colour_of_the_player_to_act(
    table: Table, fake: FakeDiscord, bot: BackgammonBot
) -> None:
    await table.challenge("classic")
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    assert state.phase == MOVE  # the opening roll is played by whoever won it
    first = table.last_board
    assert first is not None
    mover = mover_user(game, state, table.users)

    # Container in the mover's checker colour: picture, text, separator, action row.
    assert container_of(first)["accent_color"] == colour_of(state.mover)
    assert kinds(first) == [MEDIA_GALLERY, TEXT_DISPLAY, SEPARATOR, ACTION_ROW]
    item, png = picture(first)
    assert png.startswith(b"\x89PNG")
    alt = item.get("description") or ""
    assert "alice (light)" in alt and "bob (dark)" in alt and "pip" in alt, alt
    assert first.attachments[0].description == alt  # the file's alt text too
    text = first.text()
    assert "Pips: alice 167, bob 167" in text and f"<@{mover.id}>" in text, text
    assert [c.split(":")[1] for c in first.custom_ids()] == ["play"]
    (row,) = [c for c in iter_components(first.components) if c["type"] == ACTION_ROW]
    assert all(button["type"] == 2 for button in row["components"])

    # The turn passes: a new board in the other player's colour, with Roll and Double.
    await table.step()
    second = table.last_board
    assert second is not None and second.id != first.id
    assert container_of(second)["accent_color"] == colour_of(1 - state.mover)
    assert [c.split(":")[1] for c in second.custom_ids()] == ["roll", "double"]
    assert "Pips:" in second.text()

    # The old board keeps its picture (the same attachment) and text, without its buttons.
    await eventually(lambda: first.custom_ids() == [], "the old board's buttons cleared")
    assert kinds(first) == [MEDIA_GALLERY, TEXT_DISPLAY]
    assert container_of(first)["accent_color"] == colour_of(state.mover)
    assert picture(first) == (item, png) and first.text() == text

    # Its buttons are live: Roll redraws the same board, still in the roller's colour.
    edits = second.edit_count
    await table.press(mover_user(game, await state_of(table), table.users), "roll")
    assert table.last_board is second and second.edit_count > edits
    after_roll = await state_of(table)
    assert after_roll.phase == MOVE and after_roll.mover == 1 - state.mover
    assert container_of(second)["accent_color"] == colour_of(after_roll.mover)
    assert [c.split(":")[1] for c in second.custom_ids()] == ["play"]
    assert kinds(second) == [MEDIA_GALLERY, TEXT_DISPLAY, SEPARATOR, ACTION_ROW]

    # As after a restart, the bot no longer remembers what the board shows: it reads the
    # board back to take its buttons away, and the picture and text stay as they were.
    # (Not isinstance: a bot closed earlier in the run unloads its extensions, so the cogs'
    # modules are imported afresh and this file's classes are not the loaded ones.)
    games: Any = bot.get_cog("Games")
    assert games is not None and hasattr(games, "boards")
    games.boards._faces.clear()
    shown = second.text()
    second_item, second_png = picture(second)
    await table.step()
    assert table.last_board is not second
    await eventually(lambda: second.custom_ids() == [], "the second board's buttons cleared")
    assert kinds(second) == [MEDIA_GALLERY, TEXT_DISPLAY]
    assert second.text() == shown and picture(second) == (second_item, second_png)
    assert container_of(second)["accent_color"] == colour_of(after_roll.mover)
    assert fake.errors == []


async def test_result_boards_wear_the_winners_colour(table: Table, fake: FakeDiscord) -> None:
    """The thread's last board and the result card in the channel of the challenge are
    layouts in the winner's colour with the buttons of a finished game; the card has no
    picture (the thread has it)."""
    await table.challenge("blocking")
    game = await table.game()
    assert game is not None and game.player_o == table.bob.id  # bob has the dark checkers
    await table.act(table.alice, "resign")  # one result in this variant: over at once
    final = table.last_board
    assert final is not None and "Game over" in final.text()
    assert container_of(final)["accent_color"] == colour_of(1)
    assert kinds(final) == [MEDIA_GALLERY, TEXT_DISPLAY, SEPARATOR, ACTION_ROW]
    results = [c.split(":")[2] for c in final.custom_ids()]
    assert results == ["rematch", "review", "replay", "record"]
    home = table.home
    assert home is not None

    def cards() -> list[FakeMessage]:
        return [m for m in fake.messages_in(home) if "Game over" in m.text()]

    await eventually(lambda: len(cards()) == 1, "the result card in the channel")
    (card,) = cards()
    assert container_of(card)["accent_color"] == colour_of(1)
    assert kinds(card) == [TEXT_DISPLAY, SEPARATOR, ACTION_ROW] and not card.attachments
    assert f"<#{table.channel.id}>" in card.text()
    assert card.custom_ids() == final.custom_ids()
