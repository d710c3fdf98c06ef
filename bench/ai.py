"""Strength and speed of the computer players: matches of 1-point games, figures printed.

Run from the project root: ``.venv/bin/python -m bench.ai [MODE] [options]``.

Modes (default ``--strength``):

* ``--strength``: the strongest level against the greedy 0-ply baseline (``greedy``: the hand
  evaluation's best play, which is the ``strong`` level outside classic), in every
  variant (``--variants`` to choose), ``--games`` per variant (default 400).
* ``--levels``: each level against the next lower one (classic, pin, blocking by default).
* ``--baseline``: the baseline against a random player and a pip-count-only greedy player.
* ``--match A B``: any two players (a level, ``random``, ``pip``, ``LEVEL:weights.json``, or
  ``LEVEL:hand``: the level without the learned evaluations of ``ai/weights/``). A level may
  carry changed settings, ``LEVEL@name=value,...`` (fields of ``ai.players.LevelSpec``, e.g.
  ``expert@mix=0.5,search=8``), to measure a variation before changing ``LEVEL_SPECS``.
* ``--paired A A2 B``: ``A`` and ``A2`` each against ``B`` on the same seeded games, then the
  difference of their scores game by game with a 95 % interval. Most games end the same for
  both (the dice decide them), so the interval is several times narrower than the two
  matches' own intervals: the way to tell whether a variation of a player is better. With
  ``A2`` = ``B`` (``--paired expert greedy greedy``) it also prints A's win rate with the dice's
  luck taken out: B against itself scores 1/2 in expectation, so 1/2 + the difference estimates
  A's win rate against B, more precisely than A's own score.
* ``--fit``: self-play games of the baseline, then a logistic fit of the evaluation weights
  (written to ``--out``, default ``ai/hand_weights.py``); ``--match greedy:NEW.json greedy``
  then compares a new table with the current one.
* ``--distill``: the same fit, with the learned network's winning chance as the target instead
  of the game's result, on the positions of the network's own 0-ply self-play (``--games``
  per variant): a hand evaluation that imitates the network.
* ``--smoke``: a few games of each mode, for CI: checks the machinery, not the figures.

Every game: seeded dice (game ``i`` uses seed ``--seed + i``), seats alternating, no cube.
Printed per match: the first player's wins with a 95 % Wilson interval, points per game
(+ won, - lost, as the variant scores a game), its decision times (median / p95 / worst, ms;
forced moves excluded) and games per minute. Games run on ``--workers`` processes (default 2);
timing figures depend on the machine's load, which is printed with them.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai.arena import MAX_DECISIONS, Player, pip_player, play_game, random_player
from ai.evaluation import WeightTable, use_weights
from ai.learned import use_learned
from ai.players import BASELINE, LevelSpec, choose_play, level_spec, rank_hand
from ai.types import LEVELS, STRONGEST
from bench.calibration import mean_ci
from engine import VARIANTS, Dice, Play, Position, Variant, get_variant

ALL_VARIANTS = (
    "classic",
    "pin",
    "pin-mother",
    "blocking",
    "blocking-express",
    "dutch",
    "neverfinishing",
)
LEVEL_VARIANTS = ("classic", "pin", "blocking")
SEED = 20261123

#: The benchmark's baseline: the hand evaluation's greedy 0-ply player, in classic too (where
#: the levels play through bgsage).
GREEDY = "greedy"
_TABLES: dict[str, WeightTable] = {}


def make_player(spec: str) -> Player:
    """``random``, ``pip``, ``greedy``, a level, or ``LEVEL:path.json`` / ``greedy:path.json``
    (with another weight table)."""
    if spec == "random":
        return random_player
    if spec == "pip":
        return pip_player
    level, _, path = spec.partition(":")
    level, _, tweaks = level.partition("@")
    if level not in (*LEVELS, GREEDY):
        raise SystemExit(f"unknown player {spec!r}")
    settings = None
    if tweaks:
        settings = _tweaked(BASELINE if level == GREEDY else level, tweaks, spec)
    table: WeightTable | None = None
    learned = path != "hand"
    if path and learned:
        if path not in _TABLES:
            _TABLES[path] = json.loads(Path(path).read_text())
        table = _TABLES[path]

    def play(rules: Variant, pos: Position, dice: Dice, rng: random.Random) -> Play:
        from ai.arena import ONE_POINT

        previous = use_weights(table)
        was_learned = use_learned(learned)
        try:
            if level == GREEDY or (settings is not None and not rules.has_cube):
                at = BASELINE if level == GREEDY else level
                ranked = rank_hand(
                    rules, pos, dice, level=at, rng=rng, match=ONE_POINT, spec=settings
                )
                return ranked[0].play
            return choose_play(rules, pos, dice, level=level, rng=rng, match=ONE_POINT)
        finally:
            use_weights(previous)
            use_learned(was_learned)

    return play


def _tweaked(level: str, tweaks: str, spec: str) -> LevelSpec:
    """``level``'s settings with ``name=value,...`` changed (``ai.players.LevelSpec`` fields)."""
    base = level_spec(level)
    changes: dict[str, Any] = {}
    for item in tweaks.split(","):
        name, _, value = item.partition("=")
        if name not in LevelSpec.__dataclass_fields__ or not value:
            raise SystemExit(f"bad setting {item!r} in {spec!r}")
        current = getattr(base, name)
        try:
            if isinstance(current, bool):
                changes[name] = value.lower() in ("1", "true", "yes")
            else:
                changes[name] = type(current)(value)
        except ValueError:
            raise SystemExit(f"bad value {item!r} in {spec!r}") from None
    return dataclasses.replace(base, **changes)


