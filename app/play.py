"""Playing a game: find it, check that the asking user may act now, apply the action, resign,
abort, and keep the record of which board a channel has seen.

Each action runs under its channel's lock and is committed with the game's version check; the
front end's ``show`` runs under the same lock, so the next action waits until this one's board
is out. Refusals are :class:`Refusal` subclasses carrying the player's message; the engine's
own refusals (an illegal play) arrive as :class:`IllegalAction` with its message verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Literal

from app.errors import NoGameHere, Refusal, SimultaneousAction
from app.table import Action, GameTable, Outcome
from engine.errors import EngineError
from engine.game import DOUBLE, MOVE, ROLL, GameState, LastPlay
from engine.notation import parse_play
from storage import (
    ChannelBusyError,
    ConflictError,
    DatabaseGoneError,
    Game,
    NewMove,
    PlayerPreferences,
    Storage,
)
from storage.checks import MAX_ID

#: A player who has not acted in a game for this long is away: their turn's board pings them
#: (``/preferences pings: when away``, the default). An active game pings nobody.
AWAY_AFTER_SECONDS = 120.0

#: Runs under the channel's lock once the action is committed: shows it.
Show = Callable[[Game, GameState, Outcome], Awaitable[None]]
AbortResult = Literal["requested", "repeated", "aborted"]
_ABORT_RESULTS: dict[str, AbortResult] = {
    "requested": "requested",
    "repeated": "repeated",
    "aborted": "aborted",
}


class GameOver(Refusal):
    def __init__(self) -> None:
        super().__init__("This game is over.")


class OldButtons(Refusal):
    def __init__(self) -> None:
        super().__init__("These buttons belong to an older board.")


class Spectator(Refusal):
    def __init__(
        self, message: str = "You are watching this game; only the players can act."
    ) -> None:
        super().__init__(message)


class ResignOfferPending(Refusal):
    """A player acted while an offer to resign waits for its answer."""


class NotYourTurn(Refusal):
    """Another player is to act, or this one must act otherwise (roll before moving...)."""


class IllegalAction(Refusal):
    """The engine refused the action (its message says what is wrong and what is legal)."""


class NotAllowedToAbort(Refusal):
    def __init__(self) -> None:
        super().__init__("Only the players (both agreeing) or a moderator can abort a game.")


class AlreadyEnded(Refusal):
    def __init__(self) -> None:
        super().__init__("This game has already ended.")


class AbortAlreadyAsked(Refusal):
    """The player asked to abort before; the opponent has not agreed yet."""


@dataclass(frozen=True)
class Preview:
    """A typed play checked but not committed: what it plays and the board it leads to."""

    #: The play's canonical text (what ``GameState.play`` is then given).
    text: str
    #: The game as it would stand after the play, before the opponent's turn: the dice still
    #: showing and the play as the last one.
    state: GameState


@dataclass(frozen=True)
class Abort:
    result: AbortResult
    #: The opponent of the asking player (None for a moderator).
    other: int | None


class Play:
    """The game-playing use cases of one bot process."""

    def __init__(self, db: Storage, table: GameTable) -> None:
        self.db = db
        self.table = table

    # --- finding the game ----------------------------------------------------------------

    async def active_game(self, channel_id: int) -> Game:
        game = await self.db.get_active_game(channel_id)
        if game is None:
            raise NoGameHere()
        return game

    async def find_active_game(self, channel_id: int) -> Game | None:
        return await self.db.get_active_game(channel_id)

    async def game(self, game_id: int) -> Game | None:
        return await self.db.get_game(game_id)

    async def game_for_button(self, game_id: int, version: int | None) -> Game:
        """The game a board's button acts on, if that board is still the current one
        (``version`` None: any version of the active game)."""
        if not 0 <= game_id <= MAX_ID:  # a forged or garbled custom_id: no such game
            raise GameOver()
        game = await self.db.get_game(game_id)
        if game is None or game.status != "active":
            raise GameOver()
        if version is not None and game.version != version:
            raise OldButtons()
        return game

    async def active_games(self, guild_id: int) -> list[Game]:
        return await self.db.list_active_games(guild_id)

    # --- who may act -----------------------------------------------------------------------

    def check_turn(self, game: Game, user_id: int, phase: str) -> int:
        """``user_id``'s seat if they may act in ``phase`` now; else a refusal saying why."""
        seat = GameTable.seat_of(game, user_id)
        if seat is None:
            raise Spectator()
        state = self.table.state_of(game)
        if state.resign_offer is not None:
            if seat == state.resign_offer[0]:
                raise ResignOfferPending("Your offer to resign is waiting for an answer.")
            raise ResignOfferPending("Accept or reject the offer to resign first (buttons).")
        if state.mover != seat:
            raise NotYourTurn(f"It is not your turn: waiting for {state.players[state.mover]}.")
        if state.phase != phase:
            if state.phase == ROLL:
                raise NotYourTurn("Roll first (or double): use /roll or the Roll button.")
            if state.phase == DOUBLE:
                raise NotYourTurn("You have been doubled: /take or /pass first.")
            raise NotYourTurn("Use /move to play your roll.")
        return seat

    def check_resign(self, game: Game, user_id: int) -> int:
        seat = GameTable.seat_of(game, user_id)
        if seat is None:
            raise Spectator("Only the players can resign.")
        return seat

    def check_resign_answer(self, game: Game, user_id: int, accept: bool) -> int:
        """The seat answering an offer to resign (the offerer may only withdraw it)."""
        seat = GameTable.seat_of(game, user_id)
        state = self.table.state_of(game)
        if seat is None or state.resign_offer is None:
            raise Spectator("Only the players can answer an offer to resign.")
        if accept and seat == state.resign_offer[0]:
            raise NotYourTurn("Your opponent answers your offer, not you.")
        return seat

    # --- acting ----------------------------------------------------------------------------

    async def act(
        self, game: Game, user_id: int, action: Action, kind: str, show: Show, text: str = ""
    ) -> Outcome:
        """Apply ``action`` for ``user_id`` under the channel's lock, commit it (the channel is
        owed its board until the front end says it is out), then ``show(game, state, outcome)``
        with the game and state it was applied to, under the same lock."""
        async with self.table.lock(game.channel_id):
            fresh = await self.db.get_game(game.id)
            if fresh is None or fresh.status != "active":
                raise GameOver()
            old = self.table.state_of(fresh)
            try:
                outcome = await self.table.act(fresh, user_id, action, kind, text, owe_board=True)
            except EngineError as exc:
                raise IllegalAction(exc.message) from None
            except ConflictError:
                raise SimultaneousAction() from None
            await show(fresh, old, outcome)
        return outcome

    async def abort(self, game: Game, user_id: int, *, moderator: bool) -> Abort:
        """End the game without a result: at once for a moderator or against the computer
        (which always agrees), else when both players have asked."""
        seat = GameTable.seat_of(game, user_id)
        if seat is None and not moderator:
            raise NotAllowedToAbort()
        moves = [NewMove(user_id, "abort", "aborted")]
        result: AbortResult
        async with self.table.lock(game.channel_id):
            try:
                if moderator or game.against_computer:
                    await self.db.abort_game(game.id, now=self.table.clock(), moves=moves)
                    result = "aborted"
                else:
                    # Stored with the game, checked and acted on in one transaction: the two
                    # players' requests agree whichever lands first, also across a restart.
                    asked, _ = await self.db.request_abort(
                        game.id, user_id, now=self.table.clock(), moves=moves
                    )
                    result = _ABORT_RESULTS[asked]
            except ConflictError:
                raise AlreadyEnded() from None
        other = GameTable.user_of(game, 1 - seat) if seat is not None else None
        return Abort(result, other)

    async def thread_gone(self, thread_id: int) -> Game | None:
        """A game's thread was deleted: its game goes on in the channel the thread was opened
        in (owed its board), or, when that channel has a game of its own, is aborted (nothing
        is lost: the record stays). The game as it now is; None if no game was there."""
        game = await self.db.get_active_game(thread_id)
        if game is None or game.parent_channel_id is None:
            return None
        async with self.table.lock(thread_id):
            try:
                moved = await self.db.move_to_parent_channel(game.id)
            except ChannelBusyError:
                note = [NewMove(None, "abort", "aborted: its thread was deleted")]
                try:
                    await self.db.abort_game(game.id, now=self.table.clock(), moves=note)
                except ConflictError:
                    return None
                return await self.db.get_game(game.id)
        return moved

    # --- boards the channels have seen ---------------------------------------------------

    async def board_posted(self, game: Game, message_id: int) -> None:
        """The board of ``game`` as it stands is out, in message ``message_id``."""
        await self.db.set_board_message(game.id, message_id, shown_version=game.version)

    async def board_shown(self, game: Game) -> None:
        """The channel has seen the board of ``game`` as it stands (edited in place)."""
        if game.board_owed_version is not None:
            await self.db.board_shown(game.id, game.version)

    async def owed_boards(self) -> list[Game]:
        """Games whose latest board never reached their channel (empty when the database is
        gone: that is logged once by the storage)."""
        try:
            return await self.db.list_owed_boards()
        except DatabaseGoneError:
            return []

    async def owed_board(self, channel_id: int, game_id: int | None) -> Game | None:
        """The game whose board ``channel_id`` is owed (``game_id``'s, or the channel's active
        game's), None if nothing is owed any more."""
        if game_id is None:
            return await self.db.get_active_game(channel_id)
        game = await self.db.get_game(game_id)
        if game is None or game.board_owed_version is None:
            return None
        return game

    async def viewer_preferences(
        self, game: Game, user_id: int
    ) -> tuple[PlayerPreferences, int | None]:
        """``user_id``'s board preferences, and the seat a board shown to them privately is
        seen from (their own, if they play in this game and asked for it)."""
        prefs = await self.db.get_player_preferences(user_id)
        seat = GameTable.seat_of(game, user_id) if prefs.own_side else None
        return prefs, seat

    async def should_ping(self, game: Game, user_id: int | None, *, just_acted: int = 0) -> bool:
        """Whether the board that starts ``user_id``'s turn pings them: their
        ``/preferences pings`` (always, never, or, by default, only when they have not acted
        in this game for :data:`AWAY_AFTER_SECONDS`). Never the computer, never the user who
        just acted (``just_acted``: e.g. who clicked Accept)."""
        if user_id is None or user_id == just_acted:
            return False
        if game.against_computer and user_id == game.player_o:
            return False
        policy = (await self.db.get_player_preferences(user_id)).pings
        if policy != "away":
            return policy == "always"
        last = await self.db.last_move_at(game.id, user_id)
        return last is None or self.table.clock() - last >= AWAY_AFTER_SECONDS

    async def turn_notice_owed(self, game: Game, actor: int | None) -> int | None:
        """Who the turn notice of ``game``'s board, edited in place, pings (None: it owes
        none): the player to act, when the last action was the other player's (their
        decision starts with this board) and :meth:`should_ping` says so. Asked when a crash
        left such a board unmarked: the notice is part of what it owes."""
        if actor is None or game.against_computer:
            return None  # the computer's turn ends on the person's own action: no notice
        last = await self.db.last_actor(game.id)
        if last is None or last == actor:
            return None
        return actor if await self.should_ping(game, actor, just_acted=last) else None

    # --- typed plays -----------------------------------------------------------------------

    def preview(self, game: Game, user_id: int, typed: str) -> Preview:
        """What ``typed`` would play for ``user_id`` now, without committing anything (a front
        end that lets the player look before confirming); refused exactly as :meth:`act`
        would refuse the play."""
        seat = self.check_turn(game, user_id, MOVE)
        state = self.table.state_of(game)
        try:
            chosen = parse_play(state.position_for(seat), state.legal_plays(), typed)
        except EngineError as exc:
            raise IllegalAction(exc.message) from None
        dice = state.current_dice()
        assert dice is not None
        board = chosen.after if seat == 0 else chosen.after.flip()
        last = LastPlay(seat, dice.text(), chosen.text, chosen.steps)
        return Preview(chosen.text, replace(state, board=board, last=last))

    def play_suggestions(self, game: Game, user_id: int, typed: str) -> list[str]:
        """The legal plays (canonical texts, "" for no play) of ``user_id``'s turn that match
        what is typed so far, in reading order; none when it is not their move."""
        state = self.table.state_of(game)
        if state.phase != MOVE or GameTable.user_of(game, state.mover) != user_id:
            return []
        return narrow_plays(self.table.legal_texts(game), typed)


