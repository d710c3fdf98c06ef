"""Blocking Express run lookahead (RULES §6.2, A37).

A decision's play is legal only if, from its result, the same controller can go on to play as
many further consecutive pending numbers as after any other play of this decision. The run
length from a position is memoised per call and the search stops as soon as a continuation
plays every pending number (nothing can beat it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.dice import ChainDice
from engine.position import NUM_CHECKERS, Position

if TYPE_CHECKING:
    from engine.movegen import _Leaf
    from engine.variants import Variant

#: A run that bears off the 15th checker beats any count of numbers.
GAME_WON = 1000


def run_scorer(variant: Variant, dice: ChainDice) -> Callable[[Position, _Leaf], int]:
    from engine.movegen import _leaves

    memo: dict[tuple[Position, int], int] = {}

    def run_length(pos: Position, value: int) -> int:
        """Most consecutive pending numbers X can play from ``value`` x4 up to 6 x4."""
        if value > 6:
            return 0
        key = (pos, value)
        cached = memo.get(key)
        if cached is not None:
            return cached
        everything = 4 * (7 - value)
        best = 0
        for after, leaf in _leaves(variant, pos, (value,) * 4).items():
            if after.off[0] == NUM_CHECKERS:
                best = GAME_WON
                break
            used = len(leaf.steps)
            length = used + (run_length(after, value + 1) if used == 4 else 0)
            if length > best:
                best = length
                if best >= everything:
                    break
        memo[key] = best
        return best

    def score(after: Position, leaf: _Leaf) -> int:
        if after.off[0] == NUM_CHECKERS:
            return GAME_WON
        used = len(leaf.steps)
        if used < dice.copies:
            return used
        return used + run_length(after, dice.value + 1)

    return score
