"""Fuzzing the notation parser: any text gives a play or an engine error, nothing else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import EngineError, legal_plays, parse_play, parse_position

POSITIONS = [
    "classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
    "pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52",
    "neverfinishing | 24:X13 21:X1 15:X1 9:O1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 66",
    "dutch | 20:O2 12:X2 9:X1 8:O1 3:O2 | bar 0/0 | res 12/10 | off 0/0 | unlocked X=no O=yes | 43",
    "blocking | 22:O8 14:X2+O1 11:O2+X1 9:X2 7:O1 5:X10 2:O3 | bar 0/0 | res 0/0 | off 0/0 | 53",
]
PARSED = [parse_position(line) for line in POSITIONS]
LEGAL = [legal_plays(pos, dice) for pos, dice in PARSED if dice is not None]
NOTATION_ALPHABET = st.sampled_from(list("0123456789/-*^() ,barofpsBO\t"))


@settings(max_examples=400, deadline=None)
@given(text=st.text(max_size=40), which=st.integers(0, len(POSITIONS) - 1))
def test_arbitrary_text(text: str, which: int) -> None:
    try:
        play = parse_play(PARSED[which][0], LEGAL[which], text)
    except EngineError as exc:
        assert exc.code.startswith("E_") and exc.message
    else:
        assert play in LEGAL[which]


@settings(max_examples=600, deadline=None)
@given(chars=st.lists(NOTATION_ALPHABET, max_size=30), which=st.integers(0, len(POSITIONS) - 1))
def test_notation_like_text(chars: list[str], which: int) -> None:
    text = "".join(chars)
    try:
        play = parse_play(PARSED[which][0], LEGAL[which], text)
    except EngineError as exc:
        assert exc.code in {
            "E_SYNTAX",
            "E_RANGE",
            "E_NO_ENTRY",
            "E_BLOCKED_POINT",
            "E_MARKER",
            "E_HIT_OR_TRAP_REQUIRED",
            "E_NO_CHECKER",
            "E_ILLEGAL",
        }
    else:
        assert play in LEGAL[which]


@settings(max_examples=300, deadline=None)
@given(line=st.text(max_size=120))
def test_position_text_fuzz(line: str) -> None:
    try:
        parse_position(line)
    except EngineError as exc:
        assert exc.code == "E_POSITION"
