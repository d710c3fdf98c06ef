"""Games (continued): what goes on around a game besides its moves - the message showing
its board and the boards the channel is still owed, the players' abort requests, and the
sweeps for idle games (reminders, claims)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from storage.checks import MAX_ID, check_count, check_id, check_moves, check_optional_id, check_time
from storage.core import StorageCore, UniqueViolation, shard_filter
from storage.errors import ChannelBusyError, ConflictError, InvalidInputError
from storage.models import Game, GuildSettings, NewMove, Shards
from storage.repos.games import insert_moves
from storage.repos.tournaments import record_match_aborted
from storage.rows import GAME_COLUMNS, game_from_row, prefixed


class GameUpkeepRepository(StorageCore):
    """The board, abort-request and reminder columns of the ``games`` rows."""

    # ------------------------------------------------------------------ boards

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

    async def move_to_parent_channel(self, game_id: int) -> Game | None:
        """The game's thread is gone: the active game goes on in the channel the thread was
        opened in, which is owed its board. None if the game is not active in a thread; raises
        :class:`ChannelBusyError` if that channel has an active game of its own."""
        check_id("game_id", game_id)
        async with self._write() as tx:
            try:
                rows = await tx.fetchall(
                    "UPDATE games SET channel_id = parent_channel_id, parent_channel_id = NULL, "
                    "board_message_id = NULL, board_owed_version = version "
                    "WHERE id = ? AND status = 'active' AND parent_channel_id IS NOT NULL "
                    f"RETURNING {GAME_COLUMNS}",
                    (game_id,),
                )
            except UniqueViolation as exc:
                raise ChannelBusyError(f"the channel of game {game_id} has a game") from exc
        return game_from_row(rows[0]) if rows else None

    # ------------------------------------------------------------------ abort requests

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
                await record_match_aborted(tx, game_id, now)
                await insert_moves(tx, game_id, moves, now)
            rows = await tx.fetchall(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return outcome, game_from_row(rows[0])

    async def abort_requested_by(self, game_id: int) -> int | None:
        """The player whose abort request on the game is pending, if any."""
        check_id("game_id", game_id)
        row = await self._fetchone(
            "SELECT abort_requested_by FROM games WHERE id = ? AND status = 'active'", (game_id,)
        )
        return None if row is None or row[0] is None else int(row[0])

    # ------------------------------------------------------------------ idle games

    async def games_needing_reminder(
        self, now: float, *, shards: Shards | None = None
    ) -> list[Game]:
        """Active games idle for at least their guild's ``reminder_after_seconds`` whose idle
        player has not been reminded since the last action (with ``shards``: only in the
        guilds of those shards)."""
        now = check_time("now", now)
        where, params = shard_filter(shards, "g.guild_id")
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
        """Active games idle for at least their claim time (the waiting player may claim the
        win; storage does not know whose turn it is): their guild's ``claim_after_seconds``,
        in a tournament match the event's ``minutes`` when shorter (as /claim rules); with
        ``shards``, only in the guilds of those shards."""
        now = check_time("now", now)
        where, params = shard_filter(shards, "g.guild_id")
        server = GuildSettings(0).claim_after_seconds
        rows = await self._fetchall(
            f"SELECT {prefixed(GAME_COLUMNS, 'g')} FROM games AS g "
            "LEFT JOIN guild_settings AS s ON s.guild_id = g.guild_id "
            "LEFT JOIN (SELECT p.game_id, MIN(t.minutes) * 60 AS event_seconds "
            "FROM tournament_pairings AS p JOIN tournaments AS t ON t.id = p.tournament_id "
            "WHERE p.game_id IS NOT NULL GROUP BY p.game_id) AS e ON e.game_id = g.id "
            "WHERE g.status = 'active' AND g.last_action_at + CASE "
            "WHEN e.event_seconds < COALESCE(s.claim_after_seconds, ?) THEN e.event_seconds "
            f"ELSE COALESCE(s.claim_after_seconds, ?) END <= ?{where} "
            "ORDER BY g.last_action_at, g.id",
            (server, server, now, *params),
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
