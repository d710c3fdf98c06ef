"""Challenges: open one, answer it (accept starts the game, decline or withdraw closes it), and
let unanswered ones expire.

Who the opponent is comes from the front end (a person, anyone, or the computer); everything
else is decided here. Every refusal is a :class:`Refusal` subclass with the user's message.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Literal

from app.errors import Refusal
from app.table import GameTable, Outcome
from app.venues import NO_GUILD, NeedsServer, Venue
from engine import VARIANTS, get_variant
from storage import (
    Challenge,
    ChannelBusyError,
    ConflictError,
    DatabaseGoneError,
    Game,
    Shards,
    Storage,
)
from storage.checks import MAX_ID

#: Runs under the channel's lock once the game is committed: shows its first board.
Show = Callable[[Outcome], Awaitable[None]]
#: How long a closed challenge's debt waits for its message id (stored just after the post).
MESSAGE_GRACE_SECONDS = 600.0
#: Autocomplete shows at most this many choices (Discord's limit, and any list's sensible one).
MAX_SUGGESTIONS = 25


class BadRuleOptions(Refusal):
    """An option the variant does not have."""


class BotOpponent(Refusal):
    """Another bot than this one was challenged (the message names this bot)."""


class SelfChallenge(Refusal):
    def __init__(self) -> None:
        super().__init__("You cannot challenge yourself.")


class LevelWithoutComputer(Refusal):
    def __init__(self) -> None:
        super().__init__("`level` is for games against the computer: challenge this bot to use it.")


class GameInProgress(Refusal):
    def __init__(
        self,
        message: str = "A game is already in progress in this channel. Finish it, or start a "
        "thread.",
    ) -> None:
        super().__init__(message)


class ChallengeAlreadyOpen(Refusal):
    def __init__(self) -> None:
        super().__init__("There is already an open challenge in this channel.")


class ChannelJustTaken(Refusal):
    def __init__(self) -> None:
        super().__init__(
            "Someone else just started a challenge or a game in this channel; answer it, or "
            "start a thread."
        )


class NoOpenChallenge(Refusal):
    def __init__(self) -> None:
        super().__init__("There is no open challenge here (it may have expired).")


class OwnChallenge(Refusal):
    def __init__(self) -> None:
        super().__init__("You cannot accept your own challenge.")


class OpenToAnyone(Refusal):
    def __init__(self) -> None:
        super().__init__("This challenge is open to anyone: leave it if you do not want it.")


class NotChallenged(Refusal):
    def __init__(self) -> None:
        super().__init__("Only the challenged player can answer this challenge.")


class AlreadyAnswered(Refusal):
    def __init__(self, message: str = "This challenge was already answered.") -> None:
        super().__init__(message)


Answer = Literal["accepted", "declined", "cancelled"]


@dataclass(frozen=True)
class Opened:
    """A challenge just opened, with what its message says about it."""

    challenge: Challenge
    #: How long it stays open, in whole minutes (at least 1).
    minutes: int


@dataclass(frozen=True)
class Answering:
    """A challenge the asking user may answer, and what their answer makes of it."""

    challenge: Challenge
    status: Answer


class Challenges:
    """The challenge use cases of one bot process."""

    def __init__(self, db: Storage, table: GameTable) -> None:
        self.db = db
        self.table = table

    async def open(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int | None,
        variant: str,
        length: int = 1,
        options: str = "",
        hints: bool = False,
        computer: bool = False,
        level: str | None = None,
        where: Venue = "guild",
    ) -> Opened:
        """Open a challenge in a channel (``opponent_id`` None: anyone may accept;
        ``computer``: the opponent is the bot itself, and the game starts at once with
        :meth:`start_against_computer`). Outside a server with the bot (``where``), only the
        computer can be played: nobody else can answer a challenge there."""
        if where != "guild":
            if not computer:
                raise NeedsServer("A game against another person", where)
            guild_id = NO_GUILD
        chosen = parse_rule_options(variant, options)
        if opponent_id is not None and opponent_id == challenger_id:
            raise SelfChallenge()
        if level is not None and not computer:
            raise LevelWithoutComputer()
        if await self.db.get_active_game(channel_id) is not None:
            raise GameInProgress()
        now = self.table.clock()
        if await self.db.get_open_challenge(channel_id, now=now) is not None:
            raise ChallengeAlreadyOpen()
        settings = await self.db.get_guild_settings(guild_id)
        try:
            challenge = await self.db.create_challenge(
                guild_id,
                channel_id,
                challenger_id,
                opponent_id,
                variant,
                now=now,
                match_length=length,
                expires_at=now + settings.challenge_expiry_seconds,
                options=chosen,
                hints=hints or computer,
            )
        except ChannelBusyError:
            # Another /challenge (or an accept) in this channel won the race since the checks.
            raise ChannelJustTaken() from None
        return Opened(challenge, max(1, settings.challenge_expiry_seconds // 60))

    async def start_against_computer(
        self,
        challenge: Challenge,
        names: tuple[str, str],
        level: str,
        show: Show,
        *,
        thread_id: int | None = None,
        where: Venue = "guild",
    ) -> Outcome:
        """No accept step: the game starts at once (``show`` presents it under the lock), in
        the thread ``thread_id`` if one was opened for it; ``where``: see :mod:`app.venues`."""
        async with self.table.lock(challenge.channel_id):
            try:
                # Marks the challenge accepted in the same transaction that creates the game.
                outcome = await self.table.start(
                    challenge, names, ai_level=level, thread_id=thread_id, context=where
                )
            except (ChannelBusyError, ConflictError):
                # Withdrawn, so that it does not hold the channel until it expires.
                await self.db.set_challenge_status(challenge.id, "cancelled")
                raise GameInProgress("A game is already running in this channel.") from None
            await show(outcome)
        return outcome

    async def remember_message(self, challenge_id: int, message_id: int) -> None:
        """The challenge's own message (so that it can be tidied when answered or expired)."""
        await self.db.set_challenge_message(challenge_id, message_id)

    async def message_id(self, challenge: Challenge) -> int | None:
        """The challenge's message, re-read: it is stored just after the challenge opens."""
        fresh = await self.db.get_challenge(challenge.id)
        return fresh.message_id if fresh is not None else challenge.message_id

    async def answering(
        self, channel_id: int, user_id: int, accept: bool, challenge_id: int | None = None
    ) -> Answering:
        """The challenge ``user_id`` answers (the channel's open one, or ``challenge_id``'s
        button) and what the answer makes of it; refused when they may not answer it."""
        now = self.table.clock()
        if challenge_id is None:
            challenge = await self.db.get_open_challenge(channel_id, now=now)
        elif 0 <= challenge_id <= MAX_ID:
            challenge = await self.db.get_challenge(challenge_id)
        else:  # a forged or garbled custom_id: no such challenge
            challenge = None
        if challenge is None or challenge.status != "open" or challenge.is_expired(now):
            raise NoOpenChallenge()
        status: Answer
        if user_id == challenge.challenger_id:
            if accept:
                raise OwnChallenge()
            status = "cancelled"  # the challenger withdraws it
        elif challenge.opponent_id is None:
            if not accept:
                raise OpenToAnyone()
            status = "accepted"
        elif user_id == challenge.opponent_id:
            status = "accepted" if accept else "declined"
        else:
            raise NotChallenged()
        return Answering(challenge, status)

    async def close(self, answering: Answering, show: Callable[[], Awaitable[None]]) -> None:
        """Decline or withdraw; ``show`` tidies the challenge's message under the lock."""
        challenge = answering.challenge
        async with self.table.lock(challenge.channel_id):
            if await self.db.set_challenge_status(challenge.id, answering.status) is None:
                raise AlreadyAnswered()
            await show()

    async def accept(
        self,
        answering: Answering,
        user_id: int,
        names: tuple[str, str],
        show: Show,
        *,
        thread_id: int | None = None,
    ) -> Outcome:
        """Start the game of an accepted challenge (challenger in the first seat), in the
        thread ``thread_id`` if one was opened for it; ``show`` presents it under the
        channel's lock."""
        challenge = answering.challenge
        async with self.table.lock(challenge.channel_id):
            try:
                # Marks the challenge accepted in the same transaction that creates the game.
                outcome = await self.table.start(
                    replace(challenge, opponent_id=user_id), names, thread_id=thread_id
                )
            except ChannelBusyError:
                raise GameInProgress("A game is already running in this channel.") from None
            except ConflictError:
                raise AlreadyAnswered(
                    "This challenge was already answered or has expired."
                ) from None
            await show(outcome)
        return outcome

    async def unretired(self, shards: Shards | None) -> list[Challenge]:
        """Closed challenges whose message still owes its last edit (none while the database
        is gone)."""
        try:
            return await self.db.unretired_challenges(shards=shards)
        except DatabaseGoneError:
            return []

    async def still_unretired(self, challenge: Challenge) -> Challenge | None:
        """``challenge`` re-read if its message still owes its last edit (another path may
        have paid it meanwhile), else None."""
        fresh = await self.db.get_challenge(challenge.id)
        return fresh if fresh is not None and fresh.retire_owed else None

    def message_pending(self, challenge: Challenge) -> bool:
        """Whether the challenge's message id may still be stored (it is, right after the
        post): a debt is not written off for the lack of it in its first minutes."""
        return challenge.message_id is None and (
            self.table.clock() - challenge.created_at < MESSAGE_GRACE_SECONDS
        )

    async def retired(self, challenge: Challenge) -> None:
        """The closed challenge's message shows how it ended."""
        await self.db.challenge_retired(challenge.id)

    async def started_game(self, challenge: Challenge) -> Game | None:
        """The game an accepted challenge started."""
        if challenge.game_id is None:
            return None
        return await self.db.get_game(challenge.game_id)

    async def expire_due(self, shards: Shards | None) -> list[Challenge]:
        """Expire the challenges past their time (in ``shards``' servers); returns them (none
        while the database is gone: the storage logs that once, and a sweep every 30 s adds
        nothing)."""
        try:
            return await self.db.expire_challenges(self.table.clock(), shards=shards)
        except DatabaseGoneError:
            return []


