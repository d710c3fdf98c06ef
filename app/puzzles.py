"""Puzzles without Discord: positions of the benchmark (``ai/benchmarks/<variant>.jsonl``, each
decision's candidate plays rolled out) whose best play clearly beats the second, answered in
/move notation; each player's solved count and streak; the daily puzzle of a server.

A puzzle is named by its variant and a hash of its position text (``"pin:1a2b3c4d5e6f"``), so a
rebuilt benchmark keeps the names of the positions it still holds. The daily puzzle is claimed
in the database before it is posted (one row per server and UTC day: a second sweep, process or
start finds it and posts nothing more) and posted with a nonce.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ai.error_scale import THRESHOLDS, decision_worth, error_of
from app.errors import Refusal
from app.limits import Rate, RateLimiter
from app.reports import equity_format
from app.settings import server_theme
from engine import (
    ChainDice,
    Dice,
    Position,
    Variant,
    builder,
    get_variant,
    legal_plays,
    parse_play,
    parse_position,
)
from engine.errors import EngineError
from engine.text import format_position
from render.board import render_board
from render.game_scene import chain_text, roll_text
from render.scene import BoardScene
from storage import DatabaseGoneError, Shards, Storage
from storage.repos.analysis import PuzzleAnswer, PuzzleRecord

__all__ = [
    "DailyDue",
    "DatabaseGoneError",
    "NoPuzzles",
    "Puzzle",
    "PuzzleRecord",
    "Puzzles",
    "Shards",
    "StaleBuilder",
    "UnknownPuzzle",
    "puzzle_picture",
    "puzzle_text",
    "record_line",
    "verdict_text",
]

log = logging.getLogger(__name__)

BENCHMARK_DIR = Path(__file__).resolve().parents[1] / "ai" / "benchmarks"
#: The smallest gap from the best play to the second, in thousandths of a game
#: (``ai.error_scale``; the doubtful threshold: anything less is not clearly a better play);
#: and at least this many standard errors.
CLEAR_GAP = min(t for t, _ in THRESHOLDS)
CLEAR_SES = 3.0
#: Per user: /puzzle (each draws a board).
DEFAULT_PUZZLE_RATE = Rate(6, 60)
PUZZLE_FILE = "puzzle.png"


# --- refusals ---------------------------------------------------------------------------------


class NoPuzzles(Refusal):
    def __init__(self, variant: str | None, available: Sequence[str]) -> None:
        where = f"for {get_variant(variant).name}" if variant else "yet"
        have = f" Puzzles exist for: {', '.join(available)}." if available else ""
        super().__init__(f"There are no puzzles {where}.{have}")


class UnknownPuzzle(Refusal):
    def __init__(self) -> None:
        super().__init__("That puzzle is no longer in the benchmark: try `/puzzle` for a new one.")


class StaleBuilder(Refusal):
    def __init__(self) -> None:
        super().__init__(
            "This move builder does not fit its puzzle any more: press Build it again."
        )


class BadAnswer(Refusal):
    def __init__(self, reason: str, dice: Dice) -> None:
        super().__init__(
            f"That is not a legal play with {dice_text(dice)}: {reason}. Write it as for "
            "`/move`, e.g. `24/18 13/10` (from/to for each checker moved, `bar/` and `/off` "
            "where needed)."
        )


# --- the puzzles ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Candidate:
    play: str
    equity: float
    se: float


@dataclass(frozen=True, slots=True)
class Puzzle:
    key: str
    variant: str
    text: str
    candidates: tuple[Candidate, ...]
    trials: int

    @property
    def rules(self) -> Variant:
        return get_variant(self.variant)

    def decision(self) -> tuple[Position, Dice]:
        pos, dice = parse_position(self.text)
        assert dice is not None  # checked when loaded
        return pos, dice

    @property
    def gap(self) -> float:
        return self.candidates[0].equity - self.candidates[1].equity


def puzzle_key(variant: str, text: str) -> str:
    return f"{variant}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def is_clear(candidates: Sequence[Candidate], worth: float) -> bool:
    """The best play beats the second clearly: by more than the doubtful threshold (the
    second is a mistake on the review's scale, for a decision worth ``worth``,
    ``ai.error_scale.decision_worth``) and more than three standard errors of the difference
    (the two means' errors together)."""
    if len(candidates) < 2:
        return False
    best, second = candidates[0], candidates[1]
    gap = best.equity - second.equity
    se = math.hypot(best.se, second.se)
    return error_of(gap, worth) > CLEAR_GAP and gap > CLEAR_SES * se


def read_benchmark(path: Path) -> list[Puzzle]:
    """The clear puzzles of one benchmark file (lines that do not read are skipped)."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            variant, text = str(item["variant"]), str(item["position"])
            candidates = tuple(
                Candidate(str(c["play"]), float(c["equity"]), float(c["se"]))
                for c in item["candidates"]
            )
            pos, dice = parse_position(text)
            if dice is None:
                raise ValueError("no dice")
            puzzle = Puzzle(
                puzzle_key(variant, text), variant, text, candidates, int(item["trials"])
            )
        except (ValueError, KeyError, TypeError, EngineError) as exc:
            log.warning("%s:%d is not a benchmark decision: %s", path, number, exc)
            continue
        # Stored by the build (``python -m ai benchmark annotate``): computing it takes a
        # feature evaluation per line, seconds for a whole benchmark.
        worth = float(item["worth"]) if "worth" in item else decision_worth(puzzle.rules, pos)
        if is_clear(candidates, worth):
            out.append(puzzle)
    return out


@functools.cache
def load_puzzles(directory: Path = BENCHMARK_DIR) -> dict[str, tuple[Puzzle, ...]]:
    """Every variant's clear puzzles (read once per process)."""
    found: dict[str, tuple[Puzzle, ...]] = {}
    if directory.is_dir():
        for path in sorted(directory.glob("*.jsonl")):
            puzzles = tuple(read_benchmark(path))
            if puzzles:
                found[puzzles[0].variant] = puzzles
    return found


@dataclass(frozen=True)
class Verdict:
    puzzle: Puzzle
    played: str
    solved: bool
    #: None: a play the rollouts did not include (a worse one than all of them).
    played_equity: float | None
    answer: PuzzleAnswer


@dataclass(frozen=True)
class BuiltAnswer:
    puzzle: Puzzle
    made: builder.Progress

    @property
    def steps(self) -> str:
        return builder.encode_steps(self.made.chosen)

    def preview(self) -> str:
        """The position text after the chosen steps (for the preview board)."""
        return format_position(self.made.position, None)

    def text(self) -> str:
        made = self.made
        so_far = made.text or "nothing yet"
        if made.play is not None and not made.options:
            doing = "Confirm to answer with it"
        elif made.play is not None:
            doing = "Confirm, or play on"
        else:
            left = ", ".join(str(d) for d in made.dice_left)
            doing = f"choose your next step (dice left: {left})"
        return f"Your answer: **{so_far}**. {doing}. Undo takes back the last step."


@dataclass(frozen=True)
class DailyDue:
    """A daily puzzle claimed for a server and not posted yet."""

    guild_id: int
    channel_id: int
    day: str
    puzzle: Puzzle


def puzzle_picture(text: str, theme: str = "default") -> bytes:
    """The puzzle's board (module level: drawn in the render workers)."""
    pos, dice = parse_position(text)
    rules = get_variant(pos.variant)
    scene = BoardScene(
        position=pos,
        variant_name=rules.name,
        x_name="You",
        o_name="Opponent",
        x_colour="light",
        to_act="X",
        dice=None if dice is None else _dice_faces(dice),
        status="Your play: find the best one",
    )
    return render_board(scene, theme)


def _dice_faces(dice: Dice) -> tuple[int, ...]:
    if isinstance(dice, ChainDice):
        return (dice.value, dice.value)
    return (dice.high, dice.low)


def utc_day(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")


class Puzzles:
    """/puzzle, its answers, the players' records and the daily puzzle."""

    def __init__(
        self,
        db: Storage,
        *,
        directory: Path = BENCHMARK_DIR,
        rate: Rate = DEFAULT_PUZZLE_RATE,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.db = db
        self.directory = directory
        self.limit = RateLimiter(rate, "puzzles", clock)
        self.wall = wall
        self.rng = rng or random.SystemRandom()

    @property
    def puzzles(self) -> dict[str, tuple[Puzzle, ...]]:
        return load_puzzles(self.directory)

    async def ready(self) -> None:
        """Read the benchmark's puzzles off the event loop (once per process; later calls
        return at once). Call it before the plain methods, which would read them in place."""
        await asyncio.to_thread(load_puzzles, self.directory)

    def pick(self, user_id: int, variant: str | None = None) -> Puzzle:
        """A random clear puzzle (of ``variant``, else of any variant)."""
        have = self.puzzles
        pool = have.get(variant, ()) if variant else tuple(p for v in have.values() for p in v)
        if not pool:
            raise NoPuzzles(variant, [get_variant(v).name for v in sorted(have)])
        self.limit.take(user_id)
        return self.rng.choice(pool)

    def find(self, key: str) -> Puzzle:
        variant = key.split(":", 1)[0]
        for puzzle in self.puzzles.get(variant, ()):
            if puzzle.key == key:
                return puzzle
        raise UnknownPuzzle()

    async def answer(self, user_id: int, guild_id: int | None, key: str, text: str) -> Verdict:
        await self.ready()
        """Judge ``text`` (``/move`` notation) against the rollouts; the first answer of each
        player to each puzzle counts towards their record."""
        puzzle = self.find(key)
        pos, dice = puzzle.decision()
        plays = legal_plays(pos, dice, puzzle.rules)
        try:
            chosen = parse_play(pos, plays, text)
        except EngineError as exc:
            raise BadAnswer(str(exc), dice) from None
        rolled = {}
        for c in puzzle.candidates:
            try:
                rolled[parse_play(pos, plays, c.play).after] = c
            except EngineError:
                log.warning("puzzle %s: candidate %r is not legal", key, c.play)
        mine = rolled.get(chosen.after)
        solved = mine is puzzle.candidates[0]
        answer = await self.db.answer_puzzle(
            user_id, puzzle.key, solved, guild_id=guild_id, now=self.wall()
        )
        return Verdict(
            puzzle, chosen.text or "no move", solved, None if mine is None else mine.equity, answer
        )

    def build(self, key: str, steps: str, action: str, value: str | None = None) -> BuiltAnswer:
        """The move builder of a puzzle after ``action`` ("open", "step" with the chosen step
        ``value``, "undo", "reset") on the steps chosen so far (``engine.builder``'s code)."""
        puzzle = self.find(key)
        pos, dice = puzzle.decision()
        turn = builder.make_turn(pos, dice, rules=puzzle.rules)
        try:
            if action == "step":
                steps += value if value is not None and len(value) == 2 else "??"
            chosen = builder.decode_prefix(turn, steps)
        except ValueError:
            raise StaleBuilder() from None
        if action == "undo":
            chosen = chosen[:-1]
        elif action == "reset":
            chosen = ()
        return BuiltAnswer(puzzle, builder.progress(turn, chosen))

    async def record(self, user_id: int) -> PuzzleRecord:
        return await self.db.puzzle_record(user_id)

    async def theme(self, guild_id: int | None) -> str:
        """The server's board theme (the puzzle's board looks like its games')."""
        return "default" if guild_id is None else await server_theme(self.db, guild_id)

    # --- the daily puzzle ----------------------------------------------------------------------

    async def set_daily(self, guild_id: int, channel_id: int | None) -> None:
        await self.db.set_daily_puzzle_channel(guild_id, channel_id)

    async def daily_channel(self, guild_id: int) -> int | None:
        return await self.db.get_daily_puzzle_channel(guild_id)

    def daily_choice(self, guild_id: int, day: str) -> Puzzle | None:
        """The day's puzzle of a server: drawn from the day and the server (the same in every
        process that might claim it)."""
        pool = [p for v in sorted(self.puzzles) for p in self.puzzles[v]]
        if not pool:
            return None
        return random.Random(f"daily:{guild_id}:{day}").choice(pool)

    async def daily_due(self, shards: Shards | None) -> list[DailyDue]:
        """The daily puzzles of today that the servers of ``shards`` still need posted (each
        claimed now if nobody claimed it yet)."""
        day = utc_day(self.wall())
        out = []
        await self.ready()
        for guild_id, channel_id in await self.db.daily_puzzle_guilds(shards=shards):
            choice = self.daily_choice(guild_id, day)
            if choice is None:
                return []
            claimed = await self.db.claim_daily_puzzle(
                guild_id, day, choice.key, channel_id, now=self.wall()
            )
            if claimed.message_id is not None:
                continue
            try:
                puzzle = self.find(claimed.puzzle)
            except UnknownPuzzle:
                continue
            out.append(DailyDue(guild_id, claimed.channel_id, day, puzzle))
        return out

    async def daily_posted(self, due: DailyDue, message_id: int) -> bool:
        return await self.db.daily_puzzle_posted(due.guild_id, due.day, message_id)


# --- texts ------------------------------------------------------------------------------------


def dice_text(dice: Dice) -> str:
    if isinstance(dice, ChainDice):
        return chain_text(dice.value, dice.copies)
    return roll_text(dice.high, dice.low)


def puzzle_text(puzzle: Puzzle, daily: str = "") -> str:
    rules = puzzle.rules
    _, dice = puzzle.decision()
    head = f"**Daily puzzle of {daily}**" if daily else "**Puzzle**"
    return (
        f"{head} ({rules.name}): you are to play {dice_text(dice)}, moving the checkers at the "
        "bottom. "
        "Which play is best? Press **Answer** and write it as for `/move`, or **Build it** "
        "step by step.\n"
        f"`{puzzle.text}`"
    )


def verdict_text(verdict: Verdict) -> str:
    puzzle = verdict.puzzle
    unit = puzzle.rules.score_unit
    f = equity_format(unit)
    best = puzzle.candidates[0]
    if verdict.solved:
        lines = [f"✅ **Right**: `{verdict.played}` is the best play."]
    elif verdict.played_equity is None:
        lines = [
            f"❌ `{verdict.played}` is not among the plays the rollouts found best; the best "
            f"is `{best.play}`."
        ]
    else:
        behind = best.equity - verdict.played_equity
        lines = [
            f"❌ `{verdict.played}` gives away {behind:{f}} {unit}s; the best is `{best.play}`."
        ]
    lines.append(
        f"Why: rolled out {puzzle.trials} times a play with the same dice for each (equity for "
        f"you in {unit}s, ± one standard error):"
    )
    for i, c in enumerate(puzzle.candidates, start=1):
        lines.append(f"{i}. `{c.play}`: {c.equity:+{f}} ± {c.se:{f}}")
    lines.append(
        f"The best play wins by {puzzle.gap:{f}} {unit}s, more than three standard errors."
    )
    record = verdict.answer.record
    if verdict.answer.counted:
        lines.append(
            f"Puzzles solved: {record.solved} of {record.answered} · streak {record.streak}"
        )
    else:
        lines.append("You had answered this puzzle before: only your first answer counts.")
    return "\n".join(lines)


def record_line(record: PuzzleRecord) -> str:
    return (
        f"{record.solved} solved of {record.answered} · streak {record.streak} "
        f"(best {record.best_streak})"
    )
