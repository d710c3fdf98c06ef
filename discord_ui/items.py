"""The shapes every persistent button and menu of the bot shares (discord.py DynamicItems:
their ids are in their custom_id, so they work across restarts): :class:`AnsweredItem`, the
base of them all, :class:`ActionButton`, a button labelled and coloured by its action, and
:class:`PageButton`, Previous / Next under a paged message."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Generic, Self, TypeVar

import discord

from discord_ui.boundary import tell_user
from discord_ui.common import guarded
from discord_ui.custom_ids import STALE_BUTTON, Click, PageClick, ReviewPageClick, decode_custom_id

#: The template of a base class that routes nothing itself (its subclasses bring theirs).
UNROUTED = r"(?!)"

ItemT = TypeVar("ItemT", bound="discord.ui.Item[Any]", covariant=True)


class AnsweredItem(discord.ui.DynamicItem[ItemT], template=UNROUTED):
    """What every persistent button and menu of the bot is (subclass it, with its template,
    instead of ``discord.ui.DynamicItem``): a click is decoded in one place
    (:func:`discord_ui.custom_ids.decode_custom_id`) and handed to :meth:`from_click`; one
    whose custom id does not decode to the item's kind of click (``unusable``, e.g. a garbled
    or outdated id) is told so; any other runs :meth:`act` behind the error boundary. Either
    way the click is answered."""

    #: The click cannot name anything (a forged or outdated id): answered as a stale button.
    unusable: bool = False

    @classmethod
    def from_click(cls, click: Click) -> Self | None:
        """The item a decoded click stands for, or None if it is another kind of click."""
        raise NotImplementedError

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        click = decode_custom_id(match.string)
        made = None if click is None else cls.from_click(click)
        if made is not None:
            return made
        # Never raise here: discord.py would drop the click unanswered. The constructor wants
        # a decoded click; this item only answers, so it wraps the component as it came.
        stale = cls.__new__(cls)
        discord.ui.DynamicItem.__init__(stale, item)
        stale.unusable = True
        return stale

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.unusable:
            await tell_user(interaction, STALE_BUTTON)
            return
        await guarded(interaction, self.act(interaction))

    async def act(self, interaction: discord.Interaction[Any]) -> None:
        raise NotImplementedError


class ActionButton(AnsweredItem[discord.ui.Button[Any]], template=UNROUTED):
    """A button whose action (one of its template's) gives its label (``LABELS``) and colour
    (``STYLES``, grey where it names none)."""

    LABELS: ClassVar[dict[str, str]]
    STYLES: ClassVar[dict[str, discord.ButtonStyle]] = {}

    def __init__(self, action: str, custom_id: str, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=self.LABELS.get(action, "?"),
                style=self.STYLES.get(action, discord.ButtonStyle.secondary),
                custom_id=custom_id,
                disabled=disabled,
            )
        )
        self.action = action


PageT = TypeVar("PageT", PageClick, ReviewPageClick)


class PageButton(AnsweredItem[discord.ui.Button[Any]], Generic[PageT], template=UNROUTED):
    """Previous or Next under a paged message (a leaderboard, a review's worst mistakes): a grey
    button showing ``page`` (the click it stands for) when clicked. Each kind of page is a
    subclass with its own template (its id prefix), the id it makes of a page, and the cog
    that turns it."""

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
