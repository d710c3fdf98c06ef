"""Dice: an ordinary roll, or one Blocking Express chain decision (RULES §6)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Roll:
    """Two dice; ``high >= low``. A double is played as four numbers (RULES §2.3)."""

    high: int
    low: int

    def __post_init__(self) -> None:
        if not (1 <= self.low <= self.high <= 6):
            raise ValueError(f"bad dice {self.high}-{self.low}")

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


@dataclass(frozen=True, slots=True)
class ChainDice:
    """One Express decision: ``copies`` remaining copies of ``value`` (RULES §6.2).

    After it the pending numbers are four of each higher value up to 6 (§6.1, §12).
    """

    value: int
    copies: int
    #: The chain's first decision, written as the rolled double ``dd`` (kept for exact round trip).
    rolled: bool = False

    def __post_init__(self) -> None:
        if not (1 <= self.value <= 6 and 1 <= self.copies <= 4) or (
            self.rolled and self.copies != 4
        ):
            raise ValueError(f"bad chain decision [{self.value}x{self.copies}]")

    @property
    def numbers(self) -> tuple[int, ...]:
        return (self.value,) * self.copies

    @property
    def is_double(self) -> bool:
        return True

    def text(self) -> str:
        return f"{self.value}{self.value}" if self.rolled else f"[{self.value}x{self.copies}]"


Dice = Roll | ChainDice
