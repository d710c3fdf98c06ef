"""Game flow (RULES §2.1, §2.9, §3.1.8, §6): a whole match as an immutable state value.

Every action returns a new ``GameState``; nothing is mutated, so a front end can keep the old
state until the new one is stored. Dice come from an injected ``random.Random`` (seedable).
Seats are 0 and 1; the board is kept in seat 0's frame and flipped for seat 1.
"""

from __future__ import annotations

import json
import random
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeVar

from engine.dice import ChainDice, Dice, Roll
from engine.errors import GameError
from engine.movegen import legal_plays
from engine.notation import parse_play
from engine.play import Play, Step
from engine.position import Position, X
from engine.text import format_position, parse_position
from engine.variants import Result, ResultKind, Variant, get_variant


class Phase(StrEnum):
    """Where a game stands. Members are their strings (as stored in the state JSON)."""

    ROLL = "roll"  # the player to act may double (classic) or roll
    MOVE = "move"  # the player to act (the chain's controller in Express) must play
    DOUBLE = "double"  # the opponent of ``turn`` must take or pass
    GAME_OVER = "game_over"  # a game of a longer match ended; next_game() starts the next one
    MATCH_OVER = "match_over"


# The phases by their old names, which the front end imports.
ROLL = Phase.ROLL
MOVE = Phase.MOVE
DOUBLE = Phase.DOUBLE
GAME_OVER = Phase.GAME_OVER
MATCH_OVER = Phase.MATCH_OVER

_E = TypeVar("_E", bound=StrEnum)

MAX_CUBE = 64
#: The longest match players may start (the bot's commands offer 1 to this many points).
MAX_MATCH_LENGTH = 25
#: Forced plays are played automatically; this bounds a pathological run of them in one call.
MAX_AUTO_PLAYS = 500
FORMAT_VERSION = 1
#: How a resignation level is written (the Pin games: the loser's pips x1, x2, x3).
RESIGN_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


def _member(enum: type[_E], value: str, what: str) -> _E:
    """The member of ``enum`` a stored state names (E_FORMAT for one it does not know)."""
    try:
        return enum(value)
    except ValueError:
        raise GameError("E_FORMAT", f"unknown {what} {value!r} in a stored game state") from None


def other(seat: int) -> int:
    return 1 - seat


def distinct_names(names: tuple[str, str]) -> tuple[str, str]:
    """The players' names as a new game records them. A record line names its player (RULES
    §7.7) and a replay reads the seat back from that name, so two players who go by the same
    name are told apart: the second seat's gets " (2)"."""
    first, second = names
    if first != second:
        return names
    return first, f"{second} (2)"


@dataclass(frozen=True, slots=True)
class Chain:
    """A Blocking Express chain in progress (RULES §6)."""

    roller: int
    controller: int
    pending: tuple[tuple[int, int], ...]  # (value, copies) still to play, current first
    just_received: bool = False  # the controller has just been handed control
    first: bool = True  # the next decision is the chain's first (written as the rolled double)

    def decision(self) -> ChainDice:
        value, copies = self.pending[0]
        return ChainDice(value, copies, rolled=self.first)


