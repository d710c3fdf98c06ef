"""Move-generation speed: microseconds per full-turn listing of all distinct legal plays.

Run from the project root: ``.venv/bin/python -m bench.movegen [--quick | --smoke]``.
Prints figures only; nothing here passes or fails (the "target" column just compares with the
targets from the issue). Deterministic: every position comes from seeded random self-play.

Classic is compared with OpenSpiel's backgammon (``pip install -r requirements-bench.txt``) on
the very same positions and dice; without pyspiel that comparison is skipped. OpenSpiel's cost
of a turn is "distinct full turns": list the actions, apply each (a double's two halves are
expanded), deduplicate the resulting states - the same product as ``legal_plays``. "Raw action
listing" (actions only, duplicates kept, no results) is printed as a lower bound.

Classic sampling: random self-play from the opening, driven through OpenSpiel and the engine
in lockstep (so both hold the same position; each play is uniform over the distinct results
both allow). Each game samples a decision every 4-12 plies (uniform, seeded) and keeps it
unless a side is bearing off (a checker borne off, or all of its checkers home); a game stops
once a checker is borne off. The dice are the roll of that turn. Without pyspiel the plays are
drawn from the engine alone, so the positions differ from a run with it.

Other variants: seeded random play through ``GameState``; each decision is kept with a fixed
chance (all of them in Blocking Express), see ``variant_timings``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import math
import pstats
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import (
    ChainDice,
    Dice,
    Play,
    Position,
    Roll,
    format_position,
    legal_plays,
    parse_position,
)
from engine.game import GAME_OVER, MATCH_OVER, MOVE, ROLL, GameState
from engine.variants import get_variant

SEED = 20240611
ALL_VARIANTS = (
    "classic",
    "pin",
    "pin-mother",
    "blocking",
    "blocking-express",
    "dutch",
    "neverfinishing",
)
#: A random-play game longer than this is abandoned (NeverFinishing can run for a long time).
MAX_PLIES = 3000

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


# --- OpenSpiel --------------------------------------------------------------------------------

_ROLL = re.compile(r"roll: (\d)(\d)")


def load_pyspiel() -> Any | None:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    return pyspiel


def os_turn_strings(state: Any) -> set[str]:
    """OpenSpiel's distinct full-turn results: the timed unit of work on the OpenSpiel side.

    A double is two actions of two moves each; every first half is cloned, applied and
    expanded into its second halves. Results are deduplicated by the state text, which after a
    completed turn holds only the board, bar, borne-off counts and the previous player.
    """
    mover = state.current_player()
    seen: set[str] = set()
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if child.current_player() == mover:
            for second in child.legal_actions():
                grandchild = child.clone()
                grandchild.apply_action(second)
                seen.add(str(grandchild))
        else:
            seen.add(str(child))
    return seen


def os_turn_raw(state: Any) -> int:
    """OpenSpiel's action listing without building the distinct results (a lower bound)."""
    mover = state.current_player()
    actions = state.legal_actions()
    if not actions:
        return 0
    first = state.clone()
    first.apply_action(actions[0])
    if first.current_player() != mover:
        return len(actions)
    total = 0
    for action in actions:
        child = state.clone()
        child.apply_action(action)
        total += len(child.legal_actions())
    return total


def os_turn_detailed(state: Any) -> dict[str, tuple[Any, str]]:
    """Like ``os_turn_strings`` but keeps each result state and its action text (not timed)."""
    mover = state.current_player()
    out: dict[str, tuple[Any, str]] = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        text = state.action_to_string(mover, action)
        if child.current_player() == mover:
            for second in child.legal_actions():
                grandchild = child.clone()
                grandchild.apply_action(second)
                both = f"{text} + {child.action_to_string(mover, second)}"
                out.setdefault(str(grandchild), (grandchild, both))
        else:
            out.setdefault(str(child), (child, text))
    return out


BoardKey = tuple[tuple[int, ...], tuple[int, ...], int, int]


def os_key(state: Any) -> BoardKey:
    """OpenSpiel board as (player-0 counts, player-1 counts, bars); off follows from them."""
    return (
        tuple(state.board(0, i) for i in range(24)),
        tuple(state.board(1, i) for i in range(24)),
        state.board(0, 100),  # OpenSpiel's kBarPos
        state.board(1, 100),
    )


