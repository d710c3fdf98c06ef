"""The Pin Game and the Pin Game with the mother rule (RULES §3.2, §3.3).

A checker landing on a lone opposing checker pins it underneath; a pinned checker cannot move
and its point is a block for its owner until every pinner has left.
"""

from __future__ import annotations

from typing import ClassVar

from engine.play import NONE, PIN
from engine.position import NUM_CHECKERS, O, Position, X, make_position
from engine.variants.base import Landing, Result, ResultKind, RuleOption, Variant


def covering_stack_ok(stack: str) -> bool:
    """Stacks the covering variants can produce: one colour, or one checker under the other."""
    if len(set(stack)) <= 1:
        return True
    rest = stack[1:]
    return len(set(rest)) == 1 and rest[0] != stack[0]


def x_is_covered(pos: Position) -> bool:
    """An X checker is pinned/trapped: it can only be the bottom of a mixed stack."""
    return any(s and s[0] == X and O in s for s in pos.points)


class CoveringVariant(Variant):
    """Shared rules of the variants where a landing on a blot covers it (pin, pin-mother, nf)."""

    stacks_mix = True

    def is_open(self, pos: Position, stack: str) -> bool:
        # Open: empty, X on top (X only, or X pinning O), or a lone O checker.
        return not stack or stack[-1] == X or stack == O

    def is_permanently_blocked(self, stack: str) -> bool:
        return len(stack) >= 2 and stack[-1] == O

    def is_capturable(self, stack: str) -> bool:
        return stack == O or (len(stack) >= 2 and stack[0] == O and stack[-1] == X)

    def valid_stack(self, stack: str) -> bool:
        return covering_stack_ok(stack)

    def may_bear_off(self, pos: Position, highest: int) -> bool:
        # A9: no bearing off while an own checker is pinned or trapped.
        return super().may_bear_off(pos, highest) and not x_is_covered(pos)


def pin_score(pos: Position) -> Result:
    """Pin Game scoring (§3.2.8, A8): the loser's pip count, x2 gammon, x3 backgammon."""
    pips = pos.pips(O)
    if pos.off[1] > 0:
        return Result(X, pips, ResultKind.SINGLE)
    if any(O in pos.points[p] for p in range(1, 7)):
        return Result(X, 3 * pips, ResultKind.BACKGAMMON)
    return Result(X, 2 * pips, ResultKind.GAMMON)


class Pin(CoveringVariant):
    id = "pin"
    name = "The Pin Game"
    summary = "No hitting: landing on a lone checker pins it until you leave."
    rules_card = (
        "Start: 13 on your 24, one each on 17 and 15. No hitting and no bar.\n"
        "Landing on a lone opposing checker PINS it (^): it cannot move until every "
        "pinner leaves, and its owner cannot land on that point. Two or more checkers "
        "block a point.\n"
        "Higher die if only one can be played. No bearing off while one of yours is "
        "pinned.\n"
        "The winner scores the loser's pip count (x2 if he bore off none, x3 if also a "
        "checker is still in the winner's home board)."
    )
    markers: ClassVar[frozenset[str]] = frozenset("^")
    blot_effect = PIN

    def initial_position(self) -> Position:
        return make_position(self.id, {24: "X" * 13, 17: X, 15: X, 1: "O" * 13, 8: O, 10: O})

    def landings(self, pos: Position, stack: str) -> tuple[Landing, ...]:
        if stack == O:
            return ((O + X, PIN, 0),)
        return ((stack + X, NONE, 0),)

    def score_win(self, pos: Position) -> Result:
        return pin_score(pos)

    resign_levels = 3
    score_unit = "pip"  # the loser's pip count (§3.2.8)

    def resignation_points(self, pos: Position, level: int = 1) -> int:
        # As the game's own scoring: the loser's pips, x2 (gammon), x3 (backgammon).
        return pos.pips(O) * level


class PinMother(Pin):
    id = "pin-mother"
    name = "The Pin Game (mother rule)"
    summary = "The Pin Game where pinning the opponent's last checker at home wins 2 points."
    rules_card = (
        "The Pin Game, plus the mother rule: your mother is your last checker on your "
        "24-point.\n"
        "Pin the opponent's mother once you have left your own 24-point and you win 2 "
        "points at once; while you still have checkers there the game goes on until you "
        "leave. Both mothers pinned: a tie. The winner of a game starts the next one."
    )
    previous_winner_starts = True
    has_mother = True
    plakoto = False  # A4: the option of the Plakoto setup
    options: ClassVar[dict[str, RuleOption]] = {
        "plakoto": RuleOption("plakoto", "Plakoto setup: all fifteen start on the 24-point"),
    }

    def initial_position(self) -> Position:
        if self.plakoto:  # A4: the Plakoto array, all 15 on the 24-point
            return make_position(self.id, {24: "X" * 15, 1: "O" * 15})
        return make_position(self.id, {24: "X" * 13, 17: X, 15: X, 1: "O" * 13, 8: O, 10: O})

    def mother_may_end(self, pos: Position) -> bool:
        # A mother can be pinned only where the other side has a checker on its 24-point.
        return O in pos.points[1] or X in pos.points[24]

    def result(self, pos: Position) -> Result | None:
        if pos.off[0] == NUM_CHECKERS:
            return self.score_win(pos)
        # §3.3.8: a mother is a player's lone checker on his 24-point, pinned when covered.
        x_home, o_home = pos.points[24], pos.points[1]
        x_mother_pinned = x_home[:1] == X and x_home.count(X) == 1 and O in x_home
        o_mother_pinned = o_home[:1] == O and o_home.count(O) == 1 and X in o_home
        if x_mother_pinned and o_mother_pinned:
            return Result(None, 0, ResultKind.TIE)
        # The exception (A7, A39): while the pinner still has checkers on his own 24-point the
        # game goes on; the pinner's checkers there can only be under his own pinned mother
        # or a plain stack, so "has a checker on his 24-point" is X in the stack.
        if o_mother_pinned and X not in x_home:
            return Result(X, 2, ResultKind.MOTHER)
        if x_mother_pinned and O not in o_home:
            return Result(O, 2, ResultKind.MOTHER)
        return None
