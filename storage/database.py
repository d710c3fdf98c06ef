"""The SQLite backend of :class:`storage.base.Storage` (aiosqlite), the embedded default.

Every method runs on one aiosqlite connection and takes an ``asyncio.Lock`` around its work, so
two coroutines never interleave statements inside each other's transaction (aiosqlite shares
one connection, and therefore one transaction, between all its callers). Writes run in
``BEGIN IMMEDIATE`` transactions: the write lock is taken up front, so a read-then-write (a
version check, a rating read) cannot be overtaken by another connection to the same file.

Group commit: writes that arrive while others are waiting share one transaction. Each runs in
turn inside its own SAVEPOINT (a write that fails is rolled back to it alone, the others go
on), then one COMMIT (one fsync) makes the whole group durable, and only then does any of them
return. So nothing is acknowledged before it is on disk, while a burst of 100 moves costs one
commit instead of 100 fsyncs one after another.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
from collections import deque
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite

from storage.base import Storage
from storage.core import Tx, UniqueViolation
from storage.errors import DatabaseGoneError, InvalidInputError, SchemaTooNewError, StorageError
from storage.rows import Row
from storage.schema import MIGRATIONS_DIR, Migration, latest_version, load_migrations, pending

#: Longest a writer waits for another connection's write lock before failing.
BUSY_TIMEOUT_MS = 5000
#: Most writes committed together (a bound on how long the first of a group waits).
GROUP_LIMIT = 64

log = logging.getLogger(__name__)


def _identity(path: str) -> tuple[int, int] | None:
    """The file's (device, inode); None for an in-memory database."""
    if path == ":memory:" or path.startswith("file:"):
        return None
    info = os.stat(path)
    return info.st_dev, info.st_ino


class _SqliteTx:
    """:class:`storage.core.Tx` over the connection, inside ``Database._transaction``."""

    __slots__ = ("_conn",)

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        try:
            return list(await self._conn.execute_fetchall(sql, params))
        except sqlite3.IntegrityError as exc:
            raise _unique_or_error(exc) from exc

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        try:
            cursor = await self._conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            raise _unique_or_error(exc) from exc
        return cursor.rowcount

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        try:
            await self._conn.executemany(sql, rows)
        except sqlite3.IntegrityError as exc:
            raise _unique_or_error(exc) from exc


@dataclass(eq=False, slots=True)
class _Writer:
    """One write waiting for, running in, or committed with a group."""

    #: Set by the group's task when it is this write's turn (the connection, in a transaction).
    turn: asyncio.Future[aiosqlite.Connection]
    #: Set by the write when its work ended: True if it is to be committed.
    done: asyncio.Future[bool]
    #: Set by the group's task once the COMMIT returned (or with the error that lost it).
    committed: asyncio.Future[None]


def _settle(future: asyncio.Future[Any], value: object = None) -> None:
    if not future.done():
        if isinstance(value, BaseException):
            future.set_exception(value)
        else:
            future.set_result(value)


def _unique_or_error(exc: sqlite3.IntegrityError) -> StorageError:
    if str(exc).startswith("UNIQUE constraint failed"):
        return UniqueViolation(str(exc))
    return StorageError(str(exc))


