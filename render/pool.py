"""Drawing in worker processes: :class:`RenderPool` runs picture functions (board, charts) off
the bot's event loop and off its GIL.

A board costs ~2 ms of CPU (bench/render.py: composing it from cached tiles, most of it
holding the GIL, then ~0.5 ms of PNG encoding); in a thread of the bot that still slows every
other player's command. The pool is a typed client of the bot's worker layer
(``workers.WorkerPool``: processes that die with the bot, read by the event loop itself,
replaced when they die or hang). Jobs wait in two lanes: ``urgent`` (boards of games between
people) and ``background`` (games against the computer, charts); a free worker always takes
an urgent job first, and a background job only goes to an idle worker. Each worker holds at
most ``DEPTH`` jobs, so a worker starts its next picture while the bot is still busy reading
the previous one. A worker that dies is replaced; the picture it was drawing is retried once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TypeVar, TypeVarTuple

import workers
from workers import WorkerPool

R = TypeVar("R")
Ts = TypeVarTuple("Ts")

#: Jobs sent to one worker before its first reply came back.
DEPTH = 2
#: A job not answered within this many seconds means a hung worker: it is killed and replaced.
JOB_TIMEOUT = 30.0
#: Attempts per job (a worker dying under a job retries it once on another).
ATTEMPTS = 2


class RenderError(Exception):
    """A picture the pool could not draw."""


class RenderPoolClosed(RenderError):
    """The pool is shut down (or was never started)."""


def _warm() -> None:
    from render.board import warm_up

    # The default theme only: each theme's caches cost ~10 MB per worker, and a board in
    # another theme builds its own the first time it is drawn (~0.5 s, once per worker).
    warm_up(("default",))


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    """The worker layer's errors as this pool's."""
    try:
        yield
    except workers.PoolClosed:
        raise RenderPoolClosed("the render pool is not running") from None
    except workers.WorkerDied:
        raise RenderError("the render worker died") from None
    except workers.WorkerError as exc:
        raise RenderError(str(exc)) from None


class RenderPool:
    """Picture functions run in worker processes.

    ``await pool.start()`` ... ``await pool.close()`` (or ``async with``). ``await
    pool.run(fn, *args)`` returns ``fn(*args)`` computed in a worker; ``fn`` and the arguments
    must be picklable (a module-level function).
    """

    def __init__(self, workers: int = 2, *, niceness: int = 0) -> None:
        if workers < 1:
            raise ValueError("a render pool needs at least one worker")
        self.workers = workers
        self.niceness = niceness
        self._pool = WorkerPool(
            workers,
            name="render",
            depth=DEPTH,
            timeout=JOB_TIMEOUT,
            attempts=ATTEMPTS,
            niceness=niceness,
            init=_warm,
        )

    async def start(self) -> None:
        """Start every worker; when this returns each has built its picture caches."""
        with _translated():
            await self._pool.start(wait=True)

    async def __aenter__(self) -> RenderPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def running(self) -> bool:
        return self._pool.running

    def worker_pids(self) -> list[int]:
        return self._pool.worker_pids()

    async def close(self, timeout: float = 2.0) -> None:
        """Stop every worker; waiting and unfinished jobs fail with :class:`RenderPoolClosed`."""
        await self._pool.close(timeout)

    async def run(self, fn: Callable[[*Ts], R], *args: *Ts, urgent: bool = True) -> R:
        """``fn(*args)`` computed in a worker. Raises :class:`RenderError` if it raised there
        (or its worker died twice under it, or hung), :class:`RenderPoolClosed` once closed."""
        with _translated():
            return await self._pool.run(fn, *args, urgent=urgent)


__all__ = [
    "ATTEMPTS",
    "DEPTH",
    "JOB_TIMEOUT",
    "RenderError",
    "RenderPool",
    "RenderPoolClosed",
]
