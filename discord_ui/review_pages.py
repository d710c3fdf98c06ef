"""Previous / Next through the worst mistakes of a review, on one ephemeral message. The
buttons are persistent (game, whose mistakes and the page are in the custom_id) and answer by
editing the message they are on; the mistakes are read from the stored review."""

from __future__ import annotations

from typing import Any, Protocol, Self, cast

import discord

from app.analysis import Analyst, MistakePage, mistake_page_text
from discord_ui.custom_ids import REVIEW_PAGE_TEMPLATE, Click, ReviewPageClick
from discord_ui.items import PageButton

PREVIOUS, NEXT = "◀ Previous", "Next ▶"


class _PageTurner(Protocol):
    async def turn_mistake_page(
        self, interaction: discord.Interaction[Any], game_id: int, who: int, page: int
    ) -> None: ...


class ReviewPageButton(PageButton[ReviewPageClick], template=REVIEW_PAGE_TEMPLATE):
    """Previous or Next under a review's mistakes (handled by the Coach cog)."""

    @staticmethod
    def custom_id_of(page: ReviewPageClick) -> str:
        return f"rv:{page.game_id}:{page.who}:{page.page}"

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        if isinstance(click, ReviewPageClick):
            return cls(click)
        return None

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Coach")
        assert cog is not None and hasattr(cog, "turn_mistake_page"), "the Coach cog is loaded"
        turner = cast(_PageTurner, cog)
        page = self.page
        await turner.turn_mistake_page(interaction, page.game_id, page.who, page.page)


def mistake_browser(page: MistakePage) -> tuple[str, discord.ui.View | None]:
    """The text of a page and its Previous/Next buttons (none for fewer than two mistakes).
    The two buttons never share an id: Previous names the page before, Next the page after."""
    text = mistake_page_text(page)
    total = len(page.mistakes)
    if total < 2:
        return text, None
    view = discord.ui.View(timeout=None)
    at, game, who = page.index, page.game.id, page.who
    before, after = (
        ReviewPageClick(game, who, max(at - 1, 0)),
        ReviewPageClick(game, who, min(at + 1, total - 1)),
    )
    view.add_item(ReviewPageButton(before, PREVIOUS, disabled=at == 0))
    view.add_item(ReviewPageButton(after, NEXT, disabled=at == total - 1))
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
