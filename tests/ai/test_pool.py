"""The worker-process pool: real worker processes, real signals."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ai.pool import (
    AIPool,
    DecisionTimeout,
    PoolBusy,
    PoolClosed,
    ReviewDecision,
    WorkerFailed,
    _sleep,
)
from ai.types import MatchContext
from engine import Play, Roll, get_variant, legal_plays, parse_position
from tests.processes import alive, wait_gone

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = get_variant("classic")


def random_game(rules_id: str, seed: int, moves: int) -> list[ReviewDecision]:
    rules = get_variant(rules_id)
    rng = random.Random(seed)
    pos = rules.initial_position()
    out = []
    for _ in range(moves):
        dice = Roll.of(rng.randint(1, 6), rng.randint(1, 6))
        play = rng.choice(legal_plays(pos, dice, rules))
        out.append(ReviewDecision(pos, dice, play.text if len(out) % 2 else play.after))
        if rules.result(play.after) is not None:
            break
        pos = play.after.flip()
    return out


async def test_decisions_run_in_workers_and_are_legal() -> None:
    async with AIPool(workers=2, time_limit=1.0) as pool:
        pids = {await pool.ping() for _ in range(4)}
        assert os.getpid() not in pids and pids <= set(pool.worker_pids())
        for line in (
            "classic | 22:O1 21:O2 6:X14 1:O12 | bar 1/0 | res 0/0 | off 0/0 | 43",
            "pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52",
        ):
            pos, dice = parse_position(line)
            assert dice is not None
            rules = get_variant(pos.variant)
            legal = {p.after for p in legal_plays(pos, dice, rules)}
            play = await pool.choose(rules, pos, dice, level="expert")
            assert isinstance(play, Play) and play.after in legal
            ranked = await pool.rank(rules, pos, dice, level="strong", seed=3)
            assert {r.play.after for r in ranked} == legal
        # Several decisions at once are spread over the workers and all answered.
        start = CLASSIC.initial_position()
        plays = await asyncio.gather(
            *(pool.choose(CLASSIC, start, Roll(a, b)) for a, b in ((3, 1), (4, 2), (6, 1), (5, 3)))
        )
        assert [p.text for p in plays] == ["8/5 6/5", "8/4 6/4", "13/7 8/7", "8/3 6/3"]


async def test_cube_and_take_in_the_pool() -> None:
    pos, _ = parse_position(
        "classic | 19:O3 18:O3 17:O3 16:O2 15:O2 14:O2 9:X3 8:X3 7:X3 6:X2 5:X2 4:X2 "
        "| bar 0/0 | res 0/0 | off 0/0 | -"
    )
    async with AIPool(workers=1) as pool:
        action = await pool.cube(pos)
        assert action.double and not action.take
        assert await pool.take(pos.flip()) is False
        crawford = MatchContext(length=3, score_mover=0, score_opponent=2, crawford=True)
        assert not (await pool.cube(pos, crawford)).double


async def test_review_of_a_finished_game() -> None:
    game = random_game("classic", seed=5, moves=30)
    async with AIPool(workers=2, time_limit=2.0) as pool:
        items = await pool.review(CLASSIC, game, level="strong")
        assert len(items) == len(game)
        assert all(item is not None for item in items)
        for item, decision in zip(items, game, strict=True):
            assert item is not None
            assert item.equity_lost >= 0 and item.luck is not None
            assert item.best_equity >= item.played_equity or item.equity_lost == 0
            if item.choices == 1:
                assert item.equity_lost == 0
            if isinstance(decision.played, str):
                assert item.played == decision.played
        # Random moves lose equity; somebody's rolls were lucky and somebody's not.
        assert sum(i.equity_lost for i in items if i) > 0.5
        lucks = [i.luck for i in items if i and i.luck is not None]
        assert min(lucks) < 0 < max(lucks)
        # Playing the best move loses nothing.
        best = [
            ReviewDecision(d.position, d.dice, item.best)
            for d, item in zip(game[:6], items, strict=False)
            if item is not None
        ]
        again = await pool.review(CLASSIC, best, level="strong")
        assert [i.equity_lost if i else None for i in again] == [0.0] * len(best)
        pin = random_game("pin", seed=2, moves=10)
        pin_items = await pool.review(get_variant("pin"), pin, level="strong")
        assert all(i is not None and i.luck is None for i in pin_items)


async def test_a_review_values_a_play_the_search_skipped_at_its_first_look() -> None:
    # Blocking: "22/17 21/19" is not among the plays the expert searches, and its first-look
    # value is above the best play's searched value; on one scale with the best it loses.
    pos, dice = parse_position(
        "blocking | 24:X2+O1 23:X3+O1 22:X2 21:X3 20:X1 19:X2 17:X1 12:X1 10:O1 8:O1 6:O2 "
        "4:O4 3:O1 2:O3 1:O1 | bar 0/0 | res 0/0 | off 0/0 | 52"
    )
    assert dice is not None
    blocking = get_variant("blocking")
    async with AIPool(workers=1, time_limit=30.0) as pool:
        ranked = await pool.rank(blocking, pos, dice)
        (item,) = await pool.review(blocking, [ReviewDecision(pos, dice, "22/17 21/19")])
    trap = next(r for r in ranked if r.play.text == "22/17 21/19")
    best = ranked[0]
    assert not trap.searched and trap.first_look is not None and best.first_look is not None
    assert trap.first_look > best.equity  # its raw value would show no loss at all
    assert item is not None and item.best == best.play.text
    assert item.equity_lost == pytest.approx(best.equity - trap.equity)
    assert item.equity_lost > 0


async def test_an_illegal_played_move_fails_that_item_only() -> None:
    game = random_game("classic", seed=1, moves=3)
    bad = ReviewDecision(game[0].position, game[0].dice, "24/1")
    async with AIPool(workers=1) as pool:
        items = await pool.review(CLASSIC, [game[1], bad, game[2]])
        assert items[0] is not None and items[1] is None and items[2] is not None


async def test_the_event_loop_keeps_running_during_a_decision() -> None:
    async with AIPool(workers=1, grace=5.0) as pool:
        await pool.ping()
        gaps: list[float] = []

        async def heartbeat() -> None:
            last = time.monotonic()
            while True:
                await asyncio.sleep(0.02)
                now = time.monotonic()
                gaps.append(now - last)
                last = now

        beat = asyncio.create_task(heartbeat())
        await pool._submit(_sleep, 1.0, time_limit=2.0, wait=None)
        beat.cancel()
        # A blocked loop would show one gap of about a second.
        assert len(gaps) > 10 and max(gaps) < 0.5


async def test_the_queue_is_bounded() -> None:
    async with AIPool(workers=1, queue_size=1, grace=5.0) as pool:
        await pool.ping()
        running = asyncio.create_task(pool._submit(_sleep, 1.5, time_limit=3.0, wait=None))
        await asyncio.sleep(0.3)  # the worker has taken it
        queued = asyncio.create_task(pool._submit(_sleep, 0.0, time_limit=3.0, wait=None))
        await asyncio.sleep(0.1)
        assert pool.queued == 1
        start = CLASSIC.initial_position()
        with pytest.raises(PoolBusy):
            await pool.choose(CLASSIC, start, Roll(3, 1), wait=0)
        with pytest.raises(PoolBusy):
            await pool.choose(CLASSIC, start, Roll(3, 1), wait=0.2)
        await running
        await queued
        # Room again: decisions go through.
        assert (await pool.choose(CLASSIC, start, Roll(3, 1))).text == "8/5 6/5"


async def test_a_long_review_waits_behind_live_decisions() -> None:
    game = random_game("classic", seed=3, moves=24)
    async with AIPool(workers=1, queue_size=4, time_limit=0.3) as pool:
        await pool.ping()
        finished: list[str] = []

        async def review() -> None:
            await pool.review(CLASSIC, game, level="expert")
            finished.append("review")

        async def ranked_for_a_review() -> None:
            await pool.rank(CLASSIC, game[0].position, game[0].dice, wait=None, background=True)
            finished.append("rank for a review")

        reviewing = asyncio.create_task(review())
        ranking = asyncio.create_task(ranked_for_a_review())
        await asyncio.sleep(0.5)  # the review is under way
        # The review never holds more than one queue place per worker: room for live games.
        assert pool.queued <= 1
        start = CLASSIC.initial_position()
        play = await pool.choose(CLASSIC, start, Roll(3, 1), wait=0)
        finished.append("live decision")
        assert play.text == "8/5 6/5"
        await asyncio.gather(reviewing, ranking)
        # The live decision overtook the review items asked for before it.
        assert finished.index("live decision") < finished.index("review"), finished


async def test_a_worker_that_overruns_its_deadline_is_replaced() -> None:
    async with AIPool(workers=1, grace=0.5) as pool:
        first = await pool.ping()
        with pytest.raises(DecisionTimeout):
            await pool._submit(_sleep, 60, time_limit=0.2, wait=None)
        assert wait_gone([first], 5.0) == []
        second = await pool.ping()
        assert second != first
        play = await pool.choose(CLASSIC, CLASSIC.initial_position(), Roll(6, 1))
        assert play.text == "13/7 8/7"


async def test_a_crashed_worker_is_replaced() -> None:
    async with AIPool(workers=1) as pool:
        first = await pool.ping()
        os.kill(first, signal.SIGKILL)
        assert wait_gone([first]) == []
        # A worker that died while idle is replaced before the next decision is sent.
        second = await pool.ping()
        assert second != first
        # One that dies during a decision fails that decision only.
        busy = asyncio.create_task(pool._submit(_sleep, 30, time_limit=60.0, wait=None))
        await asyncio.sleep(0.5)
        os.kill(second, signal.SIGKILL)
        with pytest.raises(WorkerFailed):
            await busy
        assert await pool.ping() not in (first, second)


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().split("=", 1) for item in raw if b"=" in item)


async def test_workers_run_below_the_bot_with_one_numeric_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")  # an operator's own setting is kept
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    async with AIPool(workers=1, warm=False, niceness=4) as pool:
        first = await pool.ping()
        assert os.getpriority(os.PRIO_PROCESS, first) == min(19, mine + 4)
        env = _environ(first)
        assert env["OPENBLAS_NUM_THREADS"] == "1" and env["OMP_NUM_THREADS"] == "2"
        assert "OPENBLAS_NUM_THREADS" not in os.environ  # the bot's own stays as it was
        # A replacement worker is lowered as well, from its start.
        os.kill(first, signal.SIGKILL)
        assert wait_gone([first]) == []
        second = await pool.ping()
        assert second != first
        assert os.getpriority(os.PRIO_PROCESS, second) == min(19, mine + 4)
    with pytest.raises(ValueError):
        AIPool(niceness=20)


async def test_close_stops_every_worker() -> None:
    pool = AIPool(workers=2)
    await pool.start()
    await pool.ping()
    pids = pool.worker_pids()
    assert len(pids) == 2
    await pool.close()
    assert wait_gone(pids, 5.0) == []
    with pytest.raises(PoolClosed):
        await pool.choose(CLASSIC, CLASSIC.initial_position(), Roll(3, 1))
    with pytest.raises(PoolClosed):
        await AIPool().ping()


PARENT = textwrap.dedent(
    """
    import asyncio, json, sys
    from ai.pool import AIPool

    async def main():
        pool = AIPool(workers=2)
        await pool.start()
        await asyncio.gather(pool.ping(), pool.ping())
        print(json.dumps(pool.worker_pids()), flush=True)
        await asyncio.sleep(600)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_no_worker_outlives_its_parent(sig: signal.Signals) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        stdout=subprocess.PIPE,
        cwd=ROOT,
    )
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
