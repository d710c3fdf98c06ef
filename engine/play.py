"""Steps and plays: the value objects that move generation and notation share."""

from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class Play:
    """A legal play: the steps that realise it, the position it leads to and its canonical text.

    Two plays are the same play iff ``after`` is equal (RULES §2.6).
    """

    steps: tuple[Step, ...]
    before: Position
    after: Position
    text: str

    @property
    def dice_used(self) -> int:
        return len(self.steps)
