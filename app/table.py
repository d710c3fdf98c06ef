"""The game table: what every game action does, independent of how Discord asked for it.

Load the game, apply the engine action, play forced turns and start the next game of a match,
commit (state + history in one transaction, optimistic version check), then hand back what to
show. One asyncio lock per channel serialises actions of the same game in this process; the
version check in the database catches anything the lock cannot see.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from app.faults import kill_point
from engine.game import GAME_OVER, MATCH_OVER, MOVE, GameState, LastPlay, distinct_names
from render import render_board
from render.game_scene import chain_text, dice_label, result_text, roll_text, scene_for_game
from render.pool import RenderPool, RenderPoolClosed

# The records the use cases hand back, re-exported so that front ends never import storage.
from storage import Challenge as Challenge
from storage import FinishedGame as FinishedGame
from storage import Game as Game
from storage import GameContext, MatchResult, NewMove, Storage

log = logging.getLogger(__name__)

Action = Callable[[GameState, int], GameState]
#: The seat whose side the shared board is drawn from, for the whole game: the challenger's
#: (seat 0), which is the person's in a game against the computer. A board that turned to the
#: player to act put your own move on the other side's point numbers after every turn.
SHARED_VIEWER = 0
LEGAL_CACHE_SIZE = 512
#: Parsed game states kept by their JSON text (see GameTable.state_of).
STATE_CACHE_SIZE = 128
_states: OrderedDict[str, GameState] = OrderedDict()


def _remember(text: str, state: GameState) -> None:
    _states[text] = state
    _states.move_to_end(text)
    if len(_states) > STATE_CACHE_SIZE:
        _states.popitem(last=False)


@dataclass
class Outcome:
    """The result of one accepted action, ready to be shown."""

    game: Game
    state: GameState
    #: Lines describing what happened automatically (forced plays, game results, new games).
    events: list[str] = field(default_factory=list)
    finished: FinishedGame | None = None
    #: The state right after the player's own action, before forced plays and new games (a
    #: roll's dice, the cube just taken); None for a new game.
    acted: GameState | None = None
    #: The record line the player's own action wrote, as messages show it (e.g. "Alice 6-5:
    #: 24/18 13/8").
    action_line: str = ""


def shown_action(old: GameState, line: str) -> str:
    """A play's record line as messages show it, with the one dice format of the messages:
    "alice 6-5: 24/18 13/8", "bob three 4s: 8/4(3)" (the record keeps "65", "[4x3]")."""
    cube = _shown_cube_line(old, line)
    if cube is not None:
        return cube
    head, sep, play = line.partition(": ")
    if not sep or old.phase != MOVE:
        return line
    name = old.players[old.mover]
    if old.chain is not None:
        dice = chain_text(*old.chain.pending[0])
    elif old.dice is not None:
        dice = roll_text(old.dice.high, old.dice.low)
    else:
        return line
    if not head.startswith(name):
        return line
    return f"{name} {dice}: {play}"


def _shown_cube_line(old: GameState, line: str) -> str | None:
    """A cube action's record line ("bob doubles 2", "bob takes", "bob passes") as messages
    show it, like the players' own cube commands; None for any other line."""
    for name in old.players:
        if line == f"{name} doubles {old.cube * 2}":
            return f"{name} doubles to {old.cube * 2}."
        if line == f"{name} takes":
            return f"{name} takes: the cube is at {old.cube * 2}."
        if line == f"{name} passes":
            return f"{name} passes."
    return None


def describe_play(state: GameState, last: LastPlay) -> str:
    name = state.players[last.seat]
    if not last.text:
        return f"{name} rolled {dice_label(last.dice)} and cannot move."
    forced = " (forced)" if last.auto else ""
    return f"{name} played {dice_label(last.dice)}: {last.text}{forced}"


