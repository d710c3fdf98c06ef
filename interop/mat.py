"""Export a classic game or match in the Jellyfish match format (``.mat``), which GNU
Backgammon, eXtreme Gammon and most analysers import.

Layout (as gnubg writes it): a ``N point match`` line (0 for a single game, which scores like
gnubg's unlimited game), then per game a ``Game n`` line, the names with the score before the
game, and numbered rows holding the first player's action in the left column and the second
player's in the right. An action is ``dd: from/to ...`` (one checker move per die, 25 the bar,
0 borne off, ``*`` a hit), `` Doubles => n``, `` Takes`` or `` Drops``; a finished game ends
with `` Wins n point(s)`` (``and the match`` after the last game) in the winner's column.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from engine.game import GameState
from engine.history import DOUBLE, PASS, PLAY, TAKE, Decision, replay
from engine.play import HIT, Play

#: Width of a move cell; the right column starts after the 5-character row number.
CELL = 28
NAME_COLUMN = 32
_UNSAFE = re.compile(r"[\x00-\x1f\x7f:;\[\]\"]+")


def mat_name(name: str, fallback: str) -> str:
    """A player name the format can hold: no colons (the name/score separator), no control
    characters or tag brackets, one line, at most 32 characters."""
    cleaned = " ".join(_UNSAFE.sub(" ", name).split())[:32].strip()
    return cleaned or fallback


def play_text(play: Play) -> str:
    """One ``from/to`` per die in the order played, hits starred (25 = bar, 0 = off)."""
    return " ".join(f"{s.src}/{s.dst}{'*' if s.effect == HIT else ''}" for s in play.steps)


def _cell(decision: Decision) -> str:
    if decision.kind == PLAY:
        assert decision.play is not None and decision.before.dice is not None
        dice = decision.before.dice
        moves = play_text(decision.play)
        return f"{dice.high}{dice.low}: {moves}" if moves else f"{dice.high}{dice.low}:"
    if decision.kind == DOUBLE:
        return f" Doubles => {decision.before.cube * 2}"
    if decision.kind == TAKE:
        return " Takes"
    if decision.kind == PASS:
        return " Drops"
    return ""  # roll (written with the play), resign, claim: the result line says it


def _rows(cells: Sequence[tuple[int, str]], wins: tuple[int, str] | None = None) -> list[str]:
    """Numbered rows, each the left (seat 0) then the right (seat 1) player's action, then the
    result line ``wins`` (seat, text) in the winner's column. A right-hand winner whose row
    still has room (the left player dropped) wins on that row, as gnubg writes it: on a line of
    its own there, gnubg's reader takes it for a new double and ends the match early."""
    rows: list[tuple[str, str | None]] = []
    for seat, text in cells:
        if seat == 1 and rows and rows[-1][1] is None:
            rows[-1] = (rows[-1][0], text)
        else:
            rows.append((text, None) if seat == 0 else ("", text))
    result_line = None
    if wins is not None:
        seat, text = wins
        if seat == 1 and rows and rows[-1][1] is None:
            rows[-1] = (rows[-1][0], text)
        else:
            result_line = " " * (5 if seat == 0 else 5 + CELL + 1) + text
    out = []
    for n, (left, right) in enumerate(rows, start=1):
        line = f"{n:3d}) {left:<{CELL}} {right}" if right is not None else f"{n:3d}) {left}"
        out.append(line.rstrip())
    if result_line is not None:
        out.append(result_line)
    return out


def export_mat(
    final: GameState,
    *,
    decisions: Sequence[Decision] | None = None,
    date: dt.date | None = None,
) -> str:
    """The ``.mat`` text of a classic game or match (finished or still in progress)."""
    if not final.rules.has_gnubg_ids:
        raise ValueError("only classic backgammon can be written in the .mat format")
    if decisions is None:
        decisions = replay(final)
    names = (mat_name(final.players[0], "Player 1"), mat_name(final.players[1], "Player 2"))
    if names[0] == names[1]:
        names = (names[0] + " 1", names[1] + " 2")
    length = final.match_length if final.match_length > 1 else 0
    lines = []
    if date is not None:
        lines += [f'; [EventDate "{date:%Y.%m.%d}"]', ""]
    lines.append(f" {length} point match")
    games: dict[int, list[Decision]] = {}
    for decision in decisions:
        games.setdefault(decision.game_number, []).append(decision)
    for number, game in sorted(games.items()):
        score = game[0].before.score if length else (0, 0)
        header = f" {names[0]} : {score[0]}".ljust(NAME_COLUMN - 1)
        lines += ["", f" Game {number}", f"{header} {names[1]} : {score[1]}"]
        cells = [(d.seat, _cell(d)) for d in game]
        end = game[-1].after
        result = end.result
        wins = None
        if result is not None and result.winner is not None and end.game_number == number:
            points = f"{result.points} point{'s' if result.points != 1 else ''}"
            match = " and the match" if end.match_winner is not None and length else ""
            wins = (result.winner, f" Wins {points}{match}")
        lines += _rows([(seat, text) for seat, text in cells if text], wins)
    return "\n".join(lines) + "\n"


__all__ = ["export_mat", "mat_name", "play_text"]
