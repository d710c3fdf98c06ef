"""Command-line interface (standard library only).

``python -m engine legal``: each stdin line is a position text with dice; prints a JSON array of
the canonical texts of all distinct legal plays, sorted.
``python -m engine apply``: each stdin line is ``<position text> TAB <play>``; prints the play,
the position after it and the result.
``python -m engine info``: which implementation runs (compiled build or pure Python) and why.
``--option NAME`` (repeatable, after the command) switches on a rule option of the position's
variant, e.g. ``python -m engine legal --option mustEnterAll`` for Dutch (RULES A16).
A bad line prints ``{"error": CODE, "message": TEXT}`` and processing goes on; never a traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from engine import native
from engine.errors import EngineError, PositionError
from engine.movegen import legal_plays
from engine.notation import parse_play
from engine.position import Position
from engine.text import format_position, parse_position
from engine.variants import Variant, get_variant


def _error(exc: EngineError) -> dict[str, Any]:
    return {"error": exc.code, "message": exc.message}


def _rules(pos: Position, options: Sequence[str]) -> Variant:
    try:
        return get_variant(pos.variant, options)
    except ValueError as exc:
        raise PositionError(str(exc)) from None


def legal_line(line: str, options: Sequence[str] = ()) -> Any:
    try:
        pos, dice = parse_position(line)
        if dice is None:
            raise PositionError("dice are needed to list legal plays")
        return sorted(p.text for p in legal_plays(pos, dice, _rules(pos, options)))
    except EngineError as exc:
        return _error(exc)


def apply_line(line: str, options: Sequence[str] = ()) -> Any:
    try:
        position_text, tab, play_text = line.partition("\t")
        if not tab:
            raise PositionError("expected <position text> TAB <play>")
        pos, dice = parse_position(position_text)
        if dice is None:
            raise PositionError("dice are needed to apply a play")
        rules = _rules(pos, options)
        play = parse_play(pos, legal_plays(pos, dice, rules), play_text)
        result = rules.result(play.after)
        return {
            "play": play.text,
            "after": format_position(play.after),
            "result": None
            if result is None
            else {"winner": result.winner, "points": result.points, "kind": result.kind},
        }
    except EngineError as exc:
        return _error(exc)


USAGE = (
    "usage: python -m engine legal|apply [--option NAME]...  (lines on standard input)\n"
    "       python -m engine info  (which engine runs: compiled or pure Python)"
)


def run(command: str, stdin: TextIO, stdout: TextIO, options: Sequence[str] = ()) -> int:
    handler = {"legal": legal_line, "apply": apply_line}.get(command)
    if handler is None:
        print(USAGE, file=sys.stderr)
        return 2
    for raw in stdin:
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        try:
            out = handler(line, options)
        except Exception as exc:  # the CLI promises no traceback, whatever the input
            out = {"error": "E_INTERNAL", "message": f"{type(exc).__name__}: {exc}"}
        stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        stdout.flush()
    return 0


def main(argv: list[str]) -> int:
    if argv[1:] == ["info"]:
        print(f"engine: {native.describe()}")
        return 0
    args = argv[2:]
    if len(argv) < 2 or len(args) % 2 or any(flag != "--option" for flag in args[::2]):
        return run("", sys.stdin, sys.stdout)
    return run(argv[1], sys.stdin, sys.stdout, args[1::2])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