class GameTable:
    def __init__(
        self,
        db: Storage,
        rng: random.Random,
        clock: Callable[[], float] = time.time,
        renderer: RenderPool | None = None,
    ) -> None:
        self.db = db
        self.rng = rng
        self.clock = clock
        #: The worker processes that draw every board the bot posts (the bot owns and closes
        #: it); without one (some tests) boards are drawn on a thread of this process.
        self.renderer = renderer
        self._locks: dict[int, asyncio.Lock] = {}
        #: Called with each game as it finishes (e.g. to feed a tournament's next round).
        self.finish_listeners: list[Callable[[Game], None]] = []
        self._legal: OrderedDict[tuple[int, int], list[str]] = OrderedDict()

    def lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    @staticmethod
    def state_of(game: Game) -> GameState:
        """The game's state. A state is immutable and its JSON text says all of it, so states
        are kept by that text: the commands of one move parse it once, and a move finds the
        state the previous one committed, with the plays it listed to look for forced ones."""
        text = game.state_json
        state = _states.get(text)
        if state is None:
            state = GameState.from_json(text)
            _remember(text, state)
        else:
            _states.move_to_end(text)
        return state

    @staticmethod
    def seat_of(game: Game, user_id: int) -> int | None:
        if user_id == game.player_x:
            return 0
        if user_id == game.player_o:
            return 1
        return None

    @staticmethod
    def user_of(game: Game, seat: int) -> int:
        return game.player_x if seat == 0 else game.player_o

    def legal_texts(self, game: Game) -> list[str]:
        """Canonical texts of the legal plays at this version (cached for autocomplete)."""
        key = (game.id, game.version)
        texts = self._legal.get(key)
        if texts is None:
            texts = sorted(p.text for p in self.state_of(game).legal_plays())
            self._legal[key] = texts
            if len(self._legal) > LEGAL_CACHE_SIZE:
                self._legal.popitem(last=False)
        else:
            self._legal.move_to_end(key)
        return texts

    def _progress(self, state: GameState, events: list[str]) -> GameState:
        """Play forced turns; when a game of a longer match ends, start the next one."""
        for _ in range(100):
            state, auto = state.advance(self.rng)
            events.extend(describe_play(state, last) for last in auto)
            if state.phase != GAME_OVER:
                return state
            events.append(f"Game {state.game_number}: {result_text(state, state.players)}")
            state = state.next_game(self.rng)
            events.append(f"Game {state.game_number} starts.")
        return state

    async def start(
        self,
        challenge: Challenge,
        names: tuple[str, str],
        *,
        ai_level: str | None = None,
        thread_id: int | None = None,
        context: GameContext = "guild",
    ) -> Outcome:
        """Create the game for an accepted challenge (challenger in the first seat); in the
        thread ``thread_id`` opened for it, if given, else in the challenge's channel.
        ``context``: where it is played (outside a server: no guild, never rated).

        With ``ai_level`` the opponent is the computer (the challenge's opponent is the bot
        itself): the game is not rated. A challenge with hints is not rated either.
        """
        assert challenge.opponent_id is not None
        events: list[str] = []
        state = GameState.new(
            challenge.variant,
            distinct_names(names),  # the record names its players: namesakes must differ
            self.rng,
            match_length=challenge.match_length,
            options=challenge.options,
        )
        state = self._progress(state, events)
        game = await self.db.create_game(
            challenge.guild_id,
            challenge.channel_id if thread_id is None else thread_id,
            challenge.variant,
            challenge.challenger_id,
            challenge.opponent_id,
            state.to_json(),
            now=self.clock(),
            match_length=challenge.match_length,
            challenge_id=challenge.id,
            moves=[NewMove(None, "start", "\n".join(state.record))],
            ai_level=ai_level,
            rated=ai_level is None and not challenge.hints,
            hints=challenge.hints or ai_level is not None,
            owe_board=True,  # paid when the first board is out (see Storage.list_owed_boards)
            parent_channel_id=None if thread_id is None else challenge.channel_id,
            context=context,
        )
        outcome = Outcome(game, state, events)
        if state.phase == MATCH_OVER:  # e.g. a dead position on the first roll
            return await self._finish(game, state, outcome, [], owe_board=True)
        return outcome

    async def start_match(
        self,
        *,
        guild_id: int,
        thread_id: int,
        parent_channel_id: int | None,
        variant: str,
        match_length: int,
        players: tuple[int, int],
        names: tuple[str, str],
        rated: bool,
        pairing_id: int,
    ) -> Outcome:
        """Create the game of a tournament match (``players[0]`` in the first seat) in the
        thread opened for it; the match is marked started in the same transaction. The
        channel is owed its first board."""
        events: list[str] = []
        state = GameState.new(variant, distinct_names(names), self.rng, match_length=match_length)
        state = self._progress(state, events)
        game = await self.db.create_game(
            guild_id,
            thread_id,
            variant,
            players[0],
            players[1],
            state.to_json(),
            now=self.clock(),
            match_length=match_length,
            moves=[NewMove(None, "start", "\n".join(state.record))],
            rated=rated,
            owe_board=True,
            parent_channel_id=parent_channel_id,
            pairing_id=pairing_id,
        )
        outcome = Outcome(game, state, events)
        if state.phase == MATCH_OVER:
            return await self._finish(game, state, outcome, [], owe_board=True)
        return outcome

    async def act(
        self,
        game: Game,
        actor_id: int,
        action: Action,
        kind: str,
        text: str = "",
        *,
        owe_board: bool = False,
    ) -> Outcome:
        """Apply ``action`` for ``actor_id`` and commit. Engine errors propagate unchanged.

        ``owe_board``: the caller shows the resulting board in the channel; the commit records
        that the channel is owed it, so that a crash before it is out does not lose it (the
        caller pays with ``set_board_message(..., shown_version=)`` or ``board_shown``)."""
        state = self.state_of(game)
        seat = self.seat_of(game, actor_id)
        assert seat is not None
        acted = action(state, seat)
        events: list[str] = []
        new_state = self._progress(acted, events)
        line = _last_text(new_state, state)
        moves = [NewMove(actor_id, kind, text or line)]
        moves.extend(NewMove(None, "note", line) for line in events)
        outcome = Outcome(
            game, new_state, events, acted=acted, action_line=shown_action(state, line)
        )
        if new_state.phase == MATCH_OVER:
            await self._finish(game, new_state, outcome, moves, owe_board=owe_board)
            kill_point("committed")
            return outcome
        text = new_state.to_json()
        outcome.game = await self.db.commit_action(
            game.id, game.version, text, moves, now=self.clock(), owe_board=owe_board
        )
        kill_point("committed")
        _remember(text, new_state)
        return outcome

    async def _finish(
        self,
        game: Game,
        state: GameState,
        outcome: Outcome,
        moves: list[NewMove],
        *,
        owe_board: bool,
    ) -> Outcome:
        result = state.result
        assert result is not None
        winner = None if state.match_winner is None else self.user_of(game, state.match_winner)
        finished = await self.db.finish_game(
            game.id,
            game.version,
            state.to_json(),
            MatchResult(winner, result.kind, result.points, state.score[0], state.score[1]),
            now=self.clock(),
            moves=moves,
            owe_board=owe_board,
        )
        outcome.game = finished.game
        outcome.finished = finished
        for listener in self.finish_listeners:
            listener(finished.game)
        return outcome

    async def render(
        self,
        state: GameState,
        *,
        theme: str = "default",
        viewer: int | None = None,
        elsewhere: bool = False,
    ) -> bytes:
        """The board picture (seen by ``viewer``, default :data:`SHARED_VIEWER`), drawn in the
        render pool's worker processes, never on the event loop.

        ``elsewhere``: a board of a game against the computer; it waits behind the boards of
        games between people, so that those games do not slow the replies of the others.
        """
        scene = scene_for_game(state, state.players, SHARED_VIEWER if viewer is None else viewer)
        pool = self.renderer
        if pool is not None and pool.running:
            with contextlib.suppress(RenderPoolClosed):  # closing under us: draw it here
                png: bytes = await pool.run(render_board, scene, theme, urgent=not elsewhere)
                return png
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, partial(render_board, scene, theme))

    async def draw(self, picture: Callable[[], bytes]) -> bytes:
        """Any other picture (a chart), drawn in the render pool's worker processes behind the
        boards of games in progress; ``picture`` must be picklable (a ``functools.partial``
        of a module-level function)."""
        pool = self.renderer
        if pool is not None and pool.running:
            with contextlib.suppress(RenderPoolClosed):  # closing under us: draw it here
                png: bytes = await pool.run(picture, urgent=False)
                return png
        return await asyncio.get_running_loop().run_in_executor(None, picture)


def _last_text(new: GameState, old: GameState) -> str:
    if new.record[: len(old.record)] == old.record and len(new.record) > len(old.record):
        return new.record[len(old.record)]
    return ""
