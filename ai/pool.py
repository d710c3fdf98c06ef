"""The computer players for the bot: decisions run in worker processes, never on the event loop.

``AIPool`` keeps ``workers`` processes (``spawn``: no copy of the bot's threads or sockets) and a
bounded queue of decisions. Each decision has a deadline: the player answers with its best
play found by then, and a worker that overruns it by ``grace`` seconds (a bug, a pathological
position) is killed and replaced, the caller getting ``DecisionTimeout``. Workers die with the
bot: ``close()`` stops them, and should the bot die without closing (SIGTERM, SIGKILL, a crash)
each worker notices at once (Linux ``PR_SET_PDEATHSIG``), or within half a second (its parent
process id changes), or at its next read (the pipe to the parent is closed).

Besides choosing a play it ranks plays (hints), answers cube questions (classic), values a
position for the player about to act (offers to resign) and reviews a finished game: equity
lost by each played move against the best, and the luck of each roll where the evaluation
gives it (classic).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import os
import random
import signal
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from ai.types import STRONGEST, MatchContext, PositionValue, RankedPlay
from child_process import bare_main, die_with_parent
from engine import Dice, Play, Position, Variant, legal_plays, parse_play

log = logging.getLogger(__name__)


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


# --- the worker process ------------------------------------------------------------------------


def _rank(job: dict[str, Any]) -> list[RankedPlay]:
    from ai.players import rank_plays

    return rank_plays(
        job["rules"],
        job["position"],
        job["dice"],
        level=job["level"],
        deadline=job["deadline"],
        rng=random.Random(job["seed"]),
        match=job["match"],
    )


def _review_one(job: dict[str, Any]) -> ReviewItem:
    rules: Variant = job["rules"]
    decision: ReviewDecision = job["decision"]
    pos, dice = decision.position, decision.dice
    plays = legal_plays(pos, dice, rules)
    if isinstance(decision.played, str):
        played_after = parse_play(pos, plays, decision.played).after
    else:
        played_after = decision.played
    ranked = _rank({**job, "position": pos, "dice": dice, "match": decision.match})
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


def _cube(job: dict[str, Any]) -> Any:
    from ai.classic import cube_action, take_decision

    if job["take"]:
        return take_decision(
            job["position"], job["match"], level=job["level"], deadline=job["deadline"]
        )
    return cube_action(job["position"], job["match"], level=job["level"], deadline=job["deadline"])


def _evaluate(job: dict[str, Any]) -> PositionValue:
    from ai.value import position_value

    return position_value(
        job["rules"],
        job["position"],
        dice=job["dice"],
        match=job["match"],
        level=job["level"],
        deadline=job["deadline"],
    )


def _handle(kind: str, job: dict[str, Any]) -> Any:
    if kind == "rank":
        return _rank(job)
    if kind == "choose":
        return _rank(job)[0].play
    if kind == "review":
        return _review_one(job)
    if kind == "cube":
        return _cube(job)
    if kind == "evaluate":
        return _evaluate(job)
    if kind == "ping":
        return os.getpid()
    if kind == "sleep":  # for tests: a decision that ignores its deadline
        time.sleep(job["seconds"])
        return None
    raise ValueError(f"unknown job {kind!r}")


def _worker_main(conn: Connection, parent: int, warm: bool, niceness: int = 0) -> None:
    die_with_parent(parent)
    if niceness > 0:
        # Below the bot from the first instruction on (a replaced worker too): on a small
        # machine the bot's replies come first, the computer thinks with what is left.
        with contextlib.suppress(OSError):
            os.nice(niceness)
    # Ctrl-C in a terminal reaches the whole process group: the bot decides when workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if warm:
        with contextlib.suppress(Exception):
            import ai.players  # noqa: F401  (loads the evaluation before the first decision)
            from ai.classic import warm_up

            warm_up()
    try:
        conn.send(("ready", os.getpid()))
    except (OSError, ValueError):
        return
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        kind, job = message
        try:
            # The receipt: a decision whose worker dies before it is sent is safely retried.
            conn.send(("started", None))
        except (OSError, ValueError):
            return
        try:
            reply: tuple[bool, Any] = (True, _handle(kind, job))
        except Exception as exc:
            reply = (False, f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


# --- the pool (event-loop side) ----------------------------------------------------------------

#: Thread counts of the numeric libraries a worker may load (OpenBLAS under numpy starts a
#: thread per core otherwise): one decision is one core's work, the rest belongs to the bot.
_THREAD_LIMITS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def _single_threaded_numerics() -> Iterator[None]:
    """The environment a worker starts with (spawn copies it): one numeric thread, unless the
    operator set a count."""
    added = [name for name in _THREAD_LIMITS if name not in os.environ]
    for name in added:
        os.environ[name] = "1"
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


@dataclass(slots=True)
class _Job:
    kind: str
    job: dict[str, Any]
    time_limit: float
    future: asyncio.Future[Any]


class _Slot:
    __slots__ = ("conn", "process", "reading", "ready")

    def __init__(self) -> None:
        self.process: multiprocessing.process.BaseProcess | None = None
        self.conn: Connection | None = None
        #: The worker has loaded the players (decisions are sent only then, so that loading
        #: the networks never eats into a decision's deadline).
        self.ready = False
        #: The pending blocking read on ``conn`` (run on a pool thread), if any.
        self.reading: Future[Any] | None = None


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
        if not 0 <= niceness <= 19:
            raise ValueError("niceness is 0 to 19 (how much lower than the caller's priority)")
        self.workers = workers
        self.niceness = niceness
        self.time_limit = time_limit
        self.grace = grace
        self.start_timeout = start_timeout
        self._warm = warm
        # Decisions of live games (and hints) go before review items, in arrival order.
        self._queue: asyncio.PriorityQueue[tuple[int, int, _Job]] = asyncio.PriorityQueue(
            queue_size
        )
        self._arrivals = itertools.count()
        # Review items waiting in the queue at once: at most one per worker, so that a long
        # review never fills the queue nor delays a live decision by more than one item.
        self._background = asyncio.Semaphore(workers)
        self._slots = [_Slot() for _ in range(workers)]
        self._tasks: list[asyncio.Task[None]] = []
        # Blocking pipe reads happen on these threads, one per worker, never on the loop.
        # (Twice as many as workers: a read left behind by a replaced worker ends only once the
        # kernel has closed that worker's end.)
        self._threads = ThreadPoolExecutor(max_workers=2 * workers, thread_name_prefix="ai-pool")
        self._context = multiprocessing.get_context("spawn")
        self._started = False
        self._closed = False

    # lifecycle

    async def start(self) -> None:
        if self._started:
            return
        self._started = True
        for slot in self._slots:
            self._spawn(slot)
            self._tasks.append(asyncio.create_task(self._serve(slot), name="ai-pool-worker"))

    async def __aenter__(self) -> AIPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def worker_pids(self) -> list[int]:
        return [
            s.process.pid
            for s in self._slots
            if s.process is not None and s.process.pid is not None and s.process.is_alive()
        ]

    @property
    def queued(self) -> int:
        return self._queue.qsize()

    def _spawn(self, slot: _Slot) -> None:
        # Always from the event-loop thread: PR_SET_PDEATHSIG fires when the *thread* that
        # created the worker ends, so a short-lived helper thread must never spawn one.
        parent_end, child_end = self._context.Pipe()
        process = self._context.Process(
            target=_worker_main,
            args=(child_end, os.getpid(), self._warm, self.niceness),
            name="ai-worker",
            daemon=True,
        )
        with bare_main(), _single_threaded_numerics():
            process.start()
        child_end.close()
        slot.process, slot.conn, slot.ready = process, parent_end, False

    def _kill(self, slot: _Slot) -> None:
        if slot.process is not None and slot.process.is_alive():
            with contextlib.suppress(Exception):
                slot.process.kill()
        conn, reading = slot.conn, slot.reading
        slot.conn = slot.reading = None
        if conn is None:
            return
        if reading is None or reading.done():
            conn.close()
        else:
            # A thread is still reading it: closing now could hand its descriptor number to
            # the next worker's pipe under that thread's feet. Close once the read ends (the
            # killed worker's end is closed by the kernel, so it ends).
            reading.add_done_callback(lambda _f: conn.close())

    def _read(self, slot: _Slot) -> asyncio.Future[Any]:
        conn = slot.conn
        assert conn is not None
        reading = self._threads.submit(conn.recv)
        slot.reading = reading
        return asyncio.wrap_future(reading)

    async def close(self, timeout: float = 2.0) -> None:
        """Stop every worker; queued decisions fail with PoolClosed."""
        if self._closed:
            return
        self._closed = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        while not self._queue.empty():
            _, _, job = self._queue.get_nowait()
            if not job.future.done():
                job.future.set_exception(PoolClosed("the computer players are shut down"))
        for slot in self._slots:
            if slot.conn is not None:
                with contextlib.suppress(Exception):
                    slot.conn.send(None)
        # Polled rather than joined on a thread: the pool's threads may all be blocked reading
        # from workers that are busy with a decision.
        end = time.monotonic() + timeout
        while time.monotonic() < end and any(
            s.process is not None and s.process.is_alive() for s in self._slots
        ):
            await asyncio.sleep(0.02)
        for slot in self._slots:
            self._kill(slot)
        end = time.monotonic() + 2.0
        while time.monotonic() < end and any(
            s.process is not None and s.process.is_alive() for s in self._slots
        ):
            await asyncio.sleep(0.02)
        self._threads.shutdown(wait=False, cancel_futures=True)

    # the dispatcher: one task per worker

    async def _ready(self, slot: _Slot) -> None:
        """Wait until the slot's worker has started; replace it if it fails to."""
        while not slot.ready:
            if slot.process is None or not slot.process.is_alive():
                self._kill(slot)
                self._spawn(slot)
            conn = slot.conn
            assert conn is not None
            try:
                hello = await asyncio.wait_for(self._read(slot), timeout=self.start_timeout)
                slot.ready = hello[0] == "ready"
            except (TimeoutError, EOFError, OSError, ValueError, TypeError, IndexError):
                pass
            if not slot.ready:
                log.warning("computer player worker failed to start; retrying")
                self._kill(slot)
                await asyncio.sleep(1.0)
                self._spawn(slot)

    async def _run(self, slot: _Slot, item: _Job) -> tuple[bool, Any]:
        """Send ``item`` to the slot's worker and read its reply; replace a worker that dies.

        A worker found dead before it acknowledged the decision (it died while idle) is
        replaced and the decision sent again; once acknowledged, a death fails the decision.
        """
        for attempt in range(3):
            if slot.process is None or not slot.process.is_alive():
                self._kill(slot)
                self._spawn(slot)
            await self._ready(slot)
            conn = slot.conn
            assert conn is not None
            item.job["deadline"] = time.monotonic() + item.time_limit
            started = False
            try:
                conn.send((item.kind, item.job))
                receipt = await asyncio.wait_for(self._read(slot), timeout=self.start_timeout)
                started = receipt[0] == "started"
                if not started:
                    raise OSError(f"unexpected message {receipt[0]!r}")
                reply: tuple[bool, Any] = await asyncio.wait_for(
                    self._read(slot), timeout=item.time_limit + self.grace
                )
                return reply
            except TimeoutError:
                log.warning("computer decision %s overran its deadline; worker replaced", item.kind)
                self._kill(slot)
                self._spawn(slot)
                raise DecisionTimeout(
                    f"no answer within {item.time_limit + self.grace:.1f} s"
                ) from None
            except (EOFError, OSError, ValueError, TypeError, IndexError) as exc:
                log.warning("computer player worker died (%r); replaced", exc)
                self._kill(slot)
                self._spawn(slot)
                if started or attempt == 2:
                    raise WorkerFailed("the worker process died") from None
        raise WorkerFailed("the worker process died")  # not reached: the loop returns or raises

    async def _serve(self, slot: _Slot) -> None:
        while True:
            if slot.process is None or not slot.process.is_alive():
                self._kill(slot)
                self._spawn(slot)
            await self._ready(slot)
            _, _, item = await self._queue.get()
            if item.future.done():  # the caller gave up while it waited
                continue
            try:
                reply = await self._run(slot, item)
            except asyncio.CancelledError:
                if not item.future.done():
                    item.future.set_exception(PoolClosed("the computer players are shut down"))
                raise
            except PoolError as exc:
                if not item.future.done():
                    item.future.set_exception(exc)
                continue
            ok, value = reply
            if item.future.done():
                continue
            if ok:
                item.future.set_result(value)
            else:
                item.future.set_exception(WorkerFailed(value))

    async def _submit(
        self,
        kind: str,
        job: dict[str, Any],
        time_limit: float | None,
        wait: float | None,
        *,
        background: bool = False,
    ) -> Any:
        if self._closed or not self._started:
            raise PoolClosed("the computer players are not running")
        limit = self.time_limit if time_limit is None else time_limit
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        entry = (1 if background else 0, next(self._arrivals), _Job(kind, job, limit, future))
        try:
            if wait is None:
                await self._queue.put(entry)
            elif wait <= 0:
                self._queue.put_nowait(entry)
            else:
                await asyncio.wait_for(self._queue.put(entry), timeout=wait)
        except (asyncio.QueueFull, TimeoutError):
            raise PoolBusy("too many computer decisions are waiting") from None
        try:
            return await future
        finally:
            if not future.done():
                future.cancel()

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
        job = {"rules": rules, "position": position, "dice": dice, "level": level}
        job |= {"match": match, "seed": seed}
        play: Play = await self._submit("choose", job, time_limit, wait)
        return play

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
        job = {"rules": rules, "position": position, "dice": dice, "level": level}
        job |= {"match": match, "seed": seed}
        if not background:
            ranked: list[RankedPlay] = await self._submit("rank", job, time_limit, wait)
            return ranked
        async with self._background:
            ranked = await self._submit("rank", job, time_limit, wait, background=True)
        return ranked

    async def cube(
        self,
        position: Position,
        match: MatchContext | None = None,
        *,
        level: str = STRONGEST,
        time_limit: float | None = None,
        wait: float | None = 5.0,
    ) -> Any:
        """Classic: should X (about to roll) double? An ``ai.classic.CubeAction``."""
        job = {"position": position, "match": match, "level": level, "take": False}
        return await self._submit("cube", job, time_limit, wait)

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
        job = {"position": position, "match": match, "level": level, "take": True}
        answer: bool = await self._submit("cube", job, time_limit, wait)
        return answer

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
        job = {"rules": rules, "position": position, "dice": dice, "match": match}
        job["level"] = level
        value: PositionValue = await self._submit("evaluate", job, time_limit, wait)
        return value

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

        async def one(decision: ReviewDecision) -> ReviewItem | None:
            job = {"rules": rules, "decision": decision, "level": level, "seed": 0}
            try:
                async with self._background:
                    item: ReviewItem = await self._submit(
                        "review", job, time_limit, None, background=True
                    )
            except (DecisionTimeout, WorkerFailed) as exc:
                log.info("review: a decision could not be judged: %s", exc)
                return None
            return item

        return list(await asyncio.gather(*(one(d) for d in decisions)))

    async def ping(self, *, time_limit: float = 5.0) -> int:
        """A worker's process id, once it is up (for health checks and tests)."""
        pid: int = await self._submit("ping", {}, time_limit, None)
        return pid
