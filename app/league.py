"""The league without Discord: leaderboards, player statistics, history and records, claims on
time, and the sweep that finds the idle games whose players must be told.

Storage computes ratings and statistics, the engine decides what a claim does, the GameTable
commits it; this module holds the policy around them (who may claim, and when; which notices
are due) and hands back what the front end shows.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import math
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial

from app.errors import Refusal, SimultaneousAction
from app.records import (
    GameRecords,
    NoSuchGame,
    duration,
    game_record,
    player_names,
    state_or_none,
    variant_name,
)
from app.settings import server_theme
from app.table import GameTable, Outcome
from engine import VARIANTS, EngineError
from engine.game import GameState
from interop.mat import export_mat
from render.chart import render_rating_chart
from storage import (
    NO_GUILD,
    OVERALL,
    ComputerRecord,
    ConflictError,
    DatabaseGoneError,
    Game,
    GuildSettings,
    LeaderboardRow,
    PlayerStats,
    Shards,
    Storage,
)

__all__ = [
    "OVERALL",
    "Claim",
    "ClaimFailed",
    "ClaimOnOwnTurn",
    "ClaimTooEarly",
    "ComputerRecord",
    "DatabaseGoneError",
    "Game",
    "GameMovedOn",
    "Leaderboard",
    "LeaderboardNotHere",
    "LeaderboardPage",
    "LeaderboardRow",
    "League",
    "NoGameToClaim",
    "NoSuchGame",
    "NotAPlayer",
    "NotExportable",
    "Notice",
    "PlayerStats",
    "RatingChart",
    "RecordFile",
    "Reminders",
    "Shards",
    "SimultaneousAction",
    "Statistics",
    "rating_chart_alt",
]

log = logging.getLogger(__name__)

PAGE_SIZE = 10
HISTORY_SIZE = 10
#: Rating-history points drawn per series (the latest ones).
CHART_POINTS = 1000

Clock = Callable[[], float]


# --- refusals ---------------------------------------------------------------------------------


class LeaderboardNotHere(Refusal):
    def __init__(self) -> None:
        super().__init__("This leaderboard cannot be shown here.")


class NoGameToClaim(Refusal):
    def __init__(self) -> None:
        super().__init__("There is no game in this channel to claim.")


class NotAPlayer(Refusal):
    def __init__(self) -> None:
        super().__init__("Only the players of this game can claim it.")


class ClaimOnOwnTurn(Refusal):
    def __init__(self) -> None:
        super().__init__("The game is waiting for you: it is your turn, so you cannot claim.")


class ClaimTooEarly(Refusal):
    def __init__(self, idle_name: str, idle: float, needed: float) -> None:
        super().__init__(
            f"Too early to claim: {idle_name} has been idle for {duration(idle)}, and a claim "
            f"needs {duration(needed)} without a move. You can claim in {duration(needed - idle)}."
        )
        self.left = needed - idle


class GameMovedOn(Refusal):
    def __init__(self) -> None:
        super().__init__("The game has moved on; look again.")


class ClaimFailed(Refusal):
    """The engine refused the claim (its message says why)."""


class NotExportable(Refusal):
    def __init__(self, game: Game) -> None:
        super().__init__(
            "Only backgammon (classic) games can be exported as a .mat match file; "
            f"game #{game.id} is {variant_name(game.variant)}. "
            "Use /record without format for its text record."
        )


class ExportFailed(Refusal):
    def __init__(self, game: Game, exc: EngineError) -> None:
        super().__init__(f"Game #{game.id} cannot be exported: {exc}")


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LeaderboardPage:
    guild_id: int
    #: A variant id or OVERALL.
    board: str
    #: 0-based, clamped to the pages that exist.
    page: int
    pages: int
    total: int
    rows: list[LeaderboardRow]

    @property
    def variant(self) -> str | None:
        return None if self.board == OVERALL else self.board


@dataclass(frozen=True)
class Statistics:
    #: Rated figures, the overall ones first; empty when the player has no rated game.
    rows: list[PlayerStats]
    #: Games against the computer (not rated), per level.
    computer: list[ComputerRecord]
    #: Practice: games of no server (the bot's DM, the app installed to the player), per level.
    practice: list[ComputerRecord] = field(default_factory=list)


@dataclass(frozen=True)
class RecordRequest:
    """A game whose record was asked for, checked (the export itself may take seconds)."""

    game: Game
    state: GameState | None
    names: tuple[str, str]
    mat: bool


@dataclass(frozen=True)
class RecordFile:
    game: Game
    names: tuple[str, str]
    body: bytes
    filename: str


@dataclass(frozen=True)
class Claim:
    """A claim on time, committed: the game is over."""

    outcome: Outcome
    idle_user: int
    idle_seconds: float
    #: The board message of the game before the claim (to retire).
    board_message_id: int | None


@dataclass(frozen=True)
class Notice:
    """A notice to post in a game's channel; :meth:`Reminders.sent` records it once posted."""

    game: Game
    #: True: the waiting player may claim; False: a reminder to the player to act.
    claim: bool
    idle_user: int
    waiting_user: int
    idle_seconds: float
    claim_after_seconds: int
    #: When it became due (what ``sent`` records).
    at: float = 0.0

    @property
    def nonce(self) -> str:
        """Posted with this nonce: a second post (a restart before it was recorded, another
        process sweeping the same game) returns the first message instead."""
        return f"bgn{self.game.id}v{self.game.version}{'c' if self.claim else 'r'}"[:25]


