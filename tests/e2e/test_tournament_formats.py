"""End to end: a 5-player knockout, a 4-player round robin and a short arena, each played to the
end through the fake Discord (every match in its own thread, ended by a resignation), the bot
killed with SIGKILL in the middle and restarted; standings checked against a count kept by the
test as it decides each match."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from storage import Database, Storage, Tournament, TournamentPairing
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeUser

from .harness import TIMEOUT, BotProcess, reply_of
from .test_tournaments import MANAGE_GUILD, resign_match

pytestmark = pytest.mark.slow

#: rank, player, score, wins-losses of a /tournament standings line.
LINE = re.compile(r"(\d+)\. <@(\d+)>(?: \(withdrawn\))?: (\d+) \((\d+)-(\d+)")


async def open_event(
    fake: FakeDiscord, db: Storage, players: list[FakeUser], **options: object
) -> int:
    admin = fake.add_user("admin", roles=[fake.add_role("admins", permissions=MANAGE_GUILD)])
    created = await fake.slash(admin, fake.general, "tournament create", **options)  # type: ignore[arg-type]
    signup = await created.wait_original(timeout=TIMEOUT)
    join = next(c for c in signup.custom_ids() if c.startswith("tn:join:"))
    for player in players:
        click = await fake.click(player, signup, join)
        await click.wait_initial(TIMEOUT)
    tournament_id = int(join.rsplit(":", 1)[1])
    started = await reply_of(await fake.slash(admin, fake.general, "tournament start"))
    assert not started.ephemeral, started.content
    return tournament_id


async def ready_matches(db: Storage, tournament_id: int) -> list[TournamentPairing]:
    """Matches whose game is on, its first board shown."""
    ready = []
    for p in await db.tournament_pairings(tournament_id):
        if p.state != "playing" or p.game_id is None or not p.posted:
            continue
        game = await db.get_game(p.game_id)
        if game is not None and game.status == "active" and game.board_message_id is not None:
            ready.append(p)
    return ready


async def tournament(db: Storage, tournament_id: int) -> Tournament:
    found = await db.get_tournament(tournament_id)
    assert found is not None
    return found


async def play_to_the_end(
    fake: FakeDiscord,
    db: Storage,
    tournament_id: int,
    players: list[FakeUser],
    *,
    process: BotProcess | None = None,
    kill_after: int = 0,
    timeout: float = 120.0,
) -> list[tuple[int, int]]:
    """Play every match as it comes (the earlier player in ``players`` wins) until the event is
    over; kill -9 and restart ``process`` once ``kill_after`` matches are played. Returns
    (winner, loser) in the order the matches ended."""
    by_id = {p.id: p for p in players}
    strength = {p.id: i for i, p in enumerate(players)}
    played: list[tuple[int, int]] = []
    deadline = asyncio.get_running_loop().time() + timeout
    while (await tournament(db, tournament_id)).state == "running":
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("the tournament did not end in time")
        matches = await ready_matches(db, tournament_id)
        if not matches:
            await asyncio.sleep(0.1)
            continue
        p = matches[0]
        assert p.second_id is not None
        a, b = p.first_id, p.second_id
        winner, loser = (a, b) if strength[a] < strength[b] else (b, a)
        await resign_match(fake, db, p, by_id[winner], by_id[loser])
        played.append((winner, loser))
        if process is not None and len(played) == kill_after:
            process.kill()
            await process.start()
    return played


async def standings_lines(fake: FakeDiscord, user: FakeUser) -> list[tuple[int, int, int, int]]:
    """(player, score, wins, losses) of each line of /tournament standings, in order."""
    shown = await reply_of(await fake.slash(user, fake.general, "tournament standings"))
    return [(int(u), int(s), int(w), int(lost)) for _, u, s, w, lost in LINE.findall(shown.content)]


async def test_a_five_player_knockout_with_byes_and_a_kill_9(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=3)
    await process.start()
    db = await Database.open(db_path)
    players = [fake.add_user(f"seed{i}") for i in range(1, 6)]
    try:
        tid = await open_event(
            fake, db, players, format="knockout", variant="classic", length=1, name="Cup"
        )
        round_one = await db.tournament_pairings(tid, 1)
        # All unrated: seeds follow the sign-up order; byes fill the bracket of 8.
        byes = sorted(p.first_id for p in round_one if p.is_bye)
        assert byes == sorted(p.id for p in players[:3])
        (match,) = [p for p in round_one if not p.is_bye]
        assert {match.first_id, match.second_id} == {players[3].id, players[4].id}
        played = await play_to_the_end(fake, db, tid, players, process=process, kill_after=1)
        # Hand count: 4 vs 5, then 1 vs 4 and 2 vs 3, then the final 1 vs 2.
        ids = [p.id for p in players]
        assert sorted(played) == sorted(
            [(ids[3], ids[4]), (ids[0], ids[3]), (ids[1], ids[2]), (ids[0], ids[1])]
        )
        assert played[-1] == (ids[0], ids[1])
        assert (await tournament(db, tid)).current_round == 3
        assert len(await db.tournament_pairings(tid)) == 1 + 3 + 2 + 1  # 4 byes+matches, 2, 1
        lines = await standings_lines(fake, players[0])
        assert lines[0][0] == ids[0] and lines[1][0] == ids[1]
        record = {user: (won, lost) for user, _, won, lost in lines}
        # Match wins and losses (byes are listed apart): 1 and 2 had byes, 4 did not.
        assert record == {
            ids[0]: (2, 0),
            ids[1]: (1, 1),
            ids[2]: (0, 1),
            ids[3]: (1, 1),
            ids[4]: (0, 1),
        }
    finally:
        process.stop()
        await db.close()


async def test_a_four_player_round_robin_with_a_kill_9(fake: FakeDiscord, tmp_path: Path) -> None:
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=4)
    await process.start()
    db = await Database.open(db_path)
    players = [fake.add_user(f"rr{i}") for i in range(1, 5)]
    try:
        tid = await open_event(
            fake, db, players, format="round-robin", variant="dutch", length=1, name="League"
        )
        played = await play_to_the_end(fake, db, tid, players, process=process, kill_after=3)
        assert len(played) == 6
        # Everyone met everyone once.
        assert {frozenset(pair) for pair in played} == {
            frozenset((a.id, b.id)) for i, a in enumerate(players) for b in players[i + 1 :]
        }
        assert (await tournament(db, tid)).current_round == 3
        lines = await standings_lines(fake, players[0])
        # Hand count: the i-th player wins against everyone after them.
        assert [(u, s, w, lost) for u, s, w, lost in lines] == [
            (p.id, 3 - i, 3 - i, i) for i, p in enumerate(players)
        ]
    finally:
        process.stop()
        await db.close()


async def test_a_one_minute_arena(fake: FakeDiscord, tmp_path: Path) -> None:
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=6)
    await process.start()
    db = await Database.open(db_path)
    players = [fake.add_user(f"ar{i}") for i in range(1, 5)]
    try:
        tid = await open_event(
            fake, db, players, format="arena", variant="classic", length=1, minutes=1,
            name="Blitz",
        )  # fmt: skip
        played = await play_to_the_end(
            fake, db, tid, players, process=process, kill_after=3, timeout=150.0
        )
        assert len(played) >= 4  # finished players were paired again at once
        # Hand count: a win 2, a win on a streak (the two games before it won: the third win
        # in a row and on, as lichess counts) 3, a loss 0 and the streak is over.
        points = {p.id: 0 for p in players}
        streak = {p.id: 0 for p in players}
        for winner, loser in played:
            points[winner] += 3 if streak[winner] >= 2 else 2
            streak[winner] += 1
            streak[loser] = 0
        lines = await standings_lines(fake, players[0])
        assert {u: s for u, s, _, _ in lines} == points
        # Ranked by score. Not necessarily the strongest first: a player paired more often
        # (the others' matches ending sooner, or the restart) can outscore one who never lost.
        scores = [s for _, s, _, _ in lines]
        assert scores == sorted(scores, reverse=True)
        assert points[lines[0][0]] == max(points.values())
        assert all(lost == 0 for u, _, _, lost in lines if u == players[0].id)
        finished = await tournament(db, tid)
        assert finished.state == "finished" and finished.started_at is not None
        assert finished.finished_at is not None
        assert finished.finished_at >= finished.started_at + 60
    finally:
        process.stop()
        await db.close()
