"""Persistence of the bot, the only package that contains SQL: the :class:`Storage` contract
(storage.base) with two backends, SQLite (storage.database, the default) and PostgreSQL
(storage.postgres)."""

from pathlib import Path

from storage.base import Storage
from storage.database import Database
from storage.errors import (
    ChannelBusyError,
    ConflictError,
    DatabaseGoneError,
    InvalidInputError,
    SchemaTooNewError,
    StorageError,
)
from storage.models import (
    OVERALL,
    Challenge,
    ComputerRecord,
    FinishedGame,
    Game,
    GameResult,
    GuildSettings,
    ImportedGame,
    LeaderboardRow,
    Move,
    NewMove,
    PlayerPreferences,
    PlayerStats,
    RatingChange,
    RatingPoint,
    Shards,
)

__all__ = [
    "OVERALL",
    "Challenge",
    "ChannelBusyError",
    "ComputerRecord",
    "ConflictError",
    "Database",
    "DatabaseGoneError",
    "FinishedGame",
    "Game",
    "GameResult",
    "GuildSettings",
    "ImportedGame",
    "InvalidInputError",
    "LeaderboardRow",
    "Move",
    "NewMove",
    "PlayerPreferences",
    "PlayerStats",
    "RatingChange",
    "RatingPoint",
    "SchemaTooNewError",
    "Shards",
    "Storage",
    "StorageError",
    "open_storage",
]


async def open_storage(target: str | Path) -> Storage:
    """Open the database at ``target``: a ``postgresql://`` URL selects PostgreSQL, anything
    else is the path of a SQLite file. The schema is brought up to date either way."""
    from storage.postgres import PostgresDatabase, is_postgres_url

    if is_postgres_url(target):
        return await PostgresDatabase.open(str(target))
    return await Database.open(target)
