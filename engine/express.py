"""Blocking Express run lookahead (RULES §6.2, A37).

A decision's play is legal only if, from its result, the same controller can go on to play as
many further consecutive pending numbers as after any other play of this decision. Those
numbers are consumed strictly in order, so the run length is simply the longest chain of
single-die steps over the pending numbers: a depth-first search that stops as soon as a chain
plays every pending number (nothing can beat it), memoised by (position, numbers left). Bearing
off the 15th checker ends the chain and counts as playing every pending number (positions.md
E7), so a winning run and a complete one are equally long.

An upper bound on the run (``_run_bound``) prunes the search twice: a node stops as soon as a
child reaches its bound, and a child whose bound cannot beat the best sibling so far is skipped.

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

#: Longest possible pending suffix: 1-1 gives four each of 1..6.
_ALL_NUMBERS = tuple(v for v in range(1, 7) for _ in range(4))
MEMO_LIMIT = 200_000
_memo: dict[tuple[Position, int], int] = {}


def pending_after(dice: ChainDice) -> tuple[int, ...]:
    """The numbers still pending once this decision has played all its copies."""
    return _ALL_NUMBERS[4 * dice.value :]


def _never_bears_off(pos: Position) -> bool:
    """An X checker is covered outside the home board: X cannot bear off during this run (the
    opponent does not move, so it stays covered), and ``_room_bound`` applies."""
    return any(X in stack[: stack.rfind(O)] for stack in pos.points[7:] if O in stack)


def _room_bound(pos: Position, left: int) -> int:
    """An upper bound on the run over the last ``left`` pending numbers when X cannot bear off.

    Every number played then moves one of X's movable checkers towards point 1, and each
    checker can absorb at most its distance to point 1 (its room). The numbers come in
    non-decreasing order; a prefix is playable only if, for every threshold ``t``, the numbers
    of at least ``t`` fit into the checkers with room of at least ``t``: by count (``room // t``
    each) and by total pips.
    """
    pts = pos.points
    count_room = [0] * 7
    pip_room = [0] * 7
    for point in range(2, 26):
        if point == 25:
            free = pos.reserve[0]
        else:
            stack = pts[point]
            free = stack[stack.rfind(O) + 1 :].count(X) if stack else 0
        if free:
            room = point - 1
            for t in range(1, min(room, 6) + 1):
                count_room[t] += free * (room // t)
                pip_room[t] += free * room
    played = 0
    for die in _ALL_NUMBERS[len(_ALL_NUMBERS) - left :]:
        for t in range(1, die + 1):
            count_room[t] -= 1
            pip_room[t] -= die
            if count_room[t] < 0 or pip_room[t] < 0:
                return played
        played += 1
    return played


def longest_run(variant: Variant, pos: Position, left: int) -> int:
    """Most of the last ``left`` pending numbers X can play in order from ``pos`` (all
    ``left`` if X bears off his 15th checker on the way)."""
    if left == 0:
        return 0
    if _never_bears_off(pos):
        return _longest_run(variant, pos, left, _room_bound(pos, left), True)
    return _longest_run(variant, pos, left, left, False)


def _longest_run(variant: Variant, pos: Position, left: int, bound: int, rooms: bool) -> int:
    """``longest_run`` below a known upper ``bound``; ``rooms``: whether ``_room_bound``
    applies (it does for the whole search once it does at the root)."""
    key = (pos, left)
    cached = _memo.get(key)
    if cached is not None:
        return cached
    best = 0
    rest = left - 1
    for _, after in variant.steps(pos, _ALL_NUMBERS[-left]):
        if rest == 0 or after.off[0] == NUM_CHECKERS:
            best = left  # the last number played, or the game won: the whole run
            break
        further = _memo.get((after, rest))
        if further is None:
            child_bound = _room_bound(after, rest) if rooms else rest
            if child_bound < best:
                continue  # cannot beat what another step already reaches
            further = _longest_run(variant, after, rest, child_bound, rooms)
        if further >= best:
            best = 1 + further
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
            return dice.copies + left  # the 15th checker is off: every pending number counts
        used = len(leaf.steps)
        if used < dice.copies:
            return used
        return used + longest_run(variant, after, left)

    return score
