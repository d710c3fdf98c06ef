"""``python -m ai``, run as a real subprocess: batch input, interactive driving, bad input."""

from __future__ import annotations

import json
import os
import random
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import Roll, get_variant, legal_plays, parse_position
from engine.text import format_position

ROOT = Path(__file__).resolve().parents[2]

BAR_43 = "classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43"
DANCE = (
    "classic | 24:O2 23:O2 22:O2 21:O2 20:O2 19:O2 6:X14 1:O3 | bar 1/0 | res 0/0 | off 0/0 | 66"
)
PIN_52 = "pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52"
DUTCH_START = "dutch | - | bar 0/0 | res 15/15 | off 0/0 | unlocked X=no O=no | 31"


def run(
    args: list[str], stdin: bytes | str
) -> tuple[list[Any], subprocess.CompletedProcess[bytes]]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "ai", *args],
        input=data,
        capture_output=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    return [json.loads(line) for line in proc.stdout.decode().splitlines()], proc


def legal_texts(line: str, options: tuple[str, ...] = ()) -> set[str]:
    pos, dice = parse_position(line)
    assert dice is not None
    return {p.text for p in legal_plays(pos, dice, get_variant(pos.variant, options))}


def test_choose_answers_each_line_with_a_legal_canonical_play() -> None:
    lines = [BAR_43, DANCE, PIN_52, DUTCH_START]
    out, proc = run(["choose"], "\n".join(lines) + "\n")
    assert proc.returncode == 0
    assert len(out) == len(lines)
    for line, answer in zip(lines, out, strict=True):
        assert set(answer) == {"play"}
        assert answer["play"] in legal_texts(line)
    assert out[1] == {"play": ""}  # nothing enters: the empty play


def test_choose_on_random_positions_of_every_variant_and_level() -> None:
    rng = random.Random(4)
    lines = []
    for variant_id in ("classic", "pin", "pin-mother", "blocking", "dutch", "neverfinishing"):
        rules = get_variant(variant_id)
        pos = rules.initial_position()
        for _ in range(rng.randint(4, 20)):
            dice = Roll.of(rng.randint(1, 6), rng.randint(1, 6))
            after = rng.choice(legal_plays(pos, dice, rules)).after
            if rules.result(after) is not None:
                break
            pos = after.flip()
        lines.append(format_position(pos, Roll.of(rng.randint(1, 6), rng.randint(1, 6))))
    for level in ("beginner", "intermediate", "expert"):
        out, _ = run(["choose", "--level", level, "--time", "1"], "\n".join(lines) + "\n")
        assert [o["play"] in legal_texts(line) for o, line in zip(out, lines, strict=True)] == [
            True
        ] * len(lines)


def test_express_chain_decisions() -> None:
    start = "blocking-express | 24:X13 13:O1 12:X2 1:O14 | bar 0/0 | res 0/0 | off 0/0 | "
    lines = [start + "33", start + "[4x4]", start + "[5x2]"]
    out, _ = run(["choose"], "\n".join(lines) + "\n")
    for line, answer in zip(lines, out, strict=True):
        assert answer["play"] in legal_texts(line), (line, answer)


def test_hint_lists_plays_best_first_with_equity_and_win() -> None:
    out, _ = run(["hint", "--top", "2"], BAR_43 + "\n" + PIN_52 + "\n")
    for line, answer in zip((BAR_43, PIN_52), out, strict=True):
        plays = answer["plays"]
        assert 1 <= len(plays) <= 2
        assert {p["play"] for p in plays} <= legal_texts(line)
        assert [p["equity"] for p in plays] == sorted((p["equity"] for p in plays), reverse=True)
        assert all(p["win"] is None or 0 <= p["win"] <= 1 for p in plays)
    everything, _ = run(["hint"], BAR_43 + "\n")
    assert {p["play"] for p in everything[0]["plays"]} == legal_texts(BAR_43)


def test_hint_values_share_one_scale_when_only_the_best_few_are_searched() -> None:
    # Blocking: a play the 1-ply search skips has a first-look value above the best's searched
    # one; the answer moves it onto the searched scale, so the equities never increase.
    line = (
        "blocking | 24:X2+O1 23:X3+O1 22:X2 21:X3 20:X1 19:X2 17:X1 12:X1 10:O1 8:O1 6:O2 "
        "4:O4 3:O1 2:O3 1:O1 | bar 0/0 | res 0/0 | off 0/0 | 52"
    )
    (deep,), _ = run(["hint", "--time", "30"], line + "\n")
    (flat,), _ = run(["hint", "--level", "strong"], line + "\n")
    for answer in (deep, flat):
        equities = [p["equity"] for p in answer["plays"]]
        assert equities == sorted(equities, reverse=True)
        assert {p["play"] for p in answer["plays"]} == legal_texts(line)
    assert deep["plays"][0]["searched"] and not all(p["searched"] for p in deep["plays"])
    assert not any(p["searched"] for p in flat["plays"])
    # The strong level's first looks put a play above the expert's searched best.
    assert flat["plays"][0]["equity"] > deep["plays"][0]["equity"]


