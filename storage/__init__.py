"""Persistence of the bot: SQLite through aiosqlite, the only package that contains SQL."""

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
    "StorageError",
]