# --- services ---------------------------------------------------------------------------------


class Leaderboard:
    def __init__(self, db: Storage) -> None:
        self.db = db

    async def page(self, guild_id: int, board: str, page: int) -> LeaderboardPage:
        """One page of a server's leaderboard (``board``: a variant or OVERALL); a page past
        either end is the nearest page that exists."""
        variant = None if board == OVERALL else board
        total = await self.db.leaderboard_count(guild_id, variant)
        pages = max(1, math.ceil(total / PAGE_SIZE))
        page = max(0, min(page, pages - 1))
        rows = (
            await self.db.leaderboard(guild_id, variant, limit=PAGE_SIZE, offset=page * PAGE_SIZE)
            if total
            else []
        )
        return LeaderboardPage(guild_id, board, page, pages, total, rows)

    async def turn_page(
        self, asked_in: int | None, guild_id: int, board: str, page: int
    ) -> LeaderboardPage:
        """A page asked for by a button: only in its own server, only of a known board."""
        if asked_in != guild_id or (board != OVERALL and board not in VARIANTS):
            raise LeaderboardNotHere()
        return await self.page(guild_id, board, page)


@dataclass(frozen=True)
class RatingChart:
    png: bytes
    #: What a screen reader says for the picture (an attachment's description).
    alt: str


#: Discord's longest attachment description.
ALT_LIMIT = 1024


def rating_chart_alt(name: str, series: dict[str, list[tuple[float, float]]]) -> str:
    """The rating chart in words: per variant, the rating at the first and last game shown,
    the range and the dates (UTC)."""

    def day(t: float) -> str:
        try:
            return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%d %b %Y")
        except (OverflowError, OSError, ValueError):  # a corrupt time: leave it out
            return "?"

    parts = [f"Line chart of {name}'s rating (y axis) by date (x axis, UTC)."]
    for label, points in series.items():
        if not points:
            continue
        ratings = [r for _, r in points]
        games = f"{len(points)} game" + ("" if len(points) == 1 else "s")
        parts.append(
            f"{label}: {ratings[0]:.0f} to {ratings[-1]:.0f} over the last {games} "
            f"({day(points[0][0])} to {day(points[-1][0])}), lowest {min(ratings):.0f}, "
            f"highest {max(ratings):.0f}."
        )
    if len(parts) == 1:
        parts.append("No rated games yet.")
    out = " ".join(parts)
    return out if len(out) <= ALT_LIMIT else out[: ALT_LIMIT - 1] + "…"


