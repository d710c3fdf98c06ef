"""``python -m ai benchmark build|score|crosscheck``: build a variant's strength benchmark,
score the levels on it, or re-roll its decisions refereed by the hand evaluation
(``ai.benchmark``, ``ai.benchmark_score``, ``ai.benchmark_crosscheck``)."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from ai.benchmark import (
    BENCHMARK_DIR,
    VARIANTS,
    Settings,
    annotate,
    build,
    iter_variants,
    path_for,
    read_benchmark,
    write_meta,
)


def _until(text: str | None) -> float | None:
    """A wall-clock time HH:MM (UTC, today) as a timestamp."""
    if text is None:
        return None
    hour, minute = (int(x) for x in text.split(":"))
    now = datetime.now(UTC)
    return now.replace(hour=hour, minute=minute, second=0, microsecond=0).timestamp()


def _print(line: str) -> None:
    print(line, flush=True)


def _round_robin(
    variants: Sequence[str],
    directory: Path,
    stop_at: float | None,
    grow: Callable[[str], int],
    noted: Callable[[str], None],
) -> int:
    """Grow each variant's file by a chunk in turn (``grow``, then ``noted`` writes its meta),
    so every variant grows while the time lasts; stop when none grew or at ``stop_at``."""
    while True:
        progressed = False
        for variant_id in variants:
            if stop_at is not None and time.time() >= stop_at:
                return 0
            before = len(read_benchmark(path_for(variant_id, directory)))
            have = grow(variant_id)
            noted(variant_id)
            progressed = progressed or have > before
        if not progressed:
            return 0


def build_main(args: argparse.Namespace) -> int:
    settings = Settings(
        per_game=args.per_game,
        screen=args.screen,
        truncate=args.truncate,
        max_blocks=args.max_blocks,
        seed=args.seed,
    )
    directory = Path(args.dir)
    variants = list(iter_variants(args.variant))
    command = (
        f"python -m ai benchmark build --variant {{variant}} --decisions {args.decisions} "
        f"--per-game {settings.per_game} --screen {settings.screen} --truncate "
        f"{settings.truncate} --max-blocks {settings.max_blocks} --seed {settings.seed}"
    )
    stop_at = _until(args.until)
    return _round_robin(
        variants,
        directory,
        stop_at,
        lambda variant_id: build(
            variant_id,
            args.decisions,
            settings,
            directory=directory,
            stop_at=stop_at,
            add=args.chunk,
            log=_print,
        ),
        lambda variant_id: write_meta(
            variant_id, settings, command.format(variant=variant_id), directory
        ),
    )


def crosscheck_main(args: argparse.Namespace) -> int:
    from ai.benchmark_crosscheck import CrosscheckSettings, crosscheck
    from ai.benchmark_crosscheck import write_meta as write_crosscheck_meta

    settings = CrosscheckSettings(
        decisions=args.decisions,
        screen=args.screen,
        truncate=args.truncate,
        max_blocks=args.max_blocks,
        seed=args.seed,
    )
    source, directory = Path(args.source), Path(args.dir)
    variants = list(iter_variants(args.variant))
    command = (
        f"python -m ai benchmark crosscheck --variant {{variant}} --decisions "
        f"{settings.decisions} --screen {settings.screen} --truncate {settings.truncate} "
        f"--max-blocks {settings.max_blocks} --seed {settings.seed}"
    )
    stop_at = _until(args.until)
    return _round_robin(
        variants,
        directory,
        stop_at,
        lambda variant_id: crosscheck(
            variant_id,
            settings,
            source=source,
            directory=directory,
            stop_at=stop_at,
            add=args.chunk,
            log=_print,
        ),
        lambda variant_id: write_crosscheck_meta(
            variant_id, settings, command.format(variant=variant_id), source, directory
        ),
    )


def score_main(args: argparse.Namespace) -> int:
    from ai.benchmark_score import LEVEL_NAMES, print_scores, score_variant

    levels = args.levels.split(",") if args.levels else list(LEVEL_NAMES)
    unknown = [lv for lv in levels if lv not in LEVEL_NAMES]
    if unknown:
        print(f"unknown levels {unknown}; levels: {', '.join(LEVEL_NAMES)}", file=sys.stderr)
        return 2
    for variant_id in iter_variants(args.variant):
        decisions = read_benchmark(path_for(variant_id, Path(args.dir)))
        if args.limit:
            decisions = decisions[: args.limit]
        if not decisions:
            print(f"{variant_id}: no benchmark ({path_for(variant_id, Path(args.dir))})")
            continue
        scores = score_variant(variant_id, decisions, levels)
        print_scores(variant_id, len(decisions), scores)
    return 0


def annotate_main(args: argparse.Namespace) -> int:
    for variant_id in iter_variants(args.variant):
        added = annotate(path_for(variant_id, Path(args.dir)))
        print(f"{variant_id}: the worth stored in {added} more decisions")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m ai benchmark", description=__doc__)
    sub = top.add_subparsers(dest="action", required=True)
    b = sub.add_parser("build", help="append rolled-out decisions (continues a killed run)")
    b.add_argument("--variant", default="all", help=f"one of {', '.join(VARIANTS)}, or all")
    b.add_argument("--decisions", type=int, default=500, help="decisions wanted per variant")
    b.add_argument("--chunk", type=int, default=10, help="decisions per variant per round")
    b.add_argument("--until", help="stop at this UTC time, HH:MM")
    defaults = Settings()
    b.add_argument("--per-game", type=int, default=defaults.per_game)
    b.add_argument("--screen", type=int, default=defaults.screen)
    b.add_argument("--truncate", type=int, default=defaults.truncate)
    b.add_argument("--max-blocks", type=int, default=defaults.max_blocks)
    b.add_argument("--seed", type=int, default=defaults.seed)
    b.add_argument("--dir", default=str(BENCHMARK_DIR))
    from ai.benchmark_crosscheck import CROSSCHECK_DIR, CrosscheckSettings

    c = sub.add_parser(
        "crosscheck", help="re-roll a benchmark's first decisions refereed by the hand evaluation"
    )
    crossed = CrosscheckSettings()
    c.add_argument("--variant", default="all", help=f"one of {', '.join(VARIANTS)}, or all")
    c.add_argument("--decisions", type=int, default=crossed.decisions, help="the first N")
    c.add_argument("--chunk", type=int, default=5, help="decisions per variant per round")
    c.add_argument("--until", help="stop at this UTC time, HH:MM")
    c.add_argument("--screen", type=int, default=crossed.screen)
    c.add_argument("--truncate", type=int, default=crossed.truncate)
    c.add_argument("--max-blocks", type=int, default=crossed.max_blocks)
    c.add_argument("--seed", type=int, default=crossed.seed)
    c.add_argument("--source", default=str(BENCHMARK_DIR), help="the benchmark's folder")
    c.add_argument("--dir", default=str(CROSSCHECK_DIR))
    s = sub.add_parser("score", help="each level's error rate on the benchmark")
    s.add_argument("--variant", default="all")
    s.add_argument("--levels", help="comma-separated (default: all)")
    s.add_argument("--limit", type=int, default=0, help="only the first N decisions")
    s.add_argument("--dir", default=str(BENCHMARK_DIR))
    a = sub.add_parser(
        "annotate", help="store each decision's worth where a line lacks it (no build running)"
    )
    a.add_argument("--variant", default="all")
    a.add_argument("--dir", default=str(BENCHMARK_DIR))
    return top


def main(argv: Sequence[str]) -> int:
    args = parser().parse_args(list(argv))
    try:
        if args.action == "build":
            return build_main(args)
        if args.action == "annotate":
            return annotate_main(args)
        if args.action == "crosscheck":
            return crosscheck_main(args)
        return score_main(args)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def quoted(argv: Sequence[str]) -> str:
    return " ".join(shlex.quote(a) for a in argv)
