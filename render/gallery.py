"""Write a labelled PNG of every variant and tricky situation: ``python -m render.gallery OUT``."""

from __future__ import annotations

import sys
from pathlib import Path

from render.board import render_board
from render.samples import gallery


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m render.gallery OUTDIR", file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for i, (label, scene, theme) in enumerate(gallery(), start=1):
        path = out / f"{i:02d}-{label}.png"
        data = render_board(scene, theme)
        path.write_bytes(data)
        print(f"{path}  {len(data) / 1024:.1f} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
