"""Challenges, guild settings and the reminder / claim sweeps (clock injected)."""

from __future__ import annotations

import asyncio

import pytest

from storage import (
    ChannelBusyError,
    ConflictError,
    GuildSettings,
    InvalidInputError,
    MatchResult,
    NewMove,
    Shards,
    Storage,
    open_storage,
)
from tests.storage.conftest import CHANNEL, GUILD, new_game

HOUR = 3600.0


async def test_guild_settings_defaults_and_partial_update(db: Storage) -> None:
    assert await db.get_guild_settings(GUILD) == GuildSettings(GUILD, 86400, 259200, 600)
    changed = await db.set_guild_settings(GUILD, claim_after_seconds=7200)
    assert changed == GuildSettings(GUILD, 86400, 7200, 600)
    changed = await db.set_guild_settings(GUILD, reminder_after_seconds=60)
    assert changed == GuildSettings(GUILD, 60, 7200, 600)
    assert await db.get_guild_settings(GUILD) == changed
    assert await db.get_guild_settings(GUILD + 1) == GuildSettings(GUILD + 1)
    with pytest.raises(InvalidInputError):
        await db.set_guild_settings(GUILD, challenge_expiry_seconds=0)
    with pytest.raises(InvalidInputError):
        await db.set_guild_settings(GUILD, reminder_after_seconds=10**12)
    assert await db.get_guild_settings(GUILD) == changed


async def test_challenge_keeps_its_rule_options(db: Storage) -> None:
    challenge = await db.create_challenge(
        GUILD, CHANNEL, 1, 2, "dutch", now=1.0, options=("previousWinner", "mustEnterAll")
    )
    assert challenge.options == ("mustEnterAll", "previousWinner")
    assert await db.get_challenge(challenge.id) == challenge
    plain = await db.create_challenge(GUILD, CHANNEL + 1, 1, 2, "dutch", now=1.0)
    assert (await db.get_challenge(plain.id)).options == ()  # type: ignore[union-attr]
    with pytest.raises(InvalidInputError):
        await db.create_challenge(GUILD, CHANNEL + 2, 1, 2, "dutch", now=1.0, options=("a,b",))


async def test_challenge_lifecycle(db: Storage) -> None:
    await db.set_guild_settings(GUILD, challenge_expiry_seconds=300)
    challenge = await db.create_challenge(GUILD, CHANNEL, 1, 2, "dutch", now=100.0, match_length=3)
    assert (challenge.status, challenge.expires_at, challenge.match_length) == ("open", 400.0, 3)
    assert await db.get_challenge(challenge.id) == challenge
    assert await db.get_open_challenge(CHANNEL) == challenge
    assert await db.get_open_challenge(CHANNEL, now=399.0) == challenge
    assert await db.get_open_challenge(CHANNEL, now=400.0) is None  # past its expiry
    assert await db.set_challenge_message(challenge.id, 555)
    assert (await db.get_challenge(challenge.id)).message_id == 555  # type: ignore[union-attr]

    with pytest.raises(ChannelBusyError):
        await db.create_challenge(GUILD, CHANNEL, 3, None, "pin", now=101.0)

    declined = await db.set_challenge_status(challenge.id, "declined")
    assert declined is not None and declined.status == "declined"
    assert await db.set_challenge_status(challenge.id, "cancelled") is None  # no longer open
    assert await db.get_open_challenge(CHANNEL) is None
    # The channel is free for a new challenge.
    assert (await db.create_challenge(GUILD, CHANNEL, 3, None, "pin", now=102.0)).status == "open"


async def test_challenge_rejects_bad_input(db: Storage) -> None:
    with pytest.raises(InvalidInputError):
        await db.create_challenge(GUILD, CHANNEL, 1, 1, "classic", now=1.0)
    with pytest.raises(InvalidInputError):
        await db.create_challenge(GUILD, CHANNEL, 1, 2, "overall", now=1.0)
    challenge = await db.create_challenge(GUILD, CHANNEL, 1, 2, "classic", now=1.0)
    with pytest.raises(InvalidInputError):
        await db.set_challenge_status(challenge.id, "open")
    with pytest.raises(InvalidInputError):
        await db.set_challenge_status(challenge.id, "bogus")  # type: ignore[arg-type]


