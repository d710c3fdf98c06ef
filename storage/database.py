"""The typed data-access class of the bot: the only place with SQL.

Every method runs on one aiosqlite connection and takes an ``asyncio.Lock`` around its work, so
two coroutines never interleave statements inside each other's transaction (aiosqlite shares
one connection, and therefore one transaction, between all its callers). Writes run in
``BEGIN IMMEDIATE`` transactions: the write lock is taken up front, so a read-then-write (a
version check, a rating read) cannot be overtaken by another connection to the same file.

Clocks are injected: every method that stores or compares a time takes ``now`` (Unix seconds).
"""

from __future__ import annotations

import asyncio
import math
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import aiosqlite

from league import glicko2
from storage.errors import (
    ChannelBusyError,
    ConflictError,
    InvalidInputError,
    SchemaTooNewError,
    StorageError,
)
from storage.models import (
    CHALLENGE_STATUSES,
    DRAWN_KINDS,
    MOVE_KINDS,
    OVERALL,
    RESULT_KINDS,
    Challenge,
    ChallengeStatus,
    FinishedGame,
    Game,
    GameResult,
    GameStatus,
    GuildSettings,
    ImportedGame,
    LeaderboardRow,
    Move,
    NewMove,
    PlayerStats,
    RatingChange,
    RatingPoint,
    ResultKind,
)
from storage.schema import MIGRATIONS_DIR, Migration, load_migrations

#: Longest a writer waits for another connection's write lock before failing.
BUSY_TIMEOUT_MS = 5000
_MAX_ID = 2**63 - 1  # SQLite INTEGER is signed 64-bit; Discord snowflakes fit
_MAX_SETTING_SECONDS = 366 * 24 * 3600
_MAX_PAGE = 1000

