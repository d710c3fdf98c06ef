"""End to end: games against the computer through the fake Discord (the test plays the person)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest

from cogs.client import BackgammonBot
from engine import VARIANTS, parse_position
from engine.game import DOUBLE, MOVE, ROLL, GameState
from storage import Game, NewMove
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeChannel, FakeMessage, FakeUser

from .harness import TIMEOUT, best_play, eventually, reply_of

COMPUTER_TURN_TIMEOUT = 60.0


async def computer_moved(bot: BackgammonBot, game: Game) -> Game | None:
    """Wait until the computer's turn is committed; the game (None once it is over)."""
    end = time.monotonic() + COMPUTER_TURN_TIMEOUT
    while time.monotonic() < end:
        fresh = await bot.services.db.get_game(game.id)
        assert fresh is not None
        if fresh.status != "active":
            return None
        if fresh.version != game.version:
            return fresh
        await asyncio.sleep(0.05)
    raise AssertionError(f"the computer did not play in game {game.id}")


async def human_turn(
    fake: FakeDiscord, channel: FakeChannel, human: FakeUser, state: GameState
) -> None:
    if state.phase == ROLL:
        handle = await fake.slash(human, channel, "roll")
    elif state.phase == DOUBLE:
        handle = await fake.slash(human, channel, "take")
    else:
        assert state.phase == MOVE
        ac = await fake.autocomplete(human, channel, "move", "play", play="")
        offered = [c["value"] for c in await ac.wait_autocomplete(TIMEOUT)]
        handle = await fake.slash(human, channel, "move", play=best_play(state, offered))
    # Accepted: the private "thinking" goes away (a new board) or says what happened.
    answer = await reply_of(handle)
    assert answer.content == "" or answer.content.startswith(human.display_name), answer.content


async def play_against_computer(
    fake: FakeDiscord,
    bot: BackgammonBot,
    channel: FakeChannel,
    human: FakeUser,
    variant: str,
    level: str,
    length: int = 1,
    max_turns: int = 2000,
) -> Game:
    handle = await fake.slash(
        human,
        channel,
        "challenge",
        opponent=fake.bot_user,
        variant=variant,
        level=level,
        length=length,
    )
    # Acknowledged at once ("thinking"), then filled in with the first board.
    started = await reply_of(handle)
    assert not started.ephemeral, started.content
    assert "Computer" in started.content
    # The computer's name has its level in brackets; its colour is not a second bracket.
    assert f"Computer ({level}), dark: " in started.content and ") (dark)" not in started.content
    assert started.message is not None and started.message.attachments
    game = await bot.services.db.get_active_game(channel.id)
    assert game is not None and game.ai_level == level and not game.rated
    first = game
    for _ in range(max_turns):
        fresh = await bot.services.db.get_game(first.id)
        assert fresh is not None
        if fresh.status != "active":
            return fresh
        state = GameState.from_json(fresh.state_json)
        if state.mover == 1:
            await computer_moved(bot, fresh)
        else:
            await human_turn(fake, channel, human, state)
    raise AssertionError("the game against the computer did not end")


async def challenge_computer(
    fake: FakeDiscord, bot: BackgammonBot, human: FakeUser, channel: FakeChannel, level: str
) -> Game:
    """A classic game against the computer at ``level``, started in public in ``channel``."""
    started = await (
        await fake.slash(
            human, channel, "challenge", opponent=fake.bot_user, variant="classic", level=level
        )
    ).wait_initial(TIMEOUT)
    assert not started.ephemeral
    game = await bot.services.db.get_active_game(channel.id)
    assert game is not None
    return game


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_full_game_against_the_computer(
    fake: FakeDiscord, bot: BackgammonBot, variant: str
) -> None:
    human = fake.add_user("alice")
    channel = fake.general
    typing_before = fake.typing_count
    game = await play_against_computer(fake, bot, channel, human, variant, "casual")
    assert game.status == "finished" and game.result_kind is not None
    assert game.player_o == fake.bot_user.id
    # The computer's turns were posted in the channel like a person's, with the board.
    posted = [
        m
        for m in fake.messages_in(channel)
        if m.author.id == fake.bot_user.id and m.webhook_id is None and m.attachments
    ]
    state = GameState.from_json(game.state_json)
    computer_plays = [line for line in state.record if line.startswith("Computer (casual) ")]
    assert posted and computer_plays
    assert fake.typing_count > typing_before  # "typing..." while it thought
    # Not rated; the record against the level counts it.
    assert await bot.services.db.player_stats(fake.guild.id, human.id) == []
    (record,) = await bot.services.db.computer_record(fake.guild.id, human.id)
    assert record.level == "casual" and record.games == 1
    assert fake.errors == [] and fake.unknown_routes == []