@dataclass
class Outcome:
    """One game from the first player's side."""

    won: bool
    lost: bool
    points: int  # + won, - lost
    times: list[float]
    unfinished: bool
    seed: int

    @property
    def score(self) -> float:
        """1 for a win, 0 for a loss, 1/2 for a draw."""
        return 1.0 if self.won else 0.0 if self.lost else 0.5


#: Decisions per game in --smoke (an unfinished game counts as a draw there).
SMOKE_DECISIONS = 12


def _one_game(job: tuple[str, str, str, int, int, int]) -> Outcome:
    variant, a, b, seed, a_seat, cap = job
    pa, pb = make_player(a), make_player(b)
    players = (pa, pb) if a_seat == 0 else (pb, pa)
    rec = play_game(variant, players, seed, max_decisions=cap)
    won = rec.winner == a_seat
    lost = rec.winner is not None and not won
    points = rec.points if won else -rec.points if lost else 0
    # Forced decisions never reach a player (the game flow plays them), so all times count.
    return Outcome(won, lost, points, rec.times[a_seat], rec.kind == "unfinished", seed)


def _samples_game(job: tuple[str, str, int]) -> list[tuple[Position, bool]]:
    variant, level, seed = job
    player = make_player(level)
    rec = play_game(variant, (player, player), seed, record_positions=True)
    if rec.winner is None:
        return []
    keep = random.Random(seed)
    return [(pos, seat == rec.winner) for pos, seat in rec.positions if keep.random() < 0.5]


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (centre - half, centre + half)


def _pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def paired_difference(x: dict[int, float], y: dict[int, float]) -> tuple[float, float, int, int]:
    """(mean of x - y, half-width of its 95 % interval, games, games whose scores differ) over
    the games both played (score per game: 1, 1/2, 0). Each game is one paired sample, its own
    cluster for ``bench.calibration.mean_ci`` (no interval from fewer than two games: nan)."""
    keys = sorted(set(x) & set(y))
    diffs = [x[k] - y[k] for k in keys]
    mean, half = mean_ci(diffs, keys) if keys else (0.0, math.nan)
    return mean, half, len(keys), sum(d != 0 for d in diffs)


def run_paired(
    pool: Any,
    variant: str,
    a: str,
    a2: str,
    b: str,
    games: int,
    seed: int,
    log: Any = None,
    cap: int = MAX_DECISIONS,
) -> dict[str, Any]:
    """``a`` and ``a2`` each against ``b`` on the same games; prints the paired difference."""
    first = run_match(pool, variant, a, b, games, seed, log, cap)
    second = run_match(pool, variant, a2, b, games, seed, log, cap)
    mean, half, n, differing = paired_difference(first["scores"], second["scores"])
    print(
        f"{variant:17} {a} - {a2} (each v {b}), paired over {n} games: "
        f"{100 * mean:+.2f} points of win rate, 95 % [{100 * (mean - half):+.2f}, "
        f"{100 * (mean + half):+.2f}]; {differing} games ended differently",
        flush=True,
    )
    if a2 == b:
        # b against itself scores 1/2 in expectation (seats alternate: exactly 1/2 over an
        # even number of games), so 1/2 + the paired difference estimates a's win rate against
        # b without the luck of these games' dice.
        print(
            f"{variant:17} {a} v {b}, the dice's luck taken out ({b} v {b} on the same games: "
            f"{100 * second['win_rate']:.1f} %): {100 * (0.5 + mean):.1f} % "
            f"[{100 * max(0.5 + mean - half, 0.0):.1f}, {100 * min(0.5 + mean + half, 1.0):.1f}]",
            flush=True,
        )
    return {
        "variant": variant,
        "difference": mean,
        "ci95": (mean - half, mean + half),
        "games": n,
        "differing": differing,
        "first": first,
        "second": second,
    }


