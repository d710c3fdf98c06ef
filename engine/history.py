"""A stored game replayed decision by decision from its record (RULES §7.7 lines).

A ``GameState`` keeps only the current board and the record lines. Replays, reviews and match
exports need every position in between, so the record is played again through the engine: the
dice the record names are fed back through a scripted ``random.Random`` and each play, cube
action, resignation or claim is applied as a player would. Lines the engine writes by itself
(opening rolls, results, chain hand-overs, new games) must then come out exactly as stored:
a record that does not replay to itself is refused (:class:`HistoryError`) rather than guessed.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from engine.errors import EngineError, GameError
from engine.game import GAME_OVER, MOVE, RESIGN_NAMES, ROLL, GameState, other
from engine.notation import parse_play
from engine.play import Play


class DecisionKind(StrEnum):
    """Decision kinds, as in the record: a play, the cube actions, and the concessions.
    Not the game's phases: ``DecisionKind.DOUBLE`` is turning the cube, ``Phase.DOUBLE`` the
    wait for the answer."""

    PLAY = "play"
    #: Rolling when the cube could have been turned (classic); it writes no line of its own.
    ROLL = "roll"
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    RESIGN = "resign"
    CLAIM = "claim"
    #: An offer to resign at a level (classic, the Pin games), and its answers: accepted (the
    #: game ends with the offered result), rejected or withdrawn (the game goes on).
    OFFER = "offer"
    ACCEPT = "accept"
    REJECT = "reject"


# The kinds by their old names, which the front end imports.
PLAY = DecisionKind.PLAY
ROLL_KIND = DecisionKind.ROLL
DOUBLE = DecisionKind.DOUBLE
TAKE = DecisionKind.TAKE
PASS = DecisionKind.PASS
RESIGN = DecisionKind.RESIGN
CLAIM = DecisionKind.CLAIM
OFFER = DecisionKind.OFFER
ACCEPT = DecisionKind.ACCEPT
REJECT = DecisionKind.REJECT

_OPENING = re.compile(r"^opening roll: .* (\d), .* (\d)( \(tie\))?$")
_ROLLED = re.compile(r"^(\d)(\d)(?: \[\dx\d\])?: ")
_CHAINED = re.compile(r"^\[\dx\d\]: ")
_DOUBLES = re.compile(r"^doubles \d+$")
_OFFER = re.compile(r"^offers to resign (.+) \(\d+ points?\)$")
_LEVELS = {name: level for level, name in RESIGN_NAMES.items()}
_ANSWERS = ("accepts", "rejects", "withdraws the offer")


class HistoryError(GameError):
    """The record cannot be replayed (it was not written by this engine, or was altered)."""

    def __init__(self, message: str) -> None:
        super().__init__("E_HISTORY", message)

    def _init_args(self) -> tuple[Any, ...]:
        return (self.message,)


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the record: who took it, in which state, and what followed."""

    kind: DecisionKind
    seat: int
    #: The state the decision was taken in (for a play: phase MOVE with the dice to play).
    before: GameState
    #: The state right after it (dice of the next turn may already be rolled).
    after: GameState
    #: The chosen play (in ``seat``'s frame) for kind ``play``; None otherwise.
    play: Play | None
    #: The record line the decision wrote.
    line: str

    @property
    def game_number(self) -> int:
        return self.before.game_number


class _RecordedDice(random.Random):
    """Serves the dice the record shows, in order, to the game flow (which only calls
    ``randint``, two dice per roll).

    The driver sets ``limit`` to just past the next decision line before each step: a roll made
    during the step is the one that line (or an opening-roll line before it) shows. A roll that
    no line shows (made, then never played: a resignation or claim before moving, or the roll
    that found a position dead) gets arbitrary dice, which change nothing in the record.
    """

    def __init__(self, record: tuple[str, ...], names: tuple[str, str], opening: bool) -> None:
        super().__init__(0)
        self._record = record
        self._names = names
        self._opening = opening  # the variant plays the opening roll as the first turn
        self._skip_play = False
        self._pending: deque[int] = deque()
        self.cursor = 0
        self.limit = 0
        #: While a game is played its dice come from its own lines only: a roll no line shows
        #: (one that found the position dead) must not take the next game's opening roll.
        self.within_game = True

    def randint(self, a: int, b: int) -> int:
        if not self._pending:
            self._pending.extend(self._next_roll())
        return self._pending.popleft()

    def _next_roll(self) -> tuple[int, int]:
        while self.cursor < min(self.limit, len(self._record)):
            line = self._record[self.cursor]
            if self.within_game and line.startswith("result: "):
                break
            self.cursor += 1
            opening = _OPENING.match(line)
            if opening:
                self._skip_play = self._opening and not opening[3]
                return int(opening[1]), int(opening[2])
            spoken = _speaker(line, self._names)
            rolled = _ROLLED.match(spoken[1]) if spoken else None
            if rolled:
                if self._skip_play:  # played with the opening roll, already served
                    self._skip_play = False
                    continue
                return int(rolled[1]), int(rolled[2])
        return 1, 2