def parse_rule_options(variant_id: str, text: str) -> tuple[str, ...]:
    """Option names typed by a player (comma or space separated, any case), checked against
    the variant."""
    rules = get_variant(variant_id)
    by_lower = {name.lower(): name for name in rules.options}
    chosen = set()
    for word in re.split(r"[\s,]+", text.strip()):
        if not word:
            continue
        name = by_lower.get(word.lower())
        if name is None:
            offered = ", ".join(f"`{n}`" for n in rules.options) or "none"
            shown = word if len(word) <= 40 else word[:40] + "..."
            raise BadRuleOptions(f"{rules.name} has no option `{shown}`. Its options: {offered}.")
        chosen.add(name)
    return tuple(sorted(chosen))


def describe_options(variant_id: str, options: tuple[str, ...]) -> str:
    if not options:
        return ""
    known = get_variant(variant_id).options
    return ", with " + "; ".join(known[name].about for name in options)


def option_suggestions(variant_id: str, typed: str) -> list[tuple[str, str]]:
    """(label, value) for the variant's options not typed yet; what is typed so far is kept
    in front of each value."""
    variant = VARIANTS.get(variant_id)
    if variant is None:
        return []
    done, _, partial = typed.rpartition(",")
    prefix = ", ".join(p.strip() for p in done.split(",") if p.strip())
    taken = {p.strip().lower() for p in done.split(",")}
    suggestions = []
    for name, option in variant.options.items():
        if name.lower() in taken or not name.lower().startswith(partial.strip().lower()):
            continue
        value = f"{prefix}, {name}" if prefix else name
        suggestions.append((f"{value} - {option.about}"[:100], value))
    return suggestions[:MAX_SUGGESTIONS]
