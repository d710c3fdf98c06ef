"""Training checkpoints: the network with its game count, dice state, learning curve and
settings; the settings a resumed run changed, the command that reproduces a run, and shipping a
checkpoint to the weights the bot loads."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai.encoding import ENCODING_VERSION
from ai.learned import LearnedEvaluator
from ai.network import Network
from engine import get_variant
from engine.game import GameState

#: Defaults of a new run's settings.
HIDDEN = 80
ALPHA = 0.1
LAMBDA = 0.7


@dataclass
class Checkpoint:
    net: Network
    games: int
    rng_state: Any
    curve: list[dict[str, Any]]
    config: dict[str, Any]


def save_checkpoint(ck: Checkpoint, directory: Path) -> Path:
    path = directory / f"{ck.net.variant}.npz"
    ck.net.meta.update(
        {
            "games": ck.games,
            "curve": ck.curve,
            "config": ck.config,
            "rng_state": _rng_to_json(ck.rng_state),
            "saved": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
    )
    ck.net.save(path)
    return path


def load_checkpoint(path: Path, variant: str) -> Checkpoint:
    net = Network.load(path, variant)
    meta = net.meta
    return Checkpoint(
        net,
        int(meta["games"]),
        _rng_from_json(meta["rng_state"]),
        list(meta.get("curve", [])),
        dict(meta["config"]),
    )


def _rng_to_json(state: Any) -> list[Any]:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _rng_from_json(data: list[Any]) -> Any:
    return (data[0], tuple(data[1]), data[2])


# --- shipping ------------------------------------------------------------------------------


#: The settings a resumed run may change, with their command-line options and defaults.
_SETTINGS = {
    "alpha": ("--alpha", ALPHA),
    "hidden": ("--hidden", HIDDEN),
    "encoding_version": ("--encoding", ENCODING_VERSION),
    "chain_lookahead": ("--chain-lookahead", 0),
}


def record_change(ck: Checkpoint, name: str, old: Any, new: Any) -> None:
    """Note in the config that setting ``name`` went from ``old`` to ``new`` at this game (the
    shipped command replays the run in segments, one per change)."""
    changes: list[dict[str, Any]] = ck.config.setdefault("changes", [])
    if not changes or changes[-1]["games"] != ck.games:
        changes.append({"games": ck.games})
    last = changes[-1]
    last[name] = [last[name][0] if name in last else old, new]
    ck.config[name] = new


def _command(variant: str, ck: Checkpoint) -> str:
    """The training command that reproduces the checkpoint."""
    changes: list[dict[str, Any]] = ck.config.get("changes", [])
    first = changes[0]["games"] if changes else ck.games
    command = f"python -m ai.train {variant} --seed {ck.config['seed']} --games {first}"
    for name, (option, default) in _SETTINGS.items():
        initial = next((c[name][0] for c in changes if name in c), ck.config.get(name, default))
        if initial != default and not (name == "hidden" and "init_from" in ck.config):
            command += f" {option} {initial}"
    base = ck.config.get("init_from")
    if isinstance(base, dict):
        command = (
            f"python -m ai.train {base['variant']} --seed {base['seed']} --games {base['games']} "
            f"--dir D && {command} --init-from D/{base['variant']}.npz"
        )
    # Each change of a setting is a resumed run from the game it happened at.
    ends = [*(c["games"] for c in changes[1:]), ck.games]
    for change, end in zip(changes, ends[: len(changes)], strict=True):
        command += f" && python -m ai.train {variant} --resume --games {end - change['games']}"
        for name, (option, _) in _SETTINGS.items():
            if name in change:
                command += f" {option} {change[name][1]}"
    return command


def known_evaluation(ev: LearnedEvaluator, seed: int = 1) -> dict[str, Any]:
    """A reference evaluation recorded with shipped weights (their test recomputes it): the
    first play (by text) of the first roll of a game with seeded dice."""
    rules = get_variant(ev.variant_id)
    state = GameState.new(ev.variant_id, ("a", "b"), random.Random(seed))
    play = sorted(state.legal_plays(), key=lambda p: p.text)[0]
    outputs = ev.outputs([play.after])[0]
    equity, _ = ev.evaluate(rules, [play.after])
    return {
        "seed": seed,
        "play": play.text,
        "outputs": [round(float(v), 7) for v in outputs],
        "equity": round(float(equity[0]), 6),
    }


def ship(variant: str, source: Path, target: Path, benchmark: dict[str, Any]) -> Path:
    """Copy a checkpoint to the shipped weights with their metadata (without the dice state)."""
    ck = load_checkpoint(source / f"{variant}.npz", variant)
    net = ck.net
    meta = {k: v for k, v in net.meta.items() if k not in ("rng_state", "saved")}
    meta.update(
        {
            "games": ck.games,
            "seed": ck.config["seed"],
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "benchmark": benchmark,
            "check": known_evaluation(LearnedEvaluator(net)),
            "trained_by": _command(variant, ck),
        }
    )
    net.meta = meta
    path = target / f"{variant}.npz"
    net.save(path)
    return path
