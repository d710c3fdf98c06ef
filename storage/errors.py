"""Exceptions raised by the storage layer. Catch :class:`StorageError` to catch them all."""

from __future__ import annotations


class StorageError(Exception):
    """A database operation failed (I/O error, locked database, corrupt file, ...)."""


class SchemaTooNewError(StorageError):
    """The database was written by a newer version of the bot; refusing to touch it."""

    def __init__(self, found: int, supported: int) -> None:
        super().__init__(
            f"database schema version {found} is newer than the {supported} this code knows; "
            "upgrade the bot (or restore a backup) instead of running an older version on it"
        )
        self.found = found
        self.supported = supported


class DatabaseGoneError(StorageError):
    """The database file was deleted or replaced while the bot had it open: anything written
    now would go to a file nobody will read again, so nothing is accepted until a restart."""


class ConflictError(StorageError):
    """An optimistic-concurrency check failed: the row changed (or ended) since it was read.

    The caller should reload the game / challenge and decide again.
    """


class ChannelBusyError(StorageError):
    """The channel already has an active game (or an open challenge)."""


class InvalidInputError(StorageError, ValueError):
    """An argument is out of range or inconsistent (e.g. a winner who is not a player)."""
