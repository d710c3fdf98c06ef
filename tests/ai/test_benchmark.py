"""The strength benchmark (``ai.benchmark``, ``ai.benchmark_score``): the file it builds and
resumes, and error rates on hand-made benchmarks whose answers are known."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ai.benchmark import Decision, Settings, annotate, build, path_for, read_benchmark
from ai.benchmark_score import (
    HAND_0PLY,
    loss_of,
    mean_interval,
    paired,
    score_variant,
    summarise,
    wilson,
)
from ai.error_scale import BLUNDER, decision_worth
from ai.evaluation import evaluator_for
from engine import Play, Position, Roll, get_variant, legal_plays, parse_position
from engine.text import format_position

ROOT = Path(__file__).resolve().parents[2]
TINY = Settings(per_game=2, screen=2, truncate=1, max_blocks=1, seed=3)


def decision(candidates: list[tuple[str, float]]) -> Decision:
    return Decision(
        variant="blocking",
        position="",
        dice=[2, 1],
        candidates=[(t, e, 0.01) for t, e in candidates],
        trials=36,
        source={},
    )


def test_summary_of_known_losses() -> None:
    # Errors of 0, 100 and 200 thousandths of a game: mean 100, sample deviation 100.
    score = summarise("x", [0.0, 100.0, 200.0], [0.0, 0.1, 0.2], outside=1)
    half = 1.96 * 100.0 / math.sqrt(3)
    assert score.error_rate == pytest.approx(100.0)
    assert score.rating == pytest.approx(50.0)  # the review's performance rating
    assert score.low == pytest.approx(100.0 - half)
    assert score.high == pytest.approx(100.0 + half)
    assert score.raw == pytest.approx(0.1)
    assert score.blunders == pytest.approx(2 / 3)  # 100 and 200 are at least BLUNDER
    assert score.blunders_low < 2 / 3 < score.blunders_high
    assert score.outside == 1


def test_blunder_threshold_is_inclusive() -> None:
    score = summarise("x", [BLUNDER, BLUNDER * 0.99], [0.0, 0.0], outside=0)
    assert score.blunders == 0.5


def test_intervals() -> None:
    mean, low, high = mean_interval([1.0, 3.0])
    assert (mean, low, high) == pytest.approx((2.0, 2.0 - 1.96, 2.0 + 1.96))
    low, high = wilson(0, 10)
    assert low == 0.0 and 0.25 < high < 0.35  # the Wilson interval of 0/10 is 0 .. 0.278
    low, high = wilson(10, 10)
    assert high == 1.0 and 0.65 < low < 0.75


def test_paired_difference() -> None:
    a = summarise("a", [100.0, 200.0], [0.1, 0.2], 0)
    b = summarise("b", [300.0, 400.0], [0.3, 0.4], 0)
    mean, low, high = paired(a, b, 0.5)
    # 100 - 150 and 200 - 200: mean -25.
    assert mean == pytest.approx(-25.0)
    assert low < mean < high


def test_loss_in_and_outside_the_candidates() -> None:
    d = decision([("a", 0.5), ("b", 0.2), ("c", -0.1)])
    assert loss_of(d, "a") == (0.0, False)
    assert loss_of(d, "b") == (pytest.approx(0.3), False)
    assert loss_of(d, "c") == (pytest.approx(0.6), False)
    # Outside: at least the worst candidate's loss ...
    assert loss_of(d, "z") == (pytest.approx(0.6), True)
    assert loss_of(d, "z", lambda texts: [1.0, 0.9])[0] == pytest.approx(0.6)
    # ... or the screen's gap to the best candidate when larger.
    assert loss_of(d, "z", lambda texts: [1.0, 0.0])[0] == pytest.approx(1.0)


def mid_game(variant_id: str, seed: int) -> tuple[Position, Roll, list[Play]]:
    """A position from a seeded random game with at least three legal plays of a plain roll."""
    rules = get_variant(variant_id)
    rng = random.Random(seed)
    pos = rules.initial_position()
    while True:
        for _ in range(rng.randint(6, 20)):
            dice = Roll.of(rng.randint(1, 6), rng.randint(1, 6))
            if dice.is_double and rules.chains_doubles:
                continue
            after = rng.choice(legal_plays(pos, dice, rules)).after
            if rules.result(after) is not None:
                break
            pos = after.flip()
        roll = Roll(rng.randint(2, 6), 1)
        plays = legal_plays(pos, roll, rules)
        if rules.result(pos) is None and len(plays) >= 3:
            return pos, roll, plays
        pos = rules.initial_position()


def hand_made_line(variant_id: str, seed: int, hand_best: bool) -> tuple[dict[str, object], float]:
    """A benchmark line whose candidates are all the legal plays: the hand evaluation's 0-ply
    choice valued 0 and another play 0.5 (``hand_best``: the choice 1.0, the others 0). Also
    what the decision is worth (``ai.error_scale``), the scale of its loss."""
    rules = get_variant(variant_id)
    pos, roll, plays = mid_game(variant_id, seed)
    eq, _ = evaluator_for(variant_id).evaluate(rules, [p.after for p in plays])
    choice = int(np.argmax(eq))
    other = (choice + 1) % len(plays)
    values = {}
    for i, p in enumerate(plays):
        if hand_best:
            values[p.text] = 1.0 if i == choice else 0.0
        else:
            values[p.text] = 0.5 if i == other else (0.0 if i == choice else -1.0)
    ranked = sorted(values.items(), key=lambda kv: -kv[1])
    line = {
        "variant": variant_id,
        "position": format_position(pos, roll),
        "dice": [roll.high, roll.low],
        "candidates": [{"play": t, "equity": e, "se": 0.01} for t, e in ranked],
        "trials": 36,
        "source": {"levels": ["test", "test"], "game": seed, "move": 1},
    }
    return line, decision_worth(rules, pos)


@pytest.mark.parametrize("variant_id", ["blocking", "pin"])
def test_error_rate_of_a_hand_made_benchmark(tmp_path: Path, variant_id: str) -> None:
    lost, stake_lost = hand_made_line(variant_id, 1, hand_best=False)
    found, _ = hand_made_line(variant_id, 2, hand_best=True)
    path = path_for(variant_id, tmp_path)
    path.write_text(json.dumps(lost) + "\n" + json.dumps(found) + "\n")
    decisions = read_benchmark(path)
    (score,) = score_variant(variant_id, decisions, [HAND_0PLY])
    # One decision loses 0.5 (in the variant's unit), the other nothing.
    assert score.decisions == 2
    assert score.raw == pytest.approx(0.25)
    assert score.losses == pytest.approx((1000 * 0.5 / stake_lost, 0.0))
    assert score.error_rate == pytest.approx(1000 * 0.25 / stake_lost)
    assert score.outside == 0
    assert score.blunders == (0.5 if 1000 * 0.5 / stake_lost >= BLUNDER else 0.0)

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ai",
            "benchmark",
            "score",
            "--variant",
            variant_id,
            "--levels",
            HAND_0PLY,
            "--dir",
            str(tmp_path),
        ],
        capture_output=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    row = next(x for x in proc.stdout.decode().splitlines() if x.startswith(HAND_0PLY))
    assert f"{1000 * 0.25 / stake_lost:.1f}" in row.split()


def test_torn_last_line_is_skipped(tmp_path: Path) -> None:
    line, _ = hand_made_line("blocking", 1, hand_best=False)
    path = path_for("blocking", tmp_path)
    path.write_text(json.dumps(line) + "\n" + json.dumps(line)[:40])
    assert len(read_benchmark(path)) == 1


def test_build_writes_the_shape_and_resumes(tmp_path: Path) -> None:
    pairs = (("beginner", "strong"),)
    have = build("pin", 2, TINY, directory=tmp_path, pairs=pairs, log=lambda _: None)
    assert have == 2
    path = path_for("pin", tmp_path)
    first = path.read_text().splitlines()
    assert len(first) == 2
    rules = get_variant("pin")
    for raw in first:
        data = json.loads(raw)
        assert list(data) == [
            "variant",
            "position",
            "dice",
            "candidates",
            "trials",
            "source",
            "worth",
        ]
        assert data["variant"] == "pin"
        pos, dice = parse_position(data["position"])
        assert data["worth"] == decision_worth(rules, pos)
        assert dice is not None and list(dice.numbers) == data["dice"]
        legal = {p.text for p in legal_plays(pos, dice, rules)}
        assert len(legal) >= 2
        texts = [c["play"] for c in data["candidates"]]
        assert set(texts) <= legal and len(set(texts)) == len(texts) >= 2
        equities = [c["equity"] for c in data["candidates"]]
        assert equities == sorted(equities, reverse=True)
        assert all(c["se"] >= 0 for c in data["candidates"])
        assert data["trials"] == 36
        assert data["source"]["levels"] == ["beginner", "strong"]
    # Resuming keeps what is there and goes on after the last game.
    have = build("pin", 3, TINY, directory=tmp_path, pairs=pairs, log=lambda _: None)
    assert have == 3
    lines = path.read_text().splitlines()
    assert lines[:2] == first
    last_game = json.loads(first[-1])["source"]["game"]
    assert json.loads(lines[2])["source"]["game"] > last_game
    # Full: nothing more to do.
    assert build("pin", 3, TINY, directory=tmp_path, pairs=pairs, log=lambda _: None) == 3


def test_annotate_stores_the_worth_where_it_is_missing(tmp_path: Path) -> None:
    """Lines written before the worth was stored gain it, equal to what scoring computes, and
    the file scores the same before and after."""
    path = path_for("dutch", tmp_path)
    lines = [hand_made_line("dutch", seed, hand_best=seed % 2 == 0)[0] for seed in range(3)]
    lines[1]["worth"] = 123.0  # already stored: kept as it is
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    before = read_benchmark(path)
    assert [d.worth for d in before] == [None, 123.0, None]
    assert annotate(path) == 2
    after = read_benchmark(path)
    rules = get_variant("dutch")
    for old, new in zip(before, after, strict=True):
        assert new.candidates == old.candidates
        expected = old.worth or decision_worth(rules, parse_position(old.position)[0])
        assert new.worth == expected
    assert annotate(path) == 0
    kept = [replace(d, worth=None) if i != 1 else d for i, d in enumerate(after)]
    levels = [HAND_0PLY]
    assert score_variant("dutch", after, levels) == score_variant("dutch", kept, levels)


def test_command_line_build_and_meta(tmp_path: Path) -> None:
    args = [sys.executable, "-m", "ai", "benchmark", "build", "--dir", str(tmp_path)]
    flags = ["--decisions", "1", "--per-game", "1", "--screen", "2", "--truncate", "1"]
    proc = subprocess.run(
        [*args, "--variant", "dutch", *flags, "--max-blocks", "1"],
        capture_output=True,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert len(read_benchmark(path_for("dutch", tmp_path))) == 1
    meta = json.loads((tmp_path / "dutch.meta.json").read_text())
    assert meta["decisions"] == 1
    assert meta["settings"]["truncate"] == 1
    assert meta["command"].startswith("python -m ai benchmark build --variant dutch")
    bad = subprocess.run(
        [*args, "--variant", "chess"], capture_output=True, cwd=ROOT, timeout=60, check=False
    )
    assert bad.returncode == 2 and b"unknown variant" in bad.stderr


def test_trial_values_are_the_rollouts_trials() -> None:
    from ai.rollout import rollout, trial_values

    rules = get_variant("blocking")
    pos, roll, plays = mid_game("blocking", 4)
    done = rollout(rules, pos, roll, trials=4, truncate=2, candidates=None, seed=5)
    values = trial_values(rules, pos, roll, plays, trials=4, truncate=2, seed=5)
    means = {p.text: sum(v) / len(v) for p, v in zip(plays, values, strict=True)}
    assert {r.play.text: r.equity for r in done.plays} == pytest.approx(means)


def test_interval_over_games() -> None:
    # Two games of two decisions: 0, 0 and 1, 1. Independent decisions would give a half-width
    # of 1.96 x 0.577 / 2; over the two games' summed deviations (-1, +1) it is
    # 1.96 x sqrt(2 / 1 x 2 / 16) = 0.98.
    mean, low, high = mean_interval([0.0, 0.0, 1.0, 1.0], ["a", "a", "b", "b"])
    assert (mean, low, high) == pytest.approx((0.5, 0.5 - 0.98, 0.5 + 0.98))
    score = summarise("x", [0.0, 0.0, 1.0, 1.0], [0.0] * 4, 0, ["a", "a", "b", "b"])
    assert score.high == pytest.approx(1.48)
