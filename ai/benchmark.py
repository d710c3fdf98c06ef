"""The strength benchmark of a variant: decisions with their candidate plays rolled out.

A benchmark is a file ``ai/benchmarks/<variant>.jsonl``, one decision per line::

    {"variant": "pin", "position": "<position text with dice>", "dice": [6, 3],
     "candidates": [{"play": "<canonical play>", "equity": 0.123, "se": 0.004}, ...],
     "trials": 576, "source": {"levels": ["strong", "expert"], "game": 17, "move": 23}}

candidates best first by their rollout, equities in the variant's unit for the mover
(``Variant.score_unit``), ``se`` each mean's standard error, ``trials`` per candidate. Beside
it ``<variant>.meta.json`` keeps the settings and the command that rebuilds (or continues) it.

**Decisions** come from games between players of several levels (``PAIRS``: the weak levels
against the strong ones and each other, not only the expert's own games), a few real choices
(at least two legal plays, which the engine lists once per resulting position) drawn per game.

**Candidates** are the best ``screen`` plays of a cheap 0-ply screen (the learned evaluation
where shipped; classic: bgsage's 1-ply network) plus the hand evaluation's 0-ply choice (the
greedy baseline's), so the plays most players make are rolled out.

**Rollouts** (``ai.rollout.trial_values``) give every candidate the same dice, in blocks of
stratified trials, truncated after ``truncate`` turns and finished by the evaluation; a
decision stops once its best play is separated from the second (the paired difference at least
``separation`` standard errors) or that difference's error is below ``small_se`` of the game's
value, or after ``max_blocks`` blocks.

**Checkpoints**: every decision is appended (and flushed) as it is done; a build continues
after the last game in the file, so a killed run loses at most the decision in progress.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ai.error_scale import decision_worth
from ai.evaluation import evaluator_for
from ai.learned import PositionEvaluator, evaluator
from ai.players import choose_play
from ai.rollout import trial_values
from ai.types import EVALUATION, LEVELS, MatchContext
from engine import Dice, Play, Position, Variant, get_variant
from engine.game import MOVE, ROLL, GameState
from engine.text import format_position, parse_position

BENCHMARK_DIR = Path(__file__).resolve().parent / "benchmarks"
VARIANTS = (
    "classic",
    "pin",
    "pin-mother",
    "blocking",
    "blocking-express",
    "dutch",
    "neverfinishing",
)
#: The pairs of levels whose games the decisions are drawn from, in turn (game g: pair g mod 7).
PAIRS: tuple[tuple[str, str], ...] = (
    ("beginner", "expert"),
    ("casual", "strong"),
    ("intermediate", "expert"),
    ("strong", "expert"),
    ("expert", "expert"),
    ("beginner", "intermediate"),
    ("casual", "expert"),
)
assert all(level in LEVELS for pair in PAIRS for level in pair)
#: A game longer than this many decisions is cut (NeverFinishing can loop for long).
MAX_DECISIONS = 600
#: Thinking time of the levels in the sampling games: the positions matter, not the strength.
GAME_SECONDS = 0.1
ONE_POINT = MatchContext(length=1)


@dataclass(frozen=True)
class Settings:
    """How a benchmark is built (kept in its meta file)."""

    #: Decisions drawn per game (fewer when the game has fewer real choices).
    per_game: int = 8
    #: Candidates taken from the 0-ply screen (the hand evaluation's choice is added).
    screen: int = 3
    #: Who plays the trials (``ai.rollout``): the 0-ply evaluation by default.
    level: str = EVALUATION
    #: Turns per trial before the evaluation takes over (0: to the end of the game).
    truncate: int = 5
    #: Trials per block (a multiple of 36: each block stratifies the first roll exactly);
    #: classic (bgsage, batches of 36) takes ``classic_factor`` times as many.
    block: int = 36
    classic_factor: int = 2
    max_blocks: int = 2
    #: Stop when best minus second is at least this many of its standard errors ...
    separation: float = 2.0
    #: ... or its standard error is below this fraction of the game's value.
    small_se: float = 0.01
    seed: int = 1


@dataclass(frozen=True)
class Decision:
    """One benchmark decision as read from a file."""

    variant: str
    position: str
    dice: list[int]
    #: (play text, equity, se), best first.
    candidates: list[tuple[str, float, float]]
    trials: int
    source: dict[str, Any]
    #: What the decision is worth (``ai.error_scale.decision_worth``), stored with it because
    #: it takes a feature evaluation to compute; None in lines written before it was.
    worth: float | None = None

    @property
    def best(self) -> float:
        return self.candidates[0][1]


def path_for(variant_id: str, directory: Path = BENCHMARK_DIR) -> Path:
    return directory / f"{variant_id}.jsonl"


def meta_path(variant_id: str, directory: Path = BENCHMARK_DIR) -> Path:
    return directory / f"{variant_id}.meta.json"


def read_benchmark(path: Path) -> list[Decision]:
    """The decisions of a benchmark file (a torn last line, from a killed run, is skipped)."""
    out: list[Decision] = []
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        out.append(
            Decision(
                variant=data["variant"],
                position=data["position"],
                dice=list(data["dice"]),
                candidates=[
                    (c["play"], float(c["equity"]), float(c["se"])) for c in data["candidates"]
                ],
                trials=int(data["trials"]),
                source=dict(data["source"]),
                worth=float(data["worth"]) if "worth" in data else None,
            )
        )
    return out


# --- the sampling games -----------------------------------------------------------------------


@dataclass(frozen=True)
class Sampled:
    pos: Position
    dice: Dice
    plays: list[Play]
    move: int


def game_decisions(
    variant_id: str, pair: tuple[str, str], seed: int, seconds: float = GAME_SECONDS
) -> list[Sampled]:
    """Every real choice of one game between ``pair`` (seat 0 the first), in order."""
    dice_rng = random.Random(seed)
    player_rng = random.Random(seed ^ 0x5EED)
    state = GameState.new(variant_id, ("A", "B"), dice_rng, match_length=1)
    rules = state.rules
    out = []
    for move in range(1, MAX_DECISIONS + 1):
        if state.phase == ROLL:  # classic offers the cube first: no cube in these games
            state = state.roll(state.turn, dice_rng)
        state, _auto = state.advance(dice_rng)
        if state.phase == ROLL:
            continue
        if state.phase != MOVE:
            break
        seat = state.mover
        pos = state.position_for(seat)
        dice = state.current_dice()
        assert dice is not None
        plays = state.legal_plays()
        if len(plays) > 1:
            out.append(Sampled(pos, dice, plays, move))
        play = choose_play(
            rules,
            pos,
            dice,
            level=pair[seat],
            rng=player_rng,
            match=ONE_POINT,
            deadline=time.monotonic() + seconds,
        )
        state = state._apply(play, dice_rng, auto=False)
    return out


# --- candidates and their rollout -----------------------------------------------------------


def screen_values(rules: Variant, pos: Position, dice: Dice, plays: Sequence[Play]) -> list[float]:
    """The cheap 0-ply screen's value of each play for the mover (the learned evaluation where
    shipped; classic: bgsage's 1-ply network where installed)."""
    if rules.has_cube:
        try:
            from ai.classic import first_look
        except ImportError:
            pass
        else:
            by_text = {r.play.text: r.equity for r in first_look(pos, dice)}
            return [by_text[p.text] for p in plays]
    eq, _ = evaluator(rules.id, True).evaluate(rules, [p.after for p in plays])
    return [float(e) for e in eq]


