"""End to end: tournaments with the real bot against the fake Discord. An 8-player Swiss of 3
rounds played to the end (every match in its own thread, ended by a resignation), with a drop
(a forfeit) and the bye it causes, the bot killed with SIGKILL right after a round is paired
and restarted; standings checked against a count kept by hand. Refusals in-process."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pytest
from PIL import Image

from discord_ui.client import BackgammonBot
from storage import Database, Storage, TournamentPairing
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeChannel, FakeMessage, FakeUser

from .harness import TIMEOUT, BotProcess, Table, final_callback, png_of, reply_of

pytestmark = pytest.mark.slow

MANAGE_GUILD = 1 << 5
#: A line of /leaderboard season: player, wins-losses.
SEASON_LINE = re.compile(r"<@(\d+)> · \*\*[0-9.]+\*\* \((\d+)-(\d+)")
#: A line of /tournament standings: rank, player, score, wins-losses.
STANDING_LINE = re.compile(r"(\d+)\. <@(\d+)>(?: \(withdrawn\))?: (\d+) \((\d+)-(\d+)")


async def until(check: object, what: str, timeout: float = 60.0) -> None:
    """Wait until the coroutine function ``check`` returns true."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not await check():  # type: ignore[operator]
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def round_started(db: Storage, tournament_id: int, number: int) -> list[TournamentPairing]:
    """The pairings of round ``number`` once each match's thread is out and its game's first
    board shown (byes need neither)."""
    found: list[TournamentPairing] = []

    async def ready() -> bool:
        nonlocal found
        found = await db.tournament_pairings(tournament_id, number)
        if not found:
            return False
        for p in found:
            if p.is_bye:
                continue
            if not p.posted or p.game_id is None:
                return False
            game = await db.get_game(p.game_id)
            if game is None or game.board_message_id is None:
                return False
        return True

    await until(ready, f"round {number} to be posted")
    return found


async def resign_match(
    fake: FakeDiscord, db: Storage, pairing: TournamentPairing, winner: FakeUser, loser: FakeUser
) -> None:
    """The loser resigns the match in its thread (the winner accepts where asked to)."""
    assert pairing.thread_id is not None
    thread = fake.channel(pairing.thread_id)
    assert thread is not None and thread.is_thread
    table = Table(fake, db, thread, winner, loser)
    game = await table.game()
    assert game is not None
    table.last_board = fake.get_message(game.board_message_id or 0)
    await table.act(loser, "resign")
    if await table.game() is not None:  # classic: the winner accepts the resignation
        await table.press(winner, "rsyes")
    assert await table.game() is None


def pair_messages(fake: FakeDiscord, channel: FakeChannel, a: int, b: int) -> list[FakeMessage]:
    """The bot's messages in ``channel`` announcing the match of ``a`` and ``b`` (with pings)."""
    return [
        m
        for m in fake.messages_in(channel)
        if m.author.bot and f"<@{a}> vs <@{b}>. Your match" in m.text()
    ]