class League:
    """Statistics, history, records and claims of one bot's servers."""

    def __init__(self, db: Storage, table: GameTable, clock: Clock) -> None:
        self.db = db
        self.table = table
        self.clock = clock
        self.games = GameRecords(db)
        self.leaderboard = Leaderboard(db)

    # --- statistics and history ---------------------------------------------------------------

    async def statistics(
        self, guild_id: int, user_id: int, *, asked_by: int | None = None
    ) -> Statistics:
        """``user_id``'s ratings and record in the server ``guild_id`` (none for
        :data:`NO_GUILD`), with their practice record apart (games of no server: the bot's DM,
        the app installed to their account), shown only to themselves (``asked_by``)."""
        practice = await self.db.practice_record(user_id) if asked_by == user_id else []
        if guild_id == NO_GUILD:
            return Statistics([], [], practice)
        rows = await self.db.player_stats(guild_id, user_id)
        computer = await self.db.computer_record(guild_id, user_id)
        return Statistics(rows, computer, practice)

    async def rating_chart(
        self, guild_id: int, user_id: int, rows: list[PlayerStats], name: str
    ) -> bytes:
        """A PNG of the player's rating history per variant (drawn off the event loop)."""
        return (await self.rating_picture(guild_id, user_id, rows, name)).png

    async def rating_picture(
        self, guild_id: int, user_id: int, rows: list[PlayerStats], name: str
    ) -> RatingChart:
        """The rating history chart with its alt text, in the server's board theme."""
        series: dict[str, list[tuple[float, float]]] = {}
        for stats in rows:
            variant = None if stats.variant == OVERALL else stats.variant
            history = await self.db.rating_history(guild_id, user_id, variant, limit=CHART_POINTS)
            series[variant_name(stats.variant)] = [(p.at, p.rating) for p in history]
        theme = await server_theme(self.db, guild_id)
        png = await self.table.draw(
            partial(render_rating_chart, series, title=f"Rating history: {name}", theme=theme)
        )
        return RatingChart(png, rating_chart_alt(name, series))

    async def history(self, guild_id: int, user_id: int) -> list[Game]:
        """The player's most recent finished games, newest first."""
        return await self.db.recent_games(guild_id, user_id, limit=HISTORY_SIZE)

    # --- records ------------------------------------------------------------------------------

    async def record_request(
        self, guild_id: int, number: int, *, mat: bool, user_id: int | None = None
    ) -> RecordRequest:
        """Check that game ``number``'s record can be given (``mat``: as a .mat match file);
        a practice game only to its player (``user_id``)."""
        found = await self.games.on_server(guild_id, number, user_id=user_id)
        state = state_or_none(found)
        rules = VARIANTS.get(found.variant)
        if mat and (rules is None or not rules.has_gnubg_ids or state is None):
            raise NotExportable(found)
        return RecordRequest(found, state, player_names(found, state), mat)

    async def record(self, request: RecordRequest) -> RecordFile:
        """The record file (replays the game: seconds for a long match, off the event loop)."""
        found = request.game
        loop = asyncio.get_running_loop()
        if request.mat:
            assert request.state is not None
            date = dt.datetime.fromtimestamp(found.created_at, dt.UTC).date()
            try:
                text = await loop.run_in_executor(
                    None, partial(export_mat, request.state, date=date)
                )
            except EngineError as exc:
                log.warning("game %s cannot be exported: %s", found.id, exc)
                raise ExportFailed(found, exc) from exc
            filename = f"game-{found.id}.mat"
        else:
            text = await loop.run_in_executor(None, game_record, found)
            filename = f"game-{found.id}.txt"
        return RecordFile(found, request.names, text.encode("utf-8"), filename)

    # --- claims on time -----------------------------------------------------------------------

    async def claim(self, guild_id: int, channel_id: int, user_id: int) -> Claim:
        """End the channel's game on time for ``user_id``: a player waiting for an opponent who
        has not acted for the server's claim time (in a tournament match, the event's
        ``minutes`` if shorter)."""
        game = await self.db.get_active_game(channel_id)
        if game is None:
            raise NoGameToClaim()
        seat = GameTable.seat_of(game, user_id)
        if seat is None:
            raise NotAPlayer()
        state = self.table.state_of(game)
        if state.mover == seat:
            raise ClaimOnOwnTurn()
        needed = await claim_seconds(
            self.db, game, (await self.db.get_guild_settings(guild_id)).claim_after_seconds
        )
        idle = game.idle_seconds(self.clock())
        if needed - idle > 0:
            raise ClaimTooEarly(state.players[state.mover], idle, needed)
        async with self.table.lock(game.channel_id):
            fresh = await self.db.get_game(game.id)
            if fresh is None or fresh.status != "active" or fresh.version != game.version:
                raise GameMovedOn()
            try:
                outcome = await self.table.act(
                    fresh, user_id, lambda s, seat: s.claim(seat), "claim"
                )
            except EngineError as exc:
                raise ClaimFailed(exc.message) from exc
            except ConflictError:
                raise SimultaneousAction() from None
        return Claim(outcome, GameTable.user_of(game, state.mover), idle, fresh.board_message_id)


