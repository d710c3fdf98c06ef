"""Games: one active per channel, optimistic concurrency, history, durability (kill -9)."""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import sys
from pathlib import Path

import pytest

from storage import (
    ChannelBusyError,
    ConflictError,
    InvalidInputError,
    MatchResult,
    NewMove,
    Storage,
    StorageError,
    open_storage,
)
from tests.storage.conftest import CHANNEL, GUILD, new_game

ROOT = Path(__file__).resolve().parents[2]


async def test_create_and_get(db: Storage) -> None:
    game = await db.create_game(
        GUILD, CHANNEL, "pin", 5, 6, '{"s": 1}', now=50.0, match_length=3, board_message_id=9
    )
    assert game.status == "active"
    assert game.version == 0
    assert (game.player_x, game.player_o, game.match_length) == (5, 6, 3)
    assert (game.created_at, game.last_action_at, game.finished_at) == (50.0, 50.0, None)
    assert await db.get_game(game.id) == game
    assert await db.get_active_game(CHANNEL) == game
    assert await db.get_active_game(CHANNEL + 1) is None
    assert await db.get_game(game.id + 1) is None
    assert await db.list_active_games() == [game]
    assert await db.list_active_games(GUILD) == [game]
    assert await db.list_active_games(GUILD + 1) == []


async def test_one_active_game_per_channel(db: Storage) -> None:
    first = await new_game(db)
    with pytest.raises(ChannelBusyError):
        await new_game(db, x=3, o=4)
    other_channel = await new_game(db, channel=CHANNEL + 1, x=3, o=4)
    assert other_channel.id != first.id
    assert [g.id for g in await db.list_active_games()] == [first.id, other_channel.id]

    # Once the game is over the channel is free again.
    await db.finish_game(first.id, 0, "{}", MatchResult(1, "single", 1), now=2000.0)
    again = await new_game(db, x=3, o=4, now=2001.0)
    assert (await db.get_active_game(CHANNEL)) == again


async def test_concurrent_creates_in_one_channel(db: Storage) -> None:
    results = await asyncio.gather(
        *(new_game(db, x=10 + i, o=20 + i) for i in range(5)), return_exceptions=True
    )
    created = [r for r in results if not isinstance(r, BaseException)]
    assert len(created) == 1
    assert all(isinstance(r, ChannelBusyError) for r in results if r not in created)


async def test_commit_action_appends_moves_and_bumps_version(db: Storage) -> None:
    game = await new_game(db)
    saved = await db.commit_action(
        game.id,
        0,
        '{"turn": "o"}',
        [NewMove(1, "roll", "3-1"), NewMove(1, "play", "8/5 6/5")],
        now=1010.0,
    )
    assert saved.version == 1
    assert saved.state_json == '{"turn": "o"}'
    assert saved.last_action_at == 1010.0
    saved = await db.commit_action(game.id, 1, '{"turn": "x"}', [NewMove(2, "pass")], now=1020.0)
    assert saved.version == 2
    moves = await db.game_moves(game.id)
    assert [(m.seq, m.actor_id, m.kind, m.text, m.at) for m in moves] == [
        (1, 1, "roll", "3-1", 1010.0),
        (2, 1, "play", "8/5 6/5", 1010.0),
        (3, 2, "pass", "", 1020.0),
    ]
    assert await db.get_game(game.id) == saved


async def test_stale_version_is_a_conflict_and_writes_nothing(db: Storage) -> None:
    game = await new_game(db)
    await db.commit_action(game.id, 0, '{"a": 1}', [NewMove(1, "play", "a")], now=1001.0)
    with pytest.raises(ConflictError):
        await db.commit_action(game.id, 0, '{"b": 2}', [NewMove(2, "play", "b")], now=1002.0)
    with pytest.raises(ConflictError):
        await db.save_game_state(game.id, 0, '{"b": 2}', now=1002.0)
    with pytest.raises(ConflictError):
        await db.commit_action(game.id + 99, 0, "{}", [], now=1002.0)
    current = await db.get_game(game.id)
    assert current is not None
    assert (current.version, current.state_json) == (1, '{"a": 1}')
    assert [m.text for m in await db.game_moves(game.id)] == ["a"]


