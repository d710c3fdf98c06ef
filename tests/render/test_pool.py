"""The render pool: real worker processes, real PNGs, real signals."""

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

from render import render_board
from render.pool import RenderError, RenderPool, RenderPoolClosed
from render.samples import gallery
from tests.processes import alive, wait_gone

ROOT = Path(__file__).resolve().parents[2]


def boom(text: str) -> None:
    raise ValueError(text)


def die() -> None:
    os._exit(3)


async def test_boards_drawn_in_workers_are_the_same_pngs() -> None:
    scenes = [scene for _name, scene, _theme in gallery()][:12]
    async with RenderPool(2) as pool:
        pids = pool.worker_pids()
        assert len(pids) == 2 and os.getpid() not in pids
        drawn = await asyncio.gather(
            *(pool.run(render_board, s, "default", urgent=i % 2 == 0) for i, s in enumerate(scenes))
        )
        seen = set(await asyncio.gather(*(pool.run(os.getpid) for _ in range(8))))
    assert drawn == [render_board(s, "default") for s in scenes]
    assert seen <= set(pids) and len(seen) >= 1


async def test_an_error_fails_that_job_only() -> None:
    async with RenderPool(1) as pool:
        with pytest.raises(RenderError, match="ValueError: no such board"):
            await pool.run(boom, "no such board")
        assert await pool.run(os.getpid) == pool.worker_pids()[0]


async def test_urgent_jobs_overtake_background_ones() -> None:
    order: list[str] = []

    async def job(name: str, urgent: bool) -> None:
        await pool.run(time.sleep, 0.05, urgent=urgent)
        order.append(name)

    async with RenderPool(1) as pool:
        # A background job goes to an idle worker only: one holds the worker, the others wait
        # in their lane, and the urgent ones (sent later) overtake them all.
        tasks = [asyncio.create_task(job(f"b{i}", False)) for i in range(4)]
        await asyncio.sleep(0)
        tasks += [asyncio.create_task(job(f"u{i}", True)) for i in range(2)]
        await asyncio.gather(*tasks)
    assert order == ["b0", "u0", "u1", "b1", "b2", "b3"], order


async def test_a_dead_worker_is_replaced_and_its_jobs_retried() -> None:
    async with RenderPool(1) as pool:
        first = pool.worker_pids()[0]
        slow = asyncio.create_task(pool.run(time.sleep, 1.0))
        await asyncio.sleep(0.3)
        os.kill(first, signal.SIGKILL)
        assert await asyncio.wait_for(slow, 30) is None  # retried on the new worker
        second = await pool.run(os.getpid)
        assert second != first and alive(second)
        # A job that kills every worker it runs on fails after its second attempt.
        with pytest.raises(RenderError, match="died"):
            await asyncio.wait_for(pool.run(die), 30)
        assert await pool.run(os.getpid) not in (first, second)


async def test_close_stops_every_worker_and_fails_what_waits() -> None:
    pool = RenderPool(2)
    await pool.start()
    pids = pool.worker_pids()
    waiting = [asyncio.create_task(pool.run(time.sleep, 0.5)) for _ in range(6)]
    await asyncio.sleep(0.1)
    await pool.close()
    assert wait_gone(pids, 5.0) == []
    results = await asyncio.gather(*waiting, return_exceptions=True)
    assert any(isinstance(r, RenderPoolClosed) for r in results)
    with pytest.raises(RenderPoolClosed):
        await pool.run(os.getpid)
    with pytest.raises(RenderPoolClosed):
        await RenderPool().run(os.getpid)


PARENT = textwrap.dedent(
    """
    import asyncio, json
    from render.pool import RenderPool

    async def main():
        pool = RenderPool(2)
        await pool.start()
        print(json.dumps(pool.worker_pids()), flush=True)
        await asyncio.sleep(600)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
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
