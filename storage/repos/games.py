"""Games: starting, moving, finishing and aborting a game, and its history of moves.

The rest of the games aggregate (board messages, owed boards, abort requests, reminders and
claims) is :mod:`storage.repos.game_upkeep`; the ratings a finished game changes are written by
:mod:`storage.repos.ratings`, in the same transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from league import glicko2
from storage.checks import (
    MAX_ID,
    MAX_PAGE,
    MAX_STORED_MATCH_LENGTH,
    check_count,
    check_id,
    check_moves,
    check_optional_id,
    check_result,
    check_tau,
    check_text,
    check_time,
    check_variant,
)
from storage.core import Tx, UniqueViolation
from storage.errors import ChannelBusyError, ConflictError, InvalidInputError
from storage.models import (
    GAME_CONTEXTS,
    NO_GUILD,
    FinishedGame,
    Game,
    GameContext,
    MatchResult,
    Move,
    NewMove,
)
from storage.repos.ratings import RatingsRepository
from storage.repos.tournaments import record_match_aborted, record_match_result
from storage.rows import GAME_COLUMNS, game_from_row

_MOVE_INSERT = (
    "INSERT INTO moves (game_id, seq, actor_id, kind, text, at) VALUES (?, ?, ?, ?, ?, ?)"
)


async def insert_moves(tx: Tx, game_id: int, moves: Sequence[NewMove], now: float) -> None:
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


class GameRepository(RatingsRepository):
    """The ``games`` rows through their life, and the ``moves`` history. Finishing a rated
    game rates it (:meth:`RatingsRepository._rate_finished_game`), in the same transaction."""

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
        parent_channel_id: int | None = None,
        pairing_id: int | None = None,
        context: GameContext = "guild",
    ) -> Game:
        """Start a game (version 0). ``player_x`` is the challenger, in the first seat.

        ``ai_level``: seat O is the computer at that level. ``rated`` False keeps the game out
        of the ratings; ``hints``: both players agreed to allow hints. ``owe_board``: the
        channel is owed the first board (see :meth:`list_owed_boards`).

        ``parent_channel_id``: the game is played in a thread (``channel_id``) opened in that
        channel, where the challenge was. With ``challenge_id``, that open challenge of the
        same channel (the parent's, for a thread) is marked accepted in the same transaction
        (:class:`ConflictError` if it is not open or has expired).
        ``pairing_id``: the game is that tournament match's, which is marked started with it
        (:class:`ConflictError` if that match has a game already or is over).
        ``context``: where it is played (:data:`storage.models.GameContext`); a game outside a
        server (``"dm"``, ``"user"``) has ``guild_id`` :data:`NO_GUILD` and is never rated.
        Raises :class:`ChannelBusyError` if the channel already has an active game.
        """
        check_id("guild_id", guild_id)
        if context not in GAME_CONTEXTS:
            raise InvalidInputError(f"unknown game context {context!r}")
        if context != "guild" and (guild_id != NO_GUILD or rated):
            raise InvalidInputError("a game outside a server has guild_id 0 and is not rated")
        check_id("channel_id", channel_id)
        check_variant(variant)
        check_id("player_x", player_x)
        check_id("player_o", player_o)
        if player_x == player_o:
            raise InvalidInputError("a game needs two different players")
        check_text("state_json", state_json)
        now = check_time("now", now)
        check_count("match_length", match_length, 1, MAX_STORED_MATCH_LENGTH)
        check_optional_id("challenge_id", challenge_id)
        check_optional_id("board_message_id", board_message_id)
        check_optional_id("parent_channel_id", parent_channel_id)
        check_optional_id("pairing_id", pairing_id)
        check_moves(moves)
        if ai_level is not None:
            check_text("ai_level", ai_level)
        async with self._write() as tx:
            try:
                inserted = await tx.fetchall(
                    "INSERT INTO games (guild_id, channel_id, variant, player_x, player_o, "
                    "match_length, status, state_json, version, board_message_id, created_at, "
                    "last_action_at, ai_level, rated, hints, board_owed_version, "
                    "parent_channel_id, context) "
                    "VALUES (?, ?, ?, ?, ?, ?, 'active', ?, 0, ?, ?, ?, ?, ?, ?, "
                    f"{'0' if owe_board else 'NULL'}, ?, ?) RETURNING id",
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
                        parent_channel_id,
                        context,
                    ),
                )
            except UniqueViolation as exc:
                raise ChannelBusyError(f"channel {channel_id} already has an active game") from exc
            game_id = int(inserted[0][0])
            if challenge_id is not None:
                changed = await tx.execute(
                    # Accepted by a person, the challenge's message (with its buttons) is owed
                    # its last edit; the computer's has none to take away.
                    "UPDATE challenges SET status = 'accepted', game_id = ?, retire_owed = ? "
                    "WHERE id = ? AND status = 'open' AND channel_id = ? AND expires_at > ?",
                    (
                        game_id,
                        int(ai_level is None),
                        challenge_id,
                        channel_id if parent_channel_id is None else parent_channel_id,
                        now,
                    ),
                )
                if changed != 1:
                    raise ConflictError(f"challenge {challenge_id} is no longer open")
            if pairing_id is not None:
                changed = await tx.execute(
                    "UPDATE tournament_pairings SET game_id = ?, thread_id = ?, "
                    "state = 'playing' WHERE id = ? AND state = 'pending' AND game_id IS NULL",
                    (game_id, channel_id if parent_channel_id is not None else None, pairing_id),
                )
                if changed != 1:
                    raise ConflictError(f"tournament match {pairing_id} has started already")
            await insert_moves(tx, game_id, moves, now)
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
            parent_channel_id,
            context,
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
            await insert_moves(tx, game_id, moves, now)
        return game_from_row(rows[0])

    async def finish_game(
        self,
        game_id: int,
        expected_version: int,
        final_state_json: str,
        result: MatchResult,
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
        resign, timeout and a cube pass, is a win for the winner. ``result.winner_id`` is the
        winner's user id (one of the players), not a seat.
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
            await insert_moves(tx, game_id, moves, now)
            changes = await self._rate_finished_game(tx, game, result, (score_x, score_o), now, tau)
            await record_match_result(
                tx, game_id, game.player_x, result.winner_id, score_x, score_o, now
            )
            rows = await tx.fetchall(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return FinishedGame(game_from_row(rows[0]), changes)

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
            await record_match_aborted(tx, game_id, now)
            await insert_moves(tx, game_id, moves, now)
            rows = await tx.fetchall(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return game_from_row(rows[0])

    async def game_moves(self, game_id: int) -> list[Move]:
        """The game's history, in order."""
        check_id("game_id", game_id)
        rows = await self._fetchall(
            "SELECT game_id, seq, actor_id, kind, text, at FROM moves WHERE game_id = ? "
            "ORDER BY seq",
            (game_id,),
        )
        return [Move(*row) for row in rows]

    async def last_move_at(self, game_id: int, user_id: int) -> float | None:
        """When ``user_id`` last acted in the game (None: never)."""
        check_id("game_id", game_id)
        check_id("user_id", user_id)
        row = await self._fetch_by_key(
            "SELECT MAX(at) FROM moves WHERE game_id = ? AND actor_id = ?", (game_id, user_id)
        )
        return None if row is None or row[0] is None else float(row[0])

    async def last_actor(self, game_id: int) -> int | None:
        """Who made the game's latest recorded action (None: nobody, or the game itself)."""
        check_id("game_id", game_id)
        row = await self._fetch_by_key(
            "SELECT actor_id FROM moves WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,)
        )
        return None if row is None or row[0] is None else int(row[0])

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
