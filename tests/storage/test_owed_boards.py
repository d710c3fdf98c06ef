"""Boards owed to a channel: recorded in the transaction that commits an action, paid when a
board of that version (or a later one) is out, listed at start-up. Both backends."""

from __future__ import annotations

from pathlib import Path

from storage import MatchResult, NewMove, Storage, open_storage
from tests.storage.conftest import CHANNEL, GUILD, new_game


async def test_a_committed_action_owes_its_board_until_it_is_shown(db: Storage) -> None:
    game = await new_game(db)
    assert game.board_owed_version is None and await db.list_owed_boards() == []
    moved = await db.commit_action(game.id, 0, '{"a": 1}', [], now=2.0, owe_board=True)
    assert moved.board_owed_version == 1
    assert [g.id for g in await db.list_owed_boards()] == [game.id]
    # A board of an older version does not pay the debt; one of this version does.
    assert await db.set_board_message(game.id, 10, shown_version=0)
    assert (await db.list_owed_boards())[0].board_owed_version == 1
    assert await db.set_board_message(game.id, 11, shown_version=1)
    assert await db.list_owed_boards() == []
    current = await db.get_game(game.id)
    assert current is not None
    assert (current.board_message_id, current.board_owed_version) == (11, None)


async def test_an_action_without_a_board_leaves_the_debt_alone(db: Storage) -> None:
    game = await new_game(db)
    await db.commit_action(game.id, 0, "{}", [], now=2.0, owe_board=True)
    later = await db.commit_action(game.id, 1, "{}", [], now=3.0)  # e.g. a state save
    assert later.board_owed_version == 1
    # A board redrawn in place at a later version pays it.
    assert not await db.board_shown(game.id + 1, 5)
    assert await db.board_shown(game.id, 2)
    assert not await db.board_shown(game.id, 2)  # nothing left to pay
    assert await db.list_owed_boards() == []


async def test_a_new_game_and_a_finish_can_owe_boards(db: Storage) -> None:
    game = await db.create_game(
        GUILD,
        CHANNEL,
        "classic",
        1,
        2,
        "{}",
        now=1.0,
        moves=[NewMove(None, "start", "")],
        owe_board=True,
    )
    assert game.board_owed_version == 0
    stored = await db.get_game(game.id)
    assert stored is not None and stored.board_owed_version == 0
    finished = await db.finish_game(
        game.id, 0, "{}", MatchResult(1, "single", 1), now=2.0, owe_board=True
    )
    assert finished.game.board_owed_version == 1
    # A finished game's final board is still owed; an aborted game owes nothing.
    assert [g.status for g in await db.list_owed_boards()] == ["finished"]
    other = await db.create_game(GUILD, CHANNEL + 1, "pin", 3, 4, "{}", now=1.0, owe_board=True)
    await db.abort_game(other.id, now=3.0)
    assert [g.id for g in await db.list_owed_boards()] == [game.id]
    # Finishing without a board (e.g. a timeout announced in text) clears the debt.
    third = await db.create_game(GUILD, CHANNEL + 2, "pin", 5, 6, "{}", now=1.0, owe_board=True)
    done = await db.finish_game(third.id, 0, "{}", MatchResult(5, "single", 1), now=2.0)
    assert done.game.board_owed_version is None


async def test_the_debt_survives_reopening(target: str, tmp_path: Path) -> None:
    db = await open_storage(target)
    try:
        game = await new_game(db)
        await db.commit_action(game.id, 0, "{}", [], now=2.0, owe_board=True)
    finally:
        await db.close()
    db = await open_storage(target)
    try:
        assert [(g.id, g.board_owed_version) for g in await db.list_owed_boards()] == [(game.id, 1)]
    finally:
        await db.close()
