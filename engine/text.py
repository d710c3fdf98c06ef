"""Position text (RULES §12): one line, read and written exactly (round trip).

``<variant> | <points> | bar X/O | res X/O | off X/O [| unlocked X=yes O=no] | <dice>``
"""

from __future__ import annotations

import re
from typing import TypeVar

from engine.dice import ChainDice, Dice, Roll
from engine.errors import PositionError
from engine.position import EMPTY, NUM_CHECKERS, O, Position, X
from engine.variants import VARIANTS, get_variant

_STACK = re.compile(r"^([XO])([0-9]+)$")
_PAIR = re.compile(r"^(bar|res|off) ([0-9]+)/([0-9]+)$")
_UNLOCKED = re.compile(r"^unlocked X=(yes|no) O=(yes|no)$")
_CHAIN = re.compile(r"^\[([1-6])x([1-4])\]$")
MAX_LINE = 1000
_K = TypeVar("_K")
_V = TypeVar("_V")


def _stack_text(stack: str) -> str:
    runs: list[str] = []
    i = 0
    while i < len(stack):
        j = i
        while j < len(stack) and stack[j] == stack[i]:
            j += 1
        runs.append(f"{stack[i]}{j - i}")
        i = j
    return "+".join(runs)


def format_points(pos: Position) -> str:
    parts = [f"{p}:{_stack_text(pos.points[p])}" for p in range(24, 0, -1) if pos.points[p]]
    return " ".join(parts) if parts else "-"


def format_dice(dice: Dice | None) -> str:
    return "-" if dice is None else dice.text()


def format_position(pos: Position, dice: Dice | None = None) -> str:
    fields = [
        pos.variant,
        format_points(pos),
        f"bar {pos.bar[0]}/{pos.bar[1]}",
        f"res {pos.reserve[0]}/{pos.reserve[1]}",
        f"off {pos.off[0]}/{pos.off[1]}",
    ]
    if get_variant(pos.variant).has_reserve and get_variant(pos.variant).has_bar:
        # Dutch: the written flag is exact, a derived one is not (§12).
        yes = ("no", "yes")
        fields.append(f"unlocked X={yes[pos.unlocked[0]]} O={yes[pos.unlocked[1]]}")
    fields.append(format_dice(dice))
    return " | ".join(fields)


def _parse_stack(text: str, point: int) -> str:
    stack = ""
    for run in text.split("+"):
        m = _STACK.match(run)
        if not m or int(m.group(2)) == 0 or int(m.group(2)) > NUM_CHECKERS:
            raise PositionError(f"point {point}: '{text}' is not a stack like X3 or O1+X2")
        stack += m.group(1) * int(m.group(2))
    return stack


def _home_or_off(pos: Position, colour: str) -> bool:
    i = 0 if colour == X else 1
    home = range(1, 7) if colour == X else range(19, 25)
    return pos.off[i] > 0 or any(colour in pos.points[p] for p in home)


def parse_dice(text: str, variant_id: str) -> Dice | None:
    if text == "-":
        return None
    chain = _CHAIN.match(text)
    if chain:
        if not get_variant(variant_id).chains_doubles:
            raise PositionError("[vxk] chain dice exist only in blocking-express")
        return ChainDice(int(chain.group(1)), int(chain.group(2)))
    if len(text) == 2 and all(c in "123456" for c in text):
        roll = Roll.of(int(text[0]), int(text[1]))
        if roll.is_double and get_variant(variant_id).chains_doubles:
            return ChainDice(roll.high, 4, rolled=True)
        return roll
    raise PositionError(f"dice '{text}' must be two digits 1-6 like 65, [vxk] or -")


#: Caches of the pieces a position text is made of (they repeat across positions), filled only
#: with pieces that parsed: (variant, stack text) -> stack; pair field -> (name, X, O); dice.
_PARSED_STACKS: dict[tuple[str, str], str] = {}
_PARSED_PAIRS: dict[str, tuple[str, int, int]] = {}
_PARSED_DICE: dict[tuple[str, str], Dice | None] = {}
_CACHE_LIMIT = 20_000
#: The point numbers a position text may name.
_POINT_NUMBERS = {str(p): p for p in range(1, 25)}


