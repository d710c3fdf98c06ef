"""Blocking Express run lookahead (RULES §6.2, A37).

A decision's play is legal only if, from its result, the same controller can go on to play as
many further consecutive pending numbers as after any other play of this decision. Those
numbers are consumed strictly in order, so the run length is simply the longest chain of
single-die steps over the pending numbers. Bearing off the 15th checker ends the chain and
counts as playing every pending number (positions.md E7), so a winning run and a complete one
are equally long.

O never moves during X's run, so in Blocking the points O owns (exactly one O checker) stay
blocked and covered X checkers stay covered for the whole run (``_Frozen``): the run depends
only on how many free X checkers each point holds, which fits in one int (four bits a point,
``_counts``). A variant says so with ``runs_on_counts``. On those counts:

* while X has reserve checkers, the only step is entering, so the first numbers are forced;
* an upper bound (``_Frozen.bound``) relaxes the run into a packing problem: every checker
  absorbs a subsequence of the numbers on its own, bearing off with a number no earlier than
  the pips X needs to bring everyone home allow, over-bearing only from a point no lower than
  his highest covered checker. It is solved exactly over count vectors kept as one int bitset.
  Where X cannot bear off during the run, the checkers really are independent and the bound is
  the run itself;
* the relaxation's solution also tells which checker takes which numbers; played in order
  (``_Frozen.witness``) it is almost always a real run, and then the bound is the run: most
  plays are settled by one fold and one such check, with no search below them;
* otherwise a depth-first search (``_Frozen.run``) with a memo over (counts, numbers left) that
  only asks whether a branch beats what is already known, so the bound cuts most branches;
* a decision's plays are ranked together (``best_leaves``): a cheap greedy run, the bound and
  the witness settle most plays; only those that may reach the best run are searched. X's
  moves never change the frozen board, so all plays of a decision share it.

The slowest chain decisions (the family ``tests/engine/express_slowest.py`` keeps) are those
where X can bear off but cannot win (a checker of his covered in his home board), has checkers
still coming home and a long chain pending (11 or 22 rolled, or a [1xk] decision): the plain
search there visits ~10^5 positions per play, and the best runs park checkers on the covered
point to bear off the last 5s and 6s from there. Without the witness every such play was
searched down to a run, ~1-4 s a decision for the slowest constructed ones.

The pending numbers after any point of a chain are a suffix of ``v x k, (v+1) x 4, ..., 6 x 4``
and a suffix always ends with 6 x 4, so (position, length of the suffix) identifies a
sub-problem across decisions: the memos are shared (bounded) so a chain's later decisions and
repeated listings of the same decision reuse earlier work.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from engine.dice import ChainDice
from engine.play import Leaf
from engine.position import BAR, NUM_CHECKERS, OFF, O, Position, X

if TYPE_CHECKING:
    from engine.variants import Variant

#: Bit offsets of the points' counts in ``_counts``.
_SHIFTS = tuple(4 * p for p in range(25))
#: Longest possible pending suffix: 1-1 gives four each of 1..6.
_ALL_NUMBERS = tuple(v for v in range(1, 7) for _ in range(4))
MEMO_LIMIT = 200_000
_memo: dict[tuple[Position, int], int] = {}


def pending_after(dice: ChainDice) -> tuple[int, ...]:
    """The numbers still pending once this decision has played all its copies."""
    return _ALL_NUMBERS[4 * dice.value :]


def clear_caches() -> None:
    """Forget every memo (benchmarks time cold listings with it)."""
    _memo.clear()
    _FROZEN.clear()


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


def _scan(pos: Position) -> tuple[int, int, int, int]:
    """One pass over X's board: (counts, the mask of the points O owns, X's highest covered
    checker's point, X's covered checkers).

    Counts: X's free checkers per point as one int, point ``p`` in bits 4p..4p+3. A stack is
    bottom to top; everything above its highest O checker is X (free), X below it is covered,
    and O owns the point when it has exactly one checker there.
    """
    state = owned = covered_high = covered = 0
    for p, stack in enumerate(pos.points):
        if stack:
            top_o = stack.rfind(O)
            if top_o < 0:  # X alone: all free
                state += len(stack) << 4 * p
                continue
            free = len(stack) - 1 - top_o
            if free:
                state += free << 4 * p
            if stack.count(O) == 1:
                owned |= 1 << p
            if top_o:
                under = stack.count(X, 0, top_o)
                if under:
                    covered_high = p
                    covered += under
    return state, owned, covered_high, covered


def _counts(pos: Position) -> int:
    """X's free checkers per point as one int (``_scan``)."""
    return _scan(pos)[0]


