"""The computer players for the bot: decisions run in worker processes, never on the event loop.

``AIPool`` is a typed client of the bot's worker layer (``workers.WorkerPool``: processes that
die with the bot, a bounded queue, replacement of dead or hung workers): ``workers`` processes
and a bounded queue of decisions. Each decision has a deadline: the player answers with its
best play found by then, and a worker that overruns it by ``grace`` seconds (a bug, a
pathological position) is killed and replaced, the caller getting ``DecisionTimeout``.

Besides choosing a play it ranks plays (hints), answers cube questions (classic), values a
position for the player about to act (offers to resign) and reviews a finished game: equity
lost by each played move against the best, and the luck of each roll where the evaluation
gives it (classic). Rollouts (``ai.rollout``) run there too, behind the live decisions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar, TypeVarTuple

import workers
from ai.types import (
    DEFAULT_CANDIDATES,
    EVALUATION,
    STRONGEST,
    MatchContext,
    PositionValue,
    RankedPlay,
)
from engine import Dice, Play, Position, Variant, legal_plays, parse_play
from workers import WorkerPool

if TYPE_CHECKING:
    from ai.classic import CubeAction
    from ai.rollout import Rollout

log = logging.getLogger(__name__)

#: A rollout's thinking time when the caller gives none (seconds).
ROLLOUT_SECONDS = 30.0
#: How much longer than its budget the pool lets a rollout run before it gives up on the
#: worker: a rollout always makes two rounds (two bgsage batches), which can outlast a budget
#: of a few seconds on a loaded machine (bench.deep_hint: classic up to 8.8 s at load 9);
#: a late answer beats a lost one.
ROLLOUT_SLACK = 5.0

R = TypeVar("R")
Ts = TypeVarTuple("Ts")


class PoolError(Exception):
    """A decision the pool could not make."""


class PoolBusy(PoolError):
    """The queue stayed full: too many decisions are waiting."""


class PoolClosed(PoolError):
    """The pool is shut down (or was never started)."""


class DecisionTimeout(PoolError):
    """A worker overran the decision's deadline and was replaced."""


class WorkerFailed(PoolError):
    """The decision raised in the worker, or the worker died."""


@dataclass(frozen=True, slots=True)
class ReviewDecision:
    """One checker play of a finished game, in the mover's frame (mover X)."""

    position: Position
    dice: Dice
    #: The play made: its resulting position, or its notation.
    played: Position | str
    match: MatchContext | None = None


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """The verdict on one decision."""

    played: str
    best: str
    played_equity: float
    best_equity: float
    #: Equity the played move gave up against the best play (0 for the best or a forced play).
    equity_lost: float
    #: How much better or worse this roll was than an average roll, in equity (classic only).
    luck: float | None
    #: Number of legal plays (1 = forced).
    choices: int


# --- the jobs (run in a worker process) --------------------------------------------------------
# Each takes its thinking time rather than a deadline: the clock starts when the worker starts
# the job, not while it waits in the queue.


def _deadline(time_limit: float) -> float:
    return time.monotonic() + time_limit


def _rank(
    rules: Variant,
    position: Position,
    dice: Dice,
    level: str,
    match: MatchContext | None,
    seed: int | None,
    time_limit: float,
) -> list[RankedPlay]:
    from ai.players import rank_plays

    return rank_plays(
        rules,
        position,
        dice,
        level=level,
        deadline=_deadline(time_limit),
        rng=random.Random(seed),
        match=match,
    )


def _choose(
    rules: Variant,
    position: Position,
    dice: Dice,
    level: str,
    match: MatchContext | None,
    seed: int | None,
    time_limit: float,
) -> Play:
    return _rank(rules, position, dice, level, match, seed, time_limit)[0].play


def _review_one(
    rules: Variant, decision: ReviewDecision, level: str, time_limit: float
) -> ReviewItem:
    pos, dice = decision.position, decision.dice
    plays = legal_plays(pos, dice, rules)
    if isinstance(decision.played, str):
        played_after = parse_play(pos, plays, decision.played).after
    else:
        played_after = decision.played
    ranked = _rank(rules, pos, dice, level, decision.match, 0, time_limit)
    by_after = {r.play.after: r for r in ranked}
    mine = by_after.get(played_after)
    if mine is None:
        raise ValueError("the played move is not a legal play of this position")
    best = ranked[0]
    luck = None
    if rules.has_cube:
        from ai.classic import classic_luck

        luck = classic_luck(pos, dice, decision.match)
    return ReviewItem(
        played=mine.play.text,
        best=best.play.text,
        played_equity=mine.equity,
        best_equity=best.equity,
        equity_lost=max(0.0, best.equity - mine.equity) if len(plays) > 1 else 0.0,
        luck=luck,
        choices=len(plays),
    )


