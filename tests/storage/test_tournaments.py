"""Tournaments in storage, on both backends: registration, rounds paired exactly once (also by
two connections racing), results written by the transaction that ends a match's game, drops,
double forfeits and cancellation."""

from __future__ import annotations

import asyncio

import pytest

from storage import MatchResult, NewPairing, Storage, open_storage
from storage.errors import ConflictError, InvalidInputError
from storage.models import Shards
from tests.storage.conftest import CHANNEL, GUILD

ORGANISER = 900


async def new_tournament(db: Storage, **kwargs: object) -> int:
    options: dict[str, object] = {
        "name": "Spring open",
        "format": "swiss",
        "variant": "classic",
        "now": 100.0,
    }
    options.update(kwargs)
    tournament = await db.create_tournament(GUILD, CHANNEL, ORGANISER, **options)  # type: ignore[arg-type]
    return tournament.id


async def test_registration_joins_once_until_full_and_leaves(db: Storage) -> None:
    tid = await new_tournament(db, max_players=2, rounds=3, minutes=30, starts_at=500.0)
    t = await db.get_tournament(tid)
    assert t is not None
    assert (t.state, t.current_round, t.rounds, t.minutes, t.starts_at) == (
        "registration",
        0,
        3,
        30,
        500.0,
    )
    assert await db.join_tournament(tid, 1, now=101.0) == "joined"
    assert await db.join_tournament(tid, 1, now=102.0) == "already"
    assert await db.join_tournament(tid, 2, now=103.0) == "joined"
    assert await db.join_tournament(tid, 3, now=104.0) == "full"
    assert await db.leave_tournament(tid, 1)
    assert not await db.leave_tournament(tid, 1)
    assert await db.join_tournament(tid, 3, now=105.0) == "joined"
    entrants = await db.tournament_entrants(tid)
    assert [(e.user_id, e.joined_order) for e in entrants] == [(2, 2), (3, 3)]
    assert await db.join_tournament(tid + 1, 1, now=106.0) == "closed"


async def test_racing_joins_never_exceed_the_limit(db: Storage) -> None:
    tid = await new_tournament(db, max_players=3)
    outcomes = await asyncio.gather(*(db.join_tournament(tid, u, now=101.0) for u in range(1, 9)))
    assert sorted(outcomes).count("joined") == 3
    assert len(await db.tournament_entrants(tid)) == 3


async def test_bad_input_is_refused_before_sql(db: Storage) -> None:
    with pytest.raises(InvalidInputError):
        await new_tournament(db, format="ladder")
    with pytest.raises(InvalidInputError):
        await new_tournament(db, name="")
    with pytest.raises(InvalidInputError):
        await new_tournament(db, max_players=1)


async def _registered(db: Storage, players: int, **options: object) -> int:
    tid = await new_tournament(db, **options)
    for user in range(1, players + 1):
        assert await db.join_tournament(tid, user, now=101.0) == "joined"
    return tid


async def test_a_round_is_paired_once_and_byes_are_done_at_once(db: Storage) -> None:
    tid = await _registered(db, 3)
    round_one = [NewPairing(1, 1, 2), NewPairing(2, 3, None)]
    paired = await db.pair_round(
        tid, 0, round_one, now=200.0, rounds=2, seeds=[(1, 1600.0), (2, 1500.0), (3, 1400.0)]
    )
    assert paired is not None
    match, bye = paired
    assert (match.round, match.state, match.posted, match.game_id) == (1, "pending", False, None)
    assert (bye.state, bye.winner_id, bye.posted, bye.is_bye) == ("bye", 3, True, True)
    # The same round again (a second process, a restart) pairs nothing.
    assert await db.pair_round(tid, 0, round_one, now=201.0) is None
    t = await db.get_tournament(tid)
    assert t is not None
    assert (t.state, t.current_round, t.rounds, t.round_started_at) == ("running", 1, 2, 200.0)
    assert [e.rating for e in await db.tournament_entrants(tid)] == [1600.0, 1500.0, 1400.0]
    assert [p.id for p in await db.owed_pairings()] == [match.id]
    # Only the process of the guild's shard sees them (GUILD is on shard 0 of 2).
    assert [p.id for p in await db.owed_pairings(shards=Shards(2, (0,)))] == [match.id]
    assert await db.owed_pairings(shards=Shards(2, (1,))) == []
    # Registration is closed now.
    assert await db.join_tournament(tid, 9, now=202.0) == "closed"
    assert not await db.leave_tournament(tid, 1)


