"""kill -9 at the instants where a crash could lose or repeat a message: after each, a new
process shows every owed board, result card and reminder exactly once, and no older board
keeps live buttons; the same in the bot's DM and where only interactions reach the channel, and
around a turn notice and a challenge's expiry. (``bench/kill_points.py`` runs many more tries,
at random instants.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.faults import KILL_POINTS

from .crash_notices import answer_try, double_try, expiry_try
from .crash_points import game_try, notice_try

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("point", "nth", "decisions"),
    [
        ("committed", 3, 2),  # the person's second decision, or the computer's reply
        ("thinking", 2, 2),
        ("board_posted", 2, 2),
        ("board_edited", 1, 2),
        ("before_result_card", 1, 1),
        ("result_card_posted", 1, 1),
    ],
)
async def test_a_kill_shows_each_message_once(
    tmp_path: Path, point: str, nth: int, decisions: int
) -> None:
    assert point in KILL_POINTS
    outcome = await game_try(point, nth, decisions, seed=5, workdir=tmp_path)
    assert outcome.killed, f"the bot never reached {point} #{nth}"
    assert outcome.problems == []


async def test_a_kill_after_a_reminder_posts_it_once(tmp_path: Path) -> None:
    outcome = await notice_try(seed=5, workdir=tmp_path)
    assert outcome.killed, "the bot never posted the reminder"
    assert outcome.problems == []


@pytest.mark.parametrize(
    ("venue", "point", "nth", "decisions"),
    [
        ("dm", "committed", 3, 2),
        ("dm", "board_posted", 2, 2),
        ("dm", "board_edited", 1, 2),
        ("user", "committed", 3, 2),
        ("user", "board_posted", 2, 2),
        ("user", "board_edited", 1, 2),
    ],
)
async def test_a_kill_outside_a_server_with_the_bot_shows_each_board_once(
    tmp_path: Path, venue: str, point: str, nth: int, decisions: int
) -> None:
    """In the bot's DM (it may post there) and where the app is installed to the player's
    account (only their interactions reach the channel: /board shows what a restart owes).
    There an older board whose webhook died with the process keeps its buttons: out of the
    bot's reach, documented, and kept apart in ``outcome.limits``."""
    outcome = await game_try(point, nth, decisions, seed=5, workdir=tmp_path, venue=venue)
    assert outcome.killed, f"the bot never reached {point} #{nth} in {venue}"
    assert outcome.problems == []


@pytest.mark.parametrize("point", ["board_edited", "turn_notice_posted"])
async def test_a_kill_around_a_turn_notice_posts_it_once(tmp_path: Path, point: str) -> None:
    assert point in KILL_POINTS
    outcome = await double_try(point, seed=5, workdir=tmp_path)
    assert outcome.killed, f"the bot never reached {point}"
    assert outcome.problems == []


@pytest.mark.parametrize("point", ["challenge_closed", "challenge_retired"])
async def test_a_kill_as_a_challenge_expires_says_so_once(tmp_path: Path, point: str) -> None:
    assert point in KILL_POINTS
    outcome = await expiry_try(point, seed=5, workdir=tmp_path)
    assert outcome.killed, f"the bot never reached {point}"
    assert outcome.problems == []


@pytest.mark.parametrize(
    ("answer", "point"),
    [("accept", "challenge_closed"), ("decline", "challenge_retired")],
)
async def test_a_kill_as_a_challenge_is_answered_says_so_once(
    tmp_path: Path, answer: str, point: str
) -> None:
    outcome = await answer_try(answer, point, seed=5, workdir=tmp_path)
    assert outcome.killed, f"the bot never reached {point}"
    assert outcome.problems == []
