"""Copy a SQLite database of the bot into an empty PostgreSQL database, and verify the copy.

    python -m storage.migrate --from sqlite:data/backgammon.sqlite3 \\
                              --to postgresql://bot:password@localhost/backgammon

Everything is copied with its ids (games, moves, challenges, ratings, rating history, guild
settings, player preferences, tournaments with their entrants and pairings) in ONE PostgreSQL
transaction, so a failure leaves the target empty. The SQLite file is only read (it is first
brought up to the current schema if an older bot wrote it, as the bot itself would). Afterwards
the row count and an id/version checksum of every table are compared on both sides. Stop the
bot while migrating, then start it with DATABASE_URL set.

Exit status: 0 copied and verified, 1 failed (nothing is left half-copied), 2 bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import asyncpg

from storage.database import Database
from storage.errors import StorageError
from storage.postgres import PostgresDatabase, is_postgres_url, redact, sync_sequences
from storage.schema import latest_version, load_migrations

#: Tables in foreign-key order, each with the columns that make a cheap checksum.
TABLES: tuple[tuple[str, str], ...] = (
    ("guild_settings", "guild_id + reminder_after_seconds + claim_after_seconds"),
    ("games", "id + version + score_x + score_o"),
    ("moves", "game_id + seq"),
    ("challenges", "id + COALESCE(game_id, 0)"),
    ("ratings", "user_id + games + wins + points_won"),
    ("rating_history", "id + game_id + user_id"),
    ("player_preferences", "user_id + own_side"),
    ("tournaments", "id + current_round"),
    ("tournament_entrants", "tournament_id + user_id + joined_order"),
    ("tournament_pairings", "id + round + table_no + posted"),
    ("game_reviews", "game_id"),
    ("puzzle_answers", "user_id + solved"),
    ("puzzle_players", "user_id + solved + streak"),
    ("daily_puzzles", "guild_id + channel_id"),
)
BATCH = 5000


class MigrationFailed(Exception):
    """The copy cannot be done or did not verify; the message says why."""


def _sqlite_path(source: str) -> Path:
    if not source.startswith("sqlite:"):
        raise MigrationFailed(f"--from must be sqlite:PATH, got {source!r}")
    path = Path(source.removeprefix("sqlite:").removeprefix("//"))
    if not path.is_file():
        raise MigrationFailed(f"no SQLite database at {str(path)!r}")
    return path


async def _prepare_source(path: Path) -> None:
    """Bring an older file up to the current schema (the same migrations the bot applies)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version < latest_version(load_migrations()):
        db = await Database.open(path)
        await db.close()


def _source_rows(conn: sqlite3.Connection, table: str, columns: Sequence[str]) -> Any:
    cursor = conn.execute(f"SELECT {', '.join(columns)} FROM {table}")
    while batch := cursor.fetchmany(BATCH):
        yield batch


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]


async def migrate(source: str, target: str, *, out: Any = sys.stdout) -> dict[str, int]:
    """Copy and verify; returns the rows copied per table. Raises :class:`MigrationFailed`."""
    path = _sqlite_path(source)
    if not is_postgres_url(target):
        raise MigrationFailed("--to must be a postgresql:// URL")
    await _prepare_source(path)
    # Creates (or checks) the schema, under the migrations' advisory lock.
    await (await PostgresDatabase.open(target, max_size=1)).close()
    copied: dict[str, int] = {}
    sqlite = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        conn = await asyncpg.connect(target)
    except (asyncpg.PostgresError, OSError) as exc:
        sqlite.close()
        raise MigrationFailed(f"cannot connect to the target: {redact(str(exc), target)}") from exc
    try:
        async with conn.transaction():
            for table, _ in TABLES:
                if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table})"):
                    raise MigrationFailed(
                        f"the target database is not empty (table {table} has rows); "
                        "migrate into a new, empty database"
                    )
            for table, _ in TABLES:
                columns = _columns(sqlite, table)
                count = 0
                for batch in _source_rows(sqlite, table, columns):
                    await conn.copy_records_to_table(table, records=batch, columns=columns)
                    count += len(batch)
                copied[table] = count
                print(f"copied {table}: {count} rows", file=out)
            await sync_sequences(conn.fetch)
            for table, checksum in TABLES:
                mine = sqlite.execute(f"SELECT COUNT(*), COALESCE(SUM({checksum}), 0) FROM {table}")
                theirs = await conn.fetchrow(
                    f"SELECT COUNT(*), COALESCE(SUM({checksum}), 0) FROM {table}"
                )
                expected = tuple(int(v) for v in mine.fetchone())
                found = (int(theirs[0]), int(theirs[1]))
                if expected != found:
                    raise MigrationFailed(
                        f"verification failed for {table}: SQLite has {expected[0]} rows "
                        f"(checksum {expected[1]}), PostgreSQL {found[0]} ({found[1]})"
                    )
    except (asyncpg.PostgresError, sqlite3.Error) as exc:
        raise MigrationFailed(f"copy failed and was rolled back: {exc}") from exc
    finally:
        sqlite.close()
        await conn.close()
    print(
        "verified: row counts and checksums match for " + ", ".join(t for t, _ in TABLES),
        file=out,
    )
    return copied


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m storage.migrate",
        description="Copy the bot's SQLite database into an empty PostgreSQL database.",
    )
    parser.add_argument("--from", dest="source", required=True, metavar="sqlite:PATH")
    parser.add_argument("--to", dest="target", required=True, metavar="postgresql://...")
    args = parser.parse_args(argv)
    try:
        _sqlite_path(args.source)
        if not is_postgres_url(args.target):
            raise MigrationFailed("--to must be a postgresql:// URL")
    except MigrationFailed as exc:
        parser.print_usage(sys.stderr)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        asyncio.run(migrate(args.source, args.target))
    except (MigrationFailed, StorageError) as exc:
        print(f"error: {redact(str(exc), args.target)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