def engine_key(pos: Position, mover: int) -> BoardKey:
    """The same key for an engine position seen by OpenSpiel player ``mover``.

    OpenSpiel index i is player 0's point 24 - i and player 1's point i + 1.
    """
    pts = pos.points
    if mover == 0:
        mine = tuple(pts[24 - i].count("X") for i in range(24))
        theirs = tuple(pts[24 - i].count("O") for i in range(24))
        return (mine, theirs, pos.bar[0], pos.bar[1])
    mine = tuple(pts[i + 1].count("X") for i in range(24))
    theirs = tuple(pts[i + 1].count("O") for i in range(24))
    return (theirs, mine, pos.bar[1], pos.bar[0])


def chance_action(state: Any, a: int, b: int, opening: bool) -> int:
    """The chance outcome giving dice (a, b); the opening always lets player 0 start."""
    for action, _ in state.chance_outcomes():
        text = state.action_to_string(-1, action)
        m = _ROLL.search(text)
        assert m is not None, text
        if opening:
            if "X starts" in text and {int(m.group(1)), int(m.group(2))} == {a, b}:
                return int(action)
        elif (int(m.group(1)), int(m.group(2))) == (a, b):
            return int(action)
    raise ValueError(f"no chance outcome for {a}{b}")


# --- classic sampling -------------------------------------------------------------------------


@dataclass
class ClassicCase:
    pos: Position
    roll: Roll
    mover: int
    os_state: Any  # OpenSpiel state at the same decision, or None without pyspiel


def bearing_off(pos: Position) -> bool:
    """A side has borne off or has every checker in its home board."""
    if pos.off[0] or pos.off[1]:
        return True
    pts = pos.points
    x_home = pos.bar[0] == 0 and all("X" not in pts[p] for p in range(7, 25))
    o_home = pos.bar[1] == 0 and all("O" not in pts[p] for p in range(1, 19))
    return x_home or o_home


def classic_cases(count: int, seed: int, pyspiel: Any | None) -> tuple[list[ClassicCase], int]:
    """Sampled mid-game classic decisions; also returns how many games were played."""
    rng = random.Random(seed)
    cases: list[ClassicCase] = []
    games = 0
    game = pyspiel.load_game("backgammon") if pyspiel is not None else None
    start = get_variant("classic").initial_position()
    while len(cases) < count:
        games += 1
        pos = start
        mover = 0
        os_state = game.new_initial_state() if game is not None else None
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        while a == b:
            a, b = rng.randint(1, 6), rng.randint(1, 6)
        opening = True
        next_sample = rng.randint(4, 12)
        for ply in range(MAX_PLIES):
            if os_state is not None:
                os_state.apply_action(chance_action(os_state, a, b, opening))
            opening = False
            roll = Roll.of(a, b)
            if ply == next_sample:
                next_sample += rng.randint(4, 12)
                if not bearing_off(pos):
                    snapshot = os_state.clone() if os_state is not None else None
                    cases.append(ClassicCase(pos, roll, mover, snapshot))
                    if len(cases) == count:
                        break
            plays = legal_plays(pos, roll)
            chosen, os_state = choose_classic(rng, plays, mover, os_state)
            if chosen is None:
                break  # the two rule sets disagree on every play: leave this game
            after = chosen.after
            if after.off[0] or (os_state is not None and os_state.is_terminal()):
                break  # bearing off has started: no more mid-game samples in this game
            pos = after.flip()
            mover = 1 - mover
            a, b = rng.randint(1, 6), rng.randint(1, 6)
    return cases, games


def choose_classic(
    rng: random.Random, plays: list[Play], mover: int, os_state: Any | None
) -> tuple[Play | None, Any | None]:
    """A uniformly random play that both engines allow, and OpenSpiel's state after it."""
    if os_state is None:
        return rng.choice(plays), None
    by_key = {engine_key(p.after, mover): p for p in plays}
    results = list(os_turn_detailed(os_state).values())
    rng.shuffle(results)
    for child, _ in results:
        play = by_key.get(os_key(child))
        if play is not None:
            return play, child
    return None, None


# --- classic benchmark ------------------------------------------------------------------------


@dataclass
class Disagreement:
    case: ClassicCase
    engine_only: list[str]
    openspiel_only: list[str]
    engine_count: int
    openspiel_count: int


