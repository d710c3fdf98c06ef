"""Blocking Express run lookahead (RULES §6.2, A37).

A decision's play is legal only if, from its result, the same controller can go on to play as
many further consecutive pending numbers as after any other play of this decision. Those
numbers are consumed strictly in order, so the run length is simply the longest chain of
single-die steps over the pending numbers: a depth-first search that stops as soon as a chain
plays every pending number (nothing can beat it), memoised by (position, numbers left).

The pending numbers after any point of a chain are a suffix of ``v x k, (v+1) x 4, ..., 6 x 4``
and a suffix always ends with 6 x 4, so (position, length of the suffix) identifies a
sub-problem across decisions: the memo is shared (bounded) so a chain's later decisions and
repeated listings of the same decision reuse earlier work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.dice import ChainDice
from engine.position import NUM_CHECKERS, O, Position, X

if TYPE_CHECKING:
    from engine.movegen import _Leaf
    from engine.variants import Variant

#: A run that bears off the 15th checker beats any count of numbers.
GAME_WON = 1000
#: Longest possible pending suffix: 1-1 gives four each of 1..6.
_ALL_NUMBERS = tuple(v for v in range(1, 7) for _ in range(4))
MEMO_LIMIT = 200_000
_memo: dict[tuple[Position, int], int] = {}


def pending_after(dice: ChainDice) -> tuple[int, ...]:
    """The numbers still pending once this decision has played all its copies."""
    return _ALL_NUMBERS[4 * dice.value :]


def _run_bound(pos: Position, left: int) -> int:
    """An upper bound on the run from ``pos``: when an X checker is covered outside the home
    board X can never bear off during this run (the opponent does not move), so each number
    played uses that many pips of the distance his movable checkers still have to point 1.
    """
    if not any(X in stack[: stack.rfind(O)] for stack in pos.points[7:] if O in stack):
        return left
    room = 24 * pos.reserve[0]
    for point in range(2, 25):
        stack = pos.points[point]
        if stack:
            room += (point - 1) * stack[stack.rfind(O) + 1 :].count(X)
    played = 0
    for die in _ALL_NUMBERS[len(_ALL_NUMBERS) - left :]:
        room -= die
        if room < 0:
            break
        played += 1
    return played


def longest_run(variant: Variant, pos: Position, left: int) -> int:
    """Most of the last ``left`` pending numbers X can play in order from ``pos``."""
    if left == 0:
        return 0
    key = (pos, left)
    cached = _memo.get(key)
    if cached is not None:
        return cached
    bound = _run_bound(pos, left)
    die = _ALL_NUMBERS[-left]
    best = 0
    for _, after in variant.steps(pos, die):
        if after.off[0] == NUM_CHECKERS:
            best = GAME_WON
            break
        further = longest_run(variant, after, left - 1)
        length = GAME_WON if further >= GAME_WON else 1 + further  # every win is equal
        if length > best:
            best = length
            if best >= bound:  # nothing can do better
                break
    if len(_memo) >= MEMO_LIMIT:
        _memo.clear()
    _memo[key] = best
    return best


def run_scorer(variant: Variant, dice: ChainDice) -> Callable[[Position, _Leaf], int]:
    left = len(pending_after(dice))

    def score(after: Position, leaf: _Leaf) -> int:
        if after.off[0] == NUM_CHECKERS:
            return GAME_WON
        used = len(leaf.steps)
        if used < dice.copies:
            return used
        further = longest_run(variant, after, left)
        return GAME_WON if further >= GAME_WON else used + further

    return score
