"""The Blocking Game and Blocking Express (RULES §3.4, §3.5, §6).

A player owns a point when he has exactly one checker on it; stacks are last-in-first-out.
"""

from __future__ import annotations

from engine.position import NUM_CHECKERS, O, Position, X, make_position
from engine.variants.base import Result, ResultKind, Variant


class Blocking(Variant):
    id = "blocking"
    name = "The Blocking Game"
    summary = (
        "Enter all 15, no hitting; a lone checker owns its point; stacks are last in, first out."
    )
    rules_card = (
        "Start: all 15 off the board; enter with bar/N (N = 25 minus the die). All 15 "
        "must enter before any checker moves. No hitting.\n"
        "A player with exactly ONE checker on a point owns it: the opponent cannot land "
        "or touch down there. Landing on two or more opposing checkers is allowed and "
        "covers them.\n"
        "Stacks are last in, first out: only the top checker may leave. Win: 1 point."
    )
    has_reserve = True
    blot_effect = None
    runs_on_counts = True
    stacks_mix = True
    scores_gammons = False  # every win is one point

    def initial_position(self) -> Position:
        return make_position(self.id, {}, reserve=(NUM_CHECKERS, NUM_CHECKERS))

    def is_open(self, pos: Position, stack: str) -> bool:
        return stack.count(O) != 1

    def is_permanently_blocked(self, stack: str) -> bool:
        return stack.count(O) == 1

    def is_capturable(self, stack: str) -> bool:
        return False

    def is_blot(self, stack: str) -> bool:
        return False

    def valid_stack(self, stack: str) -> bool:
        # A lone checker of one colour in a mixed stack is always on top (§3.4.3 invariant).
        for colour in (X, O):
            if stack.count(colour) == 1 and len(stack) > 1 and stack[-1] != colour:
                return False
        return True

    def entry_mode(self, pos: Position) -> tuple[bool, bool]:
        # A12: all fifteen must enter before any board checker moves.
        return (pos.reserve[0] > 0, pos.reserve[0] == 0)

    def after_entry(self, pos: Position) -> tuple[tuple[int, int], tuple[int, int]]:
        return pos.bar, (pos.reserve[0] - 1, pos.reserve[1])

    def score_win(self, pos: Position) -> Result:
        return Result(X, 1, ResultKind.SINGLE)


class BlockingExpress(Blocking):
    id = "blocking-express"
    name = "Blocking Express"
    summary = "The Blocking Game where a double starts a chain of doubles up to 6-6."
    rules_card = (
        "The Blocking Game with chained doubles: rolling 3-3 means four 3s, then four 4s, "
        "5s and 6s. Play one number at a time with /move. If you cannot play all copies "
        "of a number, your opponent takes over with the rest, and control goes back and "
        "forth until all are played or both are stuck. You must choose plays that let you "
        "go on as far as possible."
    )
    chains_doubles = True
