"""Is "learned 0-ply beats hand 0-ply" robust to the referee? (issue 37)

Run from the project root: ``.venv/bin/python -m bench.benchmark_crosscheck [--smoke]
[--variants ...] [--levels ...]``. For each variant it scores the players on the cross-check
(``ai/benchmarks/crosscheck/<variant>.jsonl``: the benchmark's first decisions rolled out again
with the hand evaluation playing and valuing the trials, ``python -m ai benchmark crosscheck``)
and on the same decisions of the benchmark itself (the learned evaluation refereeing), and
prints both error rates with their 95 % intervals (over games), the paired difference
learned-0ply minus hand-0ply under each referee and how often the two referees agree on the
best play.

``--smoke`` (CI): builds a two-decision benchmark of two variants in a temporary folder,
cross-checks it with short truncated rollouts and scores it: the whole path, in seconds.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import ai  # noqa: F401  (numpy thread limits before numpy works)
from ai.benchmark import BENCHMARK_DIR, VARIANTS, Decision, Settings, build, path_for
from ai.benchmark import read_benchmark as read_decisions
from ai.benchmark_crosscheck import (
    CROSSCHECK_DIR,
    CrosscheckSettings,
    crosscheck,
    originals_of,
)
from ai.benchmark_score import (
    HAND_0PLY,
    LEARNED_0PLY,
    LEVEL_NAMES,
    LevelScore,
    paired,
    score_variant,
)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _verdict(low: float, high: float) -> str:
    return "holds" if high < 0 else ("fails" if low > 0 else "undecided")


def _line(name: str, scores: list[LevelScore]) -> None:
    by_level = {s.level: s for s in scores}
    cells = [
        f"{s.level} {s.error_rate:.1f} ({s.low:.1f} .. {s.high:.1f})"
        for s in scores
        if s.level in by_level
    ]
    print(f"  {name:<22}" + "   ".join(cells))
    if LEARNED_0PLY in by_level and HAND_0PLY in by_level:
        mean, low, high = paired(by_level[LEARNED_0PLY], by_level[HAND_0PLY])
        print(
            f"  {'':<22}learned-0ply - hand-0ply = {mean:.1f} ({low:.1f} .. {high:.1f}): "
            f"{_verdict(low, high)}"
        )


def agreement(checked: list[Decision], originals: list[Decision]) -> float:
    """The share of decisions where both referees rank the same play first."""
    pairs = zip(checked, originals, strict=True)
    same = sum(c.candidates[0][0] == o.candidates[0][0] for c, o in pairs)
    return same / len(checked)


def report(variant_id: str, levels: list[str], directory: Path, source: Path) -> None:
    checked = read_decisions(path_for(variant_id, directory))
    if not checked:
        print(f"\n== {variant_id}: no cross-check in {directory}")
        return
    started = time.perf_counter()
    originals = originals_of(variant_id, checked, source)
    games = len({d.source.get("game") for d in checked})
    trials = sum(d.trials for d in checked) / len(checked)
    candidates = sum(len(d.candidates) for d in checked) / len(checked)
    print(
        f"\n== {variant_id}: {len(checked)} decisions from {games} games; cross-check "
        f"{candidates:.2f} candidates, {trials:.0f} trials on average "
        f"(error rates: thousandths of a game per decision, 95 % interval over games)"
    )
    _line("hand referee:", score_variant(variant_id, checked, levels))
    _line("learned referee:", score_variant(variant_id, originals, levels))
    print(
        f"  referees agree on the best play in {100 * agreement(checked, originals):.0f} % "
        f"({time.perf_counter() - started:.1f}s, load {load()})"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a tiny cross-check built and scored")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    parser.add_argument(
        "--levels", nargs="+", choices=LEVEL_NAMES, default=[LEARNED_0PLY, HAND_0PLY]
    )
    args = parser.parse_args(argv)
    print(f"load average before: {load()}")
    if args.smoke:
        tiny = Settings(per_game=2, screen=2, truncate=1, max_blocks=1)
        tiny_check = CrosscheckSettings(decisions=2, screen=1, truncate=1, max_blocks=1)
        with tempfile.TemporaryDirectory() as folder:
            source, directory = Path(folder), Path(folder) / "crosscheck"
            variants = ["pin", "blocking-express"]
            for variant_id in variants:
                build(
                    variant_id,
                    2,
                    tiny,
                    directory=source,
                    pairs=(("beginner", "strong"),),
                    log=lambda _: None,
                )
                crosscheck(
                    variant_id, tiny_check, source=source, directory=directory, log=lambda _: None
                )
                report(variant_id, args.levels, directory, source)
    else:
        for variant_id in args.variants:
            report(variant_id, args.levels, CROSSCHECK_DIR, BENCHMARK_DIR)
    print(f"load average after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