def run_match(
    pool: Any,
    variant: str,
    a: str,
    b: str,
    games: int,
    seed: int,
    log: Any = None,
    cap: int = MAX_DECISIONS,
) -> dict[str, Any]:
    """``games`` games of ``a`` against ``b``, seats alternating; prints and returns figures."""
    jobs = [(variant, a, b, seed + i, i % 2, cap) for i in range(games)]
    start = time.perf_counter()
    outcomes: list[Outcome] = []
    results: Iterable[Outcome] = (
        pool.imap_unordered(_one_game, jobs) if pool is not None else map(_one_game, jobs)
    )
    for outcome in results:
        outcomes.append(outcome)
        if log is not None and len(outcomes) % 50 == 0:
            w = sum(o.won for o in outcomes)
            print(f"  .. {variant} {a} v {b}: {w}/{len(outcomes)}", file=log, flush=True)
    elapsed = time.perf_counter() - start
    n = len(outcomes)
    wins = sum(o.won for o in outcomes)
    draws = sum(not o.won and not o.lost for o in outcomes)
    # A draw (dead position, tie, decision cap) counts half.
    score = wins + 0.5 * draws
    lo, hi = wilson(score, n)
    times = [t for o in outcomes for t in o.times]
    figures = {
        "variant": variant,
        "a": a,
        "b": b,
        "games": n,
        "wins": wins,
        "draws": draws,
        "win_rate": score / n if n else 0.0,
        "ci95": (lo, hi),
        "points_per_game": statistics.fmean(o.points for o in outcomes) if n else 0.0,
        "ms_median": 1000 * _pct(times, 0.5),
        "ms_p95": 1000 * _pct(times, 0.95),
        "ms_worst": 1000 * max(times, default=float("nan")),
        "games_per_min": 60.0 * n / elapsed if elapsed > 0 else 0.0,
        "decisions": len(times),
        "scores": {o.seed: o.score for o in outcomes},
    }
    print(
        f"{variant:17} {a:>13} v {b:<13} {n:5d} games  {a} wins {100 * score / max(n, 1):5.1f} % "
        f"[{100 * lo:5.1f}, {100 * hi:5.1f}]  pts/game {figures['points_per_game']:+7.2f}  "
        f"{a} ms med {figures['ms_median']:6.1f} p95 {figures['ms_p95']:6.1f} "
        f"worst {figures['ms_worst']:7.1f}  {figures['games_per_min']:6.1f} games/min",
        flush=True,
    )
    return figures


def _current_table() -> WeightTable:
    """A copy of the fitted weights in use (``ai.hand_weights``), to change and write out."""
    from ai import hand_weights

    return {k: dict(v) for k, v in hand_weights.WEIGHTS.items()}


def _write_table(table: WeightTable, out: Path) -> None:
    """``--out``: a JSON table for ``--match greedy:FILE.json``, or ``ai/hand_weights.py``."""
    from ai.tuning import write_weights

    if out.suffix == ".json":
        out.write_text(json.dumps(table, indent=1, sort_keys=True))
    else:
        write_weights(out, table)
    print(f"wrote {out}", flush=True)


def fit(pool: Any, variants: Sequence[str], games: int, seed: int, out: Path) -> None:
    from ai.tuning import fit_variant

    table = _current_table()
    for variant in variants:
        jobs = [(variant, "intermediate", seed + 7919 * i) for i in range(games)]
        start = time.perf_counter()
        chunks = pool.imap_unordered(_samples_game, jobs) if pool else map(_samples_game, jobs)
        samples = [s for chunk in chunks for s in chunk]
        table[variant] = fit_variant(variant, samples)
        took = time.perf_counter() - start
        print(f"fit {variant}: {games} games, {len(samples)} samples, {took:.0f} s", flush=True)
    _write_table(table, out)


