"""The custom_ids of the bot's persistent buttons: their templates (how discord.py routes a
click to its DynamicItem) and :func:`decode_custom_id`, the one place that turns an id back
into numbers. Ids come from Discord clients and can be forged: anything that is not exactly an
id the bot could have made decodes to None, and the button answers that it no longer works.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Discord's limit on a custom_id.
MAX_LENGTH = 100
#: Ids are stored as signed 64-bit integers (SQLite, PostgreSQL BIGINT); larger ones cannot
#: name anything.
MAX_ID = 2**63 - 1
#: ASCII digits only (``\d`` would take any script's digits, which ``int`` accepts too), and at
#: most as many as MAX_ID has.
_NUMBER = "[0-9]{1,19}"

GAME_TEMPLATE = (
    rf"bg:(?P<action>roll|double|take|pass|rsyes|rsno):(?P<game>{_NUMBER}):(?P<version>{_NUMBER})"
)
CHALLENGE_TEMPLATE = rf"bg:(?P<action>accept|decline):(?P<challenge>{_NUMBER})"
PAGE_TEMPLATE = rf"lb:(?P<guild>{_NUMBER}):(?P<board>[a-z][a-z-]{{0,39}}):(?P<page>{_NUMBER})"

STALE_BUTTON = (
    "This button does not work any more (its message is too old, or the bot has changed "
    "since). Use the command again."
)


@dataclass(frozen=True, slots=True)
class GameClick:
    action: str
    game_id: int
    version: int


@dataclass(frozen=True, slots=True)
class ChallengeClick:
    action: str
    challenge_id: int


@dataclass(frozen=True, slots=True)
class PageClick:
    guild_id: int
    board: str
    page: int


Click = GameClick | ChallengeClick | PageClick

_GAME = re.compile(GAME_TEMPLATE)
_CHALLENGE = re.compile(CHALLENGE_TEMPLATE)
_PAGE = re.compile(PAGE_TEMPLATE)


def _number(text: str) -> int | None:
    value = int(text)  # the template allows ASCII digits only: never raises
    return value if value <= MAX_ID else None


def decode_custom_id(custom_id: object) -> Click | None:
    """The click a custom_id stands for, or None if it is not one of the bot's ids. Never
    raises."""
    if not isinstance(custom_id, str) or len(custom_id) > MAX_LENGTH:
        return None
    if match := _GAME.fullmatch(custom_id):
        game, version = _number(match["game"]), _number(match["version"])
        if game is None or version is None:
            return None
        return GameClick(match["action"], game, version)
    if match := _CHALLENGE.fullmatch(custom_id):
        challenge = _number(match["challenge"])
        return None if challenge is None else ChallengeClick(match["action"], challenge)
    if match := _PAGE.fullmatch(custom_id):
        guild, page = _number(match["guild"]), _number(match["page"])
        if guild is None or page is None:
            return None
        return PageClick(guild, match["board"], page)
    return None