def compare(cases: Sequence[ClassicCase]) -> tuple[int, int, int, int, list[Disagreement]]:
    """Engine vs OpenSpiel: (same board, text dedupe exact, equal counts, equal sets, misses).

    "Text dedupe exact" checks that deduplicating OpenSpiel's results by state text (as the
    timed ``os_turn_strings`` does) gives as many results as deduplicating by board.
    """
    consistent = text_keyed = equal_counts = equal_sets = 0
    bad: list[Disagreement] = []
    for case in cases:
        if engine_key(case.pos, case.mover) == os_key(case.os_state):
            consistent += 1
        plays = legal_plays(case.pos, case.roll)
        mine = {engine_key(p.after, case.mover): p.text for p in plays}
        detailed = os_turn_detailed(case.os_state)
        theirs = {os_key(child): text for child, text in detailed.values()}
        text_keyed += len(detailed) == len(theirs)
        equal_counts += len(mine) == len(theirs)
        if mine.keys() == theirs.keys():
            equal_sets += 1
        else:
            bad.append(
                Disagreement(
                    case,
                    sorted(mine[k] for k in mine.keys() - theirs.keys()),
                    sorted(theirs[k] for k in theirs.keys() - mine.keys()),
                    len(mine),
                    len(theirs),
                )
            )
    return consistent, text_keyed, equal_counts, equal_sets, bad


def time_interleaved(
    cases: Sequence[ClassicCase], repeat: int, works: Sequence[Callable[[ClassicCase], object]]
) -> list[list[Timed]]:
    """Best-of-``repeat`` times of each of ``works`` per case, one case at a time.

    Timing the engine and OpenSpiel back to back on each position keeps their ratio fair when
    the machine's load drifts during the run.
    """
    clock = time.perf_counter_ns
    out: list[list[Timed]] = [[] for _ in works]
    for case in cases:
        for work, timed in zip(works, out, strict=True):
            best = None
            for _ in range(repeat):
                start = clock()
                work(case)
                elapsed = clock() - start
                if best is None or elapsed < best:
                    best = elapsed
            assert best is not None
            timed.append(Timed(case.pos, case.roll, best, 0, case.os_state))
    return out


def openspiel_once(work: Callable[[Any], object]) -> Callable[[Timed], int]:
    def once(t: Timed) -> int:
        start = time.perf_counter_ns()
        work(t.state)
        return time.perf_counter_ns() - start

    return once


def bench_classic(args: argparse.Namespace, pyspiel: Any | None) -> None:
    count = 300 if args.quick else args.positions
    t0 = time.perf_counter()
    cases, games = classic_cases(count, args.seed, pyspiel)
    doubles = sum(c.roll.is_double for c in cases)
    print(
        f"== classic: {len(cases)} mid-game decisions from {games} seeded random games "
        f"({doubles} doubles), sampled in {time.perf_counter() - t0:.1f}s"
    )
    engine_cases: list[tuple[Position, Dice]] = [(c.pos, c.roll) for c in cases]
    warm_up(engine_cases)
    works: list[Callable[[ClassicCase], object]] = [lambda c: legal_plays(c.pos, c.roll)]
    if pyspiel is not None:
        works += [lambda c: os_turn_strings(c.os_state), lambda c: os_turn_raw(c.os_state)]
        for case in cases[:200]:
            os_turn_strings(case.os_state)
    gc.collect()
    timings = time_interleaved(cases, args.repeat, works)
    engine = timings[0]
    for t in engine:
        t.plays = len(legal_plays(t.pos, t.dice))
    rows = [
        Row("engine legal_plays", engine, CLASSIC_TARGET, engine_once),
        Row("engine, non-doubles", [t for t in engine if not t.dice.is_double], once=engine_once),
        Row("engine, doubles", [t for t in engine if t.dice.is_double], once=engine_once),
    ]
    distinct: list[Timed] = []
    raw: list[Timed] = []
    if pyspiel is not None:
        distinct, raw = timings[1], timings[2]
        for t, e in zip(distinct, engine, strict=True):
            t.plays = e.plays  # same positions; the counts are compared separately below
        d_once, r_once = openspiel_once(os_turn_strings), openspiel_once(os_turn_raw)
        rows += [
            Row("openspiel distinct full turns", distinct, once=d_once),
            Row(
                "openspiel, non-doubles",
                [t for t in distinct if not t.dice.is_double],
                once=d_once,
            ),
            Row("openspiel, doubles", [t for t in distinct if t.dice.is_double], once=d_once),
            Row("openspiel raw action listing", raw, once=r_once),
        ]
    retime_rows(rows)
    print_table(rows)
    if distinct:
        e_med, e_mean, _, _ = summary(engine)
        d_med, d_mean, _, _ = summary(distinct)
        r_med, r_mean, _, _ = summary(raw)
        print(
            f"ratio engine/openspiel (distinct full turns): mean {e_mean / d_mean:.2f}x, "
            f"median {e_med / d_med:.2f}x   (target: mean within 2x)"
        )
        print(
            f"ratio engine/openspiel (raw action listing):  mean {e_mean / r_mean:.2f}x, "
            f"median {e_med / r_med:.2f}x"
        )
        report_comparison(cases, args.show)
    else:
        print("OpenSpiel skipped (--no-openspiel, or no pyspiel: see requirements-bench.txt)")
    print_slowest("classic listings", engine)
    if args.profile:
        profile_classic(engine_cases)