async def test_an_eight_player_swiss_with_a_drop_a_bye_and_a_kill_9(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db_path = tmp_path / "bot.sqlite3"
    process = BotProcess(fake, db_path, seed=5)
    await process.start()
    db = await Database.open(db_path)
    channel = fake.general
    admin = fake.add_user("admin", roles=[fake.add_role("admins", permissions=MANAGE_GUILD)])
    players = [fake.add_user(f"player{i}") for i in range(1, 9)]
    by_id = {p.id: p for p in players}
    #: The strength order decides every match played: the earlier player wins.
    strength = {p.id: i for i, p in enumerate(players)}
    points = dict.fromkeys(by_id, 0)
    wins = dict.fromkeys(by_id, 0)
    losses = dict.fromkeys(by_id, 0)
    byes = dict.fromkeys(by_id, 0)
    #: Games won and lost on the board (a forfeit is no game), for the season's table.
    games_won = dict.fromkeys(by_id, 0)
    games_lost = dict.fromkeys(by_id, 0)
    try:
        created = await fake.slash(
            admin, channel, "tournament create", format="swiss", variant="classic", length=1,
            rounds=3, name="Club Swiss",
        )  # fmt: skip
        signup = await created.wait_original(timeout=TIMEOUT)
        assert not signup.ephemeral and "Club Swiss" in signup.content
        join = next(c for c in signup.custom_ids() if c.startswith("tn:join:"))
        tournament_id = int(join.rsplit(":", 1)[1])
        # Half sign up with the button, half with the command.
        for player in players[:4]:
            click = await fake.click(player, signup, join)
            await click.wait_initial(TIMEOUT)
        # Leave, then join again, with the buttons.
        leave = next(c for c in signup.custom_ids() if c.startswith("tn:leave:"))
        left = await fake.click(players[0], signup, leave)
        await left.wait_initial(TIMEOUT)
        assert len(await db.tournament_entrants(tournament_id)) == 3
        rejoined = await fake.click(players[0], signup, join)
        await rejoined.wait_initial(TIMEOUT)
        for player in players[4:]:
            reply = await reply_of(await fake.slash(player, channel, "tournament join"))
            assert reply.ephemeral and "registered" in reply.content, reply.content
        again = await reply_of(await fake.slash(players[0], channel, "tournament join"))
        assert again.ephemeral and "already registered" in again.content
        assert len(await db.tournament_entrants(tournament_id)) == 8
        listed = fake.get_message(signup.id)
        assert listed is not None and "Registered (8)" in listed.content

        started = await reply_of(await fake.slash(admin, channel, "tournament start"))
        assert not started.ephemeral and "has started" in started.content, started.content

        def round_announcements(number: int) -> list[FakeMessage]:
            return [
                m
                for m in fake.messages_in(channel)
                if f"**Club Swiss**, round {number} of 3:" in m.text()
            ]

        t = await db.get_tournament(tournament_id)
        assert t is not None and t.state == "running"

        for number in (1, 2, 3):
            pairings = await round_started(db, tournament_id, number)
            if number == 2:
                # The bot dies right after round 2 is paired (and perhaps half posted); the
                # new process pairs nothing again and posts each match once.
                process.kill()
                await process.start()
                pairings = await round_started(db, tournament_id, number)
            t = await db.get_tournament(tournament_id)
            assert t is not None and t.current_round == number

            # Each round is announced once in the channel, a kill between its pairing and its
            # announcement included (the new process posts what is owed).
            async def announced_now(number: int = number) -> bool:
                return bool(round_announcements(number))

            await until(announced_now, f"round {number}'s announcement")
            await asyncio.sleep(0.3)  # a second announcement would be out by now
            assert len(round_announcements(number)) == 1
            listed = await reply_of(await fake.slash(players[7], channel, "tournament pairings"))
            assert listed.ephemeral and f"round {number}:" in listed.content
            assert listed.content.count("Table ") == len(pairings)
            for p in pairings:
                if p.second_id is None:
                    byes[p.first_id] += 1
                    points[p.first_id] += 1
                    continue
                # Each match was announced once, pinging both players, in its own thread.
                (announced,) = pair_messages(fake, channel, p.first_id, p.second_id)
                assert {u.id for u in announced.pinged} == {p.first_id, p.second_id}
                assert p.thread_id == announced.id
            matches = [p for p in pairings if p.second_id is not None]
            if number == 2:
                # A player of the first match drops out before playing: a forfeit.
                first = matches[0]
                assert first.second_id is not None
                quitter, stayer = first.second_id, first.first_id
                dropped = await reply_of(
                    await fake.slash(by_id[quitter], channel, "tournament drop")
                )
                assert dropped.ephemeral and "forfeited" in dropped.content, dropped.content
                points[stayer] += 1
                wins[stayer] += 1
                losses[quitter] += 1
                matches = matches[1:]
            for p in matches:
                assert p.second_id is not None
                a, b = p.first_id, p.second_id
                winner, loser = (a, b) if strength[a] < strength[b] else (b, a)
                await resign_match(fake, db, p, by_id[winner], by_id[loser])
                games_won[winner] += 1
                games_lost[loser] += 1
                points[winner] += 1
                wins[winner] += 1
                losses[loser] += 1
        round_three = await db.tournament_pairings(tournament_id, 3)
        assert sum(p.is_bye for p in round_three) == 1  # 7 players left
        assert all(quitter not in (p.first_id, p.second_id) for p in round_three)

        async def finished() -> bool:
            done = await db.get_tournament(tournament_id)
            return done is not None and done.state == "finished"

        await until(finished, "the tournament to finish")
        # Each round was paired once: 4 + 4 + 4 tables.
        assert len(await db.tournament_pairings(tournament_id)) == 12

        def announced() -> list[FakeMessage]:
            return [
                m for m in fake.messages_in(channel) if "Club Swiss**: final standings" in m.text()
            ]

        async def final_out() -> bool:
            return bool(announced())

        await until(final_out, "the final standings")
        await asyncio.sleep(0.5)  # a second announcement would be out by now
        final = announced()
        assert len(final) == 1
        final_png = png_of(final[0])
        assert final_png is not None and final_png.startswith(b"\x89PNG")
        shown = await reply_of(await fake.slash(players[0], channel, "tournament standings"))
        assert shown.ephemeral
        picture = png_of(shown.message)
        assert picture is not None
        with Image.open(io.BytesIO(picture)) as image:
            assert image.format == "PNG" and image.width == 760
        rows = STANDING_LINE.findall(shown.content)
        assert len(rows) == 8, shown.content
        for _rank, user, score, won, lost in rows:
            uid = int(user)
            assert (int(score), int(won), int(lost)) == (points[uid], wins[uid], losses[uid])
        scores = [int(score) for _, _, score, _, _ in rows]
        assert scores == sorted(scores, reverse=True)
        assert sum(byes.values()) == 1
        # The strongest player won all three rounds (their byes count as wins).
        assert int(rows[0][1]) == players[0].id and int(rows[0][2]) == 3
        # The rated games count in this month's season: W-L per player as played.
        season = await final_callback(
            await fake.slash(players[0], channel, "leaderboard", season="current")
        )
        (embed,) = season.data["embeds"]
        lines = SEASON_LINE.findall(embed["description"])
        assert len(lines) == 8, embed["description"]
        assert {int(u): (int(w), int(lost)) for u, w, lost in lines} == {
            u: (games_won[u], games_lost[u]) for u in by_id
        }
    finally:
        process.stop()
        await db.close()


async def test_refusals_are_private_and_specific(fake: FakeDiscord, bot: BackgammonBot) -> None:
    channel = fake.general
    member = fake.add_user("member")
    admin = fake.add_user("admin", roles=[fake.add_role("admins", permissions=MANAGE_GUILD)])

    async def ask(user: FakeUser, command: str, **options: object) -> str:
        reply = await reply_of(await fake.slash(user, channel, command, **options))  # type: ignore[arg-type]
        assert reply.ephemeral, reply.content
        return reply.content

    assert "no open or running tournament" in await ask(member, "tournament join")
    assert "Manage Server" in await ask(
        member, "tournament create", format="swiss", variant="classic", length=1
    )
    assert "`rounds` is for Swiss" in await ask(
        admin, "tournament create", format="knockout", variant="classic", length=1, rounds=2
    )
    created = await fake.slash(
        admin, channel, "tournament create", format="knockout", variant="pin", length=1,
        max_players=2, name="Pair",
    )  # fmt: skip
    assert not (await created.wait_initial(TIMEOUT)).ephemeral
    assert "at least two" in await ask(admin, "tournament start")
    assert "registered" in await ask(member, "tournament join")
    assert "already registered" in await ask(member, "tournament join")
    assert "Manage Server" in await ask(member, "tournament start")
    assert "registered" in await ask(admin, "tournament join")
    third = fake.add_user("third")
    assert "is full (2 players)" in await ask(third, "tournament join")
    assert "There is no tournament `nope`" in await ask(
        member, "tournament standings", tournament="nope"
    )
    assert "not a start time" in await ask(
        admin, "tournament create", format="arena", variant="classic", length=1, starts="soon"
    )
    thread = fake.add_thread(channel, "chat")
    inside = await reply_of(
        await fake.slash(
            admin, thread, "tournament create", format="swiss", variant="classic", length=1
        )
    )
    assert inside.ephemeral and "from a server's text channel" in inside.content
    # The organiser role (/settings) lets a member without Manage Server run events.
    organisers = fake.add_role("organisers")
    organiser = fake.add_user("organiser", roles=[organisers])
    assert "Manage Server" in await ask(
        organiser, "tournament create", format="arena", variant="classic", length=1
    )
    await ask(admin, "settings", organiser_role=organisers)
    created = await fake.slash(
        organiser, channel, "tournament create", format="arena", variant="classic", length=1,
        starts="30", name="Evening arena",
    )  # fmt: skip
    signup = await created.wait_original(timeout=TIMEOUT)
    assert not signup.ephemeral and "Evening arena" in signup.content
    assert "Starts <t:" in signup.content
    assert "Several tournaments" in await ask(member, "tournament join")
    listed = await ask(member, "tournament list")
    assert "Evening arena" in listed and "Pair" in listed
