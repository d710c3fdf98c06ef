"""End to end: leaderboards, stats, history, records, claims, reminders and settings, with the
real bot against the fake Discord (games are finished by resigning, for speed)."""

from __future__ import annotations

import asyncio
import io
import re
import time
from typing import Any, cast

from PIL import Image

from cogs.league import League
from discord_ui.client import BackgammonBot
from discord_ui.looks import theme_label
from engine.game import GameState
from league import glicko2
from render.chart import DEFAULT_HEIGHT, DEFAULT_WIDTH
from storage import ImportedGame, MatchResult
from tests.fake_discord import FakeDiscord
from tests.fake_discord.interactions import Callback, InteractionHandle
from tests.fake_discord.models import FakeChannel, FakeMessage, FakeUser

from .harness import TIMEOUT, Table, eventually, final_callback, mover_user, png_of

MANAGE_GUILD = 1 << 5
RANK_LINE = re.compile(r"\*\*(\d+)\.\*\* <@(\d+)> · \*\*(\d+)(\??)\*\*")


async def answer(handle: InteractionHandle) -> Callback:
    return await final_callback(handle)


async def claimed_board(handle: InteractionHandle) -> FakeMessage:
    """A claim that succeeds ends the game like any other end: its private "thinking" goes and
    the final board is a new public message, the command's follow-up."""
    (board,) = await handle.wait_followups(1, timeout=TIMEOUT)
    assert not any(m.ephemeral for m in handle.messages), "the private thinking was left behind"
    return board


async def play_and_resign(
    fake: FakeDiscord,
    bot: BackgammonBot,
    channel: FakeChannel,
    winner: FakeUser,
    loser: FakeUser,
    variant: str,
) -> int:
    """A game in ``channel`` that ``loser`` resigns at once; returns its id."""
    table = Table(fake, bot.services.db, channel, winner, loser)
    await table.challenge(variant)
    game = await table.game()
    assert game is not None
    await table.act(loser, "resign")
    if await table.game() is not None:  # classic and the Pin games: the winner accepts
        await table.press(winner, "rsyes")
    assert table.last_board is not None and "Game over" in table.last_board.text()
    assert await table.game() is None
    return game.id


def embed_of(callback: Callback) -> dict[str, Any]:
    embeds = callback.data.get("embeds") or []
    assert embeds, callback.data
    return dict(embeds[0])


def ranks(description: str) -> list[tuple[int, int, int, bool]]:
    """(rank, user id, rating, provisional) of each leaderboard line."""
    return [(int(m[1]), int(m[2]), int(m[3]), m[4] == "?") for m in RANK_LINE.finditer(description)]


def league_cog(bot: BackgammonBot) -> League:
    # load_extension imports cogs.league afresh, so isinstance against this module's class
    # would fail: check the name instead.
    cog = bot.get_cog("League")
    assert cog is not None and type(cog).__name__ == League.__name__
    return cast(League, cog)


def later(seconds: float) -> Any:
    """A clock frozen ``seconds`` after now (for the injected GameTable clock)."""
    moment = time.time() + seconds
    return lambda: moment


async def test_leaderboard_ranks_the_winner_first(
    fake: FakeDiscord, bot: BackgammonBot, table: Table
) -> None:
    alice, bob = table.alice, table.bob
    await play_and_resign(fake, bot, table.channel, alice, bob, "classic")
    await play_and_resign(fake, bot, table.channel, bob, alice, "pin")
    await play_and_resign(fake, bot, table.channel, alice, bob, "classic")

    overall = await answer(await fake.slash(bob, table.channel, "leaderboard"))
    assert not overall.ephemeral
    embed = embed_of(overall)
    rows = ranks(embed["description"])
    assert [r[1] for r in rows] == [alice.id, bob.id]
    assert [r[0] for r in rows] == [1, 2]
    assert rows[0][2] > glicko2.DEFAULT_RATING > rows[1][2]
    assert all(r[3] for r in rows)  # three games: still provisional
    assert "3 games · 2-1" in embed["description"]  # alice overall: W-L
    assert re.search(r"· \d+ points?$", embed["description"].splitlines()[0])  # not "1 pts"
    assert "Page 1/1" in embed["footer"]["text"]
    stored = await bot.services.db.leaderboard(fake.guild.id)
    assert [round(r.rating) for r in stored] == [r[2] for r in rows]

    classic = embed_of(
        await answer(await fake.slash(bob, table.channel, "leaderboard", variant="classic"))
    )
    assert "Backgammon" in classic["title"]
    assert [r[1] for r in ranks(classic["description"])] == [alice.id, bob.id]
    assert "2 games · 2-0" in classic["description"]
    pin = embed_of(await answer(await fake.slash(bob, table.channel, "leaderboard", variant="pin")))
    assert [r[1] for r in ranks(pin["description"])] == [bob.id, alice.id]
    empty = await answer(await fake.slash(bob, table.channel, "leaderboard", variant="dutch"))
    assert "No rated" in embed_of(empty)["description"]
    assert fake.errors == []


