"""What a board picture shows: plain value objects, independent of Discord and of the renderer."""

from __future__ import annotations

from dataclasses import dataclass

from engine.play import Step
from engine.position import Position


@dataclass(frozen=True)
class ChainInfo:
    """A Blocking Express chain in progress (RULES §6)."""

    #: ``(value, copies)`` still to play, in order, e.g. ``((3, 2), (4, 4), (5, 4), (6, 4))``.
    pending: tuple[tuple[int, int], ...]
    #: ``"X"`` or ``"O"`` in the scene's frame: who decides the current value.
    controller: str


@dataclass(frozen=True)
class LastPlay:
    """The play just made, highlighted so the other player sees at a glance what happened."""

    #: ``"X"`` or ``"O"`` in the scene's frame.
    mover: str
    #: In the MOVER's own numbering (``src`` 25 = entry, ``dst`` 0 = off).
    steps: tuple[Step, ...]
    #: Canonical play text, shown as a caption.
    text: str
    dice: tuple[int, ...] | None = None


@dataclass(frozen=True)
class BoardScene:
    """Everything one board picture shows.

    ``position`` is in the frame of the viewer, normally the player to act: X is drawn at the
    bottom, moving from his 24-point (top right) round to his 1-point (bottom right), and the
    point numbers are X's.
    """

    position: Position
    variant_name: str
    x_name: str
    o_name: str
    #: ``"light"`` or ``"dark"``: colour of X's checkers (O has the other).
    x_colour: str
    #: ``"X"``, ``"O"`` or ``None`` (game over).
    to_act: str | None
    #: The roll to show; a double shows two dice with a "x4" (or the chain).
    dice: tuple[int, ...] | None
    chain: ChainInfo | None = None
    #: ``None`` = variant without a cube.
    cube_value: int | None = None
    #: ``None`` = centred.
    cube_owner: str | None = None
    match_length: int = 1
    #: ``(X, O)``.
    match_score: tuple[int, int] = (0, 0)
    #: The Crawford game of a match (no doubling), shown next to the match length.
    crawford: bool = False
    last_play: LastPlay | None = None
    #: Game-over text, e.g. ``"Alice wins 2 points (gammon)"``.
    result: str | None = None
    #: Optional one-line status or prompt, e.g. ``"Bob to roll or double"``.
    status: str | None = None
