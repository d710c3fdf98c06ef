"""Position features for the hand-written evaluation (and, later, as network inputs).

Every variant's rules are read through the engine's own hooks (``is_open``, ``is_blot``), never
by testing a variant id, so a stack means here exactly what it means to move generation.

A batch of positions (X's frame, O on roll after X's play) is first *encoded* into a small
integer array per point, then turned into features with vectorised numpy: one decision's
candidates (or all opponent replies of a 1-ply search) cost one pass, not one per position.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from engine import Position, Variant
from engine.position import EMPTY, NUM_CHECKERS, O, X, swap_colours

FloatArray = npt.NDArray[np.float64]

# Per-point channels of the encoding (X's frame).
XN, ON, XFREE, OFREE, XBLOCK, OBLOCK, XBLOT, OBLOT = range(8)
CHANNELS = 8

#: Features computed for each side, in that side's own frame.
SIDE_FEATURES: tuple[str, ...] = (
    "pips",  # pip count / 100, 25 per checker on the bar or in reserve
    "off",  # checkers borne off / 15
    "hit_any",  # chance the opponent can hit/pin/trap at least one blot next roll
    "hit_loss",  # expected pips lost to a hit next roll / 25
    "blots",  # blots the opponent could land on (at all) / 15
    "points",  # points this side holds against the opponent / 12
    "home_points",  # such points in the own home board (1-6) / 6
    "blockade",  # how hard the opponent's free checkers find the next six points / 15
    "prime",  # longest run of held points with an opponent checker behind it / 6
    "covered",  # own checkers pinned/trapped/covered by the opponent / 15
    "covered_deep",  # the same weighted by how far they still have to go (p/24)
    "entering",  # own checkers waiting to enter x opponent's held home points / 36
    "outside",  # own checkers outside the home board / 15
    "back",  # own checkers in the opponent's home board (points 19-24) / 15
    "unlocked",  # Dutch: this side may hit
    "stacked",  # checkers beyond the third on a point / 15 (wasted flexibility)
    "mother_risk",  # pin-mother: the own mother checker alone and exposed (x shot chance)
    "escaped",  # own checkers past every opponent checker / 15
)
N_SIDE = len(SIDE_FEATURES)


def _roll_table() -> FloatArray:
    """P(one checker can travel exactly ``d`` pips with one roll), blocks ignored (d = 1..24)."""
    hits = np.zeros(25)
    for a in range(1, 7):
        for b in range(1, 7):
            reach: set[int] = set()
            if a == b:
                reach.update(a * k for k in range(1, 5))
            else:
                reach.update((a, b, a + b))
            for d in reach:
                if d <= 24:
                    hits[d] += 1
    return hits / 36.0


_P_REACH = _roll_table()
#: log(1 - P) per distance, for combining independent shooters.
_LOG_MISS = np.log(np.maximum(1.0 - _P_REACH, 1e-9))
_LOG_MISS[0] = 0.0


class _StackInfo:
    """Codes for stacks: (stack, X unlocked, O unlocked) -> a row of ``table`` (8 channels)."""

    def __init__(self, rules: Variant) -> None:
        self.rules = rules
        # One dict per unlock-flag pair so the hot loop looks up plain strings.
        self.codes: dict[tuple[bool, bool], dict[str, int]] = {}
        self.rows: list[tuple[int, ...]] = []
        self._table: npt.NDArray[np.float64] | None = None
        empty = (EMPTY,) * 25
        self._probe = {
            flags: (
                Position(rules.id, empty, unlocked=flags),
                Position(rules.id, empty, unlocked=(flags[1], flags[0])),
            )
            for flags in ((False, False), (False, True), (True, False), (True, True))
        }

    def table(self) -> npt.NDArray[np.float64]:
        if self._table is None or len(self._table) != len(self.rows):
            self._table = np.array(self.rows, dtype=np.float64).reshape(len(self.rows), CHANNELS)
        return self._table

    def codes_for(self, flags: tuple[bool, bool]) -> dict[str, int]:
        got = self.codes.get(flags)
        if got is None:
            got = self.codes[flags] = {}
        return got

    def add(self, stack: str, flags: tuple[bool, bool]) -> int:
        """Encode a stack not seen before under these flags."""
        rules = self.rules
        x_view, o_view = self._probe[flags]
        swapped = swap_colours(stack)
        xn = stack.count(X)
        on = len(stack) - xn
        top = stack[-1:] if stack else ""
        run = len(stack) - len(stack.rstrip(top)) if top else 0
        xfree = run if top == X else 0
        ofree = run if top == O else 0
        # X holds the point against O when O may not land there, and vice versa.
        xblock = int(bool(stack) and not rules.is_open(o_view, swapped))
        oblock = int(bool(stack) and not rules.is_open(x_view, stack))
        xblot = int(rules.is_blot(swapped) and rules.is_open(o_view, swapped))
        oblot = int(rules.is_blot(stack) and rules.is_open(x_view, stack))
        code = len(self.rows)
        self.rows.append((xn, on, xfree, ofree, xblock, oblock, xblot, oblot))
        self.codes_for(flags)[stack] = code
        return code


_INFOS: dict[int, _StackInfo] = {}


def _stack_info(rules: Variant) -> _StackInfo:
    info = _INFOS.get(id(rules))
    if info is None or info.rules is not rules:
        info = _INFOS[id(rules)] = _StackInfo(rules)
    return info


class Encoded:
    """A batch of positions as arrays (X's frame): ``pts[n, p, channel]`` for p in 0..25."""

    __slots__ = ("bar", "off", "pts", "reserve", "unlocked")

    def __init__(self, rules: Variant, positions: Sequence[Position]) -> None:
        info = _stack_info(rules)
        rows: list[list[int]] = []
        for pos in positions:
            flags = pos.unlocked
            codes = info.codes_for(flags)
            try:
                rows.append([codes[s] for s in pos.points])
            except KeyError:
                for s in pos.points:
                    if s not in codes:
                        info.add(s, flags)
                rows.append([codes[s] for s in pos.points])
        n = len(positions)
        table = info.table()
        self.pts = np.zeros((n, 26, CHANNELS))
        if n:
            self.pts[:, :25, :] = table[np.array(rows, dtype=np.intp)]
        self.pts[:, 0, :] = 0.0
        side = np.array(
            [(*p.bar, *p.reserve, *p.off, *p.unlocked) for p in positions], dtype=np.float64
        ).reshape(n, 8)
        self.bar = side[:, 0:2]
        self.reserve = side[:, 2:4]
        self.off = side[:, 4:6]
        self.unlocked = side[:, 6:8]


def _side(
    own_n: FloatArray,
    own_free: FloatArray,
    own_block: FloatArray,
    own_blot: FloatArray,
    opp_n: FloatArray,
    opp_free: FloatArray,
    own_waiting: FloatArray,
    opp_waiting: FloatArray,
    own_off: FloatArray,
    own_unlocked: FloatArray,
    opp_block: FloatArray,
    mother: bool,
) -> FloatArray:
    """Features of one side in its own frame: it moves 24 -> 1, the opponent 0 -> 25.

    Arrays are (N, 26) indexed by point; index 25 of ``own_*`` is unused (waiting checkers come
    separately), index 0 of the opponent's arrays is where its waiting checkers enter from.
    """
    n = own_n.shape[0]
    out = np.zeros((n, N_SIDE))
    idx = np.arange(26, dtype=np.float64)
    pips = (own_n * idx).sum(1) + 25.0 * own_waiting
    out[:, 0] = pips / 100.0
    out[:, 1] = own_off / NUM_CHECKERS

    # Shooters: the opponent's free checkers, its waiting checkers entering from index 0.
    shooter = (opp_free > 0).astype(np.float64)
    shooter[:, 0] = (opp_waiting > 0).astype(np.float64)
    # log P(no shot) at each point from every shooter behind it.
    log_miss = np.zeros((n, 26))
    for d in range(1, 25):
        log_miss[:, d:] += shooter[:, : 26 - d] * _LOG_MISS[d]
    blot = own_blot[:, :25]
    prob = 1.0 - np.exp(log_miss[:, :25])
    out[:, 2] = 1.0 - np.exp((blot * log_miss[:, :25]).sum(1))
    out[:, 3] = (blot * prob * (25.0 - idx[:25])).sum(1) / 25.0
    out[:, 4] = blot.sum(1) / NUM_CHECKERS

    held = own_block[:, 1:25]
    out[:, 5] = held.sum(1) / 12.0
    out[:, 6] = held[:, :6].sum(1) / 6.0

    # Blockade: for each opponent checker at a, own held points in a+1..a+6.
    blocked = own_block.copy()
    blocked[:, 0] = 0.0
    csum = np.concatenate([np.zeros((n, 1)), np.cumsum(blocked, axis=1)], axis=1)  # (n, 27)
    lo = np.arange(26) + 1
    hi = np.minimum(lo + 6, 26)
    window = csum[:, hi] - csum[:, lo]  # held points in a+1..a+6
    movers = opp_free.copy()
    movers[:, 0] = opp_waiting
    out[:, 7] = (movers * window).sum(1) / 6.0 / NUM_CHECKERS

    # Longest run of held points with an opponent checker (free or waiting) behind it.
    present = (movers > 0).astype(np.float64)
    behind = np.cumsum(present, axis=1) > 0  # an opponent checker at or below index a
    run = np.zeros(n)
    best = np.zeros(n)
    for p in range(1, 25):
        run = np.where(blocked[:, p] > 0, run + 1.0, 0.0)
        best = np.maximum(best, np.where(behind[:, p - 1], run, 0.0))
    out[:, 8] = best / 6.0

    covered = own_n - own_free
    out[:, 9] = covered.sum(1) / NUM_CHECKERS
    out[:, 10] = (covered * idx).sum(1) / 24.0 / NUM_CHECKERS
    # Entering against the opponent's held points in this side's entry zone (19-24 own frame).
    opp_home = opp_block[:, 19:25].sum(1)
    out[:, 11] = own_waiting * opp_home / 36.0
    out[:, 12] = (own_n[:, 7:25].sum(1) + own_waiting) / NUM_CHECKERS
    out[:, 13] = (own_n[:, 19:25].sum(1) + own_waiting) / NUM_CHECKERS
    out[:, 14] = own_unlocked
    out[:, 15] = np.maximum(own_n[:, 1:25] - 3.0, 0.0).sum(1) / NUM_CHECKERS
    if mother:
        alone = (own_n[:, 24] == 1) & (own_free[:, 24] == 1)
        out[:, 16] = alone * prob[:, 24]
    # Escaped: own checkers below the lowest opponent checker (opponent moves upward).
    opp_any = (opp_n > 0).astype(np.float64)
    opp_any[:, 0] = np.maximum(opp_any[:, 0], (opp_waiting > 0).astype(np.float64))
    first = np.where(opp_any.any(1), opp_any.argmax(1), 26)
    below = idx[None, :] < first[:, None]
    out[:, 17] = (own_n * below).sum(1) / NUM_CHECKERS
    return out


def side_features(
    rules: Variant,
    positions: Sequence[Position],
    *,
    mother: bool = False,
    enc: Encoded | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(X's features, O's features, contact flag) for a batch of positions in X's frame.

    ``enc``: the batch already encoded (``Encoded(rules, positions)``), to share one pass."""
    if enc is None:
        enc = Encoded(rules, positions)
    pts = enc.pts
    waiting = enc.bar + enc.reserve
    fx = _side(
        pts[:, :, XN],
        pts[:, :, XFREE],
        pts[:, :, XBLOCK],
        pts[:, :, XBLOT],
        pts[:, :, ON],
        pts[:, :, OFREE],
        waiting[:, 0],
        waiting[:, 1],
        enc.off[:, 0],
        enc.unlocked[:, 0],
        pts[:, :, OBLOCK],
        mother,
    )
    rev = pts[:, ::-1, :]  # O's frame: O's point q is X's point 25 - q
    fo = _side(
        rev[:, :, ON],
        rev[:, :, OFREE],
        rev[:, :, OBLOCK],
        rev[:, :, OBLOT],
        rev[:, :, XN],
        rev[:, :, XFREE],
        waiting[:, 1],
        waiting[:, 0],
        enc.off[:, 1],
        enc.unlocked[:, 1],
        rev[:, :, XBLOCK],
        mother,
    )
    # Contact: some X checker (or a waiting one, at 25) is above some O checker (or O's
    # waiting one, at 0) in X's frame; without contact the game is a pure race.
    idx = np.arange(26)
    x_any = pts[:, :, XN] > 0
    x_any[:, 25] = waiting[:, 0] > 0
    o_any = pts[:, :, ON] > 0
    o_any[:, 0] = waiting[:, 1] > 0
    x_top = np.where(x_any.any(1), (x_any * idx).max(1), -1)
    o_low = np.where(o_any.any(1), np.where(o_any, idx, 99).min(1), 99)
    contact = (x_top > o_low).astype(np.float64)
    return fx, fo, contact


#: Per-side terms of the Pin games' deep-pin correction (``deep_pin_features``).
DEEP_PIN_FEATURES: tuple[str, ...] = ("deep_pinned", "deep_exposed")


def deep_pin_features(enc: Encoded) -> tuple[FloatArray, FloatArray]:
    """(X's, O's) ``DEEP_PIN_FEATURES`` rows, each side in its own frame.

    In the Pin games a checker pinned in the opponent's home board (own points 19-24) stays
    pinned until the pinner bears off, and blocks the own bear-off all that time: nearly a lost
    game, and a backgammon. ``deep_pinned`` counts such checkers; ``deep_exposed`` sums, over
    the own blots there, the chance that some free opposing checker behind reaches them next
    roll (blocks ignored, as in ``hit_any``).
    """
    pts = enc.pts
    n = pts.shape[0]
    out = []
    for own_n, own_free, own_blot, opp_free in (
        (pts[:, :, XN], pts[:, :, XFREE], pts[:, :, XBLOT], pts[:, :, OFREE]),
        (
            pts[:, ::-1, ON],
            pts[:, ::-1, OFREE],
            pts[:, ::-1, OBLOT],
            pts[:, ::-1, XFREE],
        ),
    ):
        rows = np.zeros((n, len(DEEP_PIN_FEATURES)))
        rows[:, 0] = (own_n[:, 19:25] - own_free[:, 19:25]).sum(1)
        shooter = (opp_free > 0).astype(np.float64)
        shooter[:, 0] = 0.0
        exposed = np.zeros(n)
        for p in range(19, 25):
            log_miss = shooter[:, 1:p] @ _LOG_MISS[p - 1 : 0 : -1]
            exposed += own_blot[:, p] * (1.0 - np.exp(log_miss))
        rows[:, 1] = exposed
        out.append(rows)
    return out[0], out[1]


#: Per-side term of the Blocking game's deep-cover correction (``deep_cover_features``).
DEEP_COVER_FEATURES: tuple[str, ...] = ("ace_coverable",)

#: The point (own numbering) whose stacks ``deep_cover_features`` values: where a 1 enters.
_ACE_POINT = 24


def deep_cover_features(enc: Encoded) -> tuple[FloatArray, FloatArray]:
    """(X's, O's) ``DEEP_COVER_FEATURES`` rows, each side in its own frame.

    In the Blocking game one's checkers enter in the opponent's home board, and an opposing
    checker there leaves only by bearing off: own checkers it covers are stuck until late in
    the game. ``ace_coverable`` is the expected number (/ 15) of own free checkers on point 24
    (the opponent's ace point, where every entering 1 lands) that the opponent, on roll, can
    cover next roll: two or more own checkers there (a lone checker owns its point), reached
    by a free opposing checker behind them once the opponent has entered all fifteen (blocks
    ignored, as in ``hit_any``). Stacks on points 19-23 are left alone: measured over 2,000
    games, penalising them too made the greedy player weaker against a sensible opponent.
    """
    pts = enc.pts
    p = _ACE_POINT
    out = []
    for own_n, own_free, opp_free, opp_reserve in (
        (pts[:, :, XN], pts[:, :, XFREE], pts[:, :, OFREE], enc.reserve[:, 1]),
        (pts[:, ::-1, ON], pts[:, ::-1, OFREE], pts[:, ::-1, XFREE], enc.reserve[:, 0]),
    ):
        shooter = (opp_free[:, 1:p] > 0) * (opp_reserve == 0)[:, None]
        log_miss = shooter.astype(np.float64) @ _LOG_MISS[p - 1 : 0 : -1]
        coverable = own_free[:, p] * (own_n[:, p] >= 2)
        rows = (coverable * (1.0 - np.exp(log_miss)) / NUM_CHECKERS)[:, None]
        out.append(rows)
    return out[0], out[1]


def feature_names() -> list[str]:
    """Names of the evaluation's input vector (X's side, then O's side, then the bias)."""
    return [f"x_{n}" for n in SIDE_FEATURES] + [f"o_{n}" for n in SIDE_FEATURES] + ["bias"]


def feature_matrix(
    rules: Variant,
    positions: Sequence[Position],
    *,
    mother: bool = False,
    enc: Encoded | None = None,
) -> tuple[FloatArray, FloatArray]:
    """The evaluation's input rows (see ``feature_names``) and the contact flags."""
    fx, fo, contact = side_features(rules, positions, mother=mother, enc=enc)
    ones = np.ones((fx.shape[0], 1))
    return np.concatenate([fx, fo, ones], axis=1), contact


def describe(rules: Variant, pos: Position) -> dict[str, Any]:
    """One position's features by name (for debugging and tests)."""
    rows, contact = feature_matrix(rules, [pos])
    out: dict[str, Any] = dict(zip(feature_names(), rows[0].tolist(), strict=True))
    out["contact"] = bool(contact[0])
    return out
