"""Board encodings for the learned evaluations of the six variants (numpy).

A learned network sees a position from the side of the player **on roll** (about to roll the
dice). Candidate plays are judged by their resulting positions, in which the opponent is on
roll, so ``encode(..., opponent_on_roll=True)`` reads an after-play position (mover = X) from
O's side without building flipped positions.

Per point (24 blocks of ``Encoder.point_width`` inputs, from the roller's side): the roller's
and the opponent's *free* checkers (the run on top of the stack: the only ones that can move,
LIFO in the Blocking games) in TD-Gammon's thermometer form, and the checkers each side has
*covered* under the other's (pinned in the Pin games, trapped in NeverFinishing, buried in the
Blocking games); in the Blocking games also who *owns* the point (exactly one checker).
Globals: bar, reserve, borne-off checkers, the Dutch unlock flags, pip counts and their
difference, contact, all-home flags, the mother checkers (pin-mother), and cheap expert
features computed from the rules themselves (``Variant.is_open``/``is_blot`` decide which points
block whom and which checkers are exposed): the longest block of points each side holds, how
many points each side blocks in front of the other's rearmost checker, and the blots exposed
to direct shots.

Stack features are computed once per distinct stack string and looked up in a table, so a
batch of positions costs 24 dictionary look-ups each plus a fixed number of vectorised numpy
calls for the whole batch (one decision's candidates in self-play): the table also holds, per
stack, everything the globals derive from it (counts, presence, blocking, shooters, blots), so
the globals are sums, maxima and two small matrix products over the batch's (n, 24) columns.

Versions (``ENCODINGS``; weights record theirs and are refused when unknown): 1 is the board
encoding above; 2 appends the hand evaluation's features (``ai.features``: both sides' rows and
the contact flag), which cost about three times the board encoding per position; 3 appends each
side's **mobility** per number 1-6 (from how many points a step of it could start, and whether
from none), from the same per-stack table, so nearly free. In Blocking Express a player who cannot
play a number of a chain of doubles hands the rest of the chain to his opponent, who moves the
numbers instead (RULES §6): which numbers each side is stuck on decides much of that game. A
network grows from version 1 to 2 or to 3 (``GROWS_FROM``): the new columns follow the old. Further
feature sets plug in the same way, ``Encoder(extra=...)``: a function returning extra columns
for a batch, appended after the board inputs, so a network is grown by zero-weight columns to
take them without losing what it learned (``Network.grow_inputs``, ``ai.train --encoding``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from engine import Position, Variant, get_variant
from engine.position import NUM_CHECKERS, O, X, swap_colours

#: The encoding new training runs use.
ENCODING_VERSION = 1
ENCODINGS: dict[int, str] = {
    1: "board",
    2: "board + hand evaluation features",
    3: "board + mobility per number",
}
#: The version whose inputs each version's inputs begin with (a network grows only along these).
GROWS_FROM: dict[int, int] = {2: 1, 3: 1}
#: Mobility columns (version 3): per side (the roller's, the opponent's) and number 1..6, "no
#: checker can move it" and how many can (a quarter each, at most 4).
MOBILITY_WIDTH = 24

FloatArray = npt.NDArray[np.float32]
#: Extra feature columns for a batch: (rules, positions) -> (B, n) array. The positions are in
#: the frame of the player who has just moved (X), the roller being O: the hand evaluation's.
ExtraFeatures = Callable[[Variant, Sequence[Position]], FloatArray]


def hand_features(rules: Variant, positions: Sequence[Position]) -> FloatArray:
    """The hand evaluation's features of both sides and its contact flag (encoding 2)."""
    from ai.features import feature_matrix  # the hand evaluation's module, only for version 2

    rows, contact = feature_matrix(rules, positions, mother=rules.has_mother)
    # Its last column is the constant bias input: the network has biases of its own.
    return np.concatenate([rows[:, :-1], contact[:, None]], axis=1).astype(np.float32)


def _hand_width() -> int:
    from ai.features import N_SIDE

    return 2 * N_SIDE + 1


