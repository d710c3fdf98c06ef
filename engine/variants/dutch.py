"""Dutch Backgammon (RULES §3.6): start off the board; no hitting before reaching home."""

from __future__ import annotations

from typing import ClassVar

from engine.play import HIT, NONE
from engine.position import NUM_CHECKERS, O, Position, X, make_position
from engine.variants.base import Landing, Result, ResultKind, RuleOption, Variant


class Dutch(Variant):
    id = "dutch"
    name = "Dutch Backgammon"
    summary = "Enter from off the board; you may hit only once one of your checkers reached home."
    rules_card = (
        "Start: all 15 off the board; enter with bar/N (N = 25 minus the die). Entering "
        "is optional once your bar is empty: you may enter or move checkers already in.\n"
        "No hitting until one of your checkers has reached your home board (1-6); after "
        "that you may hit for good. Hit checkers enter first.\n"
        "Bear off when all 15 are home. Win 1, or 2 if the loser bore off none."
    )
    has_bar = True
    has_reserve = True
    tracks_unlock = True
    markers: ClassVar[frozenset[str]] = frozenset("*")

    # A16: the older rule (enter all fifteen first) is an option, off by default.
    must_enter_all = False
    options: ClassVar[dict[str, RuleOption]] = {
        **Variant.options,
        "mustEnterAll": RuleOption(
            "must_enter_all", "all fifteen must enter before any checker moves"
        ),
    }

    def initial_position(self) -> Position:
        return make_position(self.id, {}, reserve=(NUM_CHECKERS, NUM_CHECKERS))

    def is_open(self, pos: Position, stack: str) -> bool:
        # A15/A40: an O blot is open only to an unlocked X (who then hits it).
        return len(stack) == 0 or stack[0] == X or (stack == O and pos.unlocked[0])

    def landings(self, pos: Position, stack: str) -> tuple[Landing, ...]:
        if stack == O:
            return ((X, HIT, 1),)
        return ((stack + X, NONE, 0),)

    def is_permanently_blocked(self, stack: str) -> bool:
        return len(stack) >= 2 and stack[0] == O

    def entry_mode(self, pos: Position) -> tuple[bool, bool]:
        if pos.bar[0] > 0:
            return (True, False)
        if pos.reserve[0] > 0:
            return (True, not self.must_enter_all)
        return (False, True)

    def steps_commute(self, pos: Position) -> bool:
        # While locked, a step that reaches home can allow a later hit from a higher point.
        return pos.unlocked[0]

    def update_flags(self, pos: Position, dst: int) -> tuple[bool, bool]:
        # §3.6.4: unlocked the first time a checker stands home or is borne off, for good.
        if dst <= 6 and not pos.unlocked[0]:
            return (True, pos.unlocked[1])
        return pos.unlocked

    def score_win(self, pos: Position) -> Result:
        if pos.off[1] > 0:
            return Result(X, 1, ResultKind.SINGLE)
        return Result(X, 2, ResultKind.GAMMON)
