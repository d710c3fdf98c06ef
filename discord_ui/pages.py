"""Previous / Next under a paged message (a leaderboard, a review's worst mistakes): one
persistent button whose custom_id names the page it shows. Each kind of page is a subclass
with its own template (its id prefix), the id it makes of a page, and the cog that turns it."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import discord

from discord_ui.boundary import UNROUTED, AnsweredItem
from discord_ui.custom_ids import PageClick, ReviewPageClick

PageT = TypeVar("PageT", PageClick, ReviewPageClick)


class PageButton(AnsweredItem[discord.ui.Button[Any]], Generic[PageT], template=UNROUTED):
    """A grey button showing ``page`` (the click it stands for) when clicked."""

    def __init__(self, page: PageT, label: str = "Page", disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=self.custom_id_of(page),
                disabled=disabled,
            )
        )
        self.page: PageT = page

    @staticmethod
    def custom_id_of(page: PageT) -> str:
        """The custom_id naming ``page`` (its subclass's template matches it)."""
        raise NotImplementedError
