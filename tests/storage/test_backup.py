"""python -m storage backup / restore: real SQLite files, real processes (the command, and a
writer committing through Storage while the backup runs)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from storage import Database, Storage
from storage.__main__ import main
from storage.backup import BackupError, backup, restore
from tests.storage.backup_writer import FIRST_CHANNEL
from tests.storage.test_migrate import _fill, _snapshot

ROOT = Path(__file__).resolve().parents[2]


def _storage_cli(cwd: Path, database: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m storage ...`` as an operator runs it, configured like the bot."""
    env = {
        **os.environ,
        "DATABASE_PATH": str(database),
        "DATABASE_URL": "",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [sys.executable, "-m", "storage", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _tables(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, as SQLite stores them."""
    with sqlite3.connect(path) as conn:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        return {n: conn.execute(f'SELECT * FROM "{n}" ORDER BY 1, 2').fetchall() for n in names}


async def test_a_restored_backup_holds_everything(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    db = await Database.open(live)
    try:
        ids = await _fill(db)
        expected = await _snapshot(db, ids)
        # Taken while the bot has the file open, as it would be in production.
        made = _storage_cli(tmp_path, live, "backup", "backups/copy.sqlite3")
        assert made.returncode == 0, made.stderr
        assert "integrity check ok" in made.stdout
        assert "  games " in made.stdout and "  challenges " in made.stdout
    finally:
        await db.close()
    copy = tmp_path / "backups" / "copy.sqlite3"
    assert sorted(p.name for p in copy.parent.iterdir()) == ["copy.sqlite3"]

    restored = tmp_path / "restored" / "bot.sqlite3"
    done = _storage_cli(tmp_path, restored, "restore", str(copy))
    assert done.returncode == 0, done.stderr
    assert _tables(restored) == _tables(live)
    again: Storage = await Database.open(restored)
    try:
        assert await _snapshot(again, ids) == expected
    finally:
        await again.close()


async def test_restore_refuses_an_existing_database_unless_forced_and_never_one_in_use(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source.sqlite3"
    db = await Database.open(source)
    await db.set_guild_settings(5, reminder_after_seconds=77)
    await db.close()
    copy = tmp_path / "copy.sqlite3"
    backup(source, copy)
    with pytest.raises(BackupError, match="exists"):
        backup(source, copy)

    target = tmp_path / "bot.sqlite3"
    running = await Database.open(target)  # the bot, with a game in its WAL
    await running.create_game(1, 2, "classic", 3, 4, "{}", now=1.0)
    try:
        with pytest.raises(BackupError, match="pass --force"):
            restore(copy, target)
        with pytest.raises(BackupError, match="stop the bot"):
            restore(copy, target, force=True)
    finally:
        await running.close()
    restore(copy, target, force=True)
    # The old WAL is gone with the old file, so nothing of it is replayed into the new one.
    assert not Path(f"{target}-wal").exists() and not Path(f"{target}-journal").exists()
    db = await Database.open(target)
    try:
        assert (await db.get_guild_settings(5)).reminder_after_seconds == 77
        assert await db.get_game(1) is None
    finally:
        await db.close()


def test_restore_checks_the_backup_first(tmp_path: Path) -> None:
    target = tmp_path / "bot.sqlite3"
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"not a database" * 100)
    with pytest.raises(BackupError):
        restore(garbage, target)
    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(BackupError, match="not a database of this bot"):
        restore(foreign, target)
    with sqlite3.connect(foreign) as conn:
        conn.execute("PRAGMA user_version = 999")
    with pytest.raises(BackupError, match="newer than this code"):
        restore(foreign, target)
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["foreign.sqlite3", "garbage.sqlite3"]


def test_a_postgresql_database_is_pointed_to_pg_dump(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env here
    url = "postgresql://bot:secret@localhost/backgammon"
    assert main(["backup", "x.dump"], {"DATABASE_URL": url}) == 2
    err = capsys.readouterr().err
    assert 'pg_dump --format=custom --file=backgammon.dump "$DATABASE_URL"' in err
    assert "secret" not in err
    assert not (tmp_path / "x.dump").exists()


async def test_a_backup_during_writes_is_a_consistent_prefix(tmp_path: Path) -> None:
    live = tmp_path / "live.sqlite3"
    await (await Database.open(live)).close()
    stop = tmp_path / "stop"
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.storage.backup_writer", str(live), str(stop)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    try:
        for line in writer.stdout:  # the writer is well under way
            if int(line) >= 20:
                break
        made = _storage_cli(tmp_path, live, "backup", "copy.sqlite3")
        assert made.returncode == 0, made.stderr
        copy = tmp_path / "copy.sqlite3"
        games, writes = await _writes_in(copy)
        # The writer went on past the snapshot: the backup was taken while it wrote.
        for line in writer.stdout:
            if int(line) > writes:
                break
        else:
            pytest.fail("the writer stopped")
    finally:
        stop.touch()
        writer.wait(timeout=60)
    assert writer.returncode == 0
    assert writes >= 20
    # A prefix of the writes: games 1..n, each but maybe the last with its move.
    assert [g[0] for g in games] == list(range(1, len(games) + 1))
    assert all(g[1:] == (1, 1) for g in games[:-1])
    assert games[-1][1:] in ((0, 0), (1, 1))


async def _writes_in(path: Path) -> tuple[list[tuple[int, int, int]], int]:
    """(id, version, moves) of the writer's games in the file, and the writes they make."""
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    db = await Database.open(path)
    try:
        games = []
        for game in await db.list_active_games():
            assert game.channel_id == FIRST_CHANNEL + 2 * (game.id - 1)
            games.append((game.id, game.version, len(await db.game_moves(game.id))))
    finally:
        await db.close()
    games.sort()
    return games, sum(1 + version for _, version, _ in games)
