"""The rules engine: pure standard-library Python, no I/O.

Public API: positions and their text form, legal plays, notation, and the game flow.

The one exception to "no I/O": on import, ``engine.native`` checks for a compiled build of these
same sources (mypyc, ``make fast-engine``) and uses it when it is up to date (RULES and results
are the same; only the speed differs). ``BG_PURE_ENGINE=1`` forces the Python sources.
"""

from engine import native

native.activate(__path__)

# The submodules below load from the compiled build when ``activate`` chose it (hence E402).
# ruff: noqa: E402
from engine.dice import ChainDice, Dice, Roll
from engine.errors import EngineError, GameError, IllegalPlayError, InvalidPlayError, PositionError
from engine.movegen import legal_plays
from engine.notation import parse_play
from engine.play import Play, Step, format_play
from engine.position import BAR, OFF, O, Position, X, make_position
from engine.text import format_position, parse_position
from engine.variants import VARIANTS, Result, Variant, get_variant

__all__ = [
    "BAR",
    "OFF",
    "VARIANTS",
    "ChainDice",
    "Dice",
    "EngineError",
    "GameError",
    "IllegalPlayError",
    "InvalidPlayError",
    "O",
    "Play",
    "Position",
    "PositionError",
    "Result",
    "Roll",
    "Step",
    "Variant",
    "X",
    "format_play",
    "format_position",
    "get_variant",
    "legal_plays",
    "make_position",
    "parse_play",
    "parse_position",
]