def report_comparison(cases: Sequence[ClassicCase], show: int) -> None:
    consistent, text_keyed, equal_counts, equal_sets, bad = compare(cases)
    n = len(cases)
    print(
        f"equivalence on all {n} positions: same board in both {consistent}/{n}; "
        f"OpenSpiel text dedupe = board dedupe {text_keyed}/{n}; "
        f"same number of distinct results {equal_counts}/{n} ({100 * equal_counts / n:.2f}%); "
        f"same set of results {equal_sets}/{n} ({100 * equal_sets / n:.2f}%)"
    )
    for d in bad[:show]:
        print(f"  disagreement: {format_position(d.case.pos, d.case.roll)}")
        print(f"    engine {d.engine_count} results, OpenSpiel {d.openspiel_count} results")
        print(f"    only engine:    {'; '.join(d.engine_only) or '-'}")
        print(f"    only OpenSpiel: {'; '.join(d.openspiel_only) or '-'}")


def profile_classic(cases: Sequence[tuple[Position, Dice]]) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    for pos, dice in cases:
        legal_plays(pos, dice)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(15)
    print(f"cProfile of {len(cases)} classic listings, top 15 by cumulative time:")
    print(out.getvalue())


# --- other variants ---------------------------------------------------------------------------


def variant_timings(
    variant: str, count: int, seed: int, keep: float, repeat: int
) -> tuple[list[Timed], list[Timed], int]:
    """Timed decisions from seeded random play through GameState.

    Every decision is listed once, timed, and a random play of that listing is made; a decision
    is kept with chance ``keep`` (spreading the sample over more games: openings, middles and
    ends) and a kept fast listing is timed ``repeat`` times in all, keeping the best. A kept
    chain decision is timed once as met in play (engine memo as the game left it) and then
    once more cold. Returns (as met, chain decisions cold, number of games).
    """
    rng = random.Random(seed)
    keep_rng = random.Random(seed + 1)
    out: list[Timed] = []
    cold: list[Timed] = []
    games = 0
    while len(out) < count:
        games += 1
        state = GameState.new(variant, ("A", "B"), random.Random(seed * 1000 + games))
        for _ in range(MAX_PLIES):
            if state.phase in (GAME_OVER, MATCH_OVER):
                break
            if state.phase == ROLL:
                state = state.roll(state.mover, rng)
                continue
            if state.phase != MOVE:
                break  # cube decisions exist only in classic
            dice = state.current_dice()
            assert dice is not None
            pos = state.position_for(state.mover)
            kept = keep_rng.random() < keep
            timed, plays = time_listing(pos, dice, repeat if kept else 1)
            if kept:
                out.append(timed)
                if isinstance(dice, ChainDice):
                    again = Timed(pos, dice, 0, timed.plays)
                    again.ns = engine_cold_once(again)
                    cold.append(again)
                if len(out) >= count:
                    break
            state = state._apply(rng.choice(plays), rng, auto=False)
    return out, cold, games


def bench_variant(variant: str, args: argparse.Namespace) -> None:
    express = get_variant(variant).chains_doubles
    if express:
        count = 150 if args.quick else args.express_decisions
        keep = 1.0  # chain listings are slow: do not list decisions that are not kept
    else:
        count = 300 if args.quick else args.decisions
        keep = 0.25
    seed = args.seed + ALL_VARIANTS.index(variant)
    t0 = time.perf_counter()
    variant_timings(variant, 20 if express else 100, seed - 1000, 1.0, 1)  # warm-up: other games
    timed, cold, games = variant_timings(variant, count, seed, keep, args.repeat)
    rows = []
    if express:
        rolls = [t for t in timed if isinstance(t.dice, Roll)]
        chains = [t for t in timed if isinstance(t.dice, ChainDice)]
        rows.append(Row("express non-double rolls", rolls, VARIANT_TARGET, engine_once))
        # As met: timed once, in game order, so no re-timing (a repeat would hit the memo).
        rows.append(Row("express chain decisions, as met", chains, EXPRESS_TARGET))
        rows.append(Row("express chain decisions, cold", cold, EXPRESS_TARGET, engine_cold_once))
        forced = forced_chains(rolls, args)
        rows += forced
        slowest = slowest_known(args)
        rows.append(slowest)
        all_cold = cold + [t for row in [*forced, slowest] for t in row.samples]
        rows.append(Row("express all chain decisions, cold", all_cold, EXPRESS_TARGET))
    else:
        doubles = [t for t in timed if t.dice.is_double]
        rows.append(Row(f"{variant} all decisions", timed, VARIANT_TARGET, engine_once))
        # The p99 is over a variant's listings; for the doubles alone (with their
        # many hit/trap branches) it asks for the worst-listing bound.
        rows.append(Row(f"{variant} doubles", doubles, DOUBLES_TARGET, engine_once))
    retime_rows(rows)
    print(
        f"== {variant}: {len(timed)} decisions kept from {games} seeded random games "
        f"({time.perf_counter() - t0:.1f}s incl. sampling)"
    )
    print_table(rows)
    if express:
        print_slowest(f"{variant} non-double rolls", rows[0].samples)
        print_slowest(f"{variant} chain decisions (cold)", all_cold)
        if not clear_engine_caches():
            print("note: engine.express has no _memo to clear; 'cold' timings may be warm")
    else:
        print_slowest(f"{variant} listings", timed)


