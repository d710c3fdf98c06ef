"""Build the picture's scene from an engine game state (no Discord, no Pillow here)."""

from __future__ import annotations

from engine.game import DOUBLE, MOVE, ROLL, GameState
from engine.position import O, X
from render.scene import BoardScene, ChainInfo, LastPlay

#: Seat 0 (the challenger) always has the light checkers, seat 1 the dark ones.
SEAT_COLOURS = ("light", "dark")


def _dice_digits(text: str) -> tuple[int, ...] | None:
    digits = tuple(int(c) for c in text if c.isdigit())
    if text.startswith("["):  # "[6x3]": three sixes of a chain decision
        return (digits[0],) * digits[1] if len(digits) == 2 else None
    return digits or None


def result_text(state: GameState, names: tuple[str, str]) -> str | None:
    result = state.result
    if result is None:
        return None
    if result.winner is None:
        what = (
            "Draw: no one can move any more"
            if result.kind == "draw"
            else "Tie: both mothers pinned"
        )
    else:
        unit = "point" if result.points == 1 else "points"
        what = f"{names[result.winner]} wins {result.points} {unit} ({result.kind})"
    if state.match_length > 1:
        what += f" - match {state.score[0]}-{state.score[1]}"
        if state.match_winner is not None:
            what += f", {names[state.match_winner]} wins the match"
    return what


def status_text(state: GameState, names: tuple[str, str]) -> str | None:
    if state.is_over:
        return None
    actor = names[state.mover]
    if state.phase == ROLL:
        return f"{actor} to roll or double"
    if state.phase == DOUBLE:
        return f"{names[state.turn]} doubles to {state.cube * 2}: {actor} to take or pass"
    if state.phase == MOVE and state.chain is not None:
        value, copies = state.chain.pending[0]
        return f"{actor} to play {copies}x {value}"
    if state.phase == MOVE and state.dice is not None:
        return f"{actor} to play {state.dice.high}-{state.dice.low}"
    return None


def scene_for_game(
    state: GameState, names: tuple[str, str], viewer: int | None = None
) -> BoardScene:
    """The scene seen by ``viewer`` (default: the seat to act, or seat 0 once it is over)."""
    if viewer is None:
        viewer = 0 if state.is_over else state.mover

    def side(seat: int) -> str:
        return X if seat == viewer else O

    dice: tuple[int, ...] | None = None
    chain: ChainInfo | None = None
    if state.phase == MOVE and state.chain is not None:
        value = state.chain.pending[0][0]
        dice = (value, value)
        chain = ChainInfo(state.chain.pending, side(state.chain.controller))
    elif state.phase == MOVE and state.dice is not None:
        dice = (state.dice.high, state.dice.low)
    last = None
    if state.last is not None:
        last = LastPlay(
            side(state.last.seat),
            state.last.steps,
            state.last.text or "(no move)",
            _dice_digits(state.last.dice),
        )
    rules = state.rules
    return BoardScene(
        position=state.position_for(viewer),
        variant_name=rules.name,
        x_name=names[viewer],
        o_name=names[1 - viewer],
        x_colour=SEAT_COLOURS[viewer],
        to_act=None if state.is_over else side(state.mover),
        dice=dice,
        chain=chain,
        cube_value=state.cube if rules.has_cube else None,
        cube_owner=None if state.cube_owner is None else side(state.cube_owner),
        match_length=state.match_length,
        match_score=(state.score[viewer], state.score[1 - viewer]),
        last_play=last,
        result=result_text(state, names),
        status=status_text(state, names),
    )
