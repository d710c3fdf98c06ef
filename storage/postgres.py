"""The PostgreSQL backend of :class:`storage.base.Storage` (asyncpg), for several bot processes
sharing one database.

The operations and their SQL are the shared ones of :mod:`storage.repos`; this module supplies
the connection pool, the transactions and the migrations, and makes the read-modify-writes safe
under PostgreSQL's default READ COMMITTED isolation, where (unlike SQLite's BEGIN IMMEDIATE)
two writers run side by side:

* a single conditional ``UPDATE ... WHERE version = ?`` is safe as it is (the second writer
  waits for the first and re-checks the condition on the new row);
* a game that is read and then rewritten (``finish_game``) is read ``FOR UPDATE``;
* whatever rewrites a guild's ratings or settings from what it read first takes a transaction
  advisory lock on the guild id (rows that do not exist yet cannot be row-locked);
* migrations run under a session advisory lock, so processes starting together apply each
  migration once.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import asyncpg

from storage.base import Storage
from storage.core import Tx, UniqueViolation
from storage.errors import SchemaTooNewError, StorageError
from storage.rows import Row
from storage.schema import MIGRATIONS_DIR, Migration, latest_version, load_migrations, pending

PG_MIGRATIONS_DIR = MIGRATIONS_DIR / "postgresql"
#: The two-int advisory lock key of the migrations (the one-bigint key space, used for guild
#: locks, does not overlap with it). 0x62676d6e = "bgmn".
_MIGRATION_LOCK = (0x62676D6E, 1)
_DRIVER_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError)


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


@lru_cache(maxsize=512)
def _numbered(sql: str) -> str:
    """``?`` placeholders -> ``$1, $2, ...`` (the shared SQL has no ``?`` inside literals)."""
    counter = iter(range(1, sql.count("?") + 1))
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)


def _changed(status: str) -> int:
    """Rows changed, from a command status such as ``UPDATE 3`` or ``INSERT 0 1``."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class _PgTx:
    """:class:`storage.core.Tx` over one pooled connection inside a transaction."""

    __slots__ = ("_conn",)

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        try:
            return list(await self._conn.fetch(_numbered(sql), *params))
        except asyncpg.UniqueViolationError as exc:
            raise UniqueViolation(str(exc)) from exc

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        try:
            return _changed(await self._conn.execute(_numbered(sql), *params))
        except asyncpg.UniqueViolationError as exc:
            raise UniqueViolation(str(exc)) from exc

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        try:
            await self._conn.executemany(_numbered(sql), rows)
        except asyncpg.UniqueViolationError as exc:
            raise UniqueViolation(str(exc)) from exc


class PostgresDatabase(Storage):
    """The bot's PostgreSQL database. Create with ``await PostgresDatabase.open(url)``."""

    _FOR_UPDATE = " FOR UPDATE"

    def __init__(self, pool: asyncpg.Pool, url: str, schema_version: int) -> None:
        self._pool: asyncpg.Pool | None = pool
        self.url = url
        self.schema_version = schema_version

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        migrations_dir: Path = PG_MIGRATIONS_DIR,
        min_size: int = 1,
        max_size: int = 10,
    ) -> PostgresDatabase:
        """Connect to ``url`` (``postgresql://user:password@host:port/database``) and bring the
        schema up to date. Raises :class:`SchemaTooNewError` if a newer bot migrated it, and
        :class:`StorageError` if it cannot connect or migrate (nothing is half-applied)."""
        migrations = load_migrations(migrations_dir)
        try:
            pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size, timeout=30)
        except (*_DRIVER_ERRORS, ValueError) as exc:
            raise StorageError(f"cannot connect to PostgreSQL: {redact(str(exc), url)}") from exc
        try:
            async with pool.acquire() as conn:
                version = await migrate(conn, migrations)
        except BaseException as exc:
            await pool.close()
            if isinstance(exc, _DRIVER_ERRORS):
                raise StorageError(f"cannot migrate the PostgreSQL database: {exc}") from exc
            raise
        return cls(pool, url, version)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    @property
    def closed(self) -> bool:
        return self._pool is None

    @property
    def backend(self) -> str:
        return "postgresql"

    def _pool_or_fail(self) -> asyncpg.Pool:
        if self._pool is None:
            raise StorageError("the database is closed")
        return self._pool

    @asynccontextmanager
    async def _transaction(self, *, write: bool) -> AsyncIterator[_PgTx]:
        try:
            async with self._pool_or_fail().acquire() as conn:
                # Reads that must agree with each other (a leaderboard page and its rank
                # count) see one snapshot.
                transaction = conn.transaction(
                    isolation="read_committed" if write else "repeatable_read", readonly=not write
                )
                async with transaction:
                    yield _PgTx(conn)
        except _DRIVER_ERRORS as exc:
            raise StorageError(str(exc)) from exc

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        try:
            return list(await self._pool_or_fail().fetch(_numbered(sql), *params))
        except _DRIVER_ERRORS as exc:
            raise StorageError(str(exc)) from exc

    async def _lock_guild(self, tx: Tx, guild_id: int) -> None:
        await tx.fetchall("SELECT pg_advisory_xact_lock(?)", (guild_id,))

    async def _import_first_id(self, tx: Tx) -> int:
        # EXCLUSIVE also conflicts with finish_game's first statement (SELECT ... FOR UPDATE),
        # so a finish never holds a guild lock the import then waits for.
        await tx.execute("LOCK TABLE games IN EXCLUSIVE MODE")
        rows = await tx.fetchall("SELECT COALESCE(MAX(id), 0) FROM games")
        return int(rows[0][0]) + 1

    async def _import_done(self, tx: Tx) -> None:
        await sync_sequences(tx.fetchall)


async def sync_sequences(fetch: Callable[[str], Awaitable[object]]) -> None:
    """Move each identity sequence past the largest id (after rows were copied with their ids);
    ``fetch`` runs one statement (a Tx's ``fetchall`` or a connection's ``fetch``)."""
    for table in ("games", "challenges", "rating_history", "tournaments", "tournament_pairings"):
        await fetch(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
            f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {table}), false)"
        )


async def schema_version(conn: asyncpg.Connection) -> int:
    """The applied schema version (0 for an empty database)."""
    exists = await conn.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))


async def migrate(conn: asyncpg.Connection, migrations: Sequence[Migration]) -> int:
    """Apply the missing migrations, each in its own transaction with its version row, under a
    session advisory lock: processes starting together wait for each other and each migration
    runs once."""
    latest = latest_version(migrations)
    await conn.execute("SELECT pg_advisory_lock($1, $2)", *_MIGRATION_LOCK)
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        version = await schema_version(conn)
        if version > latest:
            raise SchemaTooNewError(version, latest)
        for migration in pending(migrations, version):
            try:
                async with conn.transaction():
                    for statement in migration.statements:
                        await conn.execute(statement)
                    await conn.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                        migration.version,
                        migration.name,
                    )
            except _DRIVER_ERRORS as exc:
                raise StorageError(
                    f"migration {migration.name} failed and was rolled back: {exc}"
                ) from exc
        return await schema_version(conn)
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1, $2)", *_MIGRATION_LOCK)


def redact(message: str, url: str) -> str:
    """The message without the URL's password (driver errors may quote the DSN)."""
    match = re.match(r"^[a-z]+://[^:/@]*:([^@]*)@", url)
    return message.replace(match.group(1), "***") if match and match.group(1) else message
