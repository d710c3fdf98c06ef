"""Rollouts (``ai.rollout``): the command line on every variant, seeds, common random numbers,
obvious plays, bad input, and a rollout in the worker pool."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ai.pool import AIPool
from ai.rollout import Rollout, rollout
from engine import Roll, get_variant, legal_plays, parse_position
from engine.text import format_position

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = (
    "classic",
    "pin",
    "pin-mother",
    "blocking",
    "blocking-express",
    "dutch",
    "neverfinishing",
)
PIN_52 = "pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52"
EXPRESS_CHAIN = "blocking-express | 24:X13 13:O1 12:X2 1:O14 | bar 0/0 | res 0/0 | off 0/0 | [5x2]"
#: Both sides bearing off: the candidates' games differ little, so pairing pays most.
RACE = "24:O2 23:O3 22:O3 21:O3 20:O2 19:O2 6:X2 5:X3 4:X3 3:X3 2:X2 1:X2"
CLASSIC_RACE = "24:O2 23:O3 22:O3 21:O3 20:O2 19:O2 8:X2 5:X3 4:X3 3:X3 2:X2 1:X2"


def run(
    args: list[str], stdin: str | bytes
) -> tuple[list[Any], subprocess.CompletedProcess[bytes]]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "ai", "rollout", *args],
        input=data,
        capture_output=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    return [json.loads(line) for line in proc.stdout.decode().splitlines()], proc


def mid_game(variant_id: str, seed: int) -> str:
    """A position text with dice from a seeded random game (no Express chain)."""
    rules = get_variant(variant_id)
    rng = random.Random(seed)
    pos = rules.initial_position()
    while True:
        for _ in range(rng.randint(10, 30)):
            dice = Roll.of(rng.randint(1, 6), rng.randint(1, 6))
            if dice.is_double and rules.chains_doubles:
                continue
            after = rng.choice(legal_plays(pos, dice, rules)).after
            if rules.result(after) is not None:
                break
            pos = after.flip()
        dice = Roll(rng.randint(2, 6), 1)
        if len(legal_plays(pos, dice, rules)) > 2:
            return format_position(pos, dice)
        pos = rules.initial_position()


def legal_texts(line: str) -> set[str]:
    pos, dice = parse_position(line)
    assert dice is not None
    return {p.text for p in legal_plays(pos, dice, get_variant(pos.variant))}


def roll_line(line: str, **kwargs: Any) -> Rollout:
    pos, dice = parse_position(line)
    assert dice is not None
    return rollout(get_variant(pos.variant), pos, dice, **kwargs)


def test_every_variant_on_the_command_line() -> None:
    lines = [mid_game(v, 4) for v in VARIANTS] + [EXPRESS_CHAIN, PIN_52]
    args = ["--trials", "4", "--truncate", "4", "--candidates", "3", "--seed", "1"]
    out, proc = run(args, "\n".join(lines) + "\n")
    assert proc.returncode == 0 and len(out) == len(lines)
    for line, answer in zip(lines, out, strict=True):
        variant = get_variant(parse_position(line)[0].variant)
        assert set(answer) == {"plays", "trials", "seed", "unit", "method", "level", "truncate"}
        assert answer["unit"] == variant.score_unit and answer["seed"] == 1
        assert answer["level"] == "0ply" and answer["truncate"] == 4
        assert answer["method"] == ("bgsage" if variant.has_cube else "generic")
        # bgsage rolls out in batches of 36, two at least.
        assert answer["trials"] == (72 if variant.has_cube else 4)
        plays = answer["plays"]
        legal = legal_texts(line)
        assert len(plays) == min(3, len(legal))
        assert {p["play"] for p in plays} <= legal, line
        assert all(
            set(p) == {"play", "equity", "se", "diff", "diff_se", "first_look"} for p in plays
        )
        equities = [p["equity"] for p in plays]
        assert equities == sorted(equities, reverse=True)
        assert plays[0]["diff"] == 0 and plays[0]["diff_se"] == 0
        assert all(p["se"] > 0 for p in plays), line  # none of these decides the game at once
        assert all(p["diff"] <= 0 and p["diff_se"] >= 0 for p in plays)
    # The last line again, in this process: the same answer as the command line's.
    again = roll_line(PIN_52, trials=4, truncate=4, candidates=3, seed=1)
    assert [(r.play.text, round(r.equity, 4), round(r.diff_se, 4)) for r in again.plays] == [
        (p["play"], p["equity"], p["diff_se"]) for p in out[-1]["plays"]
    ]


def test_the_same_seed_gives_the_same_rollout() -> None:
    def key(r: Rollout) -> list[tuple[str, float, float, float]]:
        return [(p.play.text, p.equity, p.se, p.diff_se) for p in r.plays]

    first = roll_line(PIN_52, trials=6, truncate=3, seed=11)
    assert key(roll_line(PIN_52, trials=6, truncate=3, seed=11)) == key(first)
    assert key(roll_line(PIN_52, trials=6, truncate=3, seed=12)) != key(first)
    # Without --seed each line draws one and prints it; given back, it reproduces the answer.
    line = mid_game("dutch", 2)
    (drawn,), _ = run(["--trials", "3", "--truncate", "2"], line + "\n")
    (given,), _ = run(["--trials", "3", "--truncate", "2", "--seed", str(drawn["seed"])], line)
    assert given == drawn


def paired_share(result: Rollout) -> float:
    """The paired differences' variance as a share of what the two means' errors give."""
    paired = sum(p.diff_se**2 for p in result.plays[1:])
    unpaired = sum(p.unpaired_se**2 for p in result.plays[1:])
    return paired / unpaired


def test_common_dice_make_the_paired_difference_precise() -> None:
    # A race: the candidates' games differ only a little, and the shared dice cancel the
    # luck. Measured shares 0.03-0.07 over three seeds; 0.5 leaves room for the estimates.
    result = roll_line(f"pin | {RACE} | bar 0/0 | res 0/0 | off 0/0 | 42", trials=36, candidates=3)
    assert len(result.plays) == 3
    assert paired_share(result) < 0.5


@pytest.mark.slow
@pytest.mark.parametrize("variant_id", ["classic", "blocking", "neverfinishing", "dutch"])
def test_common_dice_in_more_variants(variant_id: str) -> None:
    # Measured shares 0.14-0.32 over three seeds (classic: its ten batches pair).
    board = CLASSIC_RACE if variant_id == "classic" else RACE
    unlocked = " | unlocked X=yes O=yes" if variant_id == "dutch" else ""
    line = f"{variant_id} | {board} | bar 0/0 | res 0/0 | off 0/0{unlocked} | 42"
    result = roll_line(line, trials=360 if variant_id == "classic" else 72, candidates=3, seed=5)
    assert paired_share(result) < 0.5


@pytest.mark.parametrize("variant_id", ["classic", "pin", "dutch"])
def test_a_play_that_wins_at_once_ranks_first(variant_id: str) -> None:
    # 6/off 1/off wins a gammon now; 6/off lets O bear off first (a single game, fewer pips).
    extra = " | unlocked X=yes O=yes" if variant_id == "dutch" else ""
    line = f"{variant_id} | 24:O5 23:O5 22:O5 6:X1 1:X1 | bar 0/0 | res 0/0 | off 13/0{extra} | 65"
    result = roll_line(line, trials=4, seed=3)
    best = result.plays[0]
    assert best.play.text == "6/off 1/off"
    assert best.se == 0 and best.equity == (60 if variant_id == "pin" else 2)
    assert all(p.diff < 0 for p in result.plays[1:])


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"nonsense", "E_POSITION"),
        (b"", "E_POSITION"),
        (b"\xff\xfe junk", "E_POSITION"),
        (PIN_52.replace("| 52", "| -").encode(), "E_POSITION"),
        (PIN_52.replace("| 52", "| [5x2]").encode(), "E_POSITION"),
        (b"classic | 3:O15 | bar 0/0 | res 0/0 | off 15/0 | 31", "E_GAME_OVER"),
    ],
)
def test_bad_lines_get_the_error_codes_of_choose(raw: bytes, code: str) -> None:
    out, proc = run(["--trials", "2", "--truncate", "1"], raw + b"\n" + PIN_52.encode() + b"\n")
    assert proc.returncode == 0
    assert out[0]["error"] == code and isinstance(out[0]["message"], str)
    assert out[1]["plays"][0]["play"] in legal_texts(PIN_52)


def test_bad_level_option_and_arguments() -> None:
    out, _ = run(["--level", "grandmaster"], PIN_52 + "\n")
    assert out[0]["error"] == "E_LEVEL" and "0ply" in out[0]["message"]
    out, _ = run(["--option", "noSuchOption"], PIN_52 + "\n")
    assert out[0]["error"] == "E_OPTION"
    for args in (
        ["--trials", "0"],
        ["--candidates", "none"],
        ["--truncate", "-1"],
        ["--seconds", "0"],
        ["--top", "3"],
        ["--time", "3"],
    ):
        out, proc = run(args, PIN_52 + "\n")
        assert proc.returncode == 2 and out == []
        assert b"python -m ai rollout" in proc.stderr


@pytest.mark.slow
def test_a_level_plays_the_trials_and_all_candidates() -> None:
    line = mid_game("blocking", 1)
    result = roll_line(line, trials=3, truncate=2, candidates=None, level="intermediate", seed=2)
    assert {p.play.text for p in result.plays} == legal_texts(line)
    assert result.level == "intermediate" and result.trials == 3


@pytest.mark.slow
async def test_a_rollout_in_the_worker_pool() -> None:
    pos, dice = parse_position(PIN_52)
    assert dice is not None
    rules = get_variant(pos.variant)
    async with AIPool(workers=1) as pool:
        # A time limit stops it early (after two trials at least), well within the grace.
        done = await pool.rollout(rules, pos, dice, trials=10_000, time_limit=2.0, seed=4)
        assert 2 <= done.trials < 10_000
        fixed = await pool.rollout(rules, pos, dice, trials=5, truncate=3, seed=4)
    alone = roll_line(PIN_52, trials=5, truncate=3, seed=4)
    assert [(p.play.text, p.equity) for p in fixed.plays] == [
        (p.play.text, p.equity) for p in alone.plays
    ]
