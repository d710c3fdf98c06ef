"""app.play: who may act, applying actions, aborting, and the suggestions of typed plays."""

from __future__ import annotations

import pytest

from app.challenges import Challenges
from app.play import (
    AlreadyEnded,
    GameOver,
    IllegalAction,
    NoGameHere,
    NotAllowedToAbort,
    NotYourTurn,
    OldButtons,
    Play,
    Spectator,
    narrow_plays,
)
from app.table import Game, GameTable, Outcome
from engine.game import MOVE, ROLL, GameState

GUILD, CHANNEL = 1 << 22, 700
ALICE, BOB, CAROL = 11, 22, 33


async def started(challenges: Challenges, variant: str = "pin") -> Outcome:
    await challenges.open(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, variant=variant
    )
    answering = await challenges.answering(CHANNEL, BOB, accept=True)

    async def show(outcome: Outcome) -> None:
        return None

    return await challenges.accept(answering, BOB, ("alice", "bob"), show)


def mover(game: Game, table: GameTable) -> tuple[int, int]:
    state = table.state_of(game)
    user = GameTable.user_of(game, state.mover)
    other = ALICE if user == BOB else BOB
    return user, other


async def test_no_game_is_a_refusal(play: Play) -> None:
    with pytest.raises(NoGameHere):
        await play.active_game(CHANNEL)
    assert await play.find_active_game(CHANNEL) is None


async def test_turns_are_checked_before_anything_is_done(
    play: Play, challenges: Challenges, table: GameTable
) -> None:
    game = (await started(challenges)).game
    assert table.state_of(game).phase == MOVE  # the Pin Game rolls for its players
    user, other = mover(game, table)
    with pytest.raises(Spectator):
        play.check_turn(game, CAROL, MOVE)
    with pytest.raises(NotYourTurn, match="not your turn"):
        play.check_turn(game, other, MOVE)
    with pytest.raises(NotYourTurn, match="/move"):
        play.check_turn(game, user, ROLL)
    assert play.check_turn(game, user, MOVE) == GameTable.seat_of(game, user)


async def test_a_legal_play_is_committed_and_shown_under_the_lock(
    play: Play, challenges: Challenges, table: GameTable
) -> None:
    game = (await started(challenges)).game
    user, _ = mover(game, table)
    legal = table.legal_texts(game)
    seen: list[tuple[int, int]] = []

    async def show(before: Game, old: GameState, outcome: Outcome) -> None:
        assert table.lock(CHANNEL).locked()
        seen.append((before.version, outcome.game.version))

    outcome = await play.act(
        game, user, lambda s, seat: s.play(seat, legal[0] or "pass", table.rng), "play", show
    )
    assert seen == [(game.version, outcome.game.version)]
    assert outcome.game.version > game.version
    stored = await play.active_game(CHANNEL)
    assert stored.version == outcome.game.version
    # The board is owed until the front end says it is out.
    assert stored.board_owed_version is not None
    await play.board_posted(stored, 12345)
    paid = await play.active_game(CHANNEL)
    assert paid.board_owed_version is None and paid.board_message_id == 12345
    # The old board's buttons are refused from now on.
    with pytest.raises(OldButtons):
        await play.game_for_button(game.id, game.version)


async def test_an_illegal_play_is_refused_with_the_engine_message(
    play: Play, challenges: Challenges, table: GameTable
) -> None:
    game = (await started(challenges)).game
    user, _ = mover(game, table)

    async def show(before: Game, old: GameState, outcome: Outcome) -> None:
        raise AssertionError("a refused play is never shown")

    with pytest.raises(IllegalAction) as caught:
        await play.act(game, user, lambda s, seat: s.play(seat, "24/2", table.rng), "play", show)
    assert "24/2" in str(caught.value) or "legal" in str(caught.value).lower()
    assert (await play.active_game(CHANNEL)).version == game.version


async def test_a_preview_shows_the_play_without_committing_it(
    play: Play, challenges: Challenges, table: GameTable
) -> None:
    game = (await started(challenges)).game
    user, other = mover(game, table)
    state = table.state_of(game)
    chosen = state.legal_plays()[0]
    preview = play.preview(game, user, chosen.text)
    assert preview.text == chosen.text
    seat = state.mover
    assert preview.state.position_for(seat) == chosen.after
    assert preview.state.last is not None and preview.state.last.text == chosen.text
    assert preview.state.dice == state.dice  # still the roll being played
    fresh = await play.game(game.id)
    assert fresh is not None and fresh.version == game.version  # nothing was committed
    with pytest.raises(NotYourTurn):
        play.preview(game, other, chosen.text)
    # Refused as the play itself would be, with the engine's message.
    with pytest.raises(IllegalAction) as previewed:
        play.preview(game, user, "24/23(4)")

    async def show(before: Game, old: GameState, outcome: Outcome) -> None:
        return None

    with pytest.raises(IllegalAction) as acted:
        await play.act(game, user, lambda s, st: s.play(st, "24/23(4)", table.rng), "play", show)
    assert previewed.value.message == acted.value.message


async def test_abort_needs_both_players_or_a_moderator(play: Play, challenges: Challenges) -> None:
    game = (await started(challenges)).game
    with pytest.raises(NotAllowedToAbort):
        await play.abort(game, CAROL, moderator=False)
    first = await play.abort(game, ALICE, moderator=False)
    assert (first.result, first.other) == ("requested", BOB)
    again = await play.abort(game, ALICE, moderator=False)
    assert again.result == "repeated"
    agreed = await play.abort(game, BOB, moderator=False)
    assert agreed.result == "aborted"
    with pytest.raises(AlreadyEnded):
        await play.abort(game, CAROL, moderator=True)
    with pytest.raises(GameOver):
        await play.game_for_button(game.id, game.version)


def test_typed_plays_narrow_in_reading_order() -> None:
    texts = ["13/7 8/7", "24/18 13/11", "8/2 6/1", "13/7/2", ""]
    assert narrow_plays(texts, "13/") == ["24/18 13/11", "13/7 8/7", "13/7/2"]
    assert narrow_plays(texts, "7/2") == ["13/7/2"]
    assert narrow_plays(texts, "pass") == [""]
    assert narrow_plays(texts, "nothing") == []


async def test_a_forged_button_id_is_refused_not_crashed(play: Play) -> None:
    with pytest.raises(GameOver):
        await play.game_for_button(99999999999999999999, 1)