async def claim_seconds(db: Storage, game: Game, server_seconds: int) -> int:
    """How long ``game`` must be idle before the waiting player may claim it: the server's
    claim time ``server_seconds``; in a tournament match the event's time limit when it is the
    shorter. /claim and the claim notices both ask here (storage's ``claimable_games`` finds
    the games by the same rule)."""
    match = await db.tournament_of_game(game.id)
    event = None if match is None else await db.get_tournament(match.tournament_id)
    if event is None:
        return server_seconds
    return min(server_seconds, event.minutes * 60)


class Reminders:
    """Finds the idle games whose players must be told: one claim notice (the waiting player
    may /claim) once a game is idle past the claim time, else one reminder (the player to act)
    once it is idle past the reminder time. Each at most once per idle period: ``reminded_at``
    records it, and any action clears it."""

    def __init__(self, db: Storage, table: GameTable, clock: Clock) -> None:
        self.db = db
        self.table = table
        self.clock = clock

    async def due(self, shards: Shards | None = None) -> AsyncIterator[Notice]:
        """The notices due now (``shards``: only the guilds of these shards). Each is posted
        (with its nonce), then recorded with :meth:`sent`: a stop in between posts it again
        at the next start, and Discord returns the first message for the same nonce."""
        now = self.clock()
        settings: dict[int, GuildSettings] = {}
        seen: set[int] = set()
        for game in await self.db.claimable_games(now, shards=shards):
            seen.add(game.id)
            if game.guild_id not in settings:
                settings[game.guild_id] = await self.db.get_guild_settings(game.guild_id)
            needed = await claim_seconds(self.db, game, settings[game.guild_id].claim_after_seconds)
            claim_at = game.last_action_at + needed
            if game.reminded_at is not None and game.reminded_at >= claim_at:
                continue  # already told in this idle period
            notice = await self._claim_notice(game, now, needed, claim=True)
            if notice is not None:
                yield notice
        for game in await self.db.games_needing_reminder(now, shards=shards):
            if game.id in seen:
                continue
            if game.guild_id not in settings:
                settings[game.guild_id] = await self.db.get_guild_settings(game.guild_id)
            needed = await claim_seconds(self.db, game, settings[game.guild_id].claim_after_seconds)
            notice = await self._claim_notice(game, now, needed, claim=False)
            if notice is not None:
                yield notice

    async def _claim_notice(
        self, game: Game, now: float, claim_after: int, *, claim: bool
    ) -> Notice | None:
        async with self.table.lock(game.channel_id):
            fresh = await self.db.get_game(game.id)
            # The game may have moved on between the query and the lock.
            if fresh is None or fresh.status != "active" or fresh.version != game.version:
                return None
            state = state_or_none(fresh)
            if state is None or state.is_over:
                return None
            if not fresh.in_server:
                # Practice (the bot's DM, the app installed to a player): nobody waits for it,
                # and where the bot is not present it could not post anyway.
                return None
            if fresh.against_computer and (claim or state.mover == 1):
                # The computer neither claims nor needs a reminder (its turns are resumed).
                return None
            return Notice(
                fresh,
                claim,
                GameTable.user_of(fresh, state.mover),
                GameTable.user_of(fresh, 1 - state.mover),
                fresh.idle_seconds(now),
                claim_after,
                now,
            )

    async def sent(self, notice: Notice) -> bool:
        """Record ``notice`` as posted, or as given up (channel gone, no access: a retry every
        sweep would only repeat the failure); a compare-and-set on the game as read, so a
        player's action meanwhile starts a new idle period. False if it moved on."""
        return await self.db.mark_reminded(notice.game.id, now=notice.at, expected=notice.game)
