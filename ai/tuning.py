"""Fitting the evaluation's weights on self-play games (used by ``bench/ai.py --fit``).

Each sample is a position right after a play (mover as X, O on roll) labelled with whether the
mover went on to win. A logistic regression per variant and phase (contact / race), L2-
regularised towards the current weights, gives the new rows; ``write_weights`` stores them in
``ai/hand_weights.py``. A change is only kept after a regression match (``bench/ai.py --match``).
"""

from __future__ import annotations

import pprint
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ai.evaluation import evaluator_for
from ai.features import FloatArray
from engine import Position, get_variant


def fit_logistic(
    rows: FloatArray, labels: FloatArray, prior: FloatArray, l2: float = 1.0, steps: int = 30
) -> FloatArray:
    """Newton's method for logistic regression with an L2 pull towards ``prior``."""
    w = prior.copy()
    n = rows.shape[0]
    eye = np.eye(rows.shape[1])
    for _ in range(steps):
        z = np.clip(rows @ w, -30.0, 30.0)
        p = 1.0 / (1.0 + np.exp(-z))
        grad = rows.T @ (p - labels) / n + l2 * (w - prior) / n
        hess = (rows * (p * (1.0 - p))[:, None]).T @ rows / n + l2 * eye / n
        step = np.linalg.solve(hess + 1e-9 * eye, grad)
        w = w - step
        if float(np.abs(step).max()) < 1e-6:
            break
    return w


def fit_variant(
    variant_id: str, samples: Sequence[tuple[Position, float]], l2: float = 20.0
) -> dict[str, list[float]]:
    """New contact/race rows for one variant from (position, target) samples: whether the
    mover won (``--fit``), or a winning chance to imitate (``--distill``)."""
    rules = get_variant(variant_id)
    ev = evaluator_for(variant_id)
    positions = [p for p, _ in samples]
    labels = np.array([float(target) for _, target in samples])
    rows, contact = ev.features(rules, positions)
    out: dict[str, list[float]] = {}
    for phase, mask, prior in (
        ("contact", contact > 0, ev.contact),
        ("race", contact == 0, ev.race),
    ):
        if int(mask.sum()) < 200:  # too few to say anything: keep the current row
            out[phase] = [float(x) for x in prior]
            continue
        w = fit_logistic(rows[mask], labels[mask], prior, l2=l2)
        out[phase] = [round(float(x), 4) for x in w]
    return out


def write_weights(path: Path, weights: dict[str, dict[str, list[float]]]) -> None:
    """Write ``ai/hand_weights.py`` (a plain literal, reviewed like code)."""
    body = pprint.pformat(weights, width=96, sort_dicts=True, compact=True)
    path.write_text(
        '"""Fitted evaluation weights per variant (written by ``bench/ai.py --fit``; a variant\n'
        "missing here uses the hand weights in ``ai.evaluation``).\n\n"
        'Each entry maps "contact"/"race" to a row over ``ai.features.feature_names()``.\n'
        '"""\n\n'
        "from __future__ import annotations\n\n"
        f"WEIGHTS: dict[str, dict[str, list[float]]] = {body}\n"
    )
