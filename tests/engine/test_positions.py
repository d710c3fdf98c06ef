"""Every hand-worked position (positions.md) and every worked example (RULES §7.8)."""

from __future__ import annotations

import pytest

from engine import (
    EngineError,
    format_position,
    get_variant,
    legal_plays,
    parse_play,
    parse_position,
)

from .positions_data import CASES, EXAMPLES, Case, Example, case


def _legal(c: Case):  # type: ignore[no-untyped-def]
    pos, dice = parse_position(c.position)
    assert dice is not None
    return pos, legal_plays(pos, dice)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_position_text_round_trip(c: Case) -> None:
    pos, dice = parse_position(c.position)
    assert format_position(pos, dice) == c.position


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_legal_set(c: Case) -> None:
    pos, plays = _legal(c)
    # Compare as sets of resulting positions: parse each expected text with the engine's parser.
    expected_afters = {parse_play(pos, plays, text).after for text in c.legal}
    assert expected_afters == {p.after for p in plays}
    assert len(plays) == len(c.legal)
    # And the canonical texts are exactly the documented ones (RULES §7.6).
    assert sorted(p.text for p in plays) == sorted(c.legal)


@pytest.mark.parametrize("c", [c for c in CASES if c.outcomes or c.continuing], ids=lambda c: c.id)
def test_outcomes(c: Case) -> None:
    pos, plays = _legal(c)
    rules = get_variant(pos.variant)
    for outcome in c.outcomes:
        result = rules.result(parse_play(pos, plays, outcome.play).after)
        assert result is not None, outcome.play
        points = result.points * (c.cube if rules.has_cube else 1)
        assert (result.winner, points, result.kind) == (
            outcome.winner,
            outcome.points * (c.cube if rules.has_cube else 1),
            outcome.kind,
        ), outcome.play
    for text in c.continuing:
        assert rules.result(parse_play(pos, plays, text).after) is None, text


@pytest.mark.parametrize(
    ("c", "text", "expected"),
    [(c, text, expected) for c in CASES for text, expected in c.inputs],
    ids=lambda v: v.id if isinstance(v, Case) else repr(v),
)
def test_documented_inputs(c: Case, text: str, expected: str) -> None:
    pos, plays = _legal(c)
    _check_input(pos, plays, text, expected)


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: f"{e.number}-{e.case_id}")
def test_worked_examples(ex: Example) -> None:
    pos, dice = parse_position(ex.position)
    assert dice is not None
    assert case(ex.case_id).position.split(" | ")[:-1] == ex.position.split(" | ")[:-1]
    _check_input(pos, legal_plays(pos, dice), ex.text, ex.expected)


def _check_input(pos, plays, text: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    if expected.startswith("E_"):
        with pytest.raises(EngineError) as info:
            parse_play(pos, plays, text)
        assert info.value.code == expected, info.value.message
    else:
        assert parse_play(pos, plays, text).text == expected
