"""Rollouts: each candidate play of a decision played out many times, the same dice for all.

A rollout values a play by playing the game on from it to the end (or for ``truncate`` turns,
then asking the evaluation), many times over, and averaging the results: in the variant's unit
(``Variant.score_unit``: points per game, the Pin games' pips), for the player making the play
(X of the position), cubeless (no doubling during the trials).

**Common random numbers.** Trial ``i`` of every candidate uses the same dice (and the same
randomness of a noisy level), so two candidates' results in one trial differ by what the plays
changed, not by luck; the difference of two candidates is estimated from the per-trial
differences (``diff_se``), far more precisely than from the two means' own errors
(``unpaired_se``). The first roll after the play is also stratified: every block of 36 trials
gives the opponent each of the 36 ordered first rolls once, in a seeded order.

**Players.** The trials are played by the 0-ply evaluation (``EVALUATION``, the default:
greedy on the evaluation the strongest level uses, the learned network where one is shipped)
or by a level's own player (``ai.players.rank_hand``, without a time limit so a trial never
depends on the machine's load). Express chains are played out decision by decision; the
position text does not say who rolled a chain, so a chain decision is rolled out as the
roller's (as ``ai.search`` assumes), its opponent rolling after the chain.

**Classic** goes to bgsage's own rollouts when it is installed (``ai.classic.rollout_boards``:
its network plays the trials, at the level's depth, without a weak level's noise) in seeded
batches of 36 trials, each batch with the same seed for every candidate: a batch is one
"trial" of the pairing. Without bgsage classic is rolled out like the other variants.

Deterministic for a given seed and trial count. A time budget (``seconds``) stops early, after
at least ``MIN_TRIALS``; the answer says how many trials were made, which reproduces it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ai.learned import PositionEvaluator
from ai.players import level_evaluation, rank_hand
from ai.types import DEFAULT_CANDIDATES, EVALUATION, ROLLOUT_LEVELS, STRONGEST
from engine import ChainDice, Dice, Play, Position, Result, Roll, Variant, legal_plays

#: Trials per candidate by default: played in Python, and by bgsage (classic; its errors come
#: from its batches of 36, ten of them).
DEFAULT_TRIALS = 72
DEFAULT_BGSAGE_TRIALS = 360
#: Fewest trials for a standard error, whatever the time budget.
MIN_TRIALS = 2
#: A trial longer than this many turns is valued by the evaluation where it stands
#: (NeverFinishing can loop for a long time).
MAX_TURNS = 1000
#: Trials per bgsage batch: a multiple of 36, so each batch stratifies the first roll exactly.
BATCH = 36
#: "No time limit" for a level's search inside a trial (a real deadline would make the trial
#: depend on the machine's load).
_FAR = 1e9

#: The 36 ordered first rolls as (high, low), each once.
_FIRST_ROLLS: tuple[Roll, ...] = tuple(Roll.of(a, b) for a in range(1, 7) for b in range(1, 7))

#: Called after each round of trials: (trials done, trials planned).
Progress = Callable[[int, int], None]
#: (position, X to play, dice, its legal plays, the trial's player randomness) -> the play.
Chooser = Callable[[Position, Dice, Sequence[Play], random.Random], Play]


@dataclass(frozen=True, slots=True)
class RolledPlay:
    """One candidate's rollout, for the player who makes it, in the variant's unit."""

    play: Play
    #: Mean result over the trials.
    equity: float
    #: Standard error of ``equity``.
    se: float
    #: ``equity`` minus the best candidate's, estimated trial by trial (0 for the best).
    diff: float
    #: Standard error of the paired ``diff`` (0 for the best).
    diff_se: float
    #: What ``diff``'s error would be from the two means alone (without the pairing).
    unpaired_se: float
    #: The value that made it a candidate (the first look of the ranking it was taken from).
    first_look: float


@dataclass(frozen=True, slots=True)
class Rollout:
    """A decision's candidates, best first by their rollout."""

    plays: tuple[RolledPlay, ...]
    #: Trials per candidate (bgsage: its batches' trials in all).
    trials: int
    seed: int
    #: The variant's ``score_unit``: "point" or "pip".
    unit: str
    #: "bgsage" (classic, bgsage's rollouts) or "generic".
    method: str
    level: str
    #: Turns played before the evaluation takes over; 0: every trial to the end of the game.
    truncate: int
    seconds: float


def check_level(level: str) -> None:
    if level not in ROLLOUT_LEVELS:
        raise ValueError(f"unknown level {level!r} (one of {', '.join(ROLLOUT_LEVELS)})")


