"""End to end: the real bot, the real discord.py client, a fake Discord on 127.0.0.1."""

from __future__ import annotations

import asyncio
import re

import pytest

from discord_ui.client import BackgammonBot
from engine import VARIANTS
from engine.game import GameState
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeMessage, FakeUser

from .harness import (
    TIMEOUT,
    Table,
    board_images,
    eventually,
    interactions_done,
    mover_user,
    reply_of,
)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_full_game_from_challenge_to_result(table: Table, variant: str) -> None:
    await table.challenge(variant)
    game = await table.game()
    assert game is not None and game.variant == variant
    final = await table.play_out()
    assert "Game over" in final.text()
    finished = await table.db.get_game(game.id)
    assert finished is not None and finished.status == "finished"
    assert finished.result_kind is not None
    assert table.fake.errors == [] and table.fake.unknown_routes == []
    moves = await table.db.game_moves(game.id)
    plays = sum(m.kind == "play" for m in moves)
    assert plays > 0
    # At most one new picture per turn: the start, then one per play (a roll redraws the
    # waiting board; an Express chain kept by the same player too).
    images = board_images(table.fake, table.channel)
    assert len(images) <= plays + 1
    if variant == "classic":
        assert len(images) == plays + 1
    # Only the final board keeps buttons, the result card's; every other has none left (once
    # the bot has done its bookkeeping after the last reply: on a loaded machine it lags).
    await interactions_done()
    for msg in table.fake.messages_in(table.channel):
        if msg.id != final.id and not msg.ephemeral:
            assert msg.custom_ids() == [], msg.text()
    assert [c.split(":")[2] for c in final.custom_ids()] == [
        "rematch",
        "review",
        "replay",
        "record",
    ]
    # Played in a thread of its own: the channel saw the challenge and the result card.
    home = table.home
    assert home is not None and table.channel.parent_id == home.id

    def cards() -> list[FakeMessage]:
        return [m for m in table.fake.messages_in(home) if "Game over" in m.text()]

    await eventually(lambda: len(cards()) == 1, "the result card in the channel")
    assert cards()[0].custom_ids() == final.custom_ids()
    # Each notification went to one player, named by the message, never roles or everyone.
    for msg in table.fake.messages_in(table.channel):
        assert len(msg.pinged) <= 1 and not msg.pinged_roles and not msg.pinged_everyone
    assert all(a.description for m in images for a in m.attachments)  # alt text


async def test_match_to_three_points_continues_over_games(table: Table) -> None:
    await table.challenge("blocking", length=3)
    game = await table.game()
    assert game is not None
    await table.play_out()
    finished = await table.db.get_game(game.id)
    assert finished is not None and max(finished.score_x, finished.score_o) == 3
    state = GameState.from_json(finished.state_json)
    assert state.game_number >= 3 and state.match_winner is not None


