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
batch of positions costs 24 dictionary look-ups each plus vectorised numpy.

Versions (``ENCODINGS``; weights record theirs and are refused when unknown): 1 is the board
encoding above; 2 appends the hand evaluation's features (``ai.features``: both sides' rows and
the contact flag), which cost about three times the board encoding per position. Further
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
ENCODINGS: dict[int, str] = {1: "board", 2: "board + hand evaluation features"}

FloatArray = npt.NDArray[np.float32]
#: Extra feature columns for a batch: (rules, positions) -> (B, n) array. The positions are in
#: the frame of the player who has just moved (X), the roller being O: the hand evaluation's.
ExtraFeatures = Callable[[Variant, Sequence[Position]], FloatArray]


def hand_features(rules: Variant, positions: Sequence[Position]) -> FloatArray:
    """The hand evaluation's features of both sides and its contact flag (encoding 2)."""
    from ai.features import feature_matrix  # the hand evaluation's module, only for version 2

    rows, contact = feature_matrix(rules, positions, mother=rules.id == "pin-mother")
    # Its last column is the constant bias input: the network has biases of its own.
    return np.concatenate([rows[:, :-1], contact[:, None]], axis=1).astype(np.float32)


def _hand_width() -> int:
    from ai.features import N_SIDE

    return 2 * N_SIDE + 1


