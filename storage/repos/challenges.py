"""Challenges: opening, showing, answering and expiring a challenge to a game."""

from __future__ import annotations

from collections.abc import Sequence

from storage.checks import (
    MAX_STORED_MATCH_LENGTH,
    check_count,
    check_id,
    check_optional_id,
    check_options,
    check_time,
    check_variant,
)
from storage.core import StorageCore, UniqueViolation, shard_filter
from storage.errors import ChannelBusyError, InvalidInputError
from storage.models import CHALLENGE_STATUSES, Challenge, ChallengeStatus, GuildSettings, Shards
from storage.rows import CHALLENGE_COLUMNS, challenge_from_row, options_from_text


class ChallengeRepository(StorageCore):
    """The ``challenges`` table (accepting one starts a game: see ``create_game``)."""

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
        check_count("match_length", match_length, 1, MAX_STORED_MATCH_LENGTH)
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
                "UPDATE challenges SET status = 'expired', retire_owed = 1 "
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
        was not open any more (already accepted, declined, ... - e.g. two clicks racing). Its
        message is owed its last edit from this transaction (see :meth:`unretired_challenges`).

        To accept a challenge and start its game atomically, use ``create_game(challenge_id=)``.
        """
        check_id("challenge_id", challenge_id)
        if status not in CHALLENGE_STATUSES or status == "open":
            raise InvalidInputError(f"cannot set a challenge to {status!r}")
        async with self._write() as tx:
            changed = await tx.execute(
                "UPDATE challenges SET status = ?, retire_owed = 1 "
                "WHERE id = ? AND status = 'open'",
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
        in the guilds of those shards), each message owed its "expired" edit; returns them."""
        now = check_time("now", now)
        where, params = shard_filter(shards, "guild_id")
        async with self._write() as tx:
            # One UPDATE ... RETURNING: of several processes sweeping at once, each expired
            # challenge is returned to exactly one of them.
            rows = await tx.fetchall(
                "UPDATE challenges SET status = 'expired', retire_owed = 1 "
                f"WHERE status = 'open' AND expires_at <= ?{where} RETURNING {CHALLENGE_COLUMNS}",
                (now, *params),
            )
        return sorted((challenge_from_row(row) for row in rows), key=lambda c: c.id)

    async def unretired_challenges(
        self, *, shards: Shards | None = None, limit: int = 100
    ) -> list[Challenge]:
        """Closed challenges whose message still owes its last edit (buttons off, how it
        ended): owed from the transaction that closed them (expiry, an answer, an accept by a
        person), paid with :meth:`challenge_retired`. Oldest first; ``shards`` as elsewhere."""
        check_count("limit", limit, 1, 1000)
        where, params = shard_filter(shards, "guild_id")
        rows = await self._fetchall(
            f"SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE retire_owed = 1{where} "
            "ORDER BY id LIMIT ?",
            (*params, limit),
        )
        return [challenge_from_row(row) for row in rows]

    async def challenge_retired(self, challenge_id: int) -> None:
        """The closed challenge's message shows how it ended (its debt is paid)."""
        check_id("challenge_id", challenge_id)
        async with self._write() as tx:
            await tx.execute(
                "UPDATE challenges SET retire_owed = 0 WHERE id = ? AND retire_owed = 1",
                (challenge_id,),
            )
