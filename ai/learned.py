"""The learned evaluations: a network per variant (``ai/weights/VARIANT.npz`` + ``.json``),
trained by self-play (``python -m ai.train``), behind the same interface as the hand evaluation.

``evaluator(variant_id, learned=True)`` is what the levels and the search call: the learned
evaluation where its weights are shipped and load, else the hand evaluation (with a log line
saying why). Weights are shipped only for the variants where they measured better than the
hand evaluation, so "where it measures better" is decided by which files exist.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ai.encoding import Encoder
from ai.evaluation import evaluator_for
from ai.network import POINTS_SCALE, Network, perspective_map
from ai.types import MatchContext
from engine import Position, Variant, get_variant

log = logging.getLogger(__name__)

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"

Array = npt.NDArray[np.float64]


class PositionEvaluator(Protocol):
    """What the levels and the search need of an evaluation."""

    def evaluate(
        self, rules: Variant, positions: Sequence[Position], match: MatchContext | None = None
    ) -> tuple[Array, Array]:
        """(equity in expected points, winning chance) for X in each position, O on roll."""
        ...


class LearnedEvaluator:
    """A variant's network as an evaluation of positions right after X's play (O on roll)."""

    def __init__(self, net: Network) -> None:
        self.net = net
        self.variant_id = net.variant
        self.encoder = Encoder(get_variant(net.variant), int(net.meta["encoding_version"]))
        if self.encoder.width != net.inputs:
            raise ValueError(
                f"{net.variant}: the network takes {net.inputs} inputs, "
                f"the encoding gives {self.encoder.width}"
            )
        self._perm, self._sign, self._offset = perspective_map(net.heads)
        self._col = {h: i for i, h in enumerate(net.heads)}

    def outputs(self, positions: Sequence[Position]) -> Array:
        """The network's heads (B, K) for X in each position (X has played, O on roll)."""
        x = self.encoder.encode(positions, opponent_on_roll=True)
        out = self.net.evaluate(x)  # O's side: he is on roll
        return np.asarray(self._offset + self._sign * out[:, self._perm], dtype=np.float64)

    def evaluate(
        self, rules: Variant, positions: Sequence[Position], match: MatchContext | None = None
    ) -> tuple[Array, Array]:
        """(equity in expected points, winning chance) for X in each position, O on roll.

        In a match, points beyond what a side still needs do not count (as in the hand
        evaluation); finished games are valued exactly.
        """
        n = len(positions)
        if n == 0:
            return np.zeros(0), np.zeros(0)
        out = self.outputs(positions)
        col = self._col
        p = out[:, col["win"]]
        need_x = need_o = float("inf")
        cube = 1.0
        if match is not None and match.length > 0:
            need_x = float(max(match.length - match.score_mover, 1))
            need_o = float(max(match.length - match.score_opponent, 1))
            cube = float(max(match.cube, 1))
        if "points_win" in col:
            # Pin scoring: expected points given a win, capped by the match as a whole.
            eps = 1e-6
            per_win = POINTS_SCALE * out[:, col["points_win"]] / np.maximum(p, eps)
            per_loss = POINTS_SCALE * out[:, col["points_loss"]] / np.maximum(1.0 - p, eps)
            win = np.minimum(np.maximum(per_win, 1.0) * cube, need_x)
            lose = np.minimum(np.maximum(per_loss, 1.0) * cube, need_o)
            equity = p * win - (1.0 - p) * lose
        elif "gammon_win" in col:
            gw = np.minimum(out[:, col["gammon_win"]], p)
            gl = np.minimum(out[:, col["gammon_loss"]], 1.0 - p)
            one_x, two_x = min(cube, need_x), min(2.0 * cube, need_x)
            one_o, two_o = min(cube, need_o), min(2.0 * cube, need_o)
            equity = (p - gw) * one_x + gw * two_x - (1.0 - p - gl) * one_o - gl * two_o
        else:
            equity = p * min(cube, need_x) - (1.0 - p) * min(cube, need_o)
        equity = np.asarray(equity, dtype=np.float64)
        for i, pos in enumerate(positions):
            if pos.off[0] == 15 or rules.mother_may_end(pos):
                result = rules.result(pos)
                if result is None:
                    continue
                if result.winner is None:
                    p[i], equity[i] = 0.5, 0.0
                elif result.winner == "X":
                    p[i], equity[i] = 1.0, min(result.points * cube, need_x)
                else:
                    p[i], equity[i] = 0.0, -min(result.points * cube, need_o)
        return equity, np.asarray(p, dtype=np.float64)


def load_learned(variant_id: str, directory: Path = WEIGHTS_DIR) -> LearnedEvaluator | None:
    """The learned evaluation of ``variant_id`` from ``directory``; None (logged) if its weights
    are missing or cannot be used."""
    path = directory / f"{variant_id}.npz"
    if not path.exists():
        log.info("no learned weights for %s (%s): using the hand evaluation", variant_id, path)
        return None
    try:
        return LearnedEvaluator(Network.load(path, variant_id))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning(
            "learned weights for %s failed to load (%s): using the hand evaluation", variant_id, exc
        )
        return None


_LOADED: dict[str, LearnedEvaluator | None] = {}
_ENABLED = True


def use_learned(enabled: bool) -> bool:
    """Switch the learned evaluations on or off for this process (benchmarks compare the
    strongest level with and without them); returns the previous setting."""
    global _ENABLED
    previous, _ENABLED = _ENABLED, enabled
    return previous


def learned_for(variant_id: str) -> LearnedEvaluator | None:
    """The shipped learned evaluation of ``variant_id`` (loaded once per process), or None."""
    if variant_id not in _LOADED:
        _LOADED[variant_id] = load_learned(variant_id)
    return _LOADED[variant_id]


def evaluator(variant_id: str, learned: bool) -> PositionEvaluator:
    """The evaluation a level uses: the learned one if asked for and available, else the hand
    evaluation."""
    if learned and _ENABLED:
        got = learned_for(variant_id)
        if got is not None:
            return got
    return evaluator_for(variant_id)


__all__ = [
    "WEIGHTS_DIR",
    "LearnedEvaluator",
    "PositionEvaluator",
    "evaluator",
    "learned_for",
    "load_learned",
    "use_learned",
]
