"""The compiled engine (mypyc, ``make fast-engine``) says exactly what the Python sources say.

Two child processes run ``tests.engine.parity_lister`` on the same requests, one with
``BG_PURE_ENGINE=1`` and one free to use the compiled build; their answers (every legal play
in generation order with its canonical text, steps, position after and result; every applied
play text or error) must be identical byte for byte. The requests: every test position (the
rules' cases and worked examples, the slowest known Express decisions) and decisions of seeded
random games of every variant, Express chain decisions included (the quick test: 150 per
variant; the slow one: 2,000). Skipped, saying why, when no up-to-date compiled build exists
(a failure in CI, which builds it).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Position, Roll, format_position, legal_plays, make_position, native
from engine.game import MOVE, ROLL, GameState
from engine.variants import VARIANTS
from tests.engine.compiled_build import require_compiled_build
from tests.engine.express_slowest import SLOWEST
from tests.engine.positions_data import CASES, EXAMPLES

ROOT = Path(__file__).resolve().parents[2]
SEED = 20250601


def _test_requests() -> list[str]:
    out = [f"legal\t\t{case.position}" for case in CASES]
    out += [f"apply\t\t{ex.position}\t{ex.text}" for ex in EXAMPLES]
    out += [f"apply\t\t{case.position}\t{text}" for case in CASES for text, _ in case.inputs]
    out += [f"legal\t\t{line}" for line in SLOWEST]
    return out


def _sampled_requests(variant: str, count: int, seed: int) -> list[str]:
    """``count`` decisions of seeded random games (each decision kept with chance 1/2), listed
    plain and with each of the variant's rule options, and one legal play of every fourth
    applied by its text."""
    rng = random.Random(seed)
    options = sorted(VARIANTS[variant].options)
    out: list[str] = []
    kept = 0
    game = 0
    while kept < count:
        game += 1
        state = GameState.new(variant, ("A", "B"), random.Random(seed * 1000 + game))
        for _ in range(600):
            if state.phase == ROLL:
                state = state.roll(state.mover, rng)
                continue
            if state.phase != MOVE:
                break
            plays = state.legal_plays()
            if rng.random() < 0.5:
                kept += 1
                text = format_position(state.position_for(state.mover), state.current_dice())
                out.append(f"legal\t\t{text}")
                out += [f"legal\t{option}\t{text}" for option in options]
                if kept % 4 == 0:
                    out.append(f"apply\t\t{text}\t{rng.choice(plays).text or 'pass'}")
                if kept >= count:
                    break
            state = state._apply(rng.choice(plays), rng, auto=False)
    return out


def _run(requests: list[str], tmp_path: Path, pure: bool) -> list[str]:
    source = tmp_path / "requests.txt"
    source.write_text("\n".join(requests) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != native.PURE_SWITCH}
    if pure:
        env[native.PURE_SWITCH] = "1"
    with source.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "tests.engine.parity_lister"],
            cwd=ROOT,
            env=env,
            stdin=stdin,
            capture_output=True,
            check=True,
        )
    return done.stdout.decode("utf-8").splitlines()


def _assert_same(requests: list[str], tmp_path: Path) -> None:
    pure = _run(requests, tmp_path, pure=True)
    compiled = _run(requests, tmp_path, pure=False)
    assert pure[0].startswith("pure Python") and pure[0].endswith("kernel: no"), pure[0]
    # The compiled build lists classic's rolls with its C search (engine/_classic_kernel.c).
    assert compiled[0].startswith("compiled") and compiled[0].endswith("kernel: yes"), compiled[0]
    assert len(pure) == len(compiled) == len(requests) + 1
    for request, a, b in zip(requests, pure[1:], compiled[1:], strict=True):
        assert a == b, f"pure and compiled differ on: {request}\n  pure:     {a}\n  compiled: {b}"


def test_the_test_positions_and_a_small_sample(tmp_path: Path) -> None:
    require_compiled_build()
    requests = _test_requests()
    for i, variant in enumerate(VARIANTS):
        requests += _sampled_requests(variant, 150, SEED + i)
    _assert_same(requests, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_large_random_sample(variant: str, tmp_path: Path) -> None:
    require_compiled_build()
    seed = SEED + 100 + list(VARIANTS).index(variant)
    _assert_same(_sampled_requests(variant, 2000, seed), tmp_path)


def test_the_classic_kernel_leaves_other_boards_to_the_python_search() -> None:
    """engine/_classic_kernel.c answers None (the Python search then runs) for a board it was not
    written for, instead of reading past its tables."""
    require_compiled_build()
    from engine import movegen

    if movegen._KERNEL is None:
        pytest.skip("this test process runs the pure engine")
    empty = ("",) * 25
    for board in (
        make_position("classic", {6: "X" * 15, 5: "X" * 5}),  # 20 X checkers
        make_position("classic", {6: "XO"}),  # a mixed stack
        make_position("classic", {6: "Z"}),
        Position("classic", empty, (1, 0), (1, 0), (0, 0), (False, False)),  # a reserve
        Position("classic", empty[:24], (0, 0), (0, 0), (0, 0), (False, False)),
    ):
        assert movegen._KERNEL.classic_leaves(board, (6, 5), True) is None, board
    crowded = make_position("classic", {6: "X" * 15, 5: "X" * 5})
    plays = legal_plays(crowded, Roll(6, 5))  # answered by the Python search
    assert sorted(p.text for p in plays) == ["6/1 6/off", "6/off 5/off"]