def distill(variants: Sequence[str], games: int, seed: int, out: Path) -> None:
    from ai.learned import evaluator
    from ai.tuning import fit_variant
    from bench._selfplay import self_play

    table = _current_table()
    for variant in variants:
        start = time.perf_counter()
        rules = get_variant(variant)
        positions = [
            turn.plays[turn.chosen].after
            for turn in self_play(rules, games, seed)
            if not turn.after.is_over
        ]
        chances = evaluator(variant, True).evaluate(rules, positions)[1]
        samples = list(zip(positions, chances.tolist(), strict=True))
        table[variant] = {**table.get(variant, {}), **fit_variant(variant, samples)}
        took = time.perf_counter() - start
        print(f"distill {variant}: {games} games, {len(samples)} positions, {took:.0f} s")
    _write_table(table, out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--strength", action="store_true", help="strongest vs baseline (default)")
    mode.add_argument("--levels", action="store_true", help="each level vs the next lower")
    mode.add_argument("--baseline", action="store_true", help="baseline vs random and pip")
    mode.add_argument("--match", nargs=2, metavar=("A", "B"), help="any two players")
    mode.add_argument(
        "--paired", nargs=3, metavar=("A", "A2", "B"), help="A and A2 each v B, same games"
    )
    mode.add_argument("--fit", action="store_true", help="fit the weights on self-play")
    mode.add_argument("--distill", action="store_true", help="fit the weights to the network")
    mode.add_argument("--smoke", action="store_true", help="a few games of every mode (CI)")
    ap.add_argument("--variants", default="", help="comma-separated engine ids")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("ai/hand_weights.py"))
    ap.add_argument("--progress", action="store_true", help="progress lines on stderr")
    args = ap.parse_args(argv)

    chosen = [v for v in args.variants.split(",") if v]
    for v in chosen:
        if v not in VARIANTS:
            ap.error(f"unknown variant {v!r}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"bench/ai.py: {args.workers} worker(s), seed {args.seed}, "
        f"load average {load:.1f} on {os.cpu_count()} CPUs",
        flush=True,
    )
    log = sys.stderr if args.progress else None
    if args.smoke:
        # Every mode's code path on short games in this process (seconds, not figures).
        cap = SMOKE_DECISIONS
        for v in chosen or ALL_VARIANTS:
            run_match(None, v, STRONGEST, GREEDY, 1, args.seed, cap=cap)
        run_match(None, "pin", GREEDY, "random", 1, args.seed, cap=cap)
        run_match(None, "pin", GREEDY, "pip", 1, args.seed, cap=cap)
        run_match(None, "blocking", "intermediate", "casual", 1, args.seed, cap=cap)
        run_paired(None, "blocking", "casual", "beginner", "random", 2, args.seed, cap=cap)
        with tempfile.TemporaryDirectory() as tmp:
            distill(["blocking-express"], 1, args.seed, Path(tmp) / "distilled.json")
        return 0
    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(args.workers) if args.workers > 1 else None
    try:
        if args.fit:
            fit(
                pool,
                chosen or [v for v in ALL_VARIANTS if v != "classic"],
                args.games,
                args.seed,
                args.out,
            )
            return 0
        if args.distill:
            distill(
                chosen or [v for v in ALL_VARIANTS if v != "classic"],
                args.games,
                args.seed,
                args.out,
            )
            return 0
        if args.match:
            for v in chosen or ALL_VARIANTS:
                run_match(pool, v, args.match[0], args.match[1], args.games, args.seed, log)
            return 0
        if args.paired:
            a, a2, b = args.paired
            for v in chosen or ALL_VARIANTS:
                run_paired(pool, v, a, a2, b, args.games, args.seed, log)
            return 0
        if args.levels:
            for v in chosen or LEVEL_VARIANTS:
                for lower, upper in itertools.pairwise(LEVELS):
                    run_match(pool, v, upper, lower, args.games, args.seed, log)
            return 0
        if args.baseline:
            for v in chosen or ALL_VARIANTS:
                run_match(pool, v, GREEDY, "random", args.games, args.seed, log)
                run_match(pool, v, GREEDY, "pip", args.games, args.seed, log)
            return 0
        for v in chosen or ALL_VARIANTS:
            run_match(pool, v, STRONGEST, GREEDY, args.games, args.seed, log)
        return 0
    finally:
        if pool is not None:
            pool.close()
            pool.join()


if __name__ == "__main__":
    raise SystemExit(main())
