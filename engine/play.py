"""Steps and plays: the value objects that move generation and notation share.

A play writes its own canonical text (RULES §7.6, ``format_play``) here, so this module needs
neither notation nor the variants, which both build on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from engine.position import O, Position

#: Landing effects at a step's destination (RULES §3.x.4).
NONE = ""
HIT = "hit"
PIN = "pin"  # pin games: the O blot is pinned under the landing checker
TRAP = "trap"  # neverfinishing: the O blot is trapped under the landing checker


class Step(NamedTuple):
    """One checker moved by one die, in the mover's numbering.

    ``src`` is 25 for an entry (bar or reserve), ``dst`` is 0 for bearing off.
    """

    src: int
    dst: int
    die: int
    effect: str = NONE


class Leaf(NamedTuple):
    """One realising path of a result of move generation, which the Express lookahead ranks.
    A named tuple: listings create a thousand of these."""

    steps: tuple[Step, ...]
    high: bool  # realisable by a path that uses the higher die (higher-die rule)


class Play:
    """A legal play: the steps that realise it and the position it leads to.

    Two plays are the same play iff ``after`` is equal (RULES §2.6). The canonical ``text``
    (RULES §7.6) is written on first use: a listing that only needs positions (a bot checking
    for a forced move, a lookahead) does not pay for formatting hundreds of texts. A plain
    slotted class, treated as immutable: listings create hundreds of these.
    """

    __slots__ = ("_text", "after", "before", "steps")

    def __init__(self, steps: tuple[Step, ...], before: Position, after: Position) -> None:
        self.steps = steps
        self.before = before
        self.after = after
        self._text: str | None = None

    @property
    def text(self) -> str:
        text = self._text
        if text is None:
            text = self._text = format_play(self.before, self.after, self.steps)
        return text

    @property
    def dice_used(self) -> int:
        return len(self.steps)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Play) and other.before == self.before and other.after == self.after

    def __hash__(self) -> int:
        return hash((self.before, self.after))

    def __repr__(self) -> str:
        return f"Play({self.text!r})"

    def __reduce__(self) -> tuple[type[Play], tuple[tuple[Step, ...], Position, Position]]:
        # By constructor arguments: a compiled (mypyc) Play has no default pickling, and plays
        # cross to the worker processes. The text is recomputed there on first use.
        return (Play, (self.steps, self.before, self.after))


#: Point names in canonical text (0 = off, 25 = bar).
_NAMES = ("off", *(str(p) for p in range(1, 25)), "bar")


def _created(before: Position, after: Position, point: int) -> bool:
    """Whether the play created a persisting pin/trap on ``point``: [O] before, [O, X...] after
    (RULES §7.6.5). Only a step's destination can be one."""
    if before.points[point] != O:
        return False
    stack = after.points[point]
    return stack[:1] == O and stack != O


def format_play(before: Position, after: Position, steps: Sequence[Step]) -> str:
    """The unique canonical text of a play (RULES §7.6)."""
    count = len(steps)
    if count <= 2:
        # Direct paths for one and two steps without a hit (most plays): the same text as the
        # general algorithm below, without its bookkeeping.
        if not count:
            return ""
        names = _NAMES
        first = steps[0]
        if count == 1:
            text = names[first.src] + "/" + names[first.dst]
            if first.effect == HIT:
                return text + "*"
            if first.dst and first.effect and _created(before, after, first.dst):
                return text + "^"
            return text
        second = steps[1]
        if first.effect != HIT and second.effect != HIT:
            if (second.src, second.dst) > (first.src, first.dst):
                first, second = second, first
            high_src, high_dst, low_src, low_dst = first.src, first.dst, second.src, second.dst
            if low_src == high_dst and high_dst:  # one checker moved twice: 24/18/13 -> 24/13
                text = names[high_src] + "/" + names[low_dst]
                if low_dst and second.effect and _created(before, after, low_dst):
                    text += "^"
                return text
            pins = first.effect or second.effect  # no hit here: a pin or a trap
            high = names[high_src] + "/" + names[high_dst]
            if pins and high_dst and _created(before, after, high_dst):
                high += "^"
            if high_src == low_src and high_dst == low_dst:
                return high + "(2)"
            low = names[low_src] + "/" + names[low_dst]
            if pins and low_dst and low_dst != high_dst and _created(before, after, low_dst):
                low += "^"
            return high + " " + low
    return _format_general(before, after, steps)


def _format_general(before: Position, after: Position, steps: Sequence[Step]) -> str:
    # By source, then destination, descending (steps equal in both are interchangeable here).
    order = sorted(steps, reverse=True)
    hit_points = {s.dst for s in steps if s.effect == HIT}
    size = len(order)
    used = [False] * size
    paths: list[tuple[int, ...]] = []
    for i in range(size):
        if used[i]:
            continue
        used[i] = True
        step = order[i]
        last = step.dst
        chain = [step.src, last]
        for j in range(i + 1, size):
            if not last:  # off ends a path (a path never reaches the bar)
                break
            if not used[j] and order[j].src == last:
                used[j] = True
                last = order[j].dst
                if chain[-1] in hit_points:
                    chain.append(last)
                else:
                    chain[-1] = last
        paths.append(tuple(chain))
    counts: dict[tuple[int, ...], int] = {}
    for path in paths:
        counts[path] = counts.get(path, 0) + 1
    if hit_points:
        tokens = sorted(counts, key=lambda p: (-p[0], -p[-1], [-x for x in p[1:-1]]))
    else:  # every path is (source, destination): plain descending order is the same
        tokens = sorted(counts, reverse=True)
    # Points where the play created a pin/trap that persists (only where a step landed with one).
    created = {s.dst for s in steps if s.effect and s.dst and _created(before, after, s.dst)}
    names = _NAMES
    hit_done: set[int] = set()
    pin_done: set[int] = set()
    out: list[str] = []
    for path in tokens:
        words = [names[path[0]]]
        last = len(path) - 1
        for k in range(1, last + 1):
            point = path[k]
            word = names[point]
            if point in hit_points and point not in hit_done:
                hit_done.add(point)
                word += "*"
            elif k == last and point in created and point not in pin_done:
                pin_done.add(point)
                word += "^"
            words.append(word)
        n = counts[path]
        out.append("/".join(words) + (f"({n})" if n > 1 else ""))
    return " ".join(out)