async def test_several_games_against_the_computer_at_once(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    """Each player practises in a thread of their own; all games go on at the same time."""

    async def practise(i: int) -> tuple[int, int]:
        human = fake.add_user(f"p{i}")
        thread = fake.add_channel(f"practice-{i}")
        started = await (
            await fake.slash(
                human, thread, "challenge", opponent=fake.bot_user, variant="dutch", level="strong"
            )
        ).wait_initial(TIMEOUT)
        assert not started.ephemeral, started.content
        game = await bot.services.db.get_active_game(thread.id)
        assert game is not None
        turns = 0
        while turns < 4:
            fresh = await bot.services.db.get_game(game.id)
            assert fresh is not None
            if fresh.status != "active":
                break
            state = GameState.from_json(fresh.state_json)
            if state.mover == 1:
                await computer_moved(bot, fresh)
                continue
            await human_turn(fake, thread, human, state)
            turns += 1
        done = await bot.services.db.get_game(game.id)
        assert done is not None
        return game.id, done.version

    results = await asyncio.gather(*(practise(i) for i in range(3)))
    assert len({game_id for game_id, _ in results}) == 3
    assert all(version >= 4 for _, version in results)  # both sides moved in every game
    assert fake.errors == []


async def test_the_computer_answers_a_double(fake: FakeDiscord, bot: BackgammonBot) -> None:
    human = fake.add_user("gus")
    channel = fake.add_channel("cube")
    game = await challenge_computer(fake, bot, human, channel, "strong")
    for _ in range(200):
        fresh = await bot.services.db.get_game(game.id)
        assert fresh is not None and fresh.status == "active"
        state = GameState.from_json(fresh.state_json)
        if state.mover == 1:
            await computer_moved(bot, fresh)
            continue
        if state.phase == ROLL and state.can_double(0):
            break
        await human_turn(fake, channel, human, state)
    else:
        raise AssertionError("the person never had the cube")
    doubled = await reply_of(await fake.slash(human, channel, "double"))
    assert "doubles to 2" in doubled.content, doubled.content
    answered = await computer_moved(bot, fresh)  # the double itself is one version
    if answered is not None:
        answered = await computer_moved(bot, answered)  # then the computer's answer
    final = await bot.services.db.get_game(game.id)
    assert final is not None
    after = GameState.from_json(final.state_json)
    lines = after.record[len(state.record) :]
    assert lines[0] == "gus doubles 2"
    assert lines[1] in ("Computer (strong) takes", "Computer (strong) passes")
    if lines[1].endswith("takes"):
        assert after.cube == 2 and after.cube_owner == 1
        shown = "Computer (strong) takes: the cube is at 2."
    else:
        assert final.status == "finished" and final.winner_id == human.id
        shown = "Computer (strong) passes."
    # The channel reads its answer as it reads a person's (not the record's "takes").
    await eventually(
        lambda: any(shown in m.content for m in fake.messages_in(channel)), "its answer shown"
    )


async def test_the_computer_accepts_an_offer_to_resign(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    """In backgammon an offer to resign waits for the winner's answer: the computer gives it
    (it accepts), and no board ever shows buttons for the computer's own turn."""
    human = fake.add_user("rita")
    channel = fake.add_channel("resign-to-the-computer")
    game = await challenge_computer(fake, bot, human, channel, "casual")
    for _ in range(20):  # a few turns each
        fresh = await bot.services.db.get_game(game.id)
        assert fresh is not None and fresh.status == "active"
        state = GameState.from_json(fresh.state_json)
        if state.mover == 1:
            await computer_moved(bot, fresh)
            continue
        if len(state.record) > 8:
            break
        await human_turn(fake, channel, human, state)
    offered = await reply_of(await fake.slash(human, channel, "resign", level=2))
    assert "offers to resign" in offered.content or offered.content == "", offered.content
    end = time.monotonic() + COMPUTER_TURN_TIMEOUT
    while time.monotonic() < end:
        final = await bot.services.db.get_game(game.id)
        assert final is not None
        if final.status != "active":
            break
        await asyncio.sleep(0.05)
    assert final.status == "finished" and final.result_kind == "resign"
    assert final.winner_id == fake.bot_user.id
    last = GameState.from_json(final.state_json)
    assert "Computer (casual) accepts" in last.record[-3:]

    def boards() -> list[FakeMessage]:
        return [
            m
            for m in fake.messages_in(channel)
            if m.author.id == fake.bot_user.id and m.attachments and not m.ephemeral
        ]

    # The final board follows the commit.
    await eventually(lambda: "Game over" in boards()[-1].content, "the final board")
    thinking = [m for m in boards() if "Computer (casual) is thinking" in m.content]
    assert thinking and all(not m.components for m in thinking)
    assert fake.errors == []


async def test_the_computer_rejects_a_resignation_worth_less_than_it_expects(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    """A real opponent: with a gammon in sight the computer rejects a single game and says
    why, the game goes on; a gammon is then accepted and the game ends, recorded."""
    human = fake.add_user("vera")
    channel = fake.add_channel("resign-judged")
    game = await challenge_computer(fake, bot, human, channel, "casual")
    while True:  # until the person is to act (the computer may have the opening roll)
        fresh = await bot.services.db.get_game(game.id)
        assert fresh is not None and fresh.status == "active"
        state = GameState.from_json(fresh.state_json)
        if state.mover == 0:
            break
        await computer_moved(bot, fresh)
    # The test arranges the position (stored like any action): the computer has all fifteen
    # in its home board, the person none in theirs; the person is about to roll.
    board, _ = parse_position(
        "classic | 23:O2 22:O2 21:O3 20:O4 19:O4 12:X5 11:X5 10:X5 | bar 0/0 | res 0/0 | "
        "off 0/0 | -"
    )
    arranged = replace(state, board=board, turn=0, phase=ROLL, dice=None, cube=1, cube_owner=None)
    fresh = await bot.services.db.commit_action(
        game.id, fresh.version, arranged.to_json(), [NewMove(None, "note", "arranged")], now=0.0
    )

    async def answered(after: int) -> Game:
        """The game once the computer has answered the offer (the offer is one version)."""
        end = time.monotonic() + COMPUTER_TURN_TIMEOUT
        while time.monotonic() < end:
            current = await bot.services.db.get_game(game.id)
            assert current is not None
            now = GameState.from_json(current.state_json)
            if current.version > after + 1 and now.resign_offer is None:
                return current
            await asyncio.sleep(0.05)
        raise AssertionError("the computer did not answer the offer to resign")

    offered = await reply_of(await fake.slash(human, channel, "resign", level=1))
    assert "offers to resign" in offered.content or offered.content == "", offered.content
    after = await answered(fresh.version)
    assert after.status == "active"
    state = GameState.from_json(after.state_json)
    assert state.record[-2:] == (
        "vera offers to resign a single game (1 point)",
        "Computer (casual) rejects",
    )
    assert state.phase == ROLL and state.mover == 0 and state.board == board  # play on

    def said(words: str) -> list[str]:
        return [
            m.content
            for m in fake.messages_in(channel)
            if m.author.id == fake.bot_user.id and words in m.content
        ]

    # The board with the answer follows the commit.
    await eventually(lambda: bool(said("Computer (casual) rejects a single game")), "the reply")
    assert "it expects a gammon here" in said("Computer (casual) rejects a single game")[-1]

    offered = await reply_of(await fake.slash(human, channel, "resign", level=2))
    assert "offers to resign" in offered.content or offered.content == "", offered.content
    final = await answered(after.version)
    assert final.status == "finished" and final.result_kind == "resign"
    assert final.winner_id == fake.bot_user.id
    last = GameState.from_json(final.state_json)
    assert last.result is not None and last.result.points == 2
    assert "Computer (casual) accepts" in last.record[-3:]
    await eventually(lambda: bool(said("Computer (casual) accepts a gammon (2 points)")), "it")
    (record,) = await bot.services.db.computer_record(fake.guild.id, human.id)
    assert record.level == "casual" and record.games == 1
    assert fake.errors == []
