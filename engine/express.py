"""Blocking Express run lookahead (RULES §6.2, A37).

A decision's play is legal only if, from its result, the same controller can go on to play as
many further consecutive pending numbers as after any other play of this decision. Those
numbers are consumed strictly in order, so the run length is simply the longest chain of
single-die steps over the pending numbers. Bearing off the 15th checker ends the chain and
counts as playing every pending number (positions.md E7), so a winning run and a complete one
are equally long.

O never moves during X's run, so in Blocking the points O owns (exactly one O checker) stay
blocked and covered X checkers stay covered for the whole run: the run can be replayed on
per-point counts (a variant says so with ``runs_on_counts``). That gives three exact methods,
tried in this order (``longest_run``):

* a greedy run over plain per-point counts (``_greedy_run``): when it plays every pending
  number (or wins) nothing can do better, which settles most positions in a few microseconds;
* when an X checker is covered outside the home board X can never bear off, and once the
  reserve is empty X's free checkers move independently of each other (landing is allowed on
  any point O does not own, and X checkers on one point are interchangeable): the run is then
  a packing problem solved exactly over checkers instead of over move orders
  (``_packed_run``);
* otherwise a depth-first search over single-die steps that stops as soon as a chain plays
  every pending number, pruned by an upper bound (``_room_bound``) where it applies.

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


# --- Blocking as plain counts ----------------------------------------------------------------


#: Per distinct stack: (free X checkers on top, owned by O, X checkers, covered X checkers).
_STACKS: dict[str, tuple[int, bool, int, bool]] = {}


def _stack_info(stack: str) -> tuple[int, bool, int, bool]:
    top_o = stack.rfind(O)
    free = len(stack) - 1 - top_o  # everything above the top O checker is X
    info = (free, stack.count(O) == 1, stack.count(X), X in stack[: max(top_o, 0)])
    if len(_STACKS) >= 10_000:  # a bound: the stacks met in practice are far fewer
        _STACKS.clear()
    _STACKS[stack] = info
    return info


class _Board:
    """The parts of a Blocking position that X's run depends on, O being frozen.

    ``free[p]``: X checkers above the top O checker of point ``p`` (only these can ever move;
    they are interchangeable); ``blocked[p]``: O owns ``p``; ``covered_high``: the highest point
    holding a covered X checker (it counts for the over-bear rule, A10); ``never_off``: a covered
    X checker outside the home board; ``home_pips``: the pips X must play before all his
    checkers are home (a reserve checker enters on 19..24).
    """

    __slots__ = ("blocked", "covered_high", "free", "home_pips", "never_off")

    def __init__(self, pos: Position) -> None:
        free = [0] * 25
        blocked = [False] * 25
        covered_high = 0
        home_pips = 19 * pos.reserve[0]
        known = _STACKS
        for p, stack in enumerate(pos.points):
            if stack:
                info = known.get(stack)
                if info is None:
                    info = _stack_info(stack)
                n_free, owned, n_x, covered = info
                free[p] = n_free
                if owned:
                    blocked[p] = True
                if covered:
                    covered_high = p
                if p > 6:
                    home_pips += (p - 6) * n_x
        self.free = free
        self.blocked = blocked
        self.covered_high = covered_high
        self.never_off = covered_high > 6
        self.home_pips = home_pips

    def bears_off_within(self, left: int) -> bool:
        """Whether X may bear off while playing the last ``left`` pending numbers: never
        with a covered checker outside the home board, and not before every checker is home,
        which takes ``home_pips`` of the numbers before the one bearing off."""
        return not self.never_off and _PIPS_BEFORE_LAST[left] >= self.home_pips


def _greedy_run(board: _Board, reserve: int, off: int, numbers: tuple[int, ...]) -> int:
    """A lower bound on the run: always move the highest checker that can play the number.

    Follows the Blocking rules exactly (entering first, A12; ownership; LIFO through ``free``;
    bearing off with the over-bear rule), so the run it plays is a real one.
    """
    free = board.free.copy()
    blocked = board.blocked
    covered_high = board.covered_high
    high = 24
    while high and not free[high]:
        high -= 1
    played = 0
    for die in numbers:
        if reserve:
            dst = 25 - die
            if blocked[dst]:
                return played
            free[dst] += 1
            reserve -= 1
            if high < dst:
                high = dst
            played += 1
            continue
        top = high if high > covered_high else covered_high
        src = high
        while src:
            if free[src]:
                dst = src - die
                if dst >= 1:
                    if not blocked[dst]:
                        break
                elif top <= 6 and (dst == 0 or src == top):
                    break
            src -= 1
        else:
            return played
        free[src] -= 1
        if dst >= 1:
            free[dst] += 1
        else:
            off += 1
            if off == NUM_CHECKERS:
                return len(numbers)  # the game won counts as every pending number
        while high and not free[high]:
            high -= 1
        played += 1
    return played


# --- the independent case: packing the numbers into checkers --------------------------------
#
# Each free checker absorbs a subsequence of the pending numbers; the numbers are in
# non-decreasing order, so a checker's subsequence is fixed by how many of each value it takes
# and its path is: those of the lowest value first, and so on. A set of such count vectors is
# a bitset over a mixed-radix index (digit j counts value j, radix = copies pending + 1): a
# checker's possible contributions are added to every reachable sum by a walk over its points,
# with a per-digit mask that keeps each digit within its copies (so no digit ever carries).


class _Suffix:
    """Index tables for the last ``left`` pending numbers."""

    __slots__ = ("digits", "prefix_index")

    def __init__(self, left: int) -> None:
        numbers = _ALL_NUMBERS[len(_ALL_NUMBERS) - left :]
        values = sorted(set(numbers))
        counts = [numbers.count(v) for v in values]
        places = []
        size = 1
        for n in counts:
            places.append(size)
            size *= n + 1
        digits = []
        for v, n, place in zip(values, counts, places, strict=True):
            period = place * (n + 1)
            block = (1 << (place * n)) - 1  # within a period: digit below its maximum
            below = 0
            for start in range(0, size, period):
                below |= block << start
            digits.append((v, place, below))
        #: (value, place, mask of the sums where one more copy of the value still fits)
        self.digits = tuple(digits)
        #: index of the count vector of the first ``L`` numbers, for L = 0..left
        prefix_index = [0]
        index = 0
        for die in numbers:
            index += places[values.index(die)]
            prefix_index.append(index)
        self.prefix_index = tuple(prefix_index)


#: The pips of the last ``left`` pending numbers but their very last one.
_PIPS_BEFORE_LAST = (0, *(sum(_ALL_NUMBERS[-left:-1]) for left in range(1, len(_ALL_NUMBERS) + 1)))
_SUFFIXES = {left: _Suffix(left) for left in range(1, len(_ALL_NUMBERS) + 1)}


def _packed_run(board: _Board, left: int) -> int:
    """The exact run when X's free checkers are independent: never bearing off, reserve empty.

    ``reach`` is the set of count vectors the checkers seen so far can absorb together; the
    answer is the longest prefix of the pending numbers whose count vector is in it.
    """
    suffix = _SUFFIXES[left]
    digits = suffix.digits
    prefix_index = suffix.prefix_index
    complete = prefix_index[-1]
    blocked = board.blocked
    free = board.free
    reach = 1  # only the empty sum
    for q in range(24, 1, -1):
        for _ in range(free[q]):
            # at[p]: the sums reachable with this checker standing on p
            at = [0] * (q + 1)
            at[q] = reach
            for v, place, below in digits:
                for p in range(q, v, -1):  # downwards, so several copies chain in one pass
                    sums = at[p]
                    if sums and not blocked[p - v]:
                        sums &= below
                        if sums:
                            at[p - v] |= sums << place
            for sums in at:
                reach |= sums
            if reach >> complete & 1:
                return left
    for played in range(left - 1, 0, -1):
        if reach >> prefix_index[played] & 1:
            return played
    return 0


# --- search --------------------------------------------------------------------------------


def longest_run(variant: Variant, pos: Position, left: int) -> int:
    """Most of the last ``left`` pending numbers X can play in order from ``pos`` (all
    ``left`` if X bears off his 15th checker on the way)."""
    if left == 0:
        return 0
    key = (pos, left)
    cached = _memo.get(key)
    if cached is not None:
        return cached
    floor = 0
    if variant.runs_on_counts:
        board = _Board(pos)
        floor = _greedy_run(board, pos.reserve[0], pos.off[0], _ALL_NUMBERS[-left:])
        if floor == left:
            best = left
        elif board.bears_off_within(left):
            best = _longest_run(variant, pos, left, left, False, floor)
        elif not pos.reserve[0]:
            best = _packed_run(board, left)
        else:
            best = _longest_run(variant, pos, left, _room_bound(pos, left), True, floor)
        _remember(key, best)
        return best
    if _never_bears_off(pos):
        return _longest_run(variant, pos, left, _room_bound(pos, left), True)
    return _longest_run(variant, pos, left, left, False)


def _remember(key: tuple[Position, int], run: int) -> None:
    if len(_memo) >= MEMO_LIMIT:
        _memo.clear()
    _memo[key] = run


def _longest_run(
    variant: Variant, pos: Position, left: int, bound: int, rooms: bool, floor: int = 0
) -> int:
    """``longest_run`` below a known upper ``bound`` and above a known run length ``floor``
    from ``pos``; ``rooms``: X cannot bear off during the run, so ``_room_bound`` applies (it
    does for the whole search once it does at the root) and, in Blocking, once the reserve is
    empty so does ``_packed_run``."""
    key = (pos, left)
    cached = _memo.get(key)
    if cached is not None:
        return cached
    if not pos.reserve[0] and variant.runs_on_counts:
        # Bearing off may have become impossible on the way (no longer enough pips left).
        board = _Board(pos)
        if rooms or not board.bears_off_within(left):
            best = _packed_run(board, left)
            _remember(key, best)
            return best
    best = floor
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
    _remember(key, best)
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
