"""The custom_ids of the bot's persistent buttons and forms: their templates (how discord.py
routes a click to its DynamicItem) and :func:`decode_custom_id`, the one place that turns an id
back into numbers. Ids come from Discord clients and can be forged: anything that is not exactly an
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
    rf"bg:(?P<action>roll|double|take|pass|rsyes|rsno|play):(?P<game>{_NUMBER}):"
    rf"(?P<version>{_NUMBER})"
)
RESULT_TEMPLATE = rf"bg:res:(?P<action>rematch|review|replay|record):(?P<game>{_NUMBER})"
CONFIRM_TEMPLATE = (
    rf"bg:cf:(?P<action>resign|abort|cancel):(?P<game>{_NUMBER}):(?P<version>{_NUMBER}):"
    r"(?P<level>[0-3])"
)
#: The move builder's steps so far, as ``engine.builder.encode_steps`` writes them.
_STEPS = r"(?P<steps>[1-6A-Ra-y]{0,8})"
BUILDER_TEMPLATE = (
    rf"bg:mb:(?P<action>undo|confirm|reset):(?P<game>{_NUMBER}):(?P<version>{_NUMBER}):{_STEPS}"
)
STEP_TEMPLATE = rf"bg:ms:(?P<row>[0-9]):(?P<game>{_NUMBER}):(?P<version>{_NUMBER}):{_STEPS}"
CHALLENGE_TEMPLATE = rf"bg:(?P<action>accept|decline):(?P<challenge>{_NUMBER})"
SIGNUP_TEMPLATE = rf"tn:(?P<action>join|leave):(?P<tournament>{_NUMBER})"
PAGE_TEMPLATE = rf"lb:(?P<guild>{_NUMBER}):(?P<board>[a-z][a-z-]{{0,39}}):(?P<page>{_NUMBER})"

#: Previous/Next through a review's worst mistakes: whose (0, 1 a seat, 2 both) and the page.
REVIEW_PAGE_TEMPLATE = rf"rv:(?P<game>{_NUMBER}):(?P<who>[0-2]):(?P<page>[0-2])"
#: A puzzle's Answer button (``ans``, opens a form) and its move builder's opening button
#: (``bld``): the benchmark puzzle's key "<variant>:<hash>".
_PUZZLE = r"(?P<variant>[a-z][a-z-]{0,19}):(?P<key>[0-9a-f]{12})"
PUZZLE_TEMPLATE = rf"pz:(?P<action>ans|bld):{_PUZZLE}"
#: The puzzle's move builder: Undo, Confirm, Start over, and the step menus (``s<row>``).
PUZZLE_BUILDER_TEMPLATE = rf"pz:(?P<action>undo|confirm|reset):{_PUZZLE}:{_STEPS}"
PUZZLE_STEP_TEMPLATE = rf"pz:s(?P<row>[0-9]):{_PUZZLE}:{_STEPS}"
#: The puzzle's answer form (a modal): submitted to whichever process is running then, even
#: one started after the form was opened.
PUZZLE_FORM_PREFIX = "pzform:"
PUZZLE_FORM_TEMPLATE = rf"{PUZZLE_FORM_PREFIX}{_PUZZLE}"

STALE_BUTTON = (
    "This button does not work any more (its message is too old, or the bot has changed "
    "since). Use the command again."
)
STALE_FORM = (
    "This form does not work any more (the bot has changed since it was opened). Use the "
    "command again."
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


@dataclass(frozen=True, slots=True)
class ResultClick:
    action: str
    game_id: int


@dataclass(frozen=True, slots=True)
class ConfirmClick:
    action: str
    game_id: int
    version: int
    level: int


@dataclass(frozen=True, slots=True)
class BuilderClick:
    """A move builder's button (``action`` undo, confirm, reset) or step menu (``action``
    "step", ``row`` the menu)."""

    action: str
    game_id: int
    version: int
    steps: str
    row: int = 0


@dataclass(frozen=True, slots=True)
class SignupClick:
    """Join or Leave under a tournament's sign-up message."""

    action: str
    tournament_id: int


@dataclass(frozen=True, slots=True)
class ReviewPageClick:
    game_id: int
    who: int
    page: int


@dataclass(frozen=True, slots=True)
class PuzzleClick:
    """``ans``: the Answer button; ``bld``: Build it."""

    action: str
    puzzle: str


@dataclass(frozen=True, slots=True)
class PuzzleFormSubmit:
    """The answer form of a puzzle, submitted."""

    puzzle: str


