"""Pure board geometry in output pixels: where every point, checker, tray and label goes.

Nothing here draws; the renderer and the tests share these functions, so a test can compute
where to probe a pixel. Coordinates are ``(x, y)`` with the origin at the top left.

The board is seen by X (the player to act): X's home board (points 1-6) is bottom right,
7-12 bottom left, 13-18 top left and 19-24 top right, so X moves from the top right round to
the bottom right. Bottom-row stacks grow upwards from the bottom edge, top-row stacks
downwards from the top edge; a stack's top checker is the one nearest the tip of the point.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Checker diameter.
CHECKER = 48
#: Width of one point column.
POINT_W = 52
#: Checkers drawn at full spacing along one point; taller stacks are compressed.
FULL_STACK = 5
#: Point (triangle) length.
POINT_LEN = CHECKER * FULL_STACK
#: Most checkers drawn on one point; longer stacks hide some middle ones of their longest runs.
MAX_DRAWN = 13
#: Spacing of a stack that holds a covered checker: the captor visibly overlaps it.
COVER_SPACING = 38

MARGIN = 8
FRAME = 12
NUM_H = 28
TRAY_W = 64
BAR_W = 60
MID_GAP = 76
TITLE_H = 40
BAND_H = 48
FOOTER_LINE = 30
FOOTER_H = 2 * FOOTER_LINE + 12

WIDTH = 2 * MARGIN + 4 * FRAME + 2 * TRAY_W + 12 * POINT_W + BAR_W
#: Board frame (wood) rectangle.
BOARD_LEFT = MARGIN
BOARD_RIGHT = WIDTH - MARGIN
BOARD_TOP = TITLE_H + BAND_H
FIELD_TOP = BOARD_TOP + NUM_H
FIELD_H = 2 * POINT_LEN + MID_GAP
FIELD_BOTTOM = FIELD_TOP + FIELD_H
BOARD_BOTTOM = FIELD_BOTTOM + NUM_H
MID_Y = FIELD_TOP + FIELD_H // 2
HEIGHT = BOARD_BOTTOM + BAND_H + FOOTER_H

LEFT_TRAY_X = BOARD_LEFT + FRAME
LEFT_FIELD_X = LEFT_TRAY_X + TRAY_W + FRAME
BAR_X = LEFT_FIELD_X + 6 * POINT_W
RIGHT_FIELD_X = BAR_X + BAR_W
RIGHT_TRAY_X = RIGHT_FIELD_X + 6 * POINT_W + FRAME
BAR_CX = BAR_X + BAR_W // 2
LEFT_TRAY_CX = LEFT_TRAY_X + TRAY_W // 2
RIGHT_TRAY_CX = RIGHT_TRAY_X + TRAY_W // 2

#: Borne-off checkers are drawn as slabs (seen from the side) in the right tray.
SLAB_H = 14
SLAB_STEP = 16
SLAB_W = TRAY_W - 12

#: Bar and reserve piles: checkers drawn at full spacing before they are compressed.
PILE_FULL = 3
BAR_PILE_LEN = POINT_LEN - 24
RESERVE_PILE_LEN = POINT_LEN

CUBE = 46
DIE = 46

O_BAND_Y = TITLE_H
X_BAND_Y = BOARD_BOTTOM
FOOTER_Y = X_BAND_Y + BAND_H

Box = tuple[int, int, int, int]


def is_top(point: int) -> bool:
    """Points 13-24 are on the top row."""
    return point >= 13


def point_left(point: int) -> int:
    """Left edge of the column of ``point`` (1..24, X's numbering)."""
    if 1 <= point <= 6:
        return RIGHT_FIELD_X + (6 - point) * POINT_W
    if 7 <= point <= 12:
        return LEFT_FIELD_X + (12 - point) * POINT_W
    if 13 <= point <= 18:
        return LEFT_FIELD_X + (point - 13) * POINT_W
    if 19 <= point <= 24:
        return RIGHT_FIELD_X + (point - 19) * POINT_W
    raise ValueError(f"no point {point}")


def point_cx(point: int) -> int:
    return point_left(point) + POINT_W // 2


def point_triangle(point: int) -> tuple[tuple[float, float], ...]:
    """The triangle of ``point``: base on the board edge, tip towards the middle."""
    left = point_left(point)
    right = left + POINT_W
    cx = left + POINT_W / 2
    if is_top(point):
        return ((left, FIELD_TOP), (right, FIELD_TOP), (cx, FIELD_TOP + POINT_LEN))
    return ((left, FIELD_BOTTOM), (right, FIELD_BOTTOM), (cx, FIELD_BOTTOM - POINT_LEN))


def point_number_centre(point: int) -> tuple[int, int]:
    """Centre of the point's number label, in the frame above or below the field."""
    y = BOARD_TOP + NUM_H // 2 if is_top(point) else FIELD_BOTTOM + NUM_H // 2
    return point_cx(point), y


def spacing(slots: int, covered: bool = False, length: int = POINT_LEN) -> float:
    """Distance between the centres of neighbouring checkers of a pile of ``slots``."""
    full = COVER_SPACING if covered else CHECKER
    if slots <= 1:
        return float(full)
    fit = (length - CHECKER) / (slots - 1)
    return float(min(full, fit))


def checker_centre(point: int, index: int, slots: int, covered: bool = False) -> tuple[int, int]:
    """Centre of the ``index``-th drawn checker (0 = at the edge) of a point drawing ``slots``.

    ``covered`` is whether the stack holds a covered (pinned/trapped) checker: such stacks are
    drawn overlapping, so that each captor visibly lies on top of the checker under it.
    """
    s = spacing(slots, covered)
    offset = CHECKER / 2 + index * s
    y = FIELD_TOP + offset if is_top(point) else FIELD_BOTTOM - offset
    return point_cx(point), round(y)


def visible_centre(point: int, first: int, last: int, slots: int, covered: bool) -> tuple[int, int]:
    """Centre of the visible part of drawn checkers ``first..last`` that have a checker above.

    Checker ``i`` of a pile with spacing ``s`` shows the band ``[i*s, (i+1)*s]`` from the edge;
    the rest is under the checker above it.
    """
    s = spacing(slots, covered)
    offset = (first + last + 1) * s / 2
    y = FIELD_TOP + offset if is_top(point) else FIELD_BOTTOM - offset
    return point_cx(point), round(y)


def bar_centre(side: str, index: int, count: int) -> tuple[int, int]:
    """Centre of the ``index``-th bar checker of ``side`` (X in the lower half of the bar).

    Piles start near the middle of the board and grow towards their owner's edge.
    """
    s = spacing(count, length=BAR_PILE_LEN) if count > PILE_FULL else float(CHECKER)
    offset = MID_GAP / 2 + 12 + CHECKER / 2 + index * s
    y = MID_Y + offset if side == "X" else MID_Y - offset
    return BAR_CX, round(y)


def reserve_centre(side: str, index: int, count: int) -> tuple[int, int]:
    """Centre of the ``index``-th reserve checker of ``side`` in the left tray (X at the bottom).

    Piles grow from the owner's edge towards the middle.
    """
    s = spacing(count, length=RESERVE_PILE_LEN) if count > PILE_FULL else float(CHECKER)
    offset = CHECKER / 2 + index * s
    y = FIELD_BOTTOM - offset if side == "X" else FIELD_TOP + offset
    return LEFT_TRAY_CX, round(y)


def off_slab_box(side: str, index: int) -> Box:
    """The ``index``-th borne-off slab of ``side`` in the right tray (X at the bottom)."""
    x0 = RIGHT_TRAY_CX - SLAB_W // 2
    if side == "X":
        y1 = FIELD_BOTTOM - 4 - index * SLAB_STEP
        return x0, y1 - SLAB_H, x0 + SLAB_W, y1
    y0 = FIELD_TOP + 4 + index * SLAB_STEP
    return x0, y0, x0 + SLAB_W, y0 + SLAB_H


def cube_box(owner: str | None) -> Box:
    """The cube in the left tray: centred, or at the owner's edge."""
    x0 = LEFT_TRAY_CX - CUBE // 2
    if owner == "X":
        y0 = FIELD_BOTTOM - 8 - CUBE
    elif owner == "O":
        y0 = FIELD_TOP + 8
    else:
        y0 = MID_Y - CUBE // 2
    return x0, y0, x0 + CUBE, y0 + CUBE


def dice_boxes(count: int = 2, with_badge: bool = False) -> list[Box]:
    """Dice in the middle of the right field (the side of the player to act).

    ``with_badge`` shifts them left to leave room for a "x4" badge after them.
    """
    gap = 12
    total = count * DIE + (count - 1) * gap
    cx = RIGHT_FIELD_X + 3 * POINT_W - (30 if with_badge else 0)
    x = cx - total // 2
    y0 = MID_Y - DIE // 2
    return [(x + i * (DIE + gap), y0, x + i * (DIE + gap) + DIE, y0 + DIE) for i in range(count)]


@dataclass(frozen=True)
class DrawnChecker:
    """One checker of a stack as drawn: its slot on the point and what it is."""

    slot: int
    colour: str
    #: Index in the real stack (0 = bottom).
    index: int
    #: An opposing checker lies somewhere above it (pinned/trapped).
    covered: bool


def drawn_stack(stack: str) -> tuple[list[DrawnChecker], bool]:
    """Which checkers of ``stack`` (bottom->top) are drawn, and whether it holds a covered one.

    Stacks up to :data:`MAX_DRAWN` are drawn whole. Longer ones lose middle checkers of their
    longest runs (bottom runs first), so the bottom and top checkers of every run - and thus
    the colour order and the top checker - stay visible; the renderer labels the true count.
    """
    runs: list[list[int]] = []  # [start, length]
    for i, c in enumerate(stack):
        if runs and stack[runs[-1][0]] == c:
            runs[-1][1] += 1
        else:
            runs.append([i, 1])
    shown = [length for _, length in runs]
    while sum(shown) > MAX_DRAWN:
        best = max(range(len(shown)), key=lambda r: (shown[r], -r))
        if shown[best] <= 2:
            break
        shown[best] -= 1
    indices: list[int] = []
    for (start, length), keep in zip(runs, shown, strict=True):
        if keep >= length:
            indices.extend(range(start, start + length))
        else:
            # Keep the run's bottom checker and its top ones: the run's extent stays visible.
            indices.append(start)
            indices.extend(range(start + length - (keep - 1), start + length))
    if len(indices) > MAX_DRAWN:  # pathological: more runs than slots; keep bottom and top
        indices = indices[:1] + indices[-(MAX_DRAWN - 1) :]
    last_of: dict[str, int] = {}
    for i, c in enumerate(stack):
        last_of[c] = i
    drawn = []
    any_covered = False
    for slot, i in enumerate(indices):
        c = stack[i]
        covered = any(last > i for colour, last in last_of.items() if colour != c)
        any_covered = any_covered or covered
        drawn.append(DrawnChecker(slot, c, i, covered))
    return drawn, any_covered
