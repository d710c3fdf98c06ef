"""Event pictures (Pillow -> PNG bytes): a standings table and a knockout bracket.

Plain values in (names as strings, numbers as numbers), no Discord and no league types: the
caller turns an event's standings or bracket into rows and matches, and writes the alt text.
Both are sized for Discord's ~500 px wide embeds: 760 px wide, type about 12 px seen there.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from render import text
from render.chart import Palette, palette
from render.theme import RGB

WIDTH = 760
ROW = 34
HEADER = 40
PAD = 18
TITLE_SIZE = 26
SIZE = 18
SMALL = 15
#: Standings longer than this end with a "… and N more" line (the text lists everyone).
MAX_ROWS = 60

#: Short column headings for the tiebreaks the formats name (others are shown as given).
SHORT_NAMES = {
    "match wins": "Wins",
    "Buchholz": "Buch.",
    "median Buchholz": "Med.",
    "points difference": "+/−",
    "head-to-head": "H2H",
    "Sonneborn-Berger": "S-B",
}

GOLD: RGB = (230, 159, 0)


@dataclass(frozen=True)
class StandingRow:
    """One line of a standings table. ``note`` is shown dimmed after the name (e.g.
    "withdrawn")."""

    rank: int
    name: str
    score: float
    tiebreaks: tuple[float, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class BracketMatch:
    """A table of a knockout round: the two names (None: an empty slot, a bye), the winner
    (0 = first, 1 = second, None = not played yet or nobody), and an optional score line."""

    first: str | None
    second: str | None
    winner: int | None = None
    score: str = ""


def _number(value: float, signed: bool = False) -> str:
    if value == int(value):
        shown = str(int(value))
    else:
        shown = f"{value:.1f}"
    if signed and value > 0:
        shown = "+" + shown
    return shown.replace("-", "−")


class _Picture:
    def __init__(self, width: int, height: int, theme: str) -> None:
        self.pal: Palette = palette(theme)
        self.im = Image.new("RGB", (width, height), self.pal.background)
        self.draw = ImageDraw.Draw(self.im)

    def text(
        self,
        xy: tuple[float, float],
        label: str,
        colour: RGB,
        size: int = SIZE,
        bold: bool = False,
        anchor: str = "lm",
        max_width: float | None = None,
    ) -> None:
        if max_width is not None:
            label = text.fit(label, size, bold, max(1.0, max_width))
        text.draw(self.im, xy, label, colour, size, bold, anchor)

    def png(self) -> bytes:
        out = io.BytesIO()
        self.im.save(out, "PNG", optimize=False)
        return out.getvalue()


def render_standings(
    title: str,
    rows: Sequence[StandingRow],
    tiebreak_names: Sequence[str] = (),
    subtitle: str = "",
    theme: str = "default",
) -> bytes:
    """The standings table: rank, name, score and each tiebreak, best first."""
    shown = list(rows[:MAX_ROWS])
    more = len(rows) - len(shown)
    columns = [SHORT_NAMES.get(name, name) for name in tiebreak_names]
    top = PAD + TITLE_SIZE + (SMALL + 10 if subtitle else 6) + 8
    height = top + HEADER + ROW * max(1, len(shown)) + (ROW if more else 0) + PAD
    pic = _Picture(WIDTH, height, theme)
    pal = pic.pal
    pic.text((PAD, PAD), title, pal.text, TITLE_SIZE, True, "la", WIDTH - 2 * PAD)
    if subtitle:
        pic.text((PAD, PAD + TITLE_SIZE + 8), subtitle, pal.text_dim, SMALL, False, "la")

    # Columns from the right: the tiebreaks, then the score; the name takes what is left.
    column_width = 64
    right = WIDTH - PAD
    tiebreak_x = [right - column_width * (len(columns) - i - 1) for i in range(len(columns))]
    score_x = right - column_width * len(columns) - (12 if columns else 0)
    rank_x = PAD + 40
    name_x = rank_x + 16
    name_width = score_x - 70 - name_x

    y = top + HEADER / 2
    pic.draw.rectangle([0, top, WIDTH, top + HEADER], fill=pal.plot)
    pic.text((rank_x, y), "#", pal.text_dim, SMALL, True, "rm")
    pic.text((name_x, y), "Player", pal.text_dim, SMALL, True)
    pic.text((score_x, y), "Score", pal.text_dim, SMALL, True, "rm")
    for x, name in zip(tiebreak_x, columns, strict=True):
        pic.text((x, y), name, pal.text_dim, SMALL, True, "rm", column_width - 6)

    if not shown:
        pic.text((name_x, top + HEADER + ROW / 2), "No players yet", pal.text_dim)
    for index, row in enumerate(shown):
        y0 = top + HEADER + index * ROW
        if index % 2:
            pic.draw.rectangle([0, y0, WIDTH, y0 + ROW - 1], fill=pal.plot)
        y = y0 + ROW / 2
        leader = row.rank == 1
        rank_colour = GOLD if leader else pal.text_dim
        pic.text((rank_x, y), str(row.rank), rank_colour, SIZE, leader, "rm")
        name_colour = pal.text_dim if row.note else pal.text
        name = text.fit(row.name, SIZE, leader, max(1.0, name_width))
        pic.text((name_x, y), name, name_colour, SIZE, leader)
        if row.note:
            used = text.width(name, SIZE, leader)
            room = name_width - used - 10
            if room > 30:
                pic.text((name_x + used + 10, y), row.note, pal.text_dim, SMALL, False, "lm", room)
        pic.text((score_x, y), _number(row.score), pal.text, SIZE, True, "rm")
        for x, value, heading in zip(tiebreak_x, row.tiebreaks, columns, strict=False):
            signed = heading == SHORT_NAMES["points difference"]
            pic.text((x, y), _number(value, signed), pal.text_dim, SIZE, False, "rm")
    if more:
        y = top + HEADER + len(shown) * ROW + ROW / 2
        pic.text((name_x, y), f"… and {more} more", pal.text_dim, SMALL)
    pic.draw.line([(0, top + HEADER), (WIDTH, top + HEADER)], fill=pal.grid, width=1)
    return pic.png()


#: A bracket shows at most this many tables in its first column: a larger one starts at the
#: round where it is down to this many (its first rounds are in the text pairings).
MAX_TABLES = 32
BOX_WIDTH = 200
BOX_ROW = 26
BOX_GAP = 14
COLUMN_GAP = 34


def render_bracket(
    title: str,
    rounds: Sequence[Sequence[BracketMatch]],
    champion: str | None = None,
    round_names: Sequence[str] = (),
    theme: str = "default",
) -> bytes:
    """A knockout bracket, first round on the left: ``rounds[r]`` holds the tables of round
    r + 1, twice as many as the next (later rounds may be empty lists, not played yet, and
    are drawn with empty boxes). ``champion`` closes the bracket on the right."""
    if not rounds or not rounds[0]:
        raise ValueError("a bracket needs a first round")
    full = max(len(rounds), len(rounds[0]).bit_length())
    skip = 0
    while len(rounds[0]) >> skip > MAX_TABLES:
        skip += 1
    names = [round_names[r] if r < len(round_names) else _round_name(r, full) for r in range(full)][
        skip:
    ]
    rounds = list(rounds[skip:])
    first = 1 << (len(names) - 1)
    count = len(names)
    box_height = 2 * BOX_ROW
    slot = box_height + BOX_GAP
    top = PAD + TITLE_SIZE + 16 + SMALL + 10
    width = PAD * 2 + count * BOX_WIDTH + count * COLUMN_GAP + BOX_WIDTH
    height = top + first * slot + PAD
    pic = _Picture(width, height, theme)
    pal = pic.pal
    pic.text((PAD, PAD), title, pal.text, TITLE_SIZE, True, "la", width - 2 * PAD)

    def centre(round_index: int, match: int) -> float:
        span = slot * (2**round_index)
        return float(top + span * match + span / 2)

    for r in range(count):
        x0 = PAD + r * (BOX_WIDTH + COLUMN_GAP)
        name = names[r]
        pic.text((x0 + BOX_WIDTH / 2, top - 14), name, pal.text_dim, SMALL, True, "mm")
        matches = list(rounds[r]) if r < len(rounds) else []
        tables = max(1, first >> r)
        for m in range(tables):
            match = matches[m] if m < len(matches) else BracketMatch(None, None)
            cy = centre(r, m)
            y0 = cy - box_height / 2
            pic.draw.rectangle([x0, y0, x0 + BOX_WIDTH, y0 + box_height], fill=pal.plot)
            pic.draw.line([(x0, cy), (x0 + BOX_WIDTH, cy)], fill=pal.grid, width=1)
            byes_shown = bool(matches) and r == 0 and skip == 0
            for side, player in enumerate((match.first, match.second)):
                y = y0 + BOX_ROW / 2 + side * BOX_ROW
                won = match.winner == side
                if player is None:
                    label, colour = ("bye" if byes_shown else ""), pal.text_dim
                else:
                    lost = match.winner is not None and not won
                    label, colour = player, (pal.text_dim if lost else pal.text)
                if won:
                    pic.draw.rectangle([x0, y - BOX_ROW / 2, x0 + 4, y + BOX_ROW / 2], fill=GOLD)
                pic.text((x0 + 10, y), label, colour, SMALL, won, "lm", BOX_WIDTH - 20)
            if match.score:
                pic.text((x0 + BOX_WIDTH - 6, cy), match.score, pal.text_dim, 11, False, "rm")
            # The line on to the next round's table.
            x1 = x0 + BOX_WIDTH
            xm = x1 + COLUMN_GAP / 2
            nxt = centre(r + 1, m // 2) if r + 1 < count else cy
            pic.draw.line([(x1, cy), (xm, cy), (xm, nxt), (x1 + COLUMN_GAP, nxt)], fill=pal.grid)
    # The champion's box.
    x0 = PAD + count * (BOX_WIDTH + COLUMN_GAP)
    cy = centre(count - 1, 0)
    pic.text((x0 + BOX_WIDTH / 2, top - 14), "Champion", pal.text_dim, SMALL, True, "mm")
    pic.draw.rectangle(
        [x0, cy - BOX_ROW / 2 - 4, x0 + BOX_WIDTH, cy + BOX_ROW / 2 + 4],
        fill=pal.plot,
        outline=GOLD if champion else pal.grid,
        width=2,
    )
    if champion:
        pic.text((x0 + 10, cy), champion, GOLD, SIZE, True, "lm", BOX_WIDTH - 20)
    return pic.png()


def _round_name(index: int, count: int) -> str:
    left = count - index
    if left == 1:
        return "Final"
    if left == 2:
        return "Semi-finals"
    if left == 3:
        return "Quarter-finals"
    return f"Round {index + 1}"