async def test_leaderboard_pages_with_buttons(fake: FakeDiscord, bot: BackgammonBot) -> None:
    guild = fake.guild.id
    # 23 players in a chain: player k beats player k+1 several times, plus one draw, so that
    # ratings differ; imported as finished games like a history restored from a backup.
    players = [9000 + k for k in range(23)]
    games = []
    start = time.time() - 100 * 86400
    for round_ in range(3):
        for k in range(len(players) - 1):
            at = start + (round_ * 100 + k) * 3600
            result = MatchResult(players[k], "single", 1)
            games.append(
                ImportedGame(guild, 1, "blocking", players[k], players[k + 1], result, at, at + 60)
            )
    at = start + 400 * 3600
    draw = MatchResult(None, "draw", 0)
    games.append(ImportedGame(guild, 1, "blocking", players[0], players[22], draw, at, at + 60))
    assert await bot.services.db.bulk_import_finished_games(games) == len(games)
    expected = [row.user_id for row in await bot.services.db.leaderboard(guild, limit=100)]
    assert sorted(expected) == players

    carol = fake.add_user("carol")
    handle = await fake.slash(carol, fake.general, "leaderboard")
    first = embed_of(await answer(handle))
    assert [r[1] for r in ranks(first["description"])] == expected[:10]
    assert [r[0] for r in ranks(first["description"])] == list(range(1, 11))
    assert "Page 1/3" in first["footer"]["text"] and "23 players" in first["footer"]["text"]
    message = await handle.wait_original()

    def buttons(msg: FakeMessage) -> dict[str, dict[str, Any]]:
        return {c["label"]: c for c in msg.all_components() if c.get("type") == 2}

    shown = buttons(message)
    assert shown["◀ Prev"].get("disabled") and not shown["Next ▶"].get("disabled")
    assert shown["Next ▶"]["custom_id"] == f"lb:{guild}:overall:1"

    async def press(label: str) -> dict[str, Any]:
        click = await fake.click(carol, message, buttons(message)[label]["custom_id"])
        callback = await answer(click)
        assert callback.type == 7, callback.data  # the leaderboard message is updated in place
        return dict(message.embeds[0])

    second = await press("Next ▶")
    assert [r[1] for r in ranks(second["description"])] == expected[10:20]
    assert ranks(second["description"])[0][0] == 11
    third = await press("Next ▶")
    assert [r[1] for r in ranks(third["description"])] == expected[20:]
    assert "Page 3/3" in third["footer"]["text"] and buttons(message)["Next ▶"].get("disabled")
    back = await press("◀ Prev")
    assert [r[1] for r in ranks(back["description"])] == expected[10:20]
    # The draw shows as W-L-D for the two players who drew.
    blocking = await answer(
        await fake.slash(carol, fake.general, "leaderboard", variant="blocking")
    )
    assert "-1 ·" in embed_of(blocking)["description"]
    assert fake.errors == []


