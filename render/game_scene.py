"""Build the picture's scene from an engine game state (no Discord, no Pillow here)."""

from __future__ import annotations

from engine.game import DOUBLE, MOVE, ROLL, GameState, ResultKind
from engine.position import O, X
from render.scene import BoardScene, ChainInfo, LastPlay

#: Seat 0 (the challenger) always has the light checkers, seat 1 the dark ones.
SEAT_COLOURS = ("light", "dark")


_COUNT_WORDS = ("no", "one", "two", "three", "four")


def roll_text(high: int, low: int) -> str:
    """The one way dice are written in messages and pictures: "6-5", "4-4"."""
    return f"{high}-{low}"


def chain_text(value: int, copies: int) -> str:
    """An Express decision: "three 4s", "one 6"."""
    word = _COUNT_WORDS[copies] if 0 <= copies < len(_COUNT_WORDS) else str(copies)
    return f"{word} {value}" + ("" if copies == 1 else "s")


def dice_label(dice: str) -> str:
    """A record's dice ("65", or "[6x3]" for an Express decision) as written for players."""
    if dice.startswith("[") and dice.endswith("]") and "x" in dice:
        value, copies = dice[1:-1].split("x")
        return chain_text(int(value), int(copies))
    return roll_text(int(dice[0]), int(dice[1])) if len(dice) == 2 and dice.isdigit() else dice


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """ "1 game", "2 games", "1 match", "3 matches"."""
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count} {word}"


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
            if result.kind == ResultKind.DRAW
            else "Tie: both mothers pinned"
        )
    else:
        points = plural(result.points, "point")
        what = f"{names[result.winner]} wins {points} ({result.kind})"
    if state.match_length > 1:
        what += f" - match {state.score[0]}-{state.score[1]}"
        if state.match_winner is not None:
            what += f", {names[state.match_winner]} wins the match"
    return what


def status_text(state: GameState, names: tuple[str, str]) -> str | None:
    if state.is_over:
        return None
    actor = names[state.mover]
    if state.resign_offer is not None:
        seat, level = state.resign_offer
        worth = plural(state.resignation_value(seat, level), "point")
        return f"{names[seat]} offers to resign ({worth}): {names[1 - seat]} to accept or reject"
    if state.phase == ROLL:
        return f"{actor} to roll or double"
    if state.phase == DOUBLE:
        return f"{names[state.turn]} doubles to {state.cube * 2}: {actor} to take or pass"
    if state.phase == MOVE and state.chain is not None:
        value, copies = state.chain.pending[0]
        return f"{actor} to play {chain_text(value, copies)}"
    if state.phase == MOVE and state.dice is not None:
        return f"{actor} to play {roll_text(state.dice.high, state.dice.low)}"
    return None


def alt_text(state: GameState, names: tuple[str, str], viewer: int | None = None) -> str:
    """The picture described in words (the attachment's alt text for screen readers): who is
    to play, the dice, the last play, pip counts, cube and match score."""
    rules = state.rules
    parts = [f"{rules.name} board."]
    pips = ", ".join(
        f"{names[seat]} ({SEAT_COLOURS[seat]}) {plural(state.pips(seat), 'pip')}" for seat in (0, 1)
    )
    parts.append(f"Pip counts: {pips}.")
    status = status_text(state, names)
    if status is not None:
        parts.append(status[0].upper() + status[1:] + ".")
    result = result_text(state, names)
    if result is not None:
        parts.append(f"Game over: {result}.")
    if state.last is not None:
        who = names[state.last.seat]
        dice = dice_label(state.last.dice)
        play = state.last.text or "no move"
        parts.append(f"Last play: {who} {dice}: {play}.")
    if rules.has_cube:
        owner = "centred" if state.cube_owner is None else f"owned by {names[state.cube_owner]}"
        parts.append(f"Cube {state.cube}, {owner}.")
    if state.match_length > 1:
        parts.append(
            f"Match to {state.match_length}: {names[0]} {state.score[0]}, "
            f"{names[1]} {state.score[1]}" + (", Crawford game." if state.crawford else ".")
        )
    if viewer is not None:
        parts.append(f"Seen from {names[viewer]}'s side.")
    return " ".join(parts)[:1024]


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
        crawford=state.crawford and state.match_length > 1,
        last_play=last,
        result=result_text(state, names),
        status=status_text(state, names),
    )