_SEGMENT = re.compile(r"[\s,]+")


def _tokens(text: str) -> list[str]:
    return [t for t in _SEGMENT.split(text.lower()) if t]


def _token_matches(typed: str, token: str) -> bool:
    """A typed token matches a play's token from the start, or from one of its points:
    "8/" and "13/7" match "13/7/2"; "7/2" matches it too."""
    return token.startswith(typed) or ("/" + typed) in token


def _point_number(part: str) -> int:
    digits = "".join(c for c in part if c.isdigit())
    if part.startswith("bar"):
        return 25
    if part.startswith("off"):
        return 0
    return int(digits) if digits else 0


def play_order(text: str) -> tuple[tuple[int, int], ...]:
    """How players read a list of plays: by source point, high to low, numerically, then by
    destination (high first)."""
    key = []
    for token in text.split():
        parts = token.split("/")
        key.append((-_point_number(parts[0]), -_point_number(parts[-1])))
    return tuple(key)


def narrow_plays(texts: list[str], typed: str) -> list[str]:
    """The legal plays (canonical texts, "" for no play) that contain every token typed so
    far, in any order, each matched by a different token of the play; in reading order."""
    wanted = _tokens(typed)
    chosen = []
    for text in texts:
        free = _tokens(text or "pass")
        ok = True
        for typed_token in wanted:
            hit = next((t for t in free if _token_matches(typed_token, t)), None)
            if hit is None:
                ok = False
                break
            free.remove(hit)
        if ok:
            chosen.append(text)
    return sorted(chosen, key=lambda t: (play_order(t), t))