def _cube(
    position: Position, match: MatchContext | None, level: str, time_limit: float
) -> CubeAction:
    from ai.classic import cube_action

    return cube_action(position, match, level=level, deadline=_deadline(time_limit))


def _take(position: Position, match: MatchContext | None, level: str, time_limit: float) -> bool:
    from ai.classic import take_decision

    return take_decision(position, match, level=level, deadline=_deadline(time_limit))


def _evaluate(
    rules: Variant,
    position: Position,
    dice: Dice | None,
    match: MatchContext | None,
    level: str,
    time_limit: float,
) -> PositionValue:
    from ai.value import position_value

    return position_value(
        rules, position, dice=dice, match=match, level=level, deadline=_deadline(time_limit)
    )


def _rollout(
    rules: Variant,
    position: Position,
    dice: Dice,
    level: str,
    trials: int | None,
    truncate: int,
    candidates: int | None,
    seed: int,
    time_limit: float,
) -> Rollout:
    from ai.rollout import rollout

    return rollout(
        rules,
        position,
        dice,
        trials=trials,
        seconds=time_limit,
        level=level,
        truncate=truncate,
        candidates=candidates,
        seed=seed,
    )


def _sleep(seconds: float) -> None:
    """For tests: a decision that ignores its deadline."""
    time.sleep(seconds)


def _warm_up() -> None:
    import ai.players  # noqa: F401  (loads the evaluation before the first decision)
    from ai.classic import warm_up

    warm_up()


# --- the pool (event-loop side) ----------------------------------------------------------------

#: Thread counts of the numeric libraries a worker may load (OpenBLAS under numpy starts a
#: thread per core otherwise): one decision is one core's work, the rest belongs to the bot.
_THREAD_LIMITS = {
    name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
}


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    """The worker layer's errors as this pool's."""
    try:
        yield
    except workers.PoolClosed:
        raise PoolClosed("the computer players are not running") from None
    except workers.PoolBusy:
        raise PoolBusy("too many computer decisions are waiting") from None
    except workers.JobTimeout as exc:
        raise DecisionTimeout(str(exc)) from None
    except workers.JobFailed as exc:
        raise WorkerFailed(str(exc)) from None
    except workers.WorkerDied:
        raise WorkerFailed("the worker process died") from None