async def test_concurrent_commits_same_version_exactly_one_wins(db: Storage) -> None:
    game = await new_game(db)
    attempts = [
        db.commit_action(game.id, 0, json.dumps({"by": i}), [NewMove(i, "play", f"p{i}")], now=1.0)
        for i in range(1, 9)
    ]
    results = await asyncio.gather(*attempts, return_exceptions=True)
    winners = [r for r in results if not isinstance(r, BaseException)]
    assert len(winners) == 1
    assert sum(isinstance(r, ConflictError) for r in results) == len(results) - 1
    final = await db.get_game(game.id)
    assert final == winners[0]
    assert final is not None and final.version == 1
    moves = await db.game_moves(game.id)
    assert len(moves) == 1
    assert json.loads(final.state_json)["by"] == moves[0].actor_id


async def test_two_connections_same_version_exactly_one_wins(db: Storage, target: str) -> None:
    game = await new_game(db)
    other = await open_storage(target)
    try:
        results = await asyncio.gather(
            db.commit_action(game.id, 0, '{"by": 1}', [NewMove(1, "play", "one")], now=1.0),
            other.commit_action(game.id, 0, '{"by": 2}', [NewMove(2, "play", "two")], now=1.0),
            return_exceptions=True,
        )
    finally:
        await other.close()
    assert sorted(type(r).__name__ for r in results) == ["ConflictError", "Game"]
    moves = await db.game_moves(game.id)
    assert len(moves) == 1
    final = await db.get_game(game.id)
    assert final is not None and final.version == 1
    assert json.loads(final.state_json)["by"] == moves[0].actor_id


async def test_commit_survives_close_and_reopen(target: str) -> None:
    db = await open_storage(target)
    game = await new_game(db)
    await db.commit_action(game.id, 0, '{"n": 1}', [NewMove(1, "play", "24/18")], now=1001.0)
    await db.close()

    db = await open_storage(target)
    try:
        reopened = await db.get_game(game.id)
        assert reopened is not None
        assert (reopened.version, reopened.state_json) == (1, '{"n": 1}')
        assert [m.text for m in await db.game_moves(game.id)] == ["24/18"]
    finally:
        await db.close()