async def test_two_connections_racing_pair_a_round_once(target: str) -> None:
    first, second = await open_storage(target), await open_storage(target)
    try:
        tid = await _registered(first, 4)
        pairs = [NewPairing(1, 1, 2), NewPairing(2, 3, 4)]
        results = await asyncio.gather(
            *(db.pair_round(tid, 0, pairs, now=200.0) for db in (first, second, first, second))
        )
        assert sum(r is not None for r in results) == 1
        assert len(await second.tournament_pairings(tid)) == 2
    finally:
        await first.close()
        await second.close()


async def test_a_match_game_records_its_result_when_it_ends(db: Storage) -> None:
    tid = await _registered(db, 2)
    paired = await db.pair_round(tid, 0, [NewPairing(1, 1, 2)], now=200.0)
    assert paired is not None
    pairing = paired[0]
    # Seat X is the second player here: points are turned to the pairing's order.
    game = await db.create_game(
        GUILD, 5000, "classic", 2, 1, "{}", now=201.0, pairing_id=pairing.id,
        parent_channel_id=CHANNEL,
    )  # fmt: skip
    with pytest.raises(ConflictError):
        await db.create_game(GUILD, 5001, "classic", 2, 1, "{}", now=201.0, pairing_id=pairing.id)
    started = await db.get_pairing(pairing.id)
    assert started is not None
    assert (started.state, started.game_id, started.thread_id) == ("playing", game.id, 5000)
    assert await db.pairing_posted(pairing.id, 5000)
    assert await db.owed_pairings() == []
    await db.finish_game(game.id, 0, "{}", MatchResult(1, "single", 3, 1, 3), now=300.0)
    done = await db.get_pairing(pairing.id)
    assert done is not None
    assert (done.state, done.winner_id, done.first_points, done.second_points) == (
        "finished",
        1,
        3,
        1,
    )
    assert done.sequence == 1 and done.finished_at == 300.0
    assert (await db.tournament_of_game(game.id)) == done
    assert await db.finish_tournament(tid, 1, now=301.0)
    assert not await db.finish_tournament(tid, 1, now=302.0)


async def test_an_aborted_match_game_is_a_double_forfeit(db: Storage) -> None:
    tid = await _registered(db, 2)
    paired = await db.pair_round(tid, 0, [NewPairing(1, 1, 2)], now=200.0)
    assert paired is not None
    game = await db.create_game(
        GUILD, 5000, "classic", 1, 2, "{}", now=201.0, pairing_id=paired[0].id
    )
    await db.request_abort(game.id, 1, now=202.0)
    await db.request_abort(game.id, 2, now=203.0)
    done = await db.get_pairing(paired[0].id)
    assert done is not None
    assert (done.state, done.winner_id, done.forfeit) == ("forfeited", None, True)


async def test_untouched_matches_are_double_forfeits_when_the_round_time_is_up(
    db: Storage,
) -> None:
    tid = await _registered(db, 6)
    await db.get_tournament(tid)
    paired = await db.pair_round(
        tid, 0, [NewPairing(1, 1, 2), NewPairing(2, 3, 4), NewPairing(3, 5, 6)], now=0.0
    )
    assert paired is not None
    untouched = await db.create_game(
        GUILD, 5000, "classic", 1, 2, "{}", now=1.0, pairing_id=paired[0].id
    )
    played = await db.create_game(
        GUILD, 5001, "classic", 3, 4, "{}", now=1.0, pairing_id=paired[1].id
    )
    await db.commit_action(played.id, 0, "{}", [], now=2.0)
    # A day (the default round time) is not up yet; then it is.
    assert await db.forfeit_unstarted(24 * 3600 - 1) == []
    forfeited = await db.forfeit_unstarted(24 * 3600)
    assert sorted(p.id for p in forfeited) == [paired[0].id, paired[2].id]
    assert all(p.state == "forfeited" and p.winner_id is None for p in forfeited)
    assert await db.forfeit_unstarted(24 * 3600 + 5) == []  # each once
    gone = await db.get_game(untouched.id)
    assert gone is not None and gone.status == "aborted"
    on = await db.get_game(played.id)
    assert on is not None and on.status == "active"


async def test_a_drop_forfeits_the_remaining_matches_to_the_opponents(db: Storage) -> None:
    tid = await _registered(db, 4)
    paired = await db.pair_round(tid, 0, [NewPairing(1, 1, 2), NewPairing(2, 3, 4)], now=0.0)
    assert paired is not None
    game = await db.create_game(
        GUILD, 5000, "classic", 1, 2, "{}", now=1.0, pairing_id=paired[0].id
    )
    forfeited = await db.withdraw_entrant(tid, 1, now=5.0)
    assert forfeited is not None
    assert [(p.id, p.winner_id, p.forfeit) for p in forfeited] == [(paired[0].id, 2, True)]
    aborted = await db.get_game(game.id)
    assert aborted is not None and aborted.status == "aborted"
    assert await db.withdraw_entrant(tid, 1, now=6.0) is None  # once
    assert [e.withdrawn for e in await db.tournament_entrants(tid)] == [True, False, False, False]


