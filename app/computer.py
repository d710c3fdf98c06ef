"""The computer as an opponent: it takes its turns in games against it, in any channel.

A game against the computer has the bot's own user as its second player (seat O) and a level
(``Game.ai_level``). Whenever that seat must act (roll or double, take or pass, move, answer an
offer to resign), a task of this module asks the ai/ worker pool what to do, shows the channel
that the bot is typing meanwhile, applies the decision through the GameTable (committed with the
optimistic version check, so a decision is applied at most once) and posts the board like after
a person's turn.
Nothing of the thinking runs on the event loop.

After a restart (even SIGKILL), :meth:`ComputerTurns.resume` finds the games waiting for the
computer and plays their turns: the stored state is the only truth, and a turn that was not
committed before the crash simply happens now.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, NamedTuple

from ai.classic import points_as_match_equity
from ai.pool import AIPool, DecisionTimeout, PoolError
from ai.types import LEVELS, STRONGEST, MatchContext, PositionValue
from app.faults import kill_point
from app.table import Action, GameTable, Outcome
from engine import Dice, Position
from engine.errors import EngineError
from engine.game import DOUBLE, MOVE, RESIGN_NAMES, ROLL, GameState
from storage import ConflictError, Game, Shards

log = logging.getLogger(__name__)

#: The computer always plays the second seat (the challenger is the first).
COMPUTER_SEAT = 1
#: Seconds the worker may think about one play (the reply then takes ~0.1 s more).
THINK_SECONDS = 1.2
#: Attempts at one decision when the pool fails (busy, a crashed worker) before falling back.
ATTEMPTS = 3
#: The level asked after a decision overran its time (1-ply: answers at once).
QUICK_LEVEL = "intermediate"
#: Bounds one task's run of consecutive computer decisions (roll, move; forced plays are
#: played by the table itself).
MAX_STEPS = 50
#: An offer worth this little less than the computer's expectation is still accepted (the
#: evaluation's own rounding: a certain gammon comes out at 1.998 points, not 2).
RESIGN_TOLERANCE = 0.01

LEVEL_ABOUT: dict[str, str] = {
    "beginner": "makes plenty of mistakes; a first opponent",
    "casual": "plays sensibly but misjudges close plays",
    "intermediate": "rarely blunders",
    "strong": "nearly always the evaluation's best play, without looking ahead",
    "expert": "the strongest: looks a roll ahead (in backgammon, the network's deepest search)",
}
assert tuple(LEVEL_ABOUT) == LEVELS

Poster = Callable[[Game, Outcome, str], Coroutine[Any, Any, None]]
#: Shows that the computer is thinking in a channel until cancelled (best effort, never raises).
Indicator = Callable[[int], Coroutine[Any, Any, None]]


async def _no_indicator(channel_id: int) -> None:
    return None


def computer_name(level: str) -> str:
    return f"Computer ({level})"


def match_context(state: GameState, seat: int) -> MatchContext:
    """The match situation seen by ``seat`` (cube owner relative to it)."""
    owner = -1 if state.cube_owner is None else (0 if state.cube_owner == seat else 1)
    return MatchContext(
        length=state.match_length if state.match_length > 1 else 0,
        score_mover=state.score[seat],
        score_opponent=state.score[1 - seat],
        crawford=state.crawford,
        cube=state.cube,
        cube_owner=owner,
    )


def _amount(x: float) -> str:
    return f"{x:.2f}" if abs(x) < 10 else f"{x:.0f}"


def resign_answer(state: GameState, value: PositionValue | None) -> tuple[bool, str]:
    """The computer's answer to the person's offer to resign: (accept, the sentence saying why).

    ``value`` is what the position is worth to the computer (``ai.value.position_value`` from
    its side; None when it could not be evaluated: it then accepts, as a practice partner).
    It accepts when the points offered are at least what it expects to win by playing on, as
    a real opponent does: a single game is refused while it expects a gammon.
    """
    assert state.resign_offer is not None
    offerer, level = state.resign_offer
    me = 1 - offerer
    name = state.players[me]
    offered = state.resignation_value(offerer, level)
    if value is None or not math.isfinite(value.equity):
        return True, f"{name} accepts."
    counted = float(offered)
    at_score = ""
    if state.match_length > 1:
        # In a match, points count by what they do to the chance of winning it: the cube
        # game's equity is match equity, so the offer is valued on the same table.
        worth_now = (
            points_as_match_equity(match_context(state, me), offered)
            if state.rules.has_cube
            else None
        )
        if worth_now is None:
            # Points beyond what the computer still needs to win the match are worth nothing.
            counted = float(min(offered, max(state.match_length - state.score[me], 1)))
        else:
            counted = worth_now
        if abs(counted - offered) >= 0.005:
            shown = str(int(counted)) if counted.is_integer() else _amount(counted)
            at_score = f", worth {shown} at this match score"
    expected = value.equity
    worth = f"{offered} point" if offered == 1 else f"{offered} points"
    if counted >= expected - RESIGN_TOLERANCE:
        return True, (
            f"{name} accepts {RESIGN_NAMES[level]} ({worth}{at_score}): it expects "
            f"{_amount(expected)} points by playing on."
        )
    chances = [("wins", value.win)]
    if state.rules.resign_levels >= 2:
        chances.append(("gammon", value.gammon))
    if state.rules.resign_levels >= 3:
        chances.append(("backgammon", value.backgammon))
    figures = ", ".join(f"{what} {p:.0%}" for what, p in chances if p is not None)
    if level < 3 and (value.backgammon or 0.0) >= 0.5:
        headline = "it expects a backgammon here"
    elif level < 2 and (value.gammon or 0.0) >= 0.5:
        headline = "it expects a gammon here"
    else:
        headline = f"it expects more than {worth}{at_score} here"
    detail = f"{_amount(expected)} points on average" + (f": {figures}" if figures else "")
    return False, f"{name} rejects {RESIGN_NAMES[level]}: {headline} ({detail}). The game goes on."


class Valuation(NamedTuple):
    """The question to ask of the evaluation to answer an offer to resign."""

    on_roll: int
    position: Position
    match: MatchContext
    dice: Dice | None


def valuation(state: GameState) -> Valuation:
    """An offer comes at any moment of a turn: the player on roll is valued about to roll (or
    about to play the dice already rolled) in their own frame; the answer is then turned to the
    computer's side (``PositionValue.for_opponent`` when the person is on roll)."""
    on_roll = state.mover if state.phase == MOVE else state.turn
    return Valuation(
        on_roll, state.position_for(on_roll), match_context(state, on_roll), state.current_dice()
    )


