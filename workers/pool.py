"""Worker processes for the bot's heavy work: :class:`WorkerPool` runs typed job functions
(``await pool.run(fn, *args)`` is ``fn(*args)``, computed in a worker) off the event loop and
off its GIL.

The pool keeps ``workers`` processes (``spawn``: no copy of the bot's threads or sockets), each
with a socket to the bot read by the event loop itself (asyncio streams, no helper threads).
Jobs wait in two lanes, ``urgent`` and background: a free worker takes an urgent job first,
and a background job only goes to an idle worker. The lanes together hold at most
``queue_size`` jobs (back-pressure: a caller waits for room, or gets :class:`PoolBusy`). A
worker holds at most ``depth`` jobs, so it can start its next job while the bot is still
reading the previous reply.

A job has a deadline (``timeout`` seconds from the moment its worker starts it): a worker
that overruns it (a bug, a pathological input) is killed and replaced, the caller getting
:class:`JobTimeout`. A worker that dies is replaced too; the jobs it had not started are sent
again, a started job is retried up to ``attempts`` times in all.

Workers die with the bot: :meth:`WorkerPool.close` stops them, and should the bot die without
closing (SIGTERM, SIGKILL, a crash) each worker notices at once (Linux ``PR_SET_PDEATHSIG``),
or within half a second (its parent process id changes), or at its next read (the socket to
the parent is closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import struct
import time
from collections import deque
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, TypeVar, TypeVarTuple

from workers.process import bare_main, die_with_parent, environment_defaults, lower_priority

log = logging.getLogger(__name__)

R = TypeVar("R")
Ts = TypeVarTuple("Ts")


class WorkerError(Exception):
    """A job the pool could not run."""


class PoolClosed(WorkerError):
    """The pool is shut down (or was never started)."""


class PoolBusy(WorkerError):
    """The queue stayed full: too many jobs are waiting."""


class JobTimeout(WorkerError):
    """The job's worker overran its deadline and was replaced."""


class JobFailed(WorkerError):
    """The job raised in the worker (the message names the exception: ``"ValueError: ..."``)."""


class WorkerDied(WorkerError):
    """The worker died under the job (as many times as the job may be attempted)."""


# --- the worker process ------------------------------------------------------------------------

# Worker → bot messages (pickled tuples): (_READY, pid) once started, (_STARTED,) when it takes
# a job, then (_DONE, value) or (_FAILED, "Type: message").
_READY, _STARTED, _DONE, _FAILED = range(4)
#: Unstarted jobs are re-sent after a worker's death at most this often (a safety net only).
_RESENDS = 3


def _dump(message: tuple[Any, ...]) -> bytes:
    return pickle.dumps(message, pickle.HIGHEST_PROTOCOL)


def _worker_main(
    conn: Connection, parent: int, niceness: int, init: Callable[[], object] | None
) -> None:
    die_with_parent(parent)
    # Ctrl-C in a terminal reaches the whole process group: the bot decides when workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # Lowered from the first instruction on (a replacement worker too).
    lower_priority(niceness)
    if init is not None:
        with contextlib.suppress(Exception):  # a warm-up only: the jobs load what they need
            init()
    started = _dump((_STARTED,))
    try:
        conn.send_bytes(_dump((_READY, os.getpid())))
    except (OSError, ValueError):
        return
    while True:
        try:
            data = conn.recv_bytes()
            # The receipt: a job whose worker dies before it is sent is safely sent again.
            conn.send_bytes(started)
        except (EOFError, OSError, ValueError):
            return
        try:
            fn, args = pickle.loads(data)
            reply = _dump((_DONE, fn(*args)))
        except Exception as exc:
            reply = _dump((_FAILED, f"{type(exc).__name__}: {exc}"))
        try:
            conn.send_bytes(reply)
        except (OSError, ValueError):
            return


# --- the pool (event-loop side) ----------------------------------------------------------------


