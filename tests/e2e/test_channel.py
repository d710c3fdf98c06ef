"""End to end: how a game looks in the channel (issue: a quieter, clearer game).

Resign offers, one picture per turn, stale buttons, pings, unknown buttons, the /move
autocomplete, open challenges and /games, through the fake Discord.
"""

from __future__ import annotations

import asyncio
import copy
import re

from discord_ui.client import BackgammonBot
from engine.game import MOVE, ROLL, GameState
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeMessage

from .harness import TIMEOUT, Table, board_images, eventually, mover_user, reply_of

RESULT_BUTTONS = ["rematch", "review", "replay", "record"]


async def _until(table: Table, phase: str, *, can_double: bool = False, limit: int = 60) -> None:
    for _ in range(limit):
        game = await table.game()
        assert game is not None
        state = GameState.from_json(game.state_json)
        if state.phase == phase and (not can_double or state.can_double(state.turn)):
            return
        await table.step()
    raise AssertionError(f"never reached {phase}")


async def test_resign_offer_accepted_scores_the_offered_level(
    table: Table, fake: FakeDiscord
) -> None:
    await table.challenge("classic")
    game = await table.game()
    assert game is not None
    pings = len(fake.pings)
    await table.act(table.alice, "resign", level=2)  # a gammon, on whoever's turn it is
    board = table.last_board
    assert board is not None and "offers to resign a gammon (2 points)" in board.text()
    assert sorted(c.split(":")[1] for c in board.custom_ids()) == ["rsno", "rsyes"]
    await eventually(lambda: len(fake.pings) > pings, "the ping to the opponent")
    assert [u for _, u in fake.pings[pings:]] == [table.bob]  # only the one who must answer
    # Alice cannot accept her own offer; nobody can play meanwhile.
    refused = await reply_of(await fake.click(table.alice, board, board.custom_ids()[0]))
    assert refused.ephemeral and "opponent" in refused.content
    await table.press(table.bob, "rsyes")
    assert "Game over" in board.text() and "wins 2 points (resign)" in board.text()
    assert [c.split(":")[2] for c in board.custom_ids()] == RESULT_BUTTONS
    finished = await table.db.get_game(game.id)
    assert finished is not None and finished.points == 2 and finished.winner_id == table.bob.id
    record = GameState.from_json(finished.state_json).record
    assert "alice offers to resign a gammon (2 points)" in record
    assert record[-2:] == ("bob accepts", "result: bob wins 2 (resign)")
    stats = await table.db.get_player_stats(fake.guild.id, table.bob.id, "classic")
    assert stats is not None and stats.wins == 1 and stats.points_won == 2


async def test_resign_offer_rejected_the_game_goes_on(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("pin")
    game = await table.game()
    assert game is not None
    state = GameState.from_json(game.state_json)
    loser = mover_user(game, state, table.users)
    winner = table.bob if loser is table.alice else table.alice
    await table.act(loser, "resign", level=3)
    pips = state.pips(0 if game.player_x == loser.id else 1)
    board = table.last_board
    assert board is not None and f"({3 * pips} points)" in board.text()
    # While the offer waits, the loser cannot play on.
    blocked = await reply_of(await fake.slash(loser, table.channel, "move", play="pass"))
    assert blocked.ephemeral and "waiting for an answer" in blocked.content
    await table.press(winner, "rsno")
    assert "rejects" in board.text()
    assert not any(c.startswith(("bg:rsyes:", "bg:rsno:")) for c in board.custom_ids())
    after = await table.game()
    assert after is not None and after.status == "active"
    assert GameState.from_json(after.state_json).resign_offer is None
    await table.step()  # the game goes on
    record = [m.text for m in await table.db.game_moves(game.id)]
    assert f"{winner.display_name} rejects" in record
    # A later offer accepted ends it; the game with both offers is reviewed and replayed.
    current = await table.game()
    assert current is not None
    state = GameState.from_json(current.state_json)
    await table.act(mover_user(current, state, table.users), "resign")
    await table.press(
        table.bob if mover_user(current, state, table.users) is table.alice else table.alice,
        "rsyes",
    )
    assert await table.game() is None
    review = await reply_of(await fake.slash(winner, table.channel, "review", game=game.id))
    assert f"Review of game #{game.id}" in review.content, review.content
    replay = await reply_of(await fake.slash(winner, table.channel, "replay", game=game.id))
    assert f"Replay of game #{game.id}" in replay.content, replay.content
    assert replay.message is not None and replay.message.attachments[0].data[:4] == b"GIF8"


async def test_a_roll_redraws_the_waiting_board_in_place(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("classic")
    await _until(table, ROLL)
    board = table.last_board
    assert board is not None and any(c.startswith("bg:roll:") for c in board.custom_ids())
    images = len(board_images(fake, table.channel))
    before_png = board.attachments[0].data
    game = await table.game()
    assert game is not None
    roller = mover_user(game, GameState.from_json(game.state_json), table.users)
    pings = len(fake.pings)
    await table.press(roller, "roll")
    assert table.last_board is board  # the same message, edited
    assert len(board_images(fake, table.channel)) == images
    assert board.attachments[0].data != before_png
    assert [c.split(":")[1] for c in board.custom_ids()] == ["play"]  # the move builder
    assert "rolls" in board.text() and "-" in board.text()
    state = GameState.from_json((await table.game()).state_json)  # type: ignore[union-attr]
    assert state.phase == MOVE and state.dice is not None
    alt = board.attachments[0].description or ""
    assert f"to play {state.dice.high}-{state.dice.low}" in alt and "pip" in alt
    assert fake.pings[pings:] == []  # the roller was pinged when the turn began
    # The play then posts the next board, and the old one is left without buttons.
    await table.step()
    assert table.last_board is not board
    await eventually(lambda: board.custom_ids() == [], "the old board's buttons to go")


async def test_old_and_unknown_buttons_get_a_private_answer(
    table: Table, fake: FakeDiscord
) -> None:
    await table.challenge("classic")
    await _until(table, ROLL)
    board = table.last_board
    assert board is not None
    stale_components = copy.deepcopy(board.components)
    game = await table.game()
    assert game is not None
    roller = mover_user(game, GameState.from_json(game.state_json), table.users)
    await table.press(roller, "roll")
    # A client still showing the old buttons clicks one.
    board.components = stale_components
    roll = next(c for c in board.custom_ids() if c.startswith("bg:roll:"))
    old = await reply_of(await fake.click(roller, board, roll))
    assert old.ephemeral and "older board" in old.content
    # A button of an older version of the bot, unknown to this one.
    board.components = [
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "bgv0:go"}]}
    ]
    unknown = await reply_of(await fake.click(roller, board, "bgv0:go"))
    assert unknown.ephemeral
    assert "no longer in use" in unknown.content or "does not work any more" in unknown.content
    assert fake.errors == []


