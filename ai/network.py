"""A small numpy multilayer perceptron: the learned evaluation of one variant.

One hidden layer of sigmoid units. The outputs are the quantities the variant's score depends
on, all from the side of the player on roll (``HEADS``):

* ``win``: the probability of winning (a tie or dead draw counts half);
* ``gammon_win`` / ``gammon_loss``: the probability of winning / losing a double game (Dutch,
  NeverFinishing: the loser bore off none; Pin games: gammon or backgammon multiplier);
* ``bg_win`` / ``bg_loss``: the Pin games' triple game (backgammon multiplier);
* ``points_win`` / ``points_loss`` (Pin games): the expected points won, and lost, as a share
  of ``POINTS_SCALE`` (the loser's pip count times the multiplier, or 2 for a mother win; a
  rare larger score counts as the scale), so that they too are bounded sigmoid outputs.

``equity`` combines them into the expected points for the player on roll. The forward pass
takes a whole batch (all candidate plays of a decision) in one call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ai.encoding import ENCODING_VERSION, ENCODINGS

FloatArray = npt.NDArray[np.float32]

#: Pin games' points heads are in units of this many points (a typical win is 30-150, a
#: gammon 150-300).
POINTS_SCALE = 400.0

_PIN_HEADS = ("win", "gammon_win", "gammon_loss", "bg_win", "bg_loss", "points_win", "points_loss")
HEADS: dict[str, tuple[str, ...]] = {
    "pin": _PIN_HEADS,
    "pin-mother": _PIN_HEADS,
    "blocking": ("win",),
    "blocking-express": ("win",),
    "dutch": ("win", "gammon_win", "gammon_loss"),
    "neverfinishing": ("win", "gammon_win", "gammon_loss"),
}
_SWAP = {
    "win": "win",
    "gammon_win": "gammon_loss",
    "gammon_loss": "gammon_win",
    "bg_win": "bg_loss",
    "bg_loss": "bg_win",
    "points_win": "points_loss",
    "points_loss": "points_win",
}


def perspective_map(heads: tuple[str, ...]) -> tuple[npt.NDArray[np.intp], FloatArray, FloatArray]:
    """How outputs change sides: ``other = offset + sign * out[perm]``."""
    perm = np.array([heads.index(_SWAP[h]) for h in heads], dtype=np.intp)
    sign = np.array([-1.0 if h == "win" else 1.0 for h in heads], dtype=np.float32)
    offset = np.array([1.0 if h == "win" else 0.0 for h in heads], dtype=np.float32)
    return perm, sign, offset


def equity_of(variant: str, heads: tuple[str, ...], out: FloatArray) -> FloatArray:
    """Expected points for the side ``out`` (shape (B, K)) is evaluated for."""
    col = {h: out[:, i] for i, h in enumerate(heads)}
    if "points_win" in col:
        return np.asarray(POINTS_SCALE * (col["points_win"] - col["points_loss"]), np.float32)
    eq = 2.0 * col["win"] - 1.0
    if "gammon_win" in col:
        eq = eq + col["gammon_win"] - col["gammon_loss"]
    return np.asarray(eq, dtype=np.float32)


@dataclass
class Network:
    """Weights and metadata of one variant's network (float32)."""

    variant: str
    heads: tuple[str, ...]
    w1: FloatArray  # (H, I)
    b1: FloatArray  # (H,)
    w2: FloatArray  # (K, H)
    b2: FloatArray  # (K,)
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(
        cls, variant: str, inputs: int, hidden: int, seed: int, encoding: int = ENCODING_VERSION
    ) -> Network:
        heads = HEADS[variant]
        rng = np.random.default_rng(seed)
        w1 = rng.normal(0.0, 1.0 / np.sqrt(inputs), (hidden, inputs)).astype(np.float32)
        w2 = rng.normal(0.0, 1.0 / np.sqrt(hidden), (len(heads), hidden)).astype(np.float32)
        b2 = np.zeros(len(heads), dtype=np.float32)
        for i, h in enumerate(heads):
            # Gammons and big scores are the exception.
            b2[i] = 0.0 if h == "win" else -2.0
        meta = {"encoding_version": encoding, "inputs": inputs, "hidden": hidden}
        return cls(variant, heads, w1, np.zeros(hidden, np.float32), w2, b2, meta)

    @property
    def inputs(self) -> int:
        return int(self.w1.shape[1])

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[0])

    def forward(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """(hidden activations (B, H), outputs (B, K)) for inputs ``x`` (B, I)."""
        h = _sigmoid(x @ self.w1.T + self.b1)
        return h, _sigmoid(h @ self.w2.T + self.b2)

    def evaluate(self, x: FloatArray) -> FloatArray:
        """Outputs (B, K) for inputs ``x`` (B, I), from the side of the player on roll."""
        return self.forward(x)[1]

    def equity(self, x: FloatArray) -> FloatArray:
        """Expected points (B,) for the player on roll."""
        return equity_of(self.variant, self.heads, self.evaluate(x))

    def grow_inputs(self, inputs: int) -> None:
        """Take ``inputs`` inputs, new ones (appended features) with zero weights."""
        if inputs < self.inputs:
            raise ValueError("a network cannot lose inputs")
        pad = np.zeros((self.hidden, inputs - self.inputs), dtype=np.float32)
        self.w1 = np.concatenate([self.w1, pad], axis=1)
        self.meta["inputs"] = inputs

    def grow_hidden(self, hidden: int, seed: int) -> None:
        """Take ``hidden`` hidden units: new ones with random input weights (as a new network's)
        and none on the outputs, so the outputs stay what they were until training uses them."""
        if hidden < self.hidden:
            raise ValueError("a network cannot lose hidden units")
        extra = hidden - self.hidden
        rng = np.random.default_rng(seed)
        rows = rng.normal(0.0, 1.0 / np.sqrt(self.inputs), (extra, self.inputs))
        self.w1 = np.concatenate([self.w1, rows.astype(np.float32)], axis=0)
        self.b1 = np.concatenate([self.b1, np.zeros(extra, np.float32)])
        self.w2 = np.concatenate([self.w2, np.zeros((len(self.heads), extra), np.float32)], axis=1)
        self.meta["hidden"] = hidden

    # --- files -------------------------------------------------------------------------------

    def arrays(self) -> dict[str, FloatArray]:
        return {"w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2}

    def save(self, path: Path) -> None:
        """Weights to ``path`` (.npz, float32) and metadata to the same name with .json."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        # Contiguous copies: training keeps the weights as views into one parameter vector.
        arrays = {k: np.ascontiguousarray(v) for k, v in self.arrays().items()}
        np.savez(tmp, w1=arrays["w1"], b1=arrays["b1"], w2=arrays["w2"], b2=arrays["b2"])
        tmp.replace(path)
        meta = {**self.meta, "variant": self.variant, "heads": list(self.heads)}
        meta_path = path.with_suffix(".json")
        tmp_meta = meta_path.with_name(meta_path.name + ".tmp")
        tmp_meta.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        tmp_meta.replace(meta_path)

    @classmethod
    def load(cls, path: Path, variant: str | None = None) -> Network:
        """Read weights saved by ``save``; raises ValueError on anything inconsistent."""
        meta = json.loads(path.with_suffix(".json").read_text())
        if not isinstance(meta, dict):
            raise ValueError(f"{path}: metadata is not an object")
        name = meta.get("variant")
        if name not in HEADS or (variant is not None and name != variant):
            raise ValueError(f"{path}: weights are for {name!r}, not {variant!r}")
        heads = HEADS[name]
        if tuple(meta.get("heads", ())) != heads:
            raise ValueError(f"{path}: output heads {meta.get('heads')} != {list(heads)}")
        if meta.get("encoding_version") not in ENCODINGS:
            raise ValueError(f"{path}: unknown encoding version {meta.get('encoding_version')}")
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k], dtype=np.float32) for k in ("w1", "b1", "w2", "b2")}
        w1, b1, w2, b2 = arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"]
        hidden, inputs = w1.shape if w1.ndim == 2 else (-1, -1)
        if (
            b1.shape != (hidden,)
            or w2.shape != (len(heads), hidden)
            or b2.shape != (len(heads),)
            or meta.get("inputs") != inputs
            or meta.get("hidden") != hidden
        ):
            raise ValueError(f"{path}: weight shapes do not match the metadata")
        if not all(np.isfinite(a).all() for a in arrays.values()):
            raise ValueError(f"{path}: weights are not finite")
        return cls(name, heads, w1, b1, w2, b2, meta)


def _sigmoid(z: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0))), dtype=np.float32)


__all__ = ["HEADS", "POINTS_SCALE", "Network", "equity_of", "perspective_map"]
