"""TD(λ) self-play training of a variant's learned evaluation (numpy only).

    python -m ai.train VARIANT [--games N | --minutes M] [--seed S] [--resume] [--dir DIR]

The games are played by the engine's own game flow (``engine.game.GameState``: exact rules,
Express chains included); both sides are the network choosing greedily among all legal plays,
whose resulting positions are evaluated in one batch. After every decision the weights move
towards the value of the next position (TD(λ) with eligibility traces, Tesauro's TD-Gammon
scheme), and at the end of the game towards the result (win, gammons, points).

Checkpoints (weights, game count, the dice generator's state, the learning curve) are written
at game boundaries every ``--checkpoint-every`` games, at the end and on SIGTERM/SIGINT, so
``--resume`` continues exactly where the run stopped: a run of N games then M resumed games
ends with the same weights as one run of N+M games with the same seed. ``--games N`` and
``--minutes M`` bound this run (not the total).

Progress is printed every ``--eval-every`` games: games trained, the greedy network's win rate
and points per game (1-point games, as in ``bench/ai.py``) against the benchmark's greedy
baseline (the hand evaluation at 0 ply) over a small fixed sample (``--eval-games`` games, the
same seeded dice each time, seats alternating), and games per minute of training. Each line is also
added to the learning curve in the checkpoint metadata.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

# Self-play (ai.selfplay) and checkpoints (ai.checkpoint) live in their own modules; their
# names are still imported from here (tests, bench/train.py, the weights README).
from ai.checkpoint import ALPHA as ALPHA
from ai.checkpoint import HIDDEN as HIDDEN
from ai.checkpoint import LAMBDA as LAMBDA
from ai.checkpoint import Checkpoint as Checkpoint
from ai.checkpoint import known_evaluation as known_evaluation
from ai.checkpoint import load_checkpoint as load_checkpoint
from ai.checkpoint import record_change
from ai.checkpoint import save_checkpoint as save_checkpoint
from ai.checkpoint import ship as ship
from ai.encoding import ENCODING_VERSION, ENCODINGS, Encoder, grows_into
from ai.learned import WEIGHTS_DIR
from ai.network import HEADS, Network
from ai.selfplay import BASELINE_NAME as BASELINE_NAME
from ai.selfplay import EVAL_SEED as EVAL_SEED
from ai.selfplay import ONE_POINT as ONE_POINT
from ai.selfplay import Learner as Learner
from ai.selfplay import NetPlayer as NetPlayer
from ai.selfplay import Opponent as Opponent
from ai.selfplay import benchmark_player as benchmark_player
from ai.selfplay import greedy_baseline as greedy_baseline
from ai.selfplay import play_match as play_match
from ai.selfplay import result_targets as result_targets
from ai.selfplay import self_play_game as self_play_game
from engine import Variant, get_variant

VARIANTS = tuple(HEADS)
DEFAULT_DIR = Path("data/train")
#: Checkpoints committed to the repository, resumed from when ``--dir`` has none.
COMMITTED_DIR = Path(__file__).resolve().parent / "checkpoints"


# --- command line --------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m ai.train", description=__doc__.split("\n\n")[0])
    p.add_argument("variant", choices=VARIANTS)
    bound = p.add_mutually_exclusive_group()
    bound.add_argument("--games", type=int, help="train this many games in this run")
    bound.add_argument("--minutes", type=float, help="train for this many minutes")
    p.add_argument("--seed", type=int, default=1, help="seed of weights and dice (default 1)")
    p.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    p.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="checkpoint directory")
    p.add_argument(
        "--hidden",
        type=int,
        help=f"hidden units (default {HIDDEN}); with --resume, grow the network to this many "
        "(new units start with no weight on the outputs: nothing learned is lost)",
    )
    p.add_argument(
        "--alpha",
        type=float,
        help=f"learning rate (default {ALPHA}); with --resume, the rate from this game on (the "
        "change is recorded, and the shipped command reproduces it)",
    )
    p.add_argument("--lam", type=float, default=LAMBDA)
    p.add_argument(
        "--objective",
        choices=("points", "win"),
        default="points",
        help="what self-play maximises in a new run: expected points (default) or the winning "
        "chance (1-point games; pin-mother, where a mother win is worth only 2 points)",
    )
    p.add_argument(
        "--encoding",
        type=int,
        choices=sorted(ENCODINGS),
        help=f"input encoding of a new network (default {ENCODING_VERSION}); with --resume, "
        "grow the checkpoint's network to it",
    )
    p.add_argument(
        "--init-from",
        type=Path,
        metavar="NPZ",
        help="a new run starts from this network (another variant's, with the same inputs and "
        "heads: blocking-express from blocking) instead of random weights",
    )
    p.add_argument(
        "--chain-lookahead",
        type=int,
        metavar="K",
        help="Express: self-play values the best K plays of a chain decision where the chain "
        "ends (default 0: as they stand); with --resume, from this game on (recorded)",
    )
    p.add_argument("--eval-every", type=int, default=500, help="games between progress lines")
    p.add_argument("--eval-games", type=int, default=100, help="games of the fixed sample")
    p.add_argument("--checkpoint-every", type=int, default=500)
    p.add_argument(
        "--ship",
        action="store_true",
        help="copy the checkpoint to the shipped weights (ai/weights/) instead of training",
    )
    p.add_argument("--benchmark", default="{}", help="--ship: benchmark figures (a JSON object)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if (args.games or 0) < 0 or (args.minutes or 0) < 0:
        print("error: --games/--minutes must not be negative", file=sys.stderr)
        return 2
    if args.ship:
        try:
            figures = json.loads(args.benchmark)
            path = ship(args.variant, args.dir, WEIGHTS_DIR, figures)
        except (OSError, ValueError, KeyError) as exc:
            print(f"error: cannot ship {args.variant}: {exc}", file=sys.stderr)
            return 1
        print(f"shipped {path}", flush=True)
        return 0
    rules = get_variant(args.variant)
    if args.chain_lookahead is not None and (
        args.chain_lookahead < 0 or (args.chain_lookahead and not rules.chains_doubles)
    ):
        print(
            "error: --chain-lookahead takes a count >= 0, and only in a variant with chains",
            file=sys.stderr,
        )
        return 2
    rng = random.Random(args.seed)
    ck: Checkpoint | None = None
    if args.resume:
        for directory in (args.dir, COMMITTED_DIR):
            path = directory / f"{args.variant}.npz"
            if path.exists():
                try:
                    ck = load_checkpoint(path, args.variant)
                except (OSError, ValueError, KeyError, TypeError) as exc:
                    print(f"error: cannot resume from {path}: {exc}", file=sys.stderr)
                    return 1
                print(f"resuming {path} at {ck.games} games", flush=True)
                break
        else:
            print(f"no checkpoint for {args.variant}: starting afresh", flush=True)
    resumed = ck is not None
    if ck is None:
        config = {
            "seed": args.seed,
            "hidden": args.hidden or HIDDEN,
            "alpha": ALPHA if args.alpha is None else args.alpha,
            "lambda": args.lam,
            "objective": args.objective,
            "encoding_version": args.encoding or ENCODING_VERSION,
        }
        width = Encoder(rules, config["encoding_version"]).width
        net = Network.create(
            args.variant, width, config["hidden"], args.seed, config["encoding_version"]
        )
        if args.init_from is not None:
            try:
                base = _initial_network(args.init_from, net)
            except (OSError, ValueError, KeyError) as exc:
                print(f"error: cannot start from {args.init_from}: {exc}", file=sys.stderr)
                return 1
            net.w1, net.b1, net.w2, net.b2 = base.w1, base.b1, base.w2, base.b2
            config["hidden"] = net.meta["hidden"] = net.hidden
            # Enough to redo the run: the starting network's own training and seed.
            config["init_from"] = {
                "variant": base.variant,
                "games": base.meta.get("games"),
                "seed": base.meta.get("config", {}).get("seed", base.meta.get("seed")),
            }
            print(
                f"starting from {args.init_from} ({base.variant}, {base.meta.get('games')} games)",
                flush=True,
            )
        ck = Checkpoint(net, 0, rng.getstate(), [], config)
    elif args.encoding is not None and args.encoding != ck.config["encoding_version"]:
        if not grows_into(int(ck.config["encoding_version"]), args.encoding):
            print(
                f"error: a network of encoding {ck.config['encoding_version']} cannot grow "
                f"into encoding {args.encoding}",
                file=sys.stderr,
            )
            return 2
        # The new inputs come after the old ones with zero weights: nothing learned is lost.
        ck.net.grow_inputs(Encoder(rules, args.encoding).width)
        record_change(ck, "encoding_version", ck.config["encoding_version"], args.encoding)
        ck.net.meta["encoding_version"] = args.encoding
        print(f"grown to encoding {args.encoding} ({ck.net.inputs} inputs)", flush=True)
    if resumed and args.hidden is not None and args.hidden != ck.net.hidden:
        if args.hidden < ck.net.hidden:
            print("error: a network cannot lose hidden units", file=sys.stderr)
            return 2
        # Seeded by the run's seed and the game count: the command replays the same growth.
        ck.net.grow_hidden(args.hidden, int(ck.config["seed"]) * 1_000_003 + ck.games)
        record_change(ck, "hidden", ck.config["hidden"], args.hidden)
        ck.net.meta["hidden"] = args.hidden
        print(f"grown to {args.hidden} hidden units", flush=True)
    if args.chain_lookahead is not None and args.chain_lookahead != ck.config.get(
        "chain_lookahead", 0
    ):
        if resumed:
            record_change(
                ck, "chain_lookahead", ck.config.get("chain_lookahead", 0), args.chain_lookahead
            )
        else:
            ck.config["chain_lookahead"] = args.chain_lookahead
        print(f"chain lookahead {args.chain_lookahead} from game {ck.games}", flush=True)
    if args.alpha is not None and args.alpha != ck.config["alpha"]:
        record_change(ck, "alpha", ck.config["alpha"], args.alpha)
        print(f"alpha {ck.config['alpha']} from game {ck.games}", flush=True)
    encoder = Encoder(rules, int(ck.config["encoding_version"]))
    if ck.net.inputs != encoder.width:
        print("error: the checkpoint's inputs do not match the encoding", file=sys.stderr)
        return 1
    rng.setstate(ck.rng_state)
    cfg = ck.config
    player = NetPlayer(
        ck.net, encoder, str(cfg.get("objective", "points")), int(cfg.get("chain_lookahead", 0))
    )
    learner = Learner(ck.net, float(cfg["alpha"]), float(cfg["lambda"]))

    stop = False

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    start = time.monotonic()
    deadline = None if args.minutes is None else start + 60.0 * args.minutes
    played = 0
    window_start, window_games = start, 0
    train_seconds = 0.0
    if ck.games == 0 and args.eval_every > 0:
        _report(ck, rules, args.eval_games, 0.0)
    while not stop:
        if args.games is not None and played >= args.games:
            break
        if deadline is not None and time.monotonic() >= deadline:
            break
        t0 = time.monotonic()
        self_play_game(player, learner, rng)
        train_seconds += time.monotonic() - t0
        played += 1
        ck.games += 1
        window_games += 1
        if args.eval_every > 0 and ck.games % args.eval_every == 0:
            speed = 60.0 * window_games / max(train_seconds, 1e-9)
            _report(ck, rules, args.eval_games, speed)
            window_start, window_games, train_seconds = time.monotonic(), 0, 0.0
        if ck.games % args.checkpoint_every == 0:
            ck.rng_state = rng.getstate()
            save_checkpoint(ck, args.dir)
    ck.rng_state = rng.getstate()
    path = save_checkpoint(ck, args.dir)
    elapsed = time.monotonic() - start
    print(
        f"stopped after {played} games in {elapsed / 60:.1f} min; {ck.games} trained in all; "
        f"checkpoint {path}",
        flush=True,
    )
    del window_start
    return 0


def _initial_network(path: Path, fresh: Network) -> Network:
    """The network at ``path`` if it can start ``fresh``'s training (same inputs, heads and
    encoding); ValueError otherwise."""
    base = Network.load(path)
    if base.inputs != fresh.inputs or base.heads != fresh.heads:
        raise ValueError(
            f"{base.variant} has {base.inputs} inputs and heads {list(base.heads)}; "
            f"{fresh.variant} needs {fresh.inputs} and {list(fresh.heads)}"
        )
    if base.meta.get("encoding_version") != fresh.meta.get("encoding_version"):
        raise ValueError("the encodings differ")
    return base


def _report(ck: Checkpoint, rules: Variant, games: int, speed: float) -> None:
    score, ppg = play_match(rules, benchmark_player(ck.net), greedy_baseline, games, EVAL_SEED)
    entry = {
        "games": ck.games,
        "opponent": BASELINE_NAME,
        "sample": games,
        "win_rate": round(score, 4),
        "points_per_game": round(ppg, 3),
        "games_per_minute": round(speed, 1),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    ck.curve.append(entry)
    print(json.dumps(entry), flush=True)


if __name__ == "__main__":
    sys.exit(main())
