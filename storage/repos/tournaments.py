"""Tournaments: registration, rounds paired exactly once, the matches' results and the
threads and pings each pairing is owed.

A round is paired by ONE transaction that moves ``tournaments.current_round`` from r to r+1
(only if it still is r) and inserts the round's pairings: of several processes (or a process
restarted after a kill -9) trying to pair the same round, exactly one succeeds. The pairings
are stored ``posted = 0``: their threads and pings are owed, and the owed list survives any
crash. A match's result is written by the transaction that finishes its game
(:func:`record_match_result`, called from ``finish_game``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from storage.checks import (
    MAX_STORED_MATCH_LENGTH,
    check_count,
    check_id,
    check_optional_id,
    check_text,
    check_time,
    check_variant,
)
from storage.core import StorageCore, Tx, shard_filter
from storage.errors import InvalidInputError
from storage.models import (
    MAX_TOURNAMENT_NAME,
    TOURNAMENT_FORMATS,
    NewPairing,
    Shards,
    Tournament,
    TournamentEntrant,
    TournamentPairing,
)
from storage.rows import Row

TOURNAMENT_COLUMNS = (
    "id, guild_id, channel_id, name, format, variant, match_length, rounds, minutes, starts_at, "
    "rated, max_players, state, current_round, round_started_at, organiser_id, "
    "signup_message_id, created_at, started_at, finished_at, announced_round"
)
ENTRANT_COLUMNS = "tournament_id, user_id, joined_order, rating, withdrawn"
PAIRING_COLUMNS = (
    "id, tournament_id, round, table_no, first_id, second_id, game_id, thread_id, state, "
    "winner_id, first_points, second_points, forfeit, sequence, posted, created_at, finished_at"
)
#: Most rounds an event may have (a round robin of 16 has 15; a long Swiss fewer).
MAX_ROUNDS = 64
MAX_MINUTES = 60 * 24 * 30
MAX_PLAYERS = 1024

JoinOutcome = str  # "joined", "already", "full", "closed"


def tournament_from_row(row: Row) -> Tournament:
    values = list(row)
    values[10] = bool(values[10])
    return Tournament(*values)


def entrant_from_row(row: Row) -> TournamentEntrant:
    tid, user, order, rating, withdrawn = row
    return TournamentEntrant(tid, user, order, float(rating), bool(withdrawn))


def pairing_from_row(row: Row) -> TournamentPairing:
    values = list(row)
    values[12] = bool(values[12])
    values[14] = bool(values[14])
    return TournamentPairing(*values)


async def _next_sequence(tx: Tx, tournament_id: int) -> int:
    rows = await tx.fetchall(
        "SELECT COALESCE(MAX(sequence), 0) + 1 FROM tournament_pairings WHERE tournament_id = ?",
        (tournament_id,),
    )
    return int(rows[0][0])


async def record_match_result(
    tx: Tx,
    game_id: int,
    player_x: int,
    winner_id: int | None,
    score_x: int,
    score_o: int,
    now: float,
) -> None:
    """In the transaction that finishes game ``game_id``: the result of its tournament match,
    if it is one (the match's points as the game's score)."""
    rows = await tx.fetchall(
        "SELECT id, tournament_id, first_id FROM tournament_pairings "
        "WHERE game_id = ? AND state = 'playing'",
        (game_id,),
    )
    if not rows:
        return
    pairing_id, tournament_id, first_id = rows[0]
    first_points, second_points = (score_x, score_o) if first_id == player_x else (score_o, score_x)
    await tx.execute(
        "UPDATE tournament_pairings SET state = 'finished', winner_id = ?, first_points = ?, "
        "second_points = ?, sequence = ?, finished_at = ? WHERE id = ?",
        (
            winner_id,
            first_points,
            second_points,
            await _next_sequence(tx, tournament_id),
            now,
            pairing_id,
        ),
    )


async def record_match_aborted(tx: Tx, game_id: int, now: float) -> None:
    """In the transaction that aborts game ``game_id``: its tournament match (if it is one) is
    a double forfeit (an aborted game has no result to count)."""
    rows = await tx.fetchall(
        "SELECT id, tournament_id FROM tournament_pairings WHERE game_id = ? AND state = 'playing'",
        (game_id,),
    )
    if not rows:
        return
    pairing_id, tournament_id = rows[0]
    await tx.execute(
        "UPDATE tournament_pairings SET state = 'forfeited', winner_id = NULL, forfeit = 1, "
        "sequence = ?, finished_at = ? WHERE id = ?",
        (await _next_sequence(tx, tournament_id), now, pairing_id),
    )


class TournamentRepository(StorageCore):
    """The ``tournaments``, ``tournament_entrants`` and ``tournament_pairings`` tables."""

    async def create_tournament(
        self,
        guild_id: int,
        channel_id: int,
        organiser_id: int,
        *,
        name: str,
        format: str,
        variant: str,
        now: float,
        match_length: int = 1,
        rounds: int | None = None,
        minutes: int = 60 * 24,
        starts_at: float | None = None,
        rated: bool = True,
        max_players: int | None = None,
    ) -> Tournament:
        """Open a tournament for registration."""
        check_id("guild_id", guild_id)
        check_id("channel_id", channel_id)
        check_id("organiser_id", organiser_id)
        name = check_text("name", name)
        if len(name) > MAX_TOURNAMENT_NAME:
            raise InvalidInputError(f"name must be at most {MAX_TOURNAMENT_NAME} characters")
        if format not in TOURNAMENT_FORMATS:
            raise InvalidInputError(f"format must be one of {TOURNAMENT_FORMATS}, got {format!r}")
        check_variant(variant)
        now = check_time("now", now)
        check_count("match_length", match_length, 1, MAX_STORED_MATCH_LENGTH)
        if rounds is not None:
            check_count("rounds", rounds, 1, MAX_ROUNDS)
        check_count("minutes", minutes, 1, MAX_MINUTES)
        if starts_at is not None:
            starts_at = check_time("starts_at", starts_at)
        if max_players is not None:
            check_count("max_players", max_players, 2, MAX_PLAYERS)
        async with self._write() as tx:
            rows = await tx.fetchall(
                "INSERT INTO tournaments (guild_id, channel_id, name, format, variant, "
                "match_length, rounds, minutes, starts_at, rated, max_players, state, "
                "current_round, organiser_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'registration', 0, ?, ?) "
                f"RETURNING {TOURNAMENT_COLUMNS}",
                (
                    guild_id,
                    channel_id,
                    name,
                    format,
                    variant,
                    match_length,
                    rounds,
                    minutes,
                    starts_at,
                    int(bool(rated)),
                    max_players,
                    organiser_id,
                    now,
                ),
            )
        return tournament_from_row(rows[0])

    async def get_tournament(self, tournament_id: int) -> Tournament | None:
        check_id("tournament_id", tournament_id)
        row = await self._fetch_by_key(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = ?", (tournament_id,)
        )
        return None if row is None else tournament_from_row(row)

    async def list_tournaments(self, guild_id: int, *, limit: int = 25) -> list[Tournament]:
        """The guild's tournaments, open and running ones first, then the most recent."""
        check_id("guild_id", guild_id)
        check_count("limit", limit, 1, 1000)
        rows = await self._fetchall(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE guild_id = ? "
            "ORDER BY CASE WHEN state IN ('registration', 'running') THEN 0 ELSE 1 END, "
            "id DESC LIMIT ?",
            (guild_id, limit),
        )
        return [tournament_from_row(row) for row in rows]

    async def live_tournaments(self, *, shards: Shards | None = None) -> list[Tournament]:
        """Tournaments in registration or running (in ``shards``' guilds), oldest first."""
        where, params = shard_filter(shards, "guild_id")
        rows = await self._fetchall(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments "
            f"WHERE state IN ('registration', 'running'){where} ORDER BY id",
            params,
        )
        return [tournament_from_row(row) for row in rows]

    async def unannounced_tournaments(self, *, shards: Shards | None = None) -> list[Tournament]:
        """Events (in ``shards``' guilds) that owe their channel an announcement, oldest first:
        a finished or cancelled one its end (and the rounds it has not announced), a running
        one the pairings of the rounds after ``announced_round`` (an arena only its first
        round's: its later matches have their own messages)."""
        where, params = shard_filter(shards, "guild_id")
        rows = await self._fetchall(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments "
            "WHERE ((state IN ('finished', 'cancelled') AND announced_end = 0) "
            "OR (state = 'running' AND announced_round < current_round "
            f"AND (format <> 'arena' OR announced_round = 0))){where} ORDER BY id",
            params,
        )
        return [tournament_from_row(row) for row in rows]

    async def tournament_announced(
        self, tournament_id: int, round_number: int, *, end: bool
    ) -> None:
        """Round ``round_number``'s pairings (or, ``end``, the event's end) are out (its claim,
        if any, is let go)."""
        check_id("tournament_id", tournament_id)
        async with self._write() as tx:
            await tx.execute(
                "UPDATE tournaments SET announced_round = CASE WHEN announced_round < ? "
                "THEN ? ELSE announced_round END, "
                "announced_end = CASE WHEN ? = 1 THEN 1 ELSE announced_end END, "
                "announce_claimed_until = NULL, announce_attempts = 0 WHERE id = ?",
                (round_number, round_number, int(end), tournament_id),
            )

    async def claim_announcement(
        self, tournament_id: int, round_number: int, *, end: bool, now: float, until: float
    ) -> int:
        """Claim posting round ``round_number``'s pairings (``end``: the event's end) until
        ``until``: for exactly one of several callers while that is owed (a round paired
        and not announced, of a running or finished event) and nobody's claim runs (a claim
        whose time has passed is nobody's: its process died or hangs). Returns which attempt
        at what the event owes this is (from 2 on, an earlier one may have got it out), 0 if
        not claimed."""
        check_id("tournament_id", tournament_id)
        check_count("round_number", round_number, 0, 10_000)
        now = check_time("now", now)
        until = check_time("until", until)
        async with self._write() as tx:
            rows = await tx.fetchall(
                "UPDATE tournaments SET announce_claimed_until = ?, "
                "announce_attempts = announce_attempts + 1 WHERE id = ? "
                "AND (announce_claimed_until IS NULL OR announce_claimed_until <= ?) "
                "AND ((? = 1 AND state IN ('finished', 'cancelled') AND announced_end = 0) "
                "OR (? = 0 AND state IN ('running', 'finished') AND announced_round < ? "
                "AND ? <= current_round)) RETURNING announce_attempts",
                (until, tournament_id, now, int(end), int(end), round_number, round_number),
            )
        return int(rows[0][0]) if rows else 0

    async def release_announcement(self, tournament_id: int) -> None:
        """Give a claim back without posting (a passing failure: the next sweep tries)."""
        check_id("tournament_id", tournament_id)
        async with self._write() as tx:
            await tx.execute(
                "UPDATE tournaments SET announce_claimed_until = NULL WHERE id = ?",
                (tournament_id,),
            )

    async def set_signup_message(self, tournament_id: int, message_id: int) -> bool:
        check_id("tournament_id", tournament_id)
        check_id("message_id", message_id)
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE tournaments SET signup_message_id = ? WHERE id = ?",
                (message_id, tournament_id),
            )
        return changed == 1

    # ------------------------------------------------------------------ registration

    async def join_tournament(self, tournament_id: int, user_id: int, *, now: float) -> str:
        """Register a player: ``"joined"``, ``"already"`` (registered before), ``"full"`` or
        ``"closed"`` (not in registration, or no such tournament). The tournament's row is
        locked, so racing joins never exceed ``max_players``."""
        check_id("tournament_id", tournament_id)
        check_id("user_id", user_id)
        now = check_time("now", now)
        async with self._write() as tx:
            rows = await tx.fetchall(
                f"SELECT state, max_players, guild_id FROM tournaments WHERE id = ?"
                f"{self._FOR_UPDATE}",
                (tournament_id,),
            )
            if not rows or rows[0][0] != "registration":
                return "closed"
            found = await tx.fetchall(
                "SELECT 1 FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?",
                (tournament_id, user_id),
            )
            if found:
                return "already"
            count_rows = await tx.fetchall(
                "SELECT COUNT(*), COALESCE(MAX(joined_order), 0) FROM tournament_entrants "
                "WHERE tournament_id = ?",
                (tournament_id,),
            )
            count, last = int(count_rows[0][0]), int(count_rows[0][1])
            if rows[0][1] is not None and count >= rows[0][1]:
                return "full"
            await tx.execute(
                "INSERT INTO tournament_entrants (tournament_id, user_id, joined_order, "
                "joined_at) VALUES (?, ?, ?, ?)",
                (tournament_id, user_id, last + 1, now),
            )
        return "joined"

    async def leave_tournament(self, tournament_id: int, user_id: int) -> bool:
        """Unregister a player while registration is open; False if they were not in it (or
        it is closed)."""
        check_id("tournament_id", tournament_id)
        check_id("user_id", user_id)
        async with self._write() as tx:
            changed = await tx.execute(
                "DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ? AND "
                "EXISTS (SELECT 1 FROM tournaments WHERE id = ? AND state = 'registration')",
                (tournament_id, user_id, tournament_id),
            )
        return changed == 1

    async def tournament_entrants(self, tournament_id: int) -> list[TournamentEntrant]:
        """Every entrant in joining order (withdrawn ones included)."""
        check_id("tournament_id", tournament_id)
        rows = await self._fetchall(
            f"SELECT {ENTRANT_COLUMNS} FROM tournament_entrants WHERE tournament_id = ? "
            "ORDER BY joined_order",
            (tournament_id,),
        )
        return [entrant_from_row(row) for row in rows]

    # ------------------------------------------------------------------ rounds

    async def pair_round(
        self,
        tournament_id: int,
        expected_round: int,
        pairings: Sequence[NewPairing],
        *,
        now: float,
        rounds: int | None = None,
        seeds: Sequence[tuple[int, float]] = (),
    ) -> list[TournamentPairing] | None:
        """Pair round ``expected_round + 1`` in ONE transaction: the tournament moves to that
        round (and to ``running``) only if it still is at ``expected_round`` and in
        registration or running, and the pairings are inserted with it (byes are done at
        once, matches owe their thread). None if another caller paired it first (or the event
        is over). ``rounds`` fixes the number of rounds; ``seeds`` (user, rating) the seed
        ratings (at the start)."""
        check_id("tournament_id", tournament_id)
        check_count("expected_round", expected_round, 0, 10_000)
        now = check_time("now", now)
        if rounds is not None:
            check_count("rounds", rounds, 1, 10_000)
        for pairing in pairings:
            check_count("table_no", pairing.table_no, 1, 100_000)
            check_id("first_id", pairing.first_id)
            check_optional_id("second_id", pairing.second_id)
        new_round = expected_round + 1
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE tournaments SET current_round = ?, state = 'running', "
                "round_started_at = ?, rounds = COALESCE(?, rounds), "
                "started_at = COALESCE(started_at, ?) "
                "WHERE id = ? AND current_round = ? AND state IN ('registration', 'running')",
                (new_round, now, rounds, now, tournament_id, expected_round),
            )
            if changed != 1:
                return None
            if seeds:
                await tx.executemany(
                    "UPDATE tournament_entrants SET rating = ? "
                    "WHERE tournament_id = ? AND user_id = ?",
                    [(float(rating), tournament_id, user) for user, rating in seeds],
                )
            sequence = await _next_sequence(tx, tournament_id)
            rows: list[Row] = []
            for pairing in pairings:
                bye = pairing.second_id is None
                inserted = await tx.fetchall(
                    "INSERT INTO tournament_pairings (tournament_id, round, table_no, first_id, "
                    "second_id, state, winner_id, sequence, posted, created_at, finished_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    f"RETURNING {PAIRING_COLUMNS}",
                    (
                        tournament_id,
                        new_round,
                        pairing.table_no,
                        pairing.first_id,
                        pairing.second_id,
                        "bye" if bye else "pending",
                        pairing.first_id if bye else None,
                        sequence if bye else 0,
                        int(bye),
                        now,
                        now if bye else None,
                    ),
                )
                sequence += int(bye)
                rows.extend(inserted)
        return [pairing_from_row(row) for row in rows]

    async def tournament_pairings(
        self, tournament_id: int, round_number: int | None = None
    ) -> list[TournamentPairing]:
        """The pairings of a tournament (of one round), by round and table."""
        check_id("tournament_id", tournament_id)
        sql = f"SELECT {PAIRING_COLUMNS} FROM tournament_pairings WHERE tournament_id = ?"
        params: list[Any] = [tournament_id]
        if round_number is not None:
            sql += " AND round = ?"
            params.append(round_number)
        rows = await self._fetchall(sql + " ORDER BY round, table_no", params)
        return [pairing_from_row(row) for row in rows]

    async def get_pairing(self, pairing_id: int) -> TournamentPairing | None:
        check_id("pairing_id", pairing_id)
        row = await self._fetch_by_key(
            f"SELECT {PAIRING_COLUMNS} FROM tournament_pairings WHERE id = ?", (pairing_id,)
        )
        return None if row is None else pairing_from_row(row)

    async def owed_pairings(self, *, shards: Shards | None = None) -> list[TournamentPairing]:
        """Matches of running tournaments whose thread and pings were never posted (in
        ``shards``' guilds), oldest first."""
        where, params = shard_filter(shards, "t.guild_id")
        rows = await self._fetchall(
            f"SELECT {', '.join('p.' + c for c in PAIRING_COLUMNS.split(', '))} "
            "FROM tournament_pairings p JOIN tournaments t ON t.id = p.tournament_id "
            "WHERE p.posted = 0 AND p.state IN ('pending', 'playing') "
            f"AND t.state = 'running'{where} "
            "ORDER BY p.id",
            params,
        )
        return [pairing_from_row(row) for row in rows]

    async def pairing_posted(self, pairing_id: int, thread_id: int | None) -> bool:
        """A pairing's thread and pings are out (its game, if any, was started by
        ``create_game(pairing_id=)`` already)."""
        check_id("pairing_id", pairing_id)
        check_optional_id("thread_id", thread_id)
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE tournament_pairings SET posted = 1, post_claimed_until = NULL, "
                "thread_id = COALESCE(thread_id, ?) WHERE id = ?",
                (thread_id, pairing_id),
            )
        return changed == 1

    async def claim_pairing_post(self, pairing_id: int, *, now: float, until: float) -> int:
        """Claim posting a match's message and thread until ``until`` (see
        :meth:`claim_announcement`): for exactly one caller while it is owed. Returns which
        attempt this is, 0 if not claimed."""
        check_id("pairing_id", pairing_id)
        now = check_time("now", now)
        until = check_time("until", until)
        async with self._write() as tx:
            rows = await tx.fetchall(
                "UPDATE tournament_pairings SET post_claimed_until = ?, "
                "post_attempts = post_attempts + 1 WHERE id = ? AND posted = 0 "
                "AND (post_claimed_until IS NULL OR post_claimed_until <= ?) "
                "RETURNING post_attempts",
                (until, pairing_id, now),
            )
        return int(rows[0][0]) if rows else 0

    async def release_pairing_post(self, pairing_id: int) -> None:
        """Give a match's claim back without posting (the next sweep tries again)."""
        check_id("pairing_id", pairing_id)
        async with self._write() as tx:
            await tx.execute(
                "UPDATE tournament_pairings SET post_claimed_until = NULL WHERE id = ?",
                (pairing_id,),
            )

    async def forfeit_unstarted(
        self, now: float, *, shards: Shards | None = None
    ) -> list[TournamentPairing]:
        """Double forfeits: matches of running tournaments whose round's time is up while
        nobody has acted in their game (still at version 0) or whose game never started;
        their games are aborted in the same transaction. Returns them (to each caller once)."""
        now = check_time("now", now)
        where, params = shard_filter(shards, "t.guild_id")
        rows = await self._fetchall(
            "SELECT p.id, p.game_id FROM tournament_pairings p "
            "JOIN tournaments t ON t.id = p.tournament_id "
            "LEFT JOIN games g ON g.id = p.game_id "
            "WHERE t.state = 'running' AND t.format <> 'arena' "
            "AND p.state IN ('pending', 'playing') AND p.round = t.current_round "
            "AND t.round_started_at + t.minutes * 60 <= ? "
            f"AND (p.game_id IS NULL OR (g.status = 'active' AND g.version = 0)){where}",
            (now, *params),
        )
        done: list[TournamentPairing] = []
        for pairing_id, game_id in rows:
            async with self._write() as tx:
                if game_id is not None:
                    aborted = await tx.execute(
                        "UPDATE games SET status = 'aborted', version = version + 1, "
                        "last_action_at = ?, finished_at = ? "
                        "WHERE id = ? AND status = 'active' AND version = 0",
                        (now, now, game_id),
                    )
                    if aborted != 1:
                        continue  # a player moved meanwhile: the match is on
                found = await tx.fetchall(
                    "SELECT tournament_id FROM tournament_pairings "
                    f"WHERE id = ? AND state IN ('pending', 'playing'){self._FOR_UPDATE}",
                    (pairing_id,),
                )
                if not found:
                    continue
                updated = await tx.fetchall(
                    "UPDATE tournament_pairings SET state = 'forfeited', winner_id = NULL, "
                    "forfeit = 1, posted = 1, sequence = ?, finished_at = ? WHERE id = ? "
                    f"RETURNING {PAIRING_COLUMNS}",
                    (await _next_sequence(tx, int(found[0][0])), now, pairing_id),
                )
            done.extend(pairing_from_row(row) for row in updated)
        return done

    async def withdraw_entrant(
        self, tournament_id: int, user_id: int, *, now: float
    ) -> list[TournamentPairing] | None:
        """A player drops out of a running tournament: withdrawn, and each of their matches
        not played yet is forfeited to the opponent (its game, if active, aborted) in the same
        transaction. Returns those matches; None if they were not an active entrant of a
        running tournament."""
        check_id("tournament_id", tournament_id)
        check_id("user_id", user_id)
        now = check_time("now", now)
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE tournament_entrants SET withdrawn = 1 WHERE tournament_id = ? AND "
                "user_id = ? AND withdrawn = 0 AND EXISTS (SELECT 1 FROM tournaments "
                "WHERE id = ? AND state = 'running')",
                (tournament_id, user_id, tournament_id),
            )
            if changed != 1:
                return None
            rows = await tx.fetchall(
                f"SELECT {PAIRING_COLUMNS} FROM tournament_pairings WHERE tournament_id = ? "
                "AND state IN ('pending', 'playing') AND (first_id = ? OR second_id = ?) "
                f"ORDER BY id{self._FOR_UPDATE}",
                (tournament_id, user_id, user_id),
            )
            forfeited: list[TournamentPairing] = []
            for pairing in (pairing_from_row(row) for row in rows):
                if pairing.game_id is not None:
                    await tx.execute(
                        "UPDATE games SET status = 'aborted', version = version + 1, "
                        "last_action_at = ?, finished_at = ? WHERE id = ? AND status = 'active'",
                        (now, now, pairing.game_id),
                    )
                winner = pairing.second_id if pairing.first_id == user_id else pairing.first_id
                updated = await tx.fetchall(
                    "UPDATE tournament_pairings SET state = 'forfeited', winner_id = ?, "
                    "forfeit = 1, posted = 1, sequence = ?, finished_at = ? WHERE id = ? "
                    f"RETURNING {PAIRING_COLUMNS}",
                    (winner, await _next_sequence(tx, tournament_id), now, pairing.id),
                )
                forfeited.append(pairing_from_row(updated[0]))
        return forfeited

    async def finish_tournament(
        self, tournament_id: int, expected_round: int, *, now: float
    ) -> bool:
        """The last round is over: the tournament is finished (only if still running at
        ``expected_round``: of racing callers, one)."""
        check_id("tournament_id", tournament_id)
        now = check_time("now", now)
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE tournaments SET state = 'finished', finished_at = ? "
                "WHERE id = ? AND state = 'running' AND current_round = ?",
                (now, tournament_id, expected_round),
            )
        return changed == 1

    async def cancel_tournament(
        self, tournament_id: int, *, now: float, announced: bool = False
    ) -> list[int] | None:
        """Cancel a tournament in registration or running: its active games are aborted and
        its unplayed matches dropped, in one transaction. Returns the ids of the aborted
        games' threads (None if it was already over). ``announced``: whoever cancels it says
        so themselves (else its end is owed to its channel)."""
        check_id("tournament_id", tournament_id)
        now = check_time("now", now)
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE tournaments SET state = 'cancelled', finished_at = ?, announced_end = ? "
                "WHERE id = ? AND state IN ('registration', 'running')",
                (now, int(announced), tournament_id),
            )
            if changed != 1:
                return None
            rows = await tx.fetchall(
                "SELECT game_id, thread_id FROM tournament_pairings WHERE tournament_id = ? "
                "AND state IN ('pending', 'playing')",
                (tournament_id,),
            )
            threads: list[int] = []
            for game_id, thread_id in rows:
                if game_id is not None:
                    aborted = await tx.execute(
                        "UPDATE games SET status = 'aborted', version = version + 1, "
                        "last_action_at = ?, finished_at = ? WHERE id = ? AND status = 'active'",
                        (now, now, game_id),
                    )
                    if aborted and thread_id is not None:
                        threads.append(int(thread_id))
            await tx.execute(
                "UPDATE tournament_pairings SET state = 'forfeited', forfeit = 1, posted = 1, "
                "finished_at = ? WHERE tournament_id = ? AND state IN ('pending', 'playing')",
                (now, tournament_id),
            )
        return threads

    async def tournament_of_game(self, game_id: int) -> TournamentPairing | None:
        """The tournament match game ``game_id`` is, if any."""
        check_id("game_id", game_id)
        row = await self._fetch_by_key(
            f"SELECT {PAIRING_COLUMNS} FROM tournament_pairings WHERE game_id = ?", (game_id,)
        )
        return None if row is None else pairing_from_row(row)
