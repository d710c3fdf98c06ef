"""The child process of test_pickling: every engine value type through pickle, in one build.

``python -m tests.engine.pickle_probe dump FILE`` pickles ``samples()`` into FILE and prints,
as JSON, the engine that ran (``engine.native.describe()``) and ``describe`` of each sample;
``load FILE`` unpickles FILE (made by either build) and prints the same for what it read;
``workers`` sends every sample to a real worker process and back (``workers.WorkerPool``,
spawned, so the worker imports the engine itself) and asks the computer players' pool for
plays, rankings and a review (``ai.pool.AIPool``: Play objects cross back), printing what came
back. ``describe`` names the type and every field, so equal descriptions mean equal values.
"""

from __future__ import annotations

import asyncio
import enum
import json
import pickle
import random
import sys
from pathlib import Path
from typing import Any

import engine
from engine import (
    ChainDice,
    EngineError,
    GameError,
    IllegalPlayError,
    InvalidPlayError,
    Play,
    PositionError,
    Roll,
    Step,
    get_variant,
    legal_plays,
    parse_position,
)
from engine.builder import make_turn, next_steps, progress
from engine.frozen import FrozenValue
from engine.game import MOVE, ROLL, GameState
from engine.history import HistoryError, replay
from engine.notation import parse_tokens
from engine.play import Leaf
from engine.variants import VARIANTS, Variant
from engine.variants.base import RuleOption

#: Positions with everything a position can hold: bar, reserve, off, Dutch's unlock flags,
#: pins, traps, and a Blocking Express chain decision.
LINES = (
    "classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
    "pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52",
    "blocking-express | 24:X1 18:X4 12:X2 6:X8 19:O1 13:O5 7:O9 | bar 0/0 | res 0/0 "
    "| off 0/0 | [3x4]",
)


def describe(value: Any) -> str:
    """The type and every field of ``value``, recursively (the same in both builds)."""
    name = type(value).__name__
    if isinstance(value, Play):
        parts = [value.steps, value.before, value.after, value.text]
        return f"Play({', '.join(describe(p) for p in parts)})"
    if isinstance(value, Variant):
        flags = sorted({o.flag for o in value.options.values()} | {"previous_winner_starts"})
        return f"{name}({', '.join(f'{f}={getattr(value, f)!r}' for f in flags)})"
    if isinstance(value, EngineError):
        return f"{name}({value.code!r}, {value.message!r}, {getattr(value, 'legal', None)!r})"
    if isinstance(value, enum.Enum):
        return f"{name}.{value.name}"
    if isinstance(value, FrozenValue) or (isinstance(value, tuple) and hasattr(value, "_fields")):
        fields = value._fields
        return f"{name}({', '.join(f'{f}={describe(getattr(value, f))}' for f in fields)})"
    if hasattr(value, "__dataclass_fields__"):
        fields = value.__dataclass_fields__
        return f"{name}({', '.join(f'{f}={describe(getattr(value, f))}' for f in fields)})"
    if isinstance(value, tuple | list):
        return f"{name}[{', '.join(describe(v) for v in value)}]"
    return repr(value)


def _game(variant: str, seed: int, decisions: int) -> GameState:
    """A seeded random game after ``decisions`` plays (an Express one may be mid-chain)."""
    rng = random.Random(seed)
    state = GameState.new(variant, ("A", "B"), rng)
    played = 0
    while played < decisions and not state.is_over:
        if state.phase == ROLL:
            state = state.roll(state.mover, rng)
        elif state.phase == MOVE:
            state = state._apply(rng.choice(state.legal_plays()), rng, auto=False)
            played += 1
        else:
            break
    return state


def samples() -> list[Any]:
    """One or more of every value type of the engine's public API."""
    out: list[Any] = [Roll(6, 5), Roll(3, 3), ChainDice(4, 4, rolled=True), ChainDice(2, 3)]
    out += [Step(13, 7, 6), Step(25, 22, 3, "hit"), Leaf((Step(8, 5, 3),), True)]
    for line in LINES:
        pos, dice = parse_position(line)
        assert dice is not None
        rules = get_variant(pos.variant)
        plays = legal_plays(pos, dice, rules)
        unformatted = legal_plays(pos, dice, rules)[-1]  # its text not written yet
        out += [pos, dice, plays[:3], unformatted, rules.result(plays[0].after)]
        turn = make_turn(pos, dice, plays, rules)
        out += [turn, progress(turn, plays[0].steps[:1]), next_steps(turn)]
    for variant_id, rules in VARIANTS.items():
        out += [rules, rules.initial_position(), rules.options]
        out += [get_variant(variant_id, [option]) for option in rules.options]
    out += [parse_tokens("bar/22* 13/7(2) 6/off"), RuleOption("x", "y")]
    out += [
        EngineError("E_X", "a message"),
        InvalidPlayError("E_SYNTAX", "not a play"),
        IllegalPlayError("E_ILLEGAL", "not legal here", ("13/7", "24/18")),
        PositionError("no such position"),
        GameError("E_PHASE", "not now"),
        HistoryError("altered"),
    ]
    for i, variant_id in enumerate(VARIANTS):
        state = _game(variant_id, 7 + i, 9)
        out.append(state)
    finished = _game("classic", 3, 10_000)
    out += [finished, replay(finished)[:4]]
    return out


def _print(values: list[Any]) -> None:
    print(json.dumps([engine.native.kind, *(describe(v) for v in values)]))


def echo(value: Any) -> Any:
    """A worker job: the value, back through pickle."""
    return value


def engine_kind() -> str:
    """A worker job: which engine the worker process runs."""
    return engine.native.kind


async def _through_workers() -> list[Any]:
    from ai.pool import AIPool, ReviewDecision
    from workers import WorkerPool

    async with WorkerPool(1, name="probe", timeout=60) as pool:
        back: list[Any] = [await pool.run(engine_kind)]
        back += [await pool.run(echo, value) for value in samples()]
    async with AIPool(workers=1, time_limit=0.5) as players:
        for line in LINES:
            pos, dice = parse_position(line)
            assert dice is not None
            rules = get_variant(pos.variant)
            chosen = await players.choose(rules, pos, dice, level="expert", seed=1)
            ranked = await players.rank(rules, pos, dice, level="strong", seed=3)
            back += [chosen, sorted(r.play.text for r in ranked)]
        rules = get_variant("classic")
        pos = rules.initial_position()
        decisions = [
            ReviewDecision(pos, Roll(3, 1), "8/5 6/5"),
            ReviewDecision(pos, Roll(6, 5), legal_plays(pos, Roll(6, 5), rules)[0].after),
        ]
        items = await players.review(rules, decisions, level="beginner")
        back.append([None if i is None else (i.played, i.best, i.choices) for i in items])
    return back


def main(argv: list[str]) -> int:
    command = argv[0]
    if command == "dump":
        values = samples()
        Path(argv[1]).write_bytes(pickle.dumps(values, pickle.HIGHEST_PROTOCOL))
        _print(values)
    elif command == "load":
        _print(pickle.loads(Path(argv[1]).read_bytes()))
    elif command == "workers":
        _print(asyncio.run(_through_workers()))
    else:
        raise SystemExit(f"unknown command {command!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
