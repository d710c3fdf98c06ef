"""The worker layer itself: typed jobs in real worker processes, deadlines, back-pressure,
replacement, and no worker outliving its parent."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.processes import alive, wait_gone
from workers import (
    JobFailed,
    JobTimeout,
    PoolBusy,
    PoolClosed,
    WorkerDied,
    WorkerPool,
)

ROOT = Path(__file__).resolve().parents[2]


def add(a: int, b: int) -> int:
    return a + b


def boom(text: str) -> None:
    raise ValueError(text)


def die() -> None:
    os._exit(3)


async def test_typed_jobs_run_in_workers() -> None:
    async with WorkerPool(2, niceness=3) as pool:
        await pool.wait_ready()
        pids = pool.worker_pids()
        assert len(pids) == 2 and os.getpid() not in pids
        assert await asyncio.gather(*(pool.run(add, i, 1) for i in range(6))) == [1, 2, 3, 4, 5, 6]
        pid = await pool.run(os.getpid)
        assert pid in pids
        assert os.getpriority(os.PRIO_PROCESS, pid) >= min(19, os.nice(0) + 3)
        with pytest.raises(JobFailed, match="ValueError: bad"):
            await pool.run(boom, "bad")
        assert await pool.run(add, 2, 2) == 4


async def test_a_job_past_its_deadline_fails_and_its_worker_is_replaced() -> None:
    async with WorkerPool(1, timeout=0.3) as pool:
        first = await pool.run(os.getpid)
        with pytest.raises(JobTimeout):
            await pool.run(time.sleep, 30.0)
        assert wait_gone([first], 5.0) == []
        # A longer deadline for one job.
        assert await pool.run(time.sleep, 0.5, timeout=5.0) is None
        assert await pool.run(os.getpid) != first


async def test_a_job_is_attempted_as_often_as_allowed() -> None:
    async with WorkerPool(1, attempts=2) as pool:
        first = await pool.run(os.getpid)
        slow = asyncio.create_task(pool.run(time.sleep, 1.0))
        await asyncio.sleep(0.3)
        os.kill(first, signal.SIGKILL)
        assert await asyncio.wait_for(slow, 30) is None  # the second attempt
        with pytest.raises(WorkerDied):
            await asyncio.wait_for(pool.run(die), 30)
        assert await pool.run(add, 1, 1) == 2


async def test_the_queue_is_bounded() -> None:
    async with WorkerPool(1, queue_size=1) as pool:
        await pool.wait_ready()
        running = asyncio.create_task(pool.run(time.sleep, 1.0))
        await asyncio.sleep(0.3)
        queued = asyncio.create_task(pool.run(time.sleep, 0.0))
        await asyncio.sleep(0.05)
        assert pool.queued == 1
        with pytest.raises(PoolBusy):
            await pool.run(os.getpid, wait=0)
        with pytest.raises(PoolBusy):
            await pool.run(os.getpid, wait=0.1)
        # Waiting long enough gets a place once the queue moves.
        assert await pool.run(add, 1, 2, wait=10) == 3
        await asyncio.gather(running, queued)


async def test_autostart_and_close() -> None:
    pool = WorkerPool(1, autostart=True)
    assert await pool.run(add, 1, 2) == 3
    pids = pool.worker_pids()
    waiting = asyncio.create_task(pool.run(time.sleep, 5.0))
    await asyncio.sleep(0.3)
    await pool.close(timeout=0.2)
    assert wait_gone(pids, 5.0) == []
    with pytest.raises(PoolClosed):
        await waiting
    with pytest.raises(PoolClosed):
        await pool.run(os.getpid)
    with pytest.raises(PoolClosed):
        await WorkerPool().run(os.getpid)


PARENT = textwrap.dedent(
    """
    import asyncio, json
    from workers import WorkerPool

    async def main():
        pool = WorkerPool(2)
        await pool.start(wait=True)
        print(json.dumps(pool.worker_pids()), flush=True)
        await asyncio.sleep(600)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_no_worker_outlives_its_parent(sig: signal.Signals) -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, cwd=ROOT)
    try:
        assert parent.stdout is not None
        pids = json.loads(parent.stdout.readline())
        assert len(pids) == 2 and all(alive(p) for p in pids)
        parent.send_signal(sig)
        parent.wait(timeout=10)
        assert wait_gone(pids) == []
    finally:
        parent.kill()
        parent.wait()
