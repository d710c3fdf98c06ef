"""Steps and plays: the value objects that move generation and notation share."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from engine.position import Position

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


_FORMAT: list[Callable[[Position, Position, tuple[Step, ...]], str]] = []


def _formatter() -> Callable[[Position, Position, tuple[Step, ...]], str]:
    """``notation.format_play``, imported on first use (notation imports this module)."""
    if not _FORMAT:
        from engine.notation import format_play

        _FORMAT.append(format_play)
    return _FORMAT[0]


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
            text = self._text = _formatter()(self.before, self.after, self.steps)
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
