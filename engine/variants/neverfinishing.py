"""The NeverFinishing Game (RULES §3.7): a landing on a blot may hit it or trap it."""

from __future__ import annotations

from typing import ClassVar

from engine.play import HIT, NONE, TRAP
from engine.position import O, Position, X, make_position
from engine.variants.base import Landing, Result, ResultKind, RuleOption
from engine.variants.pin import CoveringVariant


class NeverFinishing(CoveringVariant):
    id = "neverfinishing"
    name = "The NeverFinishing Game"
    summary = "Land on a lone checker and choose: hit it to the bar or trap it underneath."
    rules_card = (
        "Start: all 15 on your 24. Land on a lone opposing checker and choose: hit it to "
        "the bar (write *) or trap it underneath (write ^). A trapped checker and its "
        "point are blocked for its owner until the trapper leaves. Bar checkers enter "
        "first.\n"
        "No bearing off while one of yours is trapped. Win 1, or 2 if the loser bore off "
        "none."
    )
    previous_winner_starts = True
    options: ClassVar[dict[str, RuleOption]] = {}  # the previous winner starts already
    has_bar = True
    markers: ClassVar[frozenset[str]] = frozenset("*^")
    marker_required_on_blot = True
    blot_effect = TRAP
    pin_word = "traps"
    # A trapper leaving its point releases the blot; a checker from a higher point may then
    # hit it, which no ordered twin does (trapping it again is the same as landing first).
    reexposes_blots = True

    def initial_position(self) -> Position:
        return make_position(self.id, {24: "X" * 15, 1: "O" * 15})

    def landings(self, pos: Position, stack: str) -> tuple[Landing, ...]:
        if stack == O:
            return ((X, HIT, 1), (O + X, TRAP, 0))
        return ((stack + X, NONE, 0),)

    def score_win(self, pos: Position) -> Result:
        if pos.off[1] > 0:
            return Result(X, 1, ResultKind.SINGLE)
        return Result(X, 2, ResultKind.GAMMON)
