"""Every custom_id a button of the bot can carry, and garbled ones (oversized numbers, wrong
actions, truncated, other scripts' digits, any text): decoding never raises, and a button whose
template routes a garbled id answers it as a stale button instead of dropping the click."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import discord
from hypothesis import given, settings
from hypothesis import strategies as st

import cogs.games.buttons
import cogs.league
import cogs.puzzles
import cogs.tournaments
import discord_ui.review_pages
from cogs.games.buttons import (
    BuilderButton,
    BuilderSelect,
    ChallengeButton,
    ConfirmButton,
    GameButton,
    ResultButton,
)
from cogs.league import LeaderboardButton
from cogs.puzzles import PuzzleBuilderButton, PuzzleButton, PuzzleStepSelect
from cogs.tournaments import SignupButton
from discord_ui.custom_ids import (
    MAX_ID,
    MAX_LENGTH,
    BuilderClick,
    ChallengeClick,
    Click,
    ConfirmClick,
    GameClick,
    PageClick,
    PuzzleBuilderClick,
    PuzzleClick,
    PuzzleFormSubmit,
    ResultClick,
    ReviewPageClick,
    SignupClick,
    decode_custom_id,
    submitted_value,
)
from discord_ui.review_pages import ReviewPageButton

GAME_ACTIONS = tuple(GameButton.LABELS)
CHALLENGE_ACTIONS = ("accept", "decline")
BUTTONS: tuple[type[Any], ...] = (
    GameButton,
    ChallengeButton,
    LeaderboardButton,
    ResultButton,
    ConfirmButton,
    BuilderButton,
    BuilderSelect,
    SignupButton,
    ReviewPageButton,
    PuzzleButton,
    PuzzleBuilderButton,
    PuzzleStepSelect,
)
SELECTS = (BuilderSelect, PuzzleStepSelect)
#: What engine.builder.encode_steps writes: two characters a step, at most four steps.
steps = st.from_regex(r"([a-y][1-6A-R]){0,4}", fullmatch=True)

ids = st.integers(0, MAX_ID)
boards = st.from_regex(r"[a-z][a-z-]{0,20}", fullmatch=True)
puzzles = st.builds(
    lambda v, k: f"{v}:{k}",
    st.from_regex(r"[a-z][a-z-]{0,19}", fullmatch=True),
    st.from_regex(r"[0-9a-f]{12}", fullmatch=True),
)
clicks: st.SearchStrategy[Click] = st.one_of(
    st.builds(GameClick, st.sampled_from(GAME_ACTIONS), ids, ids),
    st.builds(ChallengeClick, st.sampled_from(CHALLENGE_ACTIONS), ids),
    st.builds(PageClick, ids, boards, ids),
    st.builds(ResultClick, st.sampled_from(tuple(ResultButton.LABELS)), ids),
    st.builds(
        ConfirmClick, st.sampled_from(tuple(ConfirmButton.LABELS)), ids, ids, st.integers(0, 3)
    ),
    st.builds(BuilderClick, st.sampled_from(tuple(BuilderButton.LABELS)), ids, ids, steps),
    st.builds(BuilderClick, st.just("step"), ids, ids, steps, st.integers(0, 1)),
    st.builds(SignupClick, st.sampled_from(("join", "leave")), ids),
    st.builds(ReviewPageClick, ids, st.integers(0, 2), st.integers(0, 2)),
    st.builds(PuzzleClick, st.sampled_from(("ans", "bld")), puzzles),
    st.builds(PuzzleBuilderClick, st.sampled_from(("undo", "confirm", "reset")), puzzles, steps),
    st.builds(PuzzleBuilderClick, st.just("step"), puzzles, steps, st.integers(0, 1)),
)


def _button(click: Click) -> discord.ui.DynamicItem[Any]:
    if isinstance(click, GameClick):
        return GameButton(click.action, click.game_id, click.version)
    if isinstance(click, ChallengeClick):
        return ChallengeButton(click.action, click.challenge_id)
    if isinstance(click, ResultClick):
        return ResultButton(click.action, click.game_id)
    if isinstance(click, ConfirmClick):
        return ConfirmButton(click.action, click.game_id, click.version, click.level)
    if isinstance(click, BuilderClick):
        if click.action == "step":
            return BuilderSelect(click.row, click.game_id, click.version, click.steps)
        return BuilderButton(click.action, click.game_id, click.version, click.steps)
    if isinstance(click, SignupClick):
        return SignupButton(click.action, click.tournament_id)
    if isinstance(click, PuzzleClick):
        return PuzzleButton(click.puzzle, click.action)
    if isinstance(click, PuzzleBuilderClick):
        if click.action == "step":
            return PuzzleStepSelect(click.row, click.puzzle, click.steps)
        return PuzzleBuilderButton(click.action, click.puzzle, click.steps)
    if isinstance(click, ReviewPageClick):
        return ReviewPageButton(click)
    assert isinstance(click, PageClick)
    return LeaderboardButton(click)


def _route(custom_id: str) -> discord.ui.DynamicItem[Any] | None:
    """What discord.py does with a click: the DynamicItem whose template matches builds the
    item (None: no template matches, the client's stale-button answer)."""
    for cls in BUTTONS:
        match = cls.__discord_ui_compiled_template__.fullmatch(custom_id)
        if match is not None:
            # The component as the message carries it (a stale id's answerer wraps it).
            component: discord.ui.Item[Any] = (
                discord.ui.Select(custom_id=custom_id)
                if cls in SELECTS
                else discord.ui.Button(custom_id=custom_id)
            )
            # Run to its end by hand: it awaits nothing (and an event loop per example is slow).
            coroutine = cls.from_custom_id(None, component, match)  # the interaction is not read
            try:
                coroutine.send(None)
            except StopIteration as done:
                item: discord.ui.DynamicItem[Any] = done.value
                return item
            raise AssertionError("from_custom_id waited for something")
    return None


def _subclasses(cls: type[Any]) -> set[type[Any]]:
    direct = set(cls.__subclasses__())
    return direct.union(*(_subclasses(sub) for sub in direct))


def test_every_dynamic_item_of_the_cogs_is_covered() -> None:
    found = {
        cls
        for cls in _subclasses(discord.ui.DynamicItem)
        if cls.__module__
        in (
            cogs.games.buttons.__name__,
            cogs.league.__name__,
            cogs.tournaments.__name__,
            cogs.puzzles.__name__,
            discord_ui.review_pages.__name__,
        )
    }
    assert found == set(BUTTONS)


@settings(deadline=None)  # a loaded machine is no failure
@given(clicks)
def test_each_id_a_button_makes_decodes_to_its_click(click: Click) -> None:
    button = _button(click)
    custom_id = button.item.custom_id
    assert custom_id is not None and len(custom_id) <= MAX_LENGTH
    assert decode_custom_id(custom_id) == click
    routed = _route(custom_id)
    assert type(routed) is type(button) and not routed.unusable  # type: ignore[attr-defined]


def _garble(draw: st.DrawFn, custom_id: str) -> str:
    parts = custom_id.split(":")
    how = draw(st.sampled_from(("number", "action", "truncate", "unicode", "insert", "sign")))
    if how == "number":  # a number past 64 bits, or with leading zeros
        i = draw(st.integers(1, len(parts) - 1).filter(lambda i: parts[i].isdigit()))
        parts[i] = draw(st.from_regex(r"[0-9]{19,60}", fullmatch=True))
    elif how == "action":
        parts[1] = draw(st.text(max_size=12))
    elif how == "truncate":
        return custom_id[: draw(st.integers(0, len(custom_id) - 1))]
    elif how == "unicode":  # digits of other scripts, look-alikes, controls
        i = draw(st.integers(0, len(parts) - 1))
        parts[i] = draw(
            st.text(
                st.sampled_from("٣۴७３𝟗¹½\u200b\n\x00ａｂ：-+ ") | st.characters(),
                min_size=1,
                max_size=8,
            )
        )
    elif how == "insert":
        at = draw(st.integers(0, len(custom_id)))
        return custom_id[:at] + draw(st.text(min_size=1, max_size=5)) + custom_id[at:]
    else:
        i = draw(st.integers(1, len(parts) - 1))
        parts[i] = draw(st.sampled_from(("-1", "+1", "1e9", "0x10", "1_000", " 1", "")))
    return ":".join(parts)


@st.composite
def garbled(draw: st.DrawFn) -> str:
    custom_id = _button(draw(clicks)).item.custom_id
    assert custom_id is not None
    return _garble(draw, custom_id)


@settings(max_examples=300, deadline=None)
@given(st.one_of(garbled(), st.text(max_size=120), st.binary(max_size=20).map(repr)))
def test_garbled_ids_decode_to_a_click_or_none_and_never_raise(custom_id: str) -> None:
    click = decode_custom_id(custom_id)
    if click is not None:
        # Only a well-formed id of ours decodes, to numbers storage can hold.
        numbers = [v for v in vars_of(click) if isinstance(v, int)]
        assert all(0 <= n <= MAX_ID for n in numbers)
        assert re.fullmatch(r"(bg|lb|tn|rv|pz):[A-Za-z:0-9-]+", custom_id, re.ASCII)
    routed = _route(custom_id)
    if routed is not None:
        # A routed id that does not decode becomes a button answering "no longer works".
        assert routed.unusable == (click is None)  # type: ignore[attr-defined]


def vars_of(click: Click) -> list[object]:
    return [getattr(click, name) for name in click.__slots__]


def test_non_strings_and_overlong_ids_decode_to_none() -> None:
    assert decode_custom_id(None) is None
    assert decode_custom_id(b"bg:roll:1:2") is None
    assert decode_custom_id("bg:roll:1:" + "0" * 100) is None
    assert decode_custom_id(f"bg:roll:{MAX_ID + 1}:0") is None
    assert decode_custom_id(f"bg:roll:{MAX_ID}:0") == GameClick("roll", MAX_ID, 0)
    assert decode_custom_id("bg:roll:٣:0") is None  # \d would have taken it


@settings(deadline=None)
@given(puzzles)
def test_a_puzzle_answer_forms_id_decodes_to_its_puzzle(puzzle: str) -> None:
    from cogs.puzzles import AnswerModal

    async def opened() -> str:  # a modal is made in a running loop, as in a callback
        return AnswerModal(puzzle).custom_id

    custom_id = asyncio.run(opened())
    assert len(custom_id) <= MAX_LENGTH
    assert decode_custom_id(custom_id) == PuzzleFormSubmit(puzzle)
    assert decode_custom_id(custom_id[:-1]) is None
    assert decode_custom_id(custom_id + "0") is None
    assert decode_custom_id(custom_id.replace("pzform:", "pzform::")) is None


def test_the_value_of_a_submitted_forms_field() -> None:
    row = {"type": 1, "components": [{"type": 4, "custom_id": "play", "value": "24/18"}]}
    assert submitted_value({"custom_id": "f", "components": [row]}, "play") == "24/18"
    label = {"type": 18, "component": {"type": 4, "custom_id": "play", "value": "8/4(2)"}}
    assert submitted_value({"components": [label]}, "play") == "8/4(2)"
    assert submitted_value({"components": [row]}, "other") is None
    for broken in (None, [], {"components": "x"}, {"components": [{"components": 3}]}):
        assert submitted_value(broken, "play") is None
    # A value that is not text is not an answer.
    odd = {"type": 4, "custom_id": "play", "value": 5}
    assert submitted_value({"components": [odd]}, "play") is None