#: Columns of the per-stack auxiliary table (not network inputs; used for the globals).
_AUX_ME, _AUX_OPP, _AUX_BLOCKS_OPP, _AUX_BLOCKS_ME, _AUX_BLOT_ME, _AUX_FREE_OPP = range(6)
_AUX_WIDTH = 6

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
        if version >= 2:
            self.extras.append((hand_features, _hand_width()))
        if extra is not None:
            self.extras.append(extra)
        # Blocking: a lone checker owns its point; two flags more per point.
        self.owns = self.rules.runs_on_counts
        self.point_width = 12 + (2 if self.owns else 0)
        self.board_width = 24 * self.point_width + len(_GLOBALS)
        self._rows: dict[str, int] = {}
        #: The row of a stack's colour-swapped twin (the opponent's view), keyed by the stack.
        self._swapped_rows: dict[str, int] = {}
        # Row 0 is never used: look-ups test the row with ``or``, so no stack may get 0.
        self._feat: list[list[float]] = [[0.0] * self.point_width]
        self._aux: list[list[float]] = [[0.0] * _AUX_WIDTH]
        self._table = np.zeros((0, self.point_width), dtype=np.float32)
        self._aux_table = np.zeros((0, _AUX_WIDTH), dtype=np.float32)
        # Dutch's is_open reads the unlock flags: with both unlocked a lone checker is a blot.
        self._probe = Position(self.variant, ("",) * 25, unlocked=(True, True))
        self._row("")

    @property
    def width(self) -> int:
        """Number of inputs."""
        return self.board_width + sum(n for _, n in self.extras)

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
        aux = [
            float(me_all),
            float(opp_all),
            float(bool(stack) and not rules.is_open(probe, swapped)),
            float(bool(stack) and not rules.is_open(probe, stack)),
            float(rules.is_blot(swapped)),
            float(opp_free),
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
        if len(self._table) != len(self._feat):
            self._table = np.array(self._feat, dtype=np.float32)
            self._aux_table = np.array(self._aux, dtype=np.float32)
        return self._table, self._aux_table

    # --- batches -----------------------------------------------------------------------------

    def encode(self, positions: Sequence[Position], opponent_on_roll: bool = False) -> FloatArray:
        """Inputs for ``positions`` (shape ``(len(positions), width)``, float32).

        ``opponent_on_roll``: the positions are in the frame of the player who just moved
        (X) and O is on roll, so they are encoded from O's side (as ``pos.flip()`` would be).
        """
        n = len(positions)
        rows = self._swapped_rows if opponent_on_roll else self._rows
        lookup = self._swapped_row if opponent_on_roll else self._row
        ids = np.empty((n, 24), dtype=np.intp)
        scalars = np.empty((n, 8), dtype=np.float32)
        for i, pos in enumerate(positions):
            pts = pos.points
            if opponent_on_roll:
                # O's point q is X's point 25 - q, with the colours swapped (by the table).
                stacks = pts[24:0:-1]
                a, b = 1, 0
            else:
                stacks = pts[1:]
                a, b = 0, 1
            ids[i] = [rows.get(stack) or lookup(stack) for stack in stacks]
            scalars[i] = (
                pos.bar[a],
                pos.bar[b],
                pos.reserve[a],
                pos.reserve[b],
                pos.off[a],
                pos.off[b],
                pos.unlocked[a],
                pos.unlocked[b],
            )
        table, aux_table = self._tables()
        board = table[ids].reshape(n, 24 * self.point_width)
        aux = aux_table[ids]  # (n, 24, aux)
        out = np.concatenate([board, self._globals(scalars, aux)], axis=1)
        if self.extras:
            moved = list(positions) if opponent_on_roll else [p.flip() for p in positions]
            columns = [out]
            for features, width in self.extras:
                got = features(self.rules, moved)
                if got.shape != (n, width):
                    raise ValueError(f"extra features gave {got.shape}, not {(n, width)}")
                columns.append(got.astype(np.float32))
            out = np.concatenate(columns, axis=1)
        return out

    def _globals(self, s: FloatArray, aux: FloatArray) -> FloatArray:
        n = len(s)
        bar_me, bar_opp, res_me, res_opp, off_me, off_opp = (s[:, k] for k in range(6))
        me = aux[:, :, _AUX_ME]
        opp = aux[:, :, _AUX_OPP]
        points = np.arange(1, 25, dtype=np.float32)
        waiting_me = bar_me + res_me
        waiting_opp = bar_opp + res_opp
        pips_me = me @ points + 25.0 * waiting_me
        pips_opp = opp @ points[::-1] + 25.0 * waiting_opp
        # Rearmost checkers in the roller's numbering: his highest point (25 if waiting) and
        # the opponent's lowest (0 if waiting: he enters into the roller's home board).
        has_me = me > 0
        has_opp = opp > 0
        back_me = np.where(has_me.any(1), 24 - np.argmax(has_me[:, ::-1], axis=1), 0)
        back_me = np.where(waiting_me > 0, 25, back_me).astype(np.float32)
        back_opp = np.where(has_opp.any(1), 1 + np.argmax(has_opp, axis=1), 25)
        back_opp = np.where(waiting_opp > 0, 0, back_opp).astype(np.float32)
        contact = (back_me > back_opp).astype(np.float32)
        home_me = (back_me <= 6).astype(np.float32)
        home_opp = (back_opp >= 19).astype(np.float32)
        if self.variant == "pin-mother":
            mother_me = np.minimum(me[:, 23], 2.0) / 2.0
            mother_opp = np.minimum(opp[:, 0], 2.0) / 2.0
        else:
            mother_me = mother_opp = np.zeros(n, dtype=np.float32)
        blocks_opp = aux[:, :, _AUX_BLOCKS_OPP]
        blocks_me = aux[:, :, _AUX_BLOCKS_ME]
        prime_me = _longest_run(blocks_opp) / 6.0
        prime_opp = _longest_run(blocks_me) / 6.0
        idx = np.arange(24)[None, :]
        # Points the roller blocks that the opponent's rearmost checker still has to pass.
        ahead_of_opp = (blocks_opp * (idx + 1 > back_opp[:, None])).sum(1) / 6.0
        ahead_of_me = (blocks_me * (idx + 1 < back_me[:, None])).sum(1) / 6.0
        exposed_me, shots_me = _exposure(aux[:, :, _AUX_BLOT_ME], aux[:, :, _AUX_FREE_OPP])
        # The opponent's blots, mirrored into his numbering, against the roller's free
        # checkers (blot/free flags of the roller's side read from the other columns).
        blot_opp = ((opp == 1) & (me == 0) & (aux[:, :, _AUX_BLOCKS_ME] == 0)).astype(np.float32)
        if not self.rules.blot_effect:
            blot_opp = np.zeros_like(blot_opp)
        free_me = np.where(aux[:, :, _AUX_FREE_OPP] == 0, me, 0.0)
        exposed_opp, shots_opp = _exposure(blot_opp[:, ::-1], free_me[:, ::-1])
        cols = [
            (bar_me > 0),
            bar_me / 4.0,
            (bar_opp > 0),
            bar_opp / 4.0,
            (res_me > 0),
            res_me / NUM_CHECKERS,
            (res_opp > 0),
            res_opp / NUM_CHECKERS,
            (off_me > 0),
            off_me / NUM_CHECKERS,
            (off_opp > 0),
            off_opp / NUM_CHECKERS,
            s[:, 6],
            s[:, 7],
            pips_me / 200.0,
            pips_opp / 200.0,
            (pips_opp - pips_me) / 50.0,
            contact,
            home_me,
            home_opp,
            mother_me,
            mother_opp,
            prime_me,
            prime_opp,
            ahead_of_opp,
            ahead_of_me,
            exposed_me,
            shots_me,
            exposed_opp,
            shots_opp,
        ]
        return np.stack([np.asarray(c, dtype=np.float32) for c in cols], axis=1)


def _longest_run(flags: FloatArray) -> FloatArray:
    """Longest run of consecutive set flags per row (flags: (n, 24) of 0/1)."""
    idx = np.arange(flags.shape[1])
    # The run ending at j is j minus the last unset index up to j.
    last_gap = np.maximum.accumulate(np.where(flags > 0, -1, idx[None, :]), axis=1)
    return np.asarray((idx[None, :] - last_gap).max(axis=1), dtype=np.float32)


def _exposure(blots: FloatArray, shooters: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Blots the opponent can hit with a single die, and how many of his direct shots there are.

    In the roller's numbering the opponent moves upwards, so a blot on point ``p`` is shot at
    from points ``p-6..p-1`` (his entering checkers count from point 0: not modelled).
    ``blots``, ``shooters``: (n, 24) flags / checker counts.
    """
    present = (shooters > 0).astype(np.float32)
    padded = np.concatenate([np.zeros((len(present), 6), dtype=np.float32), present], axis=1)
    csum = np.concatenate([np.zeros((len(present), 1), dtype=np.float32), padded.cumsum(1)], 1)
    # Shooter points among p-6..p-1 for each blot point p (index j = p-1).
    window = csum[:, 6:30] - csum[:, 0:24]
    shots = (blots * window).sum(1)
    exposed = (blots * (window > 0)).sum(1)
    return (exposed / 3.0).astype(np.float32), (shots / 6.0).astype(np.float32)


__all__ = ["ENCODINGS", "ENCODING_VERSION", "Encoder", "ExtraFeatures", "hand_features"]