def _bgsage() -> bool:
    try:
        import bgsage  # noqa: F401
    except ImportError:
        return False
    return True


def rollout(
    rules: Variant,
    pos: Position,
    dice: Dice,
    *,
    trials: int | None = None,
    seconds: float | None = None,
    level: str = EVALUATION,
    truncate: int = 0,
    candidates: int | None = DEFAULT_CANDIDATES,
    seed: int = 0,
    progress: Progress | None = None,
) -> Rollout:
    """Roll out the best ``candidates`` plays (None: all) of ``dice`` in ``pos`` (X to play).

    ``trials`` per candidate at most (None: ``DEFAULT_TRIALS``, bgsage's
    ``DEFAULT_BGSAGE_TRIALS``), stopping once ``seconds`` have passed (after at least
    ``MIN_TRIALS``); ``truncate`` > 0 ends each trial after that many turns with the
    evaluation's value of the position reached.
    """
    check_level(level)
    classic = rules.has_cube and _bgsage()
    if trials is None:
        trials = DEFAULT_BGSAGE_TRIALS if classic else DEFAULT_TRIALS
    if trials < 1 or truncate < 0 or (candidates is not None and candidates < 1):
        raise ValueError("trials and candidates must be positive, truncate not negative")
    started = time.monotonic()
    deadline = None if seconds is None else started + seconds
    ranked = _first_looks(rules, pos, dice, classic)
    chosen = ranked if candidates is None else ranked[:candidates]
    if classic:
        values = _bgsage_values(
            rules, pos, chosen, trials, deadline, level, truncate, seed, progress
        )
        method, made = "bgsage", len(values[0]) * BATCH
    else:
        roller = _Roller(rules, level, truncate, seed)
        values = roller.values(dice, [p for p, _ in chosen], trials, deadline, progress)
        method, made = "generic", len(values[0])
    return Rollout(
        plays=_summary(chosen, values),
        trials=made,
        seed=seed,
        unit=rules.score_unit,
        method=method,
        level=level,
        truncate=truncate,
        seconds=time.monotonic() - started,
    )


def trial_values(
    rules: Variant,
    pos: Position,
    dice: Dice,
    plays: Sequence[Play],
    *,
    trials: int,
    level: str = EVALUATION,
    truncate: int = 0,
    seed: int = 0,
    evaluation: PositionEvaluator | None = None,
) -> list[list[float]]:
    """Each of ``plays``' results per trial (classic on bgsage: per batch of ``BATCH``), the
    same dice for every play: for callers that pool several seeds' trials themselves (the
    benchmark builder stops a decision once its best play is separated).

    ``evaluation``: the trials are played greedily on it and truncated trials valued by it,
    through the engine in every variant, classic included (the benchmark's cross-check has the
    hand evaluation referee what the learned one screened)."""
    check_level(level)
    if evaluation is not None:
        roller = _Roller(rules, EVALUATION, truncate, seed, evaluation)
        return roller.values(dice, plays, trials, None, None)
    chosen = [(p, 0.0) for p in plays]
    if rules.has_cube and _bgsage():
        return _bgsage_values(rules, pos, chosen, trials, None, level, truncate, seed, None)
    return _Roller(rules, level, truncate, seed).values(dice, plays, trials, None, None)


def _first_looks(
    rules: Variant, pos: Position, dice: Dice, classic: bool
) -> list[tuple[Play, float]]:
    """Every legal play with its first-look value, best first.

    Classic: bgsage's 1-ply network. The variants: the strongest level's ranking (its search
    of the closest plays included), without a time limit so the candidates never depend on
    the machine's load.
    """
    if classic:
        from ai.classic import first_look

        ranked = first_look(pos, dice)
    else:
        ranked = rank_hand(rules, pos, dice, level=STRONGEST, deadline=time.monotonic() + _FAR)
    return [(r.play, r.equity) for r in ranked]


