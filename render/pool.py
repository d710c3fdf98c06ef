"""Drawing in worker processes: :class:`RenderPool` runs picture functions (board, charts) off
the bot's event loop and off its GIL.

A board costs ~2 ms of CPU (bench/render.py: composing it from cached tiles, most of it
holding the GIL, then ~0.5 ms of PNG encoding); in a thread of the bot that still slows every
other player's command. The pool keeps ``workers`` processes
(``spawn``: no copy of the bot's threads or sockets), each with a socket to the bot read by the
event loop itself (asyncio streams, no helper threads). Jobs wait in two lanes: ``urgent``
(boards of games between people) and ``background`` (games against the computer, charts); a
free worker always takes an urgent job first, and a background job only goes to an idle
worker. Each worker holds at most ``DEPTH`` jobs, so a worker starts its next picture while
the bot is still busy reading the previous one.

Workers die with the bot: :meth:`RenderPool.close` stops them, and should the bot die without
closing (SIGTERM, SIGKILL, a crash) each worker notices at once (Linux ``PR_SET_PDEATHSIG``),
or within half a second (its parent process id changes), or at its next read (the socket to
the parent is closed). A worker that dies or hangs is replaced; its jobs are retried once.
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
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from child_process import bare_main, die_with_parent

log = logging.getLogger(__name__)

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


# --- the worker process ------------------------------------------------------------------------


def background_worker_init(parent: int, niceness: int) -> None:
    """Initializer for a ``concurrent.futures`` process pool of the bot (long replays): the
    same death guarantee as the pool's own workers, at a lower CPU priority. Without it such a
    worker, blocked on a queue whose write end it holds itself, outlives a killed bot forever."""
    die_with_parent(parent)
    with contextlib.suppress(OSError):
        os.nice(niceness)


def _warm() -> None:
    from render.board import warm_up

    # The default theme only: each theme's caches cost ~10 MB per worker, and a board in
    # another theme builds its own the first time it is drawn (~0.5 s, once per worker).
    warm_up(("default",))


def _worker_main(conn: Connection, parent: int, niceness: int) -> None:
    die_with_parent(parent)
    # Ctrl-C in a terminal reaches the whole process group: the bot decides when workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if niceness:
        with contextlib.suppress(OSError):
            os.nice(niceness)
    with contextlib.suppress(Exception):
        _warm()
    while True:
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            fn, args = pickle.loads(data)
            reply: tuple[bool, Any] = (True, fn(*args))
        except Exception as exc:
            reply = (False, f"{type(exc).__name__}: {exc}")
        try:
            conn.send_bytes(pickle.dumps(reply, pickle.HIGHEST_PROTOCOL))
        except (OSError, ValueError):
            return


# --- the pool (event-loop side) ----------------------------------------------------------------


@dataclass(eq=False)
class _Job:
    payload: bytes
    future: asyncio.Future[Any]
    urgent: bool
    attempts: int = 0
    sent_at: float = 0.0


@dataclass(eq=False)
class _Worker:
    process: multiprocessing.process.BaseProcess
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    in_flight: deque[_Job] = field(default_factory=deque)
    task: asyncio.Task[None] | None = None
    dead: bool = False


def _frame(payload: bytes) -> bytes:
    """The framing of ``multiprocessing.connection.Connection.send_bytes``."""
    if len(payload) > 0x7FFFFFFF:
        return struct.pack("!iQ", -1, len(payload)) + payload
    return struct.pack("!i", len(payload)) + payload


async def _read_frame(reader: asyncio.StreamReader) -> bytes:
    (size,) = struct.unpack("!i", await reader.readexactly(4))
    if size == -1:
        (size,) = struct.unpack("!Q", await reader.readexactly(8))
    return await reader.readexactly(size)


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
        self._context = multiprocessing.get_context("spawn")
        self._slots: list[_Worker | None] = [None] * workers
        self._urgent: deque[_Job] = deque()
        self._background: deque[_Job] = deque()
        self._started = False
        self._closed = False
        self._watchdog: asyncio.Task[None] | None = None
        self._spawning: set[int] = set()
        self._respawns: set[asyncio.Task[None]] = set()

    # lifecycle

    async def start(self) -> None:
        """Start every worker; when this returns each has built its picture caches."""
        if self._started:
            return
        self._started = True
        await asyncio.gather(*(self._spawn(i) for i in range(self.workers)))
        self._watchdog = asyncio.create_task(self._watch(), name="render-pool-watchdog")
        await asyncio.gather(*(self.run(os.getpid) for _ in range(self.workers)))

    async def __aenter__(self) -> RenderPool:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def running(self) -> bool:
        return self._started and not self._closed

    def worker_pids(self) -> list[int]:
        return [
            w.process.pid
            for w in self._slots
            if w is not None and w.process.pid is not None and w.process.is_alive()
        ]

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
                args=(child_end, os.getpid(), self.niceness),
                name="render-worker",
                daemon=True,
            )
            with bare_main():
                process.start()
            child_end.close()
            sock = socket.socket(fileno=os.dup(parent_end.fileno()))
            parent_end.close()
            reader, writer = await asyncio.open_connection(sock=sock)
            worker = _Worker(process, reader, writer)
            if not self.running:  # closed while the worker started
                self._stop(worker)
                return
            self._slots[index] = worker
            worker.task = asyncio.create_task(self._read(index, worker), name="render-reader")
        finally:
            self._spawning.discard(index)
        self._dispatch()

    async def close(self, timeout: float = 2.0) -> None:
        """Stop every worker; waiting and unfinished jobs fail with :class:`RenderPoolClosed`."""
        if self._closed:
            return
        self._closed = True
        if self._watchdog is not None:
            self._watchdog.cancel()
        workers = [w for w in self._slots if w is not None]
        self._slots = [None] * self.workers
        for job in (*self._urgent, *self._background):
            _fail(job, RenderPoolClosed("the render pool is shut down"))
        self._urgent.clear()
        self._background.clear()
        for worker in workers:
            worker.dead = True
            worker.writer.close()  # the worker reads EOF and exits
        end = time.monotonic() + timeout
        while time.monotonic() < end and any(w.process.is_alive() for w in workers):
            await asyncio.sleep(0.02)
        for worker in workers:
            self._stop(worker)
            if worker.task is not None:
                worker.task.cancel()
                with contextlib.suppress(BaseException):
                    await worker.task

    def _stop(self, worker: _Worker) -> None:
        worker.dead = True
        with contextlib.suppress(Exception):
            worker.writer.close()
        if worker.process.is_alive():
            with contextlib.suppress(Exception):
                worker.process.kill()
        with contextlib.suppress(Exception):
            worker.process.join(0.5)
        for job in worker.in_flight:
            _fail(job, RenderPoolClosed("the render pool is shut down"))
        worker.in_flight.clear()

    # jobs

    async def run(self, fn: Callable[..., Any], *args: Any, urgent: bool = True) -> Any:
        """``fn(*args)`` computed in a worker. Raises :class:`RenderError` if it raised there
        (or its worker died twice under it), :class:`RenderPoolClosed` once closed."""
        if not self.running:
            raise RenderPoolClosed("the render pool is not running")
        payload = pickle.dumps((fn, args), pickle.HIGHEST_PROTOCOL)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        job = _Job(payload, future, urgent)
        (self._urgent if urgent else self._background).append(job)
        self._dispatch()
        return await future

    def _dispatch(self) -> None:
        """Hand waiting jobs to workers with room, urgent ones first."""
        while self._urgent or self._background:
            free = [
                w for w in self._slots if w is not None and not w.dead and len(w.in_flight) < DEPTH
            ]
            if not self._urgent:
                # A background picture (a game against the computer, a chart) only goes to an
                # idle worker: a board of a game between people then waits behind one of
                # them at most, never behind a queue of them.
                free = [w for w in free if not w.in_flight]
            if not free:
                return
            worker = min(free, key=lambda w: len(w.in_flight))
            job = (self._urgent or self._background).popleft()
            if job.future.done():  # the caller gave up while it waited
                continue
            job.attempts += 1
            job.sent_at = time.monotonic()
            worker.in_flight.append(job)
            worker.writer.write(_frame(job.payload))

    async def _read(self, index: int, worker: _Worker) -> None:
        """Replies of one worker, in the order its jobs were sent."""
        try:
            while True:
                data = await _read_frame(worker.reader)
                if not worker.in_flight:
                    raise RenderError("a reply nobody asked for")
                job = worker.in_flight.popleft()
                ok, value = pickle.loads(data)
                if not job.future.done():
                    if ok:
                        job.future.set_result(value)
                    else:
                        job.future.set_exception(RenderError(value))
                self._dispatch()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if self._closed or (worker.dead and not worker.in_flight):
                return
            log.warning("render worker %s died (%r); replaced", worker.process.pid, exc)
            self._replace(index, worker)

    def _replace(self, index: int, worker: _Worker) -> None:
        jobs = list(worker.in_flight)
        worker.in_flight.clear()
        worker.dead = True
        with contextlib.suppress(Exception):
            worker.writer.close()
        if worker.process.is_alive():
            with contextlib.suppress(Exception):
                worker.process.kill()
        if self._slots[index] is worker:
            self._slots[index] = None
        # Retried first, in their order; a second failure fails the job.
        for job in reversed(jobs):
            if job.attempts >= ATTEMPTS:
                _fail(job, RenderError("the render worker died"))
            else:
                (self._urgent if job.urgent else self._background).appendleft(job)
        if not self._closed:
            self._respawns.add(asyncio.get_running_loop().create_task(self._respawn(index)))

    async def _respawn(self, index: int) -> None:
        try:
            await self._spawn(index)
        except Exception:  # the watchdog tries again every second
            log.exception("cannot start a render worker; retrying")
        finally:
            task = asyncio.current_task()
            if task is not None:
                self._respawns.discard(task)

    async def _watch(self) -> None:
        """Kill a worker whose oldest job is overdue (a hung worker) and reap dead ones."""
        while not self._closed:
            await asyncio.sleep(1.0)
            now = time.monotonic()
            for index, worker in enumerate(self._slots):
                if worker is None or worker.dead:
                    if worker is None and not self._closed:
                        try:
                            await self._spawn(index)
                        except Exception:
                            log.exception("cannot start a render worker; retrying")
                    continue
                overdue = worker.in_flight and now - worker.in_flight[0].sent_at > JOB_TIMEOUT
                if overdue or not worker.process.is_alive():
                    with contextlib.suppress(Exception):
                        worker.process.kill()  # its reader sees EOF and replaces it


def _fail(job: _Job, exc: Exception) -> None:
    if not job.future.done():
        job.future.set_exception(exc)