class Database(Storage):
    """The bot's SQLite database. Create with ``await Database.open(path)``."""

    def __init__(
        self,
        conn: aiosqlite.Connection,
        path: str,
        schema_version: int,
        reader: sqlite3.Connection | None = None,
    ) -> None:
        self._conn: aiosqlite.Connection | None = conn
        #: Read-only connection for the key lookups, used on the event loop's thread (see
        #: _fetch_by_key); None for an in-memory database (a second connection would be
        #: another database).
        self._reader = reader
        self._lock = asyncio.Lock()
        self.path = path
        self.schema_version = schema_version
        # The open connection keeps writing to this inode even after the file is deleted or
        # replaced, and such writes vanish at the next start: compare before every use.
        self._identity = _identity(path)
        self._gone: str | None = None
        self._writers: deque[_Writer] = deque()
        self._grouper: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        migrations_dir: Path = MIGRATIONS_DIR,
        synchronous: str = "FULL",
    ) -> Database:
        """Open (creating if needed) the database at ``path`` and bring its schema up to date.

        Raises :class:`SchemaTooNewError` if the file was migrated by newer code, and
        :class:`StorageError` if it cannot be opened or migrated (nothing is half-applied).

        Durability: WAL mode with ``synchronous=NORMAL`` already survives a *process* crash
        (kill -9) - a commit is in the WAL file, i.e. in the OS page cache, before COMMIT
        returns - but an OS crash or power cut can lose the last commits because the WAL is
        only fsync'ed at checkpoints. ``FULL`` fsyncs the WAL at every commit, so an accepted
        move survives both. A turn-based chat game commits a few times per minute, and an
        fsync per commit is a fraction of a millisecond to a few ms (bench/storage.py prints
        it), so FULL costs nothing users notice. ``synchronous`` is a parameter only so that
        benchmarks can compare.
        """
        if synchronous.upper() not in ("FULL", "NORMAL", "EXTRA"):
            raise InvalidInputError(f"unsupported synchronous mode {synchronous!r}")
        migrations = load_migrations(migrations_dir)
        try:
            conn = await aiosqlite.connect(str(path), isolation_level=None)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open database {path}: {exc}") from exc
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            # journal_mode=WAL is persistent; readers never block the writer and vice versa.
            await conn.execute_fetchall("PRAGMA journal_mode = WAL")
            await conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
            await conn.execute("PRAGMA foreign_keys = ON")
            version = await cls._migrate(conn, migrations)
        except BaseException as exc:
            await conn.close()
            if isinstance(exc, sqlite3.Error):
                raise StorageError(f"cannot open database {path}: {exc}") from exc
            raise
        reader = None
        if _identity(str(path)) is not None:
            try:
                reader = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
                reader.row_factory = sqlite3.Row
                # Never wait on the event loop: a busy read takes the ordinary path instead.
                reader.execute("PRAGMA busy_timeout = 0")
                reader.execute("PRAGMA query_only = ON")
            except sqlite3.Error as exc:
                log.warning("no direct reads from %s: %s", path, exc)
                if reader is not None:
                    reader.close()
                reader = None
        return cls(conn, str(path), version, reader)

    @staticmethod
    async def _migrate(conn: aiosqlite.Connection, migrations: Sequence[Migration]) -> int:
        latest = latest_version(migrations)
        version = await _user_version(conn)
        if version > latest:
            raise SchemaTooNewError(version, latest)
        for migration in pending(migrations, version):
            await conn.execute("BEGIN IMMEDIATE")
            try:
                # Re-read under the write lock: another process may have migrated meanwhile.
                current = await _user_version(conn)
                if current > latest:
                    raise SchemaTooNewError(current, latest)
                if current < migration.version:
                    for statement in migration.statements:
                        await conn.execute(statement)
                    await conn.execute(f"PRAGMA user_version = {migration.version}")
                await conn.execute("COMMIT")
            except BaseException as exc:
                await conn.rollback()
                if isinstance(exc, sqlite3.Error):
                    raise StorageError(
                        f"migration {migration.name} failed and was rolled back: {exc}"
                    ) from exc
                raise
        return await _user_version(conn)

    async def close(self) -> None:
        """Close the connection (idempotent). Waits for a running operation to finish."""
        async with self._lock:
            conn, self._conn = self._conn, None
            reader, self._reader = self._reader, None
            if reader is not None:
                reader.close()
            if conn is not None:
                await conn.close()

    @property
    def closed(self) -> bool:
        return self._conn is None

    @property
    def backend(self) -> str:
        return "sqlite"

    async def pragmas(self) -> dict[str, int | str]:
        """The connection settings in force (for diagnostics and tests)."""
        report: dict[str, int | str] = {}
        async with self._lock:
            conn = self._connection()
            for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout"):
                rows = await conn.execute_fetchall(f"PRAGMA {name}")
                report[name] = next(iter(rows))[0]
        return report

    # ------------------------------------------------------------------ plumbing

    def _connection(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise StorageError("the database is closed")
        self._check_file()
        return self._conn

    def _check_file(self) -> None:
        """Raise :class:`DatabaseGoneError` once the file at ``path`` is not the one opened."""
        if self._gone is None and self._identity is not None:
            try:
                now = _identity(self.path)
            except OSError as exc:
                self._gone = f"the database file {self.path} is gone ({exc.strerror})"
            else:
                if now != self._identity:
                    self._gone = f"the database file {self.path} was replaced by another file"
            if self._gone is not None:
                log.critical(
                    "%s while the bot was running: no action is accepted any more, because "
                    "it would not be there after a restart. Restore the file and restart.",
                    self._gone,
                )
        if self._gone is not None:
            raise DatabaseGoneError(self._gone)

    @asynccontextmanager
    async def _transaction(self, *, write: bool) -> AsyncIterator[_SqliteTx]:
        """BEGIN IMMEDIATE for a write (no other writer can overtake it; see the group commit
        in the module's docstring), a deferred BEGIN for reads from one snapshot; sqlite3
        errors surface as StorageError."""
        if write:
            async with self._group_write() as tx:
                yield tx
            return
        async with self._lock:
            conn = self._connection()
            try:
                await conn.execute("BEGIN")
                yield _SqliteTx(conn)
                await conn.execute("COMMIT")
            except BaseException as exc:
                # A no-op if BEGIN itself failed. Queued after any statement still running.
                await conn.rollback()
                if isinstance(exc, sqlite3.Error):
                    raise StorageError(str(exc)) from exc
                raise

    @asynccontextmanager
    async def _group_write(self) -> AsyncIterator[_SqliteTx]:
        """One write inside the current group's transaction; returns once it is committed."""
        loop = asyncio.get_running_loop()
        me = _Writer(loop.create_future(), loop.create_future(), loop.create_future())
        self._writers.append(me)
        if self._grouper is None or self._grouper.done():
            self._grouper = loop.create_task(self._run_groups(), name="sqlite-group-commit")
        ok = False
        try:
            conn = await me.turn
            try:
                await conn.execute("SAVEPOINT w")
                yield _SqliteTx(conn)
            except BaseException:
                # This write alone is undone (its savepoint stays open until the COMMIT, which
                # releases it together with the others').
                with contextlib.suppress(sqlite3.Error, ValueError):
                    await conn.execute("ROLLBACK TO w")
                raise
            ok = True
        except sqlite3.Error as exc:
            raise StorageError(str(exc)) from exc
        finally:
            _settle(me.done, ok)
        await me.committed

    async def _run_groups(self) -> None:
        """Run the waiting writes in groups, one transaction and one COMMIT per group."""
        while self._writers:
            async with self._lock:
                try:
                    conn = self._connection()
                    await conn.execute("BEGIN IMMEDIATE")
                except BaseException as exc:
                    error = StorageError(str(exc)) if isinstance(exc, sqlite3.Error) else exc
                    while self._writers:
                        _settle(self._writers.popleft().turn, error)
                    if isinstance(exc, asyncio.CancelledError):
                        raise
                    return
                members: list[_Writer] = []
                try:
                    while self._writers and len(members) < GROUP_LIMIT:
                        writer = self._writers.popleft()
                        if writer.turn.done():  # cancelled while it waited
                            continue
                        writer.turn.set_result(conn)
                        if await writer.done:
                            members.append(writer)
                        if not conn.in_transaction:  # an error made SQLite roll back it all
                            raise StorageError("the transaction was rolled back by SQLite")
                    self._check_file()  # never commit into a file that is gone
                    await conn.execute("COMMIT")
                except BaseException as exc:
                    with contextlib.suppress(Exception):
                        await conn.rollback()
                    error = StorageError(str(exc)) if isinstance(exc, sqlite3.Error) else exc
                    for member in members:
                        _settle(member.committed, error)
                    if isinstance(exc, asyncio.CancelledError):
                        while self._writers:
                            _settle(self._writers.popleft().turn, StorageError("closed"))
                        raise
                    continue
                for member in members:
                    _settle(member.committed)

    async def _lock_guild(self, tx: Tx, guild_id: int) -> None:
        """Nothing to do: BEGIN IMMEDIATE already excludes every other writer of the file."""

    async def _import_first_id(self, tx: Tx) -> int:
        rows = await tx.fetchall("SELECT COALESCE(MAX(id), 0) FROM games")
        return int(rows[0][0]) + 1

    async def _import_done(self, tx: Tx) -> None:
        """Nothing to do: an INTEGER PRIMARY KEY continues after the largest id."""

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        async with self._lock:
            conn = self._connection()
            try:
                return list(await conn.execute_fetchall(sql, params))
            except sqlite3.Error as exc:
                raise StorageError(str(exc)) from exc

    async def _fetch_by_key(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """A unique-key lookup, read on the event loop's thread from the read-only
        connection: it costs a few microseconds there, less than the trip to the aiosqlite
        thread and back (two such reads per move), and it does not wait behind a group of
        writes holding the lock. In WAL mode it sees every committed write and nothing
        uncommitted, so a write that returned (committed) is always seen. Busy (another
        process recovering the WAL): the ordinary path."""
        reader = self._reader
        if reader is None:
            return await self._fetchone(sql, params)
        self._connection()  # closed, or the file gone: the same error as every other use
        try:
            # fetchall: the statement ends here, so no read snapshot stays open (an open
            # one would stop checkpoints from completing).
            rows = reader.execute(sql, params).fetchall()
        except sqlite3.OperationalError:
            return await self._fetchone(sql, params)
        except sqlite3.Error as exc:
            raise StorageError(str(exc)) from exc
        return rows[0] if rows else None


async def _user_version(conn: aiosqlite.Connection) -> int:
    rows = await conn.execute_fetchall("PRAGMA user_version")
    return int(next(iter(rows))[0])
