"""Ratings and stats: the Glicko-2 rating and statistics rows of each player per guild and
variant (and ``OVERALL``), their history, the leaderboards, the record against the computer,
and the bulk import that rates finished games in order.

What a rated game does to the rows is :mod:`storage.rating` (pure); here are the reads and the
writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from league import glicko2
from storage.checks import (
    MAX_ID,
    MAX_PAGE,
    MAX_STORED_MATCH_LENGTH,
    check_count,
    check_id,
    check_result,
    check_text,
    check_time,
    check_variant,
)
from storage.core import StorageCore, Tx
from storage.errors import InvalidInputError
from storage.models import (
    NO_GUILD,
    OVERALL,
    ComputerRecord,
    Game,
    ImportedGame,
    LeaderboardRow,
    MatchResult,
    PlayerStats,
    RatingChange,
    RatingPoint,
    SeasonRow,
)
from storage.rating import StatsKey, new_stats, rate
from storage.rows import STATS_COLUMNS, STATS_SELECT, stats_from_row, stats_params

_STATS_UPSERT = (
    f"INSERT INTO ratings ({STATS_SELECT}) VALUES ({', '.join('?' * len(STATS_COLUMNS))}) "
    "ON CONFLICT (guild_id, user_id, variant) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in STATS_COLUMNS[3:])
)
_HISTORY_INSERT = (
    "INSERT INTO rating_history (guild_id, variant, user_id, game_id, rating, rd, at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)

_GAME_IMPORT = (
    "INSERT INTO games (id, guild_id, channel_id, variant, player_x, player_o, match_length, "
    "status, state_json, version, created_at, last_action_at, finished_at, winner_id, "
    "result_kind, points, score_x, score_o) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, 'finished', ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)"
)


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


class RatingsRepository(StorageCore):
    """The ``ratings`` and ``rating_history`` tables (and the finished ``games`` they count)."""

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

    async def season_results(
        self, guild_id: int, variant: str | None, start: float, end: float
    ) -> list[SeasonRow]:
        """Every player's rated results of games finished in ``[start, end)`` in ``variant``
        (None: all variants), best first (see :class:`SeasonRow`)."""
        check_id("guild_id", guild_id)
        board = OVERALL if variant is None else check_variant(variant)
        start, end = check_time("start", start), check_time("end", end)
        rows = await self._fetchall(
            "SELECT h.user_id, h.rating, h.at, h.id, g.winner_id, g.player_x, g.score_x, "
            "g.score_o, (SELECT p.rating FROM rating_history p WHERE p.guild_id = h.guild_id "
            "AND p.variant = h.variant AND p.user_id = h.user_id AND p.at < h.at "
            "ORDER BY p.at DESC, p.id DESC LIMIT 1) "
            "FROM rating_history h JOIN games g ON g.id = h.game_id "
            "WHERE h.guild_id = ? AND h.variant = ? AND h.at >= ? AND h.at < ? "
            "ORDER BY h.at, h.id",
            (guild_id, board, start, end),
        )
        tally: dict[int, list[Any]] = {}
        for user, rating, _at, _id, winner, player_x, score_x, score_o, before in rows:
            entry = tally.get(user)
            if entry is None:
                first = glicko2.DEFAULT_RATING if before is None else float(before)
                # games, wins, losses, draws, points, last rating, rating before the season
                entry = tally[user] = [0, 0, 0, 0, 0, float(rating), first]
            entry[0] += 1
            if winner is None:
                entry[3] += 1
            elif winner == user:
                entry[1] += 1
            else:
                entry[2] += 1
            entry[4] += int(score_x if player_x == user else score_o)
            entry[5] = float(rating)
        order = sorted(
            tally.items(),
            key=lambda item: (-(item[1][1] + item[1][3] / 2), -(item[1][5] - item[1][6]), item[0]),
        )
        result: list[SeasonRow] = []
        for position, (user, (games, wins, losses, draws, points, last, first)) in enumerate(
            order, start=1
        ):
            row = SeasonRow(position, user, games, wins, losses, draws, points, last, last - first)
            before = result[-1] if result else None
            if before is not None and (before.score, before.change) == (row.score, row.change):
                row = replace(row, rank=before.rank)  # a tie shares the rank (1, 2, 2, 4)
            result.append(row)
        return result

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

    async def practice_record(self, user_id: int) -> list[ComputerRecord]:
        """``user_id``'s finished games of no server (the bot's DM, the app installed to their
        account) against each level of the computer: never in a server's ratings."""
        return await self.computer_record(NO_GUILD, user_id)

    # ------------------------------------------------------------------ writes

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
                check_count("match_length", game.match_length, 1, MAX_STORED_MATCH_LENGTH)
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

    async def _rate_finished_game(
        self,
        tx: Tx,
        game: Game,
        result: MatchResult,
        scores: tuple[int, int],
        now: float,
        tau: float,
    ) -> tuple[RatingChange, ...]:
        """Rate a game ``finish_game`` just finished, in its transaction (which holds the
        guild's lock): both players' rows, statistics and history, in the game's variant and in
        ``OVERALL``. An unrated game changes nothing."""
        changes: list[RatingChange] = []
        for variant in (game.variant, OVERALL) if game.rated else ():
            key_x = (game.guild_id, variant, game.player_x)
            key_o = (game.guild_id, variant, game.player_o)
            before = await _load_stats(tx, (key_x, key_o))
            after_x, after_o = rate(before[key_x], before[key_o], result, scores, now, tau)
            await tx.executemany(_STATS_UPSERT, [stats_params(after_x), stats_params(after_o)])
            await self._insert_history(tx, game.id, (after_x, after_o), now)
            for old, new in ((before[key_x], after_x), (before[key_o], after_o)):
                changes.append(RatingChange(new.user_id, variant, old.glicko, new.glicko))
        return tuple(changes)

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
