"""Self-play of the strongest level's evaluation at 0 ply, shared by the benchmarks that study
an evaluation on its own games (``bench.calibration``, ``bench.decision_stakes``)."""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

import ai  # noqa: F401  (numpy thread limits before numpy works)
from ai.features import FloatArray
from ai.learned import evaluator
from engine import VARIANTS, Play, Variant
from engine.game import GameState


@dataclass(frozen=True)
class Turn:
    """One decision of a self-play game: the state before it, the legal plays, their equities
    (None when there was no choice), the chosen play's index and the state after it."""

    game: int
    rng: random.Random
    before: GameState
    plays: list[Play]
    equity: FloatArray | None
    chosen: int
    after: GameState


def self_play(rules: Variant, games: int, seed: int) -> Iterator[Turn]:
    """Every decision of ``games`` games, game ``g`` with dice from ``random.Random(seed + g)``
    (the same generator is handed out: a caller drawing from it does so between the turns)."""
    ev = evaluator(rules.id, True)
    for g in range(games):
        rng = random.Random(seed + g)
        state = GameState.new(rules.id, ("a", "b"), rng)
        while not state.is_over:
            plays = state.legal_plays()
            equity = None
            i = 0
            if len(plays) > 1:
                equity = ev.evaluate(rules, [p.after for p in plays])[0]
                i = int(np.argmax(equity))
            after = state._apply(plays[i], rng, auto=False)
            yield Turn(g, rng, state, plays, equity, i, after)
            state = after


def variant_parser(doc: str | None, games: int, seed: int) -> argparse.ArgumentParser:
    """The options of a self-play benchmark: --variants, --games, --seed, --smoke."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    parser.add_argument("--variants", default="blocking,blocking-express")
    parser.add_argument("--games", type=int, default=games)
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--smoke", action="store_true", help="two games per variant (CI)")
    return parser


def chosen_variants(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The variants asked for (``--smoke``: two games each); a usage error for bad ones."""
    if args.smoke:
        args.games = 2
    variants = [v for v in args.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown or args.games < 1:
        parser.error(f"bad arguments (unknown variants: {unknown})")
    return variants