def _speaker(line: str, names: tuple[str, str]) -> tuple[list[int], str] | None:
    """The seats whose name starts ``line`` (both if the names are equal) and the rest.

    When one name starts with the other and a space ("Sam" and "Sam 52"), both may start the
    line: the name that leaves a line the engine writes wins, the longer one on a tie."""
    found = [
        ([s for s in (0, 1) if names[s] == name], line[len(name) + 1 :])
        for name in sorted(set(names), key=len, reverse=True)
        if line.startswith(name + " ")
    ]
    for seats, rest in found:
        if _is_decision_rest(rest) or _is_note_rest(rest):
            return seats, rest
    return found[0] if found else None


def _is_decision_rest(rest: str) -> bool:
    """A decision line once its player's name is taken off."""
    return bool(
        _ROLLED.match(rest)
        or _CHAINED.match(rest)
        or _DOUBLES.match(rest)
        or _OFFER.match(rest)
        or rest in ("takes", "passes", "resigns", "claims on time", *_ANSWERS)
    )


def _is_note_rest(rest: str) -> bool:
    """A line the engine writes about a player by itself (Express hand-overs, new games)."""
    return rest.startswith("takes over with ") or rest in (
        "starts (won the previous game)",
        "wins the match on time",
    )


def _is_decision(line: str, names: tuple[str, str]) -> bool:
    spoken = _speaker(line, names)
    return spoken is not None and _is_decision_rest(spoken[1])


def _offer_goes_on(line: str, names: tuple[str, str]) -> bool:
    """An offer to resign, or an answer that lets the game go on."""
    spoken = _speaker(line, names)
    if spoken is None:
        return False
    return bool(_OFFER.match(spoken[1])) or spoken[1] in ("rejects", "withdraws the offer")


#: Seat assignments tried for a record whose two players have the same name (see ``replay``).
MAX_SEAT_GUESSES = 64


def replay(final: GameState) -> list[Decision]:
    """Every decision of ``final``'s record (the whole match), in order.

    Raises :class:`HistoryError` when the record does not replay to exactly itself.

    Games start with distinct names (``engine.game.distinct_names``), but records stored
    before that may name both players alike: a resignation or an accepted offer taken out of
    turn then names no seat. Such records are replayed with the likelier seats first, then
    with the others, until one assignment replays to exactly the stored record and position.
    """
    try:
        return _replay(final, frozenset())
    except HistoryError as error:
        guessed = _guessed_lines(final)
        tries = itertools.chain.from_iterable(
            itertools.combinations(guessed, n) for n in range(1, len(guessed) + 1)
        )
        for flips in itertools.islice(tries, MAX_SEAT_GUESSES):
            try:
                return _replay(final, frozenset(flips))
            except HistoryError:
                continue
        raise error from None


def _guessed_lines(final: GameState) -> list[int]:
    """Lines of a record with equal names whose seat ``_decide`` guesses and that change the
    result: resignations, claims and offers to resign that were accepted."""
    names = final.players
    if names[0] != names[1]:
        return []
    record = final.record
    guessed = []
    for i, line in enumerate(record):
        spoken = _speaker(line, names)
        if spoken is None:
            continue
        rest = spoken[1]
        accepted = i + 1 < len(record) and record[i + 1] == f"{names[0]} accepts"
        if rest in ("resigns", "claims on time") or (_OFFER.match(rest) and accepted):
            guessed.append(i)
    return guessed


def _replay(final: GameState, flips: frozenset[int]) -> list[Decision]:
    """``replay`` with the other seat taken at the equal-name lines ``flips``."""
    record = final.record
    names = final.players
    # An offer to resign that is rejected or withdrawn rolls no dice and ends nothing: a roll
    # made before it (the next player's, right after a play) is the one the next play line
    # shows. An accepted offer ends the game, so that roll is never shown: "accepts" stays a
    # boundary of the dice window.
    decision_lines = [
        i
        for i, line in enumerate(record)
        if _is_decision(line, names) and not _offer_goes_on(line, names)
    ]
    rng = _RecordedDice(record, names, final.rules.plays_opening_dice)

    def window(done: int) -> None:
        rng.limit = next((i for i in decision_lines if i > done), len(record)) + 1

    window(-1)
    try:
        state = GameState.new(
            final.variant, names, rng, match_length=final.match_length, options=final.options
        )
    except EngineError as exc:
        raise HistoryError(f"cannot start the game again: {exc.message}") from None
    decisions: list[Decision] = []
    while True:
        _check_prefix(state, record)
        done = len(state.record)
        if done >= len(record):
            break
        if state.phase == GAME_OVER:
            window(done - 1)
            rng.within_game = False
            state = state.next_game(rng)
            rng.within_game = True
            continue
        line = record[done]
        if state.phase == ROLL:
            spoken = _speaker(line, names)
            if spoken is not None and _ROLLED.match(spoken[1]):
                # Rolled instead of doubling: not a record line of its own.
                window(done - 1)
                after = state.roll(state.turn, rng)
                decisions.append(Decision(ROLL_KIND, state.turn, state, after, None, ""))
                state = after
                continue
        window(done)
        try:
            decision = _decide(state, line, rng, done in flips)
        except EngineError as exc:
            raise HistoryError(f"line {done + 1} ({line!r}) cannot be replayed: {exc}") from None
        decisions.append(decision)
        state = decision.after
    if state.board != final.board or state.score != final.score:
        raise HistoryError("the replayed record does not end in the stored position")
    return decisions