def hand_choice(rules: Variant, plays: Sequence[Play]) -> int:
    """Index of the hand evaluation's 0-ply choice (the greedy baseline's in the variants)."""
    eq, _ = evaluator_for(rules.id).evaluate(rules, [p.after for p in plays])
    return int(np.argmax(eq))


def candidates_of(
    rules: Variant, pos: Position, dice: Dice, plays: Sequence[Play], screen: int
) -> list[Play]:
    values = screen_values(rules, pos, dice, plays)
    order = sorted(range(len(plays)), key=lambda i: -values[i])
    chosen = order[:screen]
    hand = hand_choice(rules, plays)
    if hand not in chosen:
        chosen.append(hand)
    return [plays[i] for i in chosen]


def _seed(*parts: object) -> int:
    return random.Random(":".join(str(p) for p in parts)).getrandbits(31)


def roll_decision(
    rules: Variant,
    pos: Position,
    dice: Dice,
    plays: Sequence[Play],
    settings: Settings,
    key: tuple[int, int],
    evaluation: PositionEvaluator | None = None,
) -> tuple[list[tuple[Play, float, float]], int]:
    """The candidates (play, mean, se) best first and the trials each got.

    ``evaluation``: plays and values the trials instead of ``settings.level`` (through the
    engine, classic included: ``ai.rollout.trial_values``)."""
    scale = evaluator_for(rules.id).stake_scale(rules, pos, None)
    classic = rules.has_cube and evaluation is None
    block = settings.block * (settings.classic_factor if classic else 1)
    values: list[list[float]] = [[] for _ in plays]
    trials = 0
    for b in range(settings.max_blocks):
        got = trial_values(
            rules,
            pos,
            dice,
            plays,
            trials=block,
            level=settings.level,
            truncate=settings.truncate,
            seed=_seed("benchmark", settings.seed, rules.id, *key, b),
            evaluation=evaluation,
        )
        for mine, more in zip(values, got, strict=True):
            mine.extend(more)
        trials += block if not classic else len(got[0]) * 36
        data = np.array(values)
        means = data.mean(axis=1)
        order = np.argsort(-means, kind="stable")
        if len(plays) < 2:
            break
        diff = data[order[0]] - data[order[1]]
        se = float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else math.inf
        if float(diff.mean()) >= settings.separation * se or se <= settings.small_se * scale:
            break
    data = np.array(values)
    n = data.shape[1]
    means = data.mean(axis=1)
    ses = data.std(axis=1, ddof=1) / math.sqrt(n) if n > 1 else np.zeros(len(plays))
    ranked = sorted(range(len(plays)), key=lambda c: -means[c])
    return [(plays[c], float(means[c]), float(ses[c])) for c in ranked], trials


