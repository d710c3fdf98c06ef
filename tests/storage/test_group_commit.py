"""Concurrent writes: SQLite commits them in groups (one transaction, one fsync), PostgreSQL
each on its own connection. Both backends must give every write the same answer as if it had
run alone, and nothing may return before it is committed."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from storage import ConflictError, Database, NewMove, Storage
from storage.errors import StorageError

from .conftest import new_game

ROOT = Path(__file__).resolve().parents[2]


async def test_a_burst_of_concurrent_actions_all_commit(db: Storage) -> None:
    games = [await new_game(db, channel=1000 + i, x=1 + 2 * i, o=2 + 2 * i) for i in range(60)]
    results = await asyncio.gather(
        *(
            db.commit_action(
                g.id, g.version, f'{{"n": {g.id}}}', [NewMove(g.player_x, "play", "x")], now=2000.0
            )
            for g in games
        )
    )
    for game, after in zip(games, results, strict=True):
        assert after.version == game.version + 1
        again = await db.get_game(game.id)
        assert again is not None and again.state_json == f'{{"n": {game.id}}}'
        assert [m.text for m in await db.game_moves(game.id)][-1] == "x"


async def test_conflicts_inside_a_group_fail_alone(db: Storage) -> None:
    games = [await new_game(db, channel=2000 + i, x=1 + 2 * i, o=2 + 2 * i) for i in range(20)]
    # Each game gets two writers at the same version: exactly one of each pair wins, and the
    # losers do not take the winners (or anybody else) down with them.
    calls = []
    for game in games:
        for who in ("a", "b"):
            calls.append(
                db.commit_action(
                    game.id, game.version, f'"{who}"', [NewMove(None, "note", who)], now=2000.0
                )
            )
    results = await asyncio.gather(*calls, return_exceptions=True)
    for i, game in enumerate(games):
        pair = results[2 * i : 2 * i + 2]
        wins = [r for r in pair if not isinstance(r, BaseException)]
        assert len(wins) == 1 and sum(isinstance(r, ConflictError) for r in pair) == 1, pair
        stored = await db.get_game(game.id)
        assert stored is not None and stored.version == game.version + 1
        moves = [m.text for m in await db.game_moves(game.id)]
        assert moves.count("a") + moves.count("b") == 1
        assert stored.state_json == f'"{moves[-1]}"'


async def test_a_failing_write_is_undone_alone(db: Storage) -> None:
    games = [await new_game(db, channel=3000 + i, x=1 + 2 * i, o=2 + 2 * i) for i in range(10)]

    async def half_then_fail(game_id: int) -> None:
        async with db._write() as tx:  # a write that changes a row, then fails
            await tx.execute("UPDATE games SET state_json = 'half' WHERE id = ?", (game_id,))
            raise RuntimeError("changed its mind")

    calls = []
    for i, game in enumerate(games):
        if i % 3 == 1:
            calls.append(half_then_fail(game.id))
        else:
            calls.append(db.commit_action(game.id, game.version, '"ok"', [], now=2000.0))
    results = await asyncio.gather(*calls, return_exceptions=True)
    for i, (game, result) in enumerate(zip(games, results, strict=True)):
        stored = await db.get_game(game.id)
        assert stored is not None
        if i % 3 == 1:
            assert isinstance(result, RuntimeError)
            assert stored.state_json == game.state_json and stored.version == game.version
        else:
            assert stored.state_json == '"ok"' and stored.version == game.version + 1


async def test_nothing_returns_before_it_is_committed(db_path: Path) -> None:
    """Each write, the moment it returns, is visible to another connection to the file."""
    db = await Database.open(db_path)
    other = sqlite3.connect(db_path)
    try:
        games = [await new_game(db, channel=4000 + i, x=1 + 2 * i, o=2 + 2 * i) for i in range(40)]
        seen: list[int] = []

        async def act(game_id: int, version: int) -> None:
            await db.commit_action(game_id, version, '"done"', [], now=2000.0)
            row = other.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone()
            seen.append(row[0] - version)

        await asyncio.gather(*(act(g.id, g.version) for g in games))
        assert seen == [1] * len(games)
    finally:
        other.close()
        await db.close()


async def test_a_closed_database_fails_waiting_writes(db_path: Path) -> None:
    db = await Database.open(db_path)
    game = await new_game(db)
    await db.close()
    with pytest.raises(StorageError):
        await db.commit_action(game.id, game.version, '"x"', [], now=2000.0)


WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from storage import Database, NewMove

    async def main(path):
        db = await Database.open(path)
        games = [
            await db.create_game(1, 100 + i, "classic", 2 * i + 1, 2 * i + 2, "0", now=1.0)
            for i in range(50)
        ]
        versions = {g.id: g.version for g in games}
        print("start", games[0].version, flush=True)

        async def play(game_id):
            while True:
                after = await db.commit_action(
                    game_id, versions[game_id], str(versions[game_id] + 1),
                    [NewMove(None, "note", "n")], now=2.0,
                )
                versions[game_id] = after.version
                # The acknowledgement: only ever printed after the write returned.
                print(game_id, after.version, flush=True)

        await asyncio.gather(*(play(g.id) for g in games))

    asyncio.run(main(sys.argv[1]))
    """
)