def _check_prefix(state: GameState, record: tuple[str, ...]) -> None:
    n = len(state.record)
    if state.record != record[:n]:
        bad = next(i for i in range(n) if i >= len(record) or state.record[i] != record[i])
        got = state.record[bad]
        want = record[bad] if bad < len(record) else "(end of record)"
        raise HistoryError(f"line {bad + 1} replays as {got!r}, the record says {want!r}")


def _decide(state: GameState, line: str, rng: random.Random, flip: bool = False) -> Decision:
    """The decision ``line`` records, taken in ``state``. ``flip``: where equal names leave
    the seat open, the less likely one."""
    spoken = _speaker(line, state.players)
    if spoken is None:
        raise HistoryError("the line names no player")
    seats, rest = spoken
    if state.phase == MOVE and (_ROLLED.match(rest) or _CHAINED.match(rest)):
        seat = state.mover
        if seat not in seats:
            raise HistoryError(f"{state.players[seat]} is to play")
        legal = state.legal_plays()
        text = rest.split(": ", 1)[1]
        chosen = parse_play(state.position_for(seat), legal, text or "pass")
        after = state._apply(chosen, rng, auto=len(legal) == 1)
        return Decision(PLAY, seat, state, after, chosen, line)
    if _DOUBLES.match(rest):
        return Decision(DOUBLE, state.turn, state, state.double(state.turn), None, line)
    if rest == "takes":
        return Decision(TAKE, state.mover, state, state.take(state.mover, rng), None, line)
    if rest == "passes":
        return Decision(PASS, state.mover, state, state.drop(state.mover), None, line)
    if rest in ("resigns", "claims on time"):
        kind = RESIGN if rest == "resigns" else CLAIM
        # Equal names leave the seat open: the likelier one first (the player on turn
        # resigns, the waiting one claims); ``replay`` tries the other if the record then
        # does not end as stored.
        likely = state.mover if kind == RESIGN else other(state.mover)
        seat = likely if likely in seats else seats[0]
        if flip and len(seats) == 2:
            seat = other(seat)
        after = state.resign(seat) if kind == RESIGN else state.claim(seat)
        return Decision(kind, seat, state, after, None, line)
    offered = _OFFER.match(rest)
    if offered:
        level = _LEVELS.get(offered[1])
        if level is None:
            raise HistoryError(f"no resignation level {offered[1]!r}")
        # Either player may offer at any time. With equal names: the seat whose offer is
        # worth the points the line shows (the Pin games: the offerer's pips), else the
        # player on turn first.
        seat = state.mover if state.mover in seats else seats[0]
        if len(seats) == 2:
            fits = [
                s
                for s in (seat, other(seat))
                if state.offer_resign(s, level).record[-1:] == (line,)
            ]
            if len(fits) == 1:
                seat = fits[0]
            elif flip:
                seat = other(seat)
        return Decision(OFFER, seat, state, state.offer_resign(seat, level), None, line)
    if rest in _ANSWERS:
        if state.resign_offer is None:
            raise HistoryError("no offer to resign to answer")
        offerer = state.resign_offer[0]
        seat = offerer if rest == "withdraws the offer" else other(offerer)
        if seat not in seats:
            raise HistoryError(f"{state.players[seat]} answers this offer")
        if rest == "accepts":
            return Decision(ACCEPT, seat, state, state.accept_resign(seat), None, line)
        return Decision(REJECT, seat, state, state.reject_resign(seat), None, line)
    raise HistoryError("not a decision this engine records")


__all__ = [
    "ACCEPT",
    "CLAIM",
    "DOUBLE",
    "OFFER",
    "PASS",
    "PLAY",
    "REJECT",
    "RESIGN",
    "ROLL_KIND",
    "TAKE",
    "Decision",
    "DecisionKind",
    "HistoryError",
    "replay",
]
