"""Dice: an ordinary roll, or one Blocking Express chain decision (RULES §6)."""

from __future__ import annotations

from engine.frozen import FrozenValue


class Roll(FrozenValue):
    """Two dice; ``high >= low``. A double is played as four numbers (RULES §2.3)."""

    __slots__ = ("high", "low")
    _fields = ("high", "low")
    high: int
    low: int

    def __init__(self, high: int, low: int) -> None:
        if not (1 <= low <= high <= 6):
            raise ValueError(f"bad dice {high}-{low}")
        self._set(high=high, low=low)

    @classmethod
    def of(cls, a: int, b: int) -> Roll:
        return cls(max(a, b), min(a, b))

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    @property
    def numbers(self) -> tuple[int, ...]:
        return (self.high,) * 4 if self.is_double else (self.high, self.low)

    def text(self) -> str:
        return f"{self.high}{self.low}"


class ChainDice(FrozenValue):
    """One Express decision: ``copies`` remaining copies of ``value`` (RULES §6.2).

    After it the pending numbers are four of each higher value up to 6 (§6.1, §12).
    """

    __slots__ = ("copies", "rolled", "value")
    _fields = ("value", "copies", "rolled")
    value: int
    copies: int
    #: The chain's first decision, written as the rolled double ``dd`` (kept for exact round trip).
    rolled: bool

    def __init__(self, value: int, copies: int, rolled: bool = False) -> None:
        if not (1 <= value <= 6 and 1 <= copies <= 4) or (rolled and copies != 4):
            raise ValueError(f"bad chain decision [{value}x{copies}]")
        self._set(value=value, copies=copies, rolled=rolled)

    @property
    def numbers(self) -> tuple[int, ...]:
        return (self.value,) * self.copies

    @property
    def is_double(self) -> bool:
        return True

    def text(self) -> str:
        return f"{self.value}{self.value}" if self.rolled else f"[{self.value}x{self.copies}]"


Dice = Roll | ChainDice
