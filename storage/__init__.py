"""Persistence of the bot, the only package that contains SQL: the :class:`Storage` contract
(storage.base) with two backends, SQLite (storage.database, the default) and PostgreSQL
(storage.postgres)."""

from storage.base import Storage
from storage.database import Database
from storage.errors import (
    ChannelBusyError,
    ConflictError,
    InvalidInputError,
    SchemaTooNewError,
    StorageError,
)
from storage.models import (
    OVERALL,
    Challenge,
    FinishedGame,
    Game,
    GameResult,
    GuildSettings,
    ImportedGame,
    LeaderboardRow,
    Move,
    NewMove,
    PlayerStats,
    RatingChange,
    RatingPoint,
)

__all__ = [
    "OVERALL",
    "Challenge",
    "ChannelBusyError",
    "ConflictError",
    "Database",
    "FinishedGame",
    "Game",
    "GameResult",
    "GuildSettings",
    "ImportedGame",
    "InvalidInputError",
    "LeaderboardRow",
    "Move",
    "NewMove",
    "PlayerStats",
    "RatingChange",
    "RatingPoint",
    "SchemaTooNewError",
    "Storage",
    "StorageError",
]