@dataclass(eq=False)
class _Job:
    payload: bytes
    future: asyncio.Future[Any]
    urgent: bool
    timeout: float | None
    attempts: int
    tries: int = 0
    resends: int = 0
    timer: asyncio.TimerHandle | None = None

    def fail(self, exc: Exception) -> None:
        self.stop_clock()
        if not self.future.done():
            self.future.set_exception(exc)

    def stop_clock(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


@dataclass(eq=False)
class _Worker:
    process: multiprocessing.process.BaseProcess
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    #: Jobs sent, oldest first; the oldest is running once its receipt came (``running``).
    in_flight: deque[_Job] = field(default_factory=deque)
    running: bool = False
    #: It has run ``init`` and said so: jobs go only to ready workers, so that loading never
    #: eats into a job's deadline.
    ready: bool = False
    dead: bool = False
    task: asyncio.Task[None] | None = None


def _frame(payload: bytes) -> bytes:
    """The framing of ``multiprocessing.connection.Connection.send_bytes``."""
    if len(payload) > 0x7FFFFFFF:
        return struct.pack("!iQ", -1, len(payload)) + payload
    return struct.pack("!i", len(payload)) + payload


async def _read_message(reader: asyncio.StreamReader) -> tuple[Any, ...]:
    (size,) = struct.unpack("!i", await reader.readexactly(4))
    if size == -1:
        (size,) = struct.unpack("!Q", await reader.readexactly(8))
    message = pickle.loads(await reader.readexactly(size))
    if not isinstance(message, tuple) or not message:
        raise ValueError(f"unexpected message {message!r}")
    return message


class WorkerPool:
    """Job functions run in worker processes.

    ``await pool.start()`` ... ``await pool.close()`` (or ``async with``). ``await
    pool.run(fn, *args)`` returns ``fn(*args)`` computed in a worker; ``fn`` and the arguments
    must be picklable (a module-level function), and so must its result.

    ``init`` runs in each worker before its first job (a warm-up; its errors are ignored);
    ``env`` holds environment variables the workers start with unless already set;
    ``autostart`` starts the pool at its first job (for a pool used now and then).
    """

    def __init__(
        self,
        workers: int = 1,
        *,
        name: str = "worker",
        queue_size: int | None = None,
        depth: int = 1,
        timeout: float | None = None,
        attempts: int = 1,
        start_timeout: float = 60.0,
        niceness: int = 0,
        init: Callable[[], object] | None = None,
        env: Mapping[str, str] | None = None,
        autostart: bool = False,
    ) -> None:
        if workers < 1 or depth < 1 or attempts < 1:
            raise ValueError("a pool needs at least one worker, depth and attempt")
        if queue_size is not None and queue_size < 1:
            raise ValueError("a bounded queue needs at least one place")
        if not 0 <= niceness <= 19:
            raise ValueError("niceness is 0 to 19 (how much lower than the caller's priority)")
        self.workers = workers
        self.name = name
        self.queue_size = queue_size
        self.depth = depth
        self.timeout = timeout
        self.attempts = attempts
        self.start_timeout = start_timeout
        self.niceness = niceness
        self._init = init
        self._env = dict(env or {})
        self._autostart = autostart
        self._context = multiprocessing.get_context("spawn")
        self._slots: list[_Worker | None] = [None] * workers
        self._urgent: deque[_Job] = deque()
        self._background: deque[_Job] = deque()
        #: Callers waiting for a queue place; woken whenever one frees.
        self._room: list[asyncio.Future[None]] = []
        #: Set (and replaced) whenever a worker becomes ready.
        self._ready_changed = asyncio.Event()
        self._spawning: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._started = False
        self._closed = False

    # lifecycle

    async def start(self, *, wait: bool = False) -> None:
        """Start every worker; with ``wait``, return once each has run ``init``."""
        if self._closed:
            raise PoolClosed(f"the {self.name} pool is shut down")
        if not self._started:
            self._started = True
            await asyncio.gather(*(self._spawn(i) for i in range(self.workers)))
            self._background_task(self._watch(), "watchdog")
        if wait:
            await self.wait_ready()

    async def wait_ready(self) -> None:
        """Return once every worker has started (a replaced one too)."""
        while not all(w is not None and w.ready for w in self._slots):
            if self._closed:
                raise PoolClosed(f"the {self.name} pool is shut down")
            await self._ready_changed.wait()

    async def __aenter__(self) -> WorkerPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def running(self) -> bool:
        return self._started and not self._closed

    @property
    def queued(self) -> int:
        """Jobs waiting for a worker (not those being run)."""
        return len(self._urgent) + len(self._background)

    def worker_pids(self) -> list[int]:
        return [
            w.process.pid
            for w in self._slots
            if w is not None and w.process.pid is not None and w.process.is_alive()
        ]

    async def close(self, timeout: float = 2.0) -> None:
        """Stop every worker; waiting and unfinished jobs fail with :class:`PoolClosed`.
        A worker busy with a job gets ``timeout`` seconds to finish it, then is killed."""
        if self._closed:
            return
        self._closed = True
        closed = PoolClosed(f"the {self.name} pool is shut down")
        for job in (*self._urgent, *self._background):
            job.fail(closed)
        self._urgent.clear()
        self._background.clear()
        self._wake(self._room)
        self._ready_changed.set()
        for task in self._tasks:
            task.cancel()
        workers = [w for w in self._slots if w is not None]
        self._slots = [None] * self.workers
        for worker in workers:
            worker.dead = True
            for job in worker.in_flight:
                job.fail(closed)
            worker.in_flight.clear()
            if worker.task is not None:
                worker.task.cancel()
            with contextlib.suppress(Exception):
                worker.writer.close()  # the worker reads EOF and exits
        # Polled, not joined: a join would block the event loop.
        await _until_gone(workers, timeout)
        for worker in workers:
            _kill(worker)
        await _until_gone(workers, 2.0)
        for worker in workers:
            with contextlib.suppress(Exception):
                worker.process.join(0)  # reaps it
        for task in [*self._tasks, *(w.task for w in workers if w.task is not None)]:
            with contextlib.suppress(BaseException):
                await task

    # jobs

    async def run(
        self,
        fn: Callable[[*Ts], R],
        *args: *Ts,
        urgent: bool = True,
        timeout: float | None = None,
        wait: float | None = None,
    ) -> R:
        """``fn(*args)`` computed in a worker.

        ``timeout``: seconds the worker may spend on it (default: the pool's). ``wait``: how
        long to wait for a queue place when the queue is full (None: as long as it takes; 0:
        not at all). Raises :class:`JobFailed` if it raised there, :class:`JobTimeout`,
        :class:`WorkerDied`, :class:`PoolBusy`, or :class:`PoolClosed` once closed.
        """
        if not self.running:
            if not (self._autostart and not self._closed):
                raise PoolClosed(f"the {self.name} pool is not running")
            await self.start()
        payload = pickle.dumps((fn, args), pickle.HIGHEST_PROTOCOL)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        limit = self.timeout if timeout is None else timeout
        job = _Job(payload, future, urgent, limit, self.attempts)
        await self._enqueue(job, wait)
        try:
            value: R = await future
            return value
        finally:
            if not future.done():  # the caller gave up: free its place at once
                future.cancel()
                lane = self._urgent if urgent else self._background
                if job in lane:
                    lane.remove(job)
                    self._wake(self._room)

    async def _enqueue(self, job: _Job, wait: float | None) -> None:
        end = None if wait is None else time.monotonic() + wait
        while self.queue_size is not None and self.queued >= self.queue_size:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                raise PoolBusy(f"too many {self.name} jobs are waiting")
            room: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._room.append(room)
            try:
                await asyncio.wait_for(room, left)
            except TimeoutError:
                raise PoolBusy(f"too many {self.name} jobs are waiting") from None
            finally:
                with contextlib.suppress(ValueError):
                    self._room.remove(room)
            if self._closed:
                raise PoolClosed(f"the {self.name} pool is shut down")
        (self._urgent if job.urgent else self._background).append(job)
        self._dispatch()

    @staticmethod
    def _wake(waiters: list[asyncio.Future[None]]) -> None:
        # All of them: each checks again, and the ones that find no room wait again.
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _dispatch(self) -> None:
        """Hand waiting jobs to ready workers with room, urgent ones first."""
        taken = False
        while self._urgent or self._background:
            free = [
                w
                for w in self._slots
                if w is not None and w.ready and not w.dead and len(w.in_flight) < self.depth
            ]
            if not self._urgent:
                # A background job only goes to an idle worker: an urgent job then waits
                # behind one of them at most, never behind a queue of them.
                free = [w for w in free if not w.in_flight]
            if not free:
                break
            worker = min(free, key=lambda w: len(w.in_flight))
            job = (self._urgent or self._background).popleft()
            taken = True
            if job.future.done():  # the caller gave up while it waited
                continue
            worker.in_flight.append(job)
            worker.writer.write(_frame(job.payload))
        if taken:
            self._wake(self._room)

    # workers

    async def _spawn(self, index: int) -> None:
        # Always from the event-loop thread: PR_SET_PDEATHSIG fires when the *thread* that
        # created the worker ends, so a short-lived helper thread must never spawn one.
        if index in self._spawning or self._closed:
            return
        self._spawning.add(index)
        try:
            parent_end, child_end = self._context.Pipe(duplex=True)
            process = self._context.Process(
                target=_worker_main,
                args=(child_end, os.getpid(), self.niceness, self._init),
                name=f"{self.name}-worker",
                daemon=True,
            )
            with bare_main(), environment_defaults(self._env):
                process.start()
            child_end.close()
            sock = socket.socket(fileno=os.dup(parent_end.fileno()))
            parent_end.close()
            reader, writer = await asyncio.open_connection(sock=sock)
            worker = _Worker(process, reader, writer)
            if not self.running:  # closed while the worker started
                worker.dead = True
                writer.close()
                _kill(worker)
                return
            self._slots[index] = worker
            worker.task = asyncio.create_task(self._read(index, worker), name=f"{self.name}-reader")
        finally:
            self._spawning.discard(index)

    async def _read(self, index: int, worker: _Worker) -> None:
        """The worker's start, then its messages, in the order its jobs were sent."""
        try:
            hello = await asyncio.wait_for(_read_message(worker.reader), self.start_timeout)
            if hello[0] != _READY:
                raise ValueError(f"unexpected message {hello!r}")
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not (self._closed or worker.dead):
                log.warning("%s worker failed to start (%r); retrying", self.name, exc)
                self._replace(index, worker, delay=1.0)
            return
        worker.ready = True
        changed, self._ready_changed = self._ready_changed, asyncio.Event()
        changed.set()
        self._dispatch()
        try:
            while True:
                message = await _read_message(worker.reader)
                if not worker.in_flight:
                    raise ValueError("a message about no job")
                job = worker.in_flight[0]
                if message[0] == _STARTED:
                    worker.running = True
                    job.tries += 1
                    if job.timeout is not None:
                        job.timer = asyncio.get_running_loop().call_later(
                            job.timeout, self._overdue, index, worker, job
                        )
                    continue
                worker.in_flight.popleft()
                worker.running = False
                job.stop_clock()
                if message[0] == _DONE:
                    if not job.future.done():
                        job.future.set_result(message[1])
                else:
                    job.fail(JobFailed(message[1]))
                self._dispatch()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not (self._closed or worker.dead):
                log.warning("%s worker %s died (%r); replaced", self.name, worker.process.pid, exc)
                self._replace(index, worker)

    def _overdue(self, index: int, worker: _Worker, job: _Job) -> None:
        if worker.dead or not worker.in_flight or worker.in_flight[0] is not job:
            return
        log.warning("a %s job overran its deadline; worker replaced", self.name)
        worker.in_flight.popleft()
        worker.running = False
        job.fail(JobTimeout(f"no answer within {job.timeout:.1f} s"))
        self._replace(index, worker)

    def _replace(self, index: int, worker: _Worker, *, delay: float = 0.0) -> None:
        """Kill ``worker``, put its jobs back (or fail them) and start another in its place."""
        worker.dead = True
        jobs = list(worker.in_flight)
        running = worker.running
        worker.in_flight.clear()
        with contextlib.suppress(Exception):
            worker.writer.close()
        _kill(worker)
        if worker.task is not None and worker.task is not asyncio.current_task():
            worker.task.cancel()
        if self._slots[index] is worker:
            self._slots[index] = None
        # Back at the front of their lanes, in their order; only the first one had started.
        for position, job in reversed(list(enumerate(jobs))):
            job.stop_clock()
            if running and position == 0:
                if job.tries >= job.attempts:
                    job.fail(WorkerDied(f"the {self.name} process died"))
                    continue
            else:
                job.resends += 1
                if job.resends > _RESENDS:
                    job.fail(WorkerDied(f"the {self.name} process died"))
                    continue
            (self._urgent if job.urgent else self._background).appendleft(job)
        if not self._closed:
            self._background_task(self._respawn(index, delay), "respawn")
        self._dispatch()  # another worker may be free for them now

    async def _respawn(self, index: int, delay: float) -> None:
        while not self._closed and self._slots[index] is None:
            if delay:
                await asyncio.sleep(delay)
            # Any next try a second later (also when another task is starting this worker:
            # ``_spawn`` then returns at once, and this loop must not spin).
            delay = 1.0
            try:
                await self._spawn(index)
            except Exception:
                log.exception("cannot start a %s worker; retrying", self.name)

    async def _watch(self) -> None:
        """Reap workers that died without closing their socket (one whose child holds it)."""
        while not self._closed:
            await asyncio.sleep(1.0)
            for index, worker in enumerate(self._slots):
                if worker is not None and not worker.dead and not worker.process.is_alive():
                    log.warning("%s worker %s is gone; replaced", self.name, worker.process.pid)
                    self._replace(index, worker)

    def _background_task(self, coro: Coroutine[Any, Any, None], what: str) -> None:
        task = asyncio.get_running_loop().create_task(coro, name=f"{self.name}-{what}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _kill(worker: _Worker) -> None:
    with contextlib.suppress(Exception):
        if worker.process.is_alive():
            worker.process.kill()
        worker.process.join(0)  # reaps it if it is gone already


async def _until_gone(workers: list[_Worker], timeout: float) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end and any(w.process.is_alive() for w in workers):
        await asyncio.sleep(0.02)


__all__ = [
    "JobFailed",
    "JobTimeout",
    "PoolBusy",
    "PoolClosed",
    "WorkerDied",
    "WorkerError",
    "WorkerPool",
]
