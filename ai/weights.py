"""Fitted evaluation weights per variant (written by ``bench/ai.py --fit``; empty = hand weights).

Each entry maps "contact"/"race" to a row over ``ai.features.feature_names()``.
"""

from __future__ import annotations

WEIGHTS: dict[str, dict[str, list[float]]] = {}