async def test_cancelling_aborts_the_games_in_progress(db: Storage) -> None:
    tid = await _registered(db, 2)
    paired = await db.pair_round(tid, 0, [NewPairing(1, 1, 2)], now=0.0)
    assert paired is not None
    await db.create_game(
        GUILD, 5000, "classic", 1, 2, "{}", now=1.0, pairing_id=paired[0].id,
        parent_channel_id=CHANNEL,
    )  # fmt: skip
    assert await db.cancel_tournament(tid, now=2.0) == [5000]
    assert await db.cancel_tournament(tid, now=3.0) is None
    assert await db.get_active_game(5000) is None
    listed = await db.list_tournaments(GUILD)
    assert [(t.id, t.state) for t in listed] == [(tid, "cancelled")]
    assert await db.live_tournaments() == []


async def test_live_tournaments_are_listed_first(db: Storage) -> None:
    old = await _registered(db, 2)
    await db.cancel_tournament(old, now=1.0)
    live = await new_tournament(db, name="Later")
    assert [t.id for t in await db.list_tournaments(GUILD)] == [live, old]
    assert [t.id for t in await db.live_tournaments()] == [live]
    assert await db.set_signup_message(live, 777)
    t = await db.get_tournament(live)
    assert t is not None and t.signup_message_id == 777


async def test_organiser_role_and_season_length_settings(db: Storage) -> None:
    settings = await db.get_guild_settings(GUILD)
    assert (settings.organiser_role_id, settings.season_months) == (None, 1)
    changed = await db.set_guild_settings(GUILD, organiser_role_id=4242, season_months=3)
    assert (changed.organiser_role_id, changed.season_months) == (4242, 3)
    again = await db.get_guild_settings(GUILD)
    assert (again.organiser_role_id, again.season_months) == (4242, 3)
    cleared = await db.set_guild_settings(GUILD, no_organiser_role=True)
    assert (cleared.organiser_role_id, cleared.season_months) == (None, 3)
    with pytest.raises(InvalidInputError):
        await db.set_guild_settings(GUILD, season_months=13)


async def test_announcements_are_owed_from_the_commit_until_recorded(db: Storage) -> None:
    """A round paired, an event finished or cancelled by the sweep owes its channel an
    announcement until it is recorded as out; an organiser's cancel says so itself."""
    tid = await _registered(db, 4)
    assert await db.unannounced_tournaments() == []
    assert await db.pair_round(tid, 0, [NewPairing(1, 1, 2), NewPairing(2, 3, 4)], now=1.0)
    (owed,) = await db.unannounced_tournaments()
    assert (owed.id, owed.state, owed.current_round) == (tid, "running", 1)
    # Only the process of the guild's shard sees it (GUILD is on shard 0 of 2).
    assert [t.id for t in await db.unannounced_tournaments(shards=Shards(2, (0,)))] == [tid]
    assert await db.unannounced_tournaments(shards=Shards(2, (1,))) == []
    await db.tournament_announced(tid, 1, end=False)
    assert await db.unannounced_tournaments() == []
    await db.tournament_announced(tid, 0, end=False)  # an older round: no step back
    assert await db.unannounced_tournaments() == []
    assert await db.finish_tournament(tid, 1, now=2.0)
    (ended,) = await db.unannounced_tournaments()
    assert ended.state == "finished"
    await db.tournament_announced(tid, 1, end=True)
    assert await db.unannounced_tournaments() == []

    by_sweep = await _registered(db, 1)
    assert await db.cancel_tournament(by_sweep, now=3.0) == []
    assert [(t.id, t.state) for t in await db.unannounced_tournaments()] == [
        (by_sweep, "cancelled")
    ]
    await db.tournament_announced(by_sweep, 0, end=True)
    by_organiser = await _registered(db, 2)
    assert await db.cancel_tournament(by_organiser, now=4.0, announced=True) == []
    assert await db.unannounced_tournaments() == []