def test_options_reach_the_rules() -> None:
    # Dutch with mustEnterAll: every checker must enter before anything else moves.
    line = "dutch | 20:X1 | bar 0/0 | res 14/15 | off 0/0 | unlocked X=no O=no | 21"
    plain = legal_texts(line)
    strict = legal_texts(line, ("mustEnterAll",))
    assert plain != strict
    out, _ = run(["hint", "--option", "mustEnterAll"], line + "\n")
    assert {p["play"] for p in out[0]["plays"]} == strict
    bad, _ = run(["choose", "--option", "noSuchOption"], line + "\n" + BAR_43 + "\n")
    assert [b["error"] for b in bad] == ["E_OPTION", "E_OPTION"]
    # The message names the bad option whole and what the variant offers instead.
    assert "'noSuchOption' (its options: mustEnterAll, previousWinner)" in bad[0]["message"]
    assert "'noSuchOption' (its options: " in bad[1]["message"]


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"nonsense", "E_POSITION"),
        (b"", "E_POSITION"),
        (b"   ", "E_POSITION"),
        (b"\xff\xfe\x00\x01junk", "E_POSITION"),
        (BAR_43.replace("| 43", "| -").encode(), "E_POSITION"),
        (BAR_43.replace("| 43", "| 73").encode(), "E_POSITION"),
        (BAR_43.replace("| 43", "| [4x2]").encode(), "E_POSITION"),
        (b"chess | - | bar 0/0 | res 0/0 | off 0/0 | 31", "E_POSITION"),
        (b"classic | 6:X15 | bar 0/0 | res 0/0 | off 0/0 | 31", "E_POSITION"),
        (b"classic | 3:O15 | bar 0/0 | res 0/0 | off 15/0 | 31", "E_GAME_OVER"),
        (b"x" * 100_000, "E_POSITION"),
    ],
)
def test_bad_lines_get_an_error_and_the_next_line_is_answered(raw: bytes, code: str) -> None:
    out, proc = run(["choose"], raw + b"\n" + BAR_43.encode() + b"\n")
    assert proc.returncode == 0
    assert out[0]["error"] == code and isinstance(out[0]["message"], str)
    assert out[1]["play"] in legal_texts(BAR_43)


def test_bad_level_is_reported_per_line_and_bad_arguments_print_usage() -> None:
    out, proc = run(["choose", "--level", "grandmaster"], BAR_43 + "\n")
    assert out == [{"error": "E_LEVEL", "message": out[0]["message"]}]
    assert "beginner" in out[0]["message"]
    for args in (
        [],
        ["solve"],
        ["choose", "--level"],
        ["choose", "--depth", "3"],
        ["hint", "--top", "zero"],
        ["hint", "--top", "0"],
        ["choose", "--top", "3"],
        ["cube", "--option", "x"],
    ):
        out, proc = run(args, BAR_43 + "\n")
        assert proc.returncode == 2 and out == []
        assert b"usage: python -m ai" in proc.stderr


def test_no_input_and_no_final_newline() -> None:
    out, proc = run(["choose"], b"")
    assert out == [] and proc.returncode == 0
    out, proc = run(["choose"], BAR_43.encode())  # EOF without a newline
    assert len(out) == 1 and out[0]["play"] in legal_texts(BAR_43)


def _read_line(proc: subprocess.Popen[bytes], timeout: float = 60.0) -> Any:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no answer: the reply was not flushed"
    return json.loads(os.read(proc.stdout.fileno(), 65536).decode())


def test_interactive_driving_line_by_line() -> None:
    """Each answer arrives before the next question is written: a program can drive it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ai", "choose", "--level", "strong"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdin is not None
    try:
        for line in (BAR_43, "garbage", PIN_52, "", DANCE):
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()
            answer = _read_line(proc)
            if line in (BAR_43, PIN_52, DANCE):
                assert answer["play"] in legal_texts(line)
            else:
                assert answer["error"] == "E_POSITION"
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        assert proc.stderr is not None and b"Traceback" not in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()


# --- cube ----------------------------------------------------------------------------------------

PASS = (
    "classic | 19:O3 18:O3 17:O3 16:O2 15:O2 14:O2 9:X3 8:X3 7:X3 6:X2 5:X2 4:X2 "
    "| bar 0/0 | res 0/0 | off 0/0 | -"
)


def test_cube_command() -> None:
    lines = [
        PASS,
        PASS + "\tlength=7 score=6-5 crawford=yes",
        PASS + "\tlength=7 score=2-4 cube=2 owner=O",
        get_variant("classic").initial_position()
        and format_position(get_variant("classic").initial_position()),
        PASS + "\tlength=7 score=9-0",
        PASS + "\tcube=3 owner=X",
        PASS + "\tcolour=blue",
        PIN_52,
        "nonsense",
    ]
    out, proc = run(["cube"], "\n".join(lines) + "\n")
    assert proc.returncode == 0 and len(out) == len(lines)
    assert out[0]["double"] is True and out[0]["take"] is False
    assert out[0]["action"] == "double, pass" and out[0]["may_double"] is True
    assert set(out[0]["equity"]) == {"no_double", "double_take", "double_pass"}
    assert 0.8 < out[0]["win"] <= 1
    assert out[1]["double"] is False and out[1]["may_double"] is False  # Crawford
    assert out[2]["double"] is False and out[2]["may_double"] is False  # O owns the cube
    assert out[3]["double"] is False and out[3]["take"] is True  # the opening position
    assert [o.get("error") for o in out[4:]] == [
        "E_MATCH",
        "E_MATCH",
        "E_MATCH",
        "E_CUBE",
        "E_POSITION",
    ]
