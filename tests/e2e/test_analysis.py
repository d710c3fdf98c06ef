"""End to end: /analyze with each kind of input and bad input, fair play for games being
played, and /hint depth:deep, through the fake Discord."""

from __future__ import annotations

import asyncio

from discord_ui.client import BackgammonBot
from engine.game import GameState
from tests.fake_discord import FakeDiscord

from .harness import TIMEOUT, Table, game_started_from

PIN_TEXT = "pin | 24:X13 17:X1 15:X1 10:O1 8:O1 1:O13 | bar 0/0 | res 0/0 | off 0/0 | 52"


async def test_analyze_each_input_kind_and_bad_input(
    table: Table, fake: FakeDiscord, bot: BackgammonBot
) -> None:
    carol, dan, erin = fake.add_user("carol"), fake.add_user("dan"), fake.add_user("erin")
    channel = fake.general

    handle = await fake.slash(carol, channel, "analyze", position=PIN_TEXT)
    first = await handle.wait_initial(TIMEOUT)
    assert first.type == 5 and first.ephemeral  # deferred, only the asker sees it
    (answer,) = await handle.wait_followups(1, timeout=60)
    assert answer.ephemeral and "**Analysis** of the position text (The Pin Game)" in answer.text()
    assert "in pips" in answer.text() and "1. `" in answer.text() and "2. `" in answer.text()
    assert "trials per play" in answer.text() and PIN_TEXT in answer.text()

    handle = await fake.slash(dan, channel, "analyze", gnubg="4HPwATDgc/ABMA", dice="31")
    (answer,) = await handle.wait_followups(1, timeout=60)
    assert "**Analysis** of the gnubg position (Backgammon)" in answer.text()
    assert "in points" in answer.text() and "1. `" in answer.text()

    # Bad input: refused at once, privately, saying what would do.
    for options, expected in (
        ({}, "Give one of"),
        ({"position": "pin | 24:X13"}, "cannot be read"),
        ({"position": PIN_TEXT[:-2] + "-"}, "has no dice"),
        ({"gnubg": "not-an-id"}, "not a gnubg position ID"),
        ({"gnubg": "4HPwATDgc/ABMA", "dice": "9"}, "is not a roll"),
        ({"game": 4242, "move": 1}, "no game #4242"),
    ):
        refused = await (await fake.slash(erin, channel, "analyze", **options)).wait_initial(
            TIMEOUT
        )
        assert refused.ephemeral and expected in (refused.text() or ""), (options, refused)

    # A game being played without hints: not analysed, not by its players, not by others.
    await table.challenge("pin")
    game = await table.game()
    assert game is not None and not game.hints
    for who in (table.alice, erin):
        early = await (
            await fake.slash(who, table.channel, "analyze", game=game.id, move=1)
        ).wait_initial(TIMEOUT)
        assert early.ephemeral and "still being played" in (early.text() or "")
    await table.play_out()
    # Over: any move of it, by anyone.
    handle = await fake.slash(erin, channel, "analyze", game=game.id, move=2)
    (answer,) = await handle.wait_followups(1, timeout=60)
    assert f"**Analysis** of game #{game.id}, move 2 (" in answer.text()
    high = await (await fake.slash(dan, channel, "analyze", game=game.id, move=99999)).wait_initial(
        TIMEOUT
    )
    assert high.ephemeral and f"Game #{game.id} has " in (high.content or "")
    assert "give `move` from 1 to" in (high.content or "")
    assert fake.errors == []


async def test_a_deep_hint_ranks_by_rollouts_against_the_computer(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    human = fake.add_user("dora")
    lobby = fake.add_channel("practice")
    started = await (
        await fake.slash(
            human, lobby, "challenge", opponent=fake.bot_user, variant="pin", level="beginner"
        )
    ).wait_initial(TIMEOUT)
    assert not started.ephemeral, started.text()
    game = await game_started_from(bot.services.db, lobby)
    assert game is not None
    thread = fake.channel(game.channel_id)
    assert thread is not None
    for _ in range(600):  # the person's turn, with a real choice to make
        fresh = await bot.services.db.get_game(game.id)
        assert fresh is not None
        state = GameState.from_json(fresh.state_json)
        if state.mover == 0 and state.phase == "move" and len(state.legal_plays()) > 1:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("no turn of the person with a choice")
    handle = await fake.slash(human, thread, "hint", depth="deep")
    first = await handle.wait_initial(TIMEOUT)
    assert first.type == 5 and first.ephemeral
    (answer,) = await handle.wait_followups(1, timeout=60)
    assert "**Best plays by rollout**" in answer.text() and "trials per play" in answer.text()
    listed = [line for line in answer.text().splitlines() if line[:2] in ("1.", "2.")]
    assert len(listed) == 2
    assert fake.errors == []