async def test_arena_owes_only_its_first_round(db: Storage) -> None:
    tid = await _registered(db, 4, format="arena")
    assert await db.pair_round(tid, 0, [NewPairing(1, 1, 2)], now=1.0)
    assert [t.id for t in await db.unannounced_tournaments()] == [tid]
    await db.tournament_announced(tid, 1, end=False)
    assert await db.pair_round(tid, 1, [NewPairing(1, 3, 4)], now=2.0)
    assert await db.unannounced_tournaments() == []


async def test_one_caller_at_a_time_claims_an_owed_announcement(target: str) -> None:
    """Two processes on one shard (a rolling restart) both find a round's announcement owed:
    of their claims one wins; a claim runs out by itself (its process died) and the record
    of the announcement ends the debt and the claim."""
    first, second = await open_storage(target), await open_storage(target)
    try:
        tid = await _registered(first, 4)
        assert not await first.claim_announcement(tid, 1, end=False, now=1.0, until=31.0)
        assert await first.pair_round(tid, 0, [NewPairing(1, 1, 2), NewPairing(2, 3, 4)], now=1.0)
        claims = await asyncio.gather(
            *(
                db.claim_announcement(tid, 1, end=False, now=2.0, until=32.0)
                for db in (first, second) * 3
            )
        )
        assert sorted(claims) == [0, 0, 0, 0, 0, 1]  # the first attempt
        assert not await second.claim_announcement(tid, 1, end=False, now=31.9, until=61.9)
        # A claim for what is not owed (an older round, the end of a running event) fails.
        assert not await second.claim_announcement(tid, 0, end=False, now=40.0, until=70.0)
        assert not await second.claim_announcement(tid, 1, end=True, now=40.0, until=70.0)
        # The first died: the second attempt (it looks for the post already out).
        assert await second.claim_announcement(tid, 1, end=False, now=32.0, until=62.0) == 2
        await second.release_announcement(tid)  # a passing failure: free at once
        assert await first.claim_announcement(tid, 1, end=False, now=33.0, until=63.0) == 3
        await first.tournament_announced(tid, 1, end=False)
        assert not await second.claim_announcement(tid, 1, end=False, now=34.0, until=64.0)
        assert await first.finish_tournament(tid, 1, now=40.0)
        assert await second.claim_announcement(tid, 1, end=True, now=41.0, until=71.0) == 1
        await second.tournament_announced(tid, 1, end=True)
        assert not await first.claim_announcement(tid, 1, end=True, now=100.0, until=130.0)
    finally:
        await first.close()
        await second.close()


async def test_one_caller_at_a_time_claims_posting_a_match(target: str) -> None:
    first, second = await open_storage(target), await open_storage(target)
    try:
        tid = await _registered(first, 2)
        paired = await first.pair_round(tid, 0, [NewPairing(1, 1, 2)], now=1.0)
        assert paired is not None
        (match,) = paired
        claims = await asyncio.gather(
            *(db.claim_pairing_post(match.id, now=2.0, until=32.0) for db in (first, second) * 3)
        )
        assert sorted(claims) == [0, 0, 0, 0, 0, 1]
        assert not await first.claim_pairing_post(match.id, now=10.0, until=40.0)
        await second.release_pairing_post(match.id)
        assert await first.claim_pairing_post(match.id, now=11.0, until=41.0) == 2
        assert await first.pairing_posted(match.id, 555)
        # Posted: owed no more, whoever asks and however late.
        assert not await second.claim_pairing_post(match.id, now=100.0, until=130.0)
        assert await first.owed_pairings() == []
    finally:
        await first.close()
        await second.close()


async def test_a_match_game_is_claimable_at_the_events_time_if_shorter(db: Storage) -> None:
    """The server's claim time is 72 h (the default): a match of an event whose time limit is
    30 minutes is claimable after 30 minutes, one with a 30-day limit after 72 h."""
    quick = await _registered(db, 2, minutes=30)
    slow = await _registered(db, 2, minutes=30 * 24 * 60)
    games = []
    for tid, thread in ((quick, 5000), (slow, 5001)):
        paired = await db.pair_round(tid, 0, [NewPairing(1, 1, 2)], now=0.0)
        assert paired is not None
        game = await db.create_game(
            GUILD, thread, "classic", 1, 2, "{}", now=0.0, pairing_id=paired[0].id,
            parent_channel_id=CHANNEL,
        )  # fmt: skip
        games.append(game)
    plain = await db.create_game(GUILD, 5002, "classic", 3, 4, "{}", now=0.0)
    assert await db.claimable_games(now=30 * 60 - 1) == []
    assert [g.id for g in await db.claimable_games(now=30 * 60)] == [games[0].id]
    assert [g.id for g in await db.claimable_games(now=72 * 3600)] == [
        games[0].id,
        games[1].id,
        plain.id,
    ]