async def test_wrong_player_spectator_and_bad_input(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("classic")
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    mover = mover_user(game, state, table.users)
    other = table.bob if mover is table.alice else table.alice
    carol = fake.add_user("carol")

    async def ephemeral(user, text: str) -> str:  # type: ignore[no-untyped-def]
        handle = await fake.slash(user, table.channel, "move", play=text)
        answer = await reply_of(handle)
        assert answer.ephemeral, answer.content
        return answer.content

    assert "not your turn" in await ephemeral(other, "24/18")
    assert "watching" in await ephemeral(carol, "24/18")
    assert "repeat count" in await ephemeral(mover, "13/7(1)")
    illegal = await ephemeral(mover, "24/23")
    assert "Legal plays include" in illegal
    assert "no point 30" in await ephemeral(mover, "24/30")
    # Nothing changed, and the right player can still move.
    again = await table.db.get_game(game.id)
    assert again is not None and again.version == game.version
    await table.step()
    after = await table.db.get_game(game.id)
    assert after is not None and after.version == game.version + 1


async def test_autocomplete_only_for_the_player_to_act(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("pin")
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    mover = mover_user(game, state, table.users)
    other = table.bob if mover is table.alice else table.alice
    legal = {p.text for p in state.legal_plays()}
    mine = await (
        await fake.autocomplete(mover, table.channel, "move", "play", play="")
    ).wait_autocomplete()
    assert 0 < len(mine) <= 25 and {c["value"] for c in mine} <= legal
    typed = sorted(legal)[0][:3]
    filtered = await (
        await fake.autocomplete(mover, table.channel, "move", "play", play=typed)
    ).wait_autocomplete()
    assert filtered and all(typed in c["value"] for c in filtered)
    theirs = await (
        await fake.autocomplete(other, table.channel, "move", "play", play="")
    ).wait_autocomplete()
    assert theirs == []


async def test_two_simultaneous_moves_only_one_applies(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("neverfinishing")
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    mover = mover_user(game, state, table.users)
    texts = [p.text for p in state.legal_plays()]
    assert len(texts) >= 2
    first, second = await asyncio.gather(
        fake.slash(mover, table.channel, "move", play=texts[0]),
        fake.slash(mover, table.channel, "move", play=texts[1]),
    )
    results = await asyncio.gather(reply_of(first), reply_of(second))
    # The accepted play posts the next board (its private "thinking" goes away); the other
    # one is refused privately.
    accepted = [r for r in results if r.content == ""]
    refused = [r for r in results if r.ephemeral and r.content]
    assert len(accepted) == 1 and len(refused) == 1, [r.content for r in results]
    after = await table.db.get_game(game.id)
    assert after is not None and after.version == game.version + 1


async def test_challenge_refusals(table: Table, fake: FakeDiscord, bot: BackgammonBot) -> None:
    async def refused(**options) -> str:  # type: ignore[no-untyped-def]
        handle = await fake.slash(table.alice, table.channel, "challenge", **options)
        callback = await handle.wait_initial(TIMEOUT)
        assert callback.ephemeral
        return callback.content or ""

    assert "yourself" in await refused(opponent=table.alice, variant="classic")
    # Another bot cannot play (this bot itself is the computer: see test_computer.py).
    robot = fake.add_user("robot")
    robot.bot = True
    assert "Other bots do not play" in await refused(opponent=robot, variant="classic")
    assert "`level` is for games against the computer" in await refused(
        opponent=table.bob, variant="classic", level="casual"
    )
    await table.challenge("dutch")
    assert "already in progress" in await refused(opponent=table.bob, variant="classic")
    # Someone other than the challenged player cannot accept.
    other = fake.add_channel("other")
    handle = await fake.slash(table.alice, other, "challenge", opponent=table.bob, variant="pin")
    msg = await handle.wait_original()
    accept = next(c for c in msg.custom_ids() if c.startswith("bg:accept:"))
    carol = fake.add_user("carol")
    click = await fake.click(carol, msg, accept)
    assert (await click.wait_initial(TIMEOUT)).ephemeral
    decline = await fake.slash(table.bob, other, "decline")
    assert "declined" in (await reply_of(decline)).content
    # The challenge message says so, and its buttons are gone.
    assert "Challenge declined by bob" in msg.text() and msg.custom_ids() == []


async def test_cube_double_and_pass_ends_the_game(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("classic")
    for _ in range(10):  # play until someone may double
        game = await table.game()
        assert game is not None
        state = GameState.from_json(game.state_json)
        if state.phase == "roll" and state.can_double(state.turn):
            break
        await table.step()
    doubler = mover_user(game, state, table.users)
    taker = table.bob if doubler is table.alice else table.alice
    images = len(board_images(fake, table.channel))
    # The taker has just played: no ping unless they asked for pings always.
    prefs = await fake.slash(taker, table.channel, "preferences", pings="always")
    assert "always" in str((await prefs.wait_initial(TIMEOUT)).data)
    pings = len(fake.pings)
    await table.act(doubler, "double")
    # The waiting board is redrawn with Take/Pass; the taker is pinged once by a short text.
    board = table.last_board
    assert board is not None and "doubles to 2" in board.text()
    assert any(c.startswith("bg:pass:") for c in board.custom_ids())
    await eventually(lambda: len(fake.pings) > pings, "the ping to the taker")
    assert [u for _, u in fake.pings[pings:]] == [taker]
    # Its link leads to the board in this server, not to direct messages (channels/@me).
    notice = fake.pings[pings][0].text()
    assert f"/channels/{fake.guild.id}/{table.channel.id}/{board.id}" in notice, notice
    await table.press(taker, "pass")
    assert "Game over" in board.text() and "(pass)" in board.text()
    # First games: both ratings are provisional, marked as everywhere else.
    assert re.search(r"Ratings: \S+ \d+\? \([+-]\d+\), \S+ \d+\? \([+-]\d+\)", board.text())
    # Only the result card's buttons are left.
    assert [c.split(":")[2] for c in board.custom_ids()] == [
        "rematch",
        "review",
        "replay",
        "record",
    ]
    assert len(board_images(fake, table.channel)) == images  # no new picture for the cube
    assert await table.game() is None


async def test_board_rules_help_resign(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("blocking-express")
    board = await reply_of(await fake.slash(table.bob, table.channel, "board"))
    assert board.ephemeral and board.message is not None and board.message.attachments
    rules = await fake.slash(table.bob, table.channel, "rules", variant="blocking-express")
    embed = (await rules.wait_initial(TIMEOUT)).data["embeds"][0]
    assert embed["title"] == "Blocking Express"
    assert "`previousWinner`" in embed["fields"][0]["value"]  # the options a challenge can set
    helped = await fake.slash(table.bob, table.channel, "help")
    assert (await helped.wait_initial(TIMEOUT)).ephemeral
    await table.act(table.bob, "resign")  # one result in this variant: it ends at once
    content = table.last_board.text() if table.last_board else ""
    assert "resigns" in content and "Game over" in content
    assert await table.game() is None


async def test_abort_needs_both_players_or_a_moderator(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("pin")
    carol = fake.add_user("carol")
    refused = await fake.slash(carol, table.channel, "abort")
    assert (await refused.wait_initial(TIMEOUT)).ephemeral

    async def abort(user: FakeUser) -> str:
        """/abort asks first, privately, with what it does; the confirmation acts."""
        asked = await fake.slash(user, table.channel, "abort")
        question = await asked.wait_original()
        assert question.ephemeral and "not rated" in question.text(), question.text()
        confirm = await table.confirm(user, asked, "abort")
        (said,) = await confirm.wait_followups(1, TIMEOUT)
        assert not said.ephemeral
        return said.text()

    # Cancel leaves the game alone.
    asked = await fake.slash(table.alice, table.channel, "abort")
    await table.confirm(table.alice, asked, "cancel")
    assert await table.game() is not None
    assert "wants to abort" in await abort(table.alice)
    assert await table.game() is not None
    assert "aborted" in await abort(table.bob)
    assert await table.game() is None
    # A moderator (Manage Messages) aborts alone.
    await table.challenge("dutch")
    moderator = fake.add_user("mod", roles=[fake.add_role("mods", permissions=1 << 13)])
    assert "aborted" in await abort(moderator)
    assert await table.game() is None


async def test_challenge_with_rule_options(table: Table, fake: FakeDiscord) -> None:
    ac = await fake.autocomplete(
        table.alice, table.channel, "challenge", "options", variant="dutch", options="must"
    )
    assert [c["value"] for c in await ac.wait_autocomplete(TIMEOUT)] == ["mustEnterAll"]
    ac = await fake.autocomplete(
        table.alice,
        table.channel,
        "challenge",
        "options",
        variant="dutch",
        options="mustenterall, ",
    )
    assert [c["value"] for c in await ac.wait_autocomplete(TIMEOUT)] == [
        "mustenterall, previousWinner"
    ]
    wrong = await fake.slash(
        table.alice,
        table.channel,
        "challenge",
        opponent=table.bob,
        variant="classic",
        options="plakoto",
    )
    refusal = await wrong.wait_initial(TIMEOUT)
    assert refusal.ephemeral and "`previousWinner`" in (refusal.text() or "")
    long = await fake.slash(
        table.alice,
        table.channel,
        "challenge",
        opponent=table.bob,
        variant="dutch",
        options="x" * 3000,
    )
    refusal = await long.wait_initial(TIMEOUT)  # the echoed word is cut, the reply still fits
    assert refusal.ephemeral and "`mustEnterAll`" in (refusal.text() or "")
    assert await table.db.get_open_challenge(table.channel.id, now=1e12) is None

    accepted = await table.challenge("pin-mother", length=3, options="Plakoto")
    assert "Plakoto setup" in (accepted.content or "")
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    assert state.options == ("plakoto",)
    assert state.rules.initial_position().points[24] == "X" * 15
    board = state.board  # before any move: the opening roll is still to be played
    assert sorted(board.points[p] for p in (1, 24)) == ["O" * 15, "X" * 15]


async def test_challenge_expires(table: Table, fake: FakeDiscord, bot: BackgammonBot) -> None:
    handle = await fake.slash(
        table.alice, table.channel, "challenge", opponent=table.bob, variant="classic"
    )
    assert not (await handle.wait_initial(TIMEOUT)).ephemeral
    message = await handle.wait_original()
    real_clock = bot.table.clock
    bot.table.clock = lambda: real_clock() + 3600  # an hour later
    cog = bot.get_cog("Games")
    await cog.expire_challenges.coro(cog)  # type: ignore[union-attr]
    late = await fake.slash(table.bob, table.channel, "accept")
    assert "no open challenge" in ((await late.wait_initial(TIMEOUT)).content or "")
    assert await table.game() is None
    # Its message says so once, without buttons, and owes nothing: a second sweep is silent.
    assert message.text().count("Expired: nobody accepted in time.") == 1
    assert message.custom_ids() == []
    assert await bot.services.db.unretired_challenges() == []
    edits = message.edit_count
    await cog.expire_challenges.coro(cog)  # type: ignore[union-attr]
    assert message.edit_count == edits


async def test_result_card_buttons(table: Table, fake: FakeDiscord) -> None:
    """The last board is the result card: Review, Replay and Record answer whoever clicks,
    privately; Rematch challenges the other player again, and the rematch is played in the
    same thread."""
    await table.challenge("blocking")
    game = await table.game()
    assert game is not None
    await table.act(table.alice, "resign")  # one result in this variant: over at once
    card = table.last_board
    assert card is not None and "Game over" in card.text()
    carol = fake.add_user("carol")
    buttons = {c.split(":")[2]: c for c in card.custom_ids()}
    review = await fake.click(carol, card, buttons["review"])
    (reviewed,) = await review.wait_followups(1, 120)
    assert reviewed.ephemeral and reviewed.embeds
    assert f"Review of game #{game.id}" in reviewed.embeds[0]["title"]
    record = await fake.click(carol, card, buttons["record"])
    (recorded,) = await record.wait_followups(1, 60)
    assert recorded.ephemeral and recorded.attachments
    # Only a player asks for the rematch.
    refused = await reply_of(await fake.click(carol, card, buttons["rematch"]))
    assert refused.ephemeral and "Only the players" in refused.content
    rematch = await fake.click(table.bob, card, buttons["rematch"])
    offer = await rematch.wait_original()
    assert not offer.ephemeral and "asks for a rematch" in offer.text()
    assert [u.id for u in offer.pinged] == [table.alice.id]
    accept = next(c for c in offer.custom_ids() if c.startswith("bg:accept:"))
    await (await fake.click(table.alice, offer, accept)).wait_initial(TIMEOUT)
    second = await table.settle(None, None, 0)
    assert second.id != game.id and second.channel_id == table.channel.id  # the same thread
    assert (second.player_x, second.player_o) == (table.bob.id, table.alice.id)
    assert fake.errors == []


async def test_threads_off_keeps_games_in_the_channel(table: Table, fake: FakeDiscord) -> None:
    admin = fake.add_user("admin", roles=[fake.add_role("admins", permissions=1 << 5)])
    await reply_of(await fake.slash(admin, table.channel, "settings", threads=False))
    await table.challenge("pin")
    game = await table.game()
    assert game is not None
    assert game.channel_id == table.channel.id and game.parent_channel_id is None
    assert table.home is None  # nothing to follow


async def test_an_open_challenge_accepted_by_two_at_once(table: Table, fake: FakeDiscord) -> None:
    """Both clicks race for the thread too: one game, in one thread, and a clear refusal."""
    posted = await fake.slash(table.alice, table.channel, "challenge", variant="dutch")
    msg = await posted.wait_original()
    accept = next(c for c in msg.custom_ids() if c.startswith("bg:accept:"))
    carol = fake.add_user("carol")
    clicks = await asyncio.gather(
        fake.click(table.bob, msg, accept), fake.click(carol, msg, accept)
    )
    game = await table.settle(None, None, 0)
    assert game.channel_id == msg.id  # the thread opened on the challenge
    for click in clicks:
        await click.wait_initial(TIMEOUT)

    def refusals() -> list[FakeMessage]:
        return [m for c in clicks for m in c.followups if m.ephemeral]

    await eventually(lambda: len(refusals()) == 1, "the second accept refused")
    assert "already" in refusals()[0].text(), refusals()[0].text()
    threads = [c for c in fake.guild.channels.values() if c.is_thread]
    assert len(threads) == 1
    assert fake.errors == [] or all(e.code == 160004 for e in fake.errors)