#: Columns of the per-stack auxiliary table (not network inputs; used for the globals), all
#: from the roller's side: checker counts, presence flags, which side blocks the point for the
#: other, whether a side's free checkers there can shoot (the opponent's: the run on top is
#: his; the roller's: he has checkers and the opponent no free ones), and exposed blots. Pairs
#: that the globals treat alike are adjacent, so one numpy call covers both sides.
(
    _AUX_ME,
    _AUX_OPP,
    _AUX_HAS_ME,
    _AUX_HAS_OPP,
    _AUX_BLOCKS_OPP,
    _AUX_BLOCKS_ME,
    _AUX_SHOOTS_OPP,
    _AUX_SHOOTS_ME,
    _AUX_BLOT_ME,
    _AUX_BLOT_OPP,
) = range(10)
_AUX_WIDTH = 10
#: The scalars of a position (bar, reserve, off, unlocked: X's then O's) in the roller's order
#: when O is on roll.
_SWAP_SCALARS = np.array([1, 0, 3, 2, 5, 4, 7, 6], dtype=np.intp)
_POINTS = np.arange(1, 25, dtype=np.float32)
#: Point weights per side: the roller's pips and highest point, the opponent's pips and
#: (25 minus) his lowest point.
_SIDE_WEIGHTS = np.stack([_POINTS, 25.0 - _POINTS])
#: Direct shots (``_exposure``): a blot on index j of the roller's is hit from the opponent's
#: shooters on j-6..j-1; the opponent's blot on j from the roller's on j+1..j+6.
_band = np.array([[1.0 if j - 6 <= i <= j - 1 else 0.0 for j in range(24)] for i in range(24)])
_SHOT_WINDOWS = np.stack([_band, _band.T]).astype(np.float32)
del _band
_DIVISORS = np.array([4.0, 4.0, NUM_CHECKERS, NUM_CHECKERS, NUM_CHECKERS, NUM_CHECKERS], np.float32)

_GLOBALS = (
    "bar_me>0",
    "bar_me",
    "bar_opp>0",
    "bar_opp",
    "res_me>0",
    "res_me",
    "res_opp>0",
    "res_opp",
    "off_me>0",
    "off_me",
    "off_opp>0",
    "off_opp",
    "unlocked_me",
    "unlocked_opp",
    "pips_me",
    "pips_opp",
    "pip_lead",
    "contact",
    "home_me",
    "home_opp",
    "mother_me_home",
    "mother_opp_home",
    "prime_me",
    "prime_opp",
    "blocks_ahead_of_opp",
    "blocks_ahead_of_me",
    "exposed_me",
    "shots_on_me",
    "exposed_opp",
    "shots_on_opp",
)


def grows_into(old: int, new: int) -> bool:
    """Whether a network of encoding ``old`` can take encoding ``new`` by new input columns."""
    while new != old and new in GROWS_FROM:
        new = GROWS_FROM[new]
    return new == old


def _thermometer(n: int) -> list[float]:
    return [float(n >= 1), float(n >= 2), float(n >= 3), max(n - 3, 0) / 2.0]


