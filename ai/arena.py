"""Games between two computer players through the real game flow (``engine.game``).

Used by the strength benchmark, the self-play fitting and the tests. No cube: a 1-point game.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from ai.players import choose_play, pip_greedy_play, random_play
from ai.types import MatchContext
from engine import Dice, Play, Position, Variant
from engine.game import MOVE, ROLL, GameState

#: (rules, position with the mover as X, dice, rng) -> the play.
Player = Callable[[Variant, Position, Dice, random.Random], Play]

#: A game longer than this many decisions is scored as a draw (NeverFinishing can loop long).
MAX_DECISIONS = 2000
ONE_POINT = MatchContext(length=1)


def level_player(level: str, deadline_s: float | None = None) -> Player:
    def play(rules: Variant, pos: Position, dice: Dice, rng: random.Random) -> Play:
        deadline = None if deadline_s is None else time.monotonic() + deadline_s
        return choose_play(
            rules, pos, dice, level=level, rng=rng, match=ONE_POINT, deadline=deadline
        )

    return play


def random_player(rules: Variant, pos: Position, dice: Dice, rng: random.Random) -> Play:
    return random_play(rules, pos, dice, rng)


def pip_player(rules: Variant, pos: Position, dice: Dice, rng: random.Random) -> Play:
    return pip_greedy_play(rules, pos, dice)


@dataclass
class GameRecord:
    """One finished game: seat 0's outcome and the decision times of each seat."""

    winner: int | None
    points: int
    kind: str
    times: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    #: (position, mover seat) samples with the winner, for fitting the evaluation.
    positions: list[tuple[Position, int]] = field(default_factory=list)


def play_game(
    variant_id: str,
    players: tuple[Player, Player],
    seed: int,
    options: Collection[str] = (),
    record_positions: bool = False,
    max_decisions: int = MAX_DECISIONS,
) -> GameRecord:
    """Play one game; dice from ``random.Random(seed)``, players' own randomness separate."""
    dice_rng = random.Random(seed)
    player_rng = random.Random(seed ^ 0x5EED)
    state = GameState.new(variant_id, ("A", "B"), dice_rng, match_length=1, options=options)
    rules = state.rules
    times: tuple[list[float], list[float]] = ([], [])
    samples: list[tuple[Position, int]] = []
    for _ in range(max_decisions):
        if state.phase == ROLL:  # classic offers the cube first: no cube in these games
            state = state.roll(state.turn, dice_rng)
        state, _auto = state.advance(dice_rng)
        if state.phase == ROLL:
            continue
        if state.phase != MOVE:
            break
        seat = state.mover
        pos = state.position_for(seat)
        dice = state.current_dice()
        assert dice is not None
        start = time.perf_counter()
        play = players[seat](rules, pos, dice, player_rng)
        times[seat].append(time.perf_counter() - start)
        if record_positions:
            samples.append((play.after, seat))
        state = state._apply(play, dice_rng, auto=False)
    result = state.result
    if result is None:
        return GameRecord(None, 0, "unfinished", times, samples)
    return GameRecord(result.winner, result.points, result.kind, times, samples)
