"""End to end: games against the computer through the fake Discord (the test plays the person)."""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from dataclasses import replace

import pytest

from discord_ui.client import BackgammonBot
from engine import VARIANTS, parse_position
from engine.game import DOUBLE, MOVE, ROLL, GameState
from storage import Game, NewMove
from tests.fake_discord import FakeDiscord
from tests.fake_discord.models import FakeChannel, FakeMessage, FakeUser

from .harness import TIMEOUT, best_play, eventually, game_started_from, reply_of

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
    # Acknowledged at once ("thinking"), then filled in with the game's opening line, on
    # which its thread opens (the first board is there).
    started = await reply_of(handle)
    assert not started.ephemeral, started.content
    assert "Computer" in started.content
    # The computer's name has its level in brackets; its colour is not a second bracket.
    assert f"Computer ({level}), dark: " in started.content and ") (dark)" not in started.content
    game = await game_started_from(bot.services.db, channel)
    assert game is not None and game.ai_level == level and not game.rated
    assert game.parent_channel_id == channel.id and started.message is not None
    assert game.channel_id == started.message.id  # the thread opened on the opening line
    thread = fake.channel(game.channel_id)
    assert thread is not None
    channel = thread
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
    started = await reply_of(
        await fake.slash(
            human, channel, "challenge", opponent=fake.bot_user, variant="classic", level=level
        )
    )
    assert not started.ephemeral
    game = await game_started_from(bot.services.db, channel)
    assert game is not None
    return game


async def resign(fake: FakeDiscord, human: FakeUser, channel: FakeChannel, level: int) -> None:
    """/resign asks first, privately, with the stakes; the confirmation offers it."""
    asked = await fake.slash(human, channel, "resign", level=level)
    question = await asked.wait_original()
    assert question.ephemeral and "resign" in question.text() and "point" in question.text()
    button = next(c for c in question.custom_ids() if c.startswith("bg:cf:resign:"))
    await (await fake.click(human, question, button)).wait_initial(TIMEOUT)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_full_game_against_the_computer(
    fake: FakeDiscord, bot: BackgammonBot, variant: str
) -> None:
    human = fake.add_user("alice")
    channel = fake.general
    requests = len(fake.requests)
    game = await play_against_computer(fake, bot, channel, human, variant, "casual")
    assert game.status == "finished" and game.result_kind is not None
    assert game.player_o == fake.bot_user.id
    thread = fake.channel(game.channel_id)
    assert thread is not None and thread.parent_id == channel.id
    # One board per human turn: the person's play and the computer's whole reply together.
    state = GameState.from_json(game.state_json)
    computer_plays = [line for line in state.record if line.startswith("Computer (casual) ")]
    moves = await bot.services.db.game_moves(game.id)
    human_turns = sum(1 for m in moves if m.kind == "play" and m.actor_id == human.id)
    public = [
        m
        for where in (channel, thread)
        for m in fake.messages_in(where)
        if m.author.id == fake.bot_user.id and not m.ephemeral
    ]
    assert computer_plays and any(m.attachments for m in public)
    assert len(public) <= human_turns + 3, (len(public), human_turns)
    # Shown through the interactions: few calls count against the global rate limit.
    counted = [
        r
        for r in list(fake.requests)[requests:]
        if r.path.startswith("/api/")
        and "/interactions/" not in r.path
        and "/webhooks/" not in r.path
        and "/commands" not in r.path
    ]
    shapes = Counter(f"{r.method} {re.sub(r'[0-9]{6,}', 'N', r.path)}" for r in counted)
    assert len(counted) <= human_turns + 5, (human_turns, shapes)
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
        started = await reply_of(
            await fake.slash(
                human, thread, "challenge", opponent=fake.bot_user, variant="dutch", level="strong"
            )
        )
        assert not started.ephemeral, started.content
        game = await game_started_from(bot.services.db, thread)
        assert game is not None
        thread = fake.channel(game.channel_id)  # the game's own thread
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
    channel = fake.channel(game.channel_id)  # played in its thread
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
    # The command's answer comes with the computer's: the double and its answer show together.
    doubled = await reply_of(await fake.slash(human, channel, "double"))
    assert "doubles to 2" in doubled.content, doubled.content
    final = await bot.services.db.get_game(game.id)
    assert final is not None and (final.version >= fresh.version + 2 or not final.is_active)
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
        lambda: any(shown in m.text() for m in fake.messages_in(channel)), "its answer shown"
    )


