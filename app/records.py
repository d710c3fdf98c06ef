"""Games as records: the texts every front end shows about a stored game (its variant's name,
how it went for a player, its full record) and finding a game by number on a server.

Pure functions, no Discord: the league, the coach and any other front end share them.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from dataclasses import dataclass

from app.errors import Refusal
from engine import VARIANTS, EngineError
from engine.game import GameState
from interop.gnubg import gnubg_id, record_with_ids
from storage import NO_GUILD, OVERALL, FinishedGame, Game, Storage
from storage.models import DRAWN_KINDS

log = logging.getLogger(__name__)

#: Recent games offered when a command asks for a game number (Discord shows 25 at most).
CHOICES = 25
#: Discord's limit on a choice's label.
CHOICE_LABEL = 100


class NoSuchGame(Refusal):
    """The game number names no game of this server."""

    def __init__(self, number: int, *, practice: bool = False) -> None:
        where = "of yours outside a server" if practice else "on this server"
        super().__init__(f"There is no game #{number} {where}.")
        self.number = number


def variant_name(variant: str) -> str:
    if variant == OVERALL:
        return "Overall"
    rules = VARIANTS.get(variant)
    return rules.name if rules is not None else variant


def rating_changes(game: Game, state: GameState, finished: FinishedGame | None) -> str:
    """'alice 1520? (+20), bob 1480? (-20)': the players' new ratings after a rated finish
    ("?": still provisional, as everywhere ratings are shown); "" when nothing was rated."""
    if finished is None:
        return ""
    changes = []
    for seat, user in enumerate((game.player_x, game.player_o)):
        change = finished.change_for(user, state.variant)
        if change is not None:
            rating = rating_text(change.after.rating, change.after.provisional)
            changes.append(f"{state.players[seat]} {rating} ({change.delta:+.0f})")
    return ", ".join(changes)


def rating_text(rating: float, provisional: bool) -> str:
    return f"{rating:.0f}{'?' if provisional else ''}"


def duration(seconds: float) -> str:
    """A short human duration: "3 days 4 h", "5 h 12 min", "7 min" (rounded up to a minute)."""
    minutes = max(1, math.ceil(max(0.0, seconds) / 60))
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        unit = "day" if days == 1 else "days"
        return f"{days} {unit} {hours} h" if hours else f"{days} {unit}"
    if hours:
        return f"{hours} h {mins} min" if mins else f"{hours} h"
    return f"{mins} min"


def utc_text(timestamp: float | None) -> str:
    if timestamp is None or not math.isfinite(timestamp):
        return "unknown"
    try:
        return dt.datetime.fromtimestamp(timestamp, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):
        return "unknown"


def state_or_none(game: Game) -> GameState | None:
    """The stored engine state; None for games imported without one (or unreadable)."""
    try:
        return GameState.from_json(game.state_json)
    except Exception:
        return None


def player_names(game: Game, state: GameState | None) -> tuple[str, str]:
    if state is not None:
        return state.players
    return (f"Player {game.player_x}", f"Player {game.player_o}")


def game_outcome_for(game: Game, user_id: int) -> str:
    """How a finished (or aborted) game went for ``user_id``, e.g. "Won 2 (gammon)"."""
    if game.status == "aborted":
        return "Aborted"
    if game.status == "active":
        return "In progress"
    kind = game.result_kind or "?"
    if game.winner_id is None or kind in DRAWN_KINDS:
        return f"Draw ({kind})"
    verb = "Won" if game.winner_id == user_id else "Lost"
    if game.match_length > 1:
        mine, theirs = (
            (game.score_x, game.score_o)
            if user_id == game.player_x
            else (game.score_o, game.score_x)
        )
        return f"{verb} the match {mine}-{theirs} ({kind})"
    points = game.points or 0
    return f"{verb} {points} pt{'s' if points != 1 else ''} ({kind})"


def final_line(game: Game, state: GameState | None) -> str:
    """The last line of a game record: the final result of the game or match."""
    names = player_names(game, state)
    if game.status == "aborted":
        return "final: aborted (not rated)"
    if game.status == "active":
        return "final: in progress"
    if game.winner_id is None:
        return f"final: {game.result_kind or 'draw'} (0 points)"
    winner = names[0] if game.winner_id == game.player_x else names[1]
    if game.match_length > 1:
        return (
            f"final: {winner} wins the match {game.score_x}-{game.score_o} "
            f"(last game: {game.result_kind})"
        )
    return f"final: {winner} wins {game.points} ({game.result_kind})"


def game_record(game: Game) -> str:
    """The full record of a game (RULES §7.7 lines) with a header, as a text file body.

    Classic records also give gnubg's ID (position ID:match ID) of the final position and,
    before each decision, of the position it was taken in. Replays the record: call it off the
    event loop.
    """
    state = state_or_none(game)
    names = player_names(game, state)
    lines = [
        f"game: {game.id}",
        f"variant: {game.variant} ({variant_name(game.variant)})",
        f"players: {names[0]} (X, id {game.player_x}) vs {names[1]} (O, id {game.player_o})",
        f"match length: {game.match_length}",
        f"date: {utc_text(game.created_at)}",
    ]
    if game.finished_at is not None:
        lines.append(f"ended: {utc_text(game.finished_at)}")
    body: list[str] | None = None
    if state is not None and state.rules.has_gnubg_ids:
        lines.append(f"gnubg ID: {gnubg_id(state)}")
        try:
            body = record_with_ids(state)
        except EngineError:
            log.warning("record of game %s cannot be replayed; shown without gnubg IDs", game.id)
    lines.append("")
    if body is not None:
        lines.extend(body)
    elif state is not None and state.record:
        lines.extend(state.record)
    else:
        lines.append("(no move record stored for this game)")
    lines.append("")
    lines.append(final_line(game, state))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class GameChoice:
    """A recent game offered for a game-number option."""

    game_id: int
    label: str


class GameRecords:
    """Finding stored games for the commands that take a game number."""

    def __init__(self, db: Storage) -> None:
        self.db = db

    async def on_server(
        self, guild_id: int | None, number: int, *, user_id: int | None = None
    ) -> Game:
        """Game ``number`` if it was played on this server; else :class:`NoSuchGame`. With
        ``guild_id`` :data:`NO_GUILD` (a DM, the app installed to a user): only a practice
        game of ``user_id``'s own (nobody else's practice is anyone's business)."""
        found = await self.db.get_game(number)
        practice = guild_id == NO_GUILD
        if found is None or found.guild_id != guild_id:
            raise NoSuchGame(number, practice=practice)
        if practice and (user_id is None or not found.has_player(user_id)):
            raise NoSuchGame(number, practice=True)
        return found

    async def recent_choices(
        self, guild_id: int | None, user_id: int, typed: str
    ) -> list[GameChoice]:
        """The user's recent games, filtered by the number typed so far (autocomplete)."""
        if guild_id is None:
            return []
        typed = str(typed).strip().lstrip("#")
        games = await self.db.recent_games(guild_id, user_id, limit=CHOICES)
        choices = []
        for game in games:
            if typed and not str(game.id).startswith(typed):
                continue
            names = player_names(game, state_or_none(game))
            mine = 0 if game.player_x == user_id else 1
            label = (
                f"#{game.id} {variant_name(game.variant)} vs {names[1 - mine]}: "
                f"{game_outcome_for(game, user_id)}"
            )
            choices.append(GameChoice(game.id, label[:CHOICE_LABEL]))
        return choices
