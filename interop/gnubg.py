"""GNU Backgammon's position ID and match ID for classic positions.

Both are base64 (no padding) of little-endian bit strings, as the gnubg manual describes:

* Position ID (80 bits, 14 characters): for the player NOT on roll, then the player on roll,
  each in his own numbering, points 1..24 then the bar: one 1 bit per checker, then a 0 bit.
* Match ID (66 bits in 9 bytes, 12 characters), fields from the lowest bit: cube as log2 (4),
  cube owner (2: 0/1 a player, 3 centred), player on roll (1), Crawford game (1), game state
  (3: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped), player to decide (1), double offered
  (1), resignation offered (2), die 1 (3), die 2 (3), match length (15), score of player 0 (15),
  score of player 1 (15), and one bit set when the Jacoby rule is off (always, here).

Seat 0 (the challenger) is gnubg's player 0. A single game of this bot (``match_length`` 1)
scores gammons and cube like gnubg's unlimited ("money") game, so it is written as length 0.
"""

from __future__ import annotations

import base64

from engine.game import DOUBLE, GAME_OVER, MATCH_OVER, MOVE, GameState, ResultKind
from engine.position import O, Position, X, make_position
from engine.variants import VARIANTS

#: gnubg's game states (the match ID's 3-bit field).
_PLAYING, _OVER, _RESIGNED, _DROPPED = 1, 2, 3, 4


def _pack(fields: list[tuple[int, int]], nbytes: int) -> str:
    """``(value, width)`` fields, lowest bits first, as unpadded base64 of ``nbytes`` bytes."""
    value = 0
    shift = 0
    for field, width in fields:
        if not 0 <= field < (1 << width):
            raise ValueError(f"{field} does not fit in {width} bits")
        value |= field << shift
        shift += width
    return base64.b64encode(value.to_bytes(nbytes, "little")).decode("ascii").rstrip("=")


def position_id(pos: Position) -> str:
    """The gnubg position ID of a classic position with X (the mover) on roll."""
    rules = VARIANTS.get(pos.variant)
    if rules is None or not rules.has_gnubg_ids:
        raise ValueError("gnubg position IDs exist only for classic backgammon")
    fields: list[tuple[int, int]] = []
    for colour, bar in ((O, pos.bar[1]), (X, pos.bar[0])):
        for p in range(1, 25):
            # X's point p is O's point 25 - p; each player is written in his own numbering.
            count = pos.points[p if colour == X else 25 - p].count(colour)
            fields.append(((1 << count) - 1, count + 1))  # count ones, then a zero
        fields.append(((1 << bar) - 1, bar + 1))
    return _pack(fields, 10)


def position_from_id(text: str) -> Position:
    """The classic position of a gnubg position ID, the player on roll as X. Raises
    ValueError for anything that is not the ID of a position with 15 checkers a side."""
    text = text.strip()
    if len(text) != 14 or not all(c.isascii() and (c.isalnum() or c in "+/") for c in text):
        raise ValueError("a gnubg position ID is 14 characters of A-Z, a-z, 0-9, + and /")
    value = int.from_bytes(base64.b64decode(text + "=="), "little")
    counts: list[list[int]] = [[], []]  # the player not on roll, then the player on roll
    for side in counts:
        while len(side) < 25:
            run = 0
            while value & 1:
                run += 1
                value >>= 1
            value >>= 1
            side.append(run)
    if value:
        raise ValueError("the ID has bits after both players' checkers")
    theirs, mine = counts
    if sum(mine) > 15 or sum(theirs) > 15:
        raise ValueError("a player has more than 15 checkers")
    if not sum(mine) or not sum(theirs):
        raise ValueError("a player has borne off every checker: the game is over")
    stacks: dict[int, str] = {}
    for p in range(1, 25):
        if mine[p - 1] and theirs[24 - p]:
            raise ValueError(f"both players have checkers on point {p}")
        if mine[p - 1]:
            stacks[p] = X * mine[p - 1]
        elif theirs[24 - p]:
            stacks[p] = O * theirs[24 - p]
    # Checkers neither on the board nor on the bar are borne off.
    off = (15 - sum(mine), 15 - sum(theirs))
    return make_position("classic", stacks, bar=(mine[24], theirs[24]), off=off)


def _game_state(state: GameState) -> tuple[int, int]:
    """gnubg's game state and resignation value."""
    if state.phase not in (GAME_OVER, MATCH_OVER) or state.result is None:
        return _PLAYING, 0
    kind = state.result.kind
    if kind == ResultKind.PASS:
        return _DROPPED, 0
    if kind in (ResultKind.RESIGN, ResultKind.TIMEOUT):
        return _RESIGNED, 1
    return _OVER, 0


def match_id(state: GameState) -> str:
    """The gnubg match ID of a classic game state (cube, score, turn, dice)."""
    if not state.rules.has_gnubg_ids:
        raise ValueError("gnubg match IDs exist only for classic backgammon")
    game_state, resigned = _game_state(state)
    dice = state.dice if state.phase == MOVE and state.dice is not None else None
    length = state.match_length if state.match_length > 1 else 0
    score = state.score if length else (0, 0)
    owner = 3 if state.cube_owner is None else state.cube_owner
    return _pack(
        [
            (state.cube.bit_length() - 1, 4),
            (owner, 2),
            (state.turn, 1),
            (int(state.crawford), 1),
            (game_state, 3),
            (state.mover, 1),
            (int(state.phase == DOUBLE), 1),
            (resigned, 2),
            (dice.high if dice else 0, 3),
            (dice.low if dice else 0, 3),
            (length, 15),
            (min(score[0], (1 << 15) - 1), 15),
            (min(score[1], (1 << 15) - 1), 15),
            (1, 1),  # no Jacoby rule: a gammon counts in an undoubled single game here
        ],
        9,
    )


def gnubg_id(state: GameState) -> str:
    """``positionID:matchID`` (gnubg's "GNUbgID") of a classic game state.

    The board is seen by the player on roll (in a double decision, the doubler), as gnubg does.
    """
    return f"{position_id(state.position_for(state.turn))}:{match_id(state)}"


def record_with_ids(final: GameState) -> list[str]:
    """The record lines of a classic game with, before each decision, the GNUbgID of the
    position it was taken in (an indented ``gnubg ID ...`` line).

    Raises :class:`engine.history.HistoryError` if the record cannot be replayed.
    """
    from engine.history import ROLL_KIND, replay  # history imports the whole game flow

    ids: dict[int, str] = {}
    for decision in replay(final):
        if decision.kind == ROLL_KIND:
            continue
        # The decision's line is the first one its state did not have yet.
        ids.setdefault(len(decision.before.record), gnubg_id(decision.before))
    out: list[str] = []
    for i, line in enumerate(final.record):
        if i in ids:
            out.append(f"  gnubg ID {ids[i]}")
        out.append(line)
    return out


__all__ = ["gnubg_id", "match_id", "position_id", "record_with_ids"]