CHILD = """
import asyncio, sys
sys.path.insert(0, sys.argv[3])
from storage import NewMove, open_storage

async def main(target: str, game_id: int) -> None:
    db = await open_storage(target)
    game = await db.get_game(game_id)
    version = game.version
    for n in range(1, 100_000):
        moves = [NewMove(1, "roll", f"roll {n}"), NewMove(1, "play", f"play {n}")]
        game = await db.commit_action(game_id, version, f'{{"n": {n}}}', moves, now=float(n))
        version = game.version
        print(f"committed {n}", flush=True)

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


async def test_committed_actions_survive_kill_9(target: str) -> None:
    db = await open_storage(target)
    game = await new_game(db)
    await db.close()

    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        target,
        str(game.id),
        str(ROOT),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    acknowledged = 0
    try:
        assert proc.stdout is not None
        while acknowledged < 20:
            # A generous safety net against a hung child, not a speed requirement.
            line = await asyncio.wait_for(proc.stdout.readline(), timeout=120)
            if not line:
                assert proc.stderr is not None
                pytest.fail(f"child ended early: {(await proc.stderr.read()).decode()}")
            acknowledged = int(line.split()[1])
    finally:
        if proc.returncode is None:
            os.kill(proc.pid, signal.SIGKILL)  # no chance to close, checkpoint or clean up
        await proc.wait()
    assert proc.returncode == -signal.SIGKILL

    db = await open_storage(target)
    try:
        after = await db.get_game(game.id)
        assert after is not None
        # Everything acknowledged is there; the child may have committed a few more before it
        # died, but state and history are consistent with each other (one transaction each).
        assert after.version >= acknowledged
        n = after.version
        assert json.loads(after.state_json) == {"n": n}
        moves = await db.game_moves(game.id)
        assert [m.seq for m in moves] == list(range(1, 2 * n + 1))
        assert moves[-1].text == f"play {n}"
        # And the database is still writable.
        await db.commit_action(game.id, n, '{"n": "after"}', [NewMove(2, "note", "x")], now=0.0)
    finally:
        await db.close()


async def test_abort_game(db: Storage) -> None:
    game = await new_game(db)
    with pytest.raises(ConflictError):
        await db.abort_game(game.id, now=1100.0, expected_version=5)
    aborted = await db.abort_game(game.id, now=1100.0, moves=[NewMove(None, "abort", "mod")])
    assert aborted.status == "aborted"
    assert aborted.finished_at == 1100.0
    assert aborted.winner_id is None and aborted.result_kind is None
    assert aborted.state_json == game.state_json
    assert await db.get_active_game(CHANNEL) is None
    assert [(m.actor_id, m.kind) for m in await db.game_moves(game.id)] == [(None, "abort")]
    with pytest.raises(ConflictError):
        await db.abort_game(game.id, now=1200.0)
    with pytest.raises(ConflictError):
        await db.commit_action(game.id, aborted.version, "{}", [], now=1200.0)
    # Aborted games are not rated.
    assert await db.player_stats(GUILD, 1) == []
    assert await db.leaderboard_count(GUILD) == 0


async def test_board_message_and_reminded_do_not_bump_version(db: Storage) -> None:
    game = await new_game(db)
    assert await db.set_board_message(game.id, 777)
    assert await db.mark_reminded(game.id, now=5000.0)
    current = await db.get_game(game.id)
    assert current is not None
    assert (current.board_message_id, current.reminded_at, current.version) == (777, 5000.0, 0)
    assert not await db.set_board_message(game.id + 1, 1)
    # An action clears the reminder mark.
    saved = await db.save_game_state(game.id, 0, '{"x": 1}', now=5001.0)
    assert saved.reminded_at is None and saved.version == 1
    assert saved.board_message_id == 777


@pytest.mark.parametrize(
    "call",
    [
        lambda db: db.create_game(GUILD, CHANNEL, "classic", 1, 1, "{}", now=1.0),
        lambda db: db.create_game(GUILD, CHANNEL, "overall", 1, 2, "{}", now=1.0),
        lambda db: db.create_game(GUILD, CHANNEL, "", 1, 2, "{}", now=1.0),
        lambda db: db.create_game(GUILD, CHANNEL, "classic", True, 2, "{}", now=1.0),
        lambda db: db.create_game(GUILD, -1, "classic", 1, 2, "{}", now=1.0),
        lambda db: db.create_game(GUILD, 2**63, "classic", 1, 2, "{}", now=1.0),
        lambda db: db.create_game(GUILD, CHANNEL, "classic", 1, 2, "", now=1.0),
        lambda db: db.create_game(GUILD, CHANNEL, "classic", 1, 2, "{}", now=math.nan),
        lambda db: db.create_game(GUILD, CHANNEL, "classic", 1, 2, "{}", now=1.0, match_length=0),
        lambda db: db.commit_action(1, -1, "{}", [], now=1.0),
        lambda db: db.commit_action(1, 0, "{}", [NewMove(1, "teleport")], now=1.0),
        lambda db: db.commit_action(1, 0, "{}", [("play", "x")], now=1.0),
        lambda db: db.game_moves("1"),
        lambda db: db.recent_games(GUILD, limit=-1),
        lambda db: db.leaderboard(GUILD, limit=10**9),
    ],
)
async def test_bad_input_is_rejected_cleanly(db: Storage, call: object) -> None:
    assert callable(call)
    with pytest.raises(InvalidInputError) as caught:
        await call(db)
    assert isinstance(caught.value, StorageError) and isinstance(caught.value, ValueError)
    # Nothing was written and the connection is still usable.
    assert await db.list_active_games() == []
    await new_game(db)


async def test_a_game_moves_to_the_parent_channel_when_its_thread_is_gone(db: Storage) -> None:
    thread = CHANNEL + 100
    game = await db.create_game(
        GUILD, thread, "classic", 1, 2, '{"turn": "x"}', now=1.0, parent_channel_id=CHANNEL
    )
    assert game.parent_channel_id == CHANNEL and game.home_channel_id == CHANNEL
    await db.set_board_message(game.id, 555, shown_version=0)
    moved = await db.move_to_parent_channel(game.id)
    assert moved is not None and moved.channel_id == CHANNEL and moved.parent_channel_id is None
    assert moved.board_message_id is None and moved.board_owed_version == moved.version
    assert (await db.get_active_game(CHANNEL)) == moved
    assert await db.move_to_parent_channel(game.id) is None  # not in a thread any more
    # A channel with a game of its own keeps it: the thread's game cannot move there.
    other = await db.create_game(
        GUILD, thread + 1, "pin", 3, 4, '{"turn": "x"}', now=2.0, parent_channel_id=CHANNEL
    )
    with pytest.raises(ChannelBusyError):
        await db.move_to_parent_channel(other.id)
    assert (await db.get_game(other.id)).channel_id == thread + 1  # type: ignore[union-attr]