def _cache_put(cache: dict[_K, _V], key: _K, value: _V) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def parse_position(line: str) -> tuple[Position, Dice | None]:
    """Read a position text; raises PositionError (E_POSITION) on anything malformed."""
    if len(line) > MAX_LINE:
        raise PositionError("position text too long")
    fields = [f.strip() for f in line.strip().split("|")]
    if len(fields) not in (6, 7):
        raise PositionError("expected 6 or 7 fields separated by ' | '")
    variant_id = fields[0]
    if variant_id not in VARIANTS:
        raise PositionError(f"unknown variant '{variant_id}' (one of {', '.join(VARIANTS)})")
    variant = get_variant(variant_id)
    pts = [EMPTY] * 25
    if fields[1] != "-":
        stacks = _PARSED_STACKS
        for item in fields[1].split():
            point_text, sep, stack_text = item.partition(":")
            point = _POINT_NUMBERS.get(point_text, 0)
            if not point:  # also "013": any ASCII number 1..24
                ascii_number = point_text.isascii() and point_text.isdigit()
                if ascii_number and 1 <= int(point_text) <= 24:
                    point = int(point_text)
            if not sep or not point:
                raise PositionError(f"'{item}' is not a point like 13:X5")
            if pts[point]:
                raise PositionError(f"point {point} is given twice")
            stack = stacks.get((variant_id, stack_text))
            if stack is None:
                stack = _parse_stack(stack_text, point)
                if not variant.valid_stack(stack):
                    raise PositionError(
                        f"point {point}: {variant.name} cannot have the stack {stack_text}"
                    )
                _cache_put(stacks, (variant_id, stack_text), stack)
            pts[point] = stack
    pairs: list[tuple[int, int]] = []
    for name, field in zip(("bar", "res", "off"), fields[2:5], strict=True):
        pair = _PARSED_PAIRS.get(field)
        if pair is None:
            m = _PAIR.match(field)
            if not m:
                raise PositionError(f"expected '{name} N/N', got '{field}'")
            pair = (m.group(1), int(m.group(2)), int(m.group(3)))
            _cache_put(_PARSED_PAIRS, field, pair)
        if pair[0] != name:
            raise PositionError(f"expected '{name} N/N', got '{field}'")
        pairs.append((pair[1], pair[2]))
    unlocked: tuple[bool, bool] | None = None
    if len(fields) == 7:
        m = _UNLOCKED.match(fields[5])
        if not m:
            raise PositionError(f"expected 'unlocked X=yes|no O=yes|no', got '{fields[5]}'")
        if not (variant.has_bar and variant.has_reserve):
            raise PositionError("the unlocked field exists only in dutch")
        unlocked = (m.group(1) == "yes", m.group(2) == "yes")
    dice_key = (variant_id, fields[-1])
    if dice_key in _PARSED_DICE:
        dice = _PARSED_DICE[dice_key]
    else:
        dice = parse_dice(fields[-1], variant_id)
        _cache_put(_PARSED_DICE, dice_key, dice)
    pos = Position(variant_id, tuple(pts), pairs[0], pairs[1], pairs[2])
    _validate(variant_id, pos)
    if not (variant.has_bar and variant.has_reserve):
        return pos, dice  # only Dutch has the unlocked flags
    derived = (_home_or_off(pos, X), _home_or_off(pos, O))
    if unlocked is None:
        unlocked = derived
    elif (derived[0] and not unlocked[0]) or (derived[1] and not unlocked[1]):
        raise PositionError("a player with a checker home or borne off is always unlocked")
    return pos._replace(unlocked=unlocked), dice


def _validate(variant_id: str, pos: Position) -> None:
    variant = get_variant(variant_id)
    board = "".join(pos.points)
    for i, colour in enumerate((X, O)):
        total = board.count(colour) + pos.bar[i] + pos.reserve[i] + pos.off[i]
        if total != NUM_CHECKERS:
            raise PositionError(f"{colour} has {total} checkers; each player has exactly 15")
    if not variant.has_bar and (pos.bar[0] or pos.bar[1]):
        raise PositionError(f"{variant.name} has no bar")
    if not variant.has_reserve and (pos.reserve[0] or pos.reserve[1]):
        raise PositionError(f"{variant.name} has no reserve")
