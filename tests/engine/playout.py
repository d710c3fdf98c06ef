"""Random playouts shared by the property tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine import express
from engine.game import MOVE, ROLL, GameState
from engine.play import Play
from engine.position import Position
from engine.variants import Variant


def random_decisions(
    variant: str, seed: int, max_decisions: int = 400
) -> Iterator[tuple[GameState, list[Play], Play]]:
    """Yield (state, legal plays, chosen play) along one random game, then stop."""
    rng = random.Random(seed)
    state = GameState.new(variant, ("A", "B"), rng)
    for _ in range(max_decisions):
        if state.phase == ROLL:
            state = state.roll(state.turn, rng)
            continue
        if state.phase != MOVE:
            return
        plays = state.legal_plays()
        chosen = rng.choice(plays)
        yield state, plays, chosen
        state = state.play(state.mover, chosen.text, rng)


def final_state(variant: str, seed: int, max_decisions: int = 5000) -> GameState:
    rng = random.Random(seed)
    state = GameState.new(variant, ("A", "B"), rng)
    for _ in range(max_decisions):
        if state.phase == ROLL:
            state = state.roll(state.turn, rng)
        elif state.phase == MOVE:
            state = state._apply(rng.choice(state.legal_plays()), rng, auto=False)
        else:
            break
    return state


def checker_totals(pos: Position) -> tuple[int, int]:
    return (
        pos.on_board("X") + pos.bar[0] + pos.reserve[0] + pos.off[0],
        pos.on_board("O") + pos.bar[1] + pos.reserve[1] + pos.off[1],
    )


def plain_run(
    rules: Variant, pos: Position, left: int, memo: dict[tuple[Position, int], int]
) -> int:
    """Longest Express run by exhaustive search, without bounds or shortcuts (the reference)."""
    if left == 0:
        return 0
    if (pos, left) in memo:
        return memo[(pos, left)]
    best = 0
    for _, after in rules.steps(pos, express._ALL_NUMBERS[-left]):
        if after.off[0] == 15:
            best = left  # bearing off the 15th checker counts as every pending number
            break
        best = max(best, 1 + plain_run(rules, after, left - 1, memo))
        if best >= left:
            break
    memo[(pos, left)] = best
    return best
