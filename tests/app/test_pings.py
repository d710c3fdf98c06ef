"""Who is pinged when their turn starts: /preferences pings (always, when away, never), and
"away" means not having acted in that game for two minutes (app.play.Play.should_ping)."""

from __future__ import annotations

import random

from app.play import AWAY_AFTER_SECONDS, Play
from engine.game import GameState
from storage import NewMove, Storage

from .conftest import ALICE, BOB, START, FakeClock, new_game


async def _acted(db: Storage, game_id: int, user: int, now: float) -> None:
    game = await db.get_game(game_id)
    assert game is not None
    await db.commit_action(
        game_id, game.version, game.state_json, [NewMove(user, "play", "x")], now=now
    )


async def test_a_player_who_never_acted_is_away(db: Storage, play: Play) -> None:
    game = await new_game(db)
    assert await play.should_ping(game, ALICE)
    assert not await play.should_ping(game, None)


async def test_an_active_player_is_not_pinged_until_two_minutes_pass(
    db: Storage, play: Play, clock: FakeClock
) -> None:
    game = await new_game(db)
    await _acted(db, game.id, BOB, clock())
    assert not await play.should_ping(game, BOB)
    assert await play.should_ping(game, ALICE)  # alice has not acted yet
    clock.advance(AWAY_AFTER_SECONDS - 1)
    assert not await play.should_ping(game, BOB)
    clock.advance(1)
    assert await play.should_ping(game, BOB)


async def test_the_user_who_just_acted_is_never_pinged(db: Storage, play: Play) -> None:
    game = await new_game(db)
    assert not await play.should_ping(game, ALICE, just_acted=ALICE)
    assert await play.should_ping(game, ALICE, just_acted=BOB)


async def test_preferences_always_and_never(db: Storage, play: Play, clock: FakeClock) -> None:
    game = await new_game(db)
    await _acted(db, game.id, BOB, clock())
    await db.set_player_preferences(BOB, now=START, pings="always")
    assert await play.should_ping(game, BOB)  # even though bob is active
    await db.set_player_preferences(ALICE, now=START, pings="never")
    assert not await play.should_ping(game, ALICE)  # even though alice is away
    prefs = await db.get_player_preferences(BOB)
    assert prefs.pings == "always" and prefs.board_theme is None


async def test_the_computer_is_never_pinged(db: Storage, play: Play) -> None:
    state = GameState.new("pin", ("alice", "Computer"), random.Random(1))
    game = await db.create_game(
        111, 333, "pin", ALICE, BOB, state.to_json(), now=START, ai_level="expert", rated=False
    )
    assert not await play.should_ping(game, BOB)
    assert await play.should_ping(game, ALICE)


async def test_the_turn_notice_an_edited_board_owes(
    db: Storage, play: Play, clock: FakeClock
) -> None:
    """What a restart re-posts with a board edited in place just before a crash: the notice
    of the player to act, when the last action was the other player's and they are away."""
    game = await new_game(db)
    assert await play.turn_notice_owed(game, ALICE) is None  # nobody has acted yet
    await _acted(db, game.id, BOB, clock())
    assert await play.turn_notice_owed(game, ALICE) == ALICE  # bob doubled: alice decides
    assert await play.turn_notice_owed(game, BOB) is None  # bob acts on: no new turn
    assert await play.turn_notice_owed(game, None) is None  # the game is over
    await _acted(db, game.id, ALICE, clock())
    await _acted(db, game.id, BOB, clock())
    assert await play.turn_notice_owed(game, ALICE) is None  # alice acted just now: not away
    await db.set_player_preferences(ALICE, now=START, pings="always")
    assert await play.turn_notice_owed(game, ALICE) == ALICE


async def test_no_turn_notice_against_the_computer(db: Storage, play: Play) -> None:
    state = GameState.new("pin", ("alice", "Computer"), random.Random(1))
    game = await db.create_game(
        111, 333, "pin", ALICE, BOB, state.to_json(), now=START, ai_level="expert", rated=False
    )
    await _acted(db, game.id, BOB, START)
    assert await play.turn_notice_owed(game, ALICE) is None
