"""bench.movegen's measuring: targets, timed listings, their statistics and tables."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import ChainDice, Dice, Play, Position, format_position, legal_plays

# Targets from the issue, in microseconds: (median, mean, p99, worst); None = no target.
Target = tuple[float | None, float | None, float | None, float | None]
CLASSIC_TARGET: Target = (None, None, 1_000, 20_000)
VARIANT_TARGET: Target = (None, None, 2_000, 50_000)
DOUBLES_TARGET: Target = (None, None, None, 50_000)
EXPRESS_TARGET: Target = (5_000, None, 50_000, 1_000_000)
#: Issue 18: every chain decision within 150 ms.
SLOWEST_TARGET: Target = (None, None, None, 150_000)
NO_TARGET: Target = (None, None, None, None)


# --- statistics and printing ------------------------------------------------------------------


@dataclass
class Timed:
    """One listing that was timed: the position, its dice and the best of the repeats (ns)."""

    pos: Position
    dice: Dice
    ns: int
    plays: int
    state: Any = None  # the OpenSpiel state, for OpenSpiel timings


@dataclass
class Row:
    label: str
    samples: list[Timed]
    target: Target = NO_TARGET
    #: Times one sample once; used to re-time the row's tail before printing.
    once: Callable[[Timed], int] | None = None


def retime_rows(rows: Sequence[Row]) -> None:
    """Re-time each row's own tail (a subset's tail is not always in the whole set's tail)."""
    for row in rows:
        if row.once is not None:
            retime_tail(row.samples, row.once)


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted sequence."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def summary(samples: Sequence[Timed]) -> tuple[float, float, float, float]:
    """(median, mean, p99, worst) in microseconds."""
    us = sorted(t.ns / 1000 for t in samples)
    if not us:
        return (math.nan,) * 4
    return (statistics.median(us), statistics.fmean(us), percentile(us, 99), us[-1])


def verdict(values: tuple[float, float, float, float], target: Target) -> str:
    parts = []
    for name, value, limit in zip(("med", "mean", "p99", "max"), values, target, strict=True):
        if limit is not None:
            mark = "ok" if value < limit else "MISS"
            parts.append(f"{name}<{fmt_limit(limit)} {mark}")
    return ", ".join(parts) if parts else "-"


def fmt_limit(us: float) -> str:
    return f"{us / 1_000_000:g}s" if us >= 1_000_000 else f"{us / 1000:g}ms"


def print_table(rows: Sequence[Row]) -> None:
    head = (
        f"{'set':<40} {'n':>6} {'plays':>6} {'median':>10} {'mean':>10} {'p95':>10} "
        f"{'p99':>10} {'worst':>11}  target"
    )
    print(head)
    print("-" * (len(head) + 30))
    for row in rows:
        values = summary(row.samples)
        plays = statistics.fmean(t.plays for t in row.samples) if row.samples else math.nan
        med, mean, p99, worst = values
        p95 = percentile(sorted(t.ns / 1000 for t in row.samples), 95)
        print(
            f"{row.label:<40} {len(row.samples):>6} {plays:>6.1f} {med:>10.1f} {mean:>10.1f} "
            f"{p95:>10.1f} {p99:>10.1f} {worst:>11.1f}  {verdict(values, row.target)}"
        )
    print("(times in microseconds per full-turn listing; 'plays' = mean number of results)")


def print_slowest(label: str, samples: Sequence[Timed], count: int = 3) -> None:
    print(f"slowest {label}:")
    for t in sorted(samples, key=lambda t: t.ns, reverse=True)[:count]:
        print(f"  {t.ns / 1000:>10.1f} us  {t.plays:>4} plays  {format_position(t.pos, t.dice)}")


# --- timing -----------------------------------------------------------------------------------


#: Listings slower than this are timed once: a repeat would cost much and change little.
REPEAT_BELOW_NS = 5_000_000


def time_listing(pos: Position, dice: Dice, repeat: int) -> tuple[Timed, list[Play]]:
    """Best-of-``repeat`` time of one ``legal_plays`` call (the min filters scheduler noise)."""
    clock = time.perf_counter_ns
    start = clock()
    plays = legal_plays(pos, dice)
    best = clock() - start
    # A chain listing is not repeated: the engine memoises Express lookaheads across calls, so a
    # repeat would time the memo (cold timings use ``engine_cold_once``).
    if best < REPEAT_BELOW_NS and not isinstance(dice, ChainDice):
        for _ in range(repeat - 1):
            start = clock()
            legal_plays(pos, dice)
            best = min(best, clock() - start)
    return Timed(pos, dice, best, len(plays)), plays


def time_engine(cases: Sequence[tuple[Position, Dice]], repeat: int) -> list[Timed]:
    return [time_listing(pos, dice, repeat)[0] for pos, dice in cases]


def engine_once(t: Timed) -> int:
    start = time.perf_counter_ns()
    legal_plays(t.pos, t.dice)
    return time.perf_counter_ns() - start


def clear_engine_caches() -> bool:
    """Forget the engine's memos of Express run lengths; False if the engine has none."""
    from engine import express

    clear = getattr(express, "clear_caches", None)
    if clear is not None:
        clear()
        return True
    # An older engine (compared in the same run from a worktree) has only this memo.
    memo = getattr(express, "_memo", None)
    if isinstance(memo, dict):
        memo.clear()
        return True
    return False


def engine_cold_once(t: Timed) -> int:
    """One listing with empty engine caches (for a chain decision: its whole lookahead)."""
    clear_engine_caches()
    return engine_once(t)


#: The slowest share of a set is timed again after the pass, TAIL_REPEAT more times.
TAIL_SHARE = 0.03
TAIL_REPEAT = 5
#: Tail listings slower than this are not re-timed (too costly; noise is small beside them).
RETIME_BELOW_NS = 100_000_000


def retime_tail(samples: Sequence[Timed], once: Callable[[Timed], int]) -> None:
    """Re-time the slowest listings later, keeping the best of all timings.

    On a shared machine a burst of load can hit all repeats of one listing in a row and put a
    fast position in the tail; timing it again at another moment removes those, so p99 and the
    worst reflect slow positions rather than a busy machine.
    """
    count = max(10, math.ceil(TAIL_SHARE * len(samples)))
    for t in sorted(samples, key=lambda t: t.ns, reverse=True)[:count]:
        if t.ns < RETIME_BELOW_NS:
            for _ in range(TAIL_REPEAT):
                t.ns = min(t.ns, once(t))


def warm_up(cases: Sequence[tuple[Position, Dice]]) -> None:
    for pos, dice in cases[:200]:
        legal_plays(pos, dice)
