"""What every repository of :class:`storage.base.Storage` stands on: the backend primitives.

A backend (:mod:`storage.database` for SQLite, :mod:`storage.postgres` for PostgreSQL) supplies
the connection, the transactions and the few things the two engines do differently: how a
writer keeps concurrent read-modify-writes apart (``_lock_guild``, ``_FOR_UPDATE``) and how a
bulk import reserves ids. The repositories (:mod:`storage.repos`) write their SQL once, in the
dialect SQLite and PostgreSQL both accept (``?`` placeholders, which the PostgreSQL backend
numbers), against these primitives only.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from storage.errors import InvalidInputError, StorageError
from storage.models import Shards
from storage.rows import Row


class UniqueViolation(StorageError):
    """A backend's unique-constraint violation (the channel already has an active game or an
    open challenge); the operations turn it into :class:`ChannelBusyError`."""


class Tx(Protocol):
    """One transaction of a backend, with ``?`` placeholders. Driver errors surface as
    :class:`StorageError` (a unique violation as :class:`UniqueViolation`)."""

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; returns the number of rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...


class StorageCore(ABC):
    """The primitives a backend supplies, and the helpers the repositories build on them."""

    #: Appended to a SELECT that reads a row the transaction will update: PostgreSQL's READ
    #: COMMITTED needs the row lock, SQLite's BEGIN IMMEDIATE already excludes other writers.
    _FOR_UPDATE = ""

    @abstractmethod
    def _transaction(self, *, write: bool) -> AbstractAsyncContextManager[Tx]:
        """One transaction, committed at the end and rolled back on any exception (including
        cancellation). ``write=False``: several reads from one snapshot."""

    @abstractmethod
    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """One read statement outside an explicit transaction."""

    @abstractmethod
    async def close(self) -> None:
        """Close the connection(s) (idempotent); waits for running operations."""

    @property
    @abstractmethod
    def closed(self) -> bool: ...

    @property
    @abstractmethod
    def backend(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""

    @abstractmethod
    async def _lock_guild(self, tx: Tx, guild_id: int) -> None:
        """Serialize this transaction against every other one that changes the guild's ratings
        or settings (held until the transaction ends)."""

    @abstractmethod
    async def _import_first_id(self, tx: Tx) -> int:
        """Lock out concurrent writers of ``games`` for a bulk import; the first free game id."""

    @abstractmethod
    async def _import_done(self, tx: Tx) -> None:
        """After a bulk import inserted explicit ids."""

    def _write(self) -> AbstractAsyncContextManager[Tx]:
        return self._transaction(write=True)

    def _read(self) -> AbstractAsyncContextManager[Tx]:
        return self._transaction(write=False)

    async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        rows = await self._fetchall(sql, params)
        return rows[0] if rows else None

    async def _fetch_by_key(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """A read of at most one row found through a unique key (an index lookup, a few
        microseconds): the reads of every command. A backend may answer it more cheaply than
        other reads (SQLite: on the event loop's thread, see Database)."""
        return await self._fetchone(sql, params)


def shard_filter(shards: Shards | None, column: str) -> tuple[str, tuple[int, ...]]:
    """`` AND <column's shard> IN (...)`` for ``shards`` (nothing for None)."""
    if shards is None:
        return "", ()
    if not isinstance(shards, Shards):
        raise InvalidInputError(f"shards must be a Shards, got {shards!r}")
    marks = ", ".join("?" * len(shards.ids))
    return f" AND ({column} >> 22) % ? IN ({marks})", (shards.count, *shards.ids)