async def test_the_computer_accepts_an_offer_to_resign(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    """In backgammon an offer to resign waits for the winner's answer: the computer gives it
    (it accepts), and no board ever shows buttons for the computer's own turn."""
    human = fake.add_user("rita")
    channel = fake.add_channel("resign-to-the-computer")
    game = await challenge_computer(fake, bot, human, channel, "casual")
    channel = fake.channel(game.channel_id)  # played in its thread
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
    await resign(fake, human, channel, 2)
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

    # The final board follows the commit; only it keeps buttons (its result card's).
    await eventually(lambda: "Game over" in boards()[-1].text(), "the final board")
    assert [m for m in boards() if m.custom_ids()] == [boards()[-1]]
    assert fake.errors == []


async def test_the_computer_rejects_a_resignation_worth_less_than_it_expects(
    fake: FakeDiscord, bot: BackgammonBot
) -> None:
    """A real opponent: with a gammon in sight the computer rejects a single game and says
    why, the game goes on; a gammon is then accepted and the game ends, recorded."""
    human = fake.add_user("vera")
    channel = fake.add_channel("resign-judged")
    game = await challenge_computer(fake, bot, human, channel, "casual")
    channel = fake.channel(game.channel_id)  # played in its thread
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

    await resign(fake, human, channel, 1)
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
            m.text()
            for m in fake.messages_in(channel)
            if m.author.id == fake.bot_user.id and words in m.text()
        ]

    # The board with the answer follows the commit.
    await eventually(lambda: bool(said("Computer (casual) rejects a single game")), "the reply")
    assert "it expects a gammon here" in said("Computer (casual) rejects a single game")[-1]

    await resign(fake, human, channel, 2)
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


async def test_abort_while_the_computer_thinks(fake: FakeDiscord, bot: BackgammonBot) -> None:
    """The person moves, then aborts before the computer has answered: the game ends, the
    computer plays nothing more, and the move's "thinking" does not hang."""
    human = fake.add_user("ivy")
    channel = fake.add_channel("abort-while-thinking")
    game = await challenge_computer(fake, bot, human, channel, "expert")
    channel = fake.channel(game.channel_id)  # played in its thread
    for _ in range(60):
        fresh = await bot.services.db.get_game(game.id)
        assert fresh is not None and fresh.status == "active"
        state = GameState.from_json(fresh.state_json)
        if state.mover == 1:
            await computer_moved(bot, fresh)
            continue
        if state.phase == MOVE:
            break
        await human_turn(fake, channel, human, state)
    play = min(state.legal_plays(), key=lambda p: p.text).text or "pass"
    moved = await fake.slash(human, channel, "move", play=play)
    await moved.wait_initial(TIMEOUT)
    asked = await fake.slash(human, channel, "abort")
    question = await asked.wait_original()
    confirm = next(c for c in question.custom_ids() if c.startswith("bg:cf:abort:"))
    await (await fake.click(human, question, confirm)).wait_initial(TIMEOUT)

    def answered() -> bool:
        original = moved.original
        return original is not None and (original.deleted or not original.loading)

    await eventually(answered, "the move's answer (no hanging thinking)")
    done = await bot.services.db.get_game(game.id)
    assert done is not None and done.status == "aborted"
    version = done.version
    await asyncio.sleep(1.0)
    after = await bot.services.db.get_game(game.id)
    assert after is not None and after.version == version  # the computer played nothing more
    assert fake.errors == []