class AIPool:
    """Decisions of the computer players in a pool of worker processes.

    Use ``async with AIPool() as pool:`` or ``await pool.start()`` ... ``await pool.close()``.
    """

    def __init__(
        self,
        workers: int = 1,
        *,
        queue_size: int = 32,
        time_limit: float = 1.0,
        grace: float = 3.0,
        warm: bool = True,
        start_timeout: float = 60.0,
        niceness: int = 0,
    ) -> None:
        if workers < 1 or queue_size < 1:
            raise ValueError("a pool needs at least one worker and one queue place")
        self.workers = workers
        self.niceness = niceness
        self.time_limit = time_limit
        self.grace = grace
        self.start_timeout = start_timeout
        # One decision per worker at a time: its deadline is its own, never shared with a
        # decision queued behind it. Decisions of live games (and hints) go before review
        # items (background), in arrival order.
        self._pool = WorkerPool(
            workers,
            name="ai",
            queue_size=queue_size,
            depth=1,
            start_timeout=start_timeout,
            niceness=niceness,
            init=_warm_up if warm else None,
            env=_THREAD_LIMITS,
        )
        # Review items waiting in the queue at once: at most one per worker, so that a long
        # review never fills the queue nor delays a live decision by more than one item.
        self._background = asyncio.Semaphore(workers)

    # lifecycle

    async def start(self) -> None:
        """Start the workers (decisions wait until a worker has loaded the players)."""
        with _translated():
            await self._pool.start()

    async def __aenter__(self) -> AIPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def worker_pids(self) -> list[int]:
        return self._pool.worker_pids()

    @property
    def queued(self) -> int:
        return self._pool.queued

    async def close(self, timeout: float = 2.0) -> None:
        """Stop every worker; queued decisions fail with PoolClosed."""
        await self._pool.close(timeout)

    async def _submit(
        self,
        fn: Callable[[*Ts], R],
        *args: *Ts,
        time_limit: float,
        wait: float | None,
        background: bool = False,
    ) -> R:
        """``fn(*args)`` in a worker, given ``time_limit`` seconds to think (and ``grace``)."""
        with _translated():
            return await self._pool.run(
                fn, *args, urgent=not background, timeout=time_limit + self.grace, wait=wait
            )

    def _limit(self, time_limit: float | None) -> float:
        return self.time_limit if time_limit is None else time_limit

    # the decisions

    async def choose(
        self,
        rules: Variant,
        position: Position,
        dice: Dice,
        *,
        level: str = STRONGEST,
        match: MatchContext | None = None,
        time_limit: float | None = None,
        seed: int | None = None,
        wait: float | None = 5.0,
    ) -> Play:
        """The play the computer makes (mover X) within ``time_limit`` seconds of starting."""
        limit = self._limit(time_limit)
        return await self._submit(
            _choose, rules, position, dice, level, match, seed, limit, time_limit=limit, wait=wait
        )

    async def rank(
        self,
        rules: Variant,
        position: Position,
        dice: Dice,
        *,
        level: str = STRONGEST,
        match: MatchContext | None = None,
        time_limit: float | None = None,
        seed: int | None = None,
        wait: float | None = 5.0,
        background: bool = False,
    ) -> list[RankedPlay]:
        """Every legal play, best first, with its equity and winning chance (hints).
        ``background``: for a review, behind the decisions of live games (see ``review``)."""
        limit = self._limit(time_limit)
        args = (rules, position, dice, level, match, seed, limit)
        if not background:
            return await self._submit(_rank, *args, time_limit=limit, wait=wait)
        async with self._background:
            return await self._submit(_rank, *args, time_limit=limit, wait=wait, background=True)

    async def cube(
        self,
        position: Position,
        match: MatchContext | None = None,
        *,
        level: str = STRONGEST,
        time_limit: float | None = None,
        wait: float | None = 5.0,
    ) -> CubeAction:
        """Classic: should X (about to roll) double? An ``ai.classic.CubeAction``."""
        limit = self._limit(time_limit)
        return await self._submit(_cube, position, match, level, limit, time_limit=limit, wait=wait)

    async def take(
        self,
        position: Position,
        match: MatchContext | None = None,
        *,
        level: str = STRONGEST,
        time_limit: float | None = None,
        wait: float | None = 5.0,
    ) -> bool:
        """Classic: should X, just doubled, take? (``position``/``match`` in X's frame.)"""
        limit = self._limit(time_limit)
        return await self._submit(_take, position, match, level, limit, time_limit=limit, wait=wait)

    async def evaluate(
        self,
        rules: Variant,
        position: Position,
        match: MatchContext | None = None,
        *,
        dice: Dice | None = None,
        level: str = STRONGEST,
        time_limit: float | None = None,
        wait: float | None = 5.0,
    ) -> PositionValue:
        """What ``position`` is worth to X, about to roll (``dice`` None) or to play ``dice``:
        equity in the variant's points (cube included) and the chances the evaluation gives
        (``ai.value.position_value``). Answers an offer to resign."""
        limit = self._limit(time_limit)
        args = (rules, position, dice, match, level, limit)
        return await self._submit(_evaluate, *args, time_limit=limit, wait=wait)

    async def review(
        self,
        rules: Variant,
        decisions: Sequence[ReviewDecision],
        *,
        level: str = STRONGEST,
        time_limit: float | None = None,
    ) -> list[ReviewItem | None]:
        """The verdict on each decision of a finished game (None where it could not be judged).

        Decisions run in parallel on the workers, each with its own deadline, behind the
        decisions of live games: at most one review item per worker waits in the queue, and
        any live decision goes before it, so a long review delays a game against the computer
        by one item at most.
        """
        limit = self._limit(time_limit)

        async def one(decision: ReviewDecision) -> ReviewItem | None:
            try:
                async with self._background:
                    return await self._submit(
                        _review_one,
                        *(rules, decision, level, limit),
                        time_limit=limit,
                        wait=None,
                        background=True,
                    )
            except (DecisionTimeout, WorkerFailed) as exc:
                log.info("review: a decision could not be judged: %s", exc)
                return None

        return list(await asyncio.gather(*(one(d) for d in decisions)))

    async def rollout(
        self,
        rules: Variant,
        position: Position,
        dice: Dice,
        *,
        level: str = EVALUATION,
        trials: int | None = None,
        truncate: int = 0,
        candidates: int | None = DEFAULT_CANDIDATES,
        seed: int = 0,
        time_limit: float = ROLLOUT_SECONDS,
        wait: float | None = None,
    ) -> Rollout:
        """The decision's best ``candidates`` plays rolled out (``ai.rollout.rollout``): up
        to ``trials`` each, stopping after ``time_limit`` seconds with the trials made.

        A long job: it waits behind the decisions of live games, as a review item does (one
        per worker at most), and takes one worker for its whole time (``ROLLOUT_SLACK`` more
        at most).
        """
        args = (rules, position, dice, level, trials, truncate, candidates, seed, time_limit)
        async with self._background:
            return await self._submit(
                _rollout,
                *args,
                time_limit=time_limit + ROLLOUT_SLACK,
                wait=wait,
                background=True,
            )

    async def ping(self, *, time_limit: float = 5.0) -> int:
        """A worker's process id, once it is up (for health checks and tests)."""
        return await self._submit(os.getpid, time_limit=time_limit, wait=None)
