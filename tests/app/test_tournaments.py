"""Tournament use cases without Discord: refusals, a Swiss played to the end through real
games (each ended by a resignation through the game table), a drop that forfeits and gives a
bye, double forfeits when nobody starts, a knockout and an arena."""

from __future__ import annotations

import asyncio
import io
import random

import pytest
from PIL import Image

from app.league import ClaimTooEarly, League, Reminders
from app.table import GameTable
from app.tournaments import (
    AlreadyJoined,
    EventFull,
    NotAnOrganiser,
    NotEnoughPlayers,
    NotJoined,
    NotPlaying,
    RegistrationClosed,
    RoundsNotForFormat,
    SeveralTournaments,
    Tournaments,
    UnknownTournament,
)
from storage import Storage, Tournament, open_storage
from tests.app.conftest import CHANNEL, GUILD, FakeClock
from tests.postgres_server import Cluster

ORGANISER = 50
ROLE = 77
PLAYERS = list(range(1, 9))


@pytest.fixture
def events(db: Storage, table: GameTable, clock: FakeClock) -> Tournaments:
    return Tournaments(db, table, clock)


async def create(events: Tournaments, fmt: str = "swiss", **kwargs: object) -> Tournament:
    options: dict[str, object] = {
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "organiser_id": ORGANISER,
        "may_manage": True,
        "role_ids": [],
        "fmt": fmt,
        "variant": "classic",
        "length": 1,
    }
    options.update(kwargs)
    return await events.create(**options)  # type: ignore[arg-type]


async def play_round(events: Tournaments, table: GameTable, *, loser_of: dict[int, int]) -> int:
    """Start every owed match in a thread of its own and end each by a resignation of the
    player ``loser_of`` names for its pairing (default: the second player); returns how many
    matches were played."""
    played = 0
    for tournament, pairing in await events.owed(None):
        assert pairing.second_id is not None
        thread = 900_000 + pairing.id
        outcome = await events.start_match(tournament, pairing, ("p1", "p2"), thread)
        assert outcome is not None
        assert await events.start_match(tournament, pairing, ("p1", "p2"), thread) is None
        await events.match_posted(pairing, thread)
        loser = loser_of.get(pairing.id, pairing.second_id)
        game = outcome.game
        finished = await table.act(game, loser, lambda s, seat: s.resign(seat), "resign")
        assert finished.finished is not None
        played += 1
    return played


async def test_refusals(events: Tournaments, db: Storage) -> None:
    with pytest.raises(NotAnOrganiser):
        await create(events, may_manage=False, role_ids=[ROLE])
    await db.set_guild_settings(GUILD, organiser_role_id=ROLE)
    by_role = await create(events, may_manage=False, role_ids=[ROLE], max_players=2, name="Duo")
    with pytest.raises(RoundsNotForFormat):
        await create(events, "knockout", rounds=3)
    with pytest.raises(UnknownTournament):
        await events.find(GUILD, "nothing")
    assert (await events.find(GUILD, "duo")).id == by_role.id
    assert (await events.find(GUILD, f"#{by_role.id}")).id == by_role.id
    assert (await events.find(GUILD, None)).id == by_role.id
    await events.join(by_role, 1)
    with pytest.raises(AlreadyJoined):
        await events.join(by_role, 1)
    with pytest.raises(NotEnoughPlayers):
        await events.start(by_role, may_manage=True, role_ids=[], user_id=ORGANISER)
    await events.join(by_role, 2)
    with pytest.raises(EventFull):
        await events.join(by_role, 3)
    with pytest.raises(NotJoined):
        await events.leave(by_role, 3)
    with pytest.raises(NotAnOrganiser):
        await events.start(by_role, may_manage=False, role_ids=[], user_id=2)
    await create(events, name="Second")
    with pytest.raises(SeveralTournaments):
        await events.find(GUILD, None)
    started = await events.start(by_role, may_manage=False, role_ids=[ROLE], user_id=3)
    assert [(p.first_id, p.second_id) for p in started.paired] in ([(1, 2)], [(2, 1)])
    with pytest.raises(RegistrationClosed):
        await events.join(started.tournament, 4)
    with pytest.raises(NotPlaying):
        await events.drop(started.tournament, 4)


