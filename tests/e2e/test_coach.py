"""End to end: /replay (and the other post-game tools) through the fake Discord."""

from __future__ import annotations

import asyncio
import io
import re

import pytest
from PIL import Image

from app.reports import stored_mistakes
from discord_ui.client import BackgammonBot
from engine.game import GameState
from render.chart import DEFAULT_HEIGHT, DEFAULT_WIDTH
from render.replay import replay_states
from tests.fake_discord import FakeDiscord

from .harness import TIMEOUT, Table, game_started_from


async def test_replay_posts_an_animated_gif_with_a_frame_per_play(
    table: Table, fake: FakeDiscord, bot: BackgammonBot
) -> None:
    await table.challenge("pin")
    game = await table.game()
    assert game is not None
    await table.play_out()
    finished = await bot.services.db.get_game(game.id)
    assert finished is not None
    state = GameState.from_json(finished.state_json)

    carol = fake.add_user("carol")
    handle = await fake.slash(carol, table.channel, "replay", game=game.id)
    first = await handle.wait_initial(TIMEOUT)
    assert first.type == 5  # deferred: the channel shows "thinking"
    (posted,) = await handle.wait_followups(1, timeout=120)
    assert not posted.ephemeral
    assert [a.filename for a in posted.attachments] == [f"replay-{game.id}.gif"]
    data = posted.attachments[0].data
    assert len(data) <= 8 * 1024 * 1024
    gif = Image.open(io.BytesIO(data))
    assert gif.format == "GIF" and gif.is_animated
    assert gif.n_frames == len(replay_states(state))
    assert gif.size[0] >= 600  # full-size boards stay readable

    missing = await (await fake.slash(carol, table.channel, "replay", game=987654)).wait_initial(
        TIMEOUT
    )
    assert missing.ephemeral and "no game #987654" in (missing.text() or "")
    assert fake.errors == []


async def test_hint_allowed_against_the_computer_and_refused_otherwise(
    table: Table, fake: FakeDiscord, bot: BackgammonBot
) -> None:
    human = fake.add_user("dora")
    thread = fake.add_channel("practice")
    started = await (
        await fake.slash(
            human, thread, "challenge", opponent=fake.bot_user, variant="classic", level="expert"
        )
    ).wait_initial(TIMEOUT)
    assert not started.ephemeral, started.text()
    game = await game_started_from(bot.services.db, thread)
    assert game is not None
    thread = fake.channel(game.channel_id)  # the game's own thread
    # Wait for the person's turn (the computer may have started).
    for _ in range(400):
        game = await bot.services.db.get_game(game.id)
        assert game is not None
        if GameState.from_json(game.state_json).mover == 0:
            break
        await asyncio.sleep(0.05)
    handle = await fake.slash(human, thread, "hint")
    first = await handle.wait_initial(TIMEOUT)
    assert first.type == 5 and first.ephemeral  # deferred, only the player sees it
    (answer,) = await handle.wait_followups(1, timeout=60)
    state = GameState.from_json(game.state_json)
    if state.phase == "move" and len(state.legal_plays()) > 1:
        assert "Best plays" in answer.text() and "1. `" in answer.text()
        assert "win " in answer.text()
    else:
        assert "Cube" in answer.text() or "only legal play" in answer.text()
    # A spectator, and the people of an ordinary game, are refused.
    carol = fake.add_user("carol")
    spectator = await (await fake.slash(carol, thread, "hint")).wait_initial(TIMEOUT)
    assert spectator.ephemeral and "Only the players" in (spectator.text() or "")
    await table.challenge("pin")
    plain = await table.game()
    assert plain is not None and plain.rated and not plain.hints
    mover = table.alice if GameState.from_json(plain.state_json).mover == 0 else table.bob
    refused = await (await fake.slash(mover, table.channel, "hint")).wait_initial(TIMEOUT)
    assert refused.ephemeral and "Hints are off" in (refused.text() or "")
    assert fake.errors == []


