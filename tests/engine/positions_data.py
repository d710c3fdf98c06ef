"""Hand-worked positions and the worked examples of the rules, as test data.

Transcribed from the rules documents (positions.md, every position; RULES.md §7.8, rows 1-54,
v1.0) so that tests never read the shared folder. Positions are in the mover's (X's) frame,
in the position-text format of RULES §12; plays are in canonical notation (RULES §7.6). Each
legal set is complete and listed in the order of positions.md.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    """The result of a play that ends the game, as positions.md states it."""

    play: str  # canonical play text as written in positions.md
    winner: str | None  # "X" (the mover), "O", or None for a tie/draw
    # Points scored; classic: before the cube (1/2/3), the cube is the case's `cube` field.
    points: int
    kind: str  # "single" | "gammon" | "backgammon" | "mother" | "tie" | "draw"


@dataclass(frozen=True)
class Case:
    """One position with its complete legal set and what positions.md says about it."""

    id: str  # "C1", "P1b", "E1-d2", "P5b", ...
    variant: str
    position: str  # full position text (RULES §12), dice included
    legal: tuple[str, ...]  # the complete legal set, canonical texts ("" = the empty play)
    outcomes: tuple[Outcome, ...] = ()  # plays that end the game, with their result
    continuing: tuple[str, ...] = ()  # plays explicitly stated not to end the game
    cube: int = 1  # classic cube value (C8: 2, owned by X)
    # (input text, canonical text or error code) pairs from positions.md's prose: texts written
    # there (incl. plays legal only under a withdrawn/alternative ruling, e.g. P3, E4-E7) and
    # its "via ..." / "... blocked" statements written out as inputs.
    inputs: tuple[tuple[str, str], ...] = ()
    note: str = ""  # the heading text


@dataclass(frozen=True)
class Example:
    """One row of the worked-examples table (RULES §7.8)."""

    number: int
    case_id: str  # "C4", "E1-d3", ...
    position: str  # full position text with the row's dice
    text: str  # the input, exactly
    expected: str  # canonical text if legal, else the error code
    why: str


# Blocking Express: one Case per chain decision, each in that decision's own frame (the
# controller is X). A first decision is written with the plain double (`66` = `[6x4]`).
CASES: tuple[Case, ...] = (
    Case(
        id="C1",
        variant="classic",
        position="classic | 24:O13 13:X1 2:O2 1:X14 | bar 0/0 | res 0/0 | off 0/0 | 65",
        legal=("13/7",),
        inputs=(
            ("13/7/2", "E_BLOCKED_POINT"),
            ("13/8/2", "E_BLOCKED_POINT"),
        ),
        note="higher-die rule",
    ),
    Case(
        id="C2",
        variant="classic",
        position="classic | 24:O11 13:X1 7:O2 2:O2 1:X14 | bar 0/0 | res 0/0 | off 0/0 | 65",
        legal=("13/8",),
        inputs=(
            ("13/7", "E_BLOCKED_POINT"),
            ("13/8/2", "E_BLOCKED_POINT"),
        ),
        note="only the lower die can be played",
    ),
    Case(
        id="C3",
        variant="classic",
        position="classic | 24:O13 8:X1 2:O2 1:X14 | bar 0/0 | res 0/0 | off 0/0 | 62",
        legal=("8/off",),
        inputs=(
            ("8/6/off", "8/off"),
            ("8/6 6/off", "8/off"),
            ("8/0", "8/off"),
            ("8/2/off", "E_BLOCKED_POINT"),
        ),
        note="order matters; combined move into bear-off",
    ),
    Case(
        id="C4",
        variant="classic",
        position="classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
        legal=(
            "bar/22* 6/2",
            "bar/22*/18",
        ),
        note="bar entry with hit, intermediate hit notation",
    ),
    Case(
        id="C5",
        variant="classic",
        position="classic | 24:O15 5:X1 3:X2 | bar 0/0 | res 0/0 | off 12/0 | 64",
        legal=(
            "5/1 3/off",
            "5/off 3/off",
        ),
        note="bearing off with the higher die; no obligation to bear off",
    ),
    Case(
        id="C6",
        variant="classic",
        position="classic | 24:O13 13:X2 2:X13 1:O2 | bar 0/0 | res 0/0 | off 0/0 | 66",
        legal=("13/7(2)",),
        note="doubles, only two of four playable",
    ),
    Case(
        id="C7",
        variant="classic",
        position="classic | 21:O2 19:O2 13:X14 1:O11 | bar 1/0 | res 0/0 | off 0/0 | 64",
        legal=("",),
        note="closed entry, empty play",
    ),
    Case(
        id="C8",
        variant="classic",
        position="classic | 19:O14 1:X1 | bar 0/1 | res 0/0 | off 14/0 | 21",
        legal=("1/off",),
        outcomes=(Outcome("1/off", "X", 3, "backgammon"),),
        cube=2,
        note="scoring (end of game)",
    ),
    # C8 with O's bar checker standing on X's 5-point (O's 20): still a backgammon.
    Case(
        id="C8b",
        variant="classic",
        position="classic | 19:O14 5:O1 1:X1 | bar 0/0 | res 0/0 | off 14/0 | 21",
        legal=("1/off",),
        outcomes=(Outcome("1/off", "X", 3, "backgammon"),),
        cube=2,
        note="scoring: O's bar checker on X's 5-point (O's 20) instead",
    ),
    # C8 with O `off 1`. positions.md does not say which O checker is off; the bar
    # checker is kept (one fewer on 19) so only the borne-off checker prevents the
    # backgammon. Removing the bar checker instead gives the same result (single).
    Case(
        id="C8c",
        variant="classic",
        position="classic | 19:O13 1:X1 | bar 0/1 | res 0/0 | off 14/1 | 21",
        legal=("1/off",),
        outcomes=(Outcome("1/off", "X", 1, "single"),),
        cube=2,
        note="scoring: O has borne off 1",
    ),
    Case(
        id="C9",
        variant="classic",
        position="classic | 24:O14 6:X1 2:O1 | bar 0/0 | res 0/0 | off 14/0 | 64",
        legal=("6/2*/off",),
        outcomes=(Outcome("6/2*/off", "X", 3, "backgammon"),),
        inputs=(("6/off", "E_ILLEGAL"),),
        note="a game-ending play gets no maximality exemption",
    ),
    Case(
        id="C10",
        variant="classic",
        position="classic | 24:O12 13:X2 10:O1 6:X1 4:O2 2:X12 | bar 0/0 | res 0/0 | off 0/0 | 33",
        legal=(
            "13/10* 13/10/7 6/3",
            "13/10*/7(2)",
        ),
        inputs=(
            ("13/7 13/10*/7", "13/10*/7(2)"),
            ("13/10* 10/7 13/7", "13/10*/7(2)"),
            ("13/7(2)", "E_ILLEGAL"),
        ),
        note="canonical text keeps a point where any checker hit",
    ),
    Case(
        id="P1",
        variant="pin",
        position="pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52",
        legal=(
            "15/8^",
            "17/10^",
            "17/12 15/13",
            "24/17",
            "24/19 15/13",
            "24/19 17/15",
            "24/22 15/10^",
            "24/22 17/12",
            "24/22 24/19",
        ),
        inputs=(
            ("17/15 15/10", "17/10^"),
            ("17/12/10", "17/10^"),
            ("17/15/10", "17/10^"),
            ("15/13/8", "15/8^"),
        ),
        note="opening position 5-2",
    ),
    Case(
        id="P1b",
        variant="pin",
        position="pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 61",
        legal=(
            "15/8^",
            "17/10^",
            "17/11 15/14",
            "17/16 15/9",
            "24/17",
            "24/18 15/14",
            "24/18 17/16",
            "24/23 15/9",
            "24/23 17/11",
            "24/23 24/18",
        ),
        note="opening position 6-1",
    ),
    Case(
        id="P2",
        variant="pin",
        position=(
            "pin | 22:O11 20:X1 17:X1+O1 15:O2 10:X1 7:O1 6:X12 | bar 0/0 | res 0/0 | off 0/0 | 53"
        ),
        legal=(
            "10/2",
            "10/5 6/3",
            "10/7^ 6/1",
            "6/3 6/1",
        ),
        inputs=(
            ("20/12", "E_ILLEGAL"),
            ("20/17/12", "E_BLOCKED_POINT"),
            ("20/15", "E_BLOCKED_POINT"),
            ("20/17", "E_BLOCKED_POINT"),
            ("10/5/2", "10/2"),
            ("10/7/2", "10/2"),
        ),
        note="pins and 2-stacks block touch-down",
    ),
    Case(
        id="P3",
        variant="pin",
        position="pin | 19:O14 6:X3 5:X3 4:X3 3:X1+O1 2:X5 | bar 0/0 | res 0/0 | off 0/0 | 64",
        legal=(
            "5/1",
            "6/2",
        ),
        inputs=(
            ("6/2 6/off", "E_ILLEGAL"),
            ("6/off 4/off", "E_ILLEGAL"),
            ("6/off 5/1", "E_ILLEGAL"),
        ),
        note="own pinned checker in home forbids bearing off",
    ),
    Case(
        id="P4",
        variant="pin",
        position="pin | 24:O14 5:O1+X1 3:X2 | bar 0/0 | res 0/0 | off 12/0 | 64",
        legal=(
            "5/1 3/off",
            "5/off 3/off",
        ),
        note="bearing off with a pinning checker",
    ),
    Case(
        id="P5",
        variant="pin",
        position="pin | 20:O12 13:O2 3:O1 2:X1 | bar 0/0 | res 0/0 | off 14/0 | 41",
        legal=("2/off",),
        outcomes=(Outcome("2/off", "X", 318, "backgammon"),),
        note="pip-count scoring",
    ),
    # P5 with O's single checker on X's 9 (O's 16) instead of X's 3; dice as P5.
    Case(
        id="P5b",
        variant="pin",
        position="pin | 20:O12 13:O2 9:O1 2:X1 | bar 0/0 | res 0/0 | off 14/0 | 41",
        legal=("2/off",),
        outcomes=(Outcome("2/off", "X", 200, "gammon"),),
        note="pip-count scoring: O's single checker on X's 9 (O's 16), pips 100, gammon",
    ),
    # P5 with O's checkers replaced by `19:O4 24:O8` and `off 3`; dice as P5.
    Case(
        id="P5c",
        variant="pin",
        position="pin | 24:O8 19:O4 2:X1 | bar 0/0 | res 0/0 | off 14/3 | 41",
        legal=("2/off",),
        outcomes=(Outcome("2/off", "X", 32, "single"),),
        note="pip-count scoring: O 24:O8 19:O4, off 3, pips 32, single",
    ),
    Case(
        id="P6",
        variant="pin",
        position="pin | 24:X13 15:X1 9:O1+X1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 63",
        legal=(
            "15/12 9/3",
            "15/6",
            "24/15",
            "24/18 15/12",
            "24/18 9/6",
            "24/21 15/9",
            "24/21 24/18",
            "24/21 9/3",
        ),
        note="pinner leaves, another checker re-pins",
    ),
    Case(
        id="M1",
        variant="pin-mother",
        position=(
            "pin-mother | 20:O5 19:O5 13:O4 8:X3 6:X5 5:X2 3:X5 1:O1 | bar 0/0 | res 0/0 | "
            "off 0/0 | 42"
        ),
        legal=(
            "5/1^ 3/1",
            "5/3 5/1^",
            "6/2 3/1^",
            "6/2 5/3",
            "6/4 5/1^",
            "6/4 6/2",
            "8/2",
            "8/4 3/1^",
            "8/4 5/3",
            "8/4 6/4",
            "8/6 5/1^",
            "8/6 8/4",
        ),
        outcomes=(
            Outcome("5/1^ 3/1", "X", 2, "mother"),
            Outcome("5/3 5/1^", "X", 2, "mother"),
            Outcome("6/2 3/1^", "X", 2, "mother"),
            Outcome("6/4 5/1^", "X", 2, "mother"),
            Outcome("8/4 3/1^", "X", 2, "mother"),
            Outcome("8/6 5/1^", "X", 2, "mother"),
        ),
        continuing=(
            "6/2 5/3",
            "6/4 6/2",
            "8/2",
            "8/4 5/3",
            "8/4 6/4",
            "8/6 8/4",
        ),
        note="pinning the opponent's mother wins 2",
    ),
    Case(
        id="M2",
        variant="pin-mother",
        position=(
            "pin-mother | 24:X1 20:O5 19:O5 13:O4 8:X2 6:X5 5:X2 3:X5 1:O1 | bar 0/0 | res 0/0 | "
            "off 0/0 | 42"
        ),
        legal=(
            "24/18",
            "24/22 5/1^",
            "24/22 6/2",
            "24/22 8/4",
            "5/1^ 3/1",
            "5/3 5/1^",
            "6/2 3/1^",
            "6/2 5/3",
            "6/4 5/1^",
            "6/4 6/2",
            "8/2",
            "8/4 3/1^",
            "8/4 5/3",
            "8/4 6/4",
            "8/6 5/1^",
            "8/6 8/4",
        ),
        outcomes=(Outcome("24/22 5/1^", "X", 2, "mother"),),
        continuing=(
            "24/18",
            "24/22 6/2",
            "24/22 8/4",
            "5/1^ 3/1",
            "5/3 5/1^",
            "6/2 3/1^",
            "6/2 5/3",
            "6/4 5/1^",
            "6/4 6/2",
            "8/2",
            "8/4 3/1^",
            "8/4 5/3",
            "8/4 6/4",
            "8/6 5/1^",
            "8/6 8/4",
        ),
        inputs=(("24/20", "E_BLOCKED_POINT"),),
        note="exception: pinner still has a checker on his start",
    ),
    Case(
        id="M3",
        variant="pin-mother",
        position=(
            "pin-mother | 24:X1+O1 20:O5 19:O4 13:O4 8:X2 6:X5 5:X2 3:X5 1:O1 | bar 0/0 | "
            "res 0/0 | off 0/0 | 42"
        ),
        legal=(
            "5/1^ 3/1",
            "5/3 5/1^",
            "6/2 3/1^",
            "6/2 5/3",
            "6/4 5/1^",
            "6/4 6/2",
            "8/2",
            "8/4 3/1^",
            "8/4 5/3",
            "8/4 6/4",
            "8/6 5/1^",
            "8/6 8/4",
        ),
        outcomes=(
            Outcome("5/1^ 3/1", None, 0, "tie"),
            Outcome("5/3 5/1^", None, 0, "tie"),
            Outcome("6/2 3/1^", None, 0, "tie"),
            Outcome("6/4 5/1^", None, 0, "tie"),
            Outcome("8/4 3/1^", None, 0, "tie"),
            Outcome("8/6 5/1^", None, 0, "tie"),
        ),
        continuing=(
            "6/2 5/3",
            "6/4 6/2",
            "8/2",
            "8/4 5/3",
            "8/4 6/4",
            "8/6 8/4",
        ),
        note="both mothers pinned → tie",
    ),
    Case(
        id="M4",
        variant="pin-mother",
        position="pin-mother | 24:X2 22:O5 21:O5 12:O4 1:O1+X13 | bar 0/0 | res 0/0 | off 0/0 | 65",
        legal=(
            "24/13",
            "24/19 24/18",
        ),
        outcomes=(Outcome("24/19 24/18", "X", 2, "mother"),),
        continuing=("24/13",),
        note="delayed mother win when the pinner vacates his start",
    ),
    Case(
        id="B1",
        variant="blocking",
        position="blocking | 22:O1 20:O2 13:X5 10:X4 8:X4 3:O12 | bar 0/0 | res 2/0 | off 0/0 | 63",
        legal=("bar/19",),
        inputs=(("bar/22", "E_BLOCKED_POINT"),),
        note="entering phase, entry point owned by a single O checker",
    ),
    Case(
        id="B1b",
        variant="blocking",
        position="blocking | 20:O2 19:O1 13:X5 10:X4 8:X4 3:O12 | bar 0/0 | res 2/0 | off 0/0 | 63",
        legal=("bar/22",),
        note="only the lower die enters",
    ),
    Case(
        id="B2",
        variant="blocking",
        position=(
            "blocking | 23:X3 20:X2 19:O1 18:O2+X1 15:X1 12:X4 10:O1 9:X3 6:O2 3:O9 | bar 0/0 | "
            "res 1/0 | off 0/0 | 63"
        ),
        legal=(
            "bar/16",
            "bar/22 12/6",
            "bar/22 15/9",
            "bar/22 18/12",
            "bar/22 20/14",
            "bar/22 23/17",
            "bar/22 9/3",
        ),
        inputs=(("bar/19", "E_BLOCKED_POINT"),),
        note="last checker enters, the other die is free; LIFO top checker",
    ),
    Case(
        id="B3",
        variant="blocking",
        position=(
            "blocking | 22:O8 14:X2+O1 11:O2+X1 9:X2 7:O1 5:X10 2:O3 | bar 0/0 | res 0/0 | "
            "off 0/0 | 53"
        ),
        legal=(
            "11/3",
            "11/6 5/2",
            "11/6 9/6",
            "11/8 9/4",
            "9/1",
            "9/4 5/2",
            "9/6 9/4",
        ),
        note="trapped checkers, ownership by a single O on top",
    ),
    Case(
        id="B3b",
        variant="blocking",
        position=(
            "blocking | 22:O8 14:X2+O1 11:O2+X1 9:X2 7:O1 5:X10 2:O3 | bar 0/0 | res 0/0 | "
            "off 0/0 | 42"
        ),
        legal=(
            "11/5",
            "11/9 5/1",
            "5/3 5/1",
            "9/3",
        ),
        inputs=(
            ("11/7", "E_BLOCKED_POINT"),
            ("9/7", "E_BLOCKED_POINT"),
        ),
        note="same position, 4-2: single O owns the landing point",
    ),
    Case(
        id="B4",
        variant="blocking",
        position="blocking | 20:O11 12:X1 9:O1 7:O1 6:X14 4:O2 | bar 0/0 | res 0/0 | off 0/0 | 53",
        legal=("6/3 6/1",),
        note="touch-down on owned points; 2-stack is open",
    ),
    Case(
        id="B5",
        variant="blocking",
        position="blocking | 20:O14 5:X2+O1 2:X13 | bar 0/0 | res 0/0 | off 0/0 | 61",
        legal=("2/1",),
        inputs=(("2/off", "E_ILLEGAL"),),
        note="bearing off with own checkers covered on the highest point",
    ),
    Case(
        id="B5b",
        variant="blocking",
        position="blocking | 20:O14 5:X2+O1 2:X13 | bar 0/0 | res 0/0 | off 0/0 | 22",
        legal=("2/off(4)",),
        note="same, 2-2",
    ),
    Case(
        id="B5c",
        variant="blocking",
        position="blocking | 20:O14 5:X2+O1 2:X13 | bar 0/0 | res 0/0 | off 0/0 | 54",
        legal=("",),
        note="same, 5-4: nothing playable",
    ),
    Case(
        id="B6",
        variant="blocking",
        position="blocking | 22:O12 17:X1 14:X2+O1 12:O2 4:X12 | bar 0/0 | res 0/0 | off 0/0 | 53",
        legal=(
            "17/12 4/1",
            "17/9",
        ),
        inputs=(
            ("17/14", "E_BLOCKED_POINT"),
            ("17/12/9", "17/9"),
        ),
        note="cannot land on own 2-stack owned by a single O; passing over a 2-stack",
    ),
    Case(
        id="E1-d1",
        variant="blocking-express",
        position="blocking-express | 16:X14+O1 9:X1 3:O14 | bar 0/0 | res 0/0 | off 0/0 | 66",
        legal=("9/3",),
        note="control passes back and forth (6-6); d1",
    ),
    Case(
        id="E1-d2",
        variant="blocking-express",
        position="blocking-express | 22:X14+O1 9:O14+X1 | bar 0/0 | res 0/0 | off 0/0 | [6x3]",
        legal=("9/3",),
        note="control passes back and forth (6-6); d2",
    ),
    Case(
        id="E1-d3",
        variant="blocking-express",
        position="blocking-express | 22:O1 16:X14 3:O14+X1 | bar 0/0 | res 0/0 | off 0/0 | [6x2]",
        legal=(
            "16/10(2)",
            "16/4",
        ),
        inputs=(("16/10", "E_ILLEGAL"),),
        note="control passes back and forth (6-6); d3",
    ),
    Case(
        id="E2-d1",
        variant="blocking-express",
        position="blocking-express | 20:O15 6:X1 5:X1 | bar 0/0 | res 0/0 | off 13/0 | 44",
        legal=("6/off 5/off",),
        outcomes=(Outcome("6/off 5/off", "X", 1, "single"),),
        note="game ends in the middle of a chain (4-4); d1",
    ),
    Case(
        id="E3-d1",
        variant="blocking-express",
        position="blocking-express | 20:X13+O1 12:X2 3:O14 | bar 0/0 | res 0/0 | off 0/0 | 55",
        legal=("12/2(2)",),
        note="roller stuck on the next double; opponent finishes the chain (5-5); d1",
    ),
    Case(
        id="E3-d2",
        variant="blocking-express",
        position="blocking-express | 20:X13+O1 3:O14 2:X2 | bar 0/0 | res 0/0 | off 0/0 | [6x4]",
        legal=("",),
        note="roller stuck on the next double; opponent finishes the chain (5-5); d2",
    ),
    Case(
        id="E3-d3",
        variant="blocking-express",
        position="blocking-express | 23:O2 22:X14 5:O13+X1 | bar 0/0 | res 0/0 | off 0/0 | [6x4]",
        legal=(
            "22/10(2)",
            "22/16 22/4",
            "22/16(2) 22/10",
            "22/16(4)",
        ),
        note="roller stuck on the next double; opponent finishes the chain (5-5); d3",
    ),
    Case(
        id="E4-d1",
        variant="blocking-express",
        position=(
            "blocking-express | 12:X1 8:X1 7:O14 6:O1 1:X13 | bar 0/0 | res 0/0 | off 0/0 | 11"
        ),
        legal=("12/9 8/7",),
        inputs=(("12/8", "E_ILLEGAL"),),
        note="the controller cannot give the chain away (1-1); d1",
    ),
    Case(
        id="E5-d1",
        variant="blocking-express",
        position=(
            "blocking-express | 24:X1 23:X1 22:X13+O2 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 55"
        ),
        legal=(
            "24/14 23/13",
            "24/19 23/8",
        ),
        inputs=(
            ("24/4", "E_ILLEGAL"),
            ("24/9 23/18", "E_ILLEGAL"),
            ("23/3", "E_ILLEGAL"),
        ),
        note="choosing the 5s so that all four 6s can follow (5-5); d1",
    ),
    Case(
        id="E5-d2",
        variant="blocking-express",
        position=(
            "blocking-express | 22:X13+O2 14:X1 13:X1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | [6x4]"
        ),
        legal=("14/2 13/1",),
        note="choosing the 5s so that all four 6s can follow (5-5); d2",
    ),
    Case(
        id="E6-d1",
        variant="blocking-express",
        position="blocking-express | 24:O11 15:O1 5:O2+X13 2:O1 | bar 0/0 | res 2/0 | off 0/0 | 55",
        legal=("bar/20(2)",),
        note="control passes; the opponent's run is judged too (5-5); d1",
    ),
    Case(
        id="E6-d2",
        variant="blocking-express",
        position=(
            "blocking-express | 23:X1 20:X2+O13 10:X1 5:O2 1:X11 | bar 0/0 | res 0/0 | off 0/0 | "
            "[5x2]"
        ),
        legal=("23/13",),
        inputs=(("23/18 10/5", "E_ILLEGAL"),),
        note="control passes; the opponent's run is judged too (5-5); d2",
    ),
    Case(
        id="E6-d3",
        variant="blocking-express",
        position=(
            "blocking-express | 20:X2+O13 13:X1 10:X1 5:O2 1:X11 | bar 0/0 | res 0/0 | off 0/0 | "
            "[6x4]"
        ),
        legal=("13/1 10/4",),
        note="control passes; the opponent's run is judged too (5-5); d3",
    ),
    Case(
        id="E6-d4",
        variant="blocking-express",
        position=(
            "blocking-express | 24:O12 21:O1 20:X2 5:O2+X13 | bar 0/0 | res 0/0 | off 0/0 | [6x1]"
        ),
        legal=("20/14",),
        note="control passes; the opponent's run is judged too (5-5); d4",
    ),
    Case(
        id="E7-d1",
        variant="blocking-express",
        position="blocking-express | 24:O14 8:X1 6:X1 1:O1 | bar 0/0 | res 0/0 | off 13/0 | 22",
        legal=("8/off",),
        inputs=(("8/2 6/4", "E_ILLEGAL"),),
        note="a run that bears off the 15th checker is maximal (2-2); d1",
    ),
    Case(
        id="E7-d2",
        variant="blocking-express",
        position="blocking-express | 24:O14 6:X1 1:O1 | bar 0/0 | res 0/0 | off 14/0 | [3x4]",
        legal=("6/off",),
        outcomes=(Outcome("6/off", "X", 1, "single"),),
        note="a run that bears off the 15th checker is maximal (2-2); d2",
    ),
    Case(
        id="D1",
        variant="dutch",
        position=(
            "dutch | 22:O1 20:X2 15:X1 12:O1 10:X2 7:O1 3:O2 | bar 0/0 | res 10/10 | off 0/0 | "
            "unlocked X=no O=yes | 32"
        ),
        legal=(
            "10/5",
            "15/10",
            "20/15",
            "20/17 10/8",
            "20/17 15/13",
            "20/18 20/17",
            "bar/20",
            "bar/23 20/17",
        ),
        inputs=(
            ("bar/23/20", "bar/20"),
            ("15/13/10", "15/10"),
        ),
        note="locked player cannot hit; blots block landing and touch-down",
    ),
    Case(
        id="D2",
        variant="dutch",
        position=(
            "dutch | 20:O2 12:X2 9:X1 8:O1 3:O2 | bar 0/0 | res 12/10 | off 0/0 | "
            "unlocked X=no O=yes | 43"
        ),
        legal=(
            "12/5",
            "12/8* 9/6",
            "9/2",
            "bar/18",
            "bar/21 12/9",
            "bar/21 9/6",
            "bar/22 9/5",
            "bar/22 bar/21",
        ),
        inputs=(("12/8* 12/9", "E_ILLEGAL"),),
        note="unlocking in the middle of a play",
    ),
    Case(
        id="D3",
        variant="dutch",
        position=(
            "dutch | 24:O1 21:O2 18:O2 13:X3 8:X2 6:X3 1:O2 | bar 1/0 | res 6/8 | off 0/0 | "
            "unlocked X=yes O=yes | 41"
        ),
        legal=(
            "bar/24* 13/9",
            "bar/24* 6/2",
            "bar/24* 8/4",
            "bar/24*/20",
        ),
        inputs=(("bar/21", "E_BLOCKED_POINT"),),
        note="bar checker first, then free choice",
    ),
    Case(
        id="D3b",
        variant="dutch",
        position=(
            "dutch | 24:O1 21:O2 18:O2 13:X3 8:X2 6:X3 1:O2 | bar 1/0 | res 6/8 | off 0/0 | "
            "unlocked X=yes O=yes | 31"
        ),
        legal=(
            "bar/22 13/12",
            "bar/22 6/5",
            "bar/22 8/7",
            "bar/24* 13/10",
            "bar/24* 6/3",
            "bar/24* 8/5",
            "bar/24* bar/22",
        ),
        inputs=(("bar/22/21", "E_BLOCKED_POINT"),),
        note="same, 3-1: optional reserve entry",
    ),
    Case(
        id="D4",
        variant="dutch",
        position=(
            "dutch | 20:O15 6:X4 4:X5 2:X5 | bar 0/0 | res 1/0 | off 0/0 | unlocked X=yes O=yes | "
            "65"
        ),
        legal=(
            "bar/14",
            "bar/19 6/1",
        ),
        inputs=(("bar/20", "E_BLOCKED_POINT"),),
        note="reserve checker prevents bearing off",
    ),
    Case(
        id="D5",
        variant="dutch",
        position=(
            "dutch | 20:O5 15:O8 1:X1 | bar 0/0 | res 0/2 | off 14/0 | unlocked X=yes O=yes | 21"
        ),
        legal=("1/off",),
        outcomes=(Outcome("1/off", "X", 2, "gammon"),),
        note="gammon scoring",
    ),
    # D5 with O `off 1` (one O checker fewer on 15); dice as D5.
    Case(
        id="D5b",
        variant="dutch",
        position=(
            "dutch | 20:O5 15:O7 1:X1 | bar 0/0 | res 0/2 | off 14/1 | unlocked X=yes O=yes | 21"
        ),
        legal=("1/off",),
        outcomes=(Outcome("1/off", "X", 1, "single"),),
        note="scoring: O has borne off 1 (one fewer on 15)",
    ),
    Case(
        id="D6",
        variant="dutch",
        position=(
            "dutch | 20:O2 9:X1 5:O1 3:O2 | bar 0/0 | res 14/10 | off 0/0 | unlocked X=no O=yes | "
            "41"
        ),
        legal=(
            "9/4",
            "bar/21 9/8",
            "bar/24 bar/21",
        ),
        inputs=(
            ("9/5*/4", "E_ILLEGAL"),
            ("bar/24 9/5*", "E_ILLEGAL"),
        ),
        note="the step that first brings a checker home cannot hit",
    ),
    Case(
        id="D7",
        variant="dutch",
        position=(
            "dutch | 20:O2 12:X1 8:O1 | bar 1/0 | res 13/12 | off 0/0 | unlocked X=yes O=yes | 43"
        ),
        legal=(
            "bar/18",
            "bar/21 12/9",
            "bar/22 12/8*",
            "bar/22 bar/21",
        ),
        note="the unlock is permanent",
    ),
    Case(
        id="N1",
        variant="neverfinishing",
        position="neverfinishing | 24:X14 10:X1 6:O1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 41",
        legal=(
            "10/5",
            "10/6*/5",
            "24/19",
            "24/20 10/9",
            "24/23 10/6*",
            "24/23 10/6^",
            "24/23 24/20",
        ),
        inputs=(("10/9/5", "10/5"),),
        note="hit or trap at the destination; intermediate blot",
    ),
    Case(
        id="N2",
        variant="neverfinishing",
        position=(
            "neverfinishing | 24:X14 13:X1 10:O1 7:O2 1:O12 | bar 0/0 | res 0/0 | off 0/0 | 63"
        ),
        legal=(
            "13/10*/4",
            "13/4",
            "24/15",
            "24/18 13/10*",
            "24/18 13/10^",
            "24/21 24/18",
        ),
        inputs=(
            ("13/10/4", "13/4"),
            ("13/7/4", "E_BLOCKED_POINT"),
        ),
        note="intermediate blot is the only path",
    ),
    Case(
        id="N2c",
        variant="classic",
        position="classic | 24:X14 13:X1 10:O1 7:O2 1:O12 | bar 0/0 | res 0/0 | off 0/0 | 63",
        legal=(
            "13/10*/4",
            "24/15",
            "24/18 13/10*",
            "24/21 24/18",
        ),
        inputs=(("13/10/4", "13/10*/4"),),
        note="the same position in `classic` (contrast)",
    ),
    Case(
        id="N3",
        variant="neverfinishing",
        position=(
            "neverfinishing | 19:O14 6:X4 5:X4 3:X1+O1 2:X6 | bar 0/0 | res 0/0 | off 0/0 | 63"
        ),
        legal=("5/2",),
        inputs=(("6/3", "E_BLOCKED_POINT"),),
        note="own trapped checker forbids bearing off; O's trap point is blocked",
    ),
    Case(
        id="N4",
        variant="neverfinishing",
        position="neverfinishing | 22:O1 20:O2 13:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 53",
        legal=(
            "bar/17",
            "bar/22* 13/8",
            "bar/22*/17",
            "bar/22^ 13/8",
        ),
        inputs=(("bar/22/17", "bar/17"),),
        note="entering onto a blot: hit or trap",
    ),
    Case(
        id="N5",
        variant="neverfinishing",
        position="neverfinishing | 20:O2 13:X13 1:O13 | bar 2/0 | res 0/0 | off 0/0 | 52",
        legal=("bar/23",),
        inputs=(("bar/20", "E_BLOCKED_POINT"),),
        note="enter as many as possible, forfeit the rest",
    ),
    Case(
        id="N7",
        variant="neverfinishing",
        position="neverfinishing | 24:X13 15:X1 9:O1+X1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 63",
        legal=(
            "15/12 9/3",
            "15/6",
            "15/9*/6",
            "24/15",
            "24/18 15/12",
            "24/18 9/6",
            "24/21 15/9",
            "24/21 24/18",
            "24/21 9/3",
        ),
        inputs=(
            ("9/6 15/9*", "15/9*/6"),
            ("15/9* 9/6", "15/9*/6"),
            ("15/9 9/6", "15/6"),
            ("15/9^ 9/6", "15/6"),
        ),
        note="trapper leaves, the released checker is hit in the same play",
    ),
    Case(
        id="N6",
        variant="neverfinishing",
        position="neverfinishing | 2:X1 1:O14 | bar 0/1 | res 0/0 | off 14/0 | 31",
        legal=("2/off",),
        outcomes=(Outcome("2/off", "X", 2, "gammon"),),
        note="scoring",
    ),
    Case(
        id="N8",
        variant="neverfinishing",
        position=(
            "neverfinishing | 24:X13 21:X1 15:X1 9:O1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 66"
        ),
        legal=(
            "21/3 15/9^",
            "21/9*/3 15/9",
            "24/12 15/3",
            "24/12 15/9*/3",
            "24/12 21/9*",
            "24/12 21/9^",
            "24/12(2)",
            "24/18 21/3",
            "24/18 21/9* 15/9",
            "24/18 21/9*/3",
            "24/18 21/9^ 15/9",
            "24/18 24/12 15/9*",
            "24/18 24/12 15/9^",
            "24/18 24/12 21/15",
            "24/18 24/6",
            "24/18(2) 15/3",
            "24/18(2) 15/9*/3",
            "24/18(2) 21/9*",
            "24/18(2) 21/9^",
            "24/18(2) 24/12",
            "24/18(3) 15/9*",
            "24/18(3) 15/9^",
            "24/18(3) 21/15",
            "24/18(4)",
            "24/6 15/9*",
            "24/6 15/9^",
            "24/6 21/15",
        ),
        inputs=(("21/3 15/9*", "21/9*/3 15/9"),),
        note="a hit point stays in the text of every path through it",
    ),
    Case(
        id="N8b",
        variant="neverfinishing",
        position="neverfinishing | 21:X1 15:X1 9:O1 2:X13 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 66",
        legal=(
            "21/3 15/9^",
            "21/9*/3 15/9",
        ),
        inputs=(
            ("21/3 15/9*", "21/9*/3 15/9"),
            ("15/9* 21/15 15/9/3", "21/9*/3 15/9"),
            ("21/3 15/9", "E_HIT_OR_TRAP_REQUIRED"),
        ),
        note="the same, minimal",
    ),
    Case(
        id="N9",
        variant="neverfinishing",
        position="neverfinishing | 24:O13 13:X1 2:O2 1:X14 | bar 0/0 | res 0/0 | off 0/0 | 65",
        legal=("13/7",),
        inputs=(("13/8", "E_ILLEGAL"),),
        note="higher-die rule in NeverFinishing",
    ),
)

# Each row's position is its case's position text; every row's dice equal the case's dice.
EXAMPLES: tuple[Example, ...] = (
    Example(
        number=1,
        case_id="C4",
        position="classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
        text="bar/22*/18",
        expected="bar/22*/18",
        why="enter on the blot (hit), continue with 4",
    ),
    Example(
        number=2,
        case_id="C4",
        position="classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
        text="bar/22/18",
        expected="bar/22*/18",
        why="`*` optional where the hit is forced",
    ),
    Example(
        number=3,
        case_id="C4",
        position="classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
        text="bar/18",
        expected="E_ILLEGAL",
        why=(
            "direct jump does not touch 22, blot not hit; the only path is via 22 (21 blocked), "
            "which hits — must be written `bar/22*/18`"
        ),
    ),
    Example(
        number=4,
        case_id="C4",
        position="classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
        text="22/18 bar/22*",
        expected="bar/22*/18",
        why="order-insensitive",
    ),
    Example(
        number=5,
        case_id="C4",
        position="classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
        text="6/2 bar/22",
        expected="bar/22* 6/2",
        why="order-insensitive; marker optional",
    ),
    Example(
        number=6,
        case_id="C4",
        position="classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
        text="6/2 6/3",
        expected="E_ILLEGAL",
        why="must enter from the bar first",
    ),
    Example(
        number=7,
        case_id="C4",
        position="classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
        text="bar/21 6/3",
        expected="E_BLOCKED_POINT",
        why="21 holds two O checkers",
    ),
    Example(
        number=8,
        case_id="C4",
        position="classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
        text="25/22*, 6/2",
        expected="bar/22* 6/2",
        why="numeric alias and comma",
    ),
    Example(
        number=9,
        case_id="C1",
        position="classic | 24:O13 13:X1 2:O2 1:X14 | bar 0/0 | res 0/0 | off 0/0 | 65",
        text="13/8",
        expected="E_ILLEGAL",
        why="either die alone is playable but not both → higher die (6)",
    ),
    Example(
        number=10,
        case_id="C1",
        position="classic | 24:O13 13:X1 2:O2 1:X14 | bar 0/0 | res 0/0 | off 0/0 | 65",
        text="13/7*",
        expected="E_MARKER",
        why="no blot on 7",
    ),
    Example(
        number=11,
        case_id="C5",
        position="classic | 24:O15 5:X1 3:X2 | bar 0/0 | res 0/0 | off 12/0 | 64",
        text="3/off 3/off",
        expected="E_ILLEGAL",
        why="6 cannot bear off from 3 while a checker is on 5",
    ),
    Example(
        number=12,
        case_id="C5",
        position="classic | 24:O15 5:X1 3:X2 | bar 0/0 | res 0/0 | off 12/0 | 64",
        text="5/1 3/off",
        expected="5/1 3/off",
        why="not obliged to bear off with the 4",
    ),
    Example(
        number=13,
        case_id="C5",
        position="classic | 24:O15 5:X1 3:X2 | bar 0/0 | res 0/0 | off 12/0 | 64",
        text="5/1",
        expected="E_ILLEGAL",
        why="both dice can be used",
    ),
    Example(
        number=14,
        case_id="C6",
        position="classic | 24:O13 13:X2 2:X13 1:O2 | bar 0/0 | res 0/0 | off 0/0 | 66",
        text="13/7 13/7",
        expected="13/7(2)",
        why="repetition equivalence; only two 6s playable",
    ),
    Example(
        number=15,
        case_id="C6",
        position="classic | 24:O13 13:X2 2:X13 1:O2 | bar 0/0 | res 0/0 | off 0/0 | 66",
        text="13/7(1)",
        expected="E_SYNTAX",
        why="count 1 not allowed",
    ),
    Example(
        number=16,
        case_id="C6",
        position="classic | 24:O13 13:X2 2:X13 1:O2 | bar 0/0 | res 0/0 | off 0/0 | 66",
        text="13-7(2)",
        expected="13/7(2)",
        why="`-` is a lenient alias of `/`",
    ),
    Example(
        number=17,
        case_id="C3",
        position="classic | 24:O13 8:X1 2:O2 1:X14 | bar 0/0 | res 0/0 | off 0/0 | 62",
        text="8/2/off",
        expected="E_BLOCKED_POINT",
        why="written touch-down on O's point 2",
    ),
    Example(
        number=18,
        case_id="C3",
        position="classic | 24:O13 8:X1 2:O2 1:X14 | bar 0/0 | res 0/0 | off 0/0 | 62",
        text="8/6/off",
        expected="8/off",
        why="via 6 (2 first), then exact bear-off from 6",
    ),
    Example(
        number=19,
        case_id="C3",
        position="classic | 24:O13 8:X1 2:O2 1:X14 | bar 0/0 | res 0/0 | off 0/0 | 62",
        text="8/0",
        expected="8/off",
        why="`0` alias of off",
    ),
    Example(
        number=20,
        case_id="P1",
        position="pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52",
        text="24/22 15/10",
        expected="24/22 15/10^",
        why="pin marker optional",
    ),
    Example(
        number=21,
        case_id="P1",
        position="pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52",
        text="24/22 15/10*",
        expected="E_MARKER",
        why="no hitting in the Pin Game",
    ),
    Example(
        number=22,
        case_id="P1",
        position="pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52",
        text="15/10^",
        expected="E_ILLEGAL",
        why="only one die used; both can be played",
    ),
    Example(
        number=23,
        case_id="P1",
        position="pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52",
        text="15/10/8",
        expected="15/8^",
        why="temporary pin at 10 released; 8 pinned",
    ),
    Example(
        number=24,
        case_id="P1",
        position="pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52",
        text="off/3",
        expected="E_SYNTAX",
        why="`off` only as destination",
    ),
    Example(
        number=25,
        case_id="P2",
        position=(
            "pin | 22:O11 20:X1 17:X1+O1 15:O2 10:X1 7:O1 6:X12 | bar 0/0 | res 0/0 | off 0/0 | 53"
        ),
        text="20/17/12",
        expected="E_BLOCKED_POINT",
        why="17 is O's pin on an X checker (`[X,O]`)",
    ),
    Example(
        number=26,
        case_id="P2",
        position=(
            "pin | 22:O11 20:X1 17:X1+O1 15:O2 10:X1 7:O1 6:X12 | bar 0/0 | res 0/0 | off 0/0 | 53"
        ),
        text="20/12",
        expected="E_ILLEGAL",
        why="both intermediates (15: O×2, 17: O-pin) blocked",
    ),
    Example(
        number=27,
        case_id="B4",
        position="blocking | 20:O11 12:X1 9:O1 7:O1 6:X14 4:O2 | bar 0/0 | res 0/0 | off 0/0 | 53",
        text="12/4",
        expected="E_ILLEGAL",
        why="4 (O×2) is open, but both touch-downs 9 and 7 are owned by single O checkers",
    ),
    Example(
        number=28,
        case_id="B4",
        position="blocking | 20:O11 12:X1 9:O1 7:O1 6:X14 4:O2 | bar 0/0 | res 0/0 | off 0/0 | 53",
        text="12/9/4",
        expected="E_BLOCKED_POINT",
        why="9 owned by O",
    ),
    Example(
        number=29,
        case_id="B4",
        position="blocking | 20:O11 12:X1 9:O1 7:O1 6:X14 4:O2 | bar 0/0 | res 0/0 | off 0/0 | 53",
        text="6/1 6/3",
        expected="6/3 6/1",
        why="order-insensitive",
    ),
    Example(
        number=30,
        case_id="B4",
        position="blocking | 20:O11 12:X1 9:O1 7:O1 6:X14 4:O2 | bar 0/0 | res 0/0 | off 0/0 | 53",
        text="6/3^ 6/1",
        expected="E_MARKER",
        why="no markers in Blocking",
    ),
    Example(
        number=31,
        case_id="B2",
        position=(
            "blocking | 23:X3 20:X2 19:O1 18:O2+X1 15:X1 12:X4 10:O1 9:X3 6:O2 3:O9 | bar 0/0 | "
            "res 1/0 | off 0/0 | 63"
        ),
        text="bar/22/16",
        expected="bar/16",
        why="last reserve checker enters, then moves on",
    ),
    Example(
        number=32,
        case_id="B2",
        position=(
            "blocking | 23:X3 20:X2 19:O1 18:O2+X1 15:X1 12:X4 10:O1 9:X3 6:O2 3:O9 | bar 0/0 | "
            "res 1/0 | off 0/0 | 63"
        ),
        text="23/17",
        expected="E_ILLEGAL",
        why="reserve not empty: must enter first",
    ),
    Example(
        number=33,
        case_id="B3",
        position=(
            "blocking | 22:O8 14:X2+O1 11:O2+X1 9:X2 7:O1 5:X10 2:O3 | bar 0/0 | res 0/0 | "
            "off 0/0 | 53"
        ),
        text="14/9 11/8",
        expected="E_NO_CHECKER",
        why="top of 14 is O: X's two checkers there are trapped (LIFO)",
    ),
    Example(
        number=34,
        case_id="D2",
        position=(
            "dutch | 20:O2 12:X2 9:X1 8:O1 3:O2 | bar 0/0 | res 12/10 | off 0/0 | "
            "unlocked X=no O=yes | 43"
        ),
        text="9/6 12/8",
        expected="12/8* 9/6",
        why="9/6 unlocks hitting, then 12/8 hits",
    ),
    Example(
        number=35,
        case_id="D2",
        position=(
            "dutch | 20:O2 12:X2 9:X1 8:O1 3:O2 | bar 0/0 | res 12/10 | off 0/0 | "
            "unlocked X=no O=yes | 43"
        ),
        text="12/8* 12/9",
        expected="E_ILLEGAL",
        why="X still locked when hitting (no checker home)",
    ),
    Example(
        number=36,
        case_id="D3b",
        position=(
            "dutch | 24:O1 21:O2 18:O2 13:X3 8:X2 6:X3 1:O2 | bar 1/0 | res 6/8 | off 0/0 | "
            "unlocked X=yes O=yes | 31"
        ),
        text="bar/22 bar/24",
        expected="bar/24* bar/22",
        why="bar checker first, second entry from reserve; hit forced",
    ),
    Example(
        number=37,
        case_id="N1",
        position="neverfinishing | 24:X14 10:X1 6:O1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 41",
        text="24/23 10/6",
        expected="E_HIT_OR_TRAP_REQUIRED",
        why="landing on a blot needs `*` or `^`",
    ),
    Example(
        number=38,
        case_id="N1",
        position="neverfinishing | 24:X14 10:X1 6:O1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 41",
        text="24/23 10/6^",
        expected="24/23 10/6^",
        why="trap",
    ),
    Example(
        number=39,
        case_id="N1",
        position="neverfinishing | 24:X14 10:X1 6:O1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 41",
        text="10/6/5",
        expected="10/5",
        why="unmarked intermediate = trap-and-release",
    ),
    Example(
        number=40,
        case_id="N1",
        position="neverfinishing | 24:X14 10:X1 6:O1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 41",
        text="10/6*/5",
        expected="10/6*/5",
        why="hit at the intermediate point",
    ),
    Example(
        number=41,
        case_id="N2",
        position=(
            "neverfinishing | 24:X14 13:X1 10:O1 7:O2 1:O12 | bar 0/0 | res 0/0 | off 0/0 | 63"
        ),
        text="13/4",
        expected="13/4",
        why="passes the blot on 10 (no lasting effect)",
    ),
    Example(
        number=42,
        case_id="N2c",
        position="classic | 24:X14 13:X1 10:O1 7:O2 1:O12 | bar 0/0 | res 0/0 | off 0/0 | 63",
        text="13/4",
        expected="E_ILLEGAL",
        why="same position in classic: the only path touches the blot → must be `13/10*/4`",
    ),
    Example(
        number=43,
        case_id="N4",
        position="neverfinishing | 22:O1 20:O2 13:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 53",
        text="bar/22 13/8",
        expected="E_HIT_OR_TRAP_REQUIRED",
        why="entry onto a blot needs a choice",
    ),
    Example(
        number=44,
        case_id="N4",
        position="neverfinishing | 22:O1 20:O2 13:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 53",
        text="bar/22* 22/17",
        expected="bar/22*/17",
        why="split form of a chained move",
    ),
    Example(
        number=45,
        case_id="M1",
        position=(
            "pin-mother | 20:O5 19:O5 13:O4 8:X3 6:X5 5:X2 3:X5 1:O1 | bar 0/0 | res 0/0 | "
            "off 0/0 | 42"
        ),
        text="3/1 5/1^",
        expected="5/1^ 3/1",
        why="pins O's mother; X has no checker on 24 → X wins 2",
    ),
    Example(
        number=46,
        case_id="E1-d3",
        position="blocking-express | 22:O1 16:X14 3:O14+X1 | bar 0/0 | res 0/0 | off 0/0 | [6x2]",
        text="16/10",
        expected="E_ILLEGAL",
        why="must play both remaining 6s",
    ),
    Example(
        number=47,
        case_id="E1-d3",
        position="blocking-express | 22:O1 16:X14 3:O14+X1 | bar 0/0 | res 0/0 | off 0/0 | [6x2]",
        text="16/10 10/4",
        expected="16/4",
        why="chained ≡ split",
    ),
    Example(
        number=48,
        case_id="B5c",
        position="blocking | 20:O14 5:X2+O1 2:X13 | bar 0/0 | res 0/0 | off 0/0 | 54",
        text="pass",
        expected="",
        why="no legal step: empty play",
    ),
    Example(
        number=49,
        case_id="B5c",
        position="blocking | 20:O14 5:X2+O1 2:X13 | bar 0/0 | res 0/0 | off 0/0 | 54",
        text="2/off",
        expected="E_ILLEGAL",
        why="4/5 cannot bear off from 2 while covered checkers are on 5",
    ),
    Example(
        number=50,
        case_id="N7",
        position="neverfinishing | 24:X13 15:X1 9:O1+X1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 63",
        text="9/6 15/9*",
        expected="15/9*/6",
        why="trapper leaves (release), then the released blot is hit",
    ),
    Example(
        number=51,
        case_id="N7",
        position="neverfinishing | 24:X13 15:X1 9:O1+X1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 63",
        text="15/9 9/6",
        expected="15/6",
        why="9 was `[O,X]`: no marker needed, O stays trapped",
    ),
    Example(
        number=52,
        case_id="P1",
        position="pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52",
        text="24/22 24/19",
        expected="24/22 24/19",
        why="two checkers from the same point",
    ),
    Example(
        number=53,
        case_id="C10",
        position="classic | 24:O12 13:X2 10:O1 6:X1 4:O2 2:X12 | bar 0/0 | res 0/0 | off 0/0 | 33",
        text="13/10* 10/7 13/7",
        expected="13/10*/7(2)",
        why=(
            "net per point (§7.4.4): 10 is left and reached, net 0 after the hit (departures first "
            "would find no X checker there); the canonical text keeps 10 in both paths, a hit "
            "happened there (§7.6.2)"
        ),
    ),
    Example(
        number=54,
        case_id="N8b",
        position="neverfinishing | 21:X1 15:X1 9:O1 2:X13 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 66",
        text="15/9* 21/15 15/9/3",
        expected="21/9*/3 15/9",
        why=(
            "net per point: 15 loses one checker (two leave, one arrives), 9 gains one and its "
            "blot is hit; the checker that only passed 9 keeps it in its path (§7.6.2)"
        ),
    ),
)

_BY_ID: dict[str, Case] = {c.id: c for c in CASES}


def case(id: str) -> Case:
    """The case with this id (KeyError if there is none)."""
    return _BY_ID[id]
