"""End to end: two players with the same display name. The record names players by name
(RULES §7.7), so a decision taken out of turn (an offer to resign, a resignation) must still
replay to the right seat: /replay, /record and the .mat export of such games work."""

from __future__ import annotations

import io

from PIL import Image

from discord_ui.client import BackgammonBot
from engine.game import GameState
from engine.history import replay
from tests.fake_discord import FakeDiscord

from .harness import TIMEOUT, Table, eventually, final_callback, game_started_from


async def replayed(fake: FakeDiscord, table: Table, game_id: int) -> None:
    """/replay posts the animated GIF (not "cannot be replayed")."""
    handle = await fake.slash(table.alice, table.channel, "replay", game=game_id)
    await handle.wait_initial(TIMEOUT)
    (posted,) = await handle.wait_followups(1, timeout=120)
    assert not posted.ephemeral, posted.text()
    assert [a.filename for a in posted.attachments] == [f"replay-{game_id}.gif"]
    assert Image.open(io.BytesIO(posted.attachments[0].data)).is_animated


async def test_a_resignation_out_of_turn_between_namesakes_replays(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    one = fake.add_user("sam_one", global_name="Sam")
    two = fake.add_user("sam_two", global_name="Sam")
    table = Table(fake, bot.services.db, fake.add_channel("namesakes"), one, two)
    await table.challenge("blocking")
    for _ in range(3):
        await table.step()
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    players = {game.player_x: one, game.player_o: two}
    waiting = 1 - state.mover
    loser = players[game.player_x if waiting == 0 else game.player_o]
    await table.act(loser, "resign")  # while the other is to act
    finished = await bot.services.db.get_game(game.id)
    assert finished is not None and finished.status == "finished"
    assert finished.winner_id != loser.id
    final = GameState.from_json(finished.state_json)
    assert final.players[0] != final.players[1]  # the record tells them apart
    decisions = replay(final)
    assert decisions[-1].kind == "resign" and decisions[-1].seat == waiting
    await replayed(fake, table, game.id)
    assert fake.errors == []


async def test_an_accepted_offer_out_of_turn_between_namesakes_replays(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    one = fake.add_user("sam_a", global_name="Sam")
    two = fake.add_user("sam_b", global_name="Sam")
    table = Table(fake, bot.services.db, fake.add_channel("namesakes-classic"), one, two)
    await table.challenge("classic")
    for _ in range(4):
        await table.step()
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    users = [one if game.player_x == one.id else two, two if game.player_o == two.id else one]
    offerer, answerer = users[1 - state.mover], users[state.mover]
    await table.act(offerer, "resign", level=2)  # a gammon, offered while the other is to act
    await table.press(answerer, "rsyes")
    finished = await bot.services.db.get_game(game.id)
    assert finished is not None and finished.status == "finished"
    assert finished.winner_id == answerer.id and finished.points == 2
    # The channel names each of them as the record and the boards do.
    offered = state.players[1 - state.mover]
    assert offered in ("Sam", "Sam (2)") and state.players == ("Sam", "Sam (2)")
    answered = state.players[state.mover]
    # The board shows the offer, then (edited in place) its answer.
    said = f"{answered} accepts the resignation."
    # The last board may still be on its way when the game is stored as finished.
    await eventually(
        lambda: any(m.text().startswith(said) for m in fake.messages_in(table.channel)), said
    )
    moves = [m.text for m in await bot.services.db.game_moves(game.id)]
    assert any(m.startswith(f"{offered} offers to resign") for m in moves), moves
    await replayed(fake, table, game.id)
    record = await final_callback(await fake.slash(one, table.channel, "record", game=game.id))
    body = record.files[0].data.decode("utf-8")
    assert "  gnubg ID " in body  # the record replayed (else it is shown without IDs)
    mat = await final_callback(
        await fake.slash(one, table.channel, "record", game=game.id, format="mat")
    )
    assert [f.filename for f in mat.files] == [f"game-{game.id}.mat"]
    assert fake.errors == []


async def test_a_player_named_like_the_computer_plays_it_and_replays(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    human = fake.add_user("mimic", global_name="Computer (casual)")
    channel = fake.add_channel("mimic")
    started = await (
        await fake.slash(
            human, channel, "challenge", opponent=fake.bot_user, variant="blocking", level="casual"
        )
    ).wait_initial(TIMEOUT)
    assert not started.ephemeral, started.content
    game = await game_started_from(bot.services.db, channel)
    assert game is not None
    channel = fake.channel(game.channel_id)  # its thread
    state = GameState.from_json(game.state_json)
    assert state.players == ("Computer (casual)", "Computer (casual) (2)")
    asked = await fake.slash(human, channel, "resign")
    question = await asked.wait_original()
    assert question.ephemeral and "Resign a single game" in question.text(), question.text()
    confirm = next(c for c in question.custom_ids() if c.startswith("bg:cf:resign:"))
    await (await fake.click(human, question, confirm)).wait_initial(TIMEOUT)

    def resigned() -> bool:
        return any(
            m.text().startswith("Computer (casual) resigns.")
            for m in fake.messages_in(channel)
            if not m.ephemeral
        )

    await eventually(resigned, "the board with the resignation")
    finished = await bot.services.db.get_game(game.id)
    assert finished is not None and finished.status == "finished"
    assert finished.winner_id == fake.bot_user.id
    final = GameState.from_json(finished.state_json)
    assert replay(final)[-1].seat == 0  # the person resigned, whoever was on turn
    table = Table(fake, bot.services.db, channel, human, human)
    await replayed(fake, table, game.id)
    assert fake.errors == []
