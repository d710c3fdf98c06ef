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
import pstats
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench._movegen_classic import (
    MAX_PLIES,
    ClassicCase,
    classic_cases,
    compare,
    load_pyspiel,
    openspiel_once,
    os_turn_raw,
    os_turn_strings,
    time_interleaved,
)
from bench._movegen_timing import (
    CLASSIC_TARGET,
    DOUBLES_TARGET,
    EXPRESS_TARGET,
    REPEAT_BELOW_NS,
    SLOWEST_TARGET,
    TAIL_REPEAT,
    TAIL_SHARE,
    VARIANT_TARGET,
    Row,
    Timed,
    clear_engine_caches,
    engine_cold_once,
    engine_once,
    print_slowest,
    print_table,
    retime_rows,
    summary,
    time_listing,
    warm_up,
)
from engine import (
    ChainDice,
    Dice,
    Position,
    Roll,
    format_position,
    legal_plays,
    native,
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


# --- classic benchmark ------------------------------------------------------------------------


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
    print(f"engine: {native.describe()} (BG_PURE_ENGINE=1 for the pure-Python one)")
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