async def test_hints_agreed_at_the_challenge_make_the_game_unrated(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    channel = fake.add_channel("lesson")
    handle = await fake.slash(
        alice, channel, "challenge", opponent=bob, variant="dutch", hints=True
    )
    posted = await handle.wait_initial(TIMEOUT)
    assert "hints allowed" in (posted.text() or "")
    table = Table(fake, bot.services.db, channel, alice, bob)
    msg = await handle.wait_original()
    accept = next(cid for cid in msg.custom_ids() if cid.startswith("bg:accept:"))
    await (await fake.click(bob, msg, accept)).wait_initial(TIMEOUT)
    game = await table.settle(None, None, 0)  # the first board is out
    assert game is not None and game.hints and not game.rated
    table._follow(game)  # played in its thread
    state = GameState.from_json(game.state_json)
    mover = alice if state.mover == 0 else bob
    hint = await fake.slash(mover, table.channel, "hint")
    await hint.wait_initial(TIMEOUT)
    (answer,) = await hint.wait_followups(1, timeout=60)
    assert answer.ephemeral and ("Best plays" in answer.text() or "only legal" in answer.text())
    await table.act(mover, "resign")  # Dutch: conceded at once
    board = table.last_board
    assert board is not None and "Game over" in board.text() and "Ratings" not in board.text()
    assert await bot.services.db.player_stats(fake.guild.id, alice.id) == []
    del table


async def test_review_after_a_game_against_the_computer(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    from .test_computer import play_against_computer

    human = fake.add_user("erin")
    channel = fake.add_channel("review")
    game = await play_against_computer(fake, bot, channel, human, "pin", "beginner")
    handle = await fake.slash(human, channel, "review", game=game.id)
    first = await handle.wait_initial(TIMEOUT)
    assert first.type == 5 and not first.ephemeral
    posted, browser = await handle.wait_followups(2, timeout=300)
    embed = posted.embeds[0]
    assert f"Review of game #{game.id}" in embed["title"]
    assert (
        "performance rating" in embed["description"]
        and "very bad from 160 thousandths" in embed["description"]
    )
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert len(fields) == 2
    for value in fields.values():
        assert "Decisions:" in value and "Luck:" in value
        # The Pin Game scores pips: the error rate is on the one scale of every variant (and of
        # the benchmark), thousandths of a game, with the pips lost beside it (a thousandth of
        # a pip once read 8043.9 here).
        rate = re.search(
            r"Error rate: ([0-9.]+) thousandths of a game per decision \(([0-9.]+) pips a "
            r"decision, [0-9.]+ in total\)",
            value,
        )
        assert rate is not None, value
        rating = re.search(r"Performance rating: ([0-9.]+)", value)
        assert rating is not None
        # The rating is half the error rate; both rounded.
        assert float(rating.group(1)) == pytest.approx(float(rate.group(1)) / 2, abs=0.1)
        assert re.search(r"Mistakes: \d+ very bad, \d+ bad, \d+ doubtful", value)
    chart = posted.attachments[0]
    assert chart.filename == f"chances-{game.id}.png"
    image = Image.open(io.BytesIO(chart.data))
    assert image.format == "PNG" and image.size == (DEFAULT_WIDTH, DEFAULT_HEIGHT)

    # The reviewer's own worst mistakes, one at a time on an ephemeral message.
    assert browser.ephemeral
    body = await bot.services.db.get_review(game.id)
    assert body is not None
    seat = 0 if game.player_x == human.id else 1
    stored = stored_mistakes(body)
    assert stored is not None
    mine = sorted((v for v in stored if v.seat == seat), key=lambda v: -v.error)
    assert len(mine) >= 2, "the harness's plays make mistakes against the expert's judgement"
    assert f"Mistake 1 of {len(mine)}" in browser.content
    assert f"Played `{mine[0].played}`" in browser.content
    assert f"Better: `{mine[0].best}`" in browser.content

    def buttons() -> dict[str, dict[str, object]]:
        return {str(c["label"]): c for c in browser.all_components() if c.get("type") == 2}

    assert buttons()["◀ Previous"].get("disabled") and not buttons()["Next ▶"].get("disabled")

    async def press(label: str) -> str:
        custom_id = str(buttons()[label]["custom_id"])
        click = await fake.click(human, browser, custom_id)
        callback = await click.wait_initial(TIMEOUT)
        assert callback.type == 7, callback.data  # the same message, edited
        return browser.content or ""

    second = await press("Next ▶")
    assert f"Mistake 2 of {len(mine)}" in second and f"Played `{mine[1].played}`" in second
    back = await press("◀ Previous")
    assert f"Mistake 1 of {len(mine)}" in back
    assert buttons()["◀ Previous"].get("disabled")

    # The result card's Review button: the review and the same pages, privately.
    review_id = f"bg:res:review:{game.id}"
    thread = fake.channel(game.channel_id)
    assert thread is not None
    card = next(
        m
        for where in (channel, thread)
        for m in fake.messages_in(where)
        if review_id in m.custom_ids()
    )
    click = await fake.click(human, card, review_id)
    private, pages = await click.wait_followups(2, timeout=300)
    assert private.ephemeral and f"Review of game #{game.id}" in private.embeds[0]["title"]
    assert pages.ephemeral and f"Mistake 1 of {len(mine)}" in pages.content

    # An active game is not reviewed.
    again = await fake.slash(human, channel, "challenge", opponent=fake.bot_user, variant="pin")
    await again.wait_initial(TIMEOUT)
    active = await game_started_from(bot.services.db, channel)
    assert active is not None and active.id != game.id
    early = await (await fake.slash(human, channel, "review", game=active.id)).wait_initial(TIMEOUT)
    assert early.ephemeral and "still being played" in (early.text() or "")


def test_a_hint_marks_the_plays_the_search_skipped() -> None:
    """Values on one scale, best first; a play valued by a quick estimate is marked."""
    import time

    from ai.players import rank_plays
    from cogs.coach import hint_lines
    from engine import get_variant, parse_position

    pos, dice = parse_position(
        "blocking | 24:X2+O1 23:X3+O1 22:X2 21:X3 20:X1 19:X2 17:X1 12:X1 10:O1 8:O1 6:O2 "
        "4:O4 3:O1 2:O3 1:O1 | bar 0/0 | res 0/0 | off 0/0 | 52"
    )
    assert dice is not None
    ranked = rank_plays(get_variant("blocking"), pos, dice, deadline=time.monotonic() + 60)
    skipped = next(r for r in ranked if not r.searched)
    shown = [ranked[0], skipped, *(r for r in ranked[1:] if r is not skipped)]
    lines = hint_lines(shown).splitlines()
    assert lines[1].startswith(f"1. `{ranked[0].play.text}`: ")
    assert lines[2].startswith(f"2. `{skipped.play.text}`*: {skipped.equity:+.3f} (-")
    assert lines[-1] == "*Not searched deeply (only the closest plays are): a quick estimate."
    assert lines[4].startswith(f"The other {len(ranked) - 3} plays are ")
    assert "-" not in lines[4]  # none is better than the best
    # Nothing searched: no marks, no footnote.
    plain = hint_lines(rank_plays(get_variant("blocking"), pos, dice, level="strong"))
    assert "`*" not in plain and "Not searched" not in plain