async def test_spectator_board_pings_nobody(table: Table, fake: FakeDiscord) -> None:
    await table.challenge("dutch")
    carol = fake.add_user("carol")
    mine = await reply_of(await fake.slash(carol, table.channel, "board"))
    assert mine.ephemeral and mine.message is not None and mine.message.attachments
    pings = len(fake.pings)
    shared = await reply_of(await fake.slash(carol, table.channel, "board", public=True))
    assert not shared.ephemeral and shared.message is not None
    assert "<@" in shared.message.text()  # it names the player to act...
    assert shared.message.pinged == [] and fake.pings[pings:] == []  # ...without pinging
    assert shared.message.attachments[0].description


async def test_move_autocomplete_narrows_by_tokens_in_any_order(
    table: Table, fake: FakeDiscord
) -> None:
    await table.challenge("neverfinishing")
    for _ in range(40):  # a roll with many plays
        await _until(table, MOVE)
        game = await table.game()
        assert game is not None
        state = GameState.from_json(game.state_json)
        if len(state.legal_plays()) > 25:
            break
        await table.step()
    mover = mover_user(game, state, table.users)
    legal = {p.text for p in state.legal_plays()}

    async def offered(typed: str) -> list[dict[str, str]]:
        ac = await fake.autocomplete(mover, table.channel, "move", "play", play=typed)
        return await ac.wait_autocomplete(TIMEOUT)

    everything = await offered("")
    assert len(everything) == 25 and {c["value"] for c in everything} <= legal
    first_sources = [int(c["value"].split("/")[0]) for c in everything]
    assert first_sources == sorted(first_sources, reverse=True)  # high to low, numerically
    source = first_sources[-1]
    narrowed = await offered(f"{source}/")
    assert narrowed and all(
        any(t.startswith(f"{source}/") for t in c["value"].split()) for c in narrowed
    )
    two = sorted({t for c in narrowed for t in c["value"].split()})
    if len(two) >= 2:
        a, b = two[0], two[-1]
        forward = [c["value"] for c in await offered(f"{a} {b}")]
        backward = [c["value"] for c in await offered(f"{b} {a}")]
        assert forward == backward
        assert all(a in v.split() and b in v.split() for v in forward)
    for choice in everything:
        if "*" in choice["value"]:
            assert "hits" in choice["name"]
        if "^" in choice["value"]:
            assert "traps" in choice["name"]


