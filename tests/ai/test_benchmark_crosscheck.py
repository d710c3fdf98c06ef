"""The benchmark's cross-check (``ai.benchmark_crosscheck``): the same decisions rolled out
again by the hand evaluation, with the learned and the hand evaluation's best plays added."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ai.benchmark import path_for, read_benchmark, screen_values
from ai.benchmark_crosscheck import (
    REFEREE,
    CrosscheckSettings,
    crosscheck,
    crosscheck_candidates,
    originals_of,
)
from ai.benchmark_score import HAND_0PLY, LEARNED_0PLY, score_variant
from ai.evaluation import evaluator_for
from ai.rollout import trial_values
from ai.types import MatchContext
from engine import Position, Variant, get_variant, legal_plays
from engine.text import parse_position

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "benchmarks"
TINY = CrosscheckSettings(decisions=2, screen=2, truncate=1, max_blocks=1)


class ConstantEvaluation:
    """Every position is worth ``value`` to X; counts the positions it is asked about."""

    def __init__(self, value: float) -> None:
        self.value = value
        self.asked = 0

    def evaluate(
        self, rules: Variant, positions: Sequence[Position], match: MatchContext | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        self.asked += len(positions)
        return np.full(len(positions), self.value), np.full(len(positions), 0.5)


def source_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "benchmarks"
    folder.mkdir()
    for variant_id in ("pin", "dutch", "classic"):
        shutil.copy(path_for(variant_id, FIXTURES), path_for(variant_id, folder))
    return folder


def test_trials_are_played_and_valued_by_the_given_evaluation() -> None:
    # An early position: no trial of one or two turns can end the game.
    pos, dice = parse_position(read_benchmark(path_for("dutch", FIXTURES))[0].position)
    rules = get_variant("dutch")
    assert dice is not None
    plays = legal_plays(pos, dice, rules)[:2]
    for truncate, sign in ((1, -1.0), (2, 1.0)):
        constant = ConstantEvaluation(0.25)
        values = trial_values(
            rules, pos, dice, plays, trials=3, truncate=truncate, seed=4, evaluation=constant
        )
        # The truncated trial is valued by the constant, from the side of whoever stands on
        # roll: the opponent after one turn, the player again after two.
        assert values == [[sign * 0.25] * 3, [sign * 0.25] * 3]
        # ... and it chose the trials' plays: more positions than the six truncations.
        assert constant.asked > 6


def test_candidates_are_the_benchmarks_plus_both_evaluations_best() -> None:
    for variant_id in ("pin", "dutch", "classic"):
        rules = get_variant(variant_id)
        for decision in read_benchmark(path_for(variant_id, FIXTURES)):
            pos, dice = parse_position(decision.position)
            assert dice is not None
            plays = legal_plays(pos, dice, rules)
            chosen = crosscheck_candidates(rules, pos, dice, plays, decision, 2)
            texts = [p.text for p in chosen]
            assert len(set(texts)) == len(texts)
            assert texts[: len(decision.candidates)] == [c[0] for c in decision.candidates]
            learned = screen_values(rules, pos, dice, plays)
            hand, _ = evaluator_for(variant_id).evaluate(rules, [p.after for p in plays])
            for values in (learned, list(hand)):
                order = sorted(range(len(plays)), key=lambda i: -values[i])
                assert {plays[i].text for i in order[:2]} <= set(texts)


def test_crosscheck_writes_the_benchmark_shape_and_resumes(tmp_path: Path) -> None:
    source = source_folder(tmp_path)
    directory = tmp_path / "crosscheck"
    have = crosscheck("pin", TINY, source=source, directory=directory, log=lambda _: None)
    assert have == 2
    path = path_for("pin", directory)
    first = path.read_text().splitlines()
    originals = read_benchmark(path_for("pin", source))
    for index, raw in enumerate(first):
        data = json.loads(raw)
        assert data["referee"] == REFEREE
        assert data["position"] == originals[index].position
        assert data["source"] == {**originals[index].source, "index": index}
        equities = [c["equity"] for c in data["candidates"]]
        assert equities == sorted(equities, reverse=True)
        assert data["trials"] == 36
    # Resuming rolls only the missing decisions; a full one does nothing.
    more = CrosscheckSettings(decisions=3, screen=2, truncate=1, max_blocks=1)
    assert crosscheck("pin", more, source=source, directory=directory, log=lambda _: None) == 3
    lines = path.read_text().splitlines()
    assert lines[:2] == first and json.loads(lines[2])["source"]["index"] == 2
    assert crosscheck("pin", more, source=source, directory=directory, log=lambda _: None) == 3
    # Scored as a benchmark: both 0-ply players' plays are among the candidates.
    checked = read_benchmark(path)
    assert [d.position for d in originals_of("pin", checked, source)] == [
        d.position for d in originals[:3]
    ]
    scores = score_variant("pin", checked, [LEARNED_0PLY, HAND_0PLY])
    assert [s.outside for s in scores] == [0, 0]


def test_command_line_crosscheck_and_meta(tmp_path: Path) -> None:
    source = source_folder(tmp_path)
    directory = tmp_path / "crosscheck"
    flags = ["--decisions", "1", "--screen", "1", "--truncate", "1", "--max-blocks", "1"]
    command = [sys.executable, "-m", "ai", "benchmark", "crosscheck", "--variant", "dutch,classic"]
    proc = subprocess.run(
        [*command, *flags, "--source", str(source), "--dir", str(directory)],
        capture_output=True,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    for variant_id in ("dutch", "classic"):
        assert len(read_benchmark(path_for(variant_id, directory))) == 1
        meta = json.loads((directory / f"{variant_id}.meta.json").read_text())
        assert meta["decisions"] == 1 and meta["referee"] == REFEREE
        assert meta["settings"]["truncate"] == 1 and meta["settings"]["screen"] == 1
        assert meta["command"].startswith(
            f"python -m ai benchmark crosscheck --variant {variant_id}"
        )