@dataclass(frozen=True, slots=True)
class LastPlay:
    """The latest play, for the record and the board picture. Steps are in ``seat``'s frame."""

    seat: int
    dice: str
    text: str
    steps: tuple[Step, ...]
    auto: bool = False


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended. ``winner`` is a seat or None (tie/draw); ``points`` include the cube."""

    winner: int | None
    points: int
    kind: ResultKind


@dataclass(frozen=True, slots=True)
class GameState:
    variant: str
    players: tuple[str, str]
    board: Position  # seat 0's frame
    turn: int
    phase: Phase
    dice: Roll | None = None
    chain: Chain | None = None
    match_length: int = 1
    score: tuple[int, int] = (0, 0)
    game_number: int = 1
    cube: int = 1
    cube_owner: int | None = None
    crawford: bool = False  # the current game is the Crawford game
    crawford_done: bool = False
    #: Rule options of this match (RULES names, sorted), e.g. ``("mustEnterAll",)``.
    options: tuple[str, ...] = ()
    last: LastPlay | None = None
    result: GameResult | None = None
    match_winner: int | None = None
    record: tuple[str, ...] = field(default=())
    #: A resignation offered and not yet answered: (the resigning seat, level 1..3).
    resign_offer: tuple[int, int] | None = None
    #: The legal plays once listed (a state never changes, and a move lists the next
    #: player's plays up to three times: dead-position test, forced-play test, the play).
    _plays: tuple[Play, ...] | None = field(default=None, init=False, repr=False, compare=False)
    #: The board seen by the second seat once computed (a move asks for it up to five times:
    #: listing, pips, the picture's scene and its alt text).
    _flipped: Position | None = field(default=None, init=False, repr=False, compare=False)

    # --- construction ---------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        variant_id: str,
        players: tuple[str, str],
        rng: random.Random,
        match_length: int = 1,
        options: Collection[str] = (),
    ) -> GameState:
        try:
            variant = get_variant(variant_id, options)
        except ValueError as exc:
            raise GameError("E_GAME", str(exc)) from None
        if match_length < 1:
            raise GameError("E_GAME", "A match is at least 1 point long.")
        board = variant.initial_position()
        state = cls(
            variant_id,
            players,
            board,
            0,
            ROLL,
            match_length=match_length,
            options=tuple(sorted(set(options))),
        )
        return state._start_game(rng, None)

    @property
    def rules(self) -> Variant:
        """The variant's rules with this match's options."""
        return get_variant(self.variant, self.options)

    def _start_game(self, rng: random.Random, starter: int | None) -> GameState:
        variant = self.rules
        lines = list(self.record)
        lines.append(f"game {self.game_number}")
        state = replace(
            self,
            board=variant.initial_position(),
            cube=1,
            cube_owner=None,
            chain=None,
            dice=None,
            last=None,
            result=None,
        )
        if starter is not None:
            lines.append(f"{self.players[starter]} starts (won the previous game)")
            roll = Roll.of(rng.randint(1, 6), rng.randint(1, 6))
        else:
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            while a == b:  # A1: ties re-roll
                lines.append(f"opening roll: {self.players[0]} {a}, {self.players[1]} {b} (tie)")
                a, b = rng.randint(1, 6), rng.randint(1, 6)
            lines.append(f"opening roll: {self.players[0]} {a}, {self.players[1]} {b}")
            starter = 0 if a > b else 1
            if variant.plays_opening_dice:
                roll = Roll.of(a, b)
            else:
                roll = Roll.of(rng.randint(1, 6), rng.randint(1, 6))
        return replace(state, record=tuple(lines))._begin_turn(starter, roll)

    def _begin_turn(self, seat: int, roll: Roll) -> GameState:
        chain = None
        if roll.is_double and self.rules.chains_doubles:
            pending = tuple((v, 4) for v in range(roll.high, 7))
            chain = Chain(roller=seat, controller=seat, pending=pending)
        return replace(self, turn=seat, phase=MOVE, dice=roll, chain=chain)

    # --- queries ----------------------------------------------------------------------------

    @property
    def mover(self) -> int:
        """The seat that must act now."""
        if self.phase == MOVE and self.chain is not None:
            return self.chain.controller
        if self.phase == DOUBLE:
            return other(self.turn)
        return self.turn

    def position_for(self, seat: int) -> Position:
        if seat == 0:
            return self.board
        flipped = self._flipped
        if flipped is None:
            flipped = self.board.flip()
            object.__setattr__(self, "_flipped", flipped)
        return flipped

    def current_dice(self) -> Dice | None:
        if self.phase != MOVE:
            return None
        if self.chain is not None:
            return self.chain.decision()
        return self.dice

    def legal_plays(self) -> list[Play]:
        plays = self._plays
        if plays is None:
            dice = self.current_dice()
            found = (
                [] if dice is None else legal_plays(self.position_for(self.mover), dice, self.rules)
            )
            plays = tuple(found)
            object.__setattr__(self, "_plays", plays)
        return list(plays)

    def can_double(self, seat: int) -> bool:
        return (
            self.rules.has_cube
            and self.phase == ROLL
            and seat == self.turn
            and self.cube_owner in (None, seat)
            and not self.crawford
            and self.cube < MAX_CUBE
        )

    @property
    def is_over(self) -> bool:
        return self.phase in (GAME_OVER, MATCH_OVER)

    def pips(self, seat: int) -> int:
        return self.position_for(seat).pips(X)

    # --- actions ----------------------------------------------------------------------------

    def _require(self, phase: Phase, seat: int, what: str) -> None:
        self._no_offer_pending()
        if self.phase != phase:
            raise GameError("E_PHASE", f"You cannot {what} now.")
        if seat != self.mover:
            raise GameError("E_TURN", f"It is not your turn to {what}.")

    def play(self, seat: int, text: str, rng: random.Random) -> GameState:
        """Play ``text`` (any accepted notation) for ``seat``; raises EngineError if illegal."""
        self._require(MOVE, seat, "move")
        legal = self.legal_plays()
        chosen = parse_play(self.position_for(seat), legal, text)
        return self._apply(chosen, rng, auto=False)

    def _apply(self, chosen: Play, rng: random.Random, auto: bool) -> GameState:
        seat = self.mover
        dice = self.current_dice()
        assert dice is not None
        after = chosen.after
        board = after if seat == 0 else after.flip()
        name = self.players[seat]
        if self.chain is not None:
            value, copies = self.chain.pending[0]
            rolled = f" {value}{value}" if self.chain.first else ""
            head = f"{name}{rolled} [{value}x{copies}]"
        else:
            head = f"{name} {dice.text()}"
        line = f"{head}: {chosen.text}"
        last = LastPlay(seat, dice.text(), chosen.text, chosen.steps, auto)
        state = replace(self, board=board, last=last, record=(*self.record, line))
        result = self.rules.result(after)
        if result is not None:
            return state._finish(self._seat_result(seat, result))
        if self.chain is not None:
            return state._advance_chain(len(chosen.steps), rng)
        return state._next_turn(other(seat), rng)

    def _seat_result(self, seat: int, result: Result) -> GameResult:
        winner = None if result.winner is None else (seat if result.winner == X else other(seat))
        points = result.points * (self.cube if self.rules.has_cube else 1)
        return GameResult(winner, points, result.kind)

    def _advance_chain(self, played: int, rng: random.Random) -> GameState:
        chain = self.chain
        assert chain is not None
        value, copies = chain.pending[0]
        if played == copies:
            rest = chain.pending[1:]
            if not rest:
                return self._end_chain("chain complete", rng)
            new = replace(chain, pending=rest, just_received=False, first=False)
            return replace(self, chain=new)
        if chain.just_received and played == 0:
            return self._end_chain("both players stuck: the remaining numbers are forfeited", rng)
        left = ((value, copies - played), *chain.pending[1:])
        new = Chain(chain.roller, other(chain.controller), left, just_received=True, first=False)
        note = f"{self.players[new.controller]} takes over with {value}x{copies - played}"
        return replace(self, chain=new, record=(*self.record, note))

    def _end_chain(self, why: str, rng: random.Random) -> GameState:
        assert self.chain is not None
        roller = self.chain.roller
        state = replace(self, chain=None, record=(*self.record, why))
        return state._next_turn(other(roller), rng)

    def _next_turn(self, seat: int, rng: random.Random) -> GameState:
        state = replace(self, turn=seat, phase=ROLL, dice=None, chain=None)
        if state.can_double(seat):
            return state
        return state._roll(rng)

    def _roll(self, rng: random.Random) -> GameState:
        roll = Roll.of(rng.randint(1, 6), rng.randint(1, 6))
        state = self._begin_turn(self.turn, roll)
        plays = state.legal_plays()
        if len(plays) == 1 and not plays[0].steps and state.is_dead():
            return state._finish(GameResult(None, 0, ResultKind.DRAW))
        return state

    def is_dead(self) -> bool:
        """RULES §2.9 (A24): neither player can ever move again."""
        rules = self.rules
        return not rules.can_step(self.board) and not rules.can_step(self.board.flip())

    def roll(self, seat: int, rng: random.Random) -> GameState:
        self._require(ROLL, seat, "roll")
        return self._roll(rng)

    def _no_offer_pending(self) -> None:
        if self.resign_offer is not None:
            who = self.players[other(self.resign_offer[0])]
            raise GameError("E_PHASE", f"A resignation offer is waiting for {who}'s answer.")

    def double(self, seat: int) -> GameState:
        self._no_offer_pending()
        if not self.can_double(seat):
            if not self.rules.has_cube:
                raise GameError("E_CUBE", f"{self.rules.name} is played without a doubling cube.")
            if self.crawford:
                raise GameError("E_CUBE", "No doubling in the Crawford game.")
            if self.phase != ROLL or seat != self.turn:
                raise GameError("E_TURN", "You can only double at the start of your own turn.")
            raise GameError("E_CUBE", "Your opponent owns the cube.")
        line = f"{self.players[seat]} doubles {self.cube * 2}"
        return replace(self, phase=DOUBLE, record=(*self.record, line))

    def take(self, seat: int, rng: random.Random) -> GameState:
        self._require(DOUBLE, seat, "take")
        state = replace(
            self,
            cube=self.cube * 2,
            cube_owner=seat,
            phase=ROLL,
            record=(*self.record, f"{self.players[seat]} takes"),
        )
        return state._roll(rng)  # the doubler rolls at once

    def drop(self, seat: int) -> GameState:
        """Pass a double: the doubler wins the cube's current value."""
        self._require(DOUBLE, seat, "pass")
        state = replace(self, record=(*self.record, f"{self.players[seat]} passes"))
        return state._finish(GameResult(other(seat), self.cube, ResultKind.PASS))

    def resign(self, seat: int) -> GameState:
        """Concede the game: the opponent scores a single game (the loser's pips in Pin games)."""
        if self.is_over:
            raise GameError("E_PHASE", "The game is already over.")
        return self._concede(seat, ResultKind.RESIGN, f"{self.players[seat]} resigns")

    def resignation_value(self, seat: int, level: int) -> int:
        """Points the opponent of ``seat`` would win if ``seat`` resigned at ``level``."""
        base = self.rules.resignation_points(self.position_for(other(seat)), level)
        return base * (self.cube if self.rules.has_cube else 1)

    def offer_resign(self, seat: int, level: int = 1) -> GameState:
        """Offer to resign at ``level`` (1 single, 2 gammon, 3 backgammon; in the Pin games the
        loser's pips x1, x2, x3). The opponent accepts or rejects it; a variant with one level
        concedes at once. Either player may offer, on either player's turn, as on FIBS/gnubg."""
        if self.is_over:
            raise GameError("E_PHASE", "The game is already over.")
        levels = self.rules.resign_levels
        if not 1 <= level <= levels:
            if levels == 1:
                raise GameError(
                    "E_RESIGN", f"{self.rules.name} has one result: /resign concedes the game."
                )
            raise GameError("E_RESIGN", f"The resignation level is 1 to {levels}.")
        if self.resign_offer is not None:
            if self.resign_offer[0] == seat:
                raise GameError("E_RESIGN", "Your offer to resign is waiting for an answer.")
            raise GameError("E_RESIGN", "Answer your opponent's offer to resign first.")
        if levels == 1:
            return self.resign(seat)
        points = self.resignation_value(seat, level)
        unit = "point" if points == 1 else "points"
        line = f"{self.players[seat]} offers to resign {RESIGN_NAMES[level]} ({points} {unit})"
        return replace(self, resign_offer=(seat, level), record=(*self.record, line))

    def _offer_to(self, seat: int) -> tuple[int, int]:
        offer = self.resign_offer
        if offer is None:
            raise GameError("E_RESIGN", "No resignation is on offer.")
        if offer[0] == seat:
            raise GameError("E_TURN", "Your opponent answers your offer, not you.")
        return offer

    def accept_resign(self, seat: int) -> GameState:
        """Accept the opponent's offer: the game ends with the offered result."""
        loser, level = self._offer_to(seat)
        points = self.resignation_value(loser, level)
        line = f"{self.players[seat]} accepts"
        state = replace(self, resign_offer=None, record=(*self.record, line))
        return state._finish(GameResult(seat, points, ResultKind.RESIGN))

    def reject_resign(self, seat: int) -> GameState:
        """Reject the opponent's offer (or withdraw one's own): the game goes on."""
        offer = self.resign_offer
        if offer is None:
            raise GameError("E_RESIGN", "No resignation is on offer.")
        verb = "withdraws the offer" if offer[0] == seat else "rejects"
        return replace(
            self, resign_offer=None, record=(*self.record, f"{self.players[seat]} {verb}")
        )

    def claim(self, claimer: int) -> GameState:
        """Win on time: the opponent of ``claimer`` let the clock run out.

        A claim ends the whole match: the idle player forfeits it (a new game would only give
        him a fresh clock). The current game is scored as a resignation.
        """
        if self.is_over:
            raise GameError("E_PHASE", "The game is already over.")
        line = f"{self.players[claimer]} claims on time"
        state = self._concede(other(claimer), ResultKind.TIMEOUT, line)
        if state.phase == GAME_OVER:
            score = list(state.score)
            score[claimer] = max(score[claimer], self.match_length)
            state = replace(
                state,
                score=(score[0], score[1]),
                phase=MATCH_OVER,
                match_winner=claimer,
                record=(*state.record, f"{self.players[claimer]} wins the match on time"),
            )
        return state

    def _concede(self, loser: int, kind: ResultKind, line: str) -> GameState:
        points = self.resignation_value(loser, 1)
        state = replace(self, resign_offer=None, record=(*self.record, line))
        return state._finish(GameResult(other(loser), points, kind))

    def _finish(self, result: GameResult) -> GameState:
        score = list(self.score)
        if result.winner is not None:
            score[result.winner] += result.points
        if result.winner is None:
            dead = result.kind == ResultKind.DRAW
            line = "result: draw (dead position)" if dead else "result: tie"
        else:
            line = f"result: {self.players[result.winner]} wins {result.points} ({result.kind})"
        record = (*self.record, line)
        winner = next((s for s in (0, 1) if score[s] >= self.match_length), None)
        state = replace(
            self,
            score=(score[0], score[1]),
            result=result,
            record=record,
            dice=None,
            chain=None,
            phase=MATCH_OVER if winner is not None else GAME_OVER,
            match_winner=winner,
            resign_offer=None,
        )
        return state

    def next_game(self, rng: random.Random) -> GameState:
        """Start the next game of the match (RULES §2.1 step 3; Crawford rule in classic)."""
        if self.phase != GAME_OVER:
            raise GameError("E_PHASE", "There is no next game to start.")
        assert self.result is not None
        crawford = (
            self.rules.has_cube
            and self.match_length > 1
            and not self.crawford_done
            and max(self.score) == self.match_length - 1
        )
        starter = self.result.winner if self.rules.previous_winner_starts else None
        state = replace(
            self,
            game_number=self.game_number + 1,
            crawford=crawford,
            crawford_done=self.crawford_done or crawford,
        )
        return state._start_game(rng, starter)

    def advance(self, rng: random.Random) -> tuple[GameState, list[LastPlay]]:
        """Play forced turns (exactly one legal play, including no play) automatically."""
        state = self
        auto: list[LastPlay] = []
        for _ in range(MAX_AUTO_PLAYS):
            if state.phase != MOVE:
                break
            plays = state.legal_plays()
            if len(plays) != 1:
                break
            state = state._apply(plays[0], rng, auto=True)
            assert state.last is not None
            auto.append(state.last)
        return state, auto

    # --- serialisation ----------------------------------------------------------------------

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "variant": self.variant,
            "players": list(self.players),
            "board": format_position(self.board),
            "turn": self.turn,
            "phase": self.phase,
            "dice": None if self.dice is None else [self.dice.high, self.dice.low],
            "chain": None
            if self.chain is None
            else {
                "roller": self.chain.roller,
                "controller": self.chain.controller,
                "pending": [list(p) for p in self.chain.pending],
                "just_received": self.chain.just_received,
                "first": self.chain.first,
            },
            "match_length": self.match_length,
            "score": list(self.score),
            "game_number": self.game_number,
            "cube": self.cube,
            "cube_owner": self.cube_owner,
            "crawford": self.crawford,
            "crawford_done": self.crawford_done,
            "options": list(self.options),
            "last": None
            if self.last is None
            else {
                "seat": self.last.seat,
                "dice": self.last.dice,
                "text": self.last.text,
                "steps": [list(s) for s in self.last.steps],
                "auto": self.last.auto,
            },
            "result": None
            if self.result is None
            else {
                "winner": self.result.winner,
                "points": self.result.points,
                "kind": self.result.kind,
            },
            "match_winner": self.match_winner,
            "record": list(self.record),
            "resign_offer": None if self.resign_offer is None else list(self.resign_offer),
        }

    @classmethod
    def from_json(cls, text: str) -> GameState:
        return cls.from_dict(json.loads(text))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        if d.get("format") != FORMAT_VERSION:
            raise GameError("E_FORMAT", f"unknown game state format {d.get('format')!r}")
        board, _ = parse_position(d["board"])
        chain = d["chain"]
        last = d["last"]
        result = d["result"]
        offer = d.get("resign_offer")  # absent in states saved before resignation offers
        return cls(
            variant=d["variant"],
            players=(d["players"][0], d["players"][1]),
            board=board,
            turn=d["turn"],
            phase=_member(Phase, d["phase"], "phase"),
            dice=None if d["dice"] is None else Roll(d["dice"][0], d["dice"][1]),
            chain=None
            if chain is None
            else Chain(
                chain["roller"],
                chain["controller"],
                tuple((p[0], p[1]) for p in chain["pending"]),
                chain["just_received"],
                chain["first"],
            ),
            match_length=d["match_length"],
            score=(d["score"][0], d["score"][1]),
            game_number=d["game_number"],
            cube=d["cube"],
            cube_owner=d["cube_owner"],
            crawford=d["crawford"],
            crawford_done=d["crawford_done"],
            # Saved before options existed: the plakoto setup was a field of its own.
            options=tuple(d.get("options", ("plakoto",) if d.get("setup") == "plakoto" else ())),
            last=None
            if last is None
            else LastPlay(
                last["seat"],
                last["dice"],
                last["text"],
                tuple(Step(s[0], s[1], s[2], s[3]) for s in last["steps"]),
                last["auto"],
            ),
            result=None
            if result is None
            else GameResult(
                result["winner"],
                result["points"],
                _member(ResultKind, result["kind"], "result kind"),
            ),
            match_winner=d["match_winner"],
            record=tuple(d["record"]),
            resign_offer=None if offer is None else (offer[0], offer[1]),
        )


__all__ = [
    "DOUBLE",
    "GAME_OVER",
    "MATCH_OVER",
    "MAX_MATCH_LENGTH",
    "MOVE",
    "RESIGN_NAMES",
    "ROLL",
    "Chain",
    "GameResult",
    "GameState",
    "LastPlay",
    "Phase",
    "ResultKind",
    "distinct_names",
]