#: The pips of the last ``left`` pending numbers but their very last one.
_PIPS_BEFORE_LAST = (0, *(sum(_ALL_NUMBERS[-left:-1]) for left in range(1, len(_ALL_NUMBERS) + 1)))


class _Suffix:
    """Index tables for the last ``left`` pending numbers.

    A set of count vectors (how many of each value a set of checkers absorbs) is a bitset over a
    mixed-radix index (digit j counts value j, radix = copies pending + 1).
    """

    __slots__ = (
        "digits",
        "first_off_value",
        "first_off_values",
        "numbers",
        "prefix_index",
        "radices",
    )

    def __init__(self, left: int) -> None:
        numbers = _ALL_NUMBERS[len(_ALL_NUMBERS) - left :]
        self.numbers = numbers
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
        #: (value, place, radix) per digit, to read a count vector back from its index
        self.radices = tuple(
            (v, place, n + 1) for v, n, place in zip(values, counts, places, strict=True)
        )
        #: index of the count vector of the first ``L`` numbers, for L = 0..left
        prefix_index = [0]
        index = 0
        for die in numbers:
            index += places[values.index(die)]
            prefix_index.append(index)
        self.prefix_index = tuple(prefix_index)
        #: first_off_value[h]: the value of the earliest number that may bear off when X's
        #: checkers need ``h`` pips to come home (7: none may)
        first_off = []
        for home_pips in range(0, 24 * 18 + 1):
            acc = 0
            value = 7
            for die in numbers:
                if acc >= home_pips:
                    value = die
                    break
                acc += die
            first_off.append(value)
            if value == 7:
                break
        self.first_off_value = tuple(first_off)
        #: first_off_values[v]: the cases of ``_Frozen.bound``: never bearing off (7), or
        #: first bearing off with each pending value from ``v`` on
        self.first_off_values = tuple(
            (7, *(value for value in values if value >= v)) for v in range(8)
        )


class _Suffixes(dict[int, _Suffix]):
    """``_Suffix`` tables by length, built on first use (the engine's start-up stays short)."""

    def __missing__(self, left: int) -> _Suffix:
        suffix = self[left] = _Suffix(left)
        return suffix


_SUFFIXES = _Suffixes()
Steps = tuple[tuple[int, int, int, int], ...]
#: Partial folds kept per frozen board (each holds two bitsets of up to ~400 bytes).
OUTSIDE_LIMIT = 5_000
#: Partial folds checker by checker kept per frozen board (lists of up to 15 such bitsets,
#: mostly shared with each other).
PREFIX_LIMIT = 5_000
#: The search computes the bound where at least this many numbers are left (near the end of a
#: run the search itself is cheaper than the bound).
BOUND_FROM = 6


