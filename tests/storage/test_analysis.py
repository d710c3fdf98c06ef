"""Stored reviews, puzzle answers and streaks, and the daily puzzle's claim, on both backends."""

from __future__ import annotations

from storage import Shards, Storage

from .conftest import GUILD


async def test_a_review_is_kept_and_replaced(db: Storage) -> None:
    assert await db.get_review(7) is None
    await db.save_review(7, '{"a": 1}', now=10.0)
    await db.save_review(7, '{"a": 2}', now=11.0)
    assert await db.get_review(7) == '{"a": 2}'


async def test_first_answers_count_and_make_the_streak(db: Storage) -> None:
    user = 42
    assert (await db.puzzle_record(user)).answered == 0
    first = await db.answer_puzzle(user, "pin:1", True, guild_id=GUILD, now=1.0)
    assert first.counted and first.record.solved == 1 and first.record.streak == 1
    again = await db.answer_puzzle(user, "pin:1", False, guild_id=GUILD, now=2.0)
    assert not again.counted and again.record == first.record  # a second answer changes nothing
    await db.answer_puzzle(user, "pin:2", True, guild_id=GUILD, now=3.0)
    third = await db.answer_puzzle(user, "dutch:5", True, guild_id=None, now=4.0)
    assert third.record.streak == 3 and third.record.best_streak == 3
    wrong = await db.answer_puzzle(user, "dutch:6", False, guild_id=None, now=5.0)
    assert wrong.record.streak == 0 and wrong.record.best_streak == 3
    assert wrong.record.answered == 4 and wrong.record.solved == 3
    assert await db.puzzle_record(user) == wrong.record
    assert (await db.puzzle_record(user + 1)).solved == 0


async def test_the_daily_puzzle_is_claimed_once_per_guild_and_day(db: Storage) -> None:
    assert await db.get_daily_puzzle_channel(GUILD) is None
    await db.set_daily_puzzle_channel(GUILD, 555)
    assert await db.get_daily_puzzle_channel(GUILD) == 555
    assert (await db.get_guild_settings(GUILD)).guild_id == GUILD  # other settings untouched
    assert await db.daily_puzzle_guilds() == [(GUILD, 555)]
    # GUILD's shard out of 2 (Discord's formula: (guild >> 22) % count); the other shard has none.
    mine = (GUILD >> 22) % 2
    assert await db.daily_puzzle_guilds(shards=Shards(2, (mine,))) == [(GUILD, 555)]
    assert await db.daily_puzzle_guilds(shards=Shards(2, (1 - mine,))) == []

    first = await db.claim_daily_puzzle(GUILD, "2026-11-27", "pin:3", 555, now=1.0)
    assert first.puzzle == "pin:3" and first.message_id is None
    second = await db.claim_daily_puzzle(GUILD, "2026-11-27", "dutch:9", 555, now=2.0)
    assert second.puzzle == "pin:3"  # the first claim stands
    assert await db.daily_puzzle_posted(GUILD, "2026-11-27", 999)
    assert not await db.daily_puzzle_posted(GUILD, "2026-11-27", 1000)
    got = await db.get_daily_puzzle(GUILD, "2026-11-27")
    assert got is not None and got.message_id == 999
    assert await db.get_daily_puzzle(GUILD, "2026-11-28") is None
    await db.set_daily_puzzle_channel(GUILD, None)
    assert await db.daily_puzzle_guilds() == []
