"""Whatever a client types into a command's options: the use cases answer with a result or a
typed refusal (shown privately by the error boundary), never another exception, and what
they offer back fits Discord's limits (25 choices, 100-character names)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from app.challenges import BadRuleOptions, option_suggestions, parse_rule_options
from app.play import narrow_plays
from cogs.games.play import MAX_CHOICES, play_choices
from engine import VARIANTS
from engine.game import MOVE, GameState

#: What people type into the boxes: notation, near-misses, other scripts, controls.
typed = st.text(
    st.sampled_from("0123456789/*^()barofBAROF ,;-+.\t\n٣３ａ\x00\u200b") | st.characters(),
    max_size=120,
)
variants = st.sampled_from(sorted(VARIANTS)) | st.text(max_size=20)


@settings(max_examples=300, deadline=None)
@given(variants, typed)
def test_rule_options_parse_or_refuse(variant: str, text: str) -> None:
    try:
        chosen = parse_rule_options(variant, text)
    except BadRuleOptions as refusal:
        assert 0 < len(refusal.message) < 2000
        return
    except KeyError:
        assert variant not in VARIANTS  # an unknown variant never reaches here from Discord
        return
    assert set(chosen) <= set(VARIANTS[variant].options)


@settings(max_examples=300, deadline=None)
@given(variants, typed)
def test_option_suggestions_fit_discord(variant: str, text: str) -> None:
    suggestions = option_suggestions(variant, text)
    assert len(suggestions) <= 25
    assert all(0 < len(label) <= 100 and len(value) <= 100 for label, value in suggestions)


def _positions() -> list[GameState]:
    """A few positions to move in, of every variant (seeded random play)."""
    found = []
    rng = random.Random(5)
    for variant in sorted(VARIANTS):
        state = GameState.new(variant, ("a", "b"), rng)
        for _ in range(40):
            if state.phase == MOVE and len(state.legal_plays()) > 3:
                found.append(state)
            if state.is_over:
                break
            if state.phase != MOVE:
                state = state.roll(state.turn, rng)
                continue
            state = state.play(state.mover, rng.choice(state.legal_plays()).text, rng)
    return found


POSITIONS = _positions()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(POSITIONS), typed)
def test_move_suggestions_and_plays_never_raise(state: GameState, text: str) -> None:
    legal = [p.text for p in state.legal_plays()]
    narrowed = narrow_plays(legal, text)
    assert set(narrowed) <= set(legal)
    choices = play_choices(narrowed, state.rules.pin_word)
    assert len(choices) <= MAX_CHOICES
    assert all(0 < len(label) <= 100 and value in (*legal, "pass") for label, value in choices)
    # The typed text as a /move: the new state, or the engine's refusal with its message.
    try:
        state.play(state.mover, text, random.Random(1))
    except Exception as exc:  # only the engine's own errors, which Play.act turns to refusals
        from engine.errors import EngineError

        assert isinstance(exc, EngineError), repr(exc)
        assert exc.message and len(exc.message) < 2000
