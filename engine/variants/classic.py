"""Classic backgammon (RULES §3.1): the only variant with a doubling cube."""

from __future__ import annotations

from typing import ClassVar

from engine.play import HIT, NONE
from engine.position import O, Position, X, make_position
from engine.variants.base import Landing, Result, ResultKind, Variant


def _o_in_winners_home(pos: Position) -> bool:
    """O has a checker in X's home board (O's points 19-24) or on O's bar."""
    return pos.bar[1] > 0 or any(O in pos.points[p] for p in range(1, 7))


class Classic(Variant):
    id = "classic"
    name = "Backgammon"
    summary = "Standard backgammon with hitting and the doubling cube."
    rules_card = (
        "Start: 2 on your 24, 5 on 13, 3 on 8, 5 on 6. Move from 24 towards 1 and bear "
        "off.\n"
        "A point with 2+ opposing checkers is blocked. Landing on a lone opposing checker "
        "hits it to the bar; it must re-enter (on 25 minus the die) before anything else "
        "moves.\n"
        "Use both dice if you can (doubles: four times); if only one, the higher one.\n"
        "Bear off once all 15 are home (1-6). Gammon x2, backgammon x3, times the cube. "
        "Before rolling you may double; the opponent takes or passes."
    )
    plays_opening_dice = True
    has_cube = True
    has_bar = True
    markers: ClassVar[frozenset[str]] = frozenset("*")

    def initial_position(self) -> Position:
        return make_position(
            self.id,
            {
                24: "XX",
                13: "X" * 5,
                8: "XXX",
                6: "X" * 5,
                1: "OO",
                12: "O" * 5,
                17: "OOO",
                19: "O" * 5,
            },
        )

    def is_open(self, pos: Position, stack: str) -> bool:
        # Single-colour stacks: open iff O has at most one checker there.
        return len(stack) <= 1 or stack[0] == X

    def landings(self, pos: Position, stack: str) -> tuple[Landing, ...]:
        if stack == O:
            return ((X, HIT, 1),)
        return ((stack + X, NONE, 0),)

    def is_permanently_blocked(self, stack: str) -> bool:
        return len(stack) >= 2 and stack[0] == O

    resign_levels = 3  # single, gammon, backgammon (times the cube)
    has_gnubg_ids = True
    native_kernel = "classic"

    def score_win(self, pos: Position) -> Result:
        if pos.off[1] > 0:
            return Result(X, 1, ResultKind.SINGLE)
        if _o_in_winners_home(pos):
            return Result(X, 3, ResultKind.BACKGAMMON)
        return Result(X, 2, ResultKind.GAMMON)
