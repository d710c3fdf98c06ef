"""Digits in a typed play: ASCII and full-width only; any other Unicode digit is E_SYNTAX.

str.isdigit() accepts superscripts and circled digits that int() then rejects, so these inputs
used to end in a ValueError (a traceback and "Something went wrong" in Discord).
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import EngineError, Roll, get_variant, legal_plays, parse_play, parse_position

START = get_variant("classic").initial_position()
ROLL = Roll.of(6, 4)
LEGAL = legal_plays(START, ROLL)
# Four of a kind, so that a repeat count (13/7(4)) can be legal.
DOUBLES = Roll.of(6, 6)
LEGAL_DOUBLES = legal_plays(START, DOUBLES)


def _full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


@pytest.mark.parametrize(
    "text",
    ["13/²", "①/1", "13/7(⁴)", "²4/18", "13/7 ⑥/2", "٢٤/١٨", "24/18 13/९", "𝟚𝟜/18"],
)
def test_other_unicode_digits_are_a_syntax_error(text: str) -> None:
    with pytest.raises(EngineError) as caught:
        parse_play(START, LEGAL if "(" not in text else LEGAL_DOUBLES, text)
    assert caught.value.code == "E_SYNTAX"
    assert caught.value.message


def test_repeat_count_in_superscript_is_a_syntax_error() -> None:
    with pytest.raises(EngineError) as caught:
        parse_play(START, LEGAL_DOUBLES, "13/7(⁴)")
    assert caught.value.code == "E_SYNTAX"
    assert "repeat count" in caught.value.message


@pytest.mark.parametrize("text", ["24/18 13/9", "bar/22", "13/7(2) 24/18(2)", "8/2* 6/off"])
def test_full_width_reads_as_ascii(text: str) -> None:
    legal = LEGAL_DOUBLES if "(" in text else LEGAL
    wide = _full_width(text)
    assert wide != text
    ascii_result: object
    wide_result: object
    try:
        ascii_result = parse_play(START, legal, text)
    except EngineError as exc:
        ascii_result = exc.code
    try:
        wide_result = parse_play(START, legal, wide)
    except EngineError as exc:
        wide_result = exc.code
    assert wide_result == ascii_result


def test_full_width_play_is_the_same_play() -> None:
    assert parse_play(START, LEGAL, "１３/７ ２４/２０") == parse_play(START, LEGAL, "13/7 24/20")
    wide = "１３／７　２４／２０"  # full-width slash and ideographic space too
    assert parse_play(START, LEGAL, wide) == parse_play(START, LEGAL, "13/7 24/20")


def test_position_text_with_superscript_point_is_a_position_error() -> None:
    with pytest.raises(EngineError) as caught:
        parse_position("classic | ²:X2 | bar 0/0 | res 0/0 | off 0/0 | 43")
    assert caught.value.code == "E_POSITION"


def _is_accepted_digit(c: str) -> bool:
    return "0" <= c <= "9" or "０" <= c <= "９"


# Digits and number-like characters from every script, between notation characters.
NUMERIC = st.characters(categories=["Nd", "Nl", "No"])
NOTATION = st.sampled_from(list("0123456789/*()  barof"))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(NUMERIC, NOTATION, st.characters()), min_size=1, max_size=20))
def test_arbitrary_unicode_gives_a_play_or_an_engine_error(chars: list[str]) -> None:
    text = "".join(chars)
    try:
        play = parse_play(START, LEGAL, text)
    except EngineError as exc:
        assert exc.code.startswith("E_") and exc.message
        return
    assert play in LEGAL
    # Accepted: every digit in it was ASCII or full-width.
    for c in text:
        if unicodedata.category(c) in ("Nd", "Nl", "No"):
            assert _is_accepted_digit(c), (text, c)


@settings(max_examples=300, deadline=None)
@given(
    play=st.sampled_from(sorted(p.text for p in LEGAL)),
    digit=st.characters(categories=["Nd", "Nl", "No"]).filter(lambda c: not _is_accepted_digit(c)),
    data=st.data(),
)
def test_foreign_digit_in_a_legal_play_is_a_syntax_error(
    play: str, digit: str, data: st.DataObject
) -> None:
    positions = [i for i, c in enumerate(play) if c.isdigit()]
    at = data.draw(st.sampled_from(positions))
    text = play[:at] + digit + play[at + 1 :]
    with pytest.raises(EngineError) as caught:
        parse_play(START, LEGAL, text)
    assert caught.value.code == "E_SYNTAX", (text, caught.value.code)