def _summary(
    chosen: Sequence[tuple[Play, float]], values: Sequence[Sequence[float]]
) -> tuple[RolledPlay, ...]:
    """Means, errors and paired differences to the best, best first."""
    data = np.array(values, dtype=np.float64)  # (candidates, trials)
    n = data.shape[1]
    means = data.mean(axis=1)
    ses = data.std(axis=1, ddof=1) / math.sqrt(n) if n > 1 else np.zeros(len(chosen))
    # Ties keep the first look's order (the ranking's better-known value first).
    order = sorted(range(len(chosen)), key=lambda c: -means[c])
    best = order[0]
    out = []
    for c in order:
        diffs = data[c] - data[best]
        diff_se = float(diffs.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
        out.append(
            RolledPlay(
                play=chosen[c][0],
                equity=float(means[c]),
                se=float(ses[c]),
                diff=float(diffs.mean()),
                diff_se=diff_se,
                unpaired_se=0.0 if c == best else math.hypot(ses[c], ses[best]),
                first_look=chosen[c][1],
            )
        )
    return tuple(out)


def _score(result: Result) -> float:
    """The result's value for X of the position it judges."""
    if result.winner is None:
        return 0.0
    return float(result.points) if result.winner == "X" else -float(result.points)


def _rng(kind: str, seed: int, trial: int) -> random.Random:
    # A string seed is hashed (SHA-512), the same in every process and Python run.
    return random.Random(f"rollout:{kind}:{seed}:{trial}")


def first_roll(seed: int, trial: int) -> Roll:
    """The opponent's first roll in ``trial``: each block of 36 trials has every ordered roll
    once, in an order drawn from the seed."""
    block, at = divmod(trial, len(_FIRST_ROLLS))
    order = _rng("first", seed, block).sample(range(len(_FIRST_ROLLS)), len(_FIRST_ROLLS))
    return _FIRST_ROLLS[order[at]]


class _Roller:
    """The generic rollout: trials played through the engine's legal plays."""

    def __init__(
        self,
        rules: Variant,
        level: str,
        truncate: int,
        seed: int,
        evaluation: PositionEvaluator | None = None,
    ) -> None:
        self.rules = rules
        self.truncate = truncate
        self.seed = seed
        name = STRONGEST if level == EVALUATION else level
        self.ev: PositionEvaluator = (
            level_evaluation(rules.id, name) if evaluation is None else evaluation
        )
        self.choose: Chooser = self._greedy if level == EVALUATION else self._levelled(level)

    # the players

    def _greedy(self, pos: Position, dice: Dice, plays: Sequence[Play], rng: random.Random) -> Play:
        eq, _ = self.ev.evaluate(self.rules, [p.after for p in plays])
        return plays[int(np.argmax(eq))]

    def _levelled(self, level: str) -> Chooser:
        rules = self.rules

        def choose(pos: Position, dice: Dice, plays: Sequence[Play], rng: random.Random) -> Play:
            deadline = time.monotonic() + _FAR
            ranked = rank_hand(
                rules, pos, dice, level=level, deadline=deadline, rng=rng, plays=list(plays)
            )
            return ranked[0].play

        return choose

    def _pick(self, pos: Position, dice: Dice, rng: random.Random) -> Play:
        plays = legal_plays(pos, dice, self.rules)
        return plays[0] if len(plays) == 1 else self.choose(pos, dice, plays, rng)

    # the trials

    def values(
        self,
        dice: Dice,
        plays: Sequence[Play],
        trials: int,
        deadline: float | None,
        progress: Progress | None,
    ) -> list[list[float]]:
        """Each play's result per trial; a round of trials (one per play) is started only
        when it is expected to end before the deadline."""
        out: list[list[float]] = [[] for _ in plays]
        started = time.monotonic()
        for i in range(trials):
            if deadline is not None and i >= MIN_TRIALS:
                per_round = (time.monotonic() - started) / i
                if time.monotonic() + per_round > deadline:
                    break
            first = first_roll(self.seed, i)
            for values, play in zip(out, plays, strict=True):
                dice_rng = _rng("dice", self.seed, i)
                player_rng = _rng("player", self.seed, i)
                values.append(self.trial(play, dice, first, dice_rng, player_rng))
            if progress is not None:
                progress(i + 1, trials)
        return out

    def trial(
        self,
        play: Play,
        dice: Dice,
        first: Roll,
        dice_rng: random.Random,
        player_rng: random.Random,
    ) -> float:
        """One play-out of ``play`` (made with ``dice``): its result for the player making it."""
        rules = self.rules
        pos = play.after
        result = rules.result(pos)
        if result is not None:
            return _score(result)
        sign = 1.0  # +1 while pos is in the frame of the player who made ``play``
        if isinstance(dice, ChainDice):
            # The rest of the chain first. [vxk] with k < 4 was just handed over; plain dd is
            # the roller's first decision; [vx4] is taken as the roller going on.
            m, k = len(play.steps), dice.copies
            higher = tuple((v, 4) for v in range(dice.value + 1, 7))
            if m == k:
                state = self._chain(pos, sign, higher, False, sign, player_rng)
            elif k < 4 and m == 0:
                state = (pos.flip(), -sign, None)  # both stuck: the chain is over
            else:
                rest = ((dice.value, k - m), *higher)
                state = self._chain(pos.flip(), -sign, rest, True, sign, player_rng)
            pos, sign, value = state
            if value is not None:
                return value
        else:
            pos, sign = pos.flip(), -sign
        # pos: the player about to roll is X (``sign`` from the first player's side).
        for turn in range(MAX_TURNS):
            if self.truncate and turn >= self.truncate:
                break
            roll = first if turn == 0 else Roll.of(dice_rng.randint(1, 6), dice_rng.randint(1, 6))
            if roll.is_double and rules.chains_doubles:
                pending = tuple((v, 4) for v in range(roll.high, 7))
                pos, sign, value = self._chain(pos, sign, pending, False, sign, player_rng, True)
                if value is not None:
                    return value
                continue
            plays = legal_plays(pos, roll, rules)
            if len(plays) == 1:
                if not plays[0].steps and self._dead(pos):
                    return 0.0
                chosen = plays[0]
            else:
                chosen = self.choose(pos, roll, plays, player_rng)
            result = rules.result(chosen.after)
            if result is not None:
                return sign * _score(result)
            pos, sign = chosen.after.flip(), -sign
        # The evaluation values positions right after X's play, O on roll: seen by the other
        # player, that is this one, X about to roll.
        eq, _ = self.ev.evaluate(rules, [pos.flip()])
        return -sign * float(eq[0])

    def _dead(self, pos: Position) -> bool:
        """Neither player can ever move again (RULES §2.9): a draw."""
        rules = self.rules
        return not rules.can_step(pos) and not rules.can_step(pos.flip())

    def _chain(
        self,
        pos: Position,
        sign: float,
        pending: tuple[tuple[int, int], ...],
        just_received: bool,
        roller: float,
        rng: random.Random,
        rolled: bool = False,
    ) -> tuple[Position, float, float | None]:
        """Play an Express chain (RULES §6) on from a decision of X of ``pos`` (the controller,
        ``sign``) on ``pending``: (the position with the next roller as X, his sign, None), or
        the game's result for the first player when it ends in the chain."""
        rules = self.rules
        while pending:
            value, copies = pending[0]
            dice = ChainDice(value, copies, rolled=rolled)
            plays = legal_plays(pos, dice, rules)
            if len(plays) == 1:
                if rolled and not plays[0].steps and self._dead(pos):
                    return pos, sign, 0.0
                play = plays[0]
            else:
                play = self.choose(pos, dice, plays, rng)
            rolled = False
            result = rules.result(play.after)
            if result is not None:
                return play.after, sign, sign * _score(result)
            pos = play.after
            m = len(play.steps)
            if m == copies:
                pending, just_received = pending[1:], False
            elif just_received and m == 0:
                break  # both players stuck: the rest is forfeited
            else:
                pending = ((value, copies - m), *pending[1:])
                pos, sign, just_received = pos.flip(), -sign, True
        # After the chain the roller's opponent rolls (§6.4).
        if sign == roller:
            return pos.flip(), -sign, None
        return pos, sign, None


# --- classic on bgsage ----------------------------------------------------------------------


def _bgsage_values(
    rules: Variant,
    pos: Position,
    chosen: Sequence[tuple[Play, float]],
    trials: int,
    deadline: float | None,
    level: str,
    truncate: int,
    seed: int,
    progress: Progress | None,
) -> list[list[float]]:
    """Each candidate's mean per batch of ``BATCH`` bgsage trials, every candidate of a batch
    rolled with the batch's seed (the same dice): the batches pair like trials."""
    from ai.classic import CLASSIC_LEVELS, rollout_boards, to_board

    plies = 1 if level == EVALUATION else CLASSIC_LEVELS[level].plies
    batches = max(MIN_TRIALS, math.ceil(trials / BATCH))
    before = to_board(pos)
    boards, exact = [], {}
    for c, (play, _) in enumerate(chosen):
        result = rules.result(play.after)
        if result is not None:
            exact[c] = _score(result)  # the game is over: nothing to roll
        else:
            boards.append(to_board(play.after))
    out: list[list[float]] = [[] for _ in chosen]
    started = time.monotonic()
    for b in range(batches):
        if deadline is not None and b >= MIN_TRIALS:
            per_batch = (time.monotonic() - started) / b
            if time.monotonic() + per_batch > deadline:
                break
        batch_seed = _rng("bgsage", seed, b).getrandbits(31)
        rolled = iter(rollout_boards(before, boards, BATCH, batch_seed, truncate, plies))
        for c, values in enumerate(out):
            values.append(exact[c] if c in exact else next(rolled))
        if progress is not None:
            progress((b + 1) * BATCH, batches * BATCH)
    return out
