"""Persistence of the bot, the only package that contains SQL: the :class:`Storage` contract
(storage.base, one repository per aggregate in storage.repos) with two backends, SQLite
(storage.database, the default) and PostgreSQL (storage.postgres).

Winner convention: at this boundary a winner is a **user id**. ``finish_game`` takes a
:class:`MatchResult` whose ``winner_id`` is the user id of the match's winner (one of the game's
``player_x`` / ``player_o``; None for a tie or draw), and a finished :class:`Game` reports it the
same way. The engine's results name seats (0/1) instead: the caller converts a seat to a user id
(seat 0 is ``player_x``, seat 1 ``player_o``) before calling storage, and nowhere else.
"""

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
    GAME_CONTEXTS,
    NO_GUILD,
    OVERALL,
    Challenge,
    ComputerRecord,
    FinishedGame,
    Game,
    GameContext,
    GuildSettings,
    ImportedGame,
    LeaderboardRow,
    MatchResult,
    Move,
    NewMove,
    NewPairing,
    PlayerPreferences,
    PlayerStats,
    RatingChange,
    RatingPoint,
    SeasonRow,
    Shards,
    Tournament,
    TournamentEntrant,
    TournamentPairing,
)

__all__ = [
    "GAME_CONTEXTS",
    "NO_GUILD",
    "OVERALL",
    "Challenge",
    "ChannelBusyError",
    "ComputerRecord",
    "ConflictError",
    "Database",
    "DatabaseGoneError",
    "FinishedGame",
    "Game",
    "GameContext",
    "GuildSettings",
    "ImportedGame",
    "InvalidInputError",
    "LeaderboardRow",
    "MatchResult",
    "Move",
    "NewMove",
    "NewPairing",
    "PlayerPreferences",
    "PlayerStats",
    "RatingChange",
    "RatingPoint",
    "SchemaTooNewError",
    "SeasonRow",
    "Shards",
    "Storage",
    "StorageError",
    "Tournament",
    "TournamentEntrant",
    "TournamentPairing",
    "open_storage",
]


async def open_storage(target: str | Path) -> Storage:
    """Open the database at ``target``: a ``postgresql://`` URL selects PostgreSQL, anything
    else is the path of a SQLite file. The schema is brought up to date either way."""
    from storage.postgres import PostgresDatabase, is_postgres_url

    if is_postgres_url(target):
        return await PostgresDatabase.open(str(target))
    return await Database.open(target)
