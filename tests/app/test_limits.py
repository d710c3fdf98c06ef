"""Per-user limits on replays, reviews and hints (app.limits), with the fake clock; and the
reports' worker queue refusing as busy once full."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from ai.pool import AIPool
from app.config import ConfigError, load_config
from app.limits import Busy, Rate, RateLimited, RateLimiter
from app.reports import REPLAY_QUEUE, Reports
from app.table import GameTable
from storage import Storage

from .conftest import ALICE, BOB, CHANNEL, GUILD, FakeClock, new_game


def test_a_window_admits_count_requests_then_says_when_to_retry(clock: FakeClock) -> None:
    limiter = RateLimiter(Rate(3, 30), "replays", clock)
    for _ in range(3):
        limiter.take(ALICE)
        clock.advance(5)
    with pytest.raises(RateLimited, match=r"try again in 15 s\.") as refused:
        limiter.take(ALICE)
    assert refused.value.retry_after == 15
    limiter.take(BOB)  # everyone has their own window
    clock.advance(14.5)
    with pytest.raises(RateLimited, match=r"try again in 1 s\."):
        limiter.take(ALICE)
    clock.advance(0.5)  # the first request left the window: one more fits, not two
    limiter.take(ALICE)
    with pytest.raises(RateLimited, match=r"try again in 5 s\."):
        limiter.take(ALICE)


def test_refused_requests_do_not_count(clock: FakeClock) -> None:
    limiter = RateLimiter(Rate(1, 10), "hints", clock)
    limiter.take(ALICE)
    for _ in range(40):  # spamming does not push the window on
        with pytest.raises(RateLimited):
            limiter.take(ALICE)
        clock.advance(0.125)
    clock.advance(5)
    limiter.take(ALICE)


def test_memory_stays_bounded(clock: FakeClock) -> None:
    limiter = RateLimiter(Rate(1, 10), "hints", clock)
    for user in range(10_000):
        limiter.take(user)
        clock.advance(0.01)
    assert len(limiter._recent) < 4096 + 1001


def test_rates_are_configurable() -> None:
    config = load_config({"DISCORD_TOKEN": "t", "REPORT_LIMIT": "5/60", "HINT_LIMIT": " 2 / 7.5 "})
    assert config.report_limit == Rate(5, 60) and config.hint_limit == Rate(2, 7.5)
    defaults = load_config({"DISCORD_TOKEN": "t"})
    assert defaults.report_limit == Rate(3, 30) and defaults.hint_limit == Rate(4, 30)
    for bad in ("3", "0/30", "3/0", "x/30", "-1/5", "3/30/5"):
        with pytest.raises(ConfigError, match=r"REPORT_LIMIT .* expected COUNT/SECONDS"):
            load_config({"DISCORD_TOKEN": "t", "REPORT_LIMIT": bad})


def test_the_front_door_rate_is_configurable_and_looser_than_the_others() -> None:
    config = load_config({"DISCORD_TOKEN": "t", "EXPENSIVE_LIMIT": "20/60"})
    assert config.expensive_limit == Rate(20, 60)
    defaults = load_config({"DISCORD_TOKEN": "t"})
    door, report, hint = defaults.expensive_limit, defaults.report_limit, defaults.hint_limit
    assert door == Rate(12, 30)
    # Never the front door first for what the per-kind limits allow together.
    assert door.seconds >= max(report.seconds, hint.seconds)
    assert door.count >= report.count + hint.count
    with pytest.raises(ConfigError, match=r"EXPENSIVE_LIMIT .* expected COUNT/SECONDS"):
        load_config({"DISCORD_TOKEN": "t", "EXPENSIVE_LIMIT": "0/30"})


async def test_replays_reviews_and_hints_are_limited_per_user(
    db: Storage, table: GameTable, clock: FakeClock
) -> None:
    reports = Reports(
        db, table, AIPool(), report_rate=Rate(2, 30), hint_rate=Rate(1, 30), clock=clock
    )
    game = await new_game(db, hints=True)
    await reports.replay_job(GUILD, game.id, ALICE)
    await reports.replay_job(GUILD, game.id, ALICE)
    with pytest.raises(RateLimited, match=r"replays and reviews too often: try again in 30 s"):
        await reports.replay_job(GUILD, game.id, ALICE)
    await reports.replay_job(GUILD, game.id, BOB)
    mover = GameTable.user_of(game, table.state_of(game).mover)
    await reports.hint_job(CHANNEL, mover)
    with pytest.raises(RateLimited, match="hints too often"):
        await reports.hint_job(CHANNEL, mover)
    clock.advance(30)
    await reports.replay_job(GUILD, game.id, ALICE)
    await reports.hint_job(CHANNEL, mover)


def _wait_for(path: str) -> None:
    """A replay-sized job that ends when the test says (in the reports' worker)."""
    while not Path(path).exists():
        time.sleep(0.01)


async def test_a_full_replay_queue_is_refused_as_busy(
    db: Storage, table: GameTable, tmp_path: Path
) -> None:
    reports = Reports(db, table, AIPool())
    game = await new_game(db)
    release = tmp_path / "release"
    jobs = [
        asyncio.create_task(reports.renderer.run(_wait_for, str(release)))
        for _ in range(REPLAY_QUEUE + 1)
    ]
    try:
        while reports.renderer.queued < REPLAY_QUEUE:
            await asyncio.sleep(0.01)
        with pytest.raises(Busy, match=r"The bot is busy: try again in a few seconds\."):
            await reports.replay_job(GUILD, game.id, ALICE)
        # Refused before it counted: the user's budget is untouched.
        assert not reports.report_limit._recent
    finally:
        release.touch()
        await asyncio.gather(*jobs)
        await reports.close()
