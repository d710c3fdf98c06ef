"""The storage contract and the SQL both backends share.

:class:`Storage` is what the bot and the cogs use: every operation, its input checks and its
SQL, written once in the dialect SQLite and PostgreSQL both accept (``?`` placeholders, which
the PostgreSQL backend numbers). A backend (:mod:`storage.database` for SQLite,
:mod:`storage.postgres` for PostgreSQL) supplies the connection, the transactions, the
migrations and the few things the two engines do differently: how a writer keeps concurrent
read-modify-writes apart (``_lock_guild``, ``_FOR_UPDATE``) and how a bulk import reserves ids.

Clocks are injected: every method that stores or compares a time takes ``now`` (Unix seconds).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import replace
from typing import Any, Protocol

from league import glicko2
from storage.checks import (
    MAX_ID,
    MAX_MATCH_LENGTH,
    MAX_PAGE,
    MAX_SETTING_SECONDS,
    check_count,
    check_id,
    check_moves,
    check_optional_id,
    check_options,
    check_result,
    check_tau,
    check_text,
    check_theme_name,
    check_time,
    check_variant,
)
from storage.errors import (
    ChannelBusyError,
    ConflictError,
    InvalidInputError,
    StorageError,
)
from storage.models import (
    CHALLENGE_STATUSES,
    OVERALL,
    Challenge,
    ChallengeStatus,
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
from storage.rating import StatsKey, new_stats, rate
from storage.rows import (
    CHALLENGE_COLUMNS,
    GAME_COLUMNS,
    STATS_COLUMNS,
    STATS_SELECT,
    Row,
    challenge_from_row,
    game_from_row,
    options_from_text,
    prefixed,
    stats_from_row,
    stats_params,
)

_STATS_UPSERT = (
    f"INSERT INTO ratings ({STATS_SELECT}) VALUES ({', '.join('?' * len(STATS_COLUMNS))}) "
    "ON CONFLICT (guild_id, user_id, variant) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in STATS_COLUMNS[3:])
)
_HISTORY_INSERT = (
    "INSERT INTO rating_history (guild_id, variant, user_id, game_id, rating, rd, at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_MOVE_INSERT = (
    "INSERT INTO moves (game_id, seq, actor_id, kind, text, at) VALUES (?, ?, ?, ?, ?, ?)"
)
_GAME_IMPORT = (
    "INSERT INTO games (id, guild_id, channel_id, variant, player_x, player_o, match_length, "
    "status, state_json, version, created_at, last_action_at, finished_at, winner_id, "
    "result_kind, points, score_x, score_o) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, 'finished', ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)"
)


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


class Storage(ABC):
    """The storage contract: async access to the bot's database, whatever the backend."""

    #: Appended to a SELECT that reads a row the transaction will update: PostgreSQL's READ
    #: COMMITTED needs the row lock, SQLite's BEGIN IMMEDIATE already excludes other writers.
    _FOR_UPDATE = ""

    # ------------------------------------------------------------------ backend primitives

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

    async def __aenter__(self) -> Storage:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

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

    # ------------------------------------------------------------------ guild settings

    _SETTINGS_COLUMNS = (
        "reminder_after_seconds, claim_after_seconds, challenge_expiry_seconds, board_theme"
    )

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, or the defaults if it never changed them."""
        check_id("guild_id", guild_id)
        row = await self._fetch_by_key(
            f"SELECT {self._SETTINGS_COLUMNS} FROM guild_settings WHERE guild_id = ?",
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
        board_theme: str | None = None,
    ) -> GuildSettings:
        """Change the given settings (None = keep); returns the settings now in force.
        ``board_theme`` is a theme name; which names exist is the renderer's business."""
        check_id("guild_id", guild_id)
        changes: dict[str, int | str | None] = {
            "reminder_after_seconds": reminder_after_seconds,
            "claim_after_seconds": claim_after_seconds,
            "challenge_expiry_seconds": challenge_expiry_seconds,
        }
        for name, value in changes.items():
            if value is not None:
                check_count(name, value, 1, MAX_SETTING_SECONDS)
        if board_theme is not None:
            changes["board_theme"] = check_theme_name(board_theme)
        async with self._write() as tx:
            await self._lock_guild(tx, guild_id)
            rows = await tx.fetchall(
                f"SELECT {self._SETTINGS_COLUMNS} FROM guild_settings WHERE guild_id = ?"
                + self._FOR_UPDATE,
                (guild_id,),
            )
            current = GuildSettings(guild_id, *rows[0]) if rows else GuildSettings(guild_id)
            new = replace(current, **{k: v for k, v in changes.items() if v is not None})  # type: ignore[arg-type]
            await tx.execute(
                "INSERT INTO guild_settings (guild_id, reminder_after_seconds, "
                "claim_after_seconds, challenge_expiry_seconds, board_theme) "
                "VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET "
                "reminder_after_seconds = excluded.reminder_after_seconds, "
                "claim_after_seconds = excluded.claim_after_seconds, "
                "challenge_expiry_seconds = excluded.challenge_expiry_seconds, "
                "board_theme = excluded.board_theme",
                (
                    guild_id,
                    new.reminder_after_seconds,
                    new.claim_after_seconds,
                    new.challenge_expiry_seconds,
                    new.board_theme,
                ),
            )
        return new

    # ------------------------------------------------------------------ player preferences

    async def get_player_preferences(self, user_id: int) -> PlayerPreferences:
        """The player's preferences (the same in every server), or the defaults."""
        check_id("user_id", user_id)
        row = await self._fetch_by_key(
            "SELECT board_theme, own_side FROM player_preferences WHERE user_id = ?", (user_id,)
        )
        if row is None:
            return PlayerPreferences(user_id)
        return PlayerPreferences(user_id, row[0], bool(row[1]))

    async def set_player_preferences(
        self,
        user_id: int,
        *,
        now: float,
        board_theme: str | None = None,
        own_side: bool | None = None,
        server_theme: bool = False,
    ) -> PlayerPreferences:
        """Change the given preferences (None = keep; ``server_theme=True`` forgets the chosen
        theme, so boards follow each server's); returns the preferences now in force."""
        check_id("user_id", user_id)
        check_time("now", now)
        if board_theme is not None:
            check_theme_name(board_theme)
            if server_theme:
                raise InvalidInputError("give board_theme or server_theme, not both")
        if own_side is not None and not isinstance(own_side, bool):
            raise InvalidInputError(f"own_side must be a bool, got {own_side!r}")
        async with self._write() as tx:
            rows = await tx.fetchall(
                "SELECT board_theme, own_side FROM player_preferences WHERE user_id = ?"
                + self._FOR_UPDATE,
                (user_id,),
            )
            current = (
                PlayerPreferences(user_id, rows[0][0], bool(rows[0][1]))
                if rows
                else PlayerPreferences(user_id)
            )
            new = PlayerPreferences(
                user_id,
                None if server_theme else (board_theme or current.board_theme),
                current.own_side if own_side is None else own_side,
            )
            # Two first-time /preferences at once: the upsert keeps both from failing.
            await tx.execute(
                "INSERT INTO player_preferences (user_id, board_theme, own_side, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET "
                "board_theme = excluded.board_theme, own_side = excluded.own_side, "
                "updated_at = excluded.updated_at",
                (user_id, new.board_theme, int(new.own_side), now),
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
        hints: bool = False,
    ) -> Challenge:
        """Open a challenge in a channel (``opponent_id`` None: anyone may accept).

        ``options``: rule options for the game (RULES names; the caller checks them against
        the variant).

        ``expires_at`` defaults to ``now`` + the guild's challenge expiry. Open challenges of
        this channel already past their expiry are expired first. Raises
        :class:`ChannelBusyError` if the channel has an active game or another open challenge.
        """
        check_id("guild_id", guild_id)
        check_id("channel_id", channel_id)
        check_id("challenger_id", challenger_id)
        check_optional_id("opponent_id", opponent_id)
        if opponent_id == challenger_id:
            raise InvalidInputError("a player cannot challenge themselves")
        check_variant(variant)
        check_count("match_length", match_length, 1, MAX_MATCH_LENGTH)
        option_text = check_options(options)
        now = check_time("now", now)
        check_optional_id("message_id", message_id)
        if expires_at is not None:
            expires_at = check_time("expires_at", expires_at)
        async with self._write() as tx:
            await self._lock_guild(tx, guild_id)
            if expires_at is None:
                rows = await tx.fetchall(
                    "SELECT challenge_expiry_seconds FROM guild_settings WHERE guild_id = ?",
                    (guild_id,),
                )
                expiry = rows[0][0] if rows else GuildSettings(guild_id).challenge_expiry_seconds
                expires_at = now + expiry
            await tx.execute(
                "UPDATE challenges SET status = 'expired' "
                "WHERE channel_id = ? AND status = 'open' AND expires_at <= ?",
                (channel_id, now),
            )
            busy = await tx.fetchall(
                "SELECT 1 FROM games WHERE channel_id = ? AND status = 'active'", (channel_id,)
            )
            if busy:
                raise ChannelBusyError(f"channel {channel_id} already has an active game")
            try:
                inserted = await tx.fetchall(
                    "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
                    "variant, match_length, message_id, status, created_at, expires_at, "
                    "options, hints) VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?) RETURNING id",
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
                        int(bool(hints)),
                    ),
                )
            except UniqueViolation as exc:
                raise ChannelBusyError(
                    f"channel {channel_id} already has an open challenge"
                ) from exc
            challenge_id = int(inserted[0][0])
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
            options_from_text(option_text),
            bool(hints),
        )

    async def get_challenge(self, challenge_id: int) -> Challenge | None:
        check_id("challenge_id", challenge_id)
        row = await self._fetch_by_key(
            f"SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
        )
        return None if row is None else challenge_from_row(row)

    async def get_open_challenge(
        self, channel_id: int, *, now: float | None = None
    ) -> Challenge | None:
        """The channel's open challenge; with ``now``, one already past its expiry is ignored."""
        check_id("channel_id", channel_id)
        if now is not None:
            now = check_time("now", now)
        row = await self._fetch_by_key(
            f"SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE channel_id = ? AND status = 'open'",
            (channel_id,),
        )
        if row is None:
            return None
        challenge = challenge_from_row(row)
        return None if now is not None and challenge.expires_at <= now else challenge

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> bool:
        """Record the message that shows the challenge; False if there is no such challenge."""
        check_id("challenge_id", challenge_id)
        check_id("message_id", message_id)
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )
            return changed == 1

    async def set_challenge_status(
        self, challenge_id: int, status: ChallengeStatus
    ) -> Challenge | None:
        """Move an *open* challenge to ``status``; returns the updated challenge, or None if it
        was not open any more (already accepted, declined, ... - e.g. two clicks racing).

        To accept a challenge and start its game atomically, use ``create_game(challenge_id=)``.
        """
        check_id("challenge_id", challenge_id)
        if status not in CHALLENGE_STATUSES or status == "open":
            raise InvalidInputError(f"cannot set a challenge to {status!r}")
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE challenges SET status = ? WHERE id = ? AND status = 'open'",
                (status, challenge_id),
            )
            if changed != 1:
                return None
            rows = await tx.fetchall(
                f"SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
            )
        return challenge_from_row(rows[0])

    async def expire_challenges(
        self, now: float, *, shards: Shards | None = None
    ) -> list[Challenge]:
        """Mark every open challenge with ``expires_at <= now`` expired (with ``shards``: only
        in the guilds of those shards); returns them."""
        now = check_time("now", now)
        where, params = _shard_filter(shards, "guild_id")
        async with self._write() as tx:
            # One UPDATE ... RETURNING: of several processes sweeping at once, each expired
            # challenge is returned to exactly one of them.
            rows = await tx.fetchall(
                "UPDATE challenges SET status = 'expired' "
                f"WHERE status = 'open' AND expires_at <= ?{where} RETURNING {CHALLENGE_COLUMNS}",
                (now, *params),
            )
        return sorted((challenge_from_row(row) for row in rows), key=lambda c: c.id)

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
        ai_level: str | None = None,
        rated: bool = True,
        hints: bool = False,
        owe_board: bool = False,
    ) -> Game:
        """Start a game (version 0). ``player_x`` is the challenger, in the first seat.

        ``ai_level``: seat O is the computer at that level. ``rated`` False keeps the game out
        of the ratings; ``hints``: both players agreed to allow hints. ``owe_board``: the
        channel is owed the first board (see :meth:`list_owed_boards`).

        With ``challenge_id``, that open challenge of the same channel is marked accepted in the
        same transaction (:class:`ConflictError` if it is not open or has expired).
        Raises :class:`ChannelBusyError` if the channel already has an active game.
        """
        check_id("guild_id", guild_id)
        check_id("channel_id", channel_id)
        check_variant(variant)
        check_id("player_x", player_x)
        check_id("player_o", player_o)
        if player_x == player_o:
            raise InvalidInputError("a game needs two different players")
        check_text("state_json", state_json)
        now = check_time("now", now)
        check_count("match_length", match_length, 1, MAX_MATCH_LENGTH)
        check_optional_id("challenge_id", challenge_id)
        check_optional_id("board_message_id", board_message_id)
        check_moves(moves)
        if ai_level is not None:
            check_text("ai_level", ai_level)
        async with self._write() as tx:
            try:
                inserted = await tx.fetchall(
                    "INSERT INTO games (guild_id, channel_id, variant, player_x, player_o, "
                    "match_length, status, state_json, version, board_message_id, created_at, "
                    "last_action_at, ai_level, rated, hints, board_owed_version) "
                    "VALUES (?, ?, ?, ?, ?, ?, 'active', ?, 0, ?, ?, ?, ?, ?, ?, "
                    f"{'0' if owe_board else 'NULL'}) RETURNING id",
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
                        ai_level,
                        int(bool(rated)),
                        int(bool(hints)),
                    ),
                )
            except UniqueViolation as exc:
                raise ChannelBusyError(f"channel {channel_id} already has an active game") from exc
            game_id = int(inserted[0][0])
            if challenge_id is not None:
                changed = await tx.execute(
                    "UPDATE challenges SET status = 'accepted', game_id = ? "
                    "WHERE id = ? AND status = 'open' AND channel_id = ? AND expires_at > ?",
                    (game_id, challenge_id, channel_id, now),
                )
                if changed != 1:
                    raise ConflictError(f"challenge {challenge_id} is no longer open")
            await _insert_moves(tx, game_id, moves, now)
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
            ai_level,
            bool(rated),
            bool(hints),
            0 if owe_board else None,
        )

    async def get_game(self, game_id: int) -> Game | None:
        check_id("game_id", game_id)
        row = await self._fetch_by_key(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return None if row is None else game_from_row(row)

    async def get_active_game(self, channel_id: int) -> Game | None:
        check_id("channel_id", channel_id)
        row = await self._fetch_by_key(
            f"SELECT {GAME_COLUMNS} FROM games WHERE channel_id = ? AND status = 'active'",
            (channel_id,),
        )
        return None if row is None else game_from_row(row)

    async def list_active_games(self, guild_id: int | None = None) -> list[Game]:
        """Active games (of one guild, or all), oldest first - e.g. to restore views at start."""
        if guild_id is None:
            rows = await self._fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'active' ORDER BY id"
            )
        else:
            check_id("guild_id", guild_id)
            rows = await self._fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'active' AND guild_id = ? "
                "ORDER BY id",
                (guild_id,),
            )
        return [game_from_row(row) for row in rows]

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
        owe_board: bool = False,
    ) -> Game:
        """Save the new state and append ``moves`` to the history in ONE transaction.

        Optimistic concurrency: succeeds only if the game is active at ``expected_version``;
        then the version is bumped. Of two callers holding the same version exactly one wins,
        the other gets :class:`ConflictError`. Returns the updated game. The transaction is
        committed (and, with ``synchronous=FULL``, on disk) when this returns.
        ``owe_board``: in the same transaction, record that the channel is owed the board of
        the new version (cleared by :meth:`set_board_message` / :meth:`board_shown`).
        """
        check_id("game_id", game_id)
        check_count("expected_version", expected_version, 0, MAX_ID)
        check_text("new_state_json", new_state_json)
        now = check_time("now", now)
        check_moves(moves)
        async with self._write() as tx:
            owe = ", board_owed_version = version + 1" if owe_board else ""
            # RETURNING: the updated row comes back with the UPDATE (one statement fewer per
            # move; the moves inserted below do not change it).
            rows = await tx.fetchall(
                "UPDATE games SET state_json = ?, version = version + 1, last_action_at = ?, "
                f"reminded_at = NULL, abort_requested_by = NULL{owe} "
                f"WHERE id = ? AND version = ? AND status = 'active' RETURNING {GAME_COLUMNS}",
                (new_state_json, now, game_id, expected_version),
            )
            if len(rows) != 1:
                raise ConflictError(
                    f"game {game_id} is not active at version {expected_version} any more"
                )
            await _insert_moves(tx, game_id, moves, now)
        return game_from_row(rows[0])

    async def set_board_message(
        self, game_id: int, message_id: int | None, *, shown_version: int | None = None
    ) -> bool:
        """Remember the message holding the game's buttons (not a state change: no version
        bump). False if there is no such game.

        ``shown_version``: that message shows the game at this version, so a board owed up to
        it is paid (one write with the message id)."""
        check_id("game_id", game_id)
        check_optional_id("message_id", message_id)
        sql, params = "UPDATE games SET board_message_id = ?", [message_id]
        if shown_version is not None:
            check_count("shown_version", shown_version, 0, MAX_ID)
            sql += (
                ", board_owed_version = CASE WHEN board_owed_version <= ? THEN NULL "
                "ELSE board_owed_version END"
            )
            params.append(shown_version)
        async with self._write() as tx:
            changed = await tx.execute(f"{sql} WHERE id = ?", (*params, game_id))
            return changed == 1

    async def board_shown(self, game_id: int, version: int) -> bool:
        """The channel shows the game at ``version`` (a board redrawn in place): a board owed
        up to that version is paid. True if a debt was cleared."""
        check_id("game_id", game_id)
        check_count("version", version, 0, MAX_ID)
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE games SET board_owed_version = NULL "
                "WHERE id = ? AND board_owed_version <= ?",
                (game_id, version),
            )
            return changed == 1

    async def list_owed_boards(self) -> list[Game]:
        """Active and finished games whose channel was never shown their latest committed
        board (the bot stopped, or Discord failed, between the commit and the post), oldest
        first."""
        rows = await self._fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE board_owed_version IS NOT NULL "
            "AND status IN ('active', 'finished') ORDER BY id"
        )
        return [game_from_row(row) for row in rows]

    async def mark_reminded(
        self, game_id: int, *, now: float, expected: Game | None = None
    ) -> bool:
        """Record that the idle player was reminded (until the next action); False if the game
        is not active.

        With ``expected`` (the game as the caller read it) this is a compare-and-set that claims
        the notice: it succeeds only if neither the game (version) nor its ``reminded_at``
        changed since, so of several processes about to post the same reminder exactly one
        gets True and posts it."""
        check_id("game_id", game_id)
        now = check_time("now", now)
        sql = "UPDATE games SET reminded_at = ? WHERE id = ? AND status = 'active'"
        params: tuple[Any, ...] = (now, game_id)
        if expected is not None:
            if not isinstance(expected, Game) or expected.id != game_id:
                raise InvalidInputError("expected must be the Game being marked")
            sql += " AND version = ?"
            params += (expected.version,)
            if expected.reminded_at is None:
                sql += " AND reminded_at IS NULL"
            else:
                sql += " AND reminded_at = ?"
                params += (expected.reminded_at,)
        async with self._write() as tx:
            changed = await tx.execute(sql, params)
            return changed == 1

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
        owe_board: bool = False,
    ) -> FinishedGame:
        """Finish an active game at ``expected_version``, all in ONE transaction: the result, the
        final state and ``moves``, and both players' ratings, statistics and rating history in
        the game's variant and in the overall rating. An unrated game (against the computer, or
        with hints) only records its result: no rating, statistics or history rows.

        Rating (Glicko-2, one game = one rating period, each side against the other's pre-game
        rating): a tie/draw (0 points, no winner) is 0.5 each; every other kind, including
        resign, timeout and a cube pass, is a win for the winner.
        ``owe_board``: the channel is owed the final board (as in :meth:`commit_action`);
        without it, no board is owed any more.
        Raises :class:`ConflictError` (version moved on / not active) or
        :class:`InvalidInputError` (inconsistent result); then nothing is written.
        """
        check_id("game_id", game_id)
        check_count("expected_version", expected_version, 0, MAX_ID)
        check_text("final_state_json", final_state_json)
        now = check_time("now", now)
        check_moves(moves)
        tau = check_tau(tau)
        async with self._write() as tx:
            rows = await tx.fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?{self._FOR_UPDATE}", (game_id,)
            )
            game = game_from_row(rows[0]) if rows else None
            if game is None or game.status != "active" or game.version != expected_version:
                raise ConflictError(
                    f"game {game_id} is not active at version {expected_version} any more"
                )
            score_x, score_o = check_result(result, game.player_x, game.player_o)
            # The ratings read below are rewritten from what was read: no other finish in
            # this guild may run in between.
            await self._lock_guild(tx, game.guild_id)
            owed = "version + 1" if owe_board else "NULL"
            await tx.execute(
                "UPDATE games SET status = 'finished', state_json = ?, version = version + 1, "
                "last_action_at = ?, finished_at = ?, winner_id = ?, result_kind = ?, "
                f"points = ?, score_x = ?, score_o = ?, board_owed_version = {owed} WHERE id = ?",
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
            await _insert_moves(tx, game_id, moves, now)
            changes: list[RatingChange] = []
            for variant in (game.variant, OVERALL) if game.rated else ():
                key_x = (game.guild_id, variant, game.player_x)
                key_o = (game.guild_id, variant, game.player_o)
                before = await _load_stats(tx, (key_x, key_o))
                after_x, after_o = rate(
                    before[key_x], before[key_o], result, (score_x, score_o), now, tau
                )
                await tx.executemany(_STATS_UPSERT, [stats_params(after_x), stats_params(after_o)])
                await self._insert_history(tx, game_id, (after_x, after_o), now)
                for old, new in ((before[key_x], after_x), (before[key_o], after_o)):
                    changes.append(RatingChange(new.user_id, variant, old.glicko, new.glicko))
            rows = await tx.fetchall(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return FinishedGame(game_from_row(rows[0]), tuple(changes))

    async def _insert_history(
        self,
        tx: Tx,
        game_id: int,
        rows: Sequence[PlayerStats],
        now: float,
    ) -> None:
        # A method (not inlined) so that a test can make it fail and check the rollback.
        await tx.executemany(
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
        check_id("game_id", game_id)
        if expected_version is not None:
            check_count("expected_version", expected_version, 0, MAX_ID)
        if final_state_json is not None:
            check_text("final_state_json", final_state_json)
        now = check_time("now", now)
        check_moves(moves)
        async with self._write() as tx:
            sql = (
                "UPDATE games SET status = 'aborted', version = version + 1, "
                "state_json = COALESCE(?, state_json), last_action_at = ?, finished_at = ? "
                "WHERE id = ? AND status = 'active'"
            )
            params: tuple[Any, ...] = (final_state_json, now, now, game_id)
            if expected_version is not None:
                sql += " AND version = ?"
                params += (expected_version,)
            changed = await tx.execute(sql, params)
            if changed != 1:
                raise ConflictError(f"game {game_id} is not active (at that version)")
            await _insert_moves(tx, game_id, moves, now)
            rows = await tx.fetchall(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return game_from_row(rows[0])

    async def request_abort(
        self, game_id: int, user_id: int, *, now: float, moves: Sequence[NewMove] = ()
    ) -> tuple[str, Game]:
        """A player asks to abort an active game; the request is stored with the game.

        Returns ``("aborted", game)`` when the other player had asked already (the game is
        aborted in the same transaction, with ``moves``), ``("requested", game)`` for a new
        request and ``("repeated", game)`` when this player had asked already. Both requests
        agree whichever lands first. Any later action on the game clears the request.
        Raises :class:`ConflictError` if the game is not active, :class:`InvalidInputError` if
        ``user_id`` is not one of its players.
        """
        check_id("game_id", game_id)
        check_id("user_id", user_id)
        now = check_time("now", now)
        check_moves(moves)
        async with self._write() as tx:
            rows = await tx.fetchall(
                "SELECT player_x, player_o, abort_requested_by FROM games "
                f"WHERE id = ? AND status = 'active'{self._FOR_UPDATE}",
                (game_id,),
            )
            if not rows:
                raise ConflictError(f"game {game_id} is not active")
            player_x, player_o, requested = rows[0]
            if user_id not in (player_x, player_o):
                raise InvalidInputError(f"user {user_id} is not a player of game {game_id}")
            if requested is None or requested == user_id:
                outcome = "repeated" if requested == user_id else "requested"
                await tx.execute(
                    "UPDATE games SET abort_requested_by = ? WHERE id = ?", (user_id, game_id)
                )
            else:
                outcome = "aborted"
                await tx.execute(
                    "UPDATE games SET status = 'aborted', version = version + 1, "
                    "last_action_at = ?, finished_at = ? WHERE id = ?",
                    (now, now, game_id),
                )
                await _insert_moves(tx, game_id, moves, now)
            rows = await tx.fetchall(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return outcome, game_from_row(rows[0])

    async def abort_requested_by(self, game_id: int) -> int | None:
        """The player whose abort request on the game is pending, if any."""
        check_id("game_id", game_id)
        row = await self._fetchone(
            "SELECT abort_requested_by FROM games WHERE id = ? AND status = 'active'", (game_id,)
        )
        return None if row is None or row[0] is None else int(row[0])

    async def game_moves(self, game_id: int) -> list[Move]:
        """The game's history, in order."""
        check_id("game_id", game_id)
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
        check_id("guild_id", guild_id)
        check_optional_id("user_id", user_id)
        check_count("limit", limit, 0, MAX_PAGE)
        order = "ORDER BY finished_at DESC, id DESC LIMIT ?"
        if user_id is None:
            rows = await self._fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE guild_id = ? AND status = 'finished' "
                + order,
                (guild_id, limit),
            )
        else:
            # One indexed, limited scan per seat, merged: an OR over two columns could not
            # use both indexes and keep the order.
            seat = (
                f"SELECT * FROM (SELECT {GAME_COLUMNS} FROM games WHERE guild_id = ? AND "
                "{col} = ? AND status = 'finished' " + order + ") AS {col}_games"
            )
            rows = await self._fetchall(
                seat.format(col="player_x")
                + " UNION ALL "
                + seat.format(col="player_o")
                + " "
                + order,
                (guild_id, user_id, limit, guild_id, user_id, limit, limit),
            )
        return [game_from_row(row) for row in rows]

    async def games_needing_reminder(
        self, now: float, *, shards: Shards | None = None
    ) -> list[Game]:
        """Active games idle for at least their guild's ``reminder_after_seconds`` whose idle
        player has not been reminded since the last action (with ``shards``: only in the
        guilds of those shards)."""
        now = check_time("now", now)
        where, params = _shard_filter(shards, "g.guild_id")
        rows = await self._fetchall(
            f"SELECT {prefixed(GAME_COLUMNS, 'g')} FROM games AS g "
            "LEFT JOIN guild_settings AS s ON s.guild_id = g.guild_id "
            "WHERE g.status = 'active' AND g.reminded_at IS NULL "
            f"AND g.last_action_at + COALESCE(s.reminder_after_seconds, ?) <= ?{where} "
            "ORDER BY g.last_action_at, g.id",
            (GuildSettings(0).reminder_after_seconds, now, *params),
        )
        return [game_from_row(row) for row in rows]

    async def claimable_games(self, now: float, *, shards: Shards | None = None) -> list[Game]:
        """Active games idle for at least their guild's ``claim_after_seconds`` (the waiting
        player may claim the win; storage does not know whose turn it is); with ``shards``,
        only in the guilds of those shards."""
        now = check_time("now", now)
        where, params = _shard_filter(shards, "g.guild_id")
        rows = await self._fetchall(
            f"SELECT {prefixed(GAME_COLUMNS, 'g')} FROM games AS g "
            "LEFT JOIN guild_settings AS s ON s.guild_id = g.guild_id "
            "WHERE g.status = 'active' "
            f"AND g.last_action_at + COALESCE(s.claim_after_seconds, ?) <= ?{where} "
            "ORDER BY g.last_action_at, g.id",
            (GuildSettings(0).claim_after_seconds, now, *params),
        )
        return [game_from_row(row) for row in rows]

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
        check_id("guild_id", guild_id)
        board = OVERALL if variant is None else check_variant(variant)
        check_count("limit", limit, 0, MAX_PAGE)
        check_count("offset", offset, 0, MAX_ID)
        flag = (bool(include_provisional), glicko2.PROVISIONAL_RD)
        async with self._read() as tx:
            # The page straight off the leaderboard index (no sort; OFFSET skips index entries).
            rows = list(
                await tx.fetchall(
                    "SELECT user_id, rating, rd, games, wins, losses, draws, points_won "
                    "FROM ratings WHERE guild_id = ? AND variant = ? AND (? OR rd <= ?) "
                    "ORDER BY rating DESC, games DESC, user_id LIMIT ? OFFSET ?",
                    (guild_id, board, *flag, limit, offset),
                )
            )
            if not rows:
                return []
            # Only the first row's rank needs a count; the others follow from the order.
            above = await tx.fetchall(
                "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND variant = ? "
                "AND rating > ? AND (? OR rd <= ?)",
                (guild_id, board, rows[0]["rating"], *flag),
            )
        rank = int(above[0][0]) + 1
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
        check_id("guild_id", guild_id)
        board = OVERALL if variant is None else check_variant(variant)
        row = await self._fetchone(
            "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND variant = ? AND (? OR rd <= ?)",
            (guild_id, board, bool(include_provisional), glicko2.PROVISIONAL_RD),
        )
        return 0 if row is None else int(row[0])

    async def get_player_stats(
        self, guild_id: int, user_id: int, variant: str | None = None
    ) -> PlayerStats | None:
        """A player's row in one variant (None: overall); None if they never finished one."""
        check_id("guild_id", guild_id)
        check_id("user_id", user_id)
        board = OVERALL if variant is None else check_variant(variant)
        row = await self._fetchone(
            f"SELECT {STATS_SELECT} FROM ratings "
            "WHERE guild_id = ? AND variant = ? AND user_id = ?",
            (guild_id, board, user_id),
        )
        return None if row is None else stats_from_row(row)

    async def player_stats(self, guild_id: int, user_id: int) -> list[PlayerStats]:
        """All of a player's rows in the guild: overall first, then the variants by name."""
        check_id("guild_id", guild_id)
        check_id("user_id", user_id)
        rows = await self._fetchall(
            f"SELECT {STATS_SELECT} FROM ratings WHERE guild_id = ? AND user_id = ? "
            "ORDER BY variant <> ?, variant",
            (guild_id, user_id, OVERALL),
        )
        return [stats_from_row(row) for row in rows]

    async def rating_history(
        self,
        guild_id: int,
        user_id: int,
        variant: str | None = None,
        *,
        limit: int | None = None,
    ) -> list[RatingPoint]:
        """The player's rating after each game, oldest first (``limit``: only the latest N)."""
        check_id("guild_id", guild_id)
        check_id("user_id", user_id)
        board = OVERALL if variant is None else check_variant(variant)
        params: tuple[Any, ...] = (guild_id, user_id, board)
        cap = ""
        if limit is not None:
            cap = " LIMIT ?"
            params += (check_count("limit", limit, 0, 1_000_000),)
        rows = await self._fetchall(
            "SELECT game_id, variant, rating, rd, at FROM ("
            "SELECT id, game_id, variant, rating, rd, at FROM rating_history "
            "WHERE guild_id = ? AND user_id = ? AND variant = ? "
            f"ORDER BY at DESC, id DESC{cap}) AS latest ORDER BY at, id",
            params,
        )
        return [RatingPoint(*row) for row in rows]

    # ------------------------------------------------------------------ bulk import

    async def computer_record(self, guild_id: int, user_id: int) -> list[ComputerRecord]:
        """``user_id``'s finished games against each level of the computer (levels played)."""
        check_id("guild_id", guild_id)
        check_id("user_id", user_id)
        rows = await self._fetchall(
            "SELECT ai_level, COUNT(*), "
            "SUM(CASE WHEN winner_id = ? THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN winner_id IS NULL THEN 1 ELSE 0 END) "
            "FROM games WHERE guild_id = ? AND player_x = ? AND status = 'finished' "
            "AND ai_level IS NOT NULL GROUP BY ai_level ORDER BY ai_level",
            (user_id, guild_id, user_id),
        )
        out = []
        for level, games, wins, draws in rows:
            games, wins, draws = int(games), int(wins or 0), int(draws or 0)
            out.append(ComputerRecord(level, games, wins, games - wins - draws, draws))
        return out

    async def bulk_import_finished_games(
        self, games: Iterable[ImportedGame], *, tau: float = glicko2.DEFAULT_TAU
    ) -> int:
        """Insert finished games and rate them in order, in ONE transaction (for imports and
        benchmarks). Ratings, statistics and history come out exactly as if each game had
        gone through :meth:`finish_game` at its ``finished_at``. Returns the number of games.
        """
        async with self._write() as tx:
            next_id = await self._import_first_id(tx)
            locked: set[int] = set()
            cache: dict[StatsKey, PlayerStats] = {}
            game_rows: list[tuple[Any, ...]] = []
            history_rows: list[tuple[Any, ...]] = []
            count = 0
            for game in games:
                if not isinstance(game, ImportedGame):
                    raise InvalidInputError(f"expected ImportedGame, got {game!r}")
                check_id("guild_id", game.guild_id)
                check_id("channel_id", game.channel_id)
                check_variant(game.variant)
                check_id("player_x", game.player_x)
                check_id("player_o", game.player_o)
                if game.player_x == game.player_o:
                    raise InvalidInputError("a game needs two different players")
                check_count("match_length", game.match_length, 1, MAX_MATCH_LENGTH)
                if game.guild_id not in locked:
                    await self._lock_guild(tx, game.guild_id)
                    locked.add(game.guild_id)
                check_text("state_json", game.state_json)
                created = check_time("created_at", game.created_at)
                finished = check_time("finished_at", game.finished_at)
                result = game.result
                scores = check_result(result, game.player_x, game.player_o)
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
                        cache.update(await _load_stats(tx, missing))
                    after = rate(cache[keys[0]], cache[keys[1]], result, scores, finished, tau)
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
                    await _flush_import(tx, game_rows, history_rows)
            await _flush_import(tx, game_rows, history_rows)
            await tx.executemany(_STATS_UPSERT, [stats_params(s) for s in cache.values()])
            await self._import_done(tx)
        return count


def _shard_filter(shards: Shards | None, column: str) -> tuple[str, tuple[int, ...]]:
    """`` AND <column's shard> IN (...)`` for ``shards`` (nothing for None)."""
    if shards is None:
        return "", ()
    if not isinstance(shards, Shards):
        raise InvalidInputError(f"shards must be a Shards, got {shards!r}")
    marks = ", ".join("?" * len(shards.ids))
    return f" AND ({column} >> 22) % ? IN ({marks})", (shards.count, *shards.ids)


async def _flush_import(
    tx: Tx,
    game_rows: list[tuple[Any, ...]],
    history_rows: list[tuple[Any, ...]],
) -> None:
    await tx.executemany(_GAME_IMPORT, game_rows)
    await tx.executemany(_HISTORY_INSERT, history_rows)
    game_rows.clear()
    history_rows.clear()


async def _load_stats(tx: Tx, keys: Sequence[StatsKey]) -> dict[StatsKey, PlayerStats]:
    """The rows for ``keys``, a fresh default row for a player who has none yet."""
    found: dict[StatsKey, PlayerStats] = {}
    for key in keys:
        rows = await tx.fetchall(
            f"SELECT {STATS_SELECT} FROM ratings "
            "WHERE guild_id = ? AND variant = ? AND user_id = ?",
            key,
        )
        found[key] = stats_from_row(rows[0]) if rows else new_stats(key)
    return found


async def _insert_moves(tx: Tx, game_id: int, moves: Sequence[NewMove], now: float) -> None:
    """Append to the history; the caller holds the game's row (its UPDATE locked it)."""
    if not moves:
        return
    rows = await tx.fetchall(
        "SELECT COALESCE(MAX(seq), 0) FROM moves WHERE game_id = ?", (game_id,)
    )
    start = int(rows[0][0]) + 1
    await tx.executemany(
        _MOVE_INSERT,
        [
            (game_id, start + i, move.actor_id, move.kind, move.text, now)
            for i, move in enumerate(moves)
        ],
    )
