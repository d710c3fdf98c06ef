"""A board's text under any names and any history: the result and who acts now are never cut,
and the whole fits its text display (cogs.games.base.board_text)."""

from __future__ import annotations

import random

from app.table import Outcome
from cogs.games.base import board_text, status_line
from discord_ui.layout import MAX_TEXT
from engine.game import GameState
from storage import Game


def _outcome(names: tuple[str, str]) -> Outcome:
    state = GameState.new("classic", names, random.Random(2))
    game = Game(
        id=1,
        guild_id=2,
        channel_id=3,
        variant="classic",
        player_x=10,
        player_o=11,
        match_length=1,
        status="active",
        state_json=state.to_json(),
        version=4,
        board_message_id=None,
        created_at=0.0,
        last_action_at=0.0,
        reminded_at=None,
        finished_at=None,
        winner_id=None,
        result_kind=None,
        points=None,
        score_x=0,
        score_o=0,
    )
    return Outcome(game, state)


def test_long_history_gives_way_to_the_prompt() -> None:
    outcome = _outcome(("a" * 32, "b" * 32))
    lines = [f"line {i} " + "x" * 390 for i in range(8)]
    text = board_text(outcome, lines, limit=1800)
    assert len(text) <= 1800
    assert text.endswith("or /move.") or "roll or double" in text.splitlines()[-1]
    assert status_line(outcome.state) in text
    assert "line 7" in text and "line 0" not in text  # the latest lines stay


def test_longest_history_fits_a_text_display() -> None:
    outcome = _outcome(("a" * 32, "b" * 32))
    lines = [f"line {i} " + "x" * 2000 for i in range(12)]
    text = board_text(outcome, lines)
    assert len(text) <= MAX_TEXT
    assert text.endswith("or /move.")
    assert status_line(outcome.state) in text
    assert "line 11" in text and "line 0" not in text  # only the last 8 lines, each cut


def test_short_history_is_kept_whole() -> None:
    outcome = _outcome(("alice", "bob"))
    text = board_text(outcome, ["alice 6-5: 24/13", "", "bob rolls 3-1."])
    assert text.splitlines()[:2] == ["alice 6-5: 24/13", "bob rolls 3-1."]