async def test_stats_embed_and_rating_chart(
    fake: FakeDiscord, bot: BackgammonBot, table: Table
) -> None:
    alice, bob = table.alice, table.bob
    await play_and_resign(fake, bot, table.channel, alice, bob, "classic")
    await play_and_resign(fake, bot, table.channel, alice, bob, "pin-mother")

    mine = await answer(await fake.slash(alice, table.channel, "stats"))
    assert not mine.ephemeral
    embed = embed_of(mine)
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert list(fields) == ["Overall", "Backgammon", "The Pin Game (mother rule)"]
    assert "2 games: 2 W · 0 L · 0 D" in fields["Overall"]
    assert "Streak: 2 wins · best 2 wins" in fields["Overall"]
    assert "Mother wins 0" in fields["The Pin Game (mother rule)"]
    stats = await bot.services.db.get_player_stats(fake.guild.id, alice.id)
    assert stats is not None
    assert f"Points: {stats.points_won} won · 0 lost" in fields["Overall"]
    assert f"**{stats.rating:.0f}?**" in fields["Overall"]
    assert embed["image"]["url"] == "attachment://rating.png"
    assert [f.filename for f in mine.files] == ["rating.png"]
    chart = Image.open(io.BytesIO(mine.files[0].data))
    chart.load()
    assert chart.format == "PNG" and chart.size == (DEFAULT_WIDTH, DEFAULT_HEIGHT)

    theirs = embed_of(await answer(await fake.slash(alice, table.channel, "stats", user=bob)))
    assert "bob" in theirs["title"]
    assert "2 games: 0 W · 2 L · 0 D" in theirs["fields"][0]["value"]
    assert "Streak: 2 losses" in theirs["fields"][0]["value"]

    carol = fake.add_user("carol")
    nobody = await answer(await fake.slash(carol, table.channel, "stats"))
    assert nobody.ephemeral and "not finished a rated game" in (nobody.text() or "")
    # A user id Discord sends without the user's data (someone who left, a forged id): a
    # specific answer naming them by mention, not "Something went wrong".
    stranger = "123456789012345678"
    for command, said in (("stats", "has not finished"), ("history", "has no finished games")):
        unknown = await answer(await fake.slash(alice, table.channel, command, user=stranger))
        assert f"<@{stranger}> {said}" in (unknown.text() or ""), unknown.data
    assert fake.errors == []


async def test_history_and_record(fake: FakeDiscord, bot: BackgammonBot, table: Table) -> None:
    alice, bob = table.alice, table.bob
    first = await play_and_resign(fake, bot, table.channel, alice, bob, "dutch")
    second = await play_and_resign(fake, bot, table.channel, bob, alice, "classic")

    listed = embed_of(await answer(await fake.slash(alice, table.channel, "history")))
    lines = listed["description"].splitlines()
    assert [int(re.search(r"#(\d+)", line)[1]) for line in lines] == [second, first]  # type: ignore[index]
    assert "Lost" in lines[0] and "(resign)" in lines[0] and f"<@{bob.id}>" in lines[0]
    assert "Won" in lines[1] and "Dutch Backgammon" in lines[1]
    carol = fake.add_user("carol")
    none = await answer(await fake.slash(carol, table.channel, "history"))
    assert none.ephemeral and "no finished games" in (none.text() or "")

    handle = await fake.slash(carol, table.channel, "record", game=first)
    record = await answer(handle)
    assert [f.filename for f in record.files] == [f"game-{first}.txt"]
    body = record.files[0].data.decode("utf-8")
    game = await bot.services.db.get_game(first)
    assert game is not None
    state = GameState.from_json(game.state_json)
    assert "variant: dutch (Dutch Backgammon)" in body
    # The names are the ones the game stored (the record lines use them too).
    x_name, o_name = state.players
    assert f"players: {x_name} (X, id {alice.id}) vs {o_name} (O, id {bob.id})" in body
    assert "match length: 1" in body
    assert "\n".join(state.record) in body
    assert f"result: {x_name} wins" in body and "(resign)" in body
    assert body.rstrip().endswith(f"final: {x_name} wins {game.points} (resign)")

    missing = await answer(await fake.slash(carol, table.channel, "record", game=999999))
    assert missing.ephemeral and "no game #999999" in (missing.text() or "")
    # Autocomplete offers the user's recent games, filtered by the typed number.
    offered = await (
        await fake.autocomplete(alice, table.channel, "record", "game", game="")
    ).wait_autocomplete(TIMEOUT)
    assert [c["value"] for c in offered] == [second, first]
    typed = await (
        await fake.autocomplete(alice, table.channel, "record", "game", game=str(first))
    ).wait_autocomplete(TIMEOUT)
    assert first in [c["value"] for c in typed]
    assert all(str(c["value"]).startswith(str(first)) for c in typed)
    assert fake.errors == []


