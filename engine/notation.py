"""Play notation (RULES §7): lenient parser, static checks and application.

The canonical formatter lives with ``Play`` (engine.play), which writes its own text.

A typed play is applied to the position with the order-insensitive net semantics of §7.4 and
matched to a generated legal play by the position it produces, as gnubg's ``move`` command does.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.errors import IllegalPlayError, InvalidPlayError
from engine.frozen import FrozenValue
from engine.play import HIT, Play
from engine.play import format_play as format_play  # its old home: callers still import it here
from engine.position import BAR, OFF, O, Position, X
from engine.variants import Variant, get_variant

MAX_INPUT = 200  # nobody types a longer play; refuse early instead of parsing garbage

# Full-width forms (U+FF01-FF5E) of the ASCII characters, as East Asian keyboards type them, read
# as their ASCII selves: １３／７ is 13/7. No other digits count (², ①, ٣ are E_SYNTAX): only
# ASCII digits are point numbers, which str.isdigit() alone does not ensure.
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}


def _is_number(word: str) -> bool:
    return word.isascii() and word.isdigit()


class Token(FrozenValue):
    """One written token ``src/p1/.../pk``: ``points[0]`` is the source (25 = bar, 0 = off)."""

    __slots__ = ("count", "markers", "points")
    _fields = ("points", "markers", "count")
    points: tuple[int, ...]
    markers: tuple[str, ...]  # marker after each point ("" for none); markers[0] is always ""
    count: int

    def __init__(self, points: tuple[int, ...], markers: tuple[str, ...], count: int = 1) -> None:
        self._set(points=points, markers=markers, count=count)


def _syntax(message: str) -> InvalidPlayError:
    return InvalidPlayError("E_SYNTAX", message)


def _number(word: str, token: str) -> int:
    if len(word) > 1 and word[0] == "0":
        raise _syntax(f"'{token}': write point numbers without leading zeros.")
    value = int(word)
    if value > 25:
        raise InvalidPlayError(
            "E_RANGE", f"'{token}': there is no point {value}; points go from 1 to 24."
        )
    return value


def _parse_token(raw: str) -> Token:
    text = raw
    count = 1
    if text.endswith(")"):
        open_at = text.rfind("(")
        inside = text[open_at + 1 : -1]
        if open_at <= 0 or not _is_number(inside):
            raise _syntax(f"'{raw}': a repeat count is written like 13/7(2).")
        count = int(inside)
        if count not in (2, 3, 4):
            raise _syntax(f"'{raw}': the repeat count must be 2, 3 or 4.")
        text = text[:open_at]
    parts = text.replace("-", "/").split("/")
    if len(parts) < 2:
        raise _syntax(f"'{raw}' is not a move: write from/to, for example 13/7 or bar/22.")
    source = parts[0]
    points: list[int] = []
    markers: list[str] = [""]
    if source in ("bar", "b"):
        points.append(BAR)
    elif _is_number(source):
        value = _number(source, raw)
        if value == 0:
            raise _syntax(f"'{raw}': off can only be the last point of a move.")
        points.append(value)
    elif source in ("off", "o"):
        raise _syntax(f"'{raw}': off can only be the last point of a move.")
    else:
        raise _syntax(f"'{raw}': '{source}' is not a point; use 1-24 or bar.")
    for i, hop in enumerate(parts[1:], start=1):
        last = i == len(parts) - 1
        marker = ""
        while hop and hop[-1] in "*^":
            if marker:
                raise _syntax(f"'{raw}': only one marker (* or ^) per point.")
            marker = hop[-1]
            hop = hop[:-1]
        if hop in ("off", "o"):
            value = OFF
        elif _is_number(hop):
            value = _number(hop, raw)
        elif hop in ("bar", "b"):
            raise _syntax(f"'{raw}': bar can only be the start of a move.")
        else:
            raise _syntax(f"'{raw}': '{hop or '/'}' is not a point; use 1-24 or off.")
        if value == BAR:
            raise _syntax(f"'{raw}': 25 (the bar) can only be the start of a move.")
        if value == OFF:
            if not last:
                raise _syntax(f"'{raw}': off can only be the last point of a move.")
            if marker:
                raise _syntax(f"'{raw}': no marker after off.")
        if value >= points[-1]:
            raise _syntax(
                f"'{raw}': checkers move from higher to lower points "
                f"({_name(points[-1])} to {_name(value)} goes backwards)."
            )
        points.append(value)
        markers.append(marker)
    return Token(tuple(points), tuple(markers), count)


def parse_tokens(text: str) -> list[Token]:
    """Syntax only (RULES §7.2): the tokens of ``text``; ``[]`` is the empty play."""
    if len(text) > MAX_INPUT:
        raise _syntax("That is far too long for one play.")
    cleaned = text.translate(_FULL_WIDTH).replace(",", " ").lower().split()
    if not cleaned or cleaned == ["pass"]:
        return []
    return [_parse_token(word) for word in cleaned]


def _name(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


def _static_checks(variant: Variant, pos: Position, tokens: Sequence[Token]) -> None:
    """RULES §7.3 S2-S5, on the position before the play."""
    pts = pos.points
    unmarked_ends: set[int] = set()
    marked: dict[int, set[str]] = {}
    for token in tokens:
        if token.points[0] == BAR and not (variant.has_bar or variant.has_reserve):
            raise IllegalPlayError(
                "E_NO_ENTRY", f"{variant.name} has no bar: there is nothing to enter."
            )
        for i in range(1, len(token.points)):
            point, marker = token.points[i], token.markers[i]
            if point == OFF:
                continue
            stack = pts[point]
            if variant.is_permanently_blocked(stack):
                raise IllegalPlayError(
                    "E_BLOCKED_POINT",
                    f"Point {point} is blocked: you cannot land or touch down there.",
                )
            if marker:
                if marker not in variant.markers:
                    allowed = " or ".join(sorted(variant.markers))
                    hint = f" (use {allowed})" if allowed else " (this game has no markers)"
                    raise IllegalPlayError(
                        "E_MARKER", f"'{marker}' is not used in {variant.name}{hint}."
                    )
                if not variant.is_capturable(stack):
                    raise IllegalPlayError(
                        "E_MARKER",
                        f"'{marker}' after {point}: there is no lone opposing checker on {point}.",
                    )
                marked.setdefault(point, set()).add(marker)
            elif i == len(token.points) - 1:
                unmarked_ends.add(point)
    for point, kinds in marked.items():
        if len(kinds) > 1:
            raise IllegalPlayError(
                "E_MARKER", f"Point {point} is marked both * (hit) and ^ (trap); choose one."
            )
    if variant.marker_required_on_blot:
        for point in sorted(unmarked_ends, reverse=True):
            if pts[point] == O and point not in marked:
                raise IllegalPlayError(
                    "E_HIT_OR_TRAP_REQUIRED",
                    f"You land on the lone opposing checker on {point}: write {point}* to hit it "
                    f"or {point}^ to trap it.",
                )


def apply_tokens(variant: Variant, pos: Position, tokens: Sequence[Token]) -> Position:
    """RULES §7.4: the position the written play leads to (net, order-insensitive)."""
    pts = pos.points
    net = [0] * 26
    touched: dict[int, str] = {}  # point -> strongest marker written there
    for token in tokens:
        for _ in range(token.count):
            for i in range(len(token.points) - 1):
                net[token.points[i]] -= 1
                net[token.points[i + 1]] += 1
            for point, marker in zip(token.points[1:], token.markers[1:], strict=True):
                if point != OFF and touched.get(point) != "*":
                    touched[point] = marker or touched.get(point, "")
    new_pts = list(pts)
    for point in range(1, 25):
        change = net[point]
        stack = pts[point]
        if change < 0:
            for _ in range(-change):
                if not stack or stack[-1] != X:
                    raise IllegalPlayError(
                        "E_NO_CHECKER",
                        f"There is no checker of yours that can move from point {point}.",
                    )
                stack = stack[:-1]
        elif change > 0:
            stack += X * change
        new_pts[point] = stack
    o_hit = 0
    for point, marker in touched.items():
        before = pts[point]
        effect = variant.blot_effect if variant.is_blot(before) else None
        if marker == "*" and variant.marker_required_on_blot and variant.is_capturable(before):
            effect = HIT  # NeverFinishing: an explicit hit, also of a released checker (§7.4.3)
        if effect == HIT:
            new_pts[point] = new_pts[point].replace(O, "", 1)
            o_hit += 1
    entries = -net[BAR]
    bar, reserve = pos.bar, pos.reserve
    for _ in range(entries):
        probe = pos._replace(bar=bar, reserve=reserve)
        if bar[0] + reserve[0] == 0:
            raise IllegalPlayError("E_NO_CHECKER", "You have no checker left to enter.")
        bar, reserve = variant.after_entry(probe)
    off = (pos.off[0] + net[OFF], pos.off[1])
    after = Position(
        pos.variant, tuple(new_pts), (bar[0], bar[1] + o_hit), reserve, off, pos.unlocked
    )
    for point in range(0, 7):
        if (point == 0 and off[0]) or (point and X in new_pts[point]):
            after = after._replace(unlocked=variant.update_flags(after, point))
            break
    return after


def parse_play(pos: Position, legal: Sequence[Play], text: str) -> Play:
    """The legal play denoted by ``text`` (RULES §7.5), or an EngineError saying why not."""
    variant = get_variant(pos.variant)
    tokens = parse_tokens(text)
    _static_checks(variant, pos, tokens)
    after = apply_tokens(variant, pos, tokens) if tokens else pos
    for play in legal:
        if play.after == after:
            return play
    raise IllegalPlayError(
        "E_ILLEGAL", illegal_message(text, legal), tuple(sorted(p.text for p in legal))
    )


def illegal_message(text: str, legal: Sequence[Play], shown: int = 5) -> str:
    texts = sorted(p.text or "pass" for p in legal)
    if texts == ["pass"]:
        return f"'{text}' is not legal: you have no legal move, so the only play is pass."
    more = f" (and {len(texts) - shown} more)" if len(texts) > shown else ""
    return (
        f"'{text}' is not a legal play here. Legal plays include: {', '.join(texts[:shown])}{more}."
    )