async def test_open_challenge_accepted_by_a_third_member(
    table: Table, fake: FakeDiscord, bot: BackgammonBot
) -> None:
    posted = await fake.slash(table.alice, table.channel, "challenge", variant="blocking")
    msg = await posted.wait_original()
    assert "Anyone may accept" in msg.text() and msg.pinged == []
    carol = fake.add_user("carol")
    accept = next(c for c in msg.custom_ids() if c.startswith("bg:accept:"))
    declined = await reply_of(await fake.slash(table.bob, table.channel, "decline"))
    assert declined.ephemeral and "open to anyone" in declined.content
    await fake.click(carol, msg, accept)
    game = await table.settle(None, None, 0)
    assert (game.player_x, game.player_o) == (table.alice.id, carol.id)
    await eventually(lambda: msg.custom_ids() == [], "the challenge's buttons to go")
    assert "Accepted by carol" in msg.text()
    # /games lists it with the players, the variant, whose turn and a link.
    other = fake.add_channel("second")
    second = Table(fake, bot.services.db, other, table.alice, table.bob)
    await second.challenge("pin")
    listing = await reply_of(await fake.slash(carol, table.channel, "games"))
    assert listing.ephemeral and "2 games in progress" in listing.content
    assert "The Blocking Game" in listing.content and "The Pin Game" in listing.content
    # Both games are in threads of their own, which /games links.
    second_game = await second.game()
    assert second_game is not None and second_game.parent_channel_id == other.id
    assert game.parent_channel_id == table.channel.id
    assert f"<#{game.channel_id}>" in listing.content
    assert f"<#{second_game.channel_id}>" in listing.content
    assert f"<@{carol.id}>" in listing.content and "to play" in listing.content
    assert f"/{game.channel_id}/{game.board_message_id}" in listing.content


async def test_expired_challenge_is_edited(
    table: Table, fake: FakeDiscord, bot: BackgammonBot
) -> None:
    handle = await fake.slash(
        table.alice, table.channel, "challenge", opponent=table.bob, variant="classic"
    )
    msg = await handle.wait_original()
    assert [u.id for u in msg.pinged] == [table.bob.id]
    challenge = await bot.services.db.get_open_challenge(table.channel.id, now=bot.table.clock())
    assert challenge is not None
    for _ in range(100):  # the message id is stored right after the post
        fresh = await bot.services.db.get_challenge(challenge.id)
        if fresh is not None and fresh.message_id is not None:
            break
        await asyncio.sleep(0.01)
    real_clock = bot.table.clock
    bot.table.clock = lambda: real_clock() + 3600
    cog = bot.get_cog("Games")
    assert await cog.expire_due() == 1  # type: ignore[union-attr]
    assert "Expired" in msg.text() and msg.custom_ids() == []


async def test_a_whole_game_one_picture_and_one_ping_per_turn(
    table: Table, fake: FakeDiscord
) -> None:
    """A full classic game (doubles offered and taken on the way): every turn adds at most one
    picture, only the live board has buttons, and each ping goes to the player to act."""
    await table.challenge("classic")
    started = await table.game()
    assert started is not None
    pings_before = len(fake.pings)
    doubled = False
    for _ in range(3000):
        game = await table.game()
        if game is None:
            break
        state = GameState.from_json(game.state_json)
        mover = mover_user(game, state, table.users)
        if not doubled and state.phase == ROLL and state.can_double(state.turn):
            await table.press(mover, "double")
            doubled = True
            board = table.last_board
            assert board is not None
            assert sorted(c.split(":")[1] for c in board.custom_ids()) == ["pass", "take"]
            await table.press(table.bob if mover is table.alice else table.alice, "take")
        else:
            await table.step()
        live = table.last_board

        def stale(live: FakeMessage | None = live) -> list[FakeMessage]:
            return [
                m
                for m in board_images(fake, table.channel)
                if m is not live and m.custom_ids() != []
            ]

        # The old board's buttons are cleared right after the new board is out.
        await eventually(lambda: stale() == [], "only the live board to keep buttons")
    else:
        raise AssertionError("the game did not end")
    assert doubled
    finished = await table.db.get_game(started.id)
    assert finished is not None and finished.status == "finished"
    record = GameState.from_json(finished.state_json).record
    turns = sum(1 for line in record if ": " in line and not line.startswith(("opening", "result")))
    images = len(board_images(fake, table.channel))
    assert images <= turns + 1, (images, turns)
    players = {table.alice.id, table.bob.id}
    assert {user.id for _, user in fake.pings[pings_before:]} <= players
    # Both players act promptly: a player is pinged only when away (not acted in the game
    # for two minutes), so at most the first turn of each pings.
    assert len(fake.pings) - pings_before <= 2
    for msg, _ in fake.pings[pings_before:]:
        # A roll's header names the roller's own dice, also when the play was forced.
        rolled = re.search(r"^(\w+) rolls (\d)-(\d)\.$", msg.text(), re.M)
        forced = re.search(r"^(\w+) played (\d)-(\d): .* \(forced\)$", msg.text(), re.M)
        if rolled and forced and rolled[1] == forced[1]:
            assert rolled.groups() == forced.groups(), msg.text()


async def test_resigning_a_one_point_variant_concedes_at_once(
    table: Table, fake: FakeDiscord
) -> None:
    await table.challenge("blocking")
    game = await table.game()
    assert game is not None
    await table.act(table.alice, "resign")
    finished = await table.db.get_game(game.id)
    assert finished is not None and finished.status == "finished"
    assert finished.winner_id == table.bob.id and finished.points == 1
    board = table.last_board
    assert board is not None and "Game over" in board.text()
    assert [c.split(":")[2] for c in board.custom_ids()] == RESULT_BUTTONS