def test_kill_9_loses_nothing_acknowledged(tmp_path: Path) -> None:
    """Concurrent writers in a process killed with SIGKILL mid-burst: every write it had
    acknowledged is in the file afterwards."""
    path = tmp_path / "bot.services.db"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, cwd=ROOT, text=True
    )
    acknowledged: dict[int, int] = {}
    try:
        assert writer.stdout is not None
        start = int(writer.stdout.readline().split()[1])
        for line in writer.stdout:
            game_id, version = map(int, line.split())
            acknowledged[game_id] = max(version, acknowledged.get(game_id, 0))
            if sum(acknowledged.values()) >= 1500:
                break
        writer.send_signal(signal.SIGKILL)
        # Acknowledgements already in the pipe count too: they were printed before the kill.
        rest, _ = writer.communicate(timeout=10)
    finally:
        writer.kill()
        writer.wait()
    for line in rest.splitlines():
        if line.strip():
            game_id, version = map(int, line.split())
            acknowledged[game_id] = max(version, acknowledged.get(game_id, 0))
    assert len(acknowledged) >= 20
    conn = sqlite3.connect(path)
    try:
        stored = {
            r[0]: (r[1], r[2]) for r in conn.execute("SELECT id, version, state_json FROM games")
        }
        notes = dict(
            conn.execute("SELECT game_id, COUNT(*) FROM moves GROUP BY game_id").fetchall()
        )
    finally:
        conn.close()
    lost = {g: (v, stored[g][0]) for g, v in acknowledged.items() if stored[g][0] < v}
    assert not lost, f"acknowledged but not in the file: {json.dumps(lost)}"
    for game_id, (version, state_json) in stored.items():
        # State and history of each write were committed together.
        assert notes.get(game_id, 0) == version - start
        assert state_json == ("0" if version == start else str(version))


async def test_key_reads_see_committed_writes_only_and_never_wait_for_them(db: Storage) -> None:
    """get_game / get_active_game while another write's transaction is open: the answer is the
    committed row at once (SQLite reads it from its own connection, not behind the group of
    writes), never the open transaction's change; once that write returns, it is seen."""
    game = await new_game(db, channel=5000)
    changed = asyncio.Event()
    release = asyncio.Event()

    async def slow_write() -> None:
        async with db._write() as tx:
            await tx.execute(
                "UPDATE games SET state_json = 'open', version = version + 1 WHERE id = ?",
                (game.id,),
            )
            changed.set()
            await release.wait()

    writer = asyncio.create_task(slow_write())
    await changed.wait()
    reads = asyncio.gather(db.get_game(game.id), db.get_active_game(5000))
    # The write waits for `release`, so a read queued behind it would never finish.
    done, _ = await asyncio.wait({reads}, timeout=30)
    release.set()
    await writer
    assert reads in done
    for seen in reads.result():
        assert seen is not None and (seen.state_json, seen.version) == (
            game.state_json,
            game.version,
        )
    after = await db.get_game(game.id)
    assert after is not None and (after.state_json, after.version) == ("open", game.version + 1)
    active = await db.get_active_game(5000)
    assert active is not None and active.version == game.version + 1


async def test_commit_action_returns_the_row_it_wrote(db: Storage) -> None:
    game = await new_game(db, channel=5100)
    after = await db.commit_action(
        game.id, game.version, '"next"', [NewMove(1, "play", "24/18")], now=3000.0, owe_board=True
    )
    assert after == await db.get_game(game.id)
    assert (after.state_json, after.version, after.last_action_at) == (
        '"next"',
        game.version + 1,
        3000.0,
    )
    assert after.board_owed_version == game.version + 1
    with pytest.raises(ConflictError):
        await db.commit_action(game.id, game.version, '"stale"', [], now=3001.0)


async def test_an_in_memory_database_reads_through_its_one_connection() -> None:
    db = await Database.open(":memory:")
    try:
        game = await new_game(db, channel=5200)
        await db.commit_action(game.id, game.version, '"m"', [], now=2000.0)
        stored = await db.get_active_game(5200)
        assert stored is not None and stored.state_json == '"m"'
    finally:
        await db.close()
