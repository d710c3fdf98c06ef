"""Analysis and puzzles: stored reviews (for paging through their mistakes), each player's
puzzle answers, solved count and streak, and the daily puzzle of each guild."""

from __future__ import annotations

from dataclasses import dataclass

from storage.checks import check_id, check_optional_id, check_text, check_time
from storage.core import StorageCore, UniqueViolation, shard_filter
from storage.models import Shards


@dataclass(frozen=True, slots=True)
class PuzzleRecord:
    """A player's puzzles: first answers, how many were right, and the streak of right first
    answers in a row (now and at best)."""

    user_id: int
    answered: int = 0
    solved: int = 0
    streak: int = 0
    best_streak: int = 0


@dataclass(frozen=True, slots=True)
class PuzzleAnswer:
    """What :meth:`AnalysisRepository.answer_puzzle` recorded."""

    #: False: the player had answered this puzzle before; nothing changed.
    counted: bool
    record: PuzzleRecord


@dataclass(frozen=True, slots=True)
class DailyPuzzle:
    guild_id: int
    day: str
    puzzle: str
    channel_id: int
    #: None until the message is posted.
    message_id: int | None


class AnalysisRepository(StorageCore):
    """The ``game_reviews``, ``puzzle_answers``, ``puzzle_players`` and ``daily_puzzles``
    tables and ``guild_settings.daily_puzzle_channel``."""

    # ------------------------------------------------------------------ reviews

    async def save_review(self, game_id: int, body: str, *, now: float) -> None:
        """Keep a game's judged mistakes (``body``: the caller's JSON), replacing older ones."""
        check_id("game_id", game_id)
        body = check_text("body", body)
        now = check_time("now", now)
        async with self._write() as tx:
            await tx.execute(
                "INSERT INTO game_reviews (game_id, body, reviewed_at) VALUES (?, ?, ?) "
                "ON CONFLICT (game_id) DO UPDATE SET body = excluded.body, "
                "reviewed_at = excluded.reviewed_at",
                (game_id, body, now),
            )

    async def get_review(self, game_id: int) -> str | None:
        check_id("game_id", game_id)
        row = await self._fetch_by_key(
            "SELECT body FROM game_reviews WHERE game_id = ?", (game_id,)
        )
        return None if row is None else str(row[0])

    # ------------------------------------------------------------------ puzzles

    async def puzzle_record(self, user_id: int) -> PuzzleRecord:
        check_id("user_id", user_id)
        row = await self._fetch_by_key(
            "SELECT answered, solved, streak, best_streak FROM puzzle_players WHERE user_id = ?",
            (user_id,),
        )
        if row is None:
            return PuzzleRecord(user_id)
        return PuzzleRecord(user_id, int(row[0]), int(row[1]), int(row[2]), int(row[3]))

    async def answer_puzzle(
        self, user_id: int, puzzle: str, solved: bool, *, guild_id: int | None, now: float
    ) -> PuzzleAnswer:
        """Record ``user_id``'s first answer to ``puzzle`` and update their count and streak
        in the same transaction; a later answer to the same puzzle counts for nothing."""
        check_id("user_id", user_id)
        puzzle = check_text("puzzle", puzzle)
        check_optional_id("guild_id", guild_id)
        now = check_time("now", now)
        try:
            async with self._write() as tx:
                await tx.execute(
                    "INSERT INTO puzzle_answers (user_id, puzzle, guild_id, solved, answered_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (user_id, puzzle, guild_id, int(solved), now),
                )
                rows = await tx.fetchall(
                    "SELECT answered, solved, streak, best_streak FROM puzzle_players "
                    "WHERE user_id = ?" + self._FOR_UPDATE,
                    (user_id,),
                )
                answered, right, streak, best = (int(v) for v in rows[0]) if rows else (0, 0, 0, 0)
                streak = streak + 1 if solved else 0
                new = PuzzleRecord(
                    user_id, answered + 1, right + int(solved), streak, max(best, streak)
                )
                await tx.execute(
                    "INSERT INTO puzzle_players (user_id, answered, solved, streak, best_streak) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
                    "answered = excluded.answered, solved = excluded.solved, "
                    "streak = excluded.streak, best_streak = excluded.best_streak",
                    (user_id, new.answered, new.solved, new.streak, new.best_streak),
                )
        except UniqueViolation:
            return PuzzleAnswer(False, await self.puzzle_record(user_id))
        return PuzzleAnswer(True, new)

    # ------------------------------------------------------------------ the daily puzzle

    async def get_daily_puzzle_channel(self, guild_id: int) -> int | None:
        check_id("guild_id", guild_id)
        row = await self._fetch_by_key(
            "SELECT daily_puzzle_channel FROM guild_settings WHERE guild_id = ?", (guild_id,)
        )
        return None if row is None or row[0] is None else int(row[0])

    async def set_daily_puzzle_channel(self, guild_id: int, channel_id: int | None) -> None:
        """Post the guild's daily puzzle in ``channel_id`` (None: no daily puzzle)."""
        check_id("guild_id", guild_id)
        check_optional_id("channel_id", channel_id)
        async with self._write() as tx:
            await self._lock_guild(tx, guild_id)
            await tx.execute(
                "INSERT INTO guild_settings (guild_id, daily_puzzle_channel) VALUES (?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET "
                "daily_puzzle_channel = excluded.daily_puzzle_channel",
                (guild_id, channel_id),
            )

    async def daily_puzzle_guilds(self, *, shards: Shards | None = None) -> list[tuple[int, int]]:
        """(guild, channel) of every guild with a daily puzzle (with ``shards``: only the
        guilds of those shards)."""
        where, params = shard_filter(shards, "guild_id")
        rows = await self._fetchall(
            "SELECT guild_id, daily_puzzle_channel FROM guild_settings "
            f"WHERE daily_puzzle_channel IS NOT NULL{where} ORDER BY guild_id",
            params,
        )
        return [(int(r[0]), int(r[1])) for r in rows]

    async def claim_daily_puzzle(
        self, guild_id: int, day: str, puzzle: str, channel_id: int, *, now: float
    ) -> DailyPuzzle:
        """The guild's daily puzzle of ``day``: claimed now with ``puzzle`` if no process
        claimed it before, else the one claimed first (whose ``message_id`` says whether it
        is out)."""
        check_id("guild_id", guild_id)
        day = check_text("day", day)
        puzzle = check_text("puzzle", puzzle)
        check_id("channel_id", channel_id)
        now = check_time("now", now)
        async with self._write() as tx:
            await tx.execute(
                "INSERT INTO daily_puzzles (guild_id, day, puzzle, channel_id, claimed_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, day) DO NOTHING",
                (guild_id, day, puzzle, channel_id, now),
            )
            rows = await tx.fetchall(
                "SELECT puzzle, channel_id, message_id FROM daily_puzzles "
                "WHERE guild_id = ? AND day = ?",
                (guild_id, day),
            )
        got = rows[0]
        message = None if got[2] is None else int(got[2])
        return DailyPuzzle(guild_id, day, str(got[0]), int(got[1]), message)

    async def daily_puzzle_posted(self, guild_id: int, day: str, message_id: int) -> bool:
        """Record the posted message; False if another was recorded first (a race: the
        caller deletes its own)."""
        check_id("guild_id", guild_id)
        day = check_text("day", day)
        check_id("message_id", message_id)
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE daily_puzzles SET message_id = ? "
                "WHERE guild_id = ? AND day = ? AND message_id IS NULL",
                (message_id, guild_id, day),
            )
        return changed > 0

    async def get_daily_puzzle(self, guild_id: int, day: str) -> DailyPuzzle | None:
        check_id("guild_id", guild_id)
        row = await self._fetch_by_key(
            "SELECT puzzle, channel_id, message_id FROM daily_puzzles "
            "WHERE guild_id = ? AND day = ?",
            (guild_id, day),
        )
        if row is None:
            return None
        message = None if row[2] is None else int(row[2])
        return DailyPuzzle(guild_id, day, str(row[0]), int(row[1]), message)