async def test_accepting_creates_the_game_atomically(db: Storage) -> None:
    challenge = await db.create_challenge(GUILD, CHANNEL, 1, 2, "classic", now=100.0)
    game = await db.create_game(
        GUILD, CHANNEL, "classic", 1, 2, "{}", now=150.0, challenge_id=challenge.id
    )
    accepted = await db.get_challenge(challenge.id)
    assert accepted is not None
    assert (accepted.status, accepted.game_id) == ("accepted", game.id)
    assert await db.get_open_challenge(CHANNEL) is None
    # No new challenge while the game runs.
    with pytest.raises(ChannelBusyError):
        await db.create_challenge(GUILD, CHANNEL, 3, 4, "pin", now=160.0)


async def test_accepting_twice_or_late_fails_without_a_game(db: Storage) -> None:
    challenge = await db.create_challenge(
        GUILD, CHANNEL, 1, None, "classic", now=100.0, expires_at=200.0
    )
    # Two accept clicks at once: exactly one game.
    results = await asyncio.gather(
        db.create_game(GUILD, CHANNEL, "classic", 1, 2, "{}", now=150.0, challenge_id=challenge.id),
        db.create_game(GUILD, CHANNEL, "classic", 1, 3, "{}", now=150.0, challenge_id=challenge.id),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert len(await db.list_active_games()) == 1

    late = await db.create_challenge(
        GUILD, CHANNEL + 1, 5, 6, "classic", now=100.0, expires_at=200.0
    )
    with pytest.raises(ConflictError):
        await db.create_game(
            GUILD, CHANNEL + 1, "classic", 5, 6, "{}", now=200.0, challenge_id=late.id
        )
    assert await db.get_active_game(CHANNEL + 1) is None
    assert (await db.get_challenge(late.id)).status == "open"  # type: ignore[union-attr]


async def test_expire_challenges_with_injected_clock(db: Storage) -> None:
    a = await db.create_challenge(GUILD, 1, 1, 2, "classic", now=0.0, expires_at=100.0)
    b = await db.create_challenge(GUILD, 2, 3, 4, "classic", now=0.0, expires_at=200.0)
    c = await db.create_challenge(GUILD, 3, 5, 6, "classic", now=0.0, expires_at=100.0)
    assert await db.set_challenge_status(c.id, "cancelled") is not None

    assert await db.expire_challenges(99.9) == []
    expired = await db.expire_challenges(100.0)
    assert [(x.id, x.status) for x in expired] == [(a.id, "expired")]
    assert (await db.get_challenge(a.id)).status == "expired"  # type: ignore[union-attr]
    assert (await db.get_challenge(c.id)).status == "cancelled"  # type: ignore[union-attr]
    assert await db.expire_challenges(150.0) == []
    assert [x.id for x in await db.expire_challenges(1e9)] == [b.id]


async def test_stale_open_challenge_does_not_block_the_channel(db: Storage) -> None:
    old = await db.create_challenge(GUILD, CHANNEL, 1, 2, "classic", now=0.0, expires_at=10.0)
    fresh = await db.create_challenge(GUILD, CHANNEL, 3, 4, "classic", now=10.0)
    assert (await db.get_challenge(old.id)).status == "expired"  # type: ignore[union-attr]
    assert await db.get_open_challenge(CHANNEL) == fresh


async def test_reminder_and_claim_sweeps(db: Storage) -> None:
    other_guild = GUILD + 1
    await db.set_guild_settings(other_guild, reminder_after_seconds=60, claim_after_seconds=120)
    g1 = await new_game(db, channel=1, now=0.0)  # default guild settings: 24 h / 72 h
    g2 = await new_game(db, channel=2, x=3, o=4, now=10 * HOUR)
    g3 = await new_game(db, channel=3, x=5, o=6, now=0.0, guild=other_guild)

    assert await db.games_needing_reminder(now=59.0) == []
    assert [g.id for g in await db.games_needing_reminder(now=60.0)] == [g3.id]
    assert [g.id for g in await db.claimable_games(now=120.0)] == [g3.id]
    assert [g.id for g in await db.games_needing_reminder(now=24 * HOUR)] == [g1.id, g3.id]
    assert [g.id for g in await db.games_needing_reminder(now=34 * HOUR)] == [
        g1.id,
        g3.id,
        g2.id,
    ]

    # Reminded games drop out of the reminder sweep (not of the claim sweep) until they move.
    assert await db.mark_reminded(g1.id, now=24 * HOUR)
    assert [g.id for g in await db.games_needing_reminder(now=34 * HOUR)] == [g3.id, g2.id]
    assert [g.id for g in await db.claimable_games(now=72 * HOUR)] == [g1.id, g3.id]

    # An action resets the idle clock and the reminder.
    moved = await db.commit_action(g1.id, 0, "{}", [NewMove(2, "play", "x")], now=70 * HOUR)
    assert moved.idle_seconds(72 * HOUR) == 2 * HOUR
    assert [g.id for g in await db.claimable_games(now=72 * HOUR)] == [g3.id]
    assert g1.id not in [g.id for g in await db.games_needing_reminder(now=72 * HOUR)]
    assert g1.id in [g.id for g in await db.games_needing_reminder(now=94 * HOUR)]

    # Finished games are never swept.
    await db.finish_game(g3.id, 0, "{}", MatchResult(5, "timeout", 1), now=73 * HOUR)
    assert g3.id not in [g.id for g in await db.claimable_games(now=1e12)]
    assert g3.id not in [g.id for g in await db.games_needing_reminder(now=1e12)]
    assert not await db.mark_reminded(g3.id, now=1e12)


# Snowflake-like guild ids on shards 0 and 1 of 2: the shard is (guild_id >> 22) % count.
SHARD0_GUILD = (1000 << 23) + 0 * (1 << 22) + 5
SHARD1_GUILD = (1000 << 23) + 1 * (1 << 22) + 5


def test_guild_shards() -> None:
    assert Shards.shard_of(SHARD0_GUILD, 2) == 0 and Shards.shard_of(SHARD1_GUILD, 2) == 1
    assert Shards(2, (1,)).owns(SHARD1_GUILD) and not Shards(2, (1,)).owns(SHARD0_GUILD)
    assert Shards(1, (0,)).owns(SHARD1_GUILD)
    for count, ids in ((2, (2,)), (2, ()), (0, (0,)), (3, (1, 1))):
        with pytest.raises(ValueError):
            Shards(count, ids)


async def test_sweeps_only_touch_their_shards_guilds(db: Storage) -> None:
    zero, one = Shards(2, (0,)), Shards(2, (1,))
    g0 = await new_game(db, channel=1, now=0.0, guild=SHARD0_GUILD)
    g1 = await new_game(db, channel=2, now=0.0, guild=SHARD1_GUILD)
    late = 100 * HOUR
    assert [g.id for g in await db.games_needing_reminder(late, shards=zero)] == [g0.id]
    assert [g.id for g in await db.games_needing_reminder(late, shards=one)] == [g1.id]
    assert [g.id for g in await db.claimable_games(late, shards=one)] == [g1.id]
    both = Shards(2, (0, 1))
    assert [g.id for g in await db.claimable_games(late, shards=both)] == [g0.id, g1.id]

    c0 = await db.create_challenge(SHARD0_GUILD, 3, 1, None, "classic", now=0.0, expires_at=5.0)
    c1 = await db.create_challenge(SHARD1_GUILD, 4, 1, None, "classic", now=0.0, expires_at=5.0)
    assert [c.id for c in await db.expire_challenges(10.0, shards=one)] == [c1.id]
    assert (await db.get_challenge(c0.id)).status == "open"  # type: ignore[union-attr]
    assert [c.id for c in await db.expire_challenges(10.0, shards=zero)] == [c0.id]


async def test_reminder_claim_is_compare_and_set_across_connections(
    db: Storage, target: str
) -> None:
    """Two processes found the same idle game: exactly one may claim (and post) the notice."""
    game = await new_game(db, now=0.0)
    other = await open_storage(target)
    try:
        for round_ in range(3):
            seen = await db.get_game(game.id)
            assert seen is not None
            now = (round_ + 1) * 30 * HOUR
            results = await asyncio.gather(
                db.mark_reminded(game.id, now=now, expected=seen),
                other.mark_reminded(game.id, now=now + 1, expected=seen),
            )
            assert sorted(results) == [False, True]
        # A move in between makes a stale claim fail too.
        seen = await db.get_game(game.id)
        assert seen is not None
        await db.commit_action(game.id, seen.version, "{}", [], now=200 * HOUR)
        assert not await other.mark_reminded(game.id, now=300 * HOUR, expected=seen)
    finally:
        await other.close()


async def test_identify_slots_are_spaced_per_bucket(db: Storage, target: str) -> None:
    assert await db.reserve_identify_slot(0, now=100.0, spacing=5.0) == 100.0
    assert await db.reserve_identify_slot(0, now=101.0, spacing=5.0) == 105.0
    assert await db.reserve_identify_slot(1, now=101.0, spacing=5.0) == 101.0  # other bucket
    assert await db.reserve_identify_slot(0, now=200.0, spacing=5.0) == 200.0  # long after
    others = [await open_storage(target) for _ in range(3)]
    try:
        slots = await asyncio.gather(
            *(o.reserve_identify_slot(2, now=300.0, spacing=5.0) for o in others for _ in range(2))
        )
    finally:
        for o in others:
            await o.close()
    assert sorted(slots) == [300.0, 305.0, 310.0, 315.0, 320.0, 325.0]


async def test_a_closed_challenge_owes_its_message_until_retired(db: Storage) -> None:
    """Every way out of "open" leaves the message's last edit owed, in the same transaction;
    a computer game's challenge has no buttons to take away."""
    expiring = await db.create_challenge(GUILD, 1, 1, 2, "classic", now=0.0, expires_at=100.0)
    declined = await db.create_challenge(GUILD, 2, 3, 4, "classic", now=0.0, expires_at=900.0)
    swept = await db.create_challenge(GUILD, 3, 5, 6, "classic", now=0.0, expires_at=10.0)
    accepted = await db.create_challenge(GUILD, 4, 7, 8, "classic", now=0.0, expires_at=900.0)
    computer = await db.create_challenge(GUILD, 5, 9, 10, "classic", now=0.0, expires_at=900.0)
    assert not expiring.retire_owed and await db.unretired_challenges() == []

    await db.expire_challenges(100.0)
    await db.set_challenge_status(declined.id, "declined")
    # A new challenge in the channel expires the stale one on the way.
    await db.create_challenge(GUILD, 3, 5, 6, "classic", now=50.0, expires_at=900.0)
    await db.create_game(GUILD, 4, "classic", 7, 8, "{}", now=60.0, challenge_id=accepted.id)
    await db.create_game(
        GUILD, 5, "classic", 9, 10, "{}", now=60.0, challenge_id=computer.id, ai_level="expert"
    )
    owed = await db.unretired_challenges()
    assert [(c.id, c.status) for c in owed] == [
        (expiring.id, "expired"),
        (declined.id, "declined"),
        (swept.id, "expired"),
        (accepted.id, "accepted"),
    ]
    assert all(c.retire_owed for c in owed)
    assert (await db.get_challenge(computer.id)).retire_owed is False  # type: ignore[union-attr]

    await db.challenge_retired(declined.id)
    await db.challenge_retired(declined.id)  # a second payment changes nothing
    assert declined.id not in [c.id for c in await db.unretired_challenges()]
    assert (await db.get_challenge(declined.id)).retire_owed is False  # type: ignore[union-attr]
    assert [c.id for c in await db.unretired_challenges(limit=1)] == [expiring.id]
    other_shard = Shards(2, (1,)) if (GUILD >> 22) % 2 == 0 else Shards(2, (0,))
    assert await db.unretired_challenges(shards=other_shard) == []


async def test_last_actor_is_who_acted_latest(db: Storage) -> None:
    game = await new_game(db)
    assert await db.last_actor(game.id) is None
    await db.commit_action(
        game.id, game.version, '{"turn": "o"}', [NewMove(1, "play", "8/5")], now=1001.0
    )
    assert await db.last_actor(game.id) == 1
