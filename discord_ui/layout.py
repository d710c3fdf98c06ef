"""A board message as a Discord layout (components V2): one container in the colour of the
player to act, holding the board picture with its alt text, the board's text and, while
there is something to press, an action row with the board's buttons.

A layout message has no ``content``: everything it says is in its text display. Taking its
buttons away means sending the layout again without the action row (an edit with no layout
would empty the message), so :class:`BoardFace` keeps what a board shows besides its buttons,
and :func:`face_of` reads it back from a message (after a restart).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from engine.game import GameState
from render.game_scene import SEAT_COLOURS
from render.theme import get_theme

BOARD_FILE = "board.png"
BOARD_URL = f"attachment://{BOARD_FILE}"
#: Discord allows 4000 characters over all the text displays of a message; keep a margin.
MAX_TEXT = 3800


@dataclass(frozen=True)
class BoardFace:
    """What a board message shows besides its buttons."""

    text: str
    #: The container's accent colour (0xRRGGBB), None for none.
    colour: int | None
    #: The picture's alt text; None: a message without a picture (a result card).
    alt: str | None


def clip_text(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def seat_to_show(state: GameState) -> int | None:
    """Whose colour a board wears: the seat that must act (the one answering an offer to
    resign), the winner once the game is over, None after a tie."""
    if state.is_over:
        return state.result.winner if state.result is not None else None
    if state.resign_offer is not None:
        return 1 - state.resign_offer[0]
    return state.mover


def seat_colour(theme: str, seat: int | None) -> int | None:
    """The fill of ``seat``'s checkers in ``theme`` as an accent colour."""
    if seat is None:
        return None
    style = getattr(get_theme(theme), SEAT_COLOURS[seat])
    red, green, blue = style.fill
    # discord.py sends an accent of 0 as "no accent": pure black goes as the nearest black.
    return (red << 16 | green << 8 | blue) or 0x010101


def board_layout(
    face: BoardFace, buttons: Sequence[discord.ui.Item[Any]] = ()
) -> discord.ui.LayoutView:
    """The layout of a board message; its picture is the message's attachment ``board.png``.
    Without ``buttons`` there is no action row (nothing to press)."""
    view = discord.ui.LayoutView(timeout=None)
    container: discord.ui.Container[discord.ui.LayoutView] = discord.ui.Container(
        accent_colour=face.colour
    )
    if face.alt is not None:
        container.add_item(
            discord.ui.MediaGallery(discord.MediaGalleryItem(BOARD_URL, description=face.alt))
        )
    container.add_item(discord.ui.TextDisplay(clip_text(face.text)))
    if buttons:
        container.add_item(discord.ui.Separator())
        container.add_item(discord.ui.ActionRow(*buttons))
    view.add_item(container)
    return view


def _walk(components: Sequence[Any]) -> Iterator[Any]:
    for component in components:
        yield component
        children = getattr(component, "children", None)
        if isinstance(children, list):
            yield from _walk(children)


def custom_ids_of(message: discord.Message) -> list[str]:
    """The custom_ids of a message's buttons and menus, wherever they sit in its layout."""
    return [
        custom_id
        for component in _walk(message.components)
        if isinstance(custom_id := getattr(component, "custom_id", None), str)
    ]


def face_of(message: discord.Message) -> BoardFace | None:
    """What a board layout message shows besides its buttons, or None if it is no layout."""
    containers = [c for c in message.components if isinstance(c, discord.components.Container)]
    if not message.flags.components_v2 or not containers:
        return None
    texts: list[str] = []
    alt: str | None = None
    for component in _walk(containers):
        if isinstance(component, discord.components.TextDisplay):
            texts.append(component.content)
        elif isinstance(component, discord.components.MediaGalleryComponent) and component.items:
            alt = component.items[0].description or ""
    colour = containers[0].accent_colour
    return BoardFace("\n".join(texts), None if colour is None else colour.value, alt)
