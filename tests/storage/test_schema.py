"""Opening, migrations and schema-version checks of the SQLite backend, against real files
(the PostgreSQL twins are in test_postgres.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from storage import Database, SchemaTooNewError, StorageError
from storage.schema import (
    MIGRATIONS_DIR,
    latest_version,
    load_migrations,
    pending,
    split_statements,
)
from tests.storage.conftest import CHANNEL, GUILD, new_game


def _copy_migrations(tmp_path: Path, extra: dict[str, str]) -> Path:
    directory = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, directory)
    for name, sql in extra.items():
        (directory / name).write_text(sql, encoding="utf-8")
    return directory


async def test_migrates_an_empty_file_to_the_latest_version(db_path: Path) -> None:
    assert not db_path.exists()
    db = await Database.open(db_path)
    try:
        assert db.schema_version == latest_version(load_migrations()) >= 1
        game = await new_game(db)
        assert (await db.get_game(game.id)) == game
    finally:
        await db.close()
    assert db_path.exists()


async def test_connection_settings(db_path: Path) -> None:
    db = await Database.open(db_path)
    try:
        pragmas = await db.pragmas()
        assert db_path.with_name(db_path.name + "-wal").exists()
    finally:
        await db.close()
    assert pragmas["journal_mode"] == "wal"
    assert pragmas["synchronous"] == 2  # FULL
    assert pragmas["foreign_keys"] == 1
    assert int(pragmas["busy_timeout"]) > 0


async def test_reopen_keeps_data_and_does_not_remigrate(db_path: Path) -> None:
    db = await Database.open(db_path)
    game = await new_game(db)
    await db.set_guild_settings(GUILD, reminder_after_seconds=60)
    await db.close()

    again = await Database.open(db_path)
    try:
        assert again.schema_version == db.schema_version
        assert await again.get_active_game(CHANNEL) == game
        assert (await again.get_guild_settings(GUILD)).reminder_after_seconds == 60
    finally:
        await again.close()


async def test_newer_schema_is_refused_untouched(db_path: Path, tmp_path: Path) -> None:
    newer = _copy_migrations(tmp_path, {"0099_future.sql": "CREATE TABLE future (x INTEGER);"})
    db = await Database.open(db_path, migrations_dir=newer)
    game = await new_game(db)
    future_version = db.schema_version
    await db.close()

    with pytest.raises(SchemaTooNewError) as caught:
        await Database.open(db_path)
    assert isinstance(caught.value, StorageError)
    assert caught.value.found == future_version
    assert future_version == 99
    assert caught.value.supported == latest_version(load_migrations())
    assert "newer" in str(caught.value)

    # The refusal wrote nothing: the newer code still finds its data.
    db = await Database.open(db_path, migrations_dir=newer)
    try:
        assert db.schema_version == future_version
        assert await db.get_game(game.id) == game
    finally:
        await db.close()


async def test_upgrade_applies_only_new_migrations(db_path: Path, tmp_path: Path) -> None:
    db = await Database.open(db_path)
    game = await new_game(db)
    base = db.schema_version
    await db.close()

    newer = _copy_migrations(
        tmp_path, {f"{base + 1:04d}_add_table.sql": "CREATE TABLE extra (x INTEGER);\n"}
    )
    db = await Database.open(db_path, migrations_dir=newer)
    try:
        assert db.schema_version == base + 1
        assert await db.get_game(game.id) == game
    finally:
        await db.close()


async def test_failing_migration_is_rolled_back(db_path: Path, tmp_path: Path) -> None:
    db = await Database.open(db_path)
    base = db.schema_version
    await db.close()

    broken = _copy_migrations(
        tmp_path,
        {
            f"{base + 1:04d}_broken.sql": (
                "CREATE TABLE half_done (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n"
            )
        },
    )
    with pytest.raises(StorageError, match="rolled back"):
        await Database.open(db_path, migrations_dir=broken)

    # Version unchanged and the first statement undone: fixing the migration then works.
    (broken / f"{base + 1:04d}_broken.sql").write_text(
        "CREATE TABLE half_done (x INTEGER);\n", encoding="utf-8"
    )
    db = await Database.open(db_path, migrations_dir=broken)
    try:
        assert db.schema_version == base + 1
    finally:
        await db.close()


async def test_not_a_database_is_a_storage_error(db_path: Path) -> None:
    db_path.write_bytes(b"this is not an sqlite database" * 100)
    with pytest.raises(StorageError):
        await Database.open(db_path)


async def test_closed_database_raises_storage_error(db_path: Path) -> None:
    db = await Database.open(db_path)
    await db.close()
    await db.close()  # idempotent
    assert db.closed
    with pytest.raises(StorageError, match="closed"):
        await db.get_game(1)


def test_split_statements_keeps_triggers_whole_and_drops_empty_chunks() -> None:
    script = (
        "-- a comment\n"
        "CREATE TABLE t (x INTEGER); -- trailing\n"
        "CREATE TRIGGER tr AFTER INSERT ON t BEGIN\n"
        "  UPDATE t SET x = 1;\n"
        "END;\n"
        ";\n"
        "-- the end\n"
    )
    statements = split_statements(script)
    assert len(statements) == 2
    assert "CREATE TABLE t (x INTEGER);" in statements[0]
    assert statements[1].startswith("CREATE TRIGGER")
    assert statements[1].endswith("END;")
    with pytest.raises(StorageError, match="incomplete"):
        split_statements("CREATE TABLE t (x INTEGER)")


def test_migrations_are_numbered_once_each_and_applied_in_order(tmp_path: Path) -> None:
    """Numbers may skip while branches reserve their own (0012 before 0010 and 0011 are
    merged); each number once, and a database at version v applies those above v."""
    directory = _copy_migrations(tmp_path, {})
    migrations = load_migrations(directory)
    versions = [m.version for m in migrations]
    assert versions == sorted(set(versions)) and versions[0] == 1
    assert [m.version for m in pending(migrations, 5)] == [v for v in versions if v > 5]
    assert pending(migrations, latest_version(migrations)) == ()
    first = migrations[0].name
    shutil.copy(directory / first, directory / first.replace("_", "_dup_", 1))
    with pytest.raises(StorageError, match="two migrations"):
        load_migrations(directory)
