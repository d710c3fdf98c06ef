"""The /move suggestions: every choice a legal play, and a cut list that says it is cut."""

from __future__ import annotations

import random

from app.play import narrow_plays
from cogs.games.play import MAX_CHOICES, play_choices
from engine.game import GameState


def _many_plays() -> list[str]:
    """The legal plays of a backgammon position with more than 25 of them (a double)."""
    rng = random.Random(5)
    state = GameState.new("classic", ("ann", "ben"), rng)
    for _ in range(400):
        if state.phase == "move":
            texts = sorted(p.text for p in state.legal_plays())
            if len(texts) > MAX_CHOICES:
                return texts
            state = state.play(state.mover, texts[0] or "pass", rng)
        elif state.phase == "roll":
            state = state.roll(state.turn, rng)
        else:
            state = state.next_game(rng)
    raise AssertionError("no position with more than 25 plays came up")


def test_a_cut_list_says_how_many_plays_match_and_how_to_narrow() -> None:
    texts = narrow_plays(_many_plays(), "")
    choices = play_choices(texts, "pins")
    assert len(choices) == MAX_CHOICES
    assert [value for _, value in choices] == [t or "pass" for t in texts[:MAX_CHOICES]]
    assert all(len(label) <= 100 for label, _ in choices)
    assert f"{MAX_CHOICES} of {len(texts)} shown" in choices[-1][0]
    assert "narrow" in choices[-1][0]
    assert not any("shown" in label for label, _ in choices[:-1])


def test_a_short_list_has_no_note() -> None:
    choices = play_choices(["24/18 13/11", "13/7 8/7", ""], "pins")
    assert [value for _, value in choices] == ["24/18 13/11", "13/7 8/7", "pass"]
    assert choices[-1][0] == "pass (no legal move)"