async def test_a_swiss_with_a_drop_is_paired_round_by_round_to_the_end(
    events: Tournaments, table: GameTable, db: Storage
) -> None:
    tournament = await create(events, rounds=3, name="Club Swiss")
    for player in PLAYERS:
        await events.join(tournament, player)
    started = await events.start(tournament, may_manage=True, role_ids=[], user_id=ORGANISER)
    assert len(started.paired) == 4 and started.tournament.rounds == 3
    # Nothing to advance while round 1 is being played; a second start pairs nothing.
    assert await events.advance(tournament.id) is None
    assert events.changed.is_set() is False
    assert await play_round(events, table, loser_of={}) == 4
    assert events.changed.is_set()  # the finishes woke the sweep
    # Player 8 drops out before round 2: 7 players, so round 2 has a bye.
    round_one = await events.pairings(started.tournament, 1)
    assert all(p.state == "finished" for p in round_one)
    advanced = await events.sweep(None)
    assert [a.tournament.current_round for a in advanced] == [2]
    assert await events.sweep(None) == []  # round 2 is paired once
    fresh = await events.get(tournament.id)
    assert fresh is not None
    two = await events.pairings(fresh, 2)
    dropper = next(p for p in two if p.second_id is not None).first_id
    forfeited = await events.drop(fresh, dropper)
    assert len(forfeited) == 1 and forfeited[0].winner_id != dropper and forfeited[0].forfeit
    assert await play_round(events, table, loser_of={}) == 3
    three = await events.sweep(None)
    assert [a.tournament.current_round for a in three] == [3]
    round_three = await events.pairings(three[0].tournament, 3)
    byes = [p for p in round_three if p.is_bye]
    assert len(byes) == 1 and byes[0].state == "bye"
    assert all(dropper not in (p.first_id, p.second_id) for p in round_three)
    assert await play_round(events, table, loser_of={}) == 3
    final = await events.sweep(None)
    assert len(final) == 1 and final[0].finished
    view = await events.standings(final[0].tournament)
    # Hand computation: a point a win (forfeits and byes count as wins), from the pairings.
    points: dict[int, float] = dict.fromkeys(PLAYERS, 0.0)
    for p in view.pairings:
        if p.winner_id is not None:
            points[p.winner_id] += 1
    assert {row.player_id: row.score for row in view.rows} == points
    assert sum(points.values()) == 4 + 4 + 4  # 4 matches, 4 with a forfeit, 3 and a bye


async def test_matches_nobody_starts_are_double_forfeits_and_the_event_moves_on(
    events: Tournaments, table: GameTable, clock: FakeClock
) -> None:
    tournament = await create(events, rounds=2, minutes=30)
    for player in PLAYERS[:4]:
        await events.join(tournament, player)
    await events.start(tournament, may_manage=True, role_ids=[], user_id=ORGANISER)
    owed = await events.owed(None)
    games = []
    for t, pairing in owed:
        outcome = await events.start_match(t, pairing, ("a", "b"), 800_000 + pairing.id)
        assert outcome is not None
        await events.match_posted(pairing, 800_000 + pairing.id)
        games.append(outcome.game)
    # The first match is played (resigned at once); nobody touches the second.
    loser = games[0].player_o
    await table.act(games[0], loser, lambda s, seat: s.resign(seat), "resign")
    clock.advance(29 * 60)
    assert await events.sweep(None) == []  # the round's time is not up: round 1 goes on
    clock.advance(60)
    advanced = await events.sweep(None)
    pairings = await events.pairings(tournament, 1)
    assert [(p.state, p.winner_id, p.forfeit) for p in pairings] == [
        ("finished", games[0].player_x, False),
        ("forfeited", None, True),
    ]
    untouched = await table.db.get_game(games[1].id)
    assert untouched is not None and untouched.status == "aborted"
    assert [a.tournament.current_round for a in advanced] == [2]
    view = await events.standings(advanced[0].tournament)
    # A double forfeit scores nothing for either player.
    assert {r.player_id: r.score for r in view.rows} == {
        games[0].player_x: 1,
        games[0].player_o: 0,
        games[1].player_x: 0,
        games[1].player_o: 0,
    }


