"""The command-line interface, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(command: str, stdin: str, *args: str) -> list[object]:
    proc = subprocess.run(
        [sys.executable, "-m", "engine", command, *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0
    assert "Traceback" not in proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_legal_lists_sorted_canonical_texts_and_survives_bad_lines() -> None:
    out = run(
        "legal",
        "classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43\n"
        "nonsense\n"
        "classic | 21:O2 19:O2 13:X14 1:O11 | bar 1/0 | res 0/0 | off 0/0 | 64\n"
        "classic | 21:O2 19:O2 13:X14 1:O11 | bar 1/0 | res 0/0 | off 0/0 | -\n",
    )
    assert out[0] == ["bar/22* 6/2", "bar/22*/18"]
    assert isinstance(out[1], dict) and out[1]["error"] == "E_POSITION"
    assert out[2] == [""]
    assert isinstance(out[3], dict) and out[3]["error"] == "E_POSITION"


def test_apply_reports_play_after_and_result() -> None:
    out = run(
        "apply",
        "classic | 24:O14 6:X1 2:O1 | bar 0/0 | res 0/0 | off 14/0 | 64\t6/2/off\n"
        "classic | 24:O14 6:X1 2:O1 | bar 0/0 | res 0/0 | off 14/0 | 64\t6/off\n"
        "neverfinishing | 24:X14 10:X1 6:O1 1:O14 | bar 0/0 | res 0/0 | off 0/0 | 41\t24/23 10/6\n"
        "pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52\t15/10/8\n"
        "\x00\x01garbage\twhat\n",
    )
    assert out[0] == {
        "play": "6/2*/off",
        "after": "classic | 24:O14 | bar 0/1 | res 0/0 | off 15/0 | -",
        "result": {"winner": "X", "points": 3, "kind": "backgammon"},
    }
    assert isinstance(out[1], dict) and out[1]["error"] == "E_ILLEGAL"
    assert isinstance(out[2], dict) and out[2]["error"] == "E_HIT_OR_TRAP_REQUIRED"
    assert isinstance(out[3], dict) and out[3]["play"] == "15/8^" and out[3]["result"] is None
    assert isinstance(out[4], dict) and out[4]["error"] == "E_POSITION"


def test_rule_options() -> None:
    line = "dutch | 20:X1 1:O1 | bar 0/0 | res 14/14 | off 0/0 | unlocked X=no O=no | 31\n"
    assert "20/16" in run("legal", line)[0]  # type: ignore[operator]
    assert run("legal", line, "--option", "mustEnterAll") == [["bar/24 bar/22"]]
    out = run("legal", line, "--option", "plakoto")
    assert isinstance(out[0], dict) and out[0]["error"] == "E_POSITION"
    assert "plakoto" in out[0]["message"]