_GAME_COLUMNS = (
    "id, guild_id, channel_id, variant, player_x, player_o, match_length, status, state_json, "
    "version, board_message_id, created_at, last_action_at, reminded_at, finished_at, "
    "winner_id, result_kind, points, score_x, score_o"
)
_CHALLENGE_COLUMNS = (
    "id, guild_id, channel_id, challenger_id, opponent_id, variant, match_length, message_id, "
    "status, created_at, expires_at, game_id, options"
)
_STATS_COLUMNS = (
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
_STATS_SELECT = ", ".join(_STATS_COLUMNS)
_STATS_UPSERT = (
    f"INSERT INTO ratings ({_STATS_SELECT}) VALUES ({', '.join('?' * len(_STATS_COLUMNS))}) "
    "ON CONFLICT (guild_id, user_id, variant) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _STATS_COLUMNS[3:])
)
_HISTORY_INSERT = (
    "INSERT INTO rating_history (guild_id, variant, user_id, game_id, rating, rd, at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_MOVE_INSERT = (
    "INSERT INTO moves (game_id, seq, actor_id, kind, text, at) VALUES (?, ?, ?, ?, ?, ?)"
)

StatsKey = tuple[int, str, int]  # (guild_id, variant, user_id)


# --- input checks: bad input raises InvalidInputError, never reaches SQLite half-checked ---


def _check_id(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_ID:
        raise InvalidInputError(f"{name} must be an integer id in 0..2^63-1, got {value!r}")
    return value


def _check_optional_id(name: str, value: object) -> int | None:
    return None if value is None else _check_id(name, value)


def _check_time(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInputError(f"{name} must be a finite number of seconds, got {value!r}")
    return float(value)


def _check_count(name: str, value: object, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise InvalidInputError(f"{name} must be an integer in {minimum}..{maximum}, got {value!r}")
    return value


def _check_text(name: str, value: object, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value):
        raise InvalidInputError(f"{name} must be a {'' if allow_empty else 'non-empty '}string")
    return value


def _check_variant(value: object) -> str:
    variant = _check_text("variant", value)
    if variant == OVERALL:
        raise InvalidInputError(f"{OVERALL!r} is reserved for the overall rating")
    return variant


def _check_moves(moves: Sequence[NewMove]) -> None:
    for move in moves:
        if not isinstance(move, NewMove):
            raise InvalidInputError(f"moves must be NewMove objects, got {move!r}")
        _check_optional_id("move actor_id", move.actor_id)
        if move.kind not in MOVE_KINDS:
            raise InvalidInputError(f"unknown move kind {move.kind!r}")
        _check_text("move text", move.text, allow_empty=True)


def _check_result(result: GameResult, player_x: int, player_o: int) -> tuple[int, int]:
    """Validate a result against the game's players; return the final (score_x, score_o)."""
    if not isinstance(result, GameResult):
        raise InvalidInputError(f"result must be a GameResult, got {result!r}")
    if result.kind not in RESULT_KINDS:
        raise InvalidInputError(f"unknown result kind {result.kind!r}")
    points = _check_count("points", result.points, 0, _MAX_ID)
    if result.kind in DRAWN_KINDS:
        if result.winner_id is not None or points != 0:
            raise InvalidInputError(f"a {result.kind} has no winner and scores 0 points")
    elif result.winner_id not in (player_x, player_o):
        raise InvalidInputError(f"winner {result.winner_id!r} does not play this game")
    if result.score_x is None and result.score_o is None:
        return (
            points if result.winner_id == player_x else 0,
            points if result.winner_id == player_o else 0,
        )
    score_x = _check_count("score_x", result.score_x, 0, _MAX_ID)
    score_o = _check_count("score_o", result.score_o, 0, _MAX_ID)
    return score_x, score_o


# --- row -> domain object ---


def _game(row: sqlite3.Row) -> Game:
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
        result_kind=cast("ResultKind | None", row["result_kind"]),
        points=row["points"],
        score_x=row["score_x"],
        score_o=row["score_o"],
    )


def _challenge(row: sqlite3.Row) -> Challenge:
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
        options=tuple(name for name in row["options"].split(",") if name),
    )


def _stats(row: sqlite3.Row) -> PlayerStats:
    return PlayerStats(**{c: row[c] for c in _STATS_COLUMNS})


def _stats_params(s: PlayerStats) -> tuple[Any, ...]:
    return tuple(getattr(s, c) for c in _STATS_COLUMNS)


def _new_stats(key: StatsKey) -> PlayerStats:
    guild_id, variant, user_id = key
    default = glicko2.Rating()
    return PlayerStats(guild_id, variant, user_id, default.rating, default.rd, default.volatility)


def _after_game(
    prev: PlayerStats,
    rating: glicko2.Rating,
    *,
    score: float,
    points_for: int,
    points_against: int,
    kind: str,
    now: float,
) -> PlayerStats:
    """A player's row after one rated game (score 1 win, 0.5 draw/tie, 0 loss)."""
    wins, losses, draws = prev.wins, prev.losses, prev.draws
    gammons, backgammons, mothers = prev.gammons_won, prev.backgammons_won, prev.mother_wins
    if score == glicko2.WIN:
        wins += 1
        streak = max(prev.current_streak, 0) + 1
        gammons += kind == "gammon"
        backgammons += kind == "backgammon"
        mothers += kind == "mother"
    elif score == glicko2.LOSS:
        losses += 1
        streak = min(prev.current_streak, 0) - 1
    else:
        draws += 1
        streak = 0
    # The constructor, not dataclasses.replace: this runs 4 times per game in bulk imports.
    return PlayerStats(
        guild_id=prev.guild_id,
        variant=prev.variant,
        user_id=prev.user_id,
        rating=rating.rating,
        rd=rating.rd,
        volatility=rating.volatility,
        games=prev.games + 1,
        wins=wins,
        losses=losses,
        draws=draws,
        points_won=prev.points_won + points_for,
        points_lost=prev.points_lost + points_against,
        gammons_won=gammons,
        backgammons_won=backgammons,
        mother_wins=mothers,
        current_streak=streak,
        best_streak=max(prev.best_streak, streak),
        last_played_at=now,
    )


def _rate(
    stats_x: PlayerStats,
    stats_o: PlayerStats,
    result: GameResult,
    scores: tuple[int, int],
    now: float,
    tau: float,
) -> tuple[PlayerStats, PlayerStats]:
    """Rate one finished game (both sides against each other's pre-game rating)."""
    if result.winner_id is None:
        score_x = glicko2.DRAW
    else:
        score_x = glicko2.WIN if result.winner_id == stats_x.user_id else glicko2.LOSS
    new_x, new_o = glicko2.rate_game(stats_x.glicko, stats_o.glicko, score_x, tau=tau)
    after_x = _after_game(
        stats_x,
        new_x,
        score=score_x,
        points_for=scores[0],
        points_against=scores[1],
        kind=result.kind,
        now=now,
    )
    after_o = _after_game(
        stats_o,
        new_o,
        score=1.0 - score_x,
        points_for=scores[1],
        points_against=scores[0],
        kind=result.kind,
        now=now,
    )
    return after_x, after_o


class Database:
    """Async access to the bot's SQLite database. Create with ``await Database.open(path)``."""

    def __init__(self, conn: aiosqlite.Connection, path: str, schema_version: int) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self._lock = asyncio.Lock()
        self.path = path
        self.schema_version = schema_version

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
        return cls(conn, str(path), version)

    @staticmethod
    async def _migrate(conn: aiosqlite.Connection, migrations: Sequence[Migration]) -> int:
        latest = len(migrations)
        version = await _user_version(conn)
        if version > latest:
            raise SchemaTooNewError(version, latest)
        for migration in migrations[version:]:
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
            if conn is not None:
                await conn.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def closed(self) -> bool:
        return self._conn is None

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
        return self._conn

    @asynccontextmanager
    async def _transaction(self, begin: str) -> AsyncIterator[aiosqlite.Connection]:
        """One transaction, committed at the end and rolled back on any exception (including
        cancellation); sqlite3 errors surface as StorageError."""
        async with self._lock:
            conn = self._connection()
            try:
                await conn.execute(begin)
                yield conn
                await conn.execute("COMMIT")
            except BaseException as exc:
                # A no-op if BEGIN itself failed. Queued after any statement still running.
                await conn.rollback()
                if isinstance(exc, sqlite3.Error):
                    raise StorageError(str(exc)) from exc
                raise

    def _write(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        """One write transaction (BEGIN IMMEDIATE: no other writer can overtake it)."""
        return self._transaction("BEGIN IMMEDIATE")

    def _read(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        """Several reads from one snapshot (a deferred transaction only reads)."""
        return self._transaction("BEGIN")

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        async with self._lock:
            conn = self._connection()
            try:
                return list(await conn.execute_fetchall(sql, params))
            except sqlite3.Error as exc:
                raise StorageError(str(exc)) from exc

    async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        rows = await self._fetchall(sql, params)
        return rows[0] if rows else None

    # ------------------------------------------------------------------ guild settings

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, or the defaults if it never changed them."""
        _check_id("guild_id", guild_id)
        row = await self._fetchone(
            "SELECT reminder_after_seconds, claim_after_seconds, challenge_expiry_seconds "
            "FROM guild_settings WHERE guild_id = ?",
            (guild_id,),
        )
        if row is None:
            return GuildSettings(guild_id)
        return GuildSettings(guild_id, *row)

    async def set_guild_settings(
        self,
        guild_id: int,
        *,
        reminder_after_seconds: int | None = None,
        claim_after_seconds: int | None = None,
        challenge_expiry_seconds: int | None = None,
    ) -> GuildSettings:
        """Change the given settings (None = keep); returns the settings now in force."""
        _check_id("guild_id", guild_id)
        changes = {
            "reminder_after_seconds": reminder_after_seconds,
            "claim_after_seconds": claim_after_seconds,
            "challenge_expiry_seconds": challenge_expiry_seconds,
        }
        for name, value in changes.items():
            if value is not None:
                _check_count(name, value, 1, _MAX_SETTING_SECONDS)
        async with self._write() as conn:
            rows = await conn.execute_fetchall(
                "SELECT reminder_after_seconds, claim_after_seconds, challenge_expiry_seconds "
                "FROM guild_settings WHERE guild_id = ?",
                (guild_id,),
            )
            current = (
                GuildSettings(guild_id, *next(iter(rows))) if rows else GuildSettings(guild_id)
            )
            new = replace(current, **{k: v for k, v in changes.items() if v is not None})
            await conn.execute(
                "INSERT INTO guild_settings (guild_id, reminder_after_seconds, "
                "claim_after_seconds, challenge_expiry_seconds) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET "
                "reminder_after_seconds = excluded.reminder_after_seconds, "
                "claim_after_seconds = excluded.claim_after_seconds, "
                "challenge_expiry_seconds = excluded.challenge_expiry_seconds",
                (
                    guild_id,
                    new.reminder_after_seconds,
                    new.claim_after_seconds,
                    new.challenge_expiry_seconds,
                ),
            )
        return new

    # ------------------------------------------------------------------ challenges

    async def create_challenge(
        self,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int | None,
        variant: str,
        *,
        now: float,
        match_length: int = 1,
        expires_at: float | None = None,
        message_id: int | None = None,
        options: Sequence[str] = (),
    ) -> Challenge:
        """Open a challenge in a channel (``opponent_id`` None: anyone may accept).

        ``options``: rule options for the game (RULES names; the caller checks them against
        the variant).

        ``expires_at`` defaults to ``now`` + the guild's challenge expiry. Open challenges of
        this channel already past their expiry are expired first. Raises
        :class:`ChannelBusyError` if the channel has an active game or another open challenge.
        """
        _check_id("guild_id", guild_id)
        _check_id("channel_id", channel_id)
        _check_id("challenger_id", challenger_id)
        _check_optional_id("opponent_id", opponent_id)
        if opponent_id == challenger_id:
            raise InvalidInputError("a player cannot challenge themselves")
        _check_variant(variant)
        _check_count("match_length", match_length, 1, 10_000)
        names = sorted({_check_text("option", o) for o in options})
        if not all(name.isalnum() for name in names):
            raise InvalidInputError("an option name is letters and digits only")
        option_text = ",".join(names)
        now = _check_time("now", now)
        _check_optional_id("message_id", message_id)
        if expires_at is not None:
            expires_at = _check_time("expires_at", expires_at)
        async with self._write() as conn:
            if expires_at is None:
                rows = await conn.execute_fetchall(
                    "SELECT challenge_expiry_seconds FROM guild_settings WHERE guild_id = ?",
                    (guild_id,),
                )
                expiry = (
                    next(iter(rows))[0]
                    if rows
                    else GuildSettings(guild_id).challenge_expiry_seconds
                )
                expires_at = now + expiry
            await conn.execute(
                "UPDATE challenges SET status = 'expired' "
                "WHERE channel_id = ? AND status = 'open' AND expires_at <= ?",
                (channel_id, now),
            )
            busy = await conn.execute_fetchall(
                "SELECT 1 FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
            )
            if busy:
                raise ChannelBusyError(f"channel {channel_id} already has an active game")
            try:
                cursor = await conn.execute(
                    "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
                    "variant, match_length, message_id, status, created_at, expires_at, "
                    "options) VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?)",
                    (
                        guild_id,
                        channel_id,
                        challenger_id,
                        opponent_id,
                        variant,
                        match_length,
                        message_id,
                        now,
                        expires_at,
                        option_text,
                    ),
                )
            except sqlite3.IntegrityError as exc:
                raise ChannelBusyError(
                    f"channel {channel_id} already has an open challenge"
                ) from exc
            challenge_id = cursor.lastrowid
        assert challenge_id is not None
        return Challenge(
            challenge_id,
            guild_id,
            channel_id,
            challenger_id,
            opponent_id,
            variant,
            match_length,
            message_id,
            "open",
            now,
            expires_at,
            None,
            tuple(name for name in option_text.split(",") if name),
        )

    async def get_challenge(self, challenge_id: int) -> Challenge | None:
        _check_id("challenge_id", challenge_id)
        row = await self._fetchone(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
        )
        return None if row is None else _challenge(row)

    async def get_open_challenge(
        self, channel_id: int, *, now: float | None = None
    ) -> Challenge | None:
        """The channel's open challenge; with ``now``, one already past its expiry is ignored."""
        _check_id("channel_id", channel_id)
        if now is not None:
            now = _check_time("now", now)
        row = await self._fetchone(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE channel_id = ? AND status = 'open'",
            (channel_id,),
        )
        if row is None:
            return None
        challenge = _challenge(row)
        return None if now is not None and challenge.expires_at <= now else challenge

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> bool:
        """Record the message that shows the challenge; False if there is no such challenge."""
        _check_id("challenge_id", challenge_id)
        _check_id("message_id", message_id)
        async with self._write() as conn:
            cursor = await conn.execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )
            return cursor.rowcount == 1

    async def set_challenge_status(
        self, challenge_id: int, status: ChallengeStatus
    ) -> Challenge | None:
        """Move an *open* challenge to ``status``; returns the updated challenge, or None if it
        was not open any more (already accepted, declined, ... - e.g. two clicks racing).

        To accept a challenge and start its game atomically, use ``create_game(challenge_id=)``.
        """
        _check_id("challenge_id", challenge_id)
        if status not in CHALLENGE_STATUSES or status == "open":
            raise InvalidInputError(f"cannot set a challenge to {status!r}")
        async with self._write() as conn:
            cursor = await conn.execute(
                "UPDATE challenges SET status = ? WHERE id = ? AND status = 'open'",
                (status, challenge_id),
            )
            if cursor.rowcount != 1:
                return None
            rows = await conn.execute_fetchall(
                f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
            )
        return _challenge(next(iter(rows)))

    async def expire_challenges(self, now: float) -> list[Challenge]:
        """Mark every open challenge with ``expires_at <= now`` expired; returns them."""
        now = _check_time("now", now)
        async with self._write() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {_CHALLENGE_COLUMNS} FROM challenges "
                "WHERE status = 'open' AND expires_at <= ? ORDER BY id",
                (now,),
            )
            expired = [replace(_challenge(row), status="expired") for row in rows]
            await conn.executemany(
                "UPDATE challenges SET status = 'expired' WHERE id = ?",
                [(c.id,) for c in expired],
            )
        return expired

    # ------------------------------------------------------------------ games

    async def create_game(
        self,
        guild_id: int,
        channel_id: int,
        variant: str,
        player_x: int,
        player_o: int,
        state_json: str,
        *,
        now: float,
        match_length: int = 1,
        challenge_id: int | None = None,
        board_message_id: int | None = None,
        moves: Sequence[NewMove] = (),
    ) -> Game:
        """Start a game (version 0). ``player_x`` is the challenger, in the first seat.

        With ``challenge_id``, that open challenge of the same channel is marked accepted in the
        same transaction (:class:`ConflictError` if it is not open or has expired).
        Raises :class:`ChannelBusyError` if the channel already has an active game.
        """
        _check_id("guild_id", guild_id)
        _check_id("channel_id", channel_id)
        _check_variant(variant)
        _check_id("player_x", player_x)
        _check_id("player_o", player_o)
        if player_x == player_o:
            raise InvalidInputError("a game needs two different players")
        _check_text("state_json", state_json)
        now = _check_time("now", now)
        _check_count("match_length", match_length, 1, 10_000)
        _check_optional_id("challenge_id", challenge_id)
        _check_optional_id("board_message_id", board_message_id)
        _check_moves(moves)
        async with self._write() as conn:
            try:
                cursor = await conn.execute(
                    "INSERT INTO games (guild_id, channel_id, variant, player_x, player_o, "
                    "match_length, status, state_json, version, board_message_id, created_at, "
                    "last_action_at) VALUES (?, ?, ?, ?, ?, ?, 'active', ?, 0, ?, ?, ?)",
                    (
                        guild_id,
                        channel_id,
                        variant,
                        player_x,
                        player_o,
                        match_length,
                        state_json,
                        board_message_id,
                        now,
                        now,
                    ),
                )
            except sqlite3.IntegrityError as exc:
                raise ChannelBusyError(f"channel {channel_id} already has an active game") from exc
            game_id = cursor.lastrowid
            assert game_id is not None
            if challenge_id is not None:
                cursor = await conn.execute(
                    "UPDATE challenges SET status = 'accepted', game_id = ? "
                    "WHERE id = ? AND status = 'open' AND channel_id = ? AND expires_at > ?",
                    (game_id, challenge_id, channel_id, now),
                )
                if cursor.rowcount != 1:
                    raise ConflictError(f"challenge {challenge_id} is no longer open")
            await _insert_moves(conn, game_id, moves, now)
        return Game(
            game_id,
            guild_id,
            channel_id,
            variant,
            player_x,
            player_o,
            match_length,
            "active",
            state_json,
            0,
            board_message_id,
            now,
            now,
            None,
            None,
            None,
            None,
            None,
            0,
            0,
        )

    async def get_game(self, game_id: int) -> Game | None:
        _check_id("game_id", game_id)
        row = await self._fetchone(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return None if row is None else _game(row)

    async def get_active_game(self, channel_id: int) -> Game | None:
        _check_id("channel_id", channel_id)
        row = await self._fetchone(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? AND status = 'active'",
            (channel_id,),
        )
        return None if row is None else _game(row)

    async def list_active_games(self, guild_id: int | None = None) -> list[Game]:
        """Active games (of one guild, or all), oldest first - e.g. to restore views at start."""
        if guild_id is None:
            rows = await self._fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'active' ORDER BY id"
            )
        else:
            _check_id("guild_id", guild_id)
            rows = await self._fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'active' AND guild_id = ? "
                "ORDER BY id",
                (guild_id,),
            )
        return [_game(row) for row in rows]

    async def save_game_state(
        self, game_id: int, expected_version: int, new_state_json: str, *, now: float
    ) -> Game:
        """Replace an active game's state if its version is still ``expected_version``.

        Bumps the version and counts as activity (``last_action_at = now``, reminder reset).
        Raises :class:`ConflictError` if the version moved on or the game is not active.
        """
        return await self.commit_action(game_id, expected_version, new_state_json, (), now=now)

    async def commit_action(
        self,
        game_id: int,
        expected_version: int,
        new_state_json: str,
        moves: Sequence[NewMove],
        *,
        now: float,
    ) -> Game:
        """Save the new state and append ``moves`` to the history in ONE transaction.

        Optimistic concurrency: succeeds only if the game is active at ``expected_version``;
        then the version is bumped. Of two callers holding the same version exactly one wins,
        the other gets :class:`ConflictError`. Returns the updated game. The transaction is
        committed (and, with ``synchronous=FULL``, on disk) when this returns.
        """
        _check_id("game_id", game_id)
        _check_count("expected_version", expected_version, 0, _MAX_ID)
        _check_text("new_state_json", new_state_json)
        now = _check_time("now", now)
        _check_moves(moves)
        async with self._write() as conn:
            cursor = await conn.execute(
                "UPDATE games SET state_json = ?, version = version + 1, last_action_at = ?, "
                "reminded_at = NULL WHERE id = ? AND version = ? AND status = 'active'",
                (new_state_json, now, game_id, expected_version),
            )
            if cursor.rowcount != 1:
                raise ConflictError(
                    f"game {game_id} is not active at version {expected_version} any more"
                )
            await _insert_moves(conn, game_id, moves, now)
            rows = await conn.execute_fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
            )
        return _game(next(iter(rows)))

    async def set_board_message(self, game_id: int, message_id: int | None) -> bool:
        """Remember the message holding the game's buttons (not a state change: no version
        bump). False if there is no such game."""
        _check_id("game_id", game_id)
        _check_optional_id("message_id", message_id)
        async with self._write() as conn:
            cursor = await conn.execute(
                "UPDATE games SET board_message_id = ? WHERE id = ?", (message_id, game_id)
            )
            return cursor.rowcount == 1

    async def mark_reminded(self, game_id: int, *, now: float) -> bool:
        """Record that the idle player was reminded (until the next action); False if the game
        is not active."""
        _check_id("game_id", game_id)
        now = _check_time("now", now)
        async with self._write() as conn:
            cursor = await conn.execute(
                "UPDATE games SET reminded_at = ? WHERE id = ? AND status = 'active'",
                (now, game_id),
            )
            return cursor.rowcount == 1

    async def finish_game(
        self,
        game_id: int,
        expected_version: int,
        final_state_json: str,
        result: GameResult,
        *,
        now: float,
        moves: Sequence[NewMove] = (),
        tau: float = glicko2.DEFAULT_TAU,
    ) -> FinishedGame:
        """Finish an active game at ``expected_version``, all in ONE transaction: the result, the
        final state and ``moves``, and both players' ratings, statistics and rating history in
        the game's variant and in the overall rating.

        Rating (Glicko-2, one game = one rating period, each side against the other's pre-game
        rating): a tie/draw (0 points, no winner) is 0.5 each; every other kind, including
        resign, timeout and a cube pass, is a win for the winner.
        Raises :class:`ConflictError` (version moved on / not active) or
        :class:`InvalidInputError` (inconsistent result); then nothing is written.
        """
        _check_id("game_id", game_id)
        _check_count("expected_version", expected_version, 0, _MAX_ID)
        _check_text("final_state_json", final_state_json)
        now = _check_time("now", now)
        _check_moves(moves)
        if not (isinstance(tau, int | float) and math.isfinite(tau) and tau > 0):
            raise InvalidInputError(f"tau must be a positive number, got {tau!r}")
        async with self._write() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
            )
            game = _game(next(iter(rows))) if rows else None
            if game is None or game.status != "active" or game.version != expected_version:
                raise ConflictError(
                    f"game {game_id} is not active at version {expected_version} any more"
                )
            score_x, score_o = _check_result(result, game.player_x, game.player_o)
            await conn.execute(
                "UPDATE games SET status = 'finished', state_json = ?, version = version + 1, "
                "last_action_at = ?, finished_at = ?, winner_id = ?, result_kind = ?, "
                "points = ?, score_x = ?, score_o = ? WHERE id = ?",
                (
                    final_state_json,
                    now,
                    now,
                    result.winner_id,
                    result.kind,
                    result.points,
                    score_x,
                    score_o,
                    game_id,
                ),
            )
            await _insert_moves(conn, game_id, moves, now)
            changes: list[RatingChange] = []
            for variant in (game.variant, OVERALL):
                key_x = (game.guild_id, variant, game.player_x)
                key_o = (game.guild_id, variant, game.player_o)
                before = await _load_stats(conn, (key_x, key_o))
                after_x, after_o = _rate(
                    before[key_x], before[key_o], result, (score_x, score_o), now, tau
                )
                await conn.executemany(
                    _STATS_UPSERT, [_stats_params(after_x), _stats_params(after_o)]
                )
                await self._insert_history(conn, game_id, (after_x, after_o), now)
                for old, new in ((before[key_x], after_x), (before[key_o], after_o)):
                    changes.append(RatingChange(new.user_id, variant, old.glicko, new.glicko))
            rows = await conn.execute_fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
            )
        return FinishedGame(_game(next(iter(rows))), tuple(changes))

    async def _insert_history(
        self,
        conn: aiosqlite.Connection,
        game_id: int,
        rows: Sequence[PlayerStats],
        now: float,
    ) -> None:
        # A method (not inlined) so that a test can make it fail and check the rollback.
        await conn.executemany(
            _HISTORY_INSERT,
            [(s.guild_id, s.variant, s.user_id, game_id, s.rating, s.rd, now) for s in rows],
        )

    async def abort_game(
        self,
        game_id: int,
        *,
        now: float,
        expected_version: int | None = None,
        final_state_json: str | None = None,
        moves: Sequence[NewMove] = (),
    ) -> Game:
        """End an active game without a result; aborted games are not rated.

        ``expected_version`` None aborts whatever the version (e.g. a moderator's command).
        Raises :class:`ConflictError` if the game is not active (or not at that version).
        """
        _check_id("game_id", game_id)
        if expected_version is not None:
            _check_count("expected_version", expected_version, 0, _MAX_ID)
        if final_state_json is not None:
            _check_text("final_state_json", final_state_json)
        now = _check_time("now", now)
        _check_moves(moves)
        async with self._write() as conn:
            cursor = await conn.execute(
                "UPDATE games SET status = 'aborted', version = version + 1, "
                "state_json = COALESCE(?, state_json), last_action_at = ?, finished_at = ? "
                "WHERE id = ? AND status = 'active' AND (? IS NULL OR version = ?)",
                (final_state_json, now, now, game_id, expected_version, expected_version),
            )
            if cursor.rowcount != 1:
                raise ConflictError(f"game {game_id} is not active (at that version)")
            await _insert_moves(conn, game_id, moves, now)
            rows = await conn.execute_fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
            )
        return _game(next(iter(rows)))

    async def game_moves(self, game_id: int) -> list[Move]:
        """The game's history, in order."""
        _check_id("game_id", game_id)
        rows = await self._fetchall(
            "SELECT game_id, seq, actor_id, kind, text, at FROM moves WHERE game_id = ? "
            "ORDER BY seq",
            (game_id,),
        )
        return [Move(*row) for row in rows]

    async def recent_games(
        self, guild_id: int, user_id: int | None = None, *, limit: int = 10
    ) -> list[Game]:
        """Finished games of the guild (or of one player in it), most recent first."""
        _check_id("guild_id", guild_id)
        _check_optional_id("user_id", user_id)
        _check_count("limit", limit, 0, _MAX_PAGE)
        order = "ORDER BY finished_at DESC, id DESC LIMIT ?"
        if user_id is None:
            rows = await self._fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE guild_id = ? AND status = 'finished' "
                + order,
                (guild_id, limit),
            )
        else:
            # One indexed, limited scan per seat, merged: an OR over two columns could not
            # use both indexes and keep the order.
            seat = (
                f"SELECT * FROM (SELECT {_GAME_COLUMNS} FROM games WHERE guild_id = ? AND "
                "{col} = ? AND status = 'finished' " + order + ")"
            )
            rows = await self._fetchall(
                seat.format(col="player_x")
                + " UNION ALL "
                + seat.format(col="player_o")
                + " "
                + order,
                (guild_id, user_id, limit, guild_id, user_id, limit, limit),
            )
        return [_game(row) for row in rows]

    async def games_needing_reminder(self, now: float) -> list[Game]:
        """Active games idle for at least their guild's ``reminder_after_seconds`` whose idle
        player has not been reminded since the last action."""
        now = _check_time("now", now)
        rows = await self._fetchall(
            f"SELECT {_prefixed(_GAME_COLUMNS, 'g')} FROM games AS g "
            "LEFT JOIN guild_settings AS s ON s.guild_id = g.guild_id "
            "WHERE g.status = 'active' AND g.reminded_at IS NULL "
            "AND g.last_action_at <= ? - COALESCE(s.reminder_after_seconds, ?) "
            "ORDER BY g.last_action_at, g.id",
            (now, GuildSettings(0).reminder_after_seconds),
        )
        return [_game(row) for row in rows]

    async def claimable_games(self, now: float) -> list[Game]:
        """Active games idle for at least their guild's ``claim_after_seconds`` (the waiting
        player may claim the win; storage does not know whose turn it is)."""
        now = _check_time("now", now)
        rows = await self._fetchall(
            f"SELECT {_prefixed(_GAME_COLUMNS, 'g')} FROM games AS g "
            "LEFT JOIN guild_settings AS s ON s.guild_id = g.guild_id "
            "WHERE g.status = 'active' "
            "AND g.last_action_at <= ? - COALESCE(s.claim_after_seconds, ?) "
            "ORDER BY g.last_action_at, g.id",
            (now, GuildSettings(0).claim_after_seconds),
        )
        return [_game(row) for row in rows]

    # ------------------------------------------------------------------ ratings & stats

    async def leaderboard(
        self,
        guild_id: int,
        variant: str | None = None,
        *,
        limit: int = 10,
        offset: int = 0,
        include_provisional: bool = True,
    ) -> list[LeaderboardRow]:
        """One page of the guild's leaderboard for ``variant`` (None: the overall rating).

        Order: rating desc, then games desc, then user id asc, so pages are deterministic.
        Rank: standard competition ranking on the rating alone - players with exactly the same
        rating share a rank and the next rank skips (1, 2, 2, 4); the tie-breakers only order
        the rows. With ``include_provisional=False`` players whose RD is above 110 are left
        out (and not ranked).
        """
        _check_id("guild_id", guild_id)
        board = OVERALL if variant is None else _check_variant(variant)
        _check_count("limit", limit, 0, _MAX_PAGE)
        _check_count("offset", offset, 0, _MAX_ID)
        flag = (include_provisional, glicko2.PROVISIONAL_RD)
        async with self._read() as conn:
            # The page straight off the leaderboard index (no sort; OFFSET skips index entries).
            rows = list(
                await conn.execute_fetchall(
                    "SELECT user_id, rating, rd, games, wins, losses, draws, points_won "
                    "FROM ratings WHERE guild_id = ? AND variant = ? AND (? OR rd <= ?) "
                    "ORDER BY rating DESC, games DESC, user_id LIMIT ? OFFSET ?",
                    (guild_id, board, *flag, limit, offset),
                )
            )
            if not rows:
                return []
            # Only the first row's rank needs a count; the others follow from the order.
            above = await conn.execute_fetchall(
                "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND variant = ? "
                "AND rating > ? AND (? OR rd <= ?)",
                (guild_id, board, rows[0]["rating"], *flag),
            )
        rank = int(next(iter(above))[0]) + 1
        page: list[LeaderboardRow] = []
        for position, row in enumerate(rows, start=offset + 1):
            if page and row["rating"] != page[-1].rating:
                rank = position
            page.append(
                LeaderboardRow(
                    rank=rank,
                    user_id=row["user_id"],
                    rating=row["rating"],
                    rd=row["rd"],
                    provisional=glicko2.is_provisional(row["rd"]),
                    games=row["games"],
                    wins=row["wins"],
                    losses=row["losses"],
                    draws=row["draws"],
                    points_won=row["points_won"],
                )
            )
        return page

    async def leaderboard_count(
        self, guild_id: int, variant: str | None = None, *, include_provisional: bool = True
    ) -> int:
        """How many rows the leaderboard has (for pagination)."""
        _check_id("guild_id", guild_id)
        board = OVERALL if variant is None else _check_variant(variant)
        row = await self._fetchone(
            "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND variant = ? AND (? OR rd <= ?)",
            (guild_id, board, include_provisional, glicko2.PROVISIONAL_RD),
        )
        return 0 if row is None else int(row[0])

    async def get_player_stats(
        self, guild_id: int, user_id: int, variant: str | None = None
    ) -> PlayerStats | None:
        """A player's row in one variant (None: overall); None if they never finished one."""
        _check_id("guild_id", guild_id)
        _check_id("user_id", user_id)
        board = OVERALL if variant is None else _check_variant(variant)
        row = await self._fetchone(
            f"SELECT {_STATS_SELECT} FROM ratings "
            "WHERE guild_id = ? AND variant = ? AND user_id = ?",
            (guild_id, board, user_id),
        )
        return None if row is None else _stats(row)

    async def player_stats(self, guild_id: int, user_id: int) -> list[PlayerStats]:
        """All of a player's rows in the guild: overall first, then the variants by name."""
        _check_id("guild_id", guild_id)
        _check_id("user_id", user_id)
        rows = await self._fetchall(
            f"SELECT {_STATS_SELECT} FROM ratings WHERE guild_id = ? AND user_id = ? "
            "ORDER BY variant <> ?, variant",
            (guild_id, user_id, OVERALL),
        )
        return [_stats(row) for row in rows]

    async def rating_history(
        self,
        guild_id: int,
        user_id: int,
        variant: str | None = None,
        *,
        limit: int | None = None,
    ) -> list[RatingPoint]:
        """The player's rating after each game, oldest first (``limit``: only the latest N)."""
        _check_id("guild_id", guild_id)
        _check_id("user_id", user_id)
        board = OVERALL if variant is None else _check_variant(variant)
        cap = -1 if limit is None else _check_count("limit", limit, 0, 1_000_000)
        rows = await self._fetchall(
            "SELECT game_id, variant, rating, rd, at FROM ("
            "SELECT id, game_id, variant, rating, rd, at FROM rating_history "
            "WHERE guild_id = ? AND user_id = ? AND variant = ? "
            "ORDER BY at DESC, id DESC LIMIT ?) ORDER BY at, id",
            (guild_id, user_id, board, cap),
        )
        return [RatingPoint(*row) for row in rows]

    # ------------------------------------------------------------------ bulk import

    async def bulk_import_finished_games(
        self, games: Iterable[ImportedGame], *, tau: float = glicko2.DEFAULT_TAU
    ) -> int:
        """Insert finished games and rate them in order, in ONE transaction (for imports and
        benchmarks). Ratings, statistics and history come out exactly as if each game had
        gone through :meth:`finish_game` at its ``finished_at``. Returns the number of games.
        """
        async with self._write() as conn:
            rows = await conn.execute_fetchall("SELECT COALESCE(MAX(id), 0) FROM games")
            next_id = int(next(iter(rows))[0]) + 1
            cache: dict[StatsKey, PlayerStats] = {}
            game_rows: list[tuple[Any, ...]] = []
            history_rows: list[tuple[Any, ...]] = []
            count = 0
            for game in games:
                if not isinstance(game, ImportedGame):
                    raise InvalidInputError(f"expected ImportedGame, got {game!r}")
                _check_id("guild_id", game.guild_id)
                _check_id("channel_id", game.channel_id)
                _check_variant(game.variant)
                _check_id("player_x", game.player_x)
                _check_id("player_o", game.player_o)
                if game.player_x == game.player_o:
                    raise InvalidInputError("a game needs two different players")
                _check_count("match_length", game.match_length, 1, 10_000)
                _check_text("state_json", game.state_json)
                created = _check_time("created_at", game.created_at)
                finished = _check_time("finished_at", game.finished_at)
                result = game.result
                scores = _check_result(result, game.player_x, game.player_o)
                game_id = next_id
                next_id += 1
                game_rows.append(
                    (
                        game_id,
                        game.guild_id,
                        game.channel_id,
                        game.variant,
                        game.player_x,
                        game.player_o,
                        game.match_length,
                        game.state_json,
                        created,
                        finished,
                        finished,
                        result.winner_id,
                        result.kind,
                        result.points,
                        scores[0],
                        scores[1],
                    )
                )
                for variant in (game.variant, OVERALL):
                    keys = (
                        (game.guild_id, variant, game.player_x),
                        (game.guild_id, variant, game.player_o),
                    )
                    missing = [k for k in keys if k not in cache]
                    if missing:
                        cache.update(await _load_stats(conn, missing))
                    after = _rate(cache[keys[0]], cache[keys[1]], result, scores, finished, tau)
                    for stats in after:
                        cache[(stats.guild_id, stats.variant, stats.user_id)] = stats
                        history_rows.append(
                            (
                                stats.guild_id,
                                stats.variant,
                                stats.user_id,
                                game_id,
                                stats.rating,
                                stats.rd,
                                finished,
                            )
                        )
                count += 1
                if len(game_rows) >= 5000:
                    await _flush_import(conn, game_rows, history_rows)
            await _flush_import(conn, game_rows, history_rows)
            await conn.executemany(_STATS_UPSERT, [_stats_params(s) for s in cache.values()])
        return count