async def test_processes_racing_on_postgresql_pair_each_round_once(pg_cluster: Cluster) -> None:
    """Two bot processes (each its own connection pool and game table) on one PostgreSQL move
    the same event on at once, again and again: every round is paired exactly once."""
    url = await pg_cluster.new_database()
    first, second = await open_storage(url), await open_storage(url)
    try:
        clock = FakeClock()
        sides = [
            Tournaments(db, GameTable(db, random.Random(i), clock=clock), clock)
            for i, db in enumerate((first, second))
        ]
        tournament = await create(sides[0], rounds=3)
        for player in PLAYERS:
            await sides[0].join(tournament, player)
        starts = await asyncio.gather(
            *(
                side.start(tournament, may_manage=True, role_ids=[], user_id=ORGANISER)
                for side in sides
            ),
            return_exceptions=True,
        )
        assert sum(isinstance(s, RegistrationClosed) for s in starts) == 1
        for number in (1, 2, 3):
            owed = await sides[number % 2].owed(None)
            assert len(owed) == 4
            for t, pairing in owed:
                side = sides[pairing.id % 2]
                thread = 700_000 + pairing.id
                outcome = await side.start_match(t, pairing, ("a", "b"), thread)
                assert outcome is not None
                await side.match_posted(pairing, thread)
                await side.table.act(
                    outcome.game, pairing.first_id, lambda s, seat: s.resign(seat), "resign"
                )
            moved = await asyncio.gather(*(side.sweep(None) for side in sides * 3))
            assert sum(len(m) for m in moved) == 1  # the next round, or the end
        done = await first.get_tournament(tournament.id)
        assert done is not None and done.state == "finished"
        assert len(await first.tournament_pairings(tournament.id)) == 12
    finally:
        await first.close()
        await second.close()


async def test_standings_pictures_are_pngs(events: Tournaments, table: GameTable) -> None:
    cup = await create(events, "knockout", name="Cup")
    league = await create(events, "round-robin", name="League")
    for player in PLAYERS[:5]:
        await events.join(cup, player)
        await events.join(league, player)
    names = {p: f"player {p}" for p in PLAYERS}
    for event in (cup, league):
        started = await events.start(event, may_manage=True, role_ids=[], user_id=ORGANISER)
        png = await events.picture(await events.standings(started.tournament), names)
        with Image.open(io.BytesIO(png)) as image:
            assert image.format == "PNG"
            width, height = image.size
        # A bracket of 8 over three rounds is wider than the 760 px standings table.
        assert (width > 760) == (event is cup) and height > 100


async def test_the_start_time_starts_or_cancels_the_event(
    events: Tournaments, clock: FakeClock
) -> None:
    full = await create(events, starts="10", name="Timed")
    lonely = await create(events, "arena", starts="10", name="Lonely")
    assert full.starts_at == clock.now + 600
    for player in PLAYERS[:3]:
        await events.join(full, player)
    await events.join(lonely, 1)
    clock.advance(599)
    assert await events.sweep(None) == []
    clock.advance(1)
    moved = {a.tournament.name: a for a in await events.sweep(None)}
    assert moved["Timed"].tournament.state == "running"
    assert sorted(p.is_bye for p in moved["Timed"].paired) == [False, True]  # 3 players
    assert moved["Lonely"].tournament.state == "cancelled" and moved["Lonely"].finished
    assert await events.sweep(None) == []


async def test_a_player_who_does_not_act_loses_by_a_claim_after_the_events_time(
    events: Tournaments, table: GameTable, db: Storage, clock: FakeClock
) -> None:
    tournament = await create(events, "knockout", minutes=30)
    for player in PLAYERS[:2]:
        await events.join(tournament, player)
    started = await events.start(tournament, may_manage=True, role_ids=[], user_id=ORGANISER)
    (pairing,) = started.paired
    outcome = await events.start_match(started.tournament, pairing, ("a", "b"), 600_001)
    assert outcome is not None
    league = League(db, table, clock)
    state = table.state_of(outcome.game)
    waiting = outcome.game.player_o if state.mover == 0 else outcome.game.player_x
    clock.advance(29 * 60)
    with pytest.raises(ClaimTooEarly):  # the server's claim time is three days; the event's 30 min
        await league.claim(GUILD, 600_001, waiting)
    clock.advance(60)
    claimed = await league.claim(GUILD, 600_001, waiting)
    assert claimed.outcome.finished is not None
    done = await db.get_pairing(pairing.id)
    assert done is not None and (done.state, done.winner_id) == ("finished", waiting)
    advanced = await events.sweep(None)
    assert len(advanced) == 1 and advanced[0].finished