def forced_chains(rolls: Sequence[Timed], args: argparse.Namespace) -> list[Row]:
    """Chains forced to start at 1-1 and 2-2 on positions where a plain roll was played.

    These are the chain's first decisions, whose lookahead runs through every later value;
    each is timed cold (engine caches emptied), best of ``repeat`` when fast.
    """
    rng = random.Random(args.seed + 99)
    count = 20 if args.quick else args.forced
    pool = [t.pos for t in rolls]
    picked = rng.sample(pool, min(count, len(pool)))
    rows = []
    for value in (1, 2):
        dice = ChainDice(value, 4, rolled=True)
        timed = []
        for pos in picked:
            t = Timed(pos, dice, 0, len(legal_plays(pos, dice)))
            t.ns = engine_cold_once(t)
            if t.ns < REPEAT_BELOW_NS:
                for _ in range(args.repeat - 1):
                    t.ns = min(t.ns, engine_cold_once(t))
            timed.append(t)
        label = f"express forced {value}-{value} chain start, cold"
        rows.append(Row(label, timed, EXPRESS_TARGET, engine_cold_once))
    return rows


def slowest_known(args: argparse.Namespace) -> Row:
    """The slowest chain decisions found so far (``tests/engine/express_slowest.py``), cold."""
    from tests.engine.express_slowest import SLOWEST

    timed = []
    for line in SLOWEST[:1] if args.smoke else SLOWEST:
        pos, dice = parse_position(line)
        assert dice is not None
        t = Timed(pos, dice, 0, len(legal_plays(pos, dice)))
        t.ns = engine_cold_once(t)
        for _ in range(args.repeat - 1):
            t.ns = min(t.ns, engine_cold_once(t))
        timed.append(t)
    return Row("express slowest known decisions, cold", timed, SLOWEST_TARGET, engine_cold_once)


# --- main -------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer positions")
    parser.add_argument("--smoke", action="store_true", help="a few positions, seconds (CI)")
    parser.add_argument(
        "--variants",
        default=",".join(ALL_VARIANTS),
        help="comma-separated engine variant ids (default: all seven)",
    )
    parser.add_argument("--positions", type=int, default=2000, help="classic positions")
    parser.add_argument("--decisions", type=int, default=2000, help="decisions per variant")
    parser.add_argument(
        "--express-decisions", type=int, default=1000, help="blocking-express decisions"
    )
    parser.add_argument("--forced", type=int, default=100, help="forced Express chain starts")
    parser.add_argument("--repeat", type=int, default=3, help="timings per listing (best kept)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--show", type=int, default=5, help="disagreements to print")
    parser.add_argument("--no-openspiel", action="store_true", help="skip the OpenSpiel side")
    parser.add_argument("--profile", action="store_true", help="cProfile the classic listings")
    args = parser.parse_args(argv)
    if args.smoke:
        args.quick = False
        args.positions, args.decisions, args.express_decisions = 20, 20, 10
        args.forced, args.repeat = 3, 1
    args.variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in args.variants if v not in ALL_VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(unknown)}; choose from {ALL_VARIANTS}")
    return args


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    print(
        f"python {sys.version.split()[0]}, seed {args.seed}, best of {args.repeat} per listing "
        f"(under {REPEAT_BELOW_NS // 1_000_000} ms), slowest {TAIL_SHARE:.0%} re-timed "
        f"{TAIL_REPEAT} more times later"
    )
    started = time.perf_counter()
    if "classic" in args.variants:
        pyspiel = None if args.no_openspiel else load_pyspiel()
        bench_classic(args, pyspiel)
        print()
    for variant in args.variants:
        if variant != "classic":
            bench_variant(variant, args)
            print()
    print(f"total {time.perf_counter() - started:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
