"""The benchmark's cross-check: the same decisions rolled out again, refereed by the hand
evaluation (issue 37).

The benchmark (``ai.benchmark``) screens each decision's candidates with the learned 0-ply
evaluation and has the same evaluation play and truncate the trials, which favours a player
that thinks like it. The cross-check biases the other way: it takes the first decisions of a
benchmark file (position and dice as they are), rolls out the union of

- the benchmark's own candidates,
- the best ``screen`` plays of the learned 0-ply evaluation (classic: bgsage's network),
- the best ``screen`` plays of the hand evaluation,

with every trial played greedily by the **hand evaluation at 0 ply**, which also values the
position where a trial is truncated (classic too: the project's own classic evaluation, through
the engine, instead of bgsage's rollouts). Blocks, stopping rule and truncation are the
benchmark's. If the learned network still beats the hand evaluation with a hand-biased referee,
"learned below hand" does not rest on the referee.

Output: ``ai/benchmarks/crosscheck/<variant>.jsonl`` in the benchmark's format (so
``ai.benchmark_score`` scores it as it is), each line's ``source`` keeping the original's plus
``index``, its line in the benchmark file; beside it ``<variant>.meta.json`` with the settings.
Every decision is appended and flushed as it is done; a run continues with the indices missing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ai.benchmark import (
    BENCHMARK_DIR,
    Decision,
    Settings,
    meta_path,
    path_for,
    read_benchmark,
    roll_decision,
    screen_values,
)
from ai.evaluation import evaluator_for
from engine import Dice, Play, Position, Variant, get_variant, legal_plays
from engine.text import parse_position

CROSSCHECK_DIR = BENCHMARK_DIR / "crosscheck"
REFEREE = "hand-0ply"


@dataclass(frozen=True)
class CrosscheckSettings:
    """How a cross-check is rolled out (kept in its meta file)."""

    #: The first this many decisions of the benchmark file.
    decisions: int = 100
    #: Best plays taken from each 0-ply evaluation (the benchmark's candidates are kept too).
    screen: int = 3
    truncate: int = 5
    block: int = 36
    max_blocks: int = 2
    separation: float = 2.0
    small_se: float = 0.01
    #: Not the benchmark's seed: the referee's dice are drawn afresh.
    seed: int = 101

    def rollout(self) -> Settings:
        return Settings(
            screen=self.screen,
            truncate=self.truncate,
            block=self.block,
            max_blocks=self.max_blocks,
            separation=self.separation,
            small_se=self.small_se,
            seed=self.seed,
        )


def _best(values: Sequence[float], count: int) -> list[int]:
    # Stable: a tie goes to the first play, as the scored players' argmax does.
    return sorted(range(len(values)), key=lambda i: -values[i])[:count]


def crosscheck_candidates(
    rules: Variant,
    pos: Position,
    dice: Dice,
    plays: Sequence[Play],
    decision: Decision,
    screen: int,
) -> list[Play]:
    """The benchmark's candidates, then the learned and the hand evaluation's best ``screen``
    plays not already among them."""
    by_text = {p.text: p for p in plays}
    chosen = [by_text[text] for text, _e, _s in decision.candidates]
    learned = screen_values(rules, pos, dice, plays)
    hand, _ = evaluator_for(rules.id).evaluate(rules, [p.after for p in plays])
    for values in (learned, [float(x) for x in hand]):
        for i in _best(values, screen):
            if plays[i] not in chosen:
                chosen.append(plays[i])
    return chosen


def done_indices(path: Path) -> set[int]:
    return {int(d.source["index"]) for d in read_benchmark(path) if "index" in d.source}


def crosscheck(
    variant_id: str,
    settings: CrosscheckSettings,
    *,
    source: Path = BENCHMARK_DIR,
    directory: Path = CROSSCHECK_DIR,
    stop_at: float | None = None,
    add: int | None = None,
    log: Callable[[str], None] = print,
) -> int:
    """Roll out the missing ones of the first ``settings.decisions`` decisions of the
    variant's benchmark in ``source`` (at most ``add`` of them, until ``stop_at``); the
    decisions the cross-check holds."""
    rules = get_variant(variant_id)
    referee = evaluator_for(variant_id)
    originals = read_benchmark(path_for(variant_id, source))[: settings.decisions]
    directory.mkdir(parents=True, exist_ok=True)
    path = path_for(variant_id, directory)
    done = done_indices(path)
    made = 0
    with path.open("a", encoding="utf-8") as out:
        for index, decision in enumerate(originals):
            if index in done:
                continue
            if add is not None and made >= add:
                break
            if stop_at is not None and time.time() >= stop_at:
                break
            started = time.monotonic()
            pos, dice = parse_position(decision.position)
            assert dice is not None
            plays = legal_plays(pos, dice, rules)
            cands = crosscheck_candidates(rules, pos, dice, plays, decision, settings.screen)
            # The rollout's seed: the decision's game and move (a hand-made file: its line).
            key = (int(decision.source.get("game", index)), int(decision.source.get("move", 0)))
            rolled, trials = roll_decision(
                rules, pos, dice, cands, settings.rollout(), key, evaluation=referee
            )
            line = {
                "variant": variant_id,
                "position": decision.position,
                "dice": decision.dice,
                "candidates": [
                    {"play": p.text, "equity": round(e, 4), "se": round(s, 4)} for p, e, s in rolled
                ],
                "trials": trials,
                "source": {**decision.source, "index": index},
                "referee": REFEREE,
            }
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())
            done.add(index)
            made += 1
            log(
                f"{variant_id} crosscheck #{index}: {len(cands)} candidates "
                f"({len(decision.candidates)} in the benchmark), {trials} trials, "
                f"{time.monotonic() - started:.1f}s"
            )
    return len(done)


def write_meta(
    variant_id: str,
    settings: CrosscheckSettings,
    command: str,
    source: Path = BENCHMARK_DIR,
    directory: Path = CROSSCHECK_DIR,
) -> None:
    decisions = read_benchmark(path_for(variant_id, directory))
    meta: dict[str, Any] = {
        "variant": variant_id,
        "decisions": len(decisions),
        "unit": get_variant(variant_id).score_unit,
        "settings": asdict(settings),
        "source": _shown(path_for(variant_id, source)),
        "candidates": "the benchmark's, plus the learned and the hand 0-ply evaluations' best "
        f"{settings.screen} each",
        "rollout": "ai.rollout generic trials, played greedily by the hand evaluation at 0 ply, "
        "which also values the truncated trials (classic too, instead of bgsage)",
        "referee": REFEREE,
        "command": command,
        "mean_trials": round(sum(d.trials for d in decisions) / len(decisions), 1)
        if decisions
        else 0,
        "mean_candidates": round(sum(len(d.candidates) for d in decisions) / len(decisions), 2)
        if decisions
        else 0,
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    meta_path(variant_id, directory).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


def _shown(path: Path) -> str:
    """``path`` from the project's root where it lies inside (a meta file must not name a
    machine's folders)."""
    root = BENCHMARK_DIR.parent.parent
    resolved = path.resolve()
    return str(resolved.relative_to(root)) if resolved.is_relative_to(root) else path.name


def originals_of(
    variant_id: str, checked: Sequence[Decision], source: Path = BENCHMARK_DIR
) -> list[Decision]:
    """The benchmark's decisions the cross-check re-rolled, in the cross-check's order."""
    originals = read_benchmark(path_for(variant_id, source))
    return [originals[int(d.source["index"])] for d in checked]