async def test_the_claim_notice_comes_when_claim_allows_it_at_the_events_time(
    events: Tournaments, table: GameTable, db: Storage, clock: FakeClock
) -> None:
    """In a match the waiting player is told they may claim when /claim allows it: after the
    event's 30 minutes (not the server's three days), and the notice says 30 minutes."""
    tournament = await create(events, "knockout", minutes=30)
    for player in PLAYERS[:2]:
        await events.join(tournament, player)
    started = await events.start(tournament, may_manage=True, role_ids=[], user_id=ORGANISER)
    (pairing,) = started.paired
    outcome = await events.start_match(started.tournament, pairing, ("a", "b"), 600_002)
    assert outcome is not None
    league = League(db, table, clock)
    reminders = Reminders(db, table, clock)
    state = table.state_of(outcome.game)
    waiting = outcome.game.player_o if state.mover == 0 else outcome.game.player_x
    clock.advance(29 * 60)
    assert [n async for n in reminders.due()] == []
    with pytest.raises(ClaimTooEarly):
        await league.claim(GUILD, 600_002, waiting)
    clock.advance(60)
    [notice] = [n async for n in reminders.due()]
    assert notice.claim and notice.waiting_user == waiting
    assert notice.claim_after_seconds == 30 * 60
    assert await reminders.sent(notice)
    assert [n async for n in reminders.due()] == []  # told once
    claimed = await league.claim(GUILD, 600_002, waiting)
    assert claimed.outcome.finished is not None


async def test_a_servers_shorter_claim_time_holds_in_matches_too(
    events: Tournaments, table: GameTable, db: Storage, clock: FakeClock
) -> None:
    await db.set_guild_settings(GUILD, reminder_after_seconds=600, claim_after_seconds=3600)
    tournament = await create(events, "knockout", minutes=24 * 60)
    for player in PLAYERS[:2]:
        await events.join(tournament, player)
    started = await events.start(tournament, may_manage=True, role_ids=[], user_id=ORGANISER)
    (pairing,) = started.paired
    outcome = await events.start_match(started.tournament, pairing, ("a", "b"), 600_003)
    assert outcome is not None
    reminders = Reminders(db, table, clock)
    state = table.state_of(outcome.game)
    waiting = outcome.game.player_o if state.mover == 0 else outcome.game.player_x
    clock.advance(3600)
    [notice] = [n async for n in reminders.due()]
    assert notice.claim and notice.claim_after_seconds == 3600
    claimed = await League(db, table, clock).claim(GUILD, 600_003, waiting)
    assert claimed.idle_seconds == 3600


async def test_rounds_not_announced_stay_owed_in_order_after_the_event_moves_on(
    events: Tournaments, table: GameTable, db: Storage
) -> None:
    """A process died holding round 1's announcement; the event went on meanwhile: round 1,
    round 2 and the end are each still owed, in that order, until announced."""
    tournament = await create(events, "knockout")
    for player in PLAYERS[:4]:
        await events.join(tournament, player)
    await events.start(tournament, may_manage=True, role_ids=[], user_id=ORGANISER)
    assert await play_round(events, table, loser_of={}) == 2
    assert [a.tournament.current_round for a in await events.sweep(None)] == [2]
    assert await play_round(events, table, loser_of={}) == 1
    assert [a.finished for a in await events.sweep(None)] == [True]
    [owed] = await events.owed_announcements(None)
    assert [(a.round_number, a.finished) for a in owed] == [(1, False), (2, False), (2, True)]
    assert [len(a.paired) for a in owed] == [2, 1, 0]
    assert all(p.state == "finished" for a in owed for p in a.paired)  # shown with results
    # Each is claimed by one process at a time and recorded once out.
    assert await events.claim_announcement(owed[0])
    assert not await events.claim_announcement(owed[0])
    await events.announced(owed[0])
    [left] = await events.owed_announcements(None)
    assert [(a.round_number, a.finished) for a in left] == [(2, False), (2, True)]
    for advanced in left:
        assert await events.claim_announcement(advanced)
        await events.announced(advanced)
    assert await events.owed_announcements(None) == []