async def _flush_import(
    conn: aiosqlite.Connection,
    game_rows: list[tuple[Any, ...]],
    history_rows: list[tuple[Any, ...]],
) -> None:
    await conn.executemany(
        "INSERT INTO games (id, guild_id, channel_id, variant, player_x, player_o, match_length, "
        "status, state_json, version, created_at, last_action_at, finished_at, winner_id, "
        "result_kind, points, score_x, score_o) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'finished', ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)",
        game_rows,
    )
    await conn.executemany(_HISTORY_INSERT, history_rows)
    game_rows.clear()
    history_rows.clear()


async def _user_version(conn: aiosqlite.Connection) -> int:
    rows = await conn.execute_fetchall("PRAGMA user_version")
    return int(next(iter(rows))[0])


async def _load_stats(
    conn: aiosqlite.Connection, keys: Sequence[StatsKey]
) -> dict[StatsKey, PlayerStats]:
    """The rows for ``keys``, a fresh default row for a player who has none yet."""
    found: dict[StatsKey, PlayerStats] = {}
    for key in keys:
        rows = await conn.execute_fetchall(
            f"SELECT {_STATS_SELECT} FROM ratings "
            "WHERE guild_id = ? AND variant = ? AND user_id = ?",
            key,
        )
        found[key] = _stats(next(iter(rows))) if rows else _new_stats(key)
    return found


async def _insert_moves(
    conn: aiosqlite.Connection, game_id: int, moves: Sequence[NewMove], now: float
) -> None:
    if not moves:
        return
    rows = await conn.execute_fetchall(
        "SELECT COALESCE(MAX(seq), 0) FROM moves WHERE game_id = ?", (game_id,)
    )
    start = int(next(iter(rows))[0]) + 1
    await conn.executemany(
        _MOVE_INSERT,
        [
            (game_id, start + i, move.actor_id, move.kind, move.text, now)
            for i, move in enumerate(moves)
        ],
    )


def _prefixed(columns: str, alias: str) -> str:
    return ", ".join(f"{alias}.{c.strip()}" for c in columns.split(","))