async def test_record_of_an_imported_game_without_moves(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    at = time.time() - 3600
    await bot.services.db.bulk_import_finished_games(
        [ImportedGame(fake.guild.id, 5, "pin", 1, 2, MatchResult(2, "single", 7), at, at + 9)]
    )
    game = (await bot.services.db.recent_games(fake.guild.id, limit=1))[0]
    carol = fake.add_user("carol")
    record = await answer(await fake.slash(carol, fake.general, "record", game=game.id))
    body = record.files[0].data.decode("utf-8")
    assert "no move record stored" in body and "final: Player 2 wins 7 (single)" in body


async def test_claim_refused_then_accepted_after_the_timeout(
    fake: FakeDiscord, bot: BackgammonBot, table: Table
) -> None:
    await table.challenge("classic")
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    idle = mover_user(game, state, table.users)
    waiting = table.bob if idle is table.alice else table.alice

    early = await answer(await fake.slash(waiting, table.channel, "claim"))
    assert early.ephemeral and "Too early" in (early.text() or "")
    assert "You can claim in 3 days" in (early.text() or "")
    own_turn = await answer(await fake.slash(idle, table.channel, "claim"))
    assert own_turn.ephemeral and "your turn" in (own_turn.text() or "")
    carol = fake.add_user("carol")
    spectator = await answer(await fake.slash(carol, table.channel, "claim"))
    assert spectator.ephemeral and "Only the players" in (spectator.text() or "")
    bot.table.clock = later(71 * 3600)
    still = await answer(await fake.slash(waiting, table.channel, "claim"))
    assert still.ephemeral and "You can claim in 1 day" not in (still.text() or "")
    assert "You can claim in 1 h" in (still.text() or "")
    assert await table.game() is not None

    bot.table.clock = later(72 * 3600 + 60)
    claimed = await claimed_board(await fake.slash(waiting, table.channel, "claim"))
    content = claimed.text()
    assert not claimed.ephemeral and "claims the game on time" in content, content
    assert "Game over" in content and "(timeout)" in content and "Ratings:" in content
    assert (png_of(claimed) or b"").startswith(b"\x89PNG")
    assert [c.split(":")[2] for c in claimed.custom_ids()] == [
        "rematch",
        "review",
        "replay",
        "record",
    ]
    # Played in a thread: the channel it came from gets the result card, with the same buttons.
    home = table.home
    assert home is not None and table.channel.parent_id == home.id

    def cards() -> list[FakeMessage]:
        return [m for m in fake.messages_in(home) if "Game over" in m.text()]

    await eventually(lambda: len(cards()) == 1, "the result card in the channel")
    assert cards()[0].custom_ids() == claimed.custom_ids()
    finished = await bot.services.db.get_game(game.id)
    assert finished is not None and finished.status == "finished"
    assert (finished.result_kind, finished.winner_id) == ("timeout", waiting.id)
    winner = await bot.services.db.get_player_stats(fake.guild.id, waiting.id, "classic")
    loser = await bot.services.db.get_player_stats(fake.guild.id, idle.id)  # overall
    assert winner is not None and winner.rating > glicko2.DEFAULT_RATING and winner.wins == 1
    assert loser is not None and loser.rating < glicko2.DEFAULT_RATING and loser.losses == 1
    moves = await bot.services.db.game_moves(game.id)
    assert any(m.kind == "claim" and m.actor_id == waiting.id for m in moves)
    again = await answer(await fake.slash(waiting, table.channel, "claim"))
    assert again.ephemeral and "no game" in (again.text() or "")
    assert fake.errors == []


async def test_claim_in_a_match_forfeits_the_match(
    fake: FakeDiscord, bot: BackgammonBot, table: Table
) -> None:
    await table.challenge("blocking", length=3)
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    idle = mover_user(game, state, table.users)
    waiting = table.bob if idle is table.alice else table.alice
    bot.table.clock = later(80 * 3600)
    claimed = await claimed_board(await fake.slash(waiting, table.channel, "claim"))
    assert not claimed.ephemeral and "wins the match" in claimed.text()
    finished = await bot.services.db.get_game(game.id)
    assert finished is not None and finished.winner_id == waiting.id
    assert finished.result_kind == "timeout"
    seat = 0 if waiting.id == finished.player_x else 1
    scores = (finished.score_x, finished.score_o)
    assert scores[seat] >= 3 and scores[1 - seat] == 0
    record = await answer(await fake.slash(waiting, table.channel, "record", game=game.id))
    body = record.files[0].data.decode("utf-8")
    assert "claims on time" in body and "final: " in body and "wins the match" in body


async def test_reminders_then_claim_notice_once_per_idle_period(
    fake: FakeDiscord, bot: BackgammonBot, table: Table
) -> None:
    cog = league_cog(bot)
    await table.challenge("pin")
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    idle = mover_user(game, state, table.users)
    waiting = table.bob if idle is table.alice else table.alice

    def posted(after: int) -> list[FakeMessage]:
        return [
            m
            for m in fake.messages_in(table.channel)
            if m.id > after and m.author.id == fake.bot_user.id and m.interaction_id is None
        ]

    mark = fake.mark()
    assert await cog.sweep() == 0  # nothing is due yet
    bot.table.clock = later(25 * 3600)
    assert await cog.sweep() == 1
    reminders = posted(mark)
    assert len(reminders) == 1
    assert reminders[0].text().startswith(f"<@{idle.id}>, it is your turn")
    assert idle in reminders[0].mentions
    assert await cog.sweep() == 0 and len(posted(mark)) == 1  # once per idle period

    bot.table.clock = later(73 * 3600)
    assert await cog.sweep() == 1
    notices = posted(mark)[1:]
    assert len(notices) == 1 and notices[0].text().startswith(f"<@{waiting.id}>")
    assert "/claim" in notices[0].text()
    assert await cog.sweep() == 0

    # An action starts a new idle period: the reminder comes again after it.
    bot.table.clock = later(74 * 3600)
    await table.step()
    bot.table.clock = later(74 * 3600 + 3600)
    assert await cog.sweep() == 0
    bot.table.clock = later(99 * 3600)
    mark = fake.mark()
    assert await cog.sweep() == 1
    assert len(posted(mark)) == 1 and "it is your turn" in posted(mark)[0].text()


async def test_a_reminder_posted_but_not_recorded_is_not_posted_twice(
    fake: FakeDiscord, bot: BackgammonBot, table: Table
) -> None:
    """A stop between a reminder's post and its record: the next sweep posts it again with the
    same nonce, and Discord returns the first message instead of a second."""
    cog = league_cog(bot)
    await table.challenge("pin")
    bot.table.clock = later(25 * 3600)
    mark = fake.mark()
    # What the killed process did: posted the notice, never recorded it.
    (notice,) = [n async for n in bot.services.reminders.due()]
    assert await cog._post(notice.game.channel_id, "first post", notice.nonce)
    hits = fake.nonce_hits
    assert await cog.sweep() == 1  # due again: posted again, with the same nonce
    assert fake.nonce_hits == hits + 1
    texts = [
        m.text()
        for m in fake.messages_in(table.channel)
        if m.id > mark and m.author.id == fake.bot_user.id and m.interaction_id is None
    ]
    assert texts == ["first post"]
    assert await cog.sweep() == 0  # recorded now


async def test_reminder_loop_runs_by_itself(
    fake: FakeDiscord, bot: BackgammonBot, table: Table
) -> None:
    cog = league_cog(bot)
    assert cog.reminder_loop.is_running()
    await table.challenge("dutch")
    game = await table.game()
    assert game is not None
    idle = mover_user(game, GameState.from_json(game.state_json), table.users)
    mark = fake.mark()
    bot.table.clock = later(30 * 3600)
    cog.reminder_loop.change_interval(seconds=0.05)
    message = await fake.wait_for_channel_message(
        table.channel, lambda m: "it is your turn" in m.text(), TIMEOUT, after=mark
    )
    assert message.text().startswith(f"<@{idle.id}>")

    async def recorded() -> bool:  # recorded right after the post
        refreshed = await bot.services.db.get_game(game.id)
        return refreshed is not None and refreshed.reminded_at is not None

    for _ in range(200):
        if await recorded():
            break
        await asyncio.sleep(0.02)
    assert await recorded()


async def test_settings_need_manage_server(fake: FakeDiscord, bot: BackgammonBot) -> None:
    synced = {c["name"]: c for c in fake.commands(fake.guild.id)}
    assert int(synced["settings"]["default_member_permissions"]) == MANAGE_GUILD
    for name in ("leaderboard", "stats", "history", "record", "claim"):
        assert name in synced
    member = fake.add_user("member")
    refused = await answer(
        await fake.slash(member, fake.general, "settings", reminder_hours=1, claim_hours=2)
    )
    assert refused.ephemeral and "Manage Server" in (refused.text() or "")
    defaults = await bot.services.db.get_guild_settings(fake.guild.id)
    assert defaults.reminder_after_seconds == 24 * 3600

    admin = fake.add_user("admin", roles=[fake.add_role("admins", permissions=MANAGE_GUILD)])
    shown = await answer(await fake.slash(admin, fake.general, "settings"))
    assert shown.ephemeral
    values = [f["value"] for f in embed_of(shown)["fields"]]
    assert values == [
        "1 day",
        "3 days",
        "10 min",
        theme_label("default"),
        "in a thread of their own, opened on the challenge",
        "Manage Server",
        "a calendar month",
        "off",  # the daily puzzle
    ]

    bad = await answer(await fake.slash(admin, fake.general, "settings", reminder_hours=80))
    assert bad.ephemeral and "must come before" in (bad.text() or "")
    changed = await answer(
        await fake.slash(
            admin, fake.general, "settings", reminder_hours=2, claim_hours=5, challenge_minutes=30
        )
    )
    assert [f["value"] for f in embed_of(changed)["fields"]] == [
        "2 h",
        "5 h",
        "30 min",
        theme_label("default"),
        "in a thread of their own, opened on the challenge",
        "Manage Server",
        "a calendar month",
        "off",  # the daily puzzle
    ]
    # Threads can be turned off: games then stay in the channel of the challenge.
    off = await answer(await fake.slash(admin, fake.general, "settings", threads=False))
    assert embed_of(off)["fields"][4]["value"] == "in the channel of the challenge"
    seasons = await answer(await fake.slash(admin, fake.general, "settings", season_months=3))
    assert embed_of(seasons)["fields"][-2]["value"] == "3 calendar months"
    assert not (await bot.services.db.get_guild_settings(fake.guild.id)).game_threads
    now = await bot.services.db.get_guild_settings(fake.guild.id)
    assert (now.reminder_after_seconds, now.claim_after_seconds) == (7200, 18000)
    assert now.challenge_expiry_seconds == 1800

    # The new claim time applies to /claim.
    table = Table(fake, bot.services.db, fake.add_channel("games"), member, admin)
    await table.challenge("classic")
    game = await table.game()
    assert game is not None
    idle = mover_user(game, GameState.from_json(game.state_json), table.users)
    waiting = admin if idle is member else member
    bot.table.clock = later(4 * 3600)
    early = await answer(await fake.slash(waiting, table.channel, "claim"))
    assert early.ephemeral and "needs 5 h" in (early.text() or "")
    bot.table.clock = later(5 * 3600 + 60)
    claimed = await claimed_board(await fake.slash(waiting, table.channel, "claim"))
    assert not claimed.ephemeral and "(timeout)" in claimed.text()
    assert fake.errors == []
