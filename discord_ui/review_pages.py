"""Previous / Next through the worst mistakes of a review, on one ephemeral message. The
buttons are persistent (game, whose mistakes and the page are in the custom_id) and answer by
editing the message they are on; the mistakes are read from the stored review."""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from app.analysis import Analyst, MistakePage, mistake_page_text
from discord_ui.boundary import AnsweredItem
from discord_ui.custom_ids import (
    REVIEW_PAGE_TEMPLATE,
    ReviewPageClick,
    decode_custom_id,
)

PREVIOUS, NEXT = "◀ Previous", "Next ▶"


class _PageTurner(Protocol):
    async def turn_mistake_page(
        self, interaction: discord.Interaction[Any], game_id: int, who: int, page: int
    ) -> None: ...


class ReviewPageButton(
    AnsweredItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=REVIEW_PAGE_TEMPLATE,
):
    """Previous or Next under a review's mistakes (handled by the Coach cog)."""

    def __init__(
        self,
        game_id: int,
        who: int,
        page: int,
        label: str = NEXT,
        disabled: bool = False,
        *,
        unusable: str = "",
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=unusable or f"rv:{game_id}:{who}:{page}",
                disabled=disabled,
            )
        )
        self.game_id = game_id
        self.who = who
        self.page = page
        #: A forged id: answered as a stale button.
        self.unusable = bool(unusable)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReviewPageButton:
        click = decode_custom_id(match.string)
        if not isinstance(click, ReviewPageClick):
            # Never raise here: discord.py would drop the click unanswered.
            return cls(0, 0, 0, unusable=match.string)
        return cls(click.game_id, click.who, click.page)

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Coach")
        assert cog is not None and hasattr(cog, "turn_mistake_page"), "the Coach cog is loaded"
        turner = cast(_PageTurner, cog)
        await turner.turn_mistake_page(interaction, self.game_id, self.who, self.page)


def mistake_browser(page: MistakePage) -> tuple[str, discord.ui.View | None]:
    """The text of a page and its Previous/Next buttons (none for fewer than two mistakes).
    The two buttons never share an id: Previous names the page before, Next the page after."""
    text = mistake_page_text(page)
    total = len(page.mistakes)
    if total < 2:
        return text, None
    view = discord.ui.View(timeout=None)
    at, game, who = page.index, page.game.id, page.who
    view.add_item(ReviewPageButton(game, who, max(at - 1, 0), PREVIOUS, disabled=at == 0))
    view.add_item(
        ReviewPageButton(game, who, min(at + 1, total - 1), NEXT, disabled=at == total - 1)
    )
    return text, view


async def send_mistakes(
    interaction: discord.Interaction[Any], analyst: Analyst, game_id: int
) -> None:
    """After a review: the asker's worst mistakes (theirs if they played, else the game's), one
    page at a time with Previous/Next, on an ephemeral follow-up."""
    found = await analyst.games.on_server(interaction.guild_id, game_id)
    who = analyst.reader_of(found, interaction.user.id)
    page = await analyst.mistake_page(interaction.guild_id, game_id, who, 0)
    text, view = mistake_browser(page)
    if view is None:
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.followup.send(text, view=view, ephemeral=True)
