"""The child process of test_compiled_parity: lists and applies plays, one JSON line per input.

Run as ``python -m tests.engine.parity_lister < requests``; each request line is
``legal TAB OPTIONS TAB POSITION`` or ``apply TAB OPTIONS TAB POSITION TAB PLAY`` (OPTIONS:
comma-separated rule options, maybe none). The first output line names the engine that ran
(``engine.native.describe()``, and whether classic's C search is loaded); every later line
answers one request with everything the engine says about it: the legal plays in generation
order (canonical text, steps, position after, result) or the applied play, or the error. Two
runs, pure and compiled, must print the same lines byte for byte.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import engine
from engine import EngineError, format_position, get_variant, legal_plays, parse_play
from engine import parse_position as parse


def answer(line: str) -> Any:
    kind, options_text, position, *rest = line.split("\t")
    options = [o for o in options_text.split(",") if o]
    try:
        pos, dice = parse(position)
        assert dice is not None, position
        rules = get_variant(pos.variant, options)
        plays = legal_plays(pos, dice, rules)
        if kind == "apply":
            play = parse_play(pos, plays, rest[0])
            return [play.text, format_position(play.after)]
        out = []
        for play in plays:
            result = rules.result(play.after)
            out.append(
                [
                    play.text,
                    [list(step) for step in play.steps],
                    format_position(play.after),
                    None if result is None else [result.winner, result.points, str(result.kind)],
                ]
            )
        return out
    except EngineError as exc:
        legal = list(getattr(exc, "legal", ()))
        return {"error": exc.code, "message": exc.message, "legal": legal}


def main() -> int:
    kernel = "yes" if engine.movegen._KERNEL is not None else "no"
    print(f"{engine.native.describe()}; classic kernel: {kernel}")
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        if line:
            print(json.dumps(answer(line), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