@dataclass(frozen=True, slots=True)
class PuzzleBuilderClick:
    """The puzzle builder's button (``action`` undo, confirm, reset) or step menu (``action``
    "step", ``row`` the menu)."""

    action: str
    puzzle: str
    steps: str
    row: int = 0


Click = (
    GameClick
    | ChallengeClick
    | PageClick
    | ResultClick
    | ConfirmClick
    | BuilderClick
    | ReviewPageClick
    | PuzzleClick
    | PuzzleBuilderClick
    | PuzzleFormSubmit
    | SignupClick
)

_GAME = re.compile(GAME_TEMPLATE)
_RESULT = re.compile(RESULT_TEMPLATE)
_CONFIRM = re.compile(CONFIRM_TEMPLATE)
_BUILDER = re.compile(BUILDER_TEMPLATE)
_STEP = re.compile(STEP_TEMPLATE)
_CHALLENGE = re.compile(CHALLENGE_TEMPLATE)
_PAGE = re.compile(PAGE_TEMPLATE)
_SIGNUP = re.compile(SIGNUP_TEMPLATE)
_REVIEW_PAGE = re.compile(REVIEW_PAGE_TEMPLATE)
_PUZZLE_CLICK = re.compile(PUZZLE_TEMPLATE)
_PUZZLE_BUILDER = re.compile(PUZZLE_BUILDER_TEMPLATE)
_PUZZLE_STEP = re.compile(PUZZLE_STEP_TEMPLATE)
_PUZZLE_FORM = re.compile(PUZZLE_FORM_TEMPLATE)


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
    if match := _RESULT.fullmatch(custom_id):
        game = _number(match["game"])
        return None if game is None else ResultClick(match["action"], game)
    if match := _CONFIRM.fullmatch(custom_id):
        game, version = _number(match["game"]), _number(match["version"])
        if game is None or version is None:
            return None
        return ConfirmClick(match["action"], game, version, int(match["level"]))
    if (match := _BUILDER.fullmatch(custom_id)) or (match := _STEP.fullmatch(custom_id)):
        game, version = _number(match["game"]), _number(match["version"])
        if game is None or version is None or len(match["steps"]) % 2:
            return None
        if "row" in match.groupdict():
            return BuilderClick("step", game, version, match["steps"], int(match["row"]))
        return BuilderClick(match["action"], game, version, match["steps"])
    if match := _PAGE.fullmatch(custom_id):
        guild, page = _number(match["guild"]), _number(match["page"])
        if guild is None or page is None:
            return None
        return PageClick(guild, match["board"], page)
    if match := _SIGNUP.fullmatch(custom_id):
        tournament = _number(match["tournament"])
        return None if tournament is None else SignupClick(match["action"], tournament)
    if match := _REVIEW_PAGE.fullmatch(custom_id):
        game = _number(match["game"])
        if game is None:
            return None
        return ReviewPageClick(game, int(match["who"]), int(match["page"]))
    if match := _PUZZLE_CLICK.fullmatch(custom_id):
        return PuzzleClick(match["action"], f"{match['variant']}:{match['key']}")
    if (match := _PUZZLE_BUILDER.fullmatch(custom_id)) or (
        match := _PUZZLE_STEP.fullmatch(custom_id)
    ):
        if len(match["steps"]) % 2:
            return None
        puzzle = f"{match['variant']}:{match['key']}"
        if "row" in match.groupdict():
            return PuzzleBuilderClick("step", puzzle, match["steps"], int(match["row"]))
        return PuzzleBuilderClick(match["action"], puzzle, match["steps"])
    if match := _PUZZLE_FORM.fullmatch(custom_id):
        return PuzzleFormSubmit(f"{match['variant']}:{match['key']}")
    return None


def submitted_value(data: object, custom_id: str) -> str | None:
    """The value of field ``custom_id`` in a modal submit's ``data`` (its components, in action
    rows or labels, as clients send them), or None if it is not there. Never raises."""
    if not isinstance(data, dict):
        return None
    pending: list[object] = [data]
    while pending:
        comp = pending.pop()
        if not isinstance(comp, dict):
            continue
        if comp.get("custom_id") == custom_id and isinstance(comp.get("value"), str):
            return str(comp["value"])
        children = comp.get("components")
        if isinstance(children, list):
            pending.extend(children)
        pending.append(comp.get("component"))  # a label's one component
    return None