def decision_json(
    rules: Variant,
    sampled: Sampled,
    rolled: Sequence[tuple[Play, float, float]],
    trials: int,
    pair: tuple[str, str],
    game: int,
) -> dict[str, Any]:
    return {
        "variant": rules.id,
        "position": format_position(sampled.pos, sampled.dice),
        "dice": list(sampled.dice.numbers),
        "candidates": [
            {"play": p.text, "equity": round(e, 4), "se": round(s, 4)} for p, e, s in rolled
        ],
        "trials": trials,
        "source": {"levels": list(pair), "game": game, "move": sampled.move},
        "worth": decision_worth(rules, sampled.pos),
    }


def annotate(path: Path) -> int:
    """Store each decision's worth in the lines of ``path`` that lack it (rewritten whole and
    atomically; run it when no build is appending). Returns how many lines gained it."""
    if not path.exists():
        return 0
    lines, added = [], 0
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue  # a torn line from a killed run, as read_benchmark skips it
        if "worth" not in data:
            pos, _ = parse_position(data["position"])
            data["worth"] = decision_worth(get_variant(data["variant"]), pos)
            added += 1
        lines.append(json.dumps(data, ensure_ascii=False) + "\n")
    fresh = path.with_suffix(".jsonl.tmp")
    fresh.write_text("".join(lines), encoding="utf-8")
    os.replace(fresh, path)
    return added


# --- the build ----------------------------------------------------------------------------------


def next_game(decisions: Sequence[Decision]) -> int:
    """The game to continue with: after the last one in the file (a game cut by a killed run
    is not replayed: its positions could differ, the levels' thinking time depends on load)."""
    return 1 + max((int(d.source["game"]) for d in decisions), default=-1)


def build(
    variant_id: str,
    target: int,
    settings: Settings,
    *,
    directory: Path = BENCHMARK_DIR,
    stop_at: float | None = None,
    add: int | None = None,
    pairs: Sequence[tuple[str, str]] = PAIRS,
    log: Callable[[str], None] = print,
) -> int:
    """Append decisions to the variant's benchmark until it holds ``target`` (or ``add`` more
    were made, or ``stop_at``, a wall-clock time, has passed); the decisions it holds."""
    rules = get_variant(variant_id)
    path = path_for(variant_id, directory)
    directory.mkdir(parents=True, exist_ok=True)
    done = read_benchmark(path)
    have = len(done)
    game = next_game(done)
    made = 0
    with path.open("a", encoding="utf-8") as out:
        while have < target and (add is None or made < add):
            if stop_at is not None and time.time() >= stop_at:
                break
            pair = pairs[game % len(pairs)]
            rng = random.Random(_seed("pick", settings.seed, variant_id, game))
            found = game_decisions(variant_id, pair, _seed("game", settings.seed, variant_id, game))
            picked = sorted(
                rng.sample(found, min(settings.per_game, len(found))), key=lambda s: s.move
            )
            for sampled in picked:
                if have >= target or (add is not None and made >= add):
                    break
                if stop_at is not None and time.time() >= stop_at:
                    break
                started = time.monotonic()
                cands = candidates_of(
                    rules, sampled.pos, sampled.dice, sampled.plays, settings.screen
                )
                rolled, trials = roll_decision(
                    rules, sampled.pos, sampled.dice, cands, settings, (game, sampled.move)
                )
                line = decision_json(rules, sampled, rolled, trials, pair, game)
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
                out.flush()
                os.fsync(out.fileno())
                have += 1
                made += 1
                log(
                    f"{variant_id} #{have} game {game} move {sampled.move}: "
                    f"{len(cands)} candidates, {trials} trials, {time.monotonic() - started:.1f}s"
                )
            game += 1
    return have


def write_meta(
    variant_id: str, settings: Settings, command: str, directory: Path = BENCHMARK_DIR
) -> None:
    decisions = read_benchmark(path_for(variant_id, directory))
    meta = {
        "variant": variant_id,
        "decisions": len(decisions),
        "unit": get_variant(variant_id).score_unit,
        "settings": asdict(settings),
        "pairs": [list(p) for p in PAIRS],
        "game_seconds": GAME_SECONDS,
        "rollout": (
            "bgsage rollouts (its network at 1 ply), batches of 36"
            if variant_id == "classic"
            else "ai.rollout generic trials, the 0-ply evaluation playing"
        ),
        "command": command,
        "mean_trials": round(sum(d.trials for d in decisions) / len(decisions), 1)
        if decisions
        else 0,
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    meta_path(variant_id, directory).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


def iter_variants(spec: str) -> Iterator[str]:
    for v in VARIANTS if spec == "all" else spec.split(","):
        if v not in VARIANTS:
            raise ValueError(f"unknown variant {v!r} (one of {', '.join(VARIANTS)}, all)")
        yield v
