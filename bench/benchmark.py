"""Strength without luck: every level's error rate on the benchmark of each variant.

Run from the project root: ``.venv/bin/python -m bench.benchmark [--smoke] [--variants ...]
[--levels ...] [--limit N]``. Prints, per variant, each player's error rate (mean equity lost
per decision against the rollout's best, thousandths of a game, 95 % interval), its loss in the
variant's unit, the share of blunders and the two targets of issue 37 (``ai.benchmark_score``).
Reads ``ai/benchmarks/<variant>.jsonl`` (``python -m ai benchmark build`` makes them).

``--smoke`` (CI): builds a two-decision benchmark of two variants in a temporary folder (short
truncated rollouts) and scores every player on it: the whole path, in seconds.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import ai  # noqa: F401  (numpy thread limits before numpy works)
from ai.benchmark import BENCHMARK_DIR, VARIANTS, Settings, build, path_for, read_benchmark
from ai.benchmark_score import LEVEL_NAMES, print_scores, score_variant


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def score(variants: list[str], levels: list[str], directory: Path, limit: int) -> None:
    for variant_id in variants:
        decisions = read_benchmark(path_for(variant_id, directory))
        if limit:
            decisions = decisions[:limit]
        if not decisions:
            print(f"\n== {variant_id}: no benchmark in {directory}")
            continue
        started = time.perf_counter()
        scores = score_variant(variant_id, decisions, levels)
        print_scores(variant_id, len(decisions), scores)
        print(f"({time.perf_counter() - started:.1f}s, load {load()})")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a tiny benchmark built and scored")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument("--levels", nargs="+", choices=LEVEL_NAMES, default=list(LEVEL_NAMES))
    parser.add_argument("--limit", type=int, default=0, help="only the first N decisions")
    args = parser.parse_args(argv)
    print(f"load average before: {load()}")
    if args.smoke:
        tiny = Settings(per_game=2, screen=2, truncate=1, max_blocks=1)
        pairs = (("beginner", "strong"),)
        with tempfile.TemporaryDirectory() as folder:
            directory = Path(folder)
            variants = ["pin", "blocking-express"]
            for variant_id in variants:
                build(variant_id, 2, tiny, directory=directory, pairs=pairs, log=lambda _: None)
            score(variants, args.levels, directory, 0)
    else:
        score(args.variants, args.levels, BENCHMARK_DIR, args.limit)
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
