"""The board as text, for a terminal: :func:`text_board` turns a :class:`BoardScene` into lines.

The same scene the PNG board is drawn from, laid out like the picture (and like GNU
Backgammon's ASCII board): the viewer's points 13-24 along the top, 12-1 along the bottom,
home board on the right. Each point is a column three characters wide; its stack is drawn
from the edge (bottom of the stack) towards the middle (top of the stack). A checker covered
by the other side (pinned, trapped) is written in lower case: it cannot move. A tall run is
cut short with its count at the tip, as gnubg does.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.position import Position
from engine.variants import VARIANTS
from render.game_scene import chain_text, roll_text
from render.scene import BoardScene

#: Rows of a half board before a tall stack needs its count (as gnubg draws it).
ROWS = 5
CELL = 3
TOP_POINTS = tuple(range(13, 25))
BOTTOM_POINTS = tuple(range(12, 0, -1))
#: ANSI colours of the viewer's (X) and the opponent's (O) checkers when the output is a
#: terminal; cyan and red read on dark and light backgrounds alike.
COLOURS = {"X": "\x1b[1;36m", "O": "\x1b[1;31m"}
DIM = "\x1b[2m"
BOLD = "\x1b[1m"
RESET = "\x1b[0m"

Paint = Callable[[str, str], str]


def _plain(text: str, _style: str) -> str:
    return text


def _ansi(text: str, style: str) -> str:
    return f"{style}{text}{RESET}" if style and text.strip() else text


def _runs(stack: str) -> list[tuple[str, int]]:
    runs: list[tuple[str, int]] = []
    for colour in stack:
        if runs and runs[-1][0] == colour:
            runs[-1] = (colour, runs[-1][1] + 1)
        else:
            runs.append((colour, 1))
    return runs


def cells_needed(stack: str) -> int:
    """Rows ``stack`` needs: one a checker up to :data:`ROWS`; beyond, one per covered run
    and at most two for the top run (a checker and the run's count)."""
    if len(stack) <= ROWS:
        return len(stack)
    runs = _runs(stack)
    return len(runs) - 1 + min(runs[-1][1], 2)


def stack_cells(stack: str, rows: int) -> list[tuple[str, str]]:
    """(text, side) of each drawn cell of ``stack``, from the edge (its bottom) outwards, in
    at most ``rows`` cells (``rows >= cells_needed(stack)``). Covered checkers are lower
    case; a covered run of several is written as its count and letter ("3o")."""
    runs = _runs(stack)
    if not runs:
        return []
    top_colour, top_count = runs[-1]
    covered = runs[:-1]
    cells: list[tuple[str, str]] = []
    if len(stack) <= rows:
        for colour, count in covered:
            cells.extend((colour.lower(), colour) for _ in range(count))
        cells.extend((top_colour, top_colour) for _ in range(top_count))
        return cells
    for colour, count in covered:
        cells.append((colour.lower() if count == 1 else f"{count}{colour.lower()}", colour))
    room = rows - len(cells)
    if top_count <= room:
        cells.extend((top_colour, top_colour) for _ in range(top_count))
    else:
        cells.extend((top_colour, top_colour) for _ in range(room - 1))
        cells.append((str(top_count), top_colour))
    return cells


def _cell_text(text: str) -> str:
    """A cell three characters wide, its last character under the point number's last digit."""
    if len(text) <= 1:
        return f" {text or ' '} "
    return f"{text} " if len(text) == 2 else text[:CELL]


def _number_cell(point: int) -> str:
    return f"{point:>2}-".replace(" ", "-")


def _half_rows(pos: Position, points: tuple[int, ...], rows: int) -> list[list[tuple[str, str]]]:
    """For each of ``rows`` rows from the edge, the cells of ``points`` in that row."""
    columns = [stack_cells(pos.points[p], rows) for p in points]
    return [[column[r] if r < len(column) else ("", "") for column in columns] for r in range(rows)]


def _row_text(cells: list[tuple[str, str]], divider: str, paint: Paint) -> str:
    def half(part: list[tuple[str, str]]) -> str:
        return "".join(paint(_cell_text(text), COLOURS.get(side, "")) for text, side in part)

    return f" |{half(cells[:6])}|{divider}|{half(cells[6:])}|"


def _pile_text(pos: Position, side: str) -> str:
    """A side's pip count and its piles off the points, as far as the variant has them."""
    i = 0 if side == "X" else 1
    rules = VARIANTS.get(pos.variant)
    parts = [f"pips {pos.pips(side)}", f"off {pos.off[i]}"]
    if rules is None or rules.has_bar:
        parts.append(f"bar {pos.bar[i]}")
    if rules is None or rules.has_reserve:
        parts.append(f"reserve {pos.reserve[i]}")
    if rules is not None and rules.tracks_unlock:  # Dutch: no hitting before a checker is home
        parts.append("may hit" if pos.unlocked[i] else "may not hit yet")
    return "  ".join(parts)


def _dice_text(scene: BoardScene) -> str:
    if scene.chain is not None:
        value, copies = scene.chain.pending[0]
        later = ", ".join(chain_text(v, k) for v, k in scene.chain.pending[1:])
        return f"Chain: {chain_text(value, copies)}" + (f" (then {later})" if later else "")
    if scene.dice is not None and len(scene.dice) == 2:
        return f"Dice: {roll_text(scene.dice[0], scene.dice[1])}"
    return ""


def _last_play_text(scene: BoardScene) -> str:
    last = scene.last_play
    if last is None:
        return ""
    name = scene.x_name if last.mover == "X" else scene.o_name
    dice = ""
    if last.dice is not None and len(last.dice) == 2:
        dice = f" {roll_text(last.dice[0], last.dice[1])}"
    elif last.dice:
        dice = f" {chain_text(last.dice[0], len(last.dice))}"
    return f"Last play: {name}{dice}: {last.text}"


def _heading(scene: BoardScene) -> str:
    parts = [scene.variant_name]
    if scene.match_length > 1:
        x, o = scene.match_score
        match = f"match to {scene.match_length}: {scene.x_name} {x}, {scene.o_name} {o}"
        parts.append(match + (" (Crawford game)" if scene.crawford else ""))
    if scene.cube_value is not None:
        if scene.crawford:
            parts.append("no cube in the Crawford game")
        else:
            owner = {"X": scene.x_name, "O": scene.o_name}.get(scene.cube_owner or "")
            parts.append(f"cube {scene.cube_value}" + (f", {owner}'s" if owner else ", centred"))
    return " | ".join(parts)


def text_board(scene: BoardScene, *, colour: bool = False) -> str:
    """The board of ``scene`` as text lines (with ANSI colours when ``colour``)."""
    paint: Paint = _ansi if colour else _plain
    pos = scene.position
    rules = VARIANTS.get(pos.variant)
    top_rows = max(ROWS, *(cells_needed(pos.points[p]) for p in TOP_POINTS))
    bottom_rows = max(ROWS, *(cells_needed(pos.points[p]) for p in BOTTOM_POINTS))
    top = _half_rows(pos, TOP_POINTS, top_rows)
    bottom = _half_rows(pos, BOTTOM_POINTS, bottom_rows)
    has_bar = rules is None or rules.has_bar
    divider = "   "

    def border(points: tuple[int, ...]) -> str:
        numbers = [paint(_number_cell(p), DIM) for p in points]
        return f" +{''.join(numbers[:6])}-----{''.join(numbers[6:])}+"

    def label(side: str, name: str) -> str:
        return paint(side, COLOURS[side]) + f" {name}"

    o_side = [label("O", scene.o_name), "  " + _pile_text(pos, "O")]
    x_side = [label("X", scene.x_name), "  " + _pile_text(pos, "X")]
    middle_note = _dice_text(scene)
    lines = [paint(_heading(scene), BOLD), border(TOP_POINTS) + "  " + o_side[0]]
    for r, cells in enumerate(top):
        note = o_side[1] if r == 0 else ""
        lines.append(_row_text(cells, divider, paint) + (f"  {note}" if note else ""))
    bar_label = "BAR" if has_bar else divider
    middle = f" |{' ' * (6 * CELL)}|{bar_label}|{' ' * (6 * CELL)}|"
    lines.append(middle + (f"  {middle_note}" if middle_note else ""))
    for r in range(bottom_rows - 1, -1, -1):
        note = x_side[1] if r == 0 else ""
        lines.append(_row_text(bottom[r], divider, paint) + (f"  {note}" if note else ""))
    lines.append(border(BOTTOM_POINTS) + "  " + x_side[0])
    if any(len(_runs(stack)) > 1 for stack in pos.points):
        lines.append(" x, o: covered by the other side (pinned or trapped), cannot move")
    outcome = f"Game over: {scene.result}" if scene.result else scene.status or ""
    footer = [t for t in (_last_play_text(scene), outcome) if t]
    lines.extend(f" {t}" for t in footer)
    return "\n".join(lines)
