"""Command line: ``python -m ai choose|hint|cube|rollout [flags]``, one stdin line in, one JSON
line out.

``choose [--level L] [--option NAME]... [--seed N] [--time S]``: each line is a position text
with dice (RULES §12, the mover X to play; an Express decision as ``[vxk]``, a chain's first
decision as plain ``dd``). Prints ``{"play": CANONICAL}`` (``""`` for the empty play).

``hint [--level L] [--top N] [--option NAME]... [--seed N] [--time S]``: prints
``{"plays": [{"play": TEXT, "equity": E, "win": P, "searched": B}, ...]}``, best first (``win``
is null where the evaluation gives no probability). The strong levels search only the best few
plays (``searched``); the others' first-look values are moved onto the searched scale (by the
searched plays' mean correction), so the equities of one answer compare and never increase.

``cube [--level L] [--time S]`` (classic): each line is a position text, X about to roll (the
dice field is ignored), optionally followed by a TAB and the match situation as ``key=value``
words: ``length=N`` (0 = a single game), ``score=M-O`` (X's and O's points), ``cube=V``,
``owner=centre|X|O``, ``crawford=yes|no``. Prints the decision (see the README).

``rollout [--trials N] [--seconds S] [--level L] [--option NAME]... [--seed N] [--truncate T]
[--candidates K|all]``: each line as for ``choose``. Rolls the best K candidates (default 5) out
(``ai.rollout``: the same dice for every candidate; the trials played by the 0-ply evaluation,
``--level 0ply``, or by a level; ``--truncate T`` ends each after T turns with the evaluation)
and prints ``{"plays": [{"play": TEXT, "equity": E, "se": SE, "diff": D, "diff_se": DSE,
"first_look": F}, ...], "trials": N, "seed": S, "unit": U, "method": M, "level": L,
"truncate": T}``, best first: equity in the variant's unit (``point`` or ``pip``) for the mover,
``diff`` the paired difference to the best. Without ``--seed`` each line draws one and prints
it; ``--trials`` with that seed gives the same answer again.

A line that cannot be answered prints ``{"error": CODE, "message": TEXT}`` and the next line is
read: never a traceback, whatever the input. Each answer is flushed at once, so another program
can drive the command interactively.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO, TextIO

from ai.types import (
    DEFAULT_CANDIDATES,
    EVALUATION,
    LEVELS,
    ROLLOUT_LEVELS,
    STRONGEST,
    MatchContext,
    RankedPlay,
)
from engine import Dice, EngineError, Position, PositionError, Variant, get_variant
from engine.text import parse_position

USAGE = (
    "usage: python -m ai choose [--level L] [--option NAME]... [--seed N] [--time S]\n"
    "       python -m ai hint [--level L] [--top N] [--option NAME]... [--seed N] [--time S]\n"
    "       python -m ai cube [--level L] [--time S]\n"
    "       python -m ai rollout [--trials N] [--seconds S] [--level L] [--option NAME]...\n"
    "                            [--seed N] [--truncate T] [--candidates K|all]\n"
    f"levels: {', '.join(LEVELS)} (default {STRONGEST}; rollout: also {EVALUATION}, its "
    "default); lines on standard input"
)
#: Longest input line read; a longer one is answered with an error (and fully skipped).
MAX_LINE = 4096


class LineError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Settings:
    command: str
    level: str = STRONGEST
    options: list[str] = field(default_factory=list)
    top: int | None = None
    seed: int | None = None
    time: float | None = None
    # rollout only (``time`` is its --seconds)
    trials: int | None = None
    truncate: int = 0
    candidates: int | None = DEFAULT_CANDIDATES


def parse_args(argv: Sequence[str]) -> Settings | None:
    """The settings, or None for a command line that is not usable at all (usage, status 2).

    An unknown level or option is reported on every input line instead, like the engine's
    command line does for options: a driving program reads the reason where it reads answers.
    """
    if not argv or argv[0] not in HANDLERS:
        return None
    settings = Settings(argv[0])
    allowed = {"--level", "--time"}
    if settings.command != "cube":
        allowed |= {"--option", "--seed"}
    if settings.command == "hint":
        allowed.add("--top")
    if settings.command == "rollout":
        settings.level = EVALUATION
        allowed = {"--level", "--option", "--seed", "--trials", "--seconds", "--truncate"}
        allowed.add("--candidates")
    args = list(argv[1:])
    while args:
        flag = args.pop(0)
        if "=" in flag and flag.startswith("--"):
            flag, value = flag.split("=", 1)
        elif args:
            value = args.pop(0)
        else:
            return None
        if flag not in allowed:
            return None
        if flag == "--level":
            settings.level = value
        elif flag == "--option":
            settings.options.append(value)
        elif flag == "--candidates" and value == "all":
            settings.candidates = None
        elif flag in ("--top", "--seed", "--trials", "--truncate", "--candidates"):
            try:
                number = int(value)
            except ValueError:
                return None
            if flag == "--seed":
                settings.seed = number
            elif number < (0 if flag == "--truncate" else 1):
                return None
            elif flag == "--top":
                settings.top = number
            elif flag == "--trials":
                settings.trials = number
            elif flag == "--truncate":
                settings.truncate = number
            else:
                settings.candidates = number
        else:  # --time, --seconds
            try:
                seconds = float(value)
            except ValueError:
                return None
            if not 0 < seconds < (86400 if flag == "--seconds" else 3600):
                return None
            settings.time = seconds
    return settings


def _position(line: str) -> tuple[Position, Dice | None]:
    try:
        return parse_position(line)
    except EngineError:
        raise
    except ValueError as exc:
        raise PositionError(str(exc)) from None


def _rules(pos: Position, settings: Settings) -> Variant:
    try:
        return get_variant(pos.variant, settings.options)
    except KeyError as exc:
        # str() of a KeyError quotes its message.
        raise LineError("E_OPTION", str(exc.args[0])) from None
    except ValueError as exc:
        raise LineError("E_OPTION", str(exc)) from None


def _levels(settings: Settings) -> tuple[str, ...]:
    return ROLLOUT_LEVELS if settings.command == "rollout" else LEVELS


def _check_level(settings: Settings) -> None:
    levels = _levels(settings)
    if settings.level not in levels:
        raise LineError(
            "E_LEVEL", f"unknown level '{settings.level[:40]}'; levels: {', '.join(levels)}"
        )


def _deadline(settings: Settings) -> float | None:
    return None if settings.time is None else time.monotonic() + settings.time


def _decision(line: str, settings: Settings) -> tuple[Variant, Position, Dice]:
    """The rules, position and dice of a line asking for a play (X to play)."""
    _check_level(settings)
    pos, dice = _position(line)
    if dice is None:
        raise PositionError("dice are needed: the mover X plays this roll")
    rules = _rules(pos, settings)
    if rules.result(pos) is not None:
        raise LineError("E_GAME_OVER", "the game in this position is already over")
    return rules, pos, dice


def _ranked(line: str, settings: Settings, rng: random.Random) -> list[RankedPlay]:
    rules, pos, dice = _decision(line, settings)
    from ai.players import rank_plays

    ranked = rank_plays(
        rules, pos, dice, level=settings.level, deadline=_deadline(settings), rng=rng
    )
    return ranked


def choose_line(line: str, settings: Settings, rng: random.Random) -> dict[str, Any]:
    ranked = _ranked(line, settings, rng)
    return {"play": ranked[0].play.text}


def hint_line(line: str, settings: Settings, rng: random.Random) -> dict[str, Any]:
    ranked = _ranked(line, settings, rng)
    if settings.top is not None:
        ranked = ranked[: settings.top]
    return {
        "plays": [
            {
                "play": r.play.text,
                "equity": round(r.equity, 4),
                "win": None if r.win is None else round(r.win, 4),
                "searched": r.searched,
            }
            for r in ranked
        ]
    }


_OWNERS = {"centre": -1, "center": -1, "centered": -1, "x": 0, "o": 1}
_YES_NO = {"yes": True, "no": False, "true": True, "false": False, "1": True, "0": False}


def parse_match(text: str) -> MatchContext:
    """``length=N score=M-O cube=V owner=centre|X|O crawford=yes|no`` (all optional)."""
    values: dict[str, Any] = {}
    for word in text.split():
        key, eq, value = word.partition("=")
        key = key.lower()
        if not eq or key in values:
            raise LineError("E_MATCH", f"expected key=value words once each, got '{word[:40]}'")
        try:
            if key in ("length", "cube"):
                values[key] = int(value)
            elif key == "score":
                mover, dash, opponent = value.partition("-")
                if not dash:
                    raise ValueError
                values[key] = (int(mover), int(opponent))
            elif key == "owner":
                values[key] = _OWNERS[value.lower()]
            elif key == "crawford":
                values[key] = _YES_NO[value.lower()]
            else:
                raise LineError("E_MATCH", f"unknown match field '{key[:40]}'")
        except (ValueError, KeyError):
            raise LineError("E_MATCH", f"bad value in '{word[:40]}'") from None
    length = values.get("length", 0)
    score = values.get("score", (0, 0))
    cube = values.get("cube", 1)
    owner = values.get("owner", -1)
    if not 0 <= length <= 999:
        raise LineError("E_MATCH", "length must be 0 (a single game) to 999")
    if any(s < 0 or (length and s >= length) for s in score):
        raise LineError("E_MATCH", "each score must be below the match length")
    if cube < 1 or cube > 64 or cube & (cube - 1):
        raise LineError("E_MATCH", "the cube is a power of two from 1 to 64")
    if (cube == 1) != (owner == -1):
        raise LineError("E_MATCH", "a centred cube is at 1; a turned cube has an owner")
    crawford = values.get("crawford", False)
    if crawford and length - max(score) != 1:
        raise LineError("E_MATCH", "the Crawford game needs a player one point from winning")
    return MatchContext(length, score[0], score[1], crawford, cube, owner)


def cube_line(line: str, settings: Settings, rng: random.Random) -> dict[str, Any]:
    _check_level(settings)
    position_text, _tab, match_text = line.partition("\t")
    pos, _dice = _position(position_text)
    rules = get_variant(pos.variant)
    if not rules.has_cube:
        raise LineError("E_CUBE", f"{rules.name} has no doubling cube")
    if rules.result(pos) is not None:
        raise LineError("E_GAME_OVER", "the game in this position is already over")
    match = parse_match(match_text)
    from ai.classic import cube_action

    action = cube_action(pos, match, level=settings.level, deadline=_deadline(settings))
    return {
        "action": action.action,
        "double": action.double,
        "take": action.take,
        "may_double": action.may_double,
        "equity": {
            "no_double": round(action.no_double, 4),
            "double_take": round(action.double_take, 4),
            "double_pass": round(action.double_pass, 4),
        },
        "win": round(action.win, 4),
        "gammon": round(action.gammon, 4),
        "gammon_loss": round(action.gammon_loss, 4),
    }


def rollout_line(line: str, settings: Settings, rng: random.Random) -> dict[str, Any]:
    rules, pos, dice = _decision(line, settings)
    from ai.rollout import rollout

    # Each line its own seed (given, or drawn and printed): an answer is reproducible alone.
    seed = settings.seed if settings.seed is not None else rng.getrandbits(32)
    done = rollout(
        rules,
        pos,
        dice,
        trials=settings.trials,
        seconds=settings.time,
        level=settings.level,
        truncate=settings.truncate,
        candidates=settings.candidates,
        seed=seed,
    )
    return {
        "plays": [
            {
                "play": r.play.text,
                "equity": round(r.equity, 4),
                "se": round(r.se, 4),
                "diff": round(r.diff, 4),
                "diff_se": round(r.diff_se, 4),
                "first_look": round(r.first_look, 4),
            }
            for r in done.plays
        ],
        "trials": done.trials,
        "seed": done.seed,
        "unit": done.unit,
        "method": done.method,
        "level": done.level,
        "truncate": done.truncate,
    }


HANDLERS = {"choose": choose_line, "hint": hint_line, "cube": cube_line, "rollout": rollout_line}


def answer(raw: bytes, settings: Settings, rng: random.Random) -> dict[str, Any]:
    """The reply to one raw input line (without its newline)."""
    try:
        if len(raw) > MAX_LINE:
            raise PositionError(f"line longer than {MAX_LINE} bytes")
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            raise PositionError("the line is not UTF-8 text") from None
        if not line.strip():
            raise PositionError("empty line: expected a position text")
        return HANDLERS[settings.command](line.strip(" "), settings, rng)
    except LineError as exc:
        return {"error": exc.code, "message": exc.message}
    except EngineError as exc:
        return {"error": exc.code, "message": exc.message}
    except Exception as exc:  # the command line promises no traceback, whatever the input
        return {"error": "E_INTERNAL", "message": f"{type(exc).__name__}: {exc}"[:300]}


def _read_line(stdin: BinaryIO) -> bytes | None:
    """One line without its newline; an overlong line is read to its end and cut."""
    raw = stdin.readline(MAX_LINE + 1)
    if not raw:
        return None
    if not raw.endswith(b"\n") and len(raw) > MAX_LINE:
        while True:  # skip the rest of the overlong line
            more = stdin.readline(65536)
            if not more or more.endswith(b"\n"):
                break
    return raw.rstrip(b"\n")


def run(settings: Settings, stdin: BinaryIO, stdout: TextIO) -> int:
    rng = random.Random(settings.seed)
    if settings.level not in _levels(settings):
        print(f"warning: unknown level '{settings.level[:40]}'", file=sys.stderr)
    while True:
        raw = _read_line(stdin)
        if raw is None:
            return 0
        out = answer(raw, settings, rng)
        stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        stdout.flush()


def main(argv: Sequence[str]) -> int:
    if argv and argv[0] == "benchmark":
        from ai.benchmark_cli import main as benchmark_main

        return benchmark_main(argv[1:])
    settings = parse_args(argv)
    if settings is None:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        return run(settings, sys.stdin.buffer, sys.stdout)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
