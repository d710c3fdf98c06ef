"""Abort requests are stored with the game: agreement is atomic and survives a reopen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage import ConflictError, Database, InvalidInputError, NewMove
from tests.storage.conftest import new_game


async def test_second_player_agrees_and_the_game_is_aborted(db: Database) -> None:
    game = await new_game(db)
    result, same = await db.request_abort(game.id, 1, now=1001.0)
    assert result == "requested" and same.status == "active"
    assert await db.abort_requested_by(game.id) == 1
    result, same = await db.request_abort(game.id, 1, now=1002.0)
    assert result == "repeated" and same.status == "active"
    moves = [NewMove(2, "abort", "aborted")]
    result, aborted = await db.request_abort(game.id, 2, now=1003.0, moves=moves)
    assert result == "aborted" and aborted.status == "aborted"
    assert aborted.finished_at == 1003.0 and aborted.version == game.version + 1
    assert [m.kind for m in await db.game_moves(game.id)] == ["abort"]
    assert await db.abort_requested_by(game.id) is None
    with pytest.raises(ConflictError):
        await db.request_abort(game.id, 1, now=1004.0)


async def test_request_survives_reopening_the_database(db_path: Path) -> None:
    db = await Database.open(db_path)
    game = await new_game(db)
    await db.request_abort(game.id, 2, now=1001.0)
    await db.close()
    db = await Database.open(db_path)
    try:
        result, aborted = await db.request_abort(game.id, 1, now=1002.0)
        assert result == "aborted" and aborted.status == "aborted"
    finally:
        await db.close()


async def test_an_action_clears_the_request(db: Database) -> None:
    game = await new_game(db)
    await db.request_abort(game.id, 1, now=1001.0)
    await db.commit_action(game.id, game.version, '{"turn": "o"}', [], now=1002.0)
    assert await db.abort_requested_by(game.id) is None
    result, _ = await db.request_abort(game.id, 2, now=1003.0)
    assert result == "requested"


async def test_simultaneous_requests_of_both_players_agree(db: Database) -> None:
    game = await new_game(db)
    results = await asyncio.gather(
        db.request_abort(game.id, 1, now=1001.0), db.request_abort(game.id, 2, now=1001.0)
    )
    assert sorted(r for r, _ in results) == ["aborted", "requested"]
    stored = await db.get_game(game.id)
    assert stored is not None and stored.status == "aborted"


async def test_only_players_can_request(db: Database) -> None:
    game = await new_game(db)
    with pytest.raises(InvalidInputError):
        await db.request_abort(game.id, 3, now=1001.0)
    with pytest.raises(InvalidInputError):
        await db.request_abort(game.id, -1, now=1001.0)
