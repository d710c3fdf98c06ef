"""Immutable board positions in the mover's frame (RULES §1).

A position is always seen by the player who makes the current decision, called X; the other
player is O. Points are numbered 1..24 in X's numbering and both players move from higher to
lower numbers in their own numbering, so X's point ``p`` is O's point ``25 - p``.
"""

from __future__ import annotations

from typing import NamedTuple

X = "X"
O = "O"
BAR = 25
OFF = 0
NUM_CHECKERS = 15

#: An empty stack. Stacks are strings of ``"X"``/``"O"`` characters, bottom to top: strings are
#: immutable, hashable and cheap to slice, which keeps move generation allocation-light.
EMPTY = ""

_SWAP = str.maketrans("XO", "OX")


def swap_colours(stack: str) -> str:
    """The same stack seen by the other player."""
    return stack.translate(_SWAP)


class Position(NamedTuple):
    """One board position in the mover's frame.

    ``points[p]`` for ``p`` in 1..24 is the stack on X's point ``p``, bottom to top;
    ``points[0]`` is always empty (it keeps indices equal to point numbers).
    Pairs are ``(X's count, O's count)``. A named tuple rather than a dataclass: move generation
    creates hundreds of these per listing, and tuple construction and hashing are the cheapest.
    """

    variant: str
    points: tuple[str, ...]
    bar: tuple[int, int] = (0, 0)
    reserve: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    #: Dutch only (RULES §3.6.4): whether X / O may hit.
    unlocked: tuple[bool, bool] = (False, False)

    def flip(self) -> Position:
        """The same position seen by the other player (who becomes X)."""
        pts = self.points
        flipped = (EMPTY, *(swap_colours(pts[25 - p]) for p in range(1, 25)))
        return Position(
            self.variant,
            flipped,
            (self.bar[1], self.bar[0]),
            (self.reserve[1], self.reserve[0]),
            (self.off[1], self.off[0]),
            (self.unlocked[1], self.unlocked[0]),
        )

    def on_board(self, colour: str) -> int:
        """Checkers of ``colour`` on the board (not bar, reserve or off)."""
        return sum(stack.count(colour) for stack in self.points)

    def pips(self, colour: str = X) -> int:
        """Pip count of ``colour`` in his own numbering (RULES §5): bar and reserve count 25."""
        i = 0 if colour == X else 1
        total = 25 * (self.bar[i] + self.reserve[i])
        for p in range(1, 25):
            n = self.points[p].count(colour)
            if n:
                total += n * (p if colour == X else 25 - p)
        return total

    def stack(self, point: int) -> str:
        return self.points[point]


def make_position(
    variant: str,
    stacks: dict[int, str],
    bar: tuple[int, int] = (0, 0),
    reserve: tuple[int, int] = (0, 0),
    off: tuple[int, int] = (0, 0),
    unlocked: tuple[bool, bool] = (False, False),
) -> Position:
    """Build a position from ``{point: stack}`` (stacks bottom to top, e.g. ``"XXO"``)."""
    pts = [EMPTY] * 25
    for p, s in stacks.items():
        pts[p] = s
    return Position(variant, tuple(pts), bar, reserve, off, unlocked)
