"""`make demo`: a computer-vs-computer game without Discord writes boards and a replay."""

from __future__ import annotations

import subprocess
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]


def test_make_demo_writes_boards_replay_and_record(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    done = subprocess.run(
        ["make", "-s", "demo", "VARIANT=blocking", "LEVEL=beginner", "SEED=4", f"OUT={out}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    boards = sorted(out.glob("board-*.png"))
    record = (out / "record.txt").read_text(encoding="utf-8").splitlines()
    assert record[0] == "game 1" and record[-1].startswith("result: ")
    plays = [line for line in record if line.startswith("Computer ") and ": " in line]
    assert len(boards) >= len(plays) > 5  # a board per play (and per cube action)
    assert Image.open(boards[-1]).format == "PNG"
    replay = Image.open(out / "replay.gif")
    assert replay.format == "GIF" and replay.n_frames == len(boards) + 1  # + the start
    assert f"wrote {len(boards)} boards" in done.stdout
