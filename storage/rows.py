"""Column lists and row -> domain object conversion, shared by every storage backend.

A row is anything indexable by column name and by position and iterable over its values:
``sqlite3.Row`` and ``asyncpg.Record`` both are.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, cast

from engine.variants.base import ResultKind
from storage.models import (
    Challenge,
    ChallengeStatus,
    Game,
    GameContext,
    GameStatus,
    PlayerStats,
)


class Row(Protocol):
    def __getitem__(self, key: Any, /) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __len__(self) -> int: ...


GAME_COLUMNS = (
    "id, guild_id, channel_id, variant, player_x, player_o, match_length, status, state_json, "
    "version, board_message_id, created_at, last_action_at, reminded_at, finished_at, "
    "winner_id, result_kind, points, score_x, score_o, ai_level, rated, hints, board_owed_version, "
    "parent_channel_id, context"
)
CHALLENGE_COLUMNS = (
    "id, guild_id, channel_id, challenger_id, opponent_id, variant, match_length, message_id, "
    "status, created_at, expires_at, game_id, options, hints, retire_owed"
)
STATS_COLUMNS = (
    "guild_id",
    "variant",
    "user_id",
    "rating",
    "rd",
    "volatility",
    "games",
    "wins",
    "losses",
    "draws",
    "points_won",
    "points_lost",
    "gammons_won",
    "backgammons_won",
    "mother_wins",
    "current_streak",
    "best_streak",
    "last_played_at",
)
STATS_SELECT = ", ".join(STATS_COLUMNS)


def prefixed(columns: str, alias: str) -> str:
    return ", ".join(f"{alias}.{c.strip()}" for c in columns.split(","))


def game_from_row(row: Row) -> Game:
    return Game(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        variant=row["variant"],
        player_x=row["player_x"],
        player_o=row["player_o"],
        match_length=row["match_length"],
        status=cast(GameStatus, row["status"]),
        state_json=row["state_json"],
        version=row["version"],
        board_message_id=row["board_message_id"],
        created_at=row["created_at"],
        last_action_at=row["last_action_at"],
        reminded_at=row["reminded_at"],
        finished_at=row["finished_at"],
        winner_id=row["winner_id"],
        result_kind=None if row["result_kind"] is None else ResultKind(row["result_kind"]),
        points=row["points"],
        score_x=row["score_x"],
        score_o=row["score_o"],
        ai_level=row["ai_level"],
        rated=bool(row["rated"]),
        hints=bool(row["hints"]),
        board_owed_version=row["board_owed_version"],
        parent_channel_id=row["parent_channel_id"],
        context=cast(GameContext, row["context"]),
    )


def options_from_text(text: str) -> tuple[str, ...]:
    return tuple(name for name in text.split(",") if name)


def challenge_from_row(row: Row) -> Challenge:
    return Challenge(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        challenger_id=row["challenger_id"],
        opponent_id=row["opponent_id"],
        variant=row["variant"],
        match_length=row["match_length"],
        message_id=row["message_id"],
        status=cast(ChallengeStatus, row["status"]),
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        game_id=row["game_id"],
        options=options_from_text(row["options"]),
        hints=bool(row["hints"]),
        retire_owed=bool(row["retire_owed"]),
    )


def stats_from_row(row: Row) -> PlayerStats:
    return PlayerStats(**{c: row[c] for c in STATS_COLUMNS})


def stats_params(s: PlayerStats) -> tuple[Any, ...]:
    return tuple(getattr(s, c) for c in STATS_COLUMNS)