class Encoder:
    """Encodes batches of positions of one variant as network inputs."""

    def __init__(
        self,
        rules: Variant | str,
        version: int = ENCODING_VERSION,
        extra: tuple[ExtraFeatures, int] | None = None,
    ) -> None:
        """``extra``: (a feature function, its number of columns), after the version's own."""
        if version not in ENCODINGS:
            raise ValueError(f"unknown encoding version {version}")
        self.rules = get_variant(rules) if isinstance(rules, str) else rules
        self.variant = self.rules.id
        self.version = version
        self.extras: list[tuple[ExtraFeatures, int]] = []
        if version == 2:
            self.extras.append((hand_features, _hand_width()))
        self.mobility = version == 3
        if extra is not None:
            self.extras.append(extra)
        # Blocking: a lone checker owns its point; two flags more per point.
        self.owns = self.rules.runs_on_counts
        self.point_width = 12 + (2 if self.owns else 0)
        self.board_width = 24 * self.point_width + len(_GLOBALS)
        self.own_width = self.board_width + (MOBILITY_WIDTH if self.mobility else 0)
        self._rows: dict[str, int] = {}
        #: The row of a stack's colour-swapped twin (the opponent's view), keyed by the stack.
        self._swapped_rows: dict[str, int] = {}
        # Row 0 is never used: look-ups test the row with ``or``, so no stack may get 0.
        self._feat: list[list[float]] = [[0.0] * self.point_width]
        self._aux: list[list[float]] = [[0.0] * _AUX_WIDTH]
        self._table = np.zeros((0, self.point_width), dtype=np.float32)
        self._aux_table = np.zeros((_AUX_WIDTH, 0), dtype=np.float32)
        # Dutch's is_open reads the unlock flags: with both unlocked a lone checker is a blot.
        self._probe = Position(self.variant, ("",) * 25, unlocked=(True, True))
        self._row("")

    @property
    def width(self) -> int:
        """Number of inputs."""
        return self.own_width + sum(n for _, n in self.extras)

    def global_index(self, name: str) -> int:
        """The input column of a global feature (``_GLOBALS`` names)."""
        return 24 * self.point_width + _GLOBALS.index(name)

    # --- per-stack table -------------------------------------------------------------------

    def _stack_features(self, stack: str) -> tuple[list[float], list[float]]:
        """Features of ``stack`` for a roller playing X."""
        top = stack[-1:] or " "
        run = len(stack) - len(stack.rstrip(top)) if stack else 0
        me_free = run if top == X else 0
        opp_free = run if top == O else 0
        me_all, opp_all = stack.count(X), stack.count(O)
        me_below, opp_below = me_all - me_free, opp_all - opp_free
        feat = [
            *_thermometer(me_free),
            *_thermometer(opp_free),
            float(me_below > 0),
            me_below / 3.0,
            float(opp_below > 0),
            opp_below / 3.0,
        ]
        if self.owns:
            feat += [float(me_all == 1), float(opp_all == 1)]
        rules, probe = self.rules, self._probe
        swapped = swap_colours(stack)
        blocks_me = bool(stack) and not rules.is_open(probe, stack)
        aux = [
            float(me_all),
            float(opp_all),
            float(me_all > 0),
            float(opp_all > 0),
            float(bool(stack) and not rules.is_open(probe, swapped)),
            float(blocks_me),
            float(opp_free > 0),
            float(me_all > 0 and opp_free == 0),
            float(rules.is_blot(swapped)),
            float(rules.blot_effect is not None and stack == O and not blocks_me),
        ]
        return feat, aux

    def _row(self, stack: str) -> int:
        row = self._rows.get(stack)
        if row is None:
            feat, aux = self._stack_features(stack)
            row = self._rows[stack] = len(self._feat)
            self._feat.append(feat)
            self._aux.append(aux)
        return row

    def _swapped_row(self, stack: str) -> int:
        row = self._swapped_rows.get(stack)
        if row is None:
            row = self._swapped_rows[stack] = self._row(swap_colours(stack))
        return row

    def _tables(self) -> tuple[FloatArray, FloatArray]:
        """The per-stack inputs (stacks x point_width) and auxiliary columns (columns x stacks:
        a look-up gives each column as one contiguous (n, 24) block)."""
        if len(self._table) != len(self._feat):
            self._table = np.array(self._feat, dtype=np.float32)
            self._aux_table = np.ascontiguousarray(np.array(self._aux, dtype=np.float32).T)
        return self._table, self._aux_table

    # --- batches -----------------------------------------------------------------------------

    def encode(self, positions: Sequence[Position], opponent_on_roll: bool = False) -> FloatArray:
        """Inputs for ``positions`` (shape ``(len(positions), width)``, float32).

        ``opponent_on_roll``: the positions are in the frame of the player who just moved
        (X) and O is on roll, so they are encoded from O's side (as ``pos.flip()`` would be).
        """
        n = len(positions)
        if opponent_on_roll:
            # O's point q is X's point 25 - q, with the colours swapped (by the table).
            rows, lookup, first, stop, step = self._swapped_rows, self._swapped_row, 24, 0, -1
        else:
            rows, lookup, first, stop, step = self._rows, self._row, 1, 25, 1
        try:
            flat = [rows[s] for pos in positions for s in pos.points[first:stop:step]]
        except KeyError:  # a stack not seen before: add it to the tables
            flat = [
                rows.get(s) or lookup(s) for pos in positions for s in pos.points[first:stop:step]
            ]
        ids = np.array(flat, dtype=np.intp).reshape(n, 24)
        scalars = np.array(
            [(*p.bar, *p.reserve, *p.off, *p.unlocked) for p in positions], dtype=np.float32
        ).reshape(n, 8)
        if opponent_on_roll:
            scalars = scalars[:, _SWAP_SCALARS]
        table, aux_table = self._tables()
        out = np.empty((n, self.width), dtype=np.float32)
        board = self.board_width - len(_GLOBALS)
        out[:, :board] = table[ids].reshape(n, board)
        aux = aux_table[:, ids]
        backs = self._globals(scalars, aux, out[:, board : self.board_width])
        if self.mobility:
            _mobility(scalars, aux, *backs, out[:, self.board_width : self.own_width])
        if self.extras:
            moved = list(positions) if opponent_on_roll else [p.flip() for p in positions]
            col = self.own_width
            for features, width in self.extras:
                got = features(self.rules, moved)
                if got.shape != (n, width):
                    raise ValueError(f"extra features gave {got.shape}, not {(n, width)}")
                out[:, col : col + width] = got
                col += width
        return out

    def _globals(
        self, s: FloatArray, aux: FloatArray, g: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """Writes the globals (``_GLOBALS`` order) into ``g`` (n, len(_GLOBALS)); returns the
        rearmost checkers (``back_me``, ``back_opp``: the roller's numbering).

        ``s``: the scalars (n, 8) from the roller's side; ``aux``: the auxiliary columns of
        every point (columns, n, 24). Every value is a small integer before its final scaling,
        so sums in any order are exact.
        """
        n = len(s)
        # Bar, reserve and borne-off checkers: a flag and a share each, then the unlock flags.
        g[:, 0:12:2] = s[:, :6] > 0
        g[:, 1:12:2] = s[:, :6] / _DIVISORS
        g[:, 12:14] = s[:, 6:8]
        waiting = s[:, 0:2] + s[:, 2:4]  # (n, 2): the roller's, the opponent's
        # Pips, and the rearmost checkers in the roller's numbering: his highest point (25 if
        # waiting) and the opponent's lowest (0 if waiting: he enters into the roller's home
        # board; 25 if he has no checker on the board).
        pips = np.matmul(aux[_AUX_ME : _AUX_OPP + 1], _SIDE_WEIGHTS[:, :, None])[:, :, 0]
        pips += 25.0 * waiting.T  # (2, n): the roller's, the opponent's
        extreme = (aux[_AUX_HAS_ME : _AUX_HAS_OPP + 1] * _SIDE_WEIGHTS[:, None, :]).max(axis=2)
        back_me = np.where(waiting[:, 0] > 0, 25.0, extreme[0]).astype(np.float32)
        back_opp = np.where(waiting[:, 1] > 0, 0.0, 25.0 - extreme[1]).astype(np.float32)
        g[:, 14:16] = (pips / 200.0).T
        g[:, 16] = (pips[1] - pips[0]) / 50.0
        g[:, 17] = back_me > back_opp
        g[:, 18] = back_me <= 6
        g[:, 19] = back_opp >= 19
        if self.rules.has_mother:
            g[:, 20] = np.minimum(aux[_AUX_ME][:, 23], 2.0) / 2.0
            g[:, 21] = np.minimum(aux[_AUX_OPP][:, 0], 2.0) / 2.0
        else:
            g[:, 20:22] = 0.0
        blocks = aux[_AUX_BLOCKS_OPP : _AUX_BLOCKS_ME + 1]  # the roller's points, the opponent's
        g[:, 22:24] = (_longest_run(blocks.reshape(2 * n, 24)).reshape(2, n) / 6.0).T
        # Points the roller blocks that the opponent's rearmost checker still has to pass
        # (point > back_opp), and the other way round (point < back_me, i.e. 25 - point >
        # 25 - back_me).
        behind = np.stack([back_opp, 25.0 - back_me])[:, :, None]  # (2, n, 1)
        ahead = (blocks * (_SIDE_WEIGHTS[:, None, :] > behind)).sum(2)
        g[:, 24:26] = (ahead / 6.0).T
        # Blots exposed to direct shots: the roller's to the opponent's free checkers, and the
        # opponent's to the roller's.
        window = np.matmul(aux[_AUX_SHOOTS_OPP : _AUX_SHOOTS_ME + 1], _SHOT_WINDOWS)
        blots = aux[_AUX_BLOT_ME : _AUX_BLOT_OPP + 1]
        g[:, 26:30:2] = ((blots * (window > 0)).sum(2) / 3.0).T
        g[:, 27:30:2] = ((blots * window).sum(2) / 6.0).T
        return back_me, back_opp


def _mobility(
    s: FloatArray, aux: FloatArray, back_me: FloatArray, back_opp: FloatArray, m: FloatArray
) -> None:
    """Writes the mobility columns (version 3) into ``m`` (n, ``MOBILITY_WIDTH``).

    For each number ``d``, the checkers that could move it one step: while a side has checkers
    waiting (bar or reserve) only an entry counts (they must enter first); otherwise each free
    checker whose landing point is open to it, plus a bear-off when all its checkers are home
    (from point ``d``, or from its rearmost point when that is lower). The roller moves from
    index ``j`` (point ``j + 1``) to ``j - d`` and enters on point ``25 - d``; the opponent
    moves up and enters on the roller's point ``d``. In the Blocking games these are exactly
    the points a single step of ``d`` can start from (``Variant.steps``); elsewhere entering
    has other rules (Dutch), so there they approximate it."""
    free_me, free_opp = aux[_AUX_SHOOTS_ME], aux[_AUX_SHOOTS_OPP]
    open_me, open_opp = 1.0 - aux[_AUX_BLOCKS_ME], 1.0 - aux[_AUX_BLOCKS_OPP]
    waiting_me = (s[:, 0] + s[:, 2]) > 0
    waiting_opp = (s[:, 1] + s[:, 3]) > 0
    home_me, home_opp = back_me <= 6, back_opp >= 19
    # Whether the checker on top of each side's rearmost point is his (it may bear off with a
    # higher number); clipped indices only where the side is not home, so never read.
    rows = np.arange(len(s))
    rear_me = free_me[rows, np.clip(back_me.astype(np.intp) - 1, 0, 23)] > 0
    rear_opp = free_opp[rows, np.clip(back_opp.astype(np.intp) - 1, 0, 23)] > 0
    for d in range(1, 7):
        me = (free_me[:, d:] * open_me[:, :-d]).sum(1)
        me += home_me & ((free_me[:, d - 1] > 0) | ((back_me < d) & rear_me))
        me = np.where(waiting_me, open_me[:, 24 - d], me)
        opp = (free_opp[:, :-d] * open_opp[:, d:]).sum(1)
        opp += home_opp & ((free_opp[:, 24 - d] > 0) | ((back_opp > 25 - d) & rear_opp))
        opp = np.where(waiting_opp, open_opp[:, d - 1], opp)
        for side, count in ((0, me), (1, opp)):
            col = 12 * side + 2 * (d - 1)
            m[:, col] = count == 0
            m[:, col + 1] = np.minimum(count, 4.0) / 4.0


def _longest_run(flags: FloatArray) -> FloatArray:
    """Longest run of consecutive set flags per row (flags: (n, 24) of 0/1)."""
    idx = np.arange(flags.shape[1])
    # The run ending at j is j minus the last unset index up to j.
    last_gap = np.maximum.accumulate(np.where(flags > 0, -1, idx[None, :]), axis=1)
    return np.asarray((idx[None, :] - last_gap).max(axis=1), dtype=np.float32)


__all__ = ["ENCODINGS", "ENCODING_VERSION", "Encoder", "ExtraFeatures", "hand_features"]
