"""The storage contract: :class:`Storage`, what the bot and the cogs use, whatever the backend.

:class:`Storage` composes one repository per aggregate (:mod:`storage.repos`: settings and
preferences, challenges, games, ratings and stats), each holding its operations, their input
checks and their SQL, written once in the dialect SQLite and PostgreSQL both accept (``?``
placeholders, which the PostgreSQL backend numbers). A backend (:mod:`storage.database` for
SQLite, :mod:`storage.postgres` for PostgreSQL) subclasses it and supplies the primitives of
:class:`storage.core.StorageCore`: the connection, the transactions, the migrations and the few
things the two engines do differently.

Clocks are injected: every method that stores or compares a time takes ``now`` (Unix seconds).
"""

from __future__ import annotations

from storage.checks import check_count, check_text, check_time
from storage.core import StorageCore, Tx, UniqueViolation
from storage.repos.analysis import AnalysisRepository
from storage.repos.challenges import ChallengeRepository
from storage.repos.game_upkeep import GameUpkeepRepository
from storage.repos.games import GameRepository
from storage.repos.ratings import RatingsRepository
from storage.repos.settings import SettingsRepository
from storage.repos.tournaments import TournamentRepository

__all__ = ["Storage", "StorageCore", "Tx", "UniqueViolation"]


class Storage(
    SettingsRepository,
    ChallengeRepository,
    GameRepository,
    GameUpkeepRepository,
    RatingsRepository,
    TournamentRepository,
    AnalysisRepository,
    StorageCore,
):
    """The storage contract: async access to the bot's database, whatever the backend."""

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ gateway identify

    async def reserve_identify_slot(self, bucket: int, *, now: float, spacing: float) -> float:
        """Reserve the next moment at which a shard of rate-limit ``bucket`` (shard id modulo
        Discord's ``max_concurrency``) may IDENTIFY: ``now`` if the bucket's last reservation
        is at least ``spacing`` seconds old, else that reservation + ``spacing``. One atomic
        statement, so processes starting together (sharing the database) get distinct slots
        ``spacing`` apart; the caller sleeps until the returned time."""
        check_count("bucket", bucket, 0, 1_000_000)
        now = check_time("now", now)
        spacing = check_time("spacing", spacing)
        async with self._write() as tx:
            rows = await tx.fetchall(
                "INSERT INTO identify_slots (bucket, at) VALUES (?, ?) "
                "ON CONFLICT (bucket) DO UPDATE SET at = CASE "
                "WHEN identify_slots.at + ? > excluded.at THEN identify_slots.at + ? "
                "ELSE excluded.at END RETURNING at",
                (bucket, now, spacing, spacing),
            )
        return float(rows[0][0])

    # ------------------------------------------------------------------ bot state

    async def get_bot_state(self, key: str) -> str | None:
        """The value last stored under ``key`` by :meth:`set_bot_state`, or None."""
        key = check_text("key", key)
        row = await self._fetch_by_key("SELECT value FROM bot_state WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    async def set_bot_state(self, key: str, value: str, *, now: float) -> None:
        """Store ``value`` under ``key`` (replacing any earlier value)."""
        key = check_text("key", key)
        value = check_text("value", value, allow_empty=True)
        now = check_time("now", now)
        async with self._write() as tx:
            await tx.execute(
                "INSERT INTO bot_state (key, value, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at",
                (key, value, now),
            )