class Decision(NamedTuple):
    """One decision of the computer, ready for the table."""

    action: Action
    #: History kind and text (text "": the engine's record line).
    kind: str
    text: str
    #: What the channel is told (with ``explained``, instead of the engine's record line).
    header: str
    explained: bool = False


def computer_to_act(game: Game, state: GameState) -> bool:
    if not game.against_computer or state.is_over:
        return False
    if state.resign_offer is not None:  # the person offered to resign: the computer answers
        return state.resign_offer[0] != COMPUTER_SEAT
    return state.mover == COMPUTER_SEAT


class ComputerTurns:
    """Runs the computer's turns: at most one task per game, in any number of channels."""

    def __init__(
        self,
        table: GameTable,
        pool: AIPool,
        user_id: Callable[[], int],
        *,
        shards: Callable[[], Shards | None] = lambda: None,
    ) -> None:
        self.table = table
        self.db = table.db
        self.pool = pool
        #: The computer's user id (the bot's own, known once it is logged in).
        self._user_id = user_id
        #: The shards this process runs (None: all); only their games' turns are resumed.
        self._shards = shards
        #: How boards and the thinking indicator reach players; set by the front end.
        self.post: Poster | None = None
        self.indicate: Indicator = _no_indicator
        self._tasks: dict[int, asyncio.Task[None]] = {}

    @property
    def user_id(self) -> int:
        return self._user_id()

    def busy(self, game_id: int) -> bool:
        task = self._tasks.get(game_id)
        return task is not None and not task.done()

    def schedule(self, game: Game) -> None:
        """Let the computer act in ``game`` if it is its turn (no-op when already running)."""
        if not game.against_computer or self.busy(game.id):
            return
        task = asyncio.create_task(self._run(game.id), name=f"computer-turn-{game.id}")
        self._tasks[game.id] = task
        task.add_done_callback(functools.partial(self._done, game.id))

    def _done(self, game_id: int, task: asyncio.Task[None]) -> None:
        if self._tasks.get(game_id) is task:
            del self._tasks[game_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("computer turn in game %s failed", game_id, exc_info=task.exception())

    async def settled(self, game_id: int) -> None:
        """Wait until the computer's task in ``game_id`` (if one runs) is done, for a front
        end that shows one turn at a time (the terminal). Its failure is logged, not raised."""
        task = self._tasks.get(game_id)
        if task is not None:
            await asyncio.wait({task})

    async def resume(self) -> int:
        """Schedule every active game waiting for the computer; returns how many."""
        count = 0
        shards = self._shards()
        for game in await self.db.list_active_games():
            if shards is not None and (game.guild_id >> 22) % shards.count not in shards.ids:
                continue  # another process's server: that process plays its turns
            if game.against_computer and not self.busy(game.id):
                try:
                    state = self.table.state_of(game)
                except Exception:
                    log.warning("game %s has an unreadable state", game.id)
                    continue
                if computer_to_act(game, state):
                    self.schedule(game)
                    count += 1
        return count

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task

    async def _run(self, game_id: int) -> None:
        #: Lines of decisions not shown yet: a plain roll that leaves the computer to move is
        #: shown with the play that follows (one board per turn, like a person's turn).
        pending: list[str] = []
        for step in range(MAX_STEPS):
            game = await self.db.get_game(game_id)
            if game is None or not game.is_active:
                return
            state = self.table.state_of(game)
            if not computer_to_act(game, state):
                return
            started = time.perf_counter()
            # "Bot is typing..." meanwhile, without making the decision wait for that request.
            # (once a turn: its later steps are shown as they come, each one a board edit)
            typing = asyncio.create_task(
                self.indicate(game.channel_id) if step == 0 else _no_indicator(game.channel_id)
            )
            try:
                decided = await self._decide(game, state)
            finally:
                typing.cancel()
            thought = time.perf_counter()
            kill_point("thinking")
            async with self.table.lock(game.channel_id):
                fresh = await self.db.get_game(game_id)
                if fresh is None or not fresh.is_active or fresh.version != game.version:
                    continue  # the person acted meanwhile (resigned, aborted): look again
                try:
                    outcome = await self.table.act(
                        fresh,
                        self.user_id,
                        decided.action,
                        decided.kind,
                        decided.text,
                        owe_board=True,
                    )
                except ConflictError:
                    continue
                except EngineError:
                    log.exception("the computer's decision in game %s was refused", game_id)
                    return
            committed = time.perf_counter()
            # Its whole turn is shown at once (a roll and its play, every step of an Express
            # chain): one board per turn, like a person's.
            shown = not (
                decided.kind in ("roll", "play")
                and outcome.finished is None
                and computer_to_act(outcome.game, outcome.state)
            )
            said = decided.header if decided.explained else outcome.action_line
            if shown:
                header = "\n".join([*pending, said or decided.header])
                pending = []
                if self.post is not None:
                    await self.post(outcome.game, outcome, header)
            elif decided.kind == "roll":
                pending.extend(outcome.events)  # its play comes next, on the same board
            else:
                pending.extend([said or decided.header, *outcome.events])
            log.debug(
                "computer %s in game %s: decided in %.0f ms, committed in %.0f ms, board out "
                "in %.0f ms",
                decided.kind,
                game_id,
                (thought - started) * 1000,
                (committed - thought) * 1000,
                (time.perf_counter() - committed) * 1000 if shown else 0.0,
            )

    async def _decide(self, game: Game, state: GameState) -> Decision:
        """The computer's next decision."""
        seat = COMPUTER_SEAT
        pos = state.position_for(seat)
        match = match_context(state, seat)
        rng = self.table.rng
        name = state.players[seat]
        if state.resign_offer is not None:
            accept, why = resign_answer(state, await self._value_for_computer(game, state))
            if accept:
                return Decision(lambda s, st: s.accept_resign(st), "resign", "", why, True)
            return Decision(lambda s, st: s.reject_resign(st), "note", "", why, True)
        if state.phase == DOUBLE:

            async def take(level: str) -> Any:
                return await self.pool.take(pos, match, level=level, time_limit=THINK_SECONDS)

            if await self._ask(game, take, fallback=True):
                return Decision(lambda s, st: s.take(st, rng), "take", "", f"{name} takes.")
            return Decision(lambda s, st: s.drop(st), "pass", "", f"{name} passes.")
        if state.phase == ROLL:

            async def cube(level: str) -> Any:
                return await self.pool.cube(pos, match, level=level, time_limit=THINK_SECONDS)

            action = await self._ask(game, cube, fallback=None)
            if action is not None and action.double and state.can_double(seat):
                return Decision(lambda s, st: s.double(st), "double", "", f"{name} doubles.")
            return Decision(lambda s, st: s.roll(st, rng), "roll", "", f"{name} rolls.")
        assert state.phase == MOVE
        dice = state.current_dice()
        assert dice is not None
        # Reproducible under DICE_SEED: the level's noise depends on the game and its version.
        seed = random.Random(f"{game.id}:{game.version}").getrandbits(32)

        async def choose(level: str) -> Any:
            return await self.pool.choose(
                state.rules,
                pos,
                dice,
                level=level,
                match=match,
                time_limit=THINK_SECONDS,
                seed=seed,
            )

        play = await self._ask(game, choose, fallback=None)
        text = play.text if play is not None else await self._fallback_play(state)
        return Decision(
            lambda s, st: s.play(st, text or "pass", rng), "play", text, f"{name}: {text}"
        )

    async def _value_for_computer(self, game: Game, state: GameState) -> PositionValue | None:
        """What the position is worth to the computer now (None when the pool cannot say)."""
        ask = valuation(state)

        async def evaluate(level: str) -> Any:
            return await self.pool.evaluate(
                state.rules,
                ask.position,
                ask.match,
                dice=ask.dice,
                level=level,
                time_limit=THINK_SECONDS,
            )

        # Always the strongest judgement: a weak level misplays, it does not misjudge offers.
        value: PositionValue | None = await self._ask(game, evaluate, None, level=STRONGEST)
        if value is None:
            log.warning("game %s: the position could not be valued; the offer is accepted", game.id)
            return None
        return value if ask.on_roll == COMPUTER_SEAT else value.for_opponent()

    async def _ask(
        self,
        game: Game,
        question: Callable[[str], Awaitable[Any]],
        fallback: Any,
        level: str | None = None,
    ) -> Any:
        """The pool's answer at ``level`` (default the game's); after an overrun, at a quicker
        level (a loaded machine); when the pool keeps failing, ``fallback``."""
        level = level or game.ai_level or STRONGEST
        for attempt in range(ATTEMPTS):
            try:
                return await question(level)
            except DecisionTimeout as exc:
                log.warning("computer decision overran in game %s: %s", game.id, exc)
                level = QUICK_LEVEL
            except PoolError as exc:
                log.warning("computer decision failed in game %s: %s", game.id, exc)
                await asyncio.sleep(0.5 * (attempt + 1))
        return fallback

    async def _fallback_play(self, state: GameState) -> str:
        """The pool is down: a plain pip-count play (off the event loop), so the game goes
        on rather than hangs."""
        from ai.players import pip_greedy_play

        dice = state.current_dice()
        assert dice is not None
        pos = state.position_for(COMPUTER_SEAT)
        loop = asyncio.get_running_loop()
        play = await loop.run_in_executor(None, pip_greedy_play, state.rules, pos, dice)
        return play.text