class _Frozen:
    """What stays fixed during X's run in Blocking, O being frozen, with the memos over it.

    ``blocked[p]``: O owns ``p``; ``covered_high``: the highest point holding a covered X
    checker (it counts for the over-bear rule, A10; above 6 X never bears off); ``can_win``: no
    X checker is covered, so bearing off the last free checker wins.
    """

    __slots__ = (
        "blocked",
        "bounds",
        "can_win",
        "cases",
        "covered_high",
        "first_off",
        "memo",
        "outside",
        "own",
        "prefix_sets",
        "walks",
    )

    def __init__(self, blocked: tuple[bool, ...], covered_high: int, can_win: bool) -> None:
        self.blocked = blocked
        self.covered_high = covered_high
        self.can_win = can_win
        #: (counts << 5 | left) -> 2 * run + 1 (exact) or 2 * bound (an upper bound)
        self.memo: dict[int, int] = {}
        self.bounds: dict[int, int] = {}
        self.walks: dict[int, tuple[Steps, Steps]] = {}
        self.first_off: dict[int, int] = {}
        self.outside: dict[int, tuple[int, int]] = {}
        #: what one checker absorbs alone, per (point, numbers left, case)
        self.own: dict[int, tuple[tuple[int, int], ...]] = {}
        #: the cases of the latest ``bound`` that reach it: (key, bound, [(h, sets)])
        self.cases: tuple[int, int, list[tuple[int, list[int]]]] = (-1, 0, [])
        #: ``_case_sets`` after the checkers on a point and above, by what stands there
        self.prefix_sets: dict[int, list[int]] = {}

    # --- bounds ------------------------------------------------------------------------------

    def first_off_value(self, state: int, left: int) -> int:
        """The lowest value that may bear off (7: none) within the last ``left`` numbers."""
        if self.covered_high > 6:
            return 7
        outside = state >> 28  # points 7 and up
        key = outside << 5 | left
        value = self.first_off.get(key)
        if value is None:
            home_pips = 0
            p = 7
            while outside:
                home_pips += (p - 6) * (outside & 15)
                outside >>= 4
                p += 1
            table = _SUFFIXES[left].first_off_value
            value = table[home_pips] if home_pips < len(table) else 7
            if len(self.first_off) >= MEMO_LIMIT:
                self.first_off.clear()
            self.first_off[key] = value
        return value

    def bound(self, state: int, left: int) -> int:
        """An upper bound on the run (exact when X cannot bear off during it).

        Relaxation: a real run either bears nothing off, and then X's checkers are independent
        (each absorbs a subsequence of the numbers on its own), or X first bears off with some
        value ``h``: then every checker is home once it has played its numbers up to ``h``,
        and from ``h`` on a checker may bear off, exactly or (the over-bear rule needs the
        highest point) from a point no lower than X's highest covered checker. Each case is
        solved with the checkers independent (``_scenario``); ``h`` starts at the first value
        X's pips to come home allow.
        """
        key = state << 5 | left
        known = self.bounds.get(key)
        if known is not None:
            return known
        suffix = _SUFFIXES[left]
        prefix_index = suffix.prefix_index
        first_off = self.first_off_value(state, left)
        result = 0
        cases: list[tuple[int, list[int]]] = []
        for h in suffix.first_off_values[first_off]:
            # One checker at a time, so that ``witness`` can split the numbers.
            sets = self._case_sets(state, left, h)
            reach = sets[-1]
            for played in range(left, result - 1, -1):
                if reach >> prefix_index[played] & 1:
                    if played > result:
                        result = played
                        cases.clear()
                    cases.append((h, sets))
                    break
            if result < left and self.can_win and h < 7 and reach:
                all_off = self._scenario(state, left, h)[1]
                if any(all_off >> prefix_index[n] & 1 for n in range(1, left + 1)):
                    result = left  # every checker borne off: a win
                    cases.clear()
            if result == left:
                break
        self.cases = (key, result, cases)
        if len(self.bounds) >= MEMO_LIMIT:
            self.bounds.clear()
        self.bounds[key] = result
        return result

    def _case_sets(self, state: int, left: int, h: int) -> list[int]:
        """``_sets`` for all of X's checkers in the case ``h`` of ``bound``.

        The checkers are added from the highest point down, and the sets after each point are
        kept by what stands on that point and above: the plays of one decision and the search
        below them mostly differ on a few low points, so most of a fold is found kept.
        """
        tail = left << 3 | h
        points = [p for p in range(1, 25) if (state >> 4 * p) & 15]
        sets: list[int] | None = None
        start = 24
        for p in points:  # the lowest point first: the longest kept part
            kept = self.prefix_sets.get(((state >> 4 * p) << 5 | p) << 8 | tail)
            if kept is not None:
                if not kept[-1]:
                    return kept
                sets = list(kept)
                start = p - 1
                break
        if sets is None:
            sets = [1]
        if len(self.prefix_sets) >= PREFIX_LIMIT:
            self.prefix_sets.clear()
        for q in range(start, 0, -1):
            count = (state >> 4 * q) & 15
            if not count:
                continue
            for _ in range(count):
                reach = self._absorb(sets[-1], q, left, h)
                sets.append(reach)
                if not reach:
                    break
            self.prefix_sets[((state >> 4 * q) << 5 | q) << 8 | tail] = sets[:]
            if not sets[-1]:
                break
        return sets

    def _scenario(self, state: int, left: int, h: int) -> tuple[int, int]:
        """The count vectors X's checkers can absorb independently when they first bear off
        with value ``h`` (7: never), and those where all of them are borne off (a win)."""
        # The checkers outside the home board often stay put while the search shuffles the
        # ones inside: their (costlier) part of the fold is kept.
        outside_key = (state >> 28 << 5 | left) << 3 | h
        part = self.outside.get(outside_key)
        if part is None:
            all_off = 1 if self.can_win and h < 7 else 0
            part = self._fold(state, 24, 7, left, h, 1, all_off)
            if len(self.outside) >= OUTSIDE_LIMIT:
                self.outside.clear()
            self.outside[outside_key] = part
        if not part[0]:
            return part
        return self._fold(state, 6, 1, left, h, *part)

    def _fold(
        self, state: int, high: int, low: int, left: int, h: int, reach: int, all_off: int
    ) -> tuple[int, int]:
        """Add the checkers on points ``high`` down to ``low`` to the sets of ``_scenario``."""
        for q in range(high, low - 1, -1):
            count = (state >> 4 * q) & 15
            if not count:
                continue
            before, after = self._walk(q, left, h)
            if not before and not after:
                if h < 7 and q > 6:
                    return 0, 0  # this checker never gets home: no such run
                all_off = 0  # a checker that can never move: nobody wins
                continue
            for _ in range(count):
                for is_reach in (True, False):
                    start = reach if is_reach else all_off
                    if not start:
                        continue
                    # at[p]: the sums reachable with this checker standing on p (0: borne off)
                    at = [0] * (q + 1)
                    at[q] = start
                    for src, dst, place, below in before:
                        sums = at[src]
                        if sums:
                            sums &= below
                            if sums:
                                at[dst] |= sums << place
                    if h < 7:
                        del at[7:]  # everyone is home once the numbers up to h are played
                        for src, dst, place, below in after:
                            sums = at[src]
                            if sums:
                                sums &= below
                                if sums:
                                    at[dst] |= sums << place
                    if is_reach:
                        reach = 0
                        for sums in at:
                            reach |= sums
                        if not reach:
                            return 0, 0
                    else:
                        all_off = at[0]
        return reach, all_off

    def _walk(self, q: int, left: int, h: int) -> tuple[Steps, Steps]:
        """One checker's steps from ``q`` for ``_scenario``, in the order they are applied:
        values upwards, points downwards (so several copies of a value chain in one pass),
        only from points the checker can reach; split where the checker must be home (after
        the value ``h``). Each step: (source, destination or 0 for off, place, mask)."""
        key = (q * 32 + left) * 8 + h
        walk = self.walks.get(key)
        if walk is None:
            before: list[tuple[int, int, int, int]] = []
            after: list[tuple[int, int, int, int]] = []
            ops = before
            reachable = {q}
            for v, place, below in _SUFFIXES[left].digits:
                for p in range(q, 0, -1):
                    if p not in reachable:
                        continue
                    dst = p - v
                    if dst >= 1:
                        if not self.blocked[dst]:
                            ops.append((p, dst, place, below))
                            reachable.add(dst)
                    elif v >= h and (dst == 0 or p >= self.covered_high):
                        ops.append((p, 0, place, below))
                if v == h:
                    ops = after
                    reachable = {p for p in reachable if p <= 6}
            if h < 7 and q > 6 and not any(dst <= 6 for _, dst, _, _ in before):
                before = after = []  # never home in time
            walk = self.walks[key] = (tuple(before), tuple(after))
        return walk

    # --- a real run from the relaxation ------------------------------------------------------

    def _absorb(self, reach: int, q: int, left: int, h: int, off: bool = False) -> int:
        """``reach`` plus what one checker on ``q`` absorbs in the case ``h`` of ``bound``
        (0: this checker never gets home in time); ``off``: only where it ends borne off."""
        before, after = self._walk(q, left, h)
        if not before and not after:
            return 0 if off or (h < 7 and q > 6) else reach
        at = [0] * (q + 1)
        at[q] = reach
        for src, dst, place, below in before:
            sums = at[src] & below
            if sums:
                at[dst] |= sums << place
        if h < 7:
            del at[7:]
            for src, dst, place, below in after:
                sums = at[src] & below
                if sums:
                    at[dst] |= sums << place
        if off:
            return at[0]
        out = 0
        for sums in at:
            out |= sums
        return out

    def witness(self, state: int, left: int, played: int) -> bool:
        """Whether a real run plays ``played`` numbers, found by splitting the numbers among
        the checkers as a case of the relaxation of ``bound`` does and playing them in order.

        Within one value the copies may be played in any order: every checker's other moves
        first (then everybody who will be home is home), then its bear-offs from the highest
        point down. That order satisfies the relaxation's every rule but one: bearing off with
        more than the point needs is allowed only from the highest point, which the relaxation
        only checks against the covered checkers. Where a checker that has finished its part
        stands higher, it takes that number instead (``_plays``).
        """
        suffix = _SUFFIXES[left]
        target = suffix.prefix_index[played]
        key = state << 5 | left
        if self.cases[0] == key and self.cases[1] == played:
            cases = self.cases[2]  # ``bound`` has just folded this state
        else:
            cases = [
                (h, self._case_sets(state, left, h))
                for h in suffix.first_off_values[self.first_off_value(state, left)]
            ]
        for h, sets in cases:
            if sets[-1] >> target & 1 and self._plays(state, sets, target, suffix, h):
                return True
        if self.can_win and played == left:
            return self._wins(state, left)
        return False

    def _wins(self, state: int, left: int) -> bool:
        """Whether a real run bears off every checker (a win counts as the whole run), found
        as ``witness`` finds runs, with each checker's part ending borne off."""
        suffix = _SUFFIXES[left]
        checkers = [q for q in range(24, 0, -1) for _ in range((state >> 4 * q) & 15)]
        for h in suffix.first_off_values[self.first_off_value(state, left)][1:]:
            sets = [1]
            for q in checkers:
                sets.append(self._absorb(sets[-1], q, left, h, off=True))
                if not sets[-1]:
                    break
            else:
                tried = 0
                for played in range(1, left + 1):
                    target = suffix.prefix_index[played]
                    if sets[-1] >> target & 1:
                        if self._plays(state, sets, target, suffix, h, win=True):
                            return True
                        tried += 1
                        if tried == 3:  # the shortest few: not every split is tried
                            break
        return False

    def _own(self, q: int, left: int, h: int, off: bool = False) -> tuple[tuple[int, int], ...]:
        """What one checker on ``q`` absorbs alone (``off``: ending borne off), largest index
        first: (index of the count vector, the counts four bits a value)."""
        key = ((q * 32 + left) * 8 + h) * 2 + off
        own = self.own.get(key)
        if own is None:
            bits = bin(self._absorb(1, q, left, h, off))[:1:-1]
            radices = _SUFFIXES[left].radices
            own = tuple(
                (x, sum(x // place % radix << 4 * j for j, (_, place, radix) in enumerate(radices)))
                for x in range(len(bits) - 1, -1, -1)
                if bits[x] == "1"
            )
            self.own[key] = own
        return own

    def _plays(
        self,
        state: int,
        sets: list[int],
        target: int,
        suffix: _Suffix,
        h: int,
        win: bool = False,
    ) -> bool:
        """Split ``target`` among the checkers of ``state`` (``sets[i]``: what the first ``i``
        absorb, in ``_sets`` order) and play the split in order; whether every move is legal
        (``win``: each checker's part ends borne off, and so must the run)."""
        left = len(suffix.numbers)
        radices = suffix.radices
        checkers = [q for q in range(24, 0, -1) for _ in range((state >> 4 * q) & 15)]
        # plans[i]: checker i's values, in order (each moves it, or bears it off)
        plans: list[list[int]] = [[] for _ in checkers]
        rest = target
        packed = sum(
            target // place % radix << 4 * j for j, (_, place, radix) in enumerate(radices)
        )
        # A count vector fits in ``rest`` if no count, four bits each, borrows from its 8 bit.
        eights = sum(8 << 4 * j for j in range(len(radices)))
        for i in range(len(checkers) - 1, -1, -1):
            before = sets[i]
            for x, counts in self._own(checkers[i], left, h, win):
                if (
                    x <= rest
                    and before >> (rest - x) & 1
                    and ((packed | eights) - counts) & eights == eights
                ):
                    break
            else:
                return False  # cannot happen: ``target`` is such a sum
            rest -= x
            packed -= counts
            for j, (v, _, _) in enumerate(radices):
                plans[i] += [v] * (counts >> 4 * j & 15)
        at = list(checkers)  # where each checker stands (0: borne off)
        done = [0] * len(checkers)  # how much of its plan each has played
        blocked = self.blocked
        covered_high = self.covered_high
        for v, _, _ in radices:
            offs = []
            for i, plan in enumerate(plans):
                while done[i] < len(plan) and plan[done[i]] == v:
                    if at[i] > v:
                        at[i] -= v
                        done[i] += 1
                    else:
                        offs.append(i)
                        break
            offs.sort(key=lambda i: -at[i])
            for i in offs:
                top = max(max(at), covered_high)
                if top > 6:
                    return False  # not everybody is home
                if at[i] < v and at[i] != top:
                    # Not the highest: a checker up there takes this number instead (bearing
                    # off, or moving if its point is above v), and checker i takes over what
                    # that one had left to play, if it is a bear-off (from lower down, the
                    # same number still bears off). One with nothing left is preferred.
                    takers = [
                        j
                        for j, p in enumerate(at)
                        if p == top
                        and j != i
                        and (
                            done[j] == len(plans[j])
                            or (done[j] == len(plans[j]) - 1 and plans[j][-1] >= top)
                        )
                    ]
                    if not takers or (top > v and blocked[top - v]):
                        return False
                    taker = min(takers, key=lambda j: len(plans[j]) - done[j])
                    at[taker] = top - v if top > v else 0
                    plans[i] = plans[i][: done[i]] + plans[taker][done[taker] :]
                    plans[taker] = plans[taker][: done[taker]]
                    done[taker] = len(plans[taker])
                    continue
                at[i] = 0
                done[i] += 1
        return not win or not any(at)

    def greedy(self, state: int, left: int) -> int:
        """A real run (a lower bound): always move the highest checker that can play."""
        blocked = self.blocked
        covered_high = self.covered_high
        free = [state >> shift & 15 for shift in _SHIFTS]
        high = 24
        while high and not free[high]:
            high -= 1
        played = 0
        for die in _ALL_NUMBERS[len(_ALL_NUMBERS) - left :]:
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
            while high and not free[high]:
                high -= 1
            if not high and self.can_win:
                return left  # the last checker is off: the game is won
            played += 1
        return played

    # --- search ------------------------------------------------------------------------------

    def run(self, state: int, left: int, floor: int = -1, greedy: int = -1) -> int:
        """The run over the last ``left`` pending numbers from ``state`` (X's reserve empty) if
        it exceeds ``floor``; otherwise an upper bound on it that does not exceed ``floor``.
        ``greedy``: ``self.greedy(state, left)`` if the caller has it."""
        if left == 0:
            return 0
        key = state << 5 | left
        known = self.memo.get(key)
        if known is not None:
            if known & 1:
                return known >> 1
            if known >> 1 <= floor:
                return known >> 1
        if self.first_off_value(state, left) == 7:
            exact = self.bound(state, left)  # the checkers are independent: the bound is exact
            self._remember(key, exact, True)
            return exact
        bound = left
        if left >= BOUND_FROM:
            if greedy < 0:
                greedy = self.greedy(state, left)
            if greedy == left:  # a real run plays every number: nothing does better
                self._remember(key, left, True)
                return left
            bound = self.bound(state, left)
            if bound <= floor or greedy == bound:
                self._remember(key, bound, greedy == bound)
                return bound
            if self.witness(state, left, bound):
                self._remember(key, bound, True)
                return bound
            # No witness: a plain search, cheap per position, often finds the run quickly;
            # within a budget, else the bounded search below.
            try:
                exact = self._plain(state, left, bound, [PLAIN_BUDGET])
            except _OverBudget:
                pass
            else:
                return exact
        die = _ALL_NUMBERS[-left]
        rest = left - 1
        blocked = self.blocked
        covered_high = self.covered_high
        high = ((state.bit_length() + 3) >> 2) - 1
        top = high if high > covered_high else covered_high
        home = top <= 6
        children = []
        for src in range(high, 0, -1):
            if not (state >> 4 * src) & 15:
                continue
            dst = src - die
            if dst >= 1:
                if blocked[dst]:
                    continue
                children.append(state - (1 << 4 * src) + (1 << 4 * dst))
            elif home and (dst == 0 or src == top):
                child = state - (1 << 4 * src)
                if not rest or (not child and self.can_win):
                    # the last number, or the 15th checker off: the whole run
                    self._remember(key, left, True)
                    return left
                children.append(child)
        if not rest and children:
            self._remember(key, 1, True)
            return 1
        best = 0  # the longest run found
        upper = 0  # an upper bound over the children not searched exactly
        memo = self.memo
        unknown = []
        # Children already settled first (often by another play of the same decision).
        for child in children:
            known = memo.get(child << 5 | rest)
            if known is None or not known & 1:
                unknown.append(child)
            else:
                if known >> 1 >= best:
                    best = 1 + (known >> 1)
        if best < bound:
            for child in unknown:
                need = (best if best > floor else floor) - 1
                further = self.run(child, rest, need)
                if further > need:
                    best = 1 + further
                    if best >= bound:
                        break
                elif further + 1 > upper:
                    upper = further + 1
        if best > floor or best >= bound or upper <= best:
            self._remember(key, best, True)
            return best
        upper = min(upper, bound)
        self._remember(key, upper, False)
        return upper

    def _plain(self, state: int, left: int, enough: int, budget: list[int]) -> int:
        """The run by a plain depth-first search (no bounds), stopping once it reaches
        ``enough`` (an upper bound); raises ``_OverBudget`` after ``budget[0]`` positions."""
        if left == 0:
            return 0
        key = state << 5 | left
        known = self.memo.get(key)
        if known is not None and known & 1:
            return known >> 1
        budget[0] -= 1
        if budget[0] < 0:
            raise _OverBudget
        die = _ALL_NUMBERS[-left]
        rest = left - 1
        blocked = self.blocked
        high = ((state.bit_length() + 3) >> 2) - 1
        top = high if high > self.covered_high else self.covered_high
        best = 0
        for src in range(high, 0, -1):
            if not (state >> 4 * src) & 15:
                continue
            dst = src - die
            if dst >= 1:
                if blocked[dst]:
                    continue
                child = state - (1 << 4 * src) + (1 << 4 * dst)
            elif top <= 6 and (dst == 0 or src == top):
                child = state - (1 << 4 * src)
                if not child and self.can_win:
                    best = left  # the 15th checker off: the whole run
                    break
            else:
                continue
            run = 1 + self._plain(child, rest, rest, budget)
            if run > best:
                best = run
                if best >= enough:
                    break
        self._remember(key, best, True)
        return best

    def _remember(self, key: int, value: int, exact: bool) -> None:
        if len(self.memo) >= MEMO_LIMIT:
            self.memo.clear()
        self.memo[key] = 2 * value + exact


class _OverBudget(Exception):
    """``_Frozen._plain`` visited its budget of positions."""


#: Positions a plain search may visit where the witness fails (a few milliseconds).
PLAIN_BUDGET = 3000

_FROZEN: dict[tuple[int, int, bool], _Frozen] = {}
#: Five points' flags per five bits of a mask (builds ``_Frozen.blocked`` from a mask).
_FIVE_POINTS = tuple(tuple(bit == "1" for bit in format(i, "05b")[::-1]) for i in range(32))


def _frozen(pos: Position) -> _Frozen:
    return _frozen_of(*_scan(pos)[1:])


def _frozen_of(owned: int, covered_high: int, covered: int) -> _Frozen:
    key = (owned, covered_high, covered == 0)
    frozen = _FROZEN.get(key)
    if frozen is None:
        if len(_FROZEN) >= 16:  # each holds its own memo: keep the recent few
            _FROZEN.clear()
        for other in _FROZEN.values():
            # A decision uses one frozen board: the others keep their run lengths (small)
            # but not their partial folds (up to megabytes each).
            other.prefix_sets.clear()
            other.outside.clear()
        blocked = (
            _FIVE_POINTS[owned & 31]
            + _FIVE_POINTS[owned >> 5 & 31]
            + _FIVE_POINTS[owned >> 10 & 31]
            + _FIVE_POINTS[owned >> 15 & 31]
            + _FIVE_POINTS[owned >> 20 & 31]
        )
        frozen = _FROZEN[key] = _Frozen(blocked, covered_high, covered == 0)
    return frozen


def _enter(frozen: _Frozen, state: int, reserve: int, left: int) -> tuple[int, int]:
    """Play the forced entries (A12: all fifteen enter before any other step): (numbers
    played, counts after them); stops early at a point O owns."""
    played = 0
    numbers = _ALL_NUMBERS[len(_ALL_NUMBERS) - left :]
    while reserve and played < left:
        dst = 25 - numbers[played]
        if frozen.blocked[dst]:
            break
        state += 1 << 4 * dst
        reserve -= 1
        played += 1
    return played, state


def _counts_run(pos: Position, left: int, floor: int = -1) -> int:
    """``longest_run`` for a variant that runs on counts (the exact value when above
    ``floor``, else an upper bound not above it)."""
    state, *board = _scan(pos)
    frozen = _frozen_of(*board)
    played, state = _enter(frozen, state, pos.reserve[0], left)
    if played == left:
        return left
    if pos.reserve[0] > played:
        return played  # an entry is blocked: the run stops there
    return played + frozen.run(state, left - played, floor - played)


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
    if variant.runs_on_counts:
        best = _counts_run(pos, left)
        _remember(key, best)
        return best
    if _never_bears_off(pos):
        return _longest_run(variant, pos, left, _room_bound(pos, left), True)
    return _longest_run(variant, pos, left, left, False)


def _remember(key: tuple[Position, int], run: int) -> None:
    if len(_memo) >= MEMO_LIMIT:
        _memo.clear()
    _memo[key] = run


def _longest_run(variant: Variant, pos: Position, left: int, bound: int, rooms: bool) -> int:
    """``longest_run`` by a search over positions (variants that do not run on counts) below
    a known upper ``bound``; ``rooms``: X cannot bear off during the run, so ``_room_bound``
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
    _remember(key, best)
    return best


def run_scorer(variant: Variant, dice: ChainDice) -> Callable[[Position, Leaf], int]:
    """A decision's score of one play (§6.2): copies used, plus the run after a complete one."""
    left = len(pending_after(dice))

    def score(after: Position, leaf: Leaf) -> int:
        if after.off[0] == NUM_CHECKERS:
            return dice.copies + left  # the 15th checker is off: every pending number counts
        used = len(leaf.steps)
        if used < dice.copies:
            return used
        return used + longest_run(variant, after, left)

    return score


def best_leaves(
    variant: Variant,
    pos: Position,
    dice: ChainDice,
    leaves: Iterable[tuple[Position, Leaf]],
) -> list[tuple[Position, Leaf]]:
    """The plays of a decision in ``pos`` with the highest score (``run_scorer``), ranked
    together.

    On counts, a play is searched only as far as needed to tell whether it reaches the best
    score known so far: plays are taken in order of a cheap greedy run, and one whose bound
    falls short of the best is dropped unsearched. X's moves change neither the points O owns
    nor X's covered checkers, so every play shares the decision's frozen board, and a play's
    counts are the decision's moved by its steps.
    """
    items = list(leaves)
    copies = dice.copies
    # A play that uses every copy (or wins) scores at least ``copies``, above every other: with
    # at most one such play there is nothing to look ahead for.
    complete = [
        (after, leaf)
        for after, leaf in items
        if len(leaf.steps) >= copies or after.off[0] == NUM_CHECKERS
    ]
    if len(complete) == 1:
        return complete
    if not complete:
        most = max(len(leaf.steps) for _, leaf in items)
        return [(after, leaf) for after, leaf in items if len(leaf.steps) == most]
    if not variant.runs_on_counts:
        score = run_scorer(variant, dice)
        scored = [(score(p, leaf), p, leaf) for p, leaf in items]
        top = max(s for s, _, _ in scored)
        return [(p, leaf) for s, p, leaf in scored if s == top]
    left = len(pending_after(dice))
    won = copies + left
    base, *board = _scan(pos)
    frozen = _frozen_of(*board)
    scores: list[int] = [0] * len(items)
    # (greedy run, index, counts after the entries, entries) of the plays still to rank
    pending: list[tuple[int, int, int, int]] = []
    best = 0
    for i, (after, leaf) in enumerate(items):
        steps = leaf.steps
        if after.off[0] == NUM_CHECKERS:
            scores[i] = won
        elif len(steps) < copies:
            scores[i] = len(steps)
        else:
            state = base
            for step in steps:
                if step.src != BAR:
                    state -= 1 << 4 * step.src
                if step.dst != OFF:
                    state += 1 << 4 * step.dst
            reserve = after.reserve[0]
            played, state = _enter(frozen, state, reserve, left)
            if played == left or reserve > played:
                scores[i] = copies + played
            else:
                known = frozen.memo.get(state << 5 | (left - played))
                if known is not None and known & 1:
                    scores[i] = copies + played + (known >> 1)
                else:
                    greedy = played + frozen.greedy(state, left - played)
                    if greedy == left:  # the whole run: nothing scores higher
                        scores[i] = copies + left
                    else:
                        pending.append((greedy, i, state, played))
                        scores[i] = -1
                        best = max(best, copies + greedy)
                        continue
        best = max(best, scores[i])
    pending.sort(reverse=True)
    for greedy, i, state, played in pending:
        floor = best - copies - 1 - played
        run = played + frozen.run(state, left - played, floor, greedy - played)
        best = max(best, copies + run)  # above the floor, ``run`` is exact
        scores[i] = copies + run
    return [item for item, s in zip(items, scores, strict=True) if s == best]
